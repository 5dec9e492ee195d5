"""Which thread holds which element, asked in two compilers' languages (docs/model.md section 12).

``prove_triton_equals(attr, shape, other)`` proves a Triton layout attribute on a tensor shape equal to
``other``: a CuTe TV layout ``(thread, value) -> m + M*n`` (a plain layout, an atom's or tiled MMA's operand,
a hardware spec's layout), a CuTe shared-memory layout ``(m, n) -> offset`` (against a shared attribute),
another Triton attribute, or a linear layout. Both sides become linear layouts over F2 (Triton's side by
:mod:`.convert`, CuTe's by :func:`cuteverify.linear.to_linear_layout`) and the question is decided by rank
computations (:func:`cuteverify.linear.equal_function` / :func:`~cuteverify.linear.same_ownership`), never by
a solver or by enumeration.

Two questions. ``exact=True``: the same function, every (lane, warp, register) -> the same element, register
order included. Default (ownership): every thread (lane, warp) holds the same SET of elements; registers may
be permuted or repeated. A proved ownership verdict says whether the exact question holds too. Shared
layouts are always compared exactly (offset -> element). A refutation carries a counterexample re-checked
on the original objects (the CuTe layout evaluated at the thread and value, Triton's layout at the lane, warp
and register) naming the thread, the register and the two elements; a witness that does not re-check is an
``unknown`` verdict, never a refutation.

Conventions: Triton's ``dim0`` is CuTe's ``m`` (first coordinate), ``dim1`` its ``n``; a CuTe thread index is
``lane + 32 * warp``; a CuTe value index is Triton's register. Operand B: Triton's dot_op ``opIdx = 1`` is
indexed ``(k, n)``, a CuTe B operand ``(n, k)``: the CuTe side's coordinates are swapped (``transpose``).
"""
from __future__ import annotations

import time

from ..core.layout import Layout, size
from ..core.notation.interop import as_layout
from ..core.notation.tiles import read_extents
from ..core.swizzle import ComposedLayout
from ..errors import CuteVerifyError, NotAdmissibleError, TritonLayoutError
from ..hardware.library.spec import OPERAND_MODES
from ..linear import LinearLayout, equal_function, same_ownership, to_linear_layout
from ..prover.verdict import Disagree, Mismatch, Verdict
from .attrs import DotOperand, parse_attr
from .convert import to_linear

__all__ = ["THREAD_DIMS", "prove_triton_equals", "triton_layout"]

THREAD_DIMS = ("lane", "warp", "block")
METHOD_EXACT = "F2 bases (same function)"
METHOD_OWN = "F2 rank (same ownership)"


def triton_layout(attr_or_text, shape, aliases=None):
    """``(attr, shape, LinearLayout)`` of an attribute record or text on a shape (tuple or ``128x64``)."""
    attr = parse_attr(attr_or_text, aliases) if isinstance(attr_or_text, str) else attr_or_text
    shape = read_extents(shape, "shape")
    return attr, shape, to_linear(attr, shape)


def _txt(shape) -> str:
    return "x".join(map(str, shape))


def _swap(ll: LinearLayout) -> LinearLayout:
    """The same layout with its two out dims exchanged and renamed (CuTe's ``(n, k)`` as Triton's ``(k, n)``)."""
    (_, sa), (_, sb) = ll.out_dims
    return LinearLayout([(n, [(v[1], v[0]) for v in bs]) for n, bs in ll.bases.items()],
                        [("dim0", sb), ("dim1", sa)])


class _Side:
    """The other side of the comparison: ``ll`` its linear layout (out dims ``dim0, dim1``), ``what`` words,
    ``element(inp)`` its element at an input ``{dim: value}`` evaluated on the original object (CuTe's layout
    itself, not its linear form), ``holds(thread)`` the set of elements of a thread the same way."""

    def __init__(self, ll, what, element, registers):
        self.ll, self.what, self.element, self.registers = ll, what, element, registers


def _linear_side(ll: LinearLayout, what: str) -> _Side:
    def element(inp):
        return ll.apply({k: v for k, v in inp.items() if ll.has_in_dim(k)})
    return _Side(ll, what, element, ll.in_dim_size("register") if ll.has_in_dim("register") else 1)


def _as_cute(other):
    lay = as_layout(other, "CuTe layout", shapes=False)
    # F2 (^k) and E<i> strides are concrete values; only a free symbol (N, K ...) needs a substitution
    if isinstance(lay, (Layout, ComposedLayout)) and not lay.is_concrete and lay.free_symbols():
        raise TritonLayoutError(f"the CuTe layout {lay} has symbols: a Triton layout is concrete, substitute values "
                                "first (Layout.subs)")
    return lay


def _at(L, coord) -> int:
    """A CuTe layout's value at ``coord`` as an int (an F2 stride's ``^k`` value read as the number k)."""
    v = L(coord)
    return v if type(v) is int else int(v)


def _operand_layout(other, operand):
    """A TV layout and its tile from an atom or tiled MMA (``operand`` A, B or C)."""
    if operand not in ("A", "B", "C"):
        raise TritonLayoutError(f"an MMA atom needs operand='A', 'B' or 'C', got {operand!r}")
    modes = OPERAND_MODES[operand]
    if hasattr(other, "tv_layout_tiled"):
        mnk = other.tile_shape_mnk
        return other.tv_layout_tiled(operand), tuple(mnk[i] for i in modes)
    mnk = other.shape_mnk
    return other.tv_layout(operand), tuple(mnk[i] for i in modes)


def _spec_layout(spec, operand, params):
    """A hardware spec's TV layout of ``operand`` and its tile (``params`` fix a family's parameters)."""
    if operand not in ("A", "B", "C"):
        raise TritonLayoutError(f"a hardware spec needs operand='A', 'B' or 'C', got {operand!r}")
    p = spec.check_params(dict(params or {}))
    mnk = spec.shape_mnk(**p)
    modes = OPERAND_MODES[operand]
    return spec.layout(operand, **p), tuple(mnk[i] for i in modes)


def _tv_side(L, tile, shape, transpose: bool, what: str) -> _Side:
    if not (isinstance(L, (Layout, ComposedLayout))):
        raise TritonLayoutError(f"the other side must be a CuTe layout, an MMA atom / tiled MMA, a Triton attribute "
                                f"or a linear layout, got {type(L).__name__}")
    tile = tuple(tile)
    if len(shape) != 2 or len(tile) != 2:
        raise TritonLayoutError(f"{what} indexes a 2-D tile (m + M*n); the Triton tensor is {_txt(shape)} (rank "
                                f"{len(shape)}) and the tile {_txt(tile)}")
    want = (shape[1], shape[0]) if transpose else tuple(shape)
    if tile != want:
        hint = " (a tiled MMA covers the tensor when built with permutation_mnk = the tensor's M, N, K)" \
            if "tiled" in what or "atom" in what else ""
        raise TritonLayoutError(f"shapes differ: the Triton tensor is {_txt(shape)}, {what} covers "
                                f"{_txt(tile)}{' (its (n, k) read as (k, n))' if transpose else ''}{hint}")
    M = tile[0]
    T, V = size(L.shape[0]), size(L.shape[1])
    try:
        ll = to_linear_layout(L, tile=tile)
    except NotAdmissibleError as e:
        # not F2-linear (or out of the tile): compared by enumeration when small, see _prove_enumerated
        ll, why = None, str(e)
    else:
        why = None
        if transpose:
            ll = _swap(ll)
    lanes = ll.in_dim_size("lane") if ll is not None else min(T, 32)

    def element(inp):
        if inp.get("block", 0):
            return (0, 0)  # a CuTe TV layout has no block: a block bit is Triton's alone
        t = inp.get("lane", 0) + lanes * inp.get("warp", 0)
        i = _at(L, (t, inp.get("register", 0)))
        m, n = i % M, i // M
        return (n, m) if transpose else (m, n)
    side = _Side(ll, what, element, V)
    side.threads, side.lanes, side.nonlinear, side.layout, side.tile = T, lanes, why, L, tile
    return side


def _other_side(other, attr, shape, operand, tile, transpose, aliases, params=None) -> _Side:
    if isinstance(other, LinearLayout):
        return _linear_side(other, "the linear layout")
    if isinstance(other, str) and other.lstrip().startswith("#"):
        oattr = parse_attr(other, aliases)
        return _linear_side(to_linear(oattr, shape), oattr.text())
    if hasattr(other, "kind") and hasattr(other, "text") and not isinstance(other, (Layout, ComposedLayout)):
        return _linear_side(to_linear(other, shape), other.text())
    is_b = isinstance(attr, DotOperand) and attr.op_idx == 1
    tr = is_b if transpose is None else bool(transpose)
    if getattr(other, "kind", None) == "mma" and callable(getattr(other, "check_params", None)):
        L, t = _spec_layout(other, operand, params)
        return _tv_side(L, t, shape, tr, f"the spec {other.name}'s {operand} layout {L}")
    if hasattr(other, "tv_layout"):
        L, t = _operand_layout(other, operand)
        kind = "the tiled MMA's" if hasattr(other, "tv_layout_tiled") else "the MMA atom's"
        return _tv_side(L, t, shape, tr, f"{kind} {operand} TV layout {L}")
    L = _as_cute(other)
    if tile is None:
        tile = (shape[1], shape[0]) if tr else shape
    return _tv_side(L, tile, shape, tr, f"the CuTe TV layout {L}")


def _grid(lay: LinearLayout) -> tuple:
    """``(lanes, warps, blocks)`` of a register layout (1 for a dim it does not have)."""
    return tuple(lay.in_dim_size(d) if lay.has_in_dim(d) else 1 for d in THREAD_DIMS)


def _check_threads(ll: LinearLayout, side: _Side, what: str):
    """Both sides must run on the same grid: lanes per warp, warps per CTA and CTAs each equal (a layout over
    4 warps and one over 2 warps in 2 CTAs have the same thread count but no common thread index)."""
    (la, wa, ba), (lb, wb, bb) = _grid(ll), _grid(side.ll)
    if la * wa * ba != lb * wb * bb:
        raise TritonLayoutError(f"thread counts differ: {what} has {la * wa * ba} threads, {side.what} "
                                f"{lb * wb * bb}")
    if la != lb:
        raise TritonLayoutError(f"warp sizes differ: {what} has {la} lanes per warp, {side.what} {lb}")
    if (wa, ba) != (wb, bb):
        raise TritonLayoutError(f"thread grids differ: {what} has {wa} warps x {ba} CTAs, {side.what} {wb} warps "
                                f"x {bb} CTAs")
    sa = [s for n, s in ll.out_dims]
    sb = [s for n, s in side.ll.out_dims]
    if sa != sb:
        raise TritonLayoutError(f"shapes differ: {what} covers {_txt(sa)}, {side.what} {_txt(sb)}")


def _thread_text(inp) -> str:
    parts = [f"lane {inp.get('lane', 0)}", f"warp {inp.get('warp', 0)}"]
    if inp.get("block", 0):
        parts.append(f"block {inp['block']}")
    return ", ".join(parts)


def _lanes(ll: LinearLayout) -> int:
    return ll.in_dim_size("lane") if ll.has_in_dim("lane") else 1


def _registers(ll: LinearLayout):
    return ll.in_dim_size("register") if ll.has_in_dim("register") else 1


def _cex_function(ll, side, witness, what):
    """The first input where the functions differ, re-checked on both originals."""
    inp = {d: 0 for d in ("register",) + THREAD_DIMS
           if ll.has_in_dim(d) or (side.ll is not None and side.ll.has_in_dim(d))}
    inp.update(witness["input"])
    mine = ll.apply({k: v for k, v in inp.items() if ll.has_in_dim(k)})
    theirs = side.element(inp)
    if mine == tuple(theirs):
        return None
    t = inp.get("lane", 0) + _lanes(ll) * inp.get("warp", 0)
    note = (f"thread {t} ({_thread_text(inp)}), register {inp.get('register', 0)}: Triton's layout holds element "
            f"{mine}, {side.what} holds {tuple(theirs)}")
    return Disagree(coords=(t, inp.get("register", 0)), values=(mine, tuple(theirs)), note=note,
                          detail={"thread": t, "lane": inp.get("lane", 0), "warp": inp.get("warp", 0),
                                  "block": inp.get("block", 0), "register": inp.get("register", 0),
                                  "triton": mine, "other": tuple(theirs), "question": "exact"})


def _cex_ownership(ll, side, witness):
    """A thread and an element one side holds and the other does not, re-checked by listing both sides'
    registers of that thread (the CuTe side on its own layout)."""
    thr = dict(witness["thread"])
    base = {d: thr.get(d, 0) for d in THREAD_DIMS}
    mine = [ll.apply({**{k: v for k, v in base.items() if ll.has_in_dim(k)},
                      **({"register": r} if ll.has_in_dim("register") else {})}) for r in range(_registers(ll))]
    theirs = [tuple(side.element({**base, "register": r})) for r in range(side.registers)]
    only_mine = [e for e in mine if e not in set(theirs)]
    only_theirs = [e for e in theirs if e not in set(mine)]
    if not only_mine and not only_theirs:
        return None
    t = base["lane"] + _lanes(ll) * base["warp"]
    if only_mine:
        r = mine.index(only_mine[0])
        held, other = only_mine[0], (theirs[r] if r < len(theirs) else None)
        note = (f"thread {t} ({_thread_text(base)}) holds element {held} in Triton's layout (register {r}), not "
                f"in {side.what}" + (f" (its register {r} holds {other})" if other is not None else ""))
        vals = (held, other)
    else:
        r = theirs.index(only_theirs[0])
        held, other = only_theirs[0], (mine[r] if r < len(mine) else None)
        note = (f"thread {t} ({_thread_text(base)}) holds element {held} in {side.what} (register {r}), not in "
                f"Triton's layout" + (f" (its register {r} holds {other})" if other is not None else ""))
        vals = (other, held)
    return Disagree(coords=(t, r), values=vals, note=note,
                          detail={"thread": t, "lane": base["lane"], "warp": base["warp"], "block": base["block"],
                                  "register": r, "triton": vals[0], "other": vals[1], "question": "ownership"})


def _register_hint(ll, side) -> str:
    """Where the register orders differ (for a proved ownership that is not the same function)."""
    w = equal_function(ll, side.ll).witness or {}
    inp = w.get("input", {})
    if not inp:
        return ""
    (d, v), = inp.items()
    full = {k: 0 for k in ("register",) + THREAD_DIMS}
    full[d] = v
    return (f"; the register order differs (exact refuted): at {d}={v} Triton's layout holds "
            f"{ll.apply({k: x for k, x in full.items() if ll.has_in_dim(k)})}, the other "
            f"{tuple(side.element(full))}")


def prove_triton_equals(attr_or_text, shape, other, *, exact=False, operand=None, tile=None, transpose=None,
                        aliases=None, params=None) -> Verdict:
    """Prove the Triton layout ``attr_or_text`` (record or TTGIR text) on the tensor ``shape`` equal to ``other``.

    ``other``: a CuTe TV layout (Layout, ComposedLayout or text; ``tile`` its ``(M, N)``, default the shape),
    an MMA atom or tiled MMA with ``operand`` (its ``tv_layout`` / ``tv_layout_tiled``; the tiled MMA must cover
    the tensor: build it with ``permutation_mnk`` = the tensor's extents), a hardware mma spec with ``operand``
    (and ``params`` for a family, e.g. ``{"N": 128}``), a CuTe smem layout ``(m, n) ->
    offset`` (when the attribute is a shared one), a Triton attribute (record or text), or a LinearLayout.
    ``exact``: the same function (register order too) instead of the same per-thread element sets.
    ``transpose``: read the CuTe side's coordinates as ``(n, m)`` (default: for dot_op ``opIdx = 1``).

    Returns a Verdict: proved (the reason says whether the exact question holds too), refuted with a re-checked
    counterexample (kind ``disagree``: thread, lane, warp, register, Triton's element and the other's), or
    unknown when a witness does not re-check. Two shared attributes over different CTA shares (offsets x
    blocks) are refuted (kind ``mismatch``). Input errors raise CuteVerifyError subclasses: a malformed
    attribute, shapes that differ, thread grids (lanes per warp, warps, CTAs) that differ, a multi-CTA
    attribute against a CuTe TV layout (one CTA's), a CuTe TV layout against a tensor that is not 2-D, a CuTe
    layout with free symbols (F2 ``^k`` and integer strides are concrete), an inadmissible conversion."""
    t0 = time.perf_counter()
    attr, shape, ll = triton_layout(attr_or_text, shape, aliases)
    if attr.shared:
        return _prove_shared(attr, shape, ll, other, aliases, t0)
    side = _other_side(other, attr, shape, operand, tile, transpose, aliases, params)
    if hasattr(side, "layout") and _grid(ll)[2] > 1:
        raise TritonLayoutError(f"{attr.text()} spreads the tensor over {_grid(ll)[2]} CTAs; {side.what} is one "
                                "CTA's (compare one CTA's share, or another multi-CTA attribute)")
    if side.ll is None:
        return _prove_enumerated(attr, shape, ll, side, exact, t0)
    if getattr(side.ll, "in_dim_names", None) and "offset" in side.ll.in_dim_names:
        raise TritonLayoutError(f"{attr.text()} is a register layout, {side.what} a shared one")
    _check_threads(ll, side, f"{attr.text()} on {_txt(shape)}")
    claim = f"{attr.text()} on {_txt(shape)} {'is the same function as' if exact else 'has the ownership of'} " \
            f"{side.what}"

    def done(status, method, **kw):
        return Verdict(status, claim=claim, method=method, elapsed=time.perf_counter() - t0, **kw)

    if exact:
        if _registers(ll) != side.registers:
            why = (f"register counts differ: Triton's layout has {_registers(ll)} registers per thread, "
                   f"{side.what} {side.registers}")
            return done("refuted", METHOD_EXACT, counterexample=Mismatch(note=why), reason=why)
        c = equal_function(ll, side.ll)
        if c:
            return done("proved", METHOD_EXACT, reason="the same function: every lane, warp and register holds the "
                                                       "same element")
        cex = _cex_function(ll, side, c.witness, claim)
        if cex is None:
            return done("unknown", METHOD_EXACT, reason=f"internal: the witness {c.witness} does not re-check")
        return done("refuted", METHOD_EXACT, counterexample=cex)
    c = same_ownership(ll, side.ll, thread_dims=THREAD_DIMS, value_dims=("register",))
    if c:
        same = bool(equal_function(ll, side.ll)) and _registers(ll) == side.registers
        reason = ("every thread holds the same elements; moreover the same function (register order too)" if same
                  else "every thread holds the same set of elements" + _register_hint(ll, side))
        return done("proved", METHOD_OWN, reason=reason)
    cex = _cex_ownership(ll, side, c.witness)
    if cex is None:
        return done("unknown", METHOD_OWN, reason=f"internal: the witness {c.witness} does not re-check")
    return done("refuted", METHOD_OWN, counterexample=cex)


ENUMERATION_BUDGET = 1 << 16  # (thread, value) pairs of a layout that is not F2-linear, listed one by one


def _prove_enumerated(attr, shape, ll, side, exact, t0) -> Verdict:
    """The other side is a CuTe TV layout that is not F2-linear (its bases carry): compare by listing every
    thread's elements (within ENUMERATION_BUDGET; unknown beyond). Exact: the same element at every (thread,
    register); ownership: the same element set per thread."""
    method = "enumeration (the CuTe layout is not F2-linear: " + side.nonlinear.split(": ", 1)[-1] + ")"
    claim = f"{attr.text()} on {_txt(shape)} {'is the same function as' if exact else 'has the ownership of'} " \
            f"{side.what}"

    def done(status, **kw):
        return Verdict(status, claim=claim, method=method, elapsed=time.perf_counter() - t0, **kw)
    threads = _lanes(ll) * (ll.in_dim_size("warp") if ll.has_in_dim("warp") else 1) * \
        (ll.in_dim_size("block") if ll.has_in_dim("block") else 1)
    if threads != side.threads:
        raise TritonLayoutError(f"thread counts differ: {attr.text()} on {_txt(shape)} has {threads} threads, "
                                f"{side.what} {side.threads}")
    if side.threads * max(side.registers, _registers(ll)) > ENUMERATION_BUDGET:
        return done("unknown", reason=f"{side.nonlinear}; too large to enumerate ({side.threads} threads x "
                                      f"{side.registers} values > {ENUMERATION_BUDGET})")
    if _lanes(ll) != side.lanes:
        raise TritonLayoutError(f"warp sizes differ: Triton's layout has {_lanes(ll)} lanes, {side.what} "
                                f"{side.lanes}")
    M, N = side.tile
    for t in range(side.threads):
        for v in range(side.registers):
            i = _at(side.layout, (t, v))
            if not 0 <= i < M * N:
                raise TritonLayoutError(f"{side.what} maps thread {t} value {v} to index {i}, outside its "
                                        f"{M}x{N} tile")
    if exact and _registers(ll) != side.registers:
        why = f"register counts differ: Triton's layout has {_registers(ll)}, {side.what} {side.registers}"
        return done("refuted", counterexample=Mismatch(note=why), reason=why)
    for t in range(side.threads):
        inp = {"lane": t % _lanes(ll), "warp": t // _lanes(ll)}
        mine = [ll.apply({**{k: x for k, x in inp.items() if ll.has_in_dim(k)},
                          **({"register": r} if ll.has_in_dim("register") else {})}) for r in range(_registers(ll))]
        theirs = [tuple(side.element({**inp, "register": r})) for r in range(side.registers)]
        if exact:
            for r, (a, b) in enumerate(zip(mine, theirs)):
                if a != b:
                    return done("refuted", counterexample=_cex_function(
                        ll, side, {"input": {**inp, "register": r}}, claim))
        elif set(mine) != set(theirs):
            return done("refuted", counterexample=_cex_ownership(ll, side, {"thread": inp}))
    return done("proved", reason="every (thread, register) holds the same element" if exact else
                "every thread holds the same set of elements")


def _prove_shared(attr, shape, ll, other, aliases, t0) -> Verdict:
    """Shared layouts: offset -> element, always the same function. ``other`` a CuTe smem layout ``(m, n) ->
    offset`` (its inverse is compared), another shared attribute, or a LinearLayout with an ``offset`` dim."""
    if isinstance(other, LinearLayout):
        theirs, what, S = other, "the linear layout", None
    elif (isinstance(other, str) and other.lstrip().startswith("#")) or (hasattr(other, "shared") and
                                                                        hasattr(other, "text")):
        oattr = parse_attr(other, aliases) if isinstance(other, str) else other
        if not oattr.shared:
            raise TritonLayoutError(f"{attr.text()} is a shared layout, {oattr.text()} a register layout")
        theirs, what, S = to_linear(oattr, shape), oattr.text(), None
    else:
        S = _as_cute(other)
        sizes = tuple(S.shape[i] if type(S.shape[i]) is int else _size_of(S.shape[i]) for i in range(len(S.shape))) \
            if isinstance(S.shape, tuple) else (S.shape,)
        if sizes != tuple(shape):
            raise TritonLayoutError(f"shapes differ: the Triton tensor is {_txt(shape)}, the CuTe smem layout {S} "
                                    f"covers {_txt(sizes)}")
        what = f"the CuTe smem layout {S}"
        try:
            theirs = to_linear_layout(S, tile=tuple(shape), shared=True)
        except NotAdmissibleError as e:  # not an F2 bijection onto [0, M*N) (padding, carries): enumerate
            return _shared_enumerated(attr, shape, ll, S, what, str(e), t0)
    claim = f"{attr.text()} on {_txt(shape)} stores each element at the offset {what} does"

    def done(status, **kw):
        return Verdict(status, claim=claim, method=METHOD_EXACT, elapsed=time.perf_counter() - t0, **kw)
    def blocks(lay):
        return lay.in_dim_size("block") if lay.has_in_dim("block") else 1
    if S is None and (blocks(ll) > 1 or blocks(theirs) > 1):
        # several CTAs: the block bits are part of the function, compared with the offsets
        def sizes(lay):
            return {d: (lay.in_dim_size(d) if lay.has_in_dim(d) else 1) for d in ("offset", "block")}
        if sizes(ll) != sizes(theirs) or ll.out_dims != theirs.out_dims:
            why = (f"the CTA shares differ: Triton's layout has {sizes(ll)['block']} CTAs of "
                   f"{sizes(ll)['offset']} offsets, {what} {sizes(theirs)['block']} CTAs of "
                   f"{sizes(theirs)['offset']} offsets")
            return done("refuted", counterexample=Mismatch(note=why), reason=why)
        c = equal_function(ll, theirs)
        if c:
            return done("proved", reason="every (block, offset) holds the same element")
        w = dict(c.witness["input"])
        note = f"at {w}: Triton's layout gives {c.witness['first']}, {what} {c.witness['second']}"
        return done("refuted", counterexample=Disagree(coords=tuple(w.values()),
                                                              note=note, detail={"input": w}))
    if blocks(ll) > 1:
        raise TritonLayoutError(f"{attr.text()} spreads the tensor over {blocks(ll)} CTAs; a CuTe smem layout "
                                "is one CTA's")
    mine = ll.sublayout(["offset"], ll.out_dim_names)
    other_ll = theirs.sublayout([n for n in theirs.in_dim_names if n != "block"], theirs.out_dim_names)
    n_other = other_ll.in_dim_size("offset") if other_ll.has_in_dim("offset") else 1
    if mine.in_dim_size("offset") != n_other or mine.out_dims != other_ll.out_dims:
        raise TritonLayoutError(f"sizes differ: {attr.text()} has {mine.in_dim_size('offset')} offsets, {what} "
                                f"{n_other}")
    c = equal_function(mine, other_ll)
    if c:
        return done("proved", reason="every offset holds the same element")
    (o,) = c.witness["input"].values()
    a = mine.apply({"offset": o})
    b = other_ll.apply({"offset": o})
    if S is not None:  # re-check on the CuTe layout itself: it stores b at o and a elsewhere
        try:
            ok = _at(S, tuple(b)) == o and _at(S, tuple(a)) != o
        except CuteVerifyError:
            ok = False
    else:
        ok = a != b
    if not ok:
        return done("unknown", reason=f"internal: the witness {c.witness} does not re-check")
    where = f" (CuTe stores {a} at offset {_at(S, tuple(a))})" if S is not None else ""
    note = f"offset {o}: Triton's layout stores element {a} there, {what} stores {b}{where}"
    return done("refuted", counterexample=Disagree(coords=(o,), values=(a, b), note=note,
                                                          detail={"offset": o, "triton": a, "other": b}))


def _shared_enumerated(attr, shape, ll, S, what, why, t0) -> Verdict:
    """A CuTe smem layout that is not an F2 bijection onto ``[0, M*N)``: list every element's offset (within
    ENUMERATION_BUDGET). Triton's shared layouts are bijections onto ``[0, M*N)``, so the first offset whose
    element CuTe stores elsewhere refutes."""
    method = "enumeration (the CuTe layout is not an F2 bijection: " + why.split(": ", 1)[-1] + ")"
    claim = f"{attr.text()} on {_txt(shape)} stores each element at the offset {what} does"

    def done(status, **kw):
        return Verdict(status, claim=claim, method=method, elapsed=time.perf_counter() - t0, **kw)
    total = ll.in_dim_size("offset")
    if total > ENUMERATION_BUDGET:
        return done("unknown", reason=f"{why}; too large to enumerate ({total} offsets > {ENUMERATION_BUDGET})")
    mine = ll.sublayout(["offset"], ll.out_dim_names)
    where = {}
    for o in range(total):
        e = mine.apply({"offset": o})
        where.setdefault(_at(S, e), e)
    for o in range(total):
        e = mine.apply({"offset": o})
        got = _at(S, e)
        if got != o:
            b = where.get(o)
            note = (f"offset {o}: Triton's layout stores element {e} there, {what} stores it at offset {got}" +
                    (f" and stores {b} at offset {o}" if b is not None else f" and no element at offset {o}"))
            return done("refuted", counterexample=Disagree(
                coords=(o,), values=(e, b), note=note, detail={"offset": o, "triton": e, "other": b}))
    return done("proved", reason="every offset holds the same element")


def _size_of(s) -> int:
    if type(s) is int:
        return s
    n = 1
    for x in s:
        n *= _size_of(x)
    return n
