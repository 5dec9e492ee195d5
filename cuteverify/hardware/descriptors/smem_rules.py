"""Matrix descriptors derived from a shared-memory layout the way CUTLASS's ``make_gmma_desc`` (SM90) and
``make_umma_desc`` (SM100) derive them, their canonical-form conditions as named rules, and the proof that
the descriptor reads the elements the layout holds (issue 16; the address function: ``hardware.smem_desc``).

Definition (``from_layout``): the smem layout is the element-level layout of one operand tile, rank 2
``(MN, K)``, plain or swizzled (``ComposedLayout``; the element swizzle is CUTLASS's byte swizzle with ``M``
lowered by log2 of the element bytes, as ``specs/smem_atoms.yaml`` writes the GMMA atoms). The MMA block is
``mn x k`` elements (``k`` = 256 bits); block ``(mn_block, k_block)`` covers coordinates
``(mn_block*mn + i, k_block*k + j)``. As CUTLASS does (``make_gmma_desc`` on ``tensor<0>``, then the
descriptor iterator advancing the start address only), the layout type comes from the swizzle, LBO and SBO
from block (0, 0), and the start address is ``address + bytes * u(origin)`` where ``u`` is the unswizzled
element offset (``offset + outer(coordinate)``) of the block's origin and ``address`` the buffer's (an int or
an expression in symbols; default 0).

Rules (each refutation names the rule; ``check_rules`` decides the symbolic ones for every value):
``element_bits``, ``swizzle_mode`` (a layout type exists for the swizzle), ``major_types`` (wgmma reads
MN-major only for 16-bit types), ``k_size`` (k = 256 bits), ``mn_size``, ``block_inside``, ``mn_max`` (the
block's MN is at most 256, the largest MMA extent: past it, or past 256 bits of K, nothing is enumerated, so
every evaluation here stays within ``MAX_BLOCK_ELEMENTS`` = 8192 elements), the canonical
digits ``chunk_contiguous`` / ``core_rows`` / ``swizzle_row`` / ``k_chunk`` / ``sbo_uniform`` /
``lbo_uniform`` (each digit of the canonical form steps by its stride everywhere in block (0, 0)),
``field_alignment`` and ``field_range`` (start, LBO, SBO multiples of 16 and < 2**18), ``pattern_alignment``
(the buffer is aligned to the swizzle's repeat: CuTe's swizzled layouts give offsets from such a buffer,
the hardware swizzles absolute address bits), ``base_offset`` (0..7), and ``reads_layout``: on the requested
block, the descriptor's address function equals the layout's (``address + bytes * layout(coordinate)``) at
every element; refuted with the element and both addresses.

Valid for concrete layouts with integer strides (a smem tile is static in CUTLASS) and 8/16/32-bit elements;
the buffer address may be symbolic. A layout that cannot be read (rank not 2, symbolic, F2 strides) is a
:class:`TmaError`.
"""
from __future__ import annotations

import functools

import numpy as np

from ...algebra.tile import tile_to_shape
from ...core.arrays import layout_array, swizzle_array
from ...core.layout import Layout, size
from ...core.notation.cutlass_names import is_name
from ...core.notation.interop import as_layout
from ...core.notation.parse import as_assumptions, read_swizzle
from ...core.notation.tiles import read_extents
from ...core.swizzle import ComposedLayout, Swizzle
from ...errors import SpecError, TmaError, UnknownSpec
from ...prover.verdict import Disagree, Mismatch, Verdict
from ...symbolic import parse_expr
from ...symbolic.conditions import Condition as C
from ...symbolic.expr import normalize, to_int
from ..library.dtypes import dtype_bits
from ..library.catalog import resolve
from ..checks.rules import Rule, check_rules, value_at
from .smem import SmemDescriptor, canonical_levels, layout_type_of_swizzle, swizzle_of_type
from ..tma.copy import tma_swizzle_mode

__all__ = ["block_function", "from_layout", "gmma_desc", "infer_major", "prove_reads", "smem_layout", "umma_desc"]

_CUTLASS90 = "CUTLASS make_gmma_desc (cute/atom/mma_traits_sm90_gmma.hpp)"
_CUTLASS100 = "CUTLASS make_umma_desc (cute/atom/mma_traits_sm100.hpp)"
_PTX = "PTX ISA: matrix descriptor format"


def smem_layout(text, dtype=None, tile=None, order=None, library=None):
    """A smem layout from text: a layout (``S<3,3,3> o 0 o (8,64):(64,1)``) or a smem atom of the spec
    library (``GMMA::Layout_K_SW128_Atom<bf16>``, or ``GMMA_K_SW128`` with ``dtype``); ``tile`` (MN, K)
    repeats it with ``tile_to_shape`` (column-major, or the mode ``order``). Names are looked up in
    ``library`` (default: the default library); an unknown one is a :class:`TmaError`."""
    # a bare word would parse as a one-symbol layout: a name first
    if is_name(text) and read_swizzle(text) is None:
        try:
            spec = resolve(text.strip(), dtype, library)[0]
        except (UnknownSpec, SpecError) as e:
            raise TmaError(f"smem {text!r} is no smem atom of the spec library: {e}") from None
        if spec.kind != "smem_atom":
            raise TmaError(f"{text}: {spec.name} is a {spec.kind}, not a smem atom")
        layout = spec.layout("layout")
    else:
        layout = as_layout(text, "smem layout")
    if tile is not None:  # 128x64, (128,64), [128, 64] or a tuple: the one extents reader
        layout = tile_to_shape(layout, read_extents(tile, "tile", symbols=True),
                               tuple(order) if order is not None else None)
    return layout


class _Block:
    """The smem layout read as ints: ``u(x, y)`` the unswizzled element offset, ``f(x, y)`` the layout's value
    (element offset, swizzle applied), both at a coordinate of the whole tile."""

    def __init__(self, smem, bits):
        if isinstance(smem, ComposedLayout):
            if not isinstance(smem.inner, Swizzle):
                raise TmaError(f"smem layout {smem}: a descriptor's operand is a layout or a swizzle composed "
                               "with one")
            outer, self.swz, self.offset = smem.outer, smem.inner, smem.offset
        else:
            outer, self.swz, self.offset = smem, None, 0
        if not hasattr(outer, "shape") or not isinstance(outer.shape, tuple) or len(outer.shape) != 2:
            raise TmaError(f"smem layout {smem}: a descriptor's operand tile is a rank-2 (MN, K) layout")
        if getattr(outer, "int_leaves", None) is None or type(self.offset) is not int:
            raise TmaError(f"smem layout {smem}: a descriptor needs a concrete smem layout (integer shapes, "
                           "strides and offset; no symbols, F2 or coordinate strides)")
        self.outer, self.layout = outer, smem
        self.extent = (size(outer.shape[0]), size(outer.shape[1]))
        self.bits = bits
        self._u = {}

    def u(self, x, y):
        key = (x, y)
        v = self._u.get(key)
        if v is None:
            v = self._u[key] = self.offset + self.outer(x, y)
        return v

    def f(self, x, y):
        u = self.u(x, y)
        return self.swz(u) if self.swz is not None else u

    def u_table(self, x0, y0, mn, k):
        """``u`` on the block ``[x0, x0+mn) x [y0, y0+k)`` as an array indexed ``[j, i]`` (``u(x0+i, y0+j)``):
        a plain layout is the sum of its two modes, so the table is ``offset + mode0[x] + mode1[y]`` from the
        modes' value tables (int64 while every value stays far inside it); else (or past that) the exact
        Python ints, element by element, in an object array."""
        modes = _mode_values(self.outer) if type(self.outer) is Layout else None
        if modes is not None and abs(self.offset) < _SAFE:
            a0, a1 = modes
            return self.offset + a0[x0:x0 + mn][None, :] + a1[y0:y0 + k][:, None]
        out = np.empty((k, mn), dtype=object)
        for j in range(k):
            for i in range(mn):
                out[j, i] = self.u(x0 + i, y0 + j)
        return out

    def f_table(self, x0, y0, mn, k):
        """``f`` on the block, as :meth:`u_table` (the swizzle applied elementwise: the same bits)."""
        u = self.u_table(x0, y0, mn, k)
        return swizzle_array(self.swz, u) if self.swz is not None else u


#: int64 tables only while every value is below this magnitude: sums, byte scaling (x4) and an address stay exact
_SAFE = 1 << 40


@functools.lru_cache(maxsize=256)
def _mode_values(outer):
    """``(mode 0's values, mode 1's values)`` of a concrete rank-2 layout as int64 arrays (the search derives
    one descriptor per K block of the same candidate: the tables are built once), or None past ``_SAFE``."""
    a0, a1 = layout_array(outer[0]), layout_array(outer[1])
    if a0 is None or a1 is None or (a0.size and int(np.abs(a0).max()) >= _SAFE) \
            or (a1.size and int(np.abs(a1).max()) >= _SAFE):
        return None
    a0.flags.writeable = a1.flags.writeable = False
    return a0, a1


#: The largest MMA block extent along MN (wgmma's N and tcgen05.mma's M and N are at most 256): a block past
#: it is refuted by the ``mn_max`` rule before any enumeration, so no procedure here visits more than
#: ``MAX_BLOCK_MN * 256 // 8`` (8192) elements of a block.
MAX_BLOCK_MN = 256
MAX_BLOCK_ELEMENTS = MAX_BLOCK_MN * 256 // 8


def _within_budget(mn, k):
    """Refuse, naming the limit, a block the evaluation would enumerate past :data:`MAX_BLOCK_ELEMENTS`."""
    if type(mn) is int and type(k) is int and mn * k > MAX_BLOCK_ELEMENTS:
        raise TmaError(f"a {mn}x{k} block has {mn * k} elements, past the limit of {MAX_BLOCK_ELEMENTS} "
                       f"(the largest MMA block: MN <= {MAX_BLOCK_MN}, K = 256 bits)")


def block_function(smem, dtype, mn, k, mn_block=0, k_block=0):
    """``{(i, j): element offset}`` of the layout on one block (the value of ``smem`` at
    ``(mn_block*mn + i, k_block*k + j)``): the function a descriptor must read."""
    _within_budget(mn, k)
    b = _Block(as_layout(smem, "smem layout"), dtype_bits(dtype))
    x0, y0 = mn_block * mn, k_block * k
    return {(i, j): b.f(x0 + i, y0 + j) for j in range(k) for i in range(mn)}


def _infer_major(blk):
    """K when the layout's K mode has stride 1 at the origin, MN when its MN mode has, else None."""
    du = lambda dx, dy: blk.u(dx, dy) - blk.u(0, 0)
    if blk.extent[1] > 1 and du(0, 1) == 1:
        return "K"
    if blk.extent[0] > 1 and du(1, 0) == 1:
        return "MN"
    return None


def infer_major(smem):
    """The majorness of an ``(MN, K)`` smem layout (or its text): ``"K"`` when its K mode has stride 1 at the
    origin, ``"MN"`` when its MN mode has (K first), else None. Unswizzled offsets, as a descriptor reads."""
    return _infer_major(_Block(as_layout(smem, "smem layout"), 16))


def _digit_rules(blk, desc, eb, mn, k):
    """The canonical-form rules of block (0, 0): each digit of the canonical layout steps by its stride."""
    mn_l, k_l = canonical_levels(desc.major, desc.layout_type, desc.bits)
    rules = {}
    texts = {"chunk_contiguous": f"the {128 // desc.bits} elements of each 16-byte chunk are consecutive along "
                                 "the major mode",
             "core_rows": "the rows of a core matrix / swizzle atom are one swizzle row apart",
             "swizzle_row": "the 16-byte chunks of a swizzle row are consecutive (MN-major)",
             "k_chunk": "the second 16-byte chunk along K is 16 bytes after the first (K-major swizzled)",
             "sbo_uniform": "every 8-row group (core matrix step of the stride dimension) is SBO bytes apart",
             "lbo_uniform": "every leading-dimension group is LBO bytes apart"}
    u = blk.u_table(0, 0, mn, k)
    for axis, levels in ((0, mn_l), (1, k_l)):
        unit = 1
        ext = mn if axis == 0 else k
        for size_, st, name in levels:
            stride = desc._stride(st) if not (isinstance(st, str) and getattr(desc, st.lower()) is None) else None
            bad = None
            if stride is not None and unit < ext:
                # every element whose neighbour `unit` further along the axis lies in the same digit; the first
                # failure in (j, i) order, as an element-by-element walk meets it
                delta = (u[:, unit:] - u[:, :-unit]) * eb if axis == 0 else (u[unit:, :] - u[:-unit, :]) * eb
                miss = delta != stride
                if size_ is not None:
                    last = (np.arange(ext - unit) // unit) % size_ == size_ - 1
                    miss &= ~(last[None, :] if axis == 0 else last[:, None])
                hit = np.flatnonzero(miss)
                if hit.size:
                    j, i = divmod(int(hit[0]), delta.shape[1])
                    n = (i + unit, j) if axis == 0 else (i, j + unit)
                    bad = ((i, j), n, int(delta[j, i]), stride)
            prev = rules.get(name)
            if prev is None or (prev[1] is None and bad is not None):
                rules[name] = (texts[name], bad, st)
            unit = unit * size_ if size_ is not None else unit
    out = []
    for name, (text, bad, st) in rules.items():
        def explain(_, bad=bad, st=st):
            (a, b_, delta, stride) = bad
            what = f"{st} = {stride}" if isinstance(st, str) else f"{stride}"
            return (f"elements {a} and {b_} of block (0, 0) are {delta} bytes apart, the canonical form needs "
                    f"{what}")
        out.append(Rule(name, text, [(bad is None, explain)], source=_PTX + "; " + _cutlass(desc.arch)))
    return out


def _cutlass(arch):
    return _CUTLASS90 if arch == "sm_90" else _CUTLASS100


def _field_rules(desc, address):
    clauses_a, clauses_r = [], []
    for name in ("start", "lbo", "sbo"):
        v = getattr(desc, name)
        if v is None:
            continue
        v = normalize(v)
        clauses_a.append((C("divides", 16, v), lambda vals, n=name, v=v: f"{n} is {value_at(v, vals)} bytes, "
                          "not a multiple of 16"))
        clauses_r.append((C("le", 0, v), lambda vals, n=name, v=v: f"{n} is {value_at(v, vals)}, negative"))
        clauses_r.append((C("lt", v, 1 << 18), lambda vals, n=name, v=v: f"{n} is {value_at(v, vals)} bytes, "
                          "not < 2**18 (14 bits of 16-byte units)"))
    rules = [Rule("field_alignment", "start address, LBO and SBO are multiples of 16 bytes", clauses_a,
                  source=_PTX),
             Rule("field_range", "start address, LBO and SBO are in 0 .. 2**18 - 1 bytes", clauses_r, source=_PTX),
             Rule("base_offset", "the base offset is 0..7", [(type(desc.base_offset) is int
                                                              and 0 <= desc.base_offset <= 7,
                                                              lambda _: f"base offset {desc.base_offset}")],
                  source=_PTX)]
    (b, m, s), _ = swizzle_of_type(desc.layout_type)
    period = (1 << (b + m + s)) if b else 16
    a = normalize(address)
    rules.append(Rule("pattern_alignment", f"the smem buffer is {period}-byte aligned (the swizzle's repeat)",
                      [(C("divides", period, a), lambda vals: f"the buffer address {value_at(a, vals)} is not "
                        f"{period}-byte aligned")], source="CuTe smem_ptr swizzle (absolute address bits)"))
    if desc.arch == "sm_100":
        rules.append(Rule("umma_fields", "version 1 and the relative LBO mode (absolute mode: sm_103a, not "
                          "modelled)", [(desc.version == 1, lambda _: f"version {desc.version}, not 1"),
                                        (desc.lbo_mode == 0, lambda _: "LBO mode 1 (absolute) is not modelled")],
                          source=_PTX + " (tcgen05 shared memory descriptor)"))
    return rules


def prove_reads(desc: SmemDescriptor, smem, mn_block=0, k_block=0, address=0) -> Verdict:
    """Does ``desc`` read, at every element (i, j) of its block, the byte the layout ``smem`` puts element
    ``(mn_block*desc.mn + i, k_block*desc.k + j)`` at (``address + bytes * smem(coordinate)``)? Decided by
    evaluating both functions on the whole block (exhaustive, so a proof of equality as functions).

    A symbolic ``address`` is evaluated at 0: with base offset 0 both sides swizzle the same absolute address
    bits, so the answer holds at every address aligned to the swizzle's repeat (``pattern_alignment``).
    Post-condition: proved, or refuted with a ``disagree`` counterexample naming the element, the smem
    coordinate, the descriptor's address and the layout's."""
    _within_budget(desc.mn, desc.k)
    blk = _Block(as_layout(smem, "smem layout"), desc.bits)
    eb = desc.bits // 8
    address = parse_expr(address, "address") if isinstance(address, str) else normalize(address)
    a = to_int(address, {})
    a = 0 if a is None else a
    start = desc.start
    start = to_int(normalize(start), {}) if type(start) is not int else start
    if start is None:  # symbolic: the start relative to the buffer at address 0
        start = to_int(normalize(desc.start), {s.name: 0 for s in normalize(desc.start).free_symbols})
    x0, y0 = mn_block * desc.mn, k_block * desc.k
    claim = (f"the {desc.arch} descriptor ({desc.layout_type}, LBO {desc.lbo}, SBO {desc.sbo}) reads block "
             f"({mn_block}, {k_block}) of {blk.layout} as the layout places it")
    if x0 + desc.mn > blk.extent[0] or y0 + desc.k > blk.extent[1]:
        return Verdict("refuted", claim=claim, method="evaluation", reason="the block is outside the layout",
                       counterexample=Mismatch(note=f"block ({mn_block}, {k_block}) of "
                                                     f"{desc.mn}x{desc.k} is outside the {blk.extent} tile"))
    want = blk.f_table(x0, y0, desc.mn, desc.k)
    got = desc.address_table(start)
    if got is None or want.dtype == object or abs(a) >= _SAFE:  # exact Python ints where int64 might not be
        got = np.array([[desc.address(i, j, start) for i in range(desc.mn)] for j in range(desc.k)], dtype=object)
        want = want.astype(object)
    want = a + eb * want
    hit = np.flatnonzero(got != want)
    if hit.size:
        j, i = divmod(int(hit[0]), desc.mn)  # the first disagreement in (j, i) order
        got, want = int(got[j, i]), int(want[j, i])
        note = (f"element (mn={i}, k={j}) = smem coordinate ({x0 + i}, {y0 + j}): the descriptor reads "
                f"byte {got}, the layout puts it at byte {want}")
        cex = Disagree(coords=(i, j), values=(got, want), note=note,
                             detail={"coordinate": (x0 + i, y0 + j), "descriptor": got, "layout": want})
        return Verdict("refuted", claim=claim, method="evaluation on the block", counterexample=cex,
                       reason=note)
    return Verdict("proved", claim=claim, method=f"evaluation on all {desc.mn * desc.k} elements of the block")


def from_layout(smem, dtype, arch="sm_90", *, major=None, mn=None, k=None, mn_block=0, k_block=0, address=0,
                assume=None):
    """The descriptor CUTLASS builds for block ``(mn_block, k_block)`` of the smem operand tile ``smem`` (a
    layout or its text) and the verdict of every rule (module docstring). ``major`` is inferred from the
    layout's stride-1 mode when not given; ``mn`` defaults to the tile's MN extent, ``k`` to 256 bits.
    Returns ``(SmemDescriptor, RuleVerdict)``; the descriptor is None when no layout type fits the swizzle."""
    assumptions = as_assumptions(assume)
    if assumptions:  # from a contradiction every rule would hold
        assumptions.check_consistent()
    smem = as_layout(smem, "smem layout")
    address = parse_expr(address, "address") if isinstance(address, str) else normalize(address)
    bits = dtype_bits(dtype)
    if bits not in (8, 16, 32):
        raise TmaError(f"{dtype}: a matrix descriptor block here has 8-, 16- or 32-bit elements")
    blk = _Block(smem, bits)
    eb = bits // 8
    mn = blk.extent[0] if mn is None else mn
    k = 256 // bits if k is None else k
    for what, v in (("mn", mn), ("k", k), ("mn_block", mn_block + 1), ("k_block", k_block + 1)):
        if type(v) is not int or v < 1:
            raise TmaError(f"{what} must be a {'positive' if what in ('mn', 'k') else 'non-negative'} integer")
    major = major.upper() if isinstance(major, str) else _infer_major(blk)
    src = _cutlass(arch)
    rules = [Rule("element_bits", "8-, 16- or 32-bit elements", [(True, lambda _: "")], source=_PTX)]
    _, byte, why = tma_swizzle_mode(blk.swz, bits)
    type_name = layout_type_of_swizzle(arch, byte) if byte is not None else None
    rules.append(Rule("swizzle_mode", "the smem swizzle is a descriptor layout type (Swizzle<0..3,4,3> on bytes"
                      + (", or Swizzle<2,5,2> MN-major)" if arch == "sm_100" else ")"),
                      [(type_name is not None, lambda _: why or f"Swizzle<{byte[0]},{byte[1]},{byte[2]}> on bytes "
                        "has no layout type")], source=src))
    rules.append(Rule("major", "the layout is K-major or MN-major (stride 1 along K or MN at the origin)",
                      [(major in ("K", "MN"), lambda _: "neither mode has stride 1 at the origin")], source=src))
    if major == "K" and type_name == "SWIZZLE_128B_BASE32B":
        rules.append(Rule("base32b_major", "128B_BASE32B is MN-major only", [(False, lambda _: "K-major")],
                          source=src))
    if type_name is None or major not in ("K", "MN") or (major == "K" and type_name == "SWIZZLE_128B_BASE32B"):
        return None, check_rules(rules, assumptions, f"{src} accepts {smem}", fields={})
    t = 128 // bits
    _, w = swizzle_of_type(type_name)
    if arch == "sm_90":
        rules.append(Rule("major_types", "wgmma reads MN-major (transposed) operands only for 16-bit types",
                          [(major == "K" or bits == 16, lambda _: f"MN-major with {bits}-bit elements")],
                          source="PTX ISA: wgmma.mma_async imm-trans-a / imm-trans-b"))
    rules.append(Rule("k_size", "the block's K is 256 bits (one dense MMA instruction)",
                      [(k * bits == 256, lambda _: f"k = {k} elements is {k * bits} bits, not 256")], source=src))
    need = 8 if major == "K" else t * w
    rules.append(Rule("mn_size", f"the block's MN is a multiple of {need}",
                      [(mn % need == 0, lambda _: f"mn = {mn} is not a multiple of {need}")], source=src))
    inside = (mn_block + 1) * mn <= blk.extent[0] and (k_block + 1) * k <= blk.extent[1]
    rules.append(Rule("block_inside", "the block lies inside the tile",
                      [(inside, lambda _: f"block ({mn_block}, {k_block}) of {mn}x{k} leaves the {blk.extent} "
                        "tile")], source=src))
    rules.append(Rule("mn_max", f"the block's MN is at most {MAX_BLOCK_MN} (the largest wgmma / tcgen05.mma "
                      "extent along M or N)", [(mn <= MAX_BLOCK_MN, lambda _: f"mn = {mn} elements; give the MMA's block extent (mn)")],
                      source=_PTX))
    if not (mn <= blk.extent[0] and k <= blk.extent[1]) or mn > MAX_BLOCK_MN or k * bits > 256:
        # nothing to read, or a block no MMA has: decided by the rules above, before any enumeration
        return None, check_rules(rules, assumptions, f"{src} accepts {smem}", fields={})
    # fields from block (0, 0), as make_gmma_desc reads tensor<0>
    mn_l, k_l = canonical_levels(major, type_name, bits)
    fields = {}
    for axis, levels, ext in ((0, mn_l, mn), (1, k_l, k)):
        unit = 1
        for size_, st, _ in levels:
            if isinstance(st, str):
                fields[st] = (blk.u(*((unit, 0) if axis == 0 else (0, unit))) - blk.u(0, 0)) * eb \
                    if unit < ext else None
            unit = unit * size_ if size_ is not None else unit
    x0, y0 = mn_block * mn, k_block * k
    origin = blk.u(x0, y0) if inside else blk.u(0, 0)
    start = normalize(normalize(address) + eb * origin)
    desc = SmemDescriptor(arch, major=major, bits=bits, mn=mn, k=k, start=start, lbo=fields.get("LBO"),
                          sbo=fields.get("SBO"), layout_type=type_name,
                          source=f"{smem}, block ({mn_block}, {k_block})")
    rules += _digit_rules(blk, desc, eb, mn, k)
    rules += _field_rules(desc, address)
    if inside:
        v = prove_reads(desc, smem, mn_block, k_block, address)
        rules.append(Rule("reads_layout", "the descriptor's address function equals the layout on the block",
                          [(v.proved, lambda _, v=v: str(v.counterexample.note))],
                          source=_PTX + " (canonical layouts, swizzle on absolute addresses)"))
    claim = f"{src} builds a descriptor that reads block ({mn_block}, {k_block}) of {smem} ({dtype})"
    return desc, check_rules(rules, assumptions, claim, fields=desc.fields())


def gmma_desc(smem, dtype, **kw):
    """:func:`from_layout` for wgmma (sm_90)."""
    return from_layout(smem, dtype, "sm_90", **kw)


def umma_desc(smem, dtype, **kw):
    """:func:`from_layout` for tcgen05.mma (sm_100; the PTX formula only, no silicon evidence)."""
    return from_layout(smem, dtype, "sm_100", **kw)
