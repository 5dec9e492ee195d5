"""CuTe layouts to linear layouts and back (docs/model.md section 11).

``to_linear_layout`` reads the F2 bases of a power-of-two layout (the value at each power-of-two coordinate of
each mode) and proves that they determine the layout, by the stride domain's rule; ``from_linear_layout``
writes a linear layout as a CuTe layout that evaluates to the same value at every point. Both refuse what they
cannot represent with a NotAdmissibleError that names the mode and the basis.
"""
from __future__ import annotations

from ..algebra import coalesce
from ..core.layout import Layout, stride_domain
from ..core.notation.interop import as_layout
from ..core.strides import F2, ScaledBasis
from ..core.swizzle import ComposedLayout, Swizzle
from ..core.tuples import flatten, is_tuple
from ..errors import NotAdmissibleError, Unsupported
from . import f2
from .layout import LinearLayout

_OP = "to_linear_layout"


class _Bits:
    """The bases of a layout, one per input bit: ``modes[k]`` the values of the bits of top-level mode ``k``
    (colexicographic across the mode's leaves, so bit ``i`` is the coordinate ``2**i`` of the mode's index);
    a value is an int (``domain`` "int" or "F2": an offset) or ``{coordinate: int}`` (``domain`` "E")."""

    __slots__ = ("domain", "modes", "ncoords")

    def __init__(self, modes, domain, ncoords=0):
        self.modes, self.domain, self.ncoords = modes, domain, ncoords

    def flat(self):
        return [v for m in self.modes for v in m]


def _top_modes(layout: Layout):
    if is_tuple(layout.shape):
        return list(zip(layout.shape, layout.stride))
    return [(layout.shape, layout.stride)]


def _carry(values, where, what):
    """Refuse when two non-zero values share a bit: then their integer sum is not their XOR."""
    seen = 0
    for i, v in enumerate(values):
        if v & seen:
            j = next(j for j in range(i) if values[j] & v)
            raise NotAdmissibleError(_OP, f"bases {values[j]} ({where[j]}) and {v} ({where[i]}) overlap: {what}")
        seen |= v


def _plain_bits(layout: Layout) -> _Bits:
    """The bases of a plain layout and the proof that they determine it.

    Integer strides: ``L(c) = sum_k c_k * d_k``; with power-of-two shapes each ``c_k = sum_j b_kj 2^j`` and
    ``L(c)`` is the integer sum of the bases ``d_k << j`` of the set bits. For non-negative ``a, b``,
    ``a + b = (a ^ b) + 2 (a & b)``, so a sum of values with pairwise disjoint bits is their XOR (by induction:
    the partial XOR has only the bits of its terms, disjoint from the next), and the layout is F2-linear iff the
    non-zero bases are pairwise disjoint (two overlapping bases already differ on their pair). F2 strides: the
    leaves add by XOR, but a leaf ``s:^d`` is ``c * d`` as an integer, so the same rule holds within each leaf.
    Coordinate strides ``v@i``: the rule holds per coordinate ``i``."""
    fs, fd = layout.leaves
    for x in fs:
        if type(x) is not int:
            raise NotAdmissibleError(_OP, f"the shape entry {x} is symbolic: substitute concrete values first "
                                     "(a linear layout has concrete power-of-two sizes)")
    domain = stride_domain(fd)
    modes, names = [], []
    for k, (s, d) in enumerate(_top_modes(layout)):
        vals, where, bit = [], [], 0
        for leaf_s, leaf_d in zip(flatten(s), flatten(d)):
            if not f2.is_power_of_two(leaf_s):
                raise NotAdmissibleError(_OP, f"mode {k} has shape {leaf_s}, not a power of two")
            nb = f2.log2(leaf_s)
            lv = [_scaled(leaf_d, j, k) for j in range(nb)]
            if domain == "E":
                lv = [v if isinstance(v, dict) else {} for v in lv]  # a 0 stride: no coordinate
            lw = [f"mode {k} bit {bit + j}" for j in range(nb)]
            if domain == "F2":
                _carry(lv, lw, "the F2 mode's integer multiple carries")
            vals += lv
            where += lw
            bit += nb
        modes.append(vals)
        names.append(where)
    flat_w = [w for ws in names for w in ws]
    if domain == "int":
        _carry([v for m in modes for v in m], flat_w, "the sum carries")
    ncoords = 0
    if domain == "E":
        flat = [v for m in modes for v in m]
        for c in sorted({c for v in flat for c in v}):
            _carry([v.get(c, 0) for v in flat], flat_w, f"the sum carries in coordinate {c}")
        ncoords = 1 + max(d.path[0] for d in fd if isinstance(d, ScaledBasis))
    return _Bits(modes, domain, ncoords)


def _scaled(d, j, k):
    """The value of bit ``j`` of a leaf with stride ``d`` (mode ``k`` for messages)."""
    if type(d) is int:
        if d < 0:
            raise NotAdmissibleError(_OP, f"mode {k} has the negative stride {d}: values of a linear layout are "
                                     "non-negative")
        return d << j
    if isinstance(d, F2):
        v = d.value
        if type(v) is not int or v < 0:
            raise NotAdmissibleError(_OP, f"mode {k} has the F2 stride {d}, not a non-negative integer")
        return v << j
    if isinstance(d, ScaledBasis):
        if len(d.path) != 1:
            raise NotAdmissibleError(_OP, f"mode {k} has the nested coordinate stride {d}: one out dim per "
                                     "top-level coordinate is supported")
        if type(d.value) is not int or d.value < 0:
            raise NotAdmissibleError(_OP, f"mode {k} has the coordinate stride {d}, not a non-negative integer "
                                     "multiple")
        return {d.path[0]: d.value << j}
    raise NotAdmissibleError(_OP, f"mode {k} has the stride {d}: symbolic strides have no F2 bases")


def _offsets(bits: _Bits, what):
    if bits.domain == "E":
        raise NotAdmissibleError(_OP, f"{what} produces coordinates (E<i> strides), not offsets")
    return bits.flat()


def _layout_bits(L) -> _Bits:
    """The bases of a plain or composed layout. A composed layout ``inner o off o outer`` is linear when
    ``off == 0``, ``outer`` is linear with offset values, and ``inner`` is linear: a Swizzle always is
    (``x ^ ((x & Y) >> S)`` is a XOR of linear maps of the bits of ``x``); a plain layout when it is by the
    rule above and ``outer``'s values stay below its size (its index's bits are its leaves' bits)."""
    if isinstance(L, Layout):
        return _plain_bits(L)
    if not isinstance(L, ComposedLayout):
        raise NotAdmissibleError(_OP, f"expected a Layout, a ComposedLayout or CuTe text, got {L!r}")
    if L.offset != 0:
        raise NotAdmissibleError(_OP, f"the composed layout's offset is {L.offset}, not 0: "
                                 "x -> inner(offset + outer(x)) is affine, not linear")
    outer = _layout_bits(L.outer)
    vals = _offsets(outer, "the outer layout")
    if isinstance(L.inner, Swizzle):
        sw = L.inner
        return _Bits([[sw(v) for v in m] for m in outer.modes], outer.domain)
    inner = _plain_bits(L.inner)
    ib = inner.flat()
    reach = 0
    for v in vals:
        reach |= v
    if reach >> len(ib):
        raise NotAdmissibleError(_OP, f"the outer layout reaches {reach}, past the inner layout's size "
                                 f"{1 << len(ib)}")

    def through(v):
        out = {} if inner.domain == "E" else 0
        for i, b in enumerate(ib):
            if v >> i & 1:
                out = _xor(out, b)
        return out

    return _Bits([[through(v) for v in m] for m in outer.modes], inner.domain, inner.ncoords)


def _xor(a, b):
    if type(a) is int:
        return a ^ b
    out = dict(a)
    for c, v in b.items():
        out[c] = out.get(c, 0) ^ v
    return out


def _size(v) -> int:
    return 1 << v.bit_length()


def _names(given, default, what):
    if given is None:
        return default
    given = list(given)
    if len(given) != len(default):
        raise NotAdmissibleError(_OP, f"{len(given)} {what} names given for {len(default)} {what}s")
    return given


def to_linear_layout(L, *, tile=None, shared=False, in_dims=None, out_dims=None) -> LinearLayout:
    """The linear layout of a power-of-two CuTe layout (docs/model.md section 11).

    ``L``: a ``Layout``, a swizzled/composed ``ComposedLayout`` or CuTe text. Admissible when every shape entry
    is a concrete power of two and the layout is F2-linear by its stride domain's rule (integer: the non-zero
    bases pairwise bit-disjoint, proof in ``_plain_bits``; F2: disjoint within each leaf; ``E<i>``: disjoint
    per coordinate; composed: offset 0, each piece linear); otherwise NotAdmissibleError naming the mode/basis.

    Forms (Triton's conventions):
      - default: one in dim per top-level mode (``in0``, ``in1``, ... or the names ``in_dims``), out dim
        ``offset`` (``dim0``, ``dim1``, ... for E<i> strides; or the names ``out_dims``), sizes the powers of
        two that hold the values.
      - ``tile=(M, N)``: a TV layout ``(thread, value) -> element``: in dims ``register`` (the value mode's
        bits), ``lane`` (thread bits 0-4), ``warp`` (thread bits 5 and up); out dims ``dim0`` (size M) and
        ``dim1`` (size N), an element index split as ``m + M*n`` (E<i> coordinates are taken as (m, n)).
      - ``shared=True``: a shared-memory layout ``(m, n) -> offset`` becomes Triton's ``offset -> (dim0,
        dim1)``, its inverse; admissible when bijective onto ``[0, M*N)`` (``tile`` defaults to the modes'
        sizes).
    Post-condition: the result evaluates as ``L`` at every point of its domain (for ``shared``, as ``L``'s
    inverse): the bases are ``L``'s values at the power-of-two coordinates, and the admissibility rule proves
    that ``L`` is their XOR everywhere."""
    L = as_layout(L, "to_linear_layout")
    bits = _layout_bits(L)
    if shared:
        return _shared(bits, tile)
    if tile is not None:
        return _tv(bits, tile)
    names = _names(in_dims, [f"in{k}" for k in range(len(bits.modes))], "in dim")
    if bits.domain == "E":
        n = bits.ncoords
        reach = [0] * n
        for v in bits.flat():
            for c, x in v.items():
                reach[c] |= x
        onames = _names(out_dims, [f"dim{c}" for c in range(n)], "out dim")
        outs = list(zip(onames, (_size(r) for r in reach)))
        return LinearLayout([(nm, [tuple(v.get(c, 0) for c in range(n)) for v in m])
                             for nm, m in zip(names, bits.modes)], outs)
    reach = 0
    for v in bits.flat():
        reach |= v
    onames = _names(out_dims, ["offset"], "out dim")
    return LinearLayout([(nm, [(v,) for v in m]) for nm, m in zip(names, bits.modes)], [(onames[0], _size(reach))])


def _tile(tile, what):
    try:
        t = tuple(tile)
    except TypeError:
        raise NotAdmissibleError(_OP, f"the tile must be a pair (M, N), got {tile!r}") from None
    for x in t:
        if not f2.is_power_of_two(x):
            raise NotAdmissibleError(_OP, f"the tile {t} has the extent {x!r}, not a power of two ({what})")
    return t


def _tv(bits: _Bits, tile) -> LinearLayout:
    t = _tile(tile, "a linear layout's out dims have power-of-two sizes")
    if len(t) != 2:
        raise NotAdmissibleError(_OP, f"the tile must be a pair (M, N), got {t}")
    if len(bits.modes) != 2:
        raise NotAdmissibleError(_OP, f"a TV layout has two top-level modes (thread, value), this one has "
                                 f"{len(bits.modes)}")
    M, N = t
    mb = f2.log2(M)
    if bits.domain == "E":
        for v in bits.flat():
            for c, x in v.items():
                if c > 1 or x >= t[c]:
                    raise NotAdmissibleError(_OP, f"the layout reaches coordinate {c} value {x}, outside the "
                                             f"tile {t}")
        split = [(v.get(0, 0), v.get(1, 0)) for v in bits.flat()]
    else:
        for v in bits.flat():
            if v >= M * N:
                raise NotAdmissibleError(_OP, f"the layout reaches element {v}, past the {M}x{N} tile")
        split = [(v & (M - 1), v >> mb) for v in bits.flat()]
    thr = len(bits.modes[0])
    thread, value = split[:thr], split[thr:]
    return LinearLayout([("register", value), ("lane", thread[:5]), ("warp", thread[5:])],
                        [("dim0", M), ("dim1", N)])


def _shared(bits: _Bits, tile) -> LinearLayout:
    vals = _offsets(bits, "a shared-memory layout")
    sizes = tuple(1 << len(m) for m in bits.modes)
    t = sizes if tile is None else _tile(tile, "a shared layout's extents")
    if t != sizes:
        raise NotAdmissibleError(_OP, f"the tile {t} is not the layout's mode sizes {sizes}")
    total = 1
    for x in sizes:
        total *= x
    for v in vals:
        if v >= total:
            raise NotAdmissibleError(_OP, f"the shared layout reaches offset {v}, past its size {total}: not a "
                                     f"bijection onto [0, {total})")
    if f2.rank(vals) != len(vals):
        raise NotAdmissibleError(_OP, f"the shared layout is not injective (rank {f2.rank(vals)} of "
                                 f"{len(vals)} bits): not a bijection onto [0, {total})")
    fwd = LinearLayout([(f"dim{k}", [(v,) for v in m]) for k, m in enumerate(bits.modes)], [("offset", total)])
    return fwd.invert()


def layout_bases(L) -> list:
    """The per-mode bases of a linear CuTe layout (as ``to_linear_layout`` reads them): ``[[value per bit]
    per top-level mode]``; a value is an int or ``{coordinate: int}``. NotAdmissibleError as there."""
    return [list(m) for m in _layout_bits(as_layout(L, "to_linear_layout")).modes]



# -- back to CuTe --------------------------------------------------------------------------------------------

_THREAD_DIMS = ("lane", "warp", "block")
_SWIZZLES = [Swizzle(b, m, s) for b in range(1, 5) for s in list(range(b, 9)) + list(range(-8, -b + 1))
             for m in range(8)]


def _disjoint(vals) -> bool:
    seen = 0
    for v in vals:
        if v & seen:
            return False
        seen |= v
    return True


def _mode(vals, f2_strides):
    if not vals:
        return 1, 0
    d = tuple(F2(v) if f2_strides else v for v in vals)
    return ((2,) * len(vals), d) if len(vals) > 1 else (2, d[0])


def _plain(modes, f2_strides):
    """The layout with one top-level mode per entry of ``modes``, one size-2 leaf per bit, coalesced mode by
    mode (the algebra's coalesce keeps the function: integer chains always, F2 chains only when they do not
    carry); the uncoalesced form if the coalesced one's bases differ (they never should)."""
    return _coalesced([_mode(m, f2_strides) for m in modes], [list(m) for m in modes])


def _coalesced(parts, want):
    """``parts`` (one (shape, stride) per top-level mode) as a layout coalesced mode by mode; a single mode
    stays one mode (a 1-tuple when it keeps several leaves). The uncoalesced layout if the coalesced one's
    bases differ from ``want`` (they never should: coalesce keeps the function)."""
    if len(parts) == 1:
        raw = Layout((parts[0][0],), (parts[0][1],)) if is_tuple(parts[0][0]) else Layout(*parts[0])
        out = coalesce(Layout(*parts[0]))
        if is_tuple(out.shape):
            out = Layout((out.shape,), (out.stride,))
    else:
        raw = Layout(tuple(p[0] for p in parts), tuple(p[1] for p in parts))
        out = coalesce(raw, (1,) * len(parts))
    return out if _plain_bits(out).modes == want else raw


def _offset_layout(modes, swizzle):
    """``modes`` (int bases per bit, per mode) as a CuTe layout of offsets: integer strides when the bases are
    disjoint; else, with ``swizzle``, ``Sw o 0 o P`` for the first Swizzle ``Sw`` (B <= 4, M <= 7, |S| <= 8)
    that leaves ``P``'s bases ``Sw(b)`` disjoint (``Sw`` is an involution and F2-linear, so ``Sw(P(x))`` is the
    XOR of ``Sw(Sw(b)) = b``); else F2 strides."""
    flat = [v for m in modes for v in m]
    if _disjoint(flat):
        return _plain(modes, False)
    if swizzle:
        for sw in _SWIZZLES:
            if _disjoint([sw(v) for v in flat]):
                return ComposedLayout(sw, 0, _plain([[sw(v) for v in m] for m in modes], False))
    return _plain(modes, True)


def from_linear_layout(ll: LinearLayout, *, form=None):
    """A CuTe layout that evaluates as the linear layout ``ll`` at every point (docs/model.md section 11).

    ``form`` (default: by ``ll``'s in dims):
      - ``"shared"`` (in dims ``offset`` and possibly a size-1 ``block``): Triton's shared layout ``offset ->
        (dim0, dim1, ...)`` becomes the smem layout ``(M, N, ...) -> offset``, its inverse (NotAdmissibleError
        when ``ll`` is not bijective): integer strides when the bases are disjoint, else ``Swizzle o plain``
        when one swizzle factors it, else F2 strides.
      - ``"tv"`` (in dims among ``register``, ``lane``, ``warp``, ``block``): the TV layout ``((lane, warp,
        block), register) -> e`` with ``e`` the out dims flattened first-fastest (``m + M*n``): integer strides
        when the flat bases are disjoint, else F2 strides.
      - ``"plain"`` (otherwise): one top-level mode per in dim to the flattened output (one out dim: its value;
        several: E<i> strides when disjoint per out dim, else the flat index); integer strides when disjoint,
        else (one out dim) ``Swizzle o plain`` when one swizzle factors it, else F2 strides.
    Post-condition: with ``R`` the result, ``R(c) == ll(bits of c)`` for every coordinate ``c`` (each mode's
    index read in binary as its in dims' bits; for ``shared``, ``ll(R(m, n)) == (m, n)``); checked here on the
    bases, which determine both (``R`` is linear by the rule of ``to_linear_layout``)."""
    if not isinstance(ll, LinearLayout):
        raise NotAdmissibleError("from_linear_layout", f"expected a LinearLayout, got {ll!r}")
    ins = ll.in_dim_names
    if form is None:
        if "offset" in ins and all(n == "offset" or (n == "block" and ll.in_dim_size(n) == 1) for n in ins):
            form = "shared"
        elif ins and all(n == "register" or n in _THREAD_DIMS for n in ins):
            form = "tv"
        else:
            form = "plain"
    if (form == "plain" and not ins) or (form == "shared" and not ll.out_dims):
        raise NotAdmissibleError("from_linear_layout", f"the linear layout has no input (in dims {ins}): no "
                                 "CuTe layout of its form")
    if form == "shared":
        if "block" in ins and ll.in_dim_size("block") != 1:
            raise NotAdmissibleError("from_linear_layout", f"the shared layout has {ll.in_dim_size('block')} "
                                     "blocks: one CTA's smem layout is written, so block must have size 1")
        lay = ll.sublayout([n for n in ins if n != "block"], ll.out_dim_names) if "block" in ins else ll
        if not lay.is_invertible():
            raise NotAdmissibleError("from_linear_layout", f"the shared layout is not a bijection ({lay.total_in_bits}"
                                     f" offset bits, {lay.total_out_bits} out bits, rank {lay.rank()})")
        fwd = lay.invert()
        modes = [[fwd.flat_basis(b) for b in fwd.in_bases(n)] for n in fwd.in_dim_names]
        out = _offset_layout(modes, True)
    elif form == "tv":
        extra = [n for n in ins if n != "register" and n not in _THREAD_DIMS]
        if extra:
            raise NotAdmissibleError("from_linear_layout", f"the in dims {extra} are neither register nor a thread "
                                     f"dim {list(_THREAD_DIMS)}: no TV layout holds them")
        thread = [ll.flat_basis(b) for n in _THREAD_DIMS if ll.has_in_dim(n) for b in ll.in_bases(n)]
        value = [ll.flat_basis(b) for b in ll.in_bases("register")] if ll.has_in_dim("register") else []
        out = _offset_layout([thread, value], False)
        modes = [thread, value]
    elif form == "plain":
        modes = [[ll.flat_basis(b) for b in ll.in_bases(n)] for n in ins]
        out = None
        if len(ll.out_dims) > 1:
            per = [[b for b in ll.in_bases(n)] for n in ins]
            if all(_disjoint([b[k] for m in per for b in m]) for k in range(len(ll.out_dims))):
                out = _coord_layout(per)
                if out is not None:
                    modes = [[{k: x for k, x in enumerate(b) if x} for b in m] for m in per]
        if out is None:  # an offset function, such as a swizzled smem layout: factor a swizzle out when one fits
            out = _offset_layout(modes, len(ll.out_dims) == 1)
    else:
        raise NotAdmissibleError("from_linear_layout", f"unknown form {form!r} (shared, tv or plain)")
    if _layout_bits(out).modes != modes:
        raise Unsupported(f"from_linear_layout: the written layout {out} does not have the bases of the linear "
                          "layout (an internal error)")
    return out


def _coord_layout(per):
    """The layout with E<i> strides (one size-2 leaf per bit, stride ``x@k`` for a basis whose only non-zero
    entry is ``x`` in out dim ``k``), coalesced mode by mode; None when a basis has two non-zero entries (a
    stride names one coordinate; the caller falls back to the flat index)."""
    modes = []
    for m in per:
        vals = []
        for b in m:
            nz = [(k, x) for k, x in enumerate(b) if x]
            if len(nz) > 1:
                return None
            vals.append(ScaledBasis(nz[0][1], (nz[0][0],)) if nz else 0)
        modes.append(vals)
    parts = []
    for vals in modes:
        if not vals:
            parts.append((1, 0))
        elif len(vals) == 1:
            parts.append((2, vals[0]))
        else:
            parts.append(((2,) * len(vals), tuple(vals)))
    return _coalesced(parts, [[{k: x for k, x in enumerate(b) if x} for b in m] for m in per])
