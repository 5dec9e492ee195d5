"""The ``tma_atom`` claim kind: a TMA atom as the CuTe DSL built it (``make_tiled_tma_atom``, docs/model.md
section 10.4), checked whole.

``make_tiled_tma_atom(op, gmem_tensor, smem_layout, cta_tiler, num_multicast)`` hands the IR op
``make_non_exec_tiled_tma_load`` / ``_store`` three objects: the gmem tensor, the smem layout of one stage and
``cta_v_map = composition(make_identity_layout(gmem.shape), cta_tiler)``, the CTA tile's coordinate map (tile
coordinate ``x`` -> gmem coordinate, basis strides ``c@m``). The copy moves gmem coordinate ``cta_v_map(x)`` to
smem offset ``smem(x)`` for every ``x``: that is the relation the kernel uses, and the claim computes it
(:func:`smem_by_gmem_mode`: the smem layout re-indexed by the gmem modes of the CTA tile, over a common
refinement of the two layouts' modes) before anything else; layouts that do not relate that way (a tile that
repeats or skips gmem coordinates) are answered unknown with the reason, never evaluated one in the other.

On that relation the claim decides (``decide``):

* every rule of ``hardware.tma.copy.from_copy`` (the driver's ``cuTensorMapEncodeTiled`` rules for every value of
  the dynamic extents, CUTLASS's ``make_tma_copy`` rules: swizzle mode, majorness, CTA tile, box landing,
  multicast);
* ``gbasis``: the box cuteverify derives (``hardware.tma.box.smem_box``: extents innermost first, each with the
  gmem mode it walks, then the gmem modes the box does not walk with extent 1) equals the one the DSL computed
  (the atom's ``tma_gbasis``), when given;
* ``multicast``: the box each CTA of a multicast loads, truncated from the outermost dimension inwards as
  CUTLASS's ``make_tma_copy_desc`` does (:func:`multicast_box`), is well defined and keeps a 16-byte inner box;
* ``cluster`` (the kernel's launch cluster, when given): a multicast load spans ``num_multicast`` CTAs of one
  cluster dimension (``num_multicast`` divides the cluster's x or y extent), a non-multicast kind has
  ``num_multicast`` 1, and a 2-SM kind (``sm_100_2sm``) needs an even cluster x (CTA pairs).

Dynamic values: the gmem entry is read again from its text with its own assumptions so that ``?{div=N}`` facts
hold, DSL extents (``?{div=N}``, 32-bit) are at most ``2**31 - 1`` (a fact of the type) and the driver's bound
on strides (below ``2**40`` bytes), which no type states, is assumed and reported as an obligation of the proof
(the precondition the kernel needs from its caller).
"""
from __future__ import annotations

import re
from dataclasses import replace

from ...core.layout import Layout
from ...core.notation.parse import parse
from ...core.strides import ScaledBasis
from ...core.swizzle import ComposedLayout
from ...errors import ParseError, TmaError
from ...hardware.library.dtypes import dtype_bits
from ...hardware.tma.box import smem_box
from ...hardware.tma.copy import from_copy, multicast_box
from ...prover.verdict import Mismatch, Verdict
from ...symbolic import Assumptions
from ...symbolic.conditions import Condition
from .claims import register
from .kind import LAYOUT_REF, NONEMPTY, POSITIVE, ClaimKind, fields

__all__ = ["TMA_ATOM", "TMA_KINDS", "derived_gbasis", "multicast_box", "read_gbasis", "smem_by_gmem_mode"]

#: the ``kind`` of ``#cute_nvgpu.tiled_tma_load<...>``: multicast, 2-SM (CTA pair)
TMA_KINDS = {"sm_90": (False, False), "sm_90_multicast": (True, False), "sm_100_2sm": (False, True),
             "sm_100_2sm_multicast": (True, True)}
_I32_MAX = 2 ** 31 - 1
_STRIDE_BOUND = 2 ** 40


# ------------------------------------------------------------------------------------- the relation

def _leaves(lay):
    def flat(s, d):
        if isinstance(s, tuple):
            for a, b in zip(s, d):
                yield from flat(a, b)
        else:
            yield (s, d)
    shape = lay.shape if isinstance(lay.shape, tuple) else (lay.shape,)
    stride = lay.stride if isinstance(lay.stride, tuple) else (lay.stride,)
    return [list(flat(s, d)) for s, d in zip(shape, stride)]


def _refine(a, b, where):
    """Triples ``(extent, stride_a, stride_b)`` over the common refinement of two leaf lists of one mode (each
    ``(extent, stride)``, colexicographic): a leaf ``n:d`` splits into ``(k, n/k):(d, k*d)``."""
    # extent-1 leaves take no part (their strides are never used)
    a, b, out = [x for x in a if x[0] != 1], [x for x in b if x[0] != 1], []
    while a and b:
        (na, da), (nb, db) = a[0], b[0]
        if type(na) is not int or type(nb) is not int:
            raise TmaError(f"{where}: the TMA tile has a dynamic extent ({na}, {nb})")
        if na == nb:
            out.append((na, da, db))
            a.pop(0), b.pop(0)
        elif na % nb == 0:
            out.append((nb, da, db))
            a[0] = (na // nb, da * nb)
            b.pop(0)
        elif nb % na == 0:
            out.append((na, da, db))
            b[0] = (nb // na, db * na)
            a.pop(0)
        else:
            raise TmaError(f"{where}: extents {na} and {nb} have no common refinement")
    if a or b:
        raise TmaError(f"{where}: the two layouts have different sizes")
    return out


def smem_by_gmem_mode(smem, cta_v_map):
    """The smem layout indexed by the gmem modes the CTA tile walks.

    Definition: ``smem`` (a layout, or a swizzle composed with one: the swizzle is kept) and ``cta_v_map`` (a
    layout with basis strides ``c@m``, tile coordinate -> gmem coordinate) have the same top-level modes of the
    same sizes; over a common refinement of their leaves, each leaf is ``n : (d, c@m)``; grouping the leaves by
    gmem mode ``m`` in the order of ``c`` gives ``S'`` with ``S'(g) = smem(x)`` whenever ``cta_v_map(x) = g``.
    Admissible: every ``cta_v_map`` stride is ``0`` on an extent-1 leaf or ``c@m`` with one index, the leaves of
    each gmem mode cover ``0 .. T_m - 1`` once (``c`` = 1, n1, n1*n2, ...), the modes walked are ``0 .. r-1``;
    else a :class:`TmaError` naming the layouts. Post-condition: ``(S', (T_0, ..., T_{r-1}))``, ``S'`` of rank
    ``r`` with mode ``m`` of size ``T_m`` (the CTA tile's extent along gmem mode ``m``)."""
    inner, off, outer = (smem.inner, smem.offset, smem.outer) if isinstance(smem, ComposedLayout) else \
        (None, 0, smem)
    where = f"smem layout {smem} and CTA tile map {cta_v_map}"
    sm, tm = _leaves(outer), _leaves(cta_v_map)
    if len(sm) != len(tm):
        raise TmaError(f"{where}: {len(sm)} and {len(tm)} modes (the smem layout of one stage has the tile's modes)")
    by_mode: dict = {}
    for i, (a, b) in enumerate(zip(sm, tm)):
        for n, d, e in _refine(a, b, f"{where}, mode {i}"):
            if n == 1:
                continue
            if not isinstance(e, ScaledBasis) or len(e.path) != 1 or type(e.value) is not int or e.value < 1:
                raise TmaError(f"{where}: tile leaf {n}:{e} is no step along one gmem mode (a tile that "
                               "repeats a gmem coordinate or walks a nested mode)")
            by_mode.setdefault(e.path[0], []).append((e.value, n, d))
    if not by_mode:
        return Layout((1,), (0,)) if inner is None else ComposedLayout(inner, off, Layout((1,), (0,))), (1,)
    rank = max(by_mode) + 1
    shapes, strides, ext = [], [], []
    for m in range(rank):
        leaves = sorted(by_mode.get(m, []), key=lambda t: t[0])
        c = 1
        for v, n, _ in leaves:
            if v != c:
                raise TmaError(f"{where}: along gmem mode {m} the tile steps by {v} where {c} is next (the CTA "
                               "tile is not one dense range of each gmem mode)")
            c *= n
        ext.append(c)
        if not leaves:
            shapes.append(1), strides.append(0)
        elif len(leaves) == 1:
            shapes.append(leaves[0][1]), strides.append(leaves[0][2])
        else:
            shapes.append(tuple(n for _, n, _ in leaves)), strides.append(tuple(d for _, _, d in leaves))
    lay = Layout(tuple(shapes), tuple(strides))
    return (lay if inner is None else ComposedLayout(inner, off, lay)), tuple(ext)


def derived_gbasis(s_prime, gmem_rank: int) -> tuple:
    """The box as CUTLASS's ``construct_tma_gbasis`` writes it: ``((extent, gmem mode), ...)``, the box's
    dimensions innermost first (``smem_box`` of ``S'``), then every gmem mode the box does not walk, in order,
    with extent 1."""
    outer = s_prime.outer if isinstance(s_prime, ComposedLayout) else s_prime
    dims = [(e, m) for m, e in smem_box(outer).dims]
    walked = {m for _, m in dims}
    return tuple(dims) + tuple((1, m) for m in range(gmem_rank) if m not in walked)


def read_gbasis(text: str) -> tuple:
    """The DSL's ``tma_gbasis`` text (``(64,128,1):(1@1,1@0,1@2)``) as ``((extent, gmem mode), ...)``; a stride
    that is not ``1@m`` is a :class:`TmaError` naming it."""
    try:
        lay = parse(str(text), source="tma_gbasis")
    except ParseError as e:
        raise TmaError(f"tma_gbasis {text!r}: {e}") from None
    out = []
    for s, d in (x for mode in _leaves(lay) for x in mode):
        if not (isinstance(d, ScaledBasis) and len(d.path) == 1 and d.value == 1):
            raise TmaError(f"tma_gbasis {text!r}: stride {d} is not a unit basis 1@m")
        out.append((s, d.path[0]))
    return tuple(out)


def _gbasis_text(g) -> str:
    return "(" + ",".join(str(e) for e, _ in g) + "):(" + ",".join(f"1@{m}" for _, m in g) + ")"


# ------------------------------------------------------------------------------------------ the kind

def _entry_text(k, v):
    """The text of the layout entry ``v`` names (or ``v`` itself, an inline text)."""
    return k.layouts.get(str(v), str(v)) if hasattr(k, "layouts") else str(v)


def _read(k, body, bp):
    body = fields(k, "tma_atom", body, bp)
    for f in ("dtype", "gmem", "smem", "cta_v_map"):
        if body.get(f) is None:
            raise k.error(f"tma_atom needs {f}", bp)
    out = {f: body.get(f) for f in ("op", "kind", "dtype", "multicast", "arch", "cluster", "gbasis")}
    out["op"] = out["op"] or "load"
    out["multicast"] = out["multicast"] or 1
    for f in ("smem", "cta_v_map"):
        out[f] = k.ref(body[f], bp + (f,))
    # the gmem tensor read again from its text with assumptions of its own: its ``?{div=N}`` facts
    # (the divisibility the DSL recorded) belong to this claim's unknowns
    gtext = _entry_text(k, body["gmem"])
    asm = Assumptions()
    try:
        out["gmem_value"] = parse(gtext, assume=asm, source="gmem tensor")
    except ParseError as e:
        raise k.error(f"tma_atom gmem {gtext!r}: {e}", bp + ("gmem",)) from None
    if not isinstance(out["gmem_value"], Layout):
        raise k.error(f"tma_atom gmem {gtext!r}: a gmem tensor's layout has integer strides (no swizzle)",
                      bp + ("gmem",))
    out["gmem"], out["gmem_text"], out["gmem_facts"] = str(body["gmem"]), gtext, asm
    if out["gbasis"] is not None:
        try:
            out["gbasis_value"] = read_gbasis(out["gbasis"])
        except TmaError as e:
            raise k.error(str(e), bp + ("gbasis",)) from None
    try:
        dtype_bits(str(out["dtype"]))
    except Exception:  # noqa: BLE001 - any failure to size the element is the field's error
        raise k.error(f"tma_atom dtype {out['dtype']!r}: not an element type cuteverify knows", bp + ("dtype",)) \
            from None
    return out


def _text(a):
    mc = f", multicast {a['multicast']}" if a.get("multicast", 1) != 1 else ""
    kind = f"<{a['kind']}>" if a.get("kind") else ""
    return (f"tma {a['op']}{kind} {a['dtype']}: {a['gmem']} -> {a['smem']} (cta_v_map {a['cta_v_map']}{mc})"
            + (f", box {a['gbasis']}" if a.get("gbasis") else ""))


def _symbols(x):
    free = getattr(x, "free_symbols", None)
    if free is not None:
        return set(free)
    if isinstance(x, tuple):
        return set().union(*(_symbols(v) for v in x)) if x else set()
    return set()


_WIDE = re.compile(r"\?(\w*)\s*\{[^{}]*\bi64\b[^{}]*\}")


def _preconditions(gmem, bits, asm, text):
    """Facts of the DSL's types (a ``?`` extent not marked ``i64`` in ``text`` is 32-bit) and the driver's stride
    bound (below 2**40 bytes), added to ``asm``: ``(facts, preconditions)`` as Conditions (the second are
    obligations of a proof)."""
    facts, pre = [], []
    shape_text = text.split("):(")[0]
    wide = {m.group(1) for m in _WIDE.finditer(shape_text)}
    for s in sorted(_symbols(gmem.shape), key=str):
        if "" in wide or str(s) in wide:  # an anonymous 64-bit extent: no symbol of the text is known 32-bit
            continue
        facts.append(Condition("le", s, _I32_MAX))
    for s in sorted(_symbols(gmem.stride) - _symbols(gmem.shape), key=str):
        # bytes = s * bits / 8 < 2**40 (on bits for sub-byte types, which have no whole byte count)
        pre.append(Condition("lt", s * (bits // 8), _STRIDE_BOUND) if bits % 8 == 0 else
                   Condition("lt", s * bits, _STRIDE_BOUND * 8))
    for c in facts + pre:
        asm.add(c)
    return facts, pre


def _cluster_rule(a):
    """``None`` or the sentence saying how the multicast / 2-SM kind disagrees with the launch cluster."""
    kind, n, cl = a.get("kind"), a.get("multicast", 1), a.get("cluster")
    multicast, two_sm = TMA_KINDS.get(kind, (False, False))
    if kind is not None and not multicast and n != 1:
        return f"kind {kind} is no multicast, num_multicast is {n}"
    if cl is None:
        return None
    cl = tuple(cl) + (1,) * (3 - len(cl))
    if n != 1 and not any(c % n == 0 for c in cl[:2]):
        return f"num_multicast {n} divides neither cluster extent x {cl[0]} nor y {cl[1]} (cluster {cl})"
    if two_sm and cl[0] % 2:
        return f"kind {kind} copies for a CTA pair, the cluster {cl} has an odd x extent {cl[0]}"
    return None


def _multicast_problem(v, n, bits):
    """The multicast truncation of the descriptor's box (``v.fields['box_dim']``): None when it holds and the
    inner box each CTA loads stays a multiple of 16 bytes, else the sentence."""
    box = (getattr(v, "fields", None) or {}).get("box_dim")
    if n == 1 or not box or any(type(b) is not int for b in box):
        return None
    cut, why = multicast_box(box, n)
    if why is not None:
        return why
    if cut[0] != box[0] and (cut[0] * bits) % 128:
        return (f"multicast over {n} CTAs cuts the inner box to {cut[0]} elements ({cut[0] * bits / 8:g} bytes), "
                "not a multiple of 16 bytes")
    return None


def _decide(a, asm):
    arch = a.get("arch") or "sm_90"
    bits = dtype_bits(str(a["dtype"]))
    gmem = a["gmem_value"]
    mine = Assumptions().merged(a["gmem_facts"])  # a copy: the preconditions below are this decision's
    mine = mine.merged(asm) if asm is not None else mine
    claim = _text(a)
    try:
        s_prime, tile = smem_by_gmem_mode(a["smem"].value, a["cta_v_map"].value)
    except TmaError as e:
        return Verdict("unknown", claim=claim, method="TMA atom", reason=str(e))
    if isinstance(gmem.shape, tuple) and any(isinstance(m, tuple) for m in gmem.shape):
        return Verdict("unknown", claim=claim, method="TMA atom", reason=f"the gmem tensor {gmem} has nested "
                       "modes: the CTA tile map's basis c@m names a top-level mode, the descriptor flattened ones")
    g_rank = len(gmem.shape) if isinstance(gmem.shape, tuple) else 1
    if len(tile) > g_rank:
        raise TmaError(f"cta_v_map {a['cta_v_map']} walks gmem mode {len(tile) - 1}, the gmem tensor {gmem} has "
                       f"{g_rank} modes")
    problems = []
    why = _cluster_rule(a)
    if why is not None:
        problems.append(why)
    if a.get("gbasis_value") is not None:
        try:
            got = derived_gbasis(s_prime, g_rank)
        except TmaError as e:
            return Verdict("unknown", claim=claim, method="TMA box", reason=str(e))
        if got != a["gbasis_value"]:
            problems.append(f"cuteverify's box {_gbasis_text(got)} differs from the DSL's tma_gbasis {a['gbasis']}")
    _, pre = _preconditions(gmem, bits, mine, a["gmem_text"])
    _, v = from_copy(gmem, s_prime, str(a["dtype"]), multicast=a.get("multicast", 1), assume=mine, arch=arch,
                     cta_tiler=tile)
    why = _multicast_problem(v, a.get("multicast", 1), bits)
    if why is not None:
        problems.append(why)
    if problems:  # the atom's own facts are refuted whatever the descriptor's rules say (their verdicts stay)
        reason = "; ".join(problems + ([f"descriptor: {v.reason}"] if v.status == "refuted" and v.reason else []))
        return replace(v, status="refuted", claim=claim, reason=reason,
                       counterexample=Mismatch(note=problems[0]))
    if v.status == "proved" and pre:
        v = replace(v, obligations=tuple(v.obligations) + tuple(pre))
    return v


_GBASIS = {"type": "string", "minLength": 1,
           "description": "The DSL's box (the atom's tma_gbasis): box extents innermost first with the gmem mode "
                          "each walks, (64,128,1):(1@1,1@0,1@2)."}

TMA_ATOM = register(ClaimKind(
    "tma_atom",
    {"type": "object", "additionalProperties": False, "required": ["dtype", "gmem", "smem", "cta_v_map"],
     "properties": {"op": {"enum": ["load", "store"]}, "kind": {"enum": list(TMA_KINDS)}, "dtype": NONEMPTY,
                    "gmem": LAYOUT_REF, "smem": LAYOUT_REF,
                    "cta_v_map": dict(LAYOUT_REF, description="The CTA tile's coordinate map: tile coordinate -> "
                                      "gmem coordinate (basis strides), composition(identity(gmem), cta_tiler)."),
                    "multicast": POSITIVE, "arch": {"enum": ["sm_90", "sm_100"]},
                    "cluster": {"type": "array", "minItems": 1, "maxItems": 3, "items": POSITIVE},
                    "gbasis": _GBASIS}},
    _read, _text, _decide))
