"""CUTLASS's own checks in ``make_tma_copy`` (cute/atom/copy_traits_sm90_tma.hpp and
copy_traits_sm90_tma_swizzle.hpp), and a descriptor derived from a CuTe copy (docs/model.md sections 4, 6).

* the swizzle of the smem layout maps to a TMA swizzle mode (``get_tma_swizzle_bits``/``_base``): on byte
  addresses ``Swizzle<B,4,3>`` -> NONE / 32B / 64B / 128B (B = 0..3), ``Swizzle<2,5,2>`` -> 128B_ATOM_32B,
  ``Swizzle<2,6,S>`` -> 128B_ATOM_64B. A cuteverify composed layout counts elements, so its swizzle is the
  byte swizzle with M lowered by log2(bytes per element) (``S<3,3,3>`` for 16-bit = ``Swizzle<3,4,3>`` on bytes);
* the shared-memory buffer is aligned as the swizzle pattern repeats (2^(B+M+S) bytes: 1024 for 128B) and
  at least 128 bytes (the TMA destination);
* the smem layout's contiguous mode is the gmem layout's stride-1 mode (smem and gmem have the same majorness);
* box modes: contiguous gmem modes that the box covers entirely are merged into one TMA dimension while the
  merged box stays <= 256;
* multicast over ``n`` CTAs splits the box's outermost dimension: ``box % n == 0`` or ``n % box == 0``;
* the box of a concrete compact smem tile (hierarchical modes too, e.g. a GMMA atom tiled) is the one
  ``construct_tma_gbasis`` finds (``hardware.tma_box``), the tile taking ``box_copies`` boxes, and
  ``box_lands``: each box lands where the smem layout puts its elements (proved on the whole tile);
* the CTA tile (``cta_tiler``, a shape over the gmem modes) and the smem layout (issue 25):
  ``construct_tma_gbasis`` asserts ``size(slayout) == size(cta_v_map)`` and then maps smem coordinate ``c``
  (column-major index of the smem shape) to the CTA tile's coordinate of the same index, so rule ``cta_tile``
  requires the smem layout's extent along each mode to be the tile's (else a CTA tile element lands at
  another smem coordinate: both shapes and that element are named). A smem layout with one more mode than
  the tiler is staged (CuTe DSL's ``make_tiled_tma_atom``): its stage 0 is the copy's smem tile.
"""
from __future__ import annotations


from ...core.layout import Layout, size
from ...core.notation.interop import as_layout
from ...core.notation.parse import as_assumptions
from ...core.swizzle import ComposedLayout, Swizzle
from ...core.notation.tiles import read_extents
from ...errors import ParseError, TmaError
from ...symbolic import decide
from ...symbolic.conditions import Condition as C
from ...symbolic.expr import normalize
from ..library import swizzles
from ..library.dtypes import dtype_bits
from ..checks.rules import Rule, check_rules, value_at
from .tiled import TmaDescriptor
from .box import prove_landing, smem_box

__all__ = ["copy_rules", "cta_tile_rule", "from_copy", "merge_box_modes", "read_cta_tiler", "smem_alignment",
           "tma_swizzle_mode"]

_CUTLASS = "CUTLASS make_tma_copy"


def _log2(n):
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else None


def tma_swizzle_mode(swizzle, elem_bits: int):
    """``(mode, byte_swizzle, reason)``: the TMA swizzle mode (a ``SWIZZLES`` value) of an element-level
    swizzle (``core.Swizzle`` with ``bits``/``base``/``shift``, or ``(B, M, S)``, or None for no swizzle),
    the same swizzle on bytes as ``(B, M, S)``, and ``None`` as reason; ``(None, byte_swizzle, reason)``
    when CUTLASS has no TMA mode for it (its static_assert)."""
    if swizzle is None:
        return 0, (0, 4, 3), None
    b, m, s = (swizzle.bits, swizzle.base, swizzle.shift) if hasattr(swizzle, "bits") else tuple(swizzle)
    k = _log2(elem_bits // 8) if elem_bits % 8 == 0 else None
    if k is None:
        return None, None, f"{elem_bits}-bit elements: no byte-addressed swizzle"
    mb = m + k
    byte = (b, mb, s)
    mode = swizzles.by_byte_swizzle(byte)
    if mode is not None:
        return mode.tma, byte, None
    return None, byte, (f"Swizzle<{b},{mb},{s}> on bytes (S<{b},{m},{s}> on {elem_bits}-bit elements) is none of "
                        "Swizzle<0..3,4,3>, Swizzle<2,5,2>, Swizzle<2,6,S>")


def smem_alignment(byte_swizzle) -> int:
    """Bytes the shared-memory buffer must be aligned to: the swizzle's period 2^(B+M+S), at least 128."""
    if byte_swizzle is None:
        return 128
    b, m, s = byte_swizzle
    return max(128, 1 << (b + m + s)) if b else 128


def merge_box_modes(shape, stride, box):
    """CUTLASS's box modes merged: gmem mode i+1 continues mode i (``stride[i+1] == shape[i]*stride[i]``)
    and the box covers mode i entirely (``box[i] == shape[i]``) -> one mode ``shape[i]*shape[i+1]``, box
    ``box[i]*box[i+1]``, as long as the merged box is at most 256. Decided through the decision interface;
    an undecided question keeps the modes apart (both are then checked as they are)."""
    shape, stride, box = list(shape), list(stride), list(box)
    i = 0
    while i + 1 < len(shape):
        merged = normalize(box[i] * box[i + 1])
        # the box question first: it is the cheap one (a dynamic extent is never a box's), the stride one may ask Z3
        if (decide.eq(box[i], shape[i]) is True and decide.eq(stride[i + 1], normalize(shape[i] * stride[i])) is True
                and decide.le(merged, 256) is True):
            shape[i:i + 2] = [normalize(shape[i] * shape[i + 1])]
            stride[i + 1:i + 2] = []
            box[i:i + 2] = [merged]
        else:
            i += 1
    return tuple(shape), tuple(stride), tuple(box)


def _smem_parts(smem):
    """(inner layout, element swizzle or None, offset) of a smem layout (Layout / ComposedLayout)."""
    if isinstance(smem, ComposedLayout):
        if not isinstance(smem.inner, Swizzle) or not isinstance(smem.outer, Layout):
            raise TmaError(f"smem layout {smem}: a TMA destination is a layout or a swizzle composed with one")
        return smem.outer, smem.inner, smem.offset
    return smem, None, 0


def _flat(t):
    return [x for e in t for x in _flat(e)] if isinstance(t, tuple) else [t]


def _unit_mode(strides):
    for i, s in enumerate(strides):
        if decide.eq(s, 1) is True:
            return i
    return None


def copy_rules(gmem, smem, elem_bits, box=(), multicast=1, smem_address_align=None):
    """The make_tma_copy rules for a gmem layout and a smem tile layout (rank-matched, mode i of the smem
    tile is the box along gmem mode i; ``box`` the TMA box, innermost first). Returns
    ``(rules, mode, byte_swizzle)``."""
    g_st = _flat(gmem.stride)
    s_lay, sw, _ = _smem_parts(smem)
    s_modes = s_lay.stride if isinstance(s_lay.stride, tuple) else (s_lay.stride,)
    mode, byte, why = tma_swizzle_mode(sw, elem_bits)
    rules = [Rule("swizzle_mode", "the smem layout's swizzle is a TMA swizzle mode",
                  [(mode is not None, lambda _: why or "")], source=_CUTLASS + " (get_tma_swizzle_bits)")]
    # the smem tile's contiguous mode: the (top-level) mode holding its stride-1 leaf
    gm = _unit_mode(g_st)
    sm = next((i for i, m in enumerate(s_modes) if _unit_mode(_flat(m) if isinstance(m, tuple) else [m]) is not None),
              None)
    rules.append(Rule("majorness", "the smem layout's contiguous mode is the gmem layout's stride-1 mode",
                      [(gm is not None and gm == sm,
                        lambda _: f"gmem stride-1 mode is {gm}, smem contiguous mode is {sm}")], source=_CUTLASS))
    align = smem_alignment(byte)
    if smem_address_align is not None:
        a = smem_address_align
        rules.append(Rule("smem_alignment", f"the smem buffer is {align}-byte aligned",
                          [(C("divides", align, a), lambda v: f"smem alignment {value_at(a, v)} bytes, "
                            f"the swizzle needs {align}")], source=_CUTLASS))
    if multicast != 1 and box:
        rules.append(_multicast_rule(box, multicast))
    return rules, mode, byte


def multicast_box(box, n: int):
    """The box each of ``n`` multicast CTAs loads, as CUTLASS's ``make_tma_copy_desc`` truncates it: from the
    outermost box dimension inwards, a dimension ``b`` takes ``ceil(b / m)`` of the ``m`` CTAs left and passes
    ``ceil(m / b)`` on, each step requiring ``b % m == 0`` or ``m % b == 0`` (a dimension of extent 1 passes
    every CTA on). Returns ``(box, None)``, or ``(None, why)`` when a step breaks that or the CTAs outnumber
    the box's elements. Admissible: concrete (int) extents."""
    out, m = list(box), n
    for i in reversed(range(len(out))):
        if m <= 1:
            break
        b = out[i]
        if b % m and m % b:
            return None, f"multicast over {n} CTAs: box dimension {i} is {b}, {m} CTAs left: neither divides the other"
        out[i], m = -(-b // m), -(-m // b)
    if m > 1:
        return None, f"multicast over {n} CTAs: the box {tuple(box)} has fewer elements than CTAs"
    return tuple(out), None


def _multicast_rule(box, n):
    """The multicast rule: :func:`multicast_box` on a concrete box; on a symbolic one (sound, not complete)
    the outermost dimension that is not the literal 1 must be a multiple of ``n``, so that it alone takes
    every CTA."""
    what = f"multicast over {n} CTAs splits the box from its outermost mode inwards"
    if all(type(b) is int for b in box):
        _, why = multicast_box(box, n)
        return Rule("multicast", what, [(why is None, lambda _: why)], source=_CUTLASS)
    i = max((k for k, b in enumerate(box) if not (type(b) is int and b == 1)), default=len(box) - 1)
    b = box[i]
    clause = True if decide.divides(n, b) is True else C("divides", n, b)
    return Rule("multicast", what, [(clause, lambda v: f"box dim {i} is {value_at(b, v)}, multicast {n}: "
                                     "it must take every CTA (a multiple of the CTA count)")], source=_CUTLASS)


def check_copy_options(multicast=1, smem_address_align=None):
    """The copy's own options, refused as :class:`TmaError` unless meaningful: ``multicast`` a positive number of
    CTAs, ``smem_address_align`` (bytes) a positive power of two."""
    if type(multicast) is not int or multicast < 1:
        raise TmaError(f"multicast {multicast!r}: the number of CTAs a multicast copy spans is a positive integer")
    if smem_address_align is not None and (type(smem_address_align) is not int or smem_address_align < 1
                                           or smem_address_align & (smem_address_align - 1)):
        raise TmaError(f"smem alignment {smem_address_align!r}: an alignment in bytes is a positive power of two")


def read_cta_tiler(tiler):
    """A CTA tiler as a tuple of positive extents: a tuple / list of ints, or text ``(128,64)`` / ``128x64`` /
    ``128,64`` (the one extents reader, ``core.notation.tiles.read_extents``); a layout tiler or anything else is
    a :class:`TmaError` naming it."""
    try:
        return read_extents(tiler, "cta_tiler")
    except ParseError as e:
        raise TmaError(f"cta_tiler {tiler!r}: a CTA tile is a shape of positive extents, (128,64) or 128x64 "
                       f"({e.expected}, column {e.column})") from None


def _modes(lay):
    return lay.shape if isinstance(lay.shape, tuple) else (lay.shape,)


def _stage0(smem, rank):
    """The first ``rank`` modes of a smem layout (stage 0 of a staged one: the stage coordinate 0)."""
    s_lay, sw, off = _smem_parts(smem)
    st = s_lay.stride if isinstance(s_lay.stride, tuple) else (s_lay.stride,)
    first = Layout(tuple(_modes(s_lay)[:rank]), tuple(st[:rank]))
    return ComposedLayout(sw, off, first) if sw is not None else first


def _pad_modes(smem, k):
    """``smem`` with ``k`` trailing size-1 modes (the gmem modes a CTA tile fixes)."""
    s_lay, sw, off = _smem_parts(smem)
    st = s_lay.stride if isinstance(s_lay.stride, tuple) else (s_lay.stride,)
    padded = Layout(tuple(_modes(s_lay)) + (1,) * k, tuple(st) + (0,) * k)
    return ComposedLayout(sw, off, padded) if sw is not None else padded


def cta_tile_rule(smem, tiler):
    """Rule ``cta_tile``: the smem tile and the CTA tile have the same size (CUTLASS's static_assert in
    ``construct_tma_gbasis``) and the same extent along each mode, so that smem coordinate ``c`` holds CTA
    tile coordinate ``c`` (CUTLASS relates them through the column-major index). Refutations name both shapes
    and, for equal sizes, the first CTA tile element that lands at another smem coordinate."""
    s_lay, _, _ = _smem_parts(smem)
    ext = tuple(size(m) for m in _modes(s_lay))
    n_s, n_t = size(s_lay), 1
    for x in tiler:
        n_t *= x
    shapes = f"the smem tile {_shape_text(ext)} and the CTA tile {_shape_text(tiler)}"

    def misplaced(_):
        if n_s != n_t:
            return f"{shapes} have {n_s} and {n_t} elements: {_lost(ext, tiler, n_s, n_t)} (CUTLASS: \"TMA " \
                   "requires CTA_Tile and SLayout top-level size equivalence\")"
        for i in range(n_s):  # the first index whose coordinates differ: the copy puts it elsewhere
            a, b = _colmajor(i, tiler), _colmajor(i, ext)
            if a != b:
                return (f"{shapes} differ: CTA tile element {_shape_text(a)} is copied to smem coordinate "
                        f"{_shape_text(b)}")
        return shapes  # pragma: no cover - equal extents pass

    ok = n_s == n_t and ext == tuple(tiler)
    return Rule("cta_tile", "the smem tile has the CTA tile's shape (make_tma_copy's cta_tiler)",
                [(ok, misplaced)], source=_CUTLASS + " (construct_tma_gbasis)")


def _lost(ext, tiler, n_s, n_t):
    """The element of tiles of different sizes that one side lacks: the first CTA tile coordinate past the
    smem extent of its mode (``(64,0)`` of a 128x128 tile over a 64x128 stage), else the first smem coordinate
    past the tile's; for shapes of different ranks, the first column-major index one side lacks."""
    if len(ext) == len(tiler):
        for i, (e, t) in enumerate(zip(ext, tiler)):
            if e != t:
                at = _shape_text(tuple(min(e, t) if j == i else 0 for j in range(len(ext))))
                return (f"CTA tile element {at} lies outside the smem tile" if e < t else
                        f"smem coordinate {at} receives no CTA tile element")
    if n_s < n_t:
        return f"CTA tile element {_shape_text(_colmajor(n_s, tiler))} (index {n_s}) has no smem coordinate"
    return f"smem coordinate {_shape_text(_colmajor(n_t, ext))} (index {n_t}) receives no CTA tile element"


def _colmajor(i, shape):
    out = []
    for e in shape:
        out.append(i % e)
        i //= e
    return tuple(out)


def _shape_text(t):
    return "(" + ",".join(str(x) for x in t) + ")"


def from_copy(gmem, smem, dtype, *, multicast=1, smem_address_align=None, assume=None, arch="sm_90",
              cta_tiler=None):
    """The descriptor ``make_tma_copy`` builds for copying a smem tile ``smem`` of the gmem tensor ``gmem``
    (both CuTe layouts or text, same rank, modes in the same order), and the verdict of all its rules.

    ``cta_tiler`` (optional): the CTA tile handed to ``make_tma_copy`` (a shape over the first gmem modes,
    :func:`read_cta_tiler`; gmem modes past it, such as a batch L, are kept whole as CuTe's composition keeps
    them: the tile is one coordinate of each); it adds rule ``cta_tile`` (:func:`cta_tile_rule`), and a smem
    layout with one more mode than the tiler is staged: stage 0 is the copy's tile. A tiler with more modes
    than gmem, or a smem layout whose rank is neither the tiler's nor one more, is a :class:`TmaError` naming
    the shapes.

    Definition: the TMA dimensions are gmem's modes with the stride-1 mode first (innermost first), the
    box is the smem tile's extent along each, merged as :func:`merge_box_modes`; the swizzle is
    :func:`tma_swizzle_mode` of the smem swizzle. Admissible: gmem has a stride-1 mode and the two layouts
    have the same rank (else :class:`TmaError`). Post-condition: ``(descriptor, RuleVerdict)`` where the
    verdict covers the driver's rules and CUTLASS's (``swizzle_mode``, ``majorness``, ``multicast``,
    ``smem_alignment``)."""
    check_copy_options(multicast, smem_address_align)
    assumptions = as_assumptions(assume)
    gmem = as_layout(gmem, "gmem layout", assume=assumptions)
    own = getattr(gmem, "assumptions", None)  # the ?{div=N} facts a text gave its own dynamic values
    if own is not None and own is not assumptions:
        assumptions = own if assumptions is None else assumptions.merged(own)
    smem = as_layout(smem, "smem layout")
    bits = dtype_bits(dtype)
    if hasattr(gmem, "outer") or any(hasattr(d, "path") or hasattr(d, "value") for d in _flat(gmem.stride)):
        # a tensor in global memory is addressed by integer strides: no swizzle, no coordinate or F2 strides
        raise TmaError(f"gmem {gmem}: a TMA tensor has integer strides (no swizzle, coordinate or F2 strides)")
    tiler = None if cta_tiler is None else read_cta_tiler(cta_tiler)
    if tiler is not None:
        g_rank, s_rank = len(_flat(gmem.shape)), len(_modes(_smem_parts(smem)[0]))
        if len(tiler) > g_rank:
            raise TmaError(f"cta_tiler {_shape_text(tiler)} has {len(tiler)} modes, the gmem layout {gmem} "
                           f"{g_rank}: the CTA tile is a shape over the gmem modes")
        if s_rank == len(tiler) + 1:
            smem = _stage0(smem, len(tiler))
        elif s_rank != len(tiler):
            raise TmaError(f"the smem layout {smem} has {s_rank} modes, the CTA tile {_shape_text(tiler)} "
                           f"{len(tiler)}: the smem tile is one stage (the same rank) or staged (one more mode)")
        if len(tiler) < g_rank:
            # CuTe's composition(gmem, cta_tiler) keeps the gmem modes past the tiler whole: the CTA's tile is
            # one coordinate of each (a (M,K,L) tensor with a (128,64) tile: one batch), a box extent of 1
            smem = _pad_modes(smem, g_rank - len(tiler))
            tiler = tuple(tiler) + (1,) * (g_rank - len(tiler))
    g_sh, g_st = _flat(gmem.shape), _flat(gmem.stride)
    s_lay, _, _ = _smem_parts(smem)
    if len(s_lay.shape if isinstance(s_lay.shape, tuple) else (s_lay.shape,)) != len(g_sh):
        raise TmaError(f"the smem tile has {len(s_lay.shape)} modes, the gmem layout {len(g_sh)}")
    sbox = _cutlass_box(s_lay)
    with decide.context(assumptions):
        unit = _unit_mode(g_st)
        if unit is None:
            raise TmaError(f"gmem strides {tuple(g_st)}: no mode has stride 1 (TMA needs a contiguous mode)")
        if sbox is not None and sbox.dims[0][0] == unit:
            # CUTLASS's construct_tma_gbasis: the box's dimensions in smem order, then the other gmem modes
            order = [m for m, _ in sbox.dims] + [i for i in range(len(g_sh)) if i not in {m for m, _ in sbox.dims}]
            extent = dict(sbox.dims)
            tile = [extent.get(i, 1) for i in range(len(g_sh))]
        else:  # no box CUTLASS would find, or the majorness differs (refuted below): the tile's extents
            tile = [size(m) for m in (s_lay.shape if isinstance(s_lay.shape, tuple) else (s_lay.shape,))]
            order = [unit] + [i for i in range(len(g_sh)) if i != unit]
        shape, stride, box = merge_box_modes([g_sh[i] for i in order], [g_st[i] for i in order],
                                             [tile[i] for i in order])
        rules, mode, byte = copy_rules(gmem, smem, bits, box, multicast, smem_address_align)
    if tiler is not None:
        rules.append(cta_tile_rule(smem, tiler))
    if sbox is not None and mode is not None:
        # the byte swizzle the TMA mode applies (the 128B_ATOM_64B mode's shift is the smem layout's)
        applied = None if mode == 0 else (swizzles.by_tma(mode).byte_swizzle or byte)
        landing = prove_landing(smem, sbox, applied, bits)
        rules.append(Rule("box_lands", "each TMA box lands in smem where the smem layout puts its elements",
                          [(landing.proved, lambda _: str(landing.counterexample))],
                          source="TMA swizzle on absolute smem addresses (specs/evidence/sm90/tma.jsonl)"))
    desc = TmaDescriptor(dtype, shape, stride, box, swizzle=mode if mode is not None else 0, assume=assumptions,
                         arch=arch)
    tile = f", cta_tiler {_shape_text(tiler)}" if tiler is not None else ""
    claim = f"make_tma_copy({gmem}, {smem}{tile}, {dtype}) builds an accepted descriptor"
    fields = dict(desc.fields(), smem_alignment=smem_alignment(byte))
    if sbox is not None:
        fields["box_copies"] = sbox.copies
    verdict = check_rules(desc.rules() + rules, assumptions, claim, fields=fields)
    return desc, verdict


def _cutlass_box(s_lay):
    """The box CUTLASS finds in a concrete, compact smem tile (``tma_box.smem_box``), else None (a symbolic
    or padded tile: the tile's extents are the box, as before)."""
    try:
        return smem_box(s_lay)
    except TmaError:
        return None
