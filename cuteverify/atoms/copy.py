"""Copy atoms and tiled copies under CuTe DSL's names, following CUTLASS's ``include/cute/atom/copy_atom.hpp``.

A copy atom's spec gives bit-level TV layouts (``(thr, bit) -> bit``); ``Copy_Atom<Op, T>`` reads them in units
of ``T`` (``recast_layout<uint1_t, T>``, an ``upcast`` by ``sizeof_bits<T>``). The *reference* layout is the
C++ ``Copy_Traits::RefLayout``: the destination for ldmatrix and the TMEM store (tcgen05.st), the source for
every other family (stmatrix, tcgen05.ld, cp.async, TMA, UniversalCopy); ``reg_side`` is the register side.
A tiled copy's ``layout_tv_tiled`` maps ``(thread, value)`` of the reference side to a column-major index of
the tile ``tiler_mn``; ``layout_src_tv_tiled`` / ``layout_dst_tv_tiled`` are the same tile seen from the
source and destination sides of the atom.
"""
from __future__ import annotations

from ._alg import (
    coalesce,
    composition,
    filter,
    left_inverse,
    logical_product,
    raked_product,
    right_inverse,
    upcast,
)
from ..core.layout import Layout, size
from ..core.notation.interop import as_layout
from ..core.tuples import flatten
from ..core.notation.tiles import read_tiler
from ..errors import NotAdmissibleError, ParseError
from ..hardware import Spec, dtype_bits
from ._util import (
    as_tile_item,
    compose_by_leaf,
    compose_mode0,
    format_tile,
    mode,
    product_each,
    slice_offset,
    zipped_divide_keep,
)
from ..hardware.library.catalog import instance_name, resolve, universal_copy_bits
from .partition import Partitioned, through_swizzle

__all__ = [
    "CopyAtom",
    "ThrCopy",
    "TiledCopy",
    "make_copy_atom",
    "make_layout_tv",
    "make_tiled_copy",
    "make_tiled_copy_A",
    "make_tiled_copy_B",
    "make_tiled_copy_C",
    "make_tiled_copy_C_atom",
    "make_tiled_copy_D",
    "make_tiled_copy_S",
    "make_tiled_copy_tv",
]


class CopyAtom:
    """``Copy_Atom<Op, T>``: ``thr_id``, the bit layouts ``bit_layout_src/dst/ref`` and their element views
    ``layout_src_tv`` / ``layout_dst_tv`` / ``layout_ref_tv`` for ``value_type`` of ``value_bits`` bits."""

    def __init__(self, name, thr_id, src_bits, dst_bits, ref_side, value_type, value_bits, spec=None,
                 reg_side=None):
        self.name, self.spec, self.thr_id, self.ref_side = name, spec, thr_id, ref_side
        self.reg_side = reg_side or ref_side
        ref_bits = dst_bits if ref_side == "dst" else src_bits
        self.bit_layout_src, self.bit_layout_dst, self.bit_layout_ref = src_bits, dst_bits, ref_bits
        self.value_type, self.value_bits = value_type, value_bits
        self.layout_src_tv = _recast_bits(src_bits, value_bits, name)
        self.layout_dst_tv = _recast_bits(dst_bits, value_bits, name)
        self.layout_ref_tv = _recast_bits(ref_bits, value_bits, name)
        for side, lay in (("source", self.layout_src_tv), ("destination", self.layout_dst_tv)):
            if size(mode(lay, 0)) != size(thr_id):
                raise NotAdmissibleError("make_copy_atom", f"{name} is not valid for {value_bits}-bit values: the "
                                         f"{side} layout {lay} has {size(mode(lay, 0))} threads, the atom "
                                         f"{size(thr_id)}")

    @property
    def num_val_src(self):
        return size(mode(self.layout_src_tv, 1))

    @property
    def num_val_dst(self):
        return size(mode(self.layout_dst_tv, 1))

    def _atom_lines(self, pad):
        return ["Copy Atom", f"  ThrID:{pad}{self.thr_id}", f"  TV Layout Src:{pad[:-8]}{self.layout_src_tv}",
                f"  TV Layout Dst:{pad[:-8]}{self.layout_dst_tv}", f"  Value type:{pad[:-5]}{self.value_type}"]

    def __str__(self):
        return "\n".join(self._atom_lines(" " * 9))

    def __repr__(self):
        return f"CopyAtom({self.name}, {self.value_type})"


def _recast_bits(layout, bits, name):
    if bits == 1:
        return layout
    try:
        return upcast(layout, bits)
    except NotAdmissibleError as e:
        raise NotAdmissibleError("make_copy_atom", f"{name} cannot be read in {bits}-bit values ({e.condition})") \
            from None


#: PTX instructions whose Copy_Traits take the destination as RefLayout (copy_traits_sm75.hpp LDSM / MOVM,
#: copy_traits_sm100.hpp LDSM_T and TMEM_STORE, whose RefLayout is the TMEM_LOAD's, i.e. the TMEM side)
_REF_DST = ("ldmatrix", "movmatrix", "tcgen05.st")


def _ref_side(spec: Spec) -> str:
    """The side CUTLASS's ``Copy_Traits`` take as ``RefLayout``: a tiled copy's TV layout is in its terms, and
    ``partition_S/D`` map the other side onto it."""
    ptx = (spec.ptx or "").lower()
    return "dst" if ptx.startswith(_REF_DST) else "src"


def _reg_side(spec: Spec) -> str:
    """The register side of a copy atom: the operand the spec marks ``rmem``, else the ldmatrix / movmatrix
    destination, else the source (stmatrix, UniversalCopy; cp.async, which has none, keeps the source)."""
    ops = spec.data.get("operands") or {}
    for side in ("src", "dst"):
        if (ops.get(side) or {}).get("from") == "rmem":
            return side
    return "dst" if (spec.ptx or "").lower().startswith(("ldmatrix", "movmatrix")) else "src"


def make_copy_atom(op, dtype=None, *, num_bits_per_copy=None, **params) -> CopyAtom:
    """The copy atom ``Copy_Atom<op, dtype>``. ``op``: a copy spec's name (``"SM75_U32x4_LDSM_N"``), a
    :class:`~cuteverify.hardware.Spec`, ``"UniversalCopy<uint128_t>"`` / ``"UniversalCopy"`` (with
    ``num_bits_per_copy`` as in CuTe DSL's ``CopyUniversalOp``), or a :class:`CopyAtom` (re-typed when ``dtype``
    is given). ``dtype``: the element type (``"f16"``, ``"half_t"``, ``"float"``, ...); a spec atom defaults to its
    ``element_bits``. Admissibility: the atom's bit layouts must read as whole values of ``dtype`` with one
    thread per ``thr_id`` entry (C++'s static asserts), else :class:`NotAdmissibleError`."""
    if isinstance(op, TiledCopy):
        op = op.atom  # C++'s TiledCopy is a Copy_Atom: passed where an atom goes, it is sliced to it
    if isinstance(op, CopyAtom):
        if dtype is None:
            return op
        op = op.spec if op.spec is not None and not op.spec.is_family else op.name  # an instance's name keeps it
    if isinstance(op, str):
        bits = universal_copy_bits(op, dtype, num_bits_per_copy)
        if bits is not None:
            vt = dtype if dtype is not None else f"b{bits}"
            vbits = dtype_bits(vt) if dtype is not None else bits
            lay = Layout((1, bits))
            return CopyAtom(f"UniversalCopy<{bits}b>", Layout(1, 0), lay, lay, "src", vt, vbits)
        spec, p = resolve(op, kind="copy", instance=True, **params)
    elif isinstance(op, Spec):
        if op.kind != "copy":
            raise NotAdmissibleError("make_copy_atom", f"{op.name} is a {op.kind} spec, not a copy atom")
        spec, p = op, {}
    else:
        raise NotAdmissibleError("make_copy_atom", f"expected a copy atom name or spec, got {op!r}")
    p = spec.check_params(dict(p, **params)) if (p or params or spec.is_family) else {}
    if dtype is None:
        eb = spec.data.get("element_bits")
        if eb is None:
            raise NotAdmissibleError("make_copy_atom", f"{spec.name} needs a dtype")
        dtype = f"b{eb}"
    src, dst = spec.layout("src", **p), spec.layout("dst", **p)
    return CopyAtom(instance_name(spec, p), spec.thr_id(), src, dst, _ref_side(spec), dtype, dtype_bits(dtype),
                    spec, reg_side=_reg_side(spec))


def _as_tiler(tiler_mn, what) -> tuple:
    if isinstance(tiler_mn, Layout):
        return (tiler_mn,)
    tiler_mn = read_tiler(tiler_mn, what)  # text and lists: (16,64), 16x64, Tile<...>, [a;b] (the one tiler reader)
    if type(tiler_mn) is not tuple:
        tiler_mn = (tiler_mn,)
    out = tuple(as_tile_item(t, what) for t in tiler_mn)
    if any(t is None for t in out):
        raise NotAdmissibleError(what, "a copy tiler has no `_` modes")
    return out


class TiledCopy(CopyAtom):
    """CuTe's ``TiledCopy<Copy_Atom, LayoutCopy_TV, ShapeTiler_MN>``: ``layout_tv_tiled`` (reference
    ``(thr, val) -> tile index``), ``tiler_mn`` (a tuple of layouts), ``size`` (threads)."""

    def __init__(self, atom: CopyAtom, layout_tv: Layout, tiler_mn: tuple):
        self.__dict__.update(atom.__dict__)
        self.atom, self.layout_tv_tiled, self.tiler_mn = atom, layout_tv, tiler_mn
        self.size = size(mode(layout_tv, 0))
        atom_thr, atom_val = size(mode(atom.layout_ref_tv, 0)), size(mode(atom.layout_ref_tv, 1))
        tiled_val = size(mode(layout_tv, 1))
        if type(self.size) is int and self.size % atom_thr:
            raise NotAdmissibleError("make_tiled_copy", f"the TV layout has {self.size} threads, not a multiple "
                                     f"of the atom's {atom_thr}", str(layout_tv))
        if type(tiled_val) is int and tiled_val % atom_val:
            raise NotAdmissibleError("make_tiled_copy", f"the TV layout has {tiled_val} values per thread, not a "
                                     f"multiple of the atom's {atom_val}", str(layout_tv))
        self._atom_shape = (atom_thr, atom_val)
        self._cache = {}

    def _ref2(self, side: str) -> Layout:
        """``right_inverse(AtomLayoutRef) o AtomLayoutSrc|Dst``: (side thr, side val) -> (ref thr, ref val)."""
        lay = self.layout_src_tv if side == "src" else self.layout_dst_tv
        return composition(right_inverse(self.layout_ref_tv), lay)

    def tile2thrfrg(self, layout: Layout, ref2trg: Layout) -> Layout:
        """CuTe's ``tile2thrfrg``: ``layout`` of shape ``((TileM,TileN,...),(Rest...))`` to
        ``(Thr,(FrgV,FrgX),(Rest...))`` for the side whose ``(thr,val) -> (ref thr, ref val)`` is ``ref2trg``."""
        atom_tv = zipped_divide_keep(self.layout_tv_tiled, self._atom_shape)
        trg_tv = compose_mode0(atom_tv, ref2trg)
        # zip: ((trg_tid,trg_val),(rest_tid,rest_val)) -> ((trg_tid,rest_tid),(trg_val,rest_val))
        (s0, s1), (d0, d1) = trg_tv.shape, trg_tv.stride
        zipped = trg_tv.with_(((s0[0], s1[0]), (s0[1], s1[1])), ((d0[0], d1[0]), (d0[1], d1[1])))
        thrval2mn = coalesce(zipped, (1, (1, 1)))
        tv = compose_mode0(layout, thrval2mn)
        sub, _ = slice_offset(tv, ((None, None), None))
        return sub

    def tidfrg(self, side: str, layout) -> Layout:
        """CuTe's ``tidfrg_S`` / ``tidfrg_D``: ``(Thr, (FrgV,FrgX), (RestM,RestN,...))`` of a layout over the
        tile's coordinates."""
        return self.tile2thrfrg(zipped_divide_keep(as_layout(layout, "tidfrg"), self.tiler_mn), self._ref2(side))

    def layout_tv(self, side: str) -> Layout:
        """CuTe's ``get_layoutS_TV`` / ``get_layoutD_TV``: ``(thr, val) -> `` tile index, seen from the source
        or destination side of the atom."""
        if side not in self._cache:
            ref = Layout((tuple(t.shape for t in self.tiler_mn), 1))
            full = self.tile2thrfrg(ref, self._ref2(side))
            sub, _ = slice_offset(full, (None, None, 0))
            self._cache[side] = sub
        return self._cache[side]

    @property
    def layout_src_tv_tiled(self) -> Layout:
        return self.layout_tv("src")

    @property
    def layout_dst_tv_tiled(self) -> Layout:
        return self.layout_tv("dst")

    def get_slice(self, thr_idx: int) -> ThrCopy:
        if type(thr_idx) is not int or not 0 <= thr_idx < self.size:
            raise NotAdmissibleError("get_slice", f"thread index must be in [0, {self.size}), got {thr_idx!r}")
        return ThrCopy(self, thr_idx)

    def retile(self, layout) -> Layout:
        """CuTe's ``TiledCopy::retile``: a thread's fragment ``layout`` (its first mode holds the thread's values
        in the order of ``layout_tv_tiled``) regrouped as ``((atom vals, rest vals), rest...)`` for the atom."""
        tensor = as_layout(layout, "retile")
        r = len(tensor) if type(tensor.shape) is tuple else 1
        v = size(mode(tensor, 0))
        shape_mn = tuple(t.shape for t in self.tiler_mn)
        frg_mn = upcast(composition(right_inverse(self.layout_tv_tiled), Layout(shape_mn)), self.size * v)
        frg_v = zipped_divide_keep(logical_product(Layout(v), right_inverse(frg_mn)), Layout(self._atom_shape[1]))
        t = zipped_divide_keep(tensor, (v,) + product_each(frg_mn.shape))
        vt = compose_mode0(t, frg_v)
        rest = (0,) + (None,) * (r - 1)
        sub, _ = slice_offset(vt, (None, rest if len(rest) > 1 else rest[0]))
        return sub

    def __str__(self):
        return "\n".join(["Tiled Copy", f"  Tiler MN:        {format_tile(self.tiler_mn)}",
                          f"  TV Layout tiled: {self.layout_tv_tiled}"] + self._atom_lines(" " * 11))

    def __repr__(self):
        return f"TiledCopy({self.name}, {self.value_type}, {self.layout_tv_tiled}, {format_tile(self.tiler_mn)})"


class ThrCopy:
    """One thread's view of a tiled copy (CuTe's ``ThrCopy``)."""

    def __init__(self, tiled: TiledCopy, thr_idx: int):
        self.tiled_copy, self.thr_idx = tiled, thr_idx

    def _partition(self, side, layout) -> Partitioned:
        lay = as_layout(layout, "partition")
        return through_swizzle(lay, lambda plain: self._partition_plain(side, plain))

    def _partition_plain(self, side, lay) -> Partitioned:
        frg = self.tiled_copy.tidfrg(side, lay)
        r = len(lay) if type(lay.shape) is tuple else 1
        sub, off = slice_offset(frg, (self.thr_idx, None, tuple([None] * r) if r > 1 else None))
        return Partitioned(sub, off)

    def partition_S(self, layout) -> Partitioned:
        """CuTe's ``partition_S``: the thread's source values of a layout over the tile coordinates,
        ``(CPY_V, REST_M, REST_N, ...)``, with its offset."""
        return self._partition("src", layout)

    def partition_D(self, layout) -> Partitioned:
        return self._partition("dst", layout)

    def retile(self, layout) -> Layout:
        return self.tiled_copy.retile(layout)

    retile_S = retile_D = retile

    def __repr__(self):
        return f"ThrCopy({self.tiled_copy!r}, thr_idx={self.thr_idx})"


def make_layout_tv(thr_layout, val_layout):
    """CuTe DSL's ``make_layout_tv``: ``(tiler_mn, layout_tv)`` with ``layout_mn = raked_product(thr, val)``,
    ``layout_tv = right_inverse(layout_mn) o (size(thr), size(val))`` and ``tiler_mn = product_each(shape)``.
    Admissibility: ``layout_mn`` a bijection onto ``[0, size)`` (``thr_layout`` and ``val_layout`` compact), else
    ``right_inverse`` covers only part of the tile (checked for concrete layouts)."""
    thr, val = as_layout(thr_layout, "make_layout_tv"), as_layout(val_layout, "make_layout_tv")
    layout_mn = raked_product(thr, val)
    if layout_mn.is_concrete and not _is_bijection(layout_mn):
        raise NotAdmissibleError("make_layout_tv", f"the thread layout {thr} and value layout {val} must be "
                                 f"compact: raked_product(thr, val) = {layout_mn} is not a bijection onto "
                                 f"[0, {size(layout_mn)})")
    layout_tv = composition(right_inverse(layout_mn), Layout((size(thr), size(val))))
    return product_each(layout_mn.shape), layout_tv


def _is_bijection(layout: Layout) -> bool:
    n = size(layout)
    return n <= 1 << 20 and sorted(layout.values()) == list(range(n))


def _index_range(layout: Layout):
    """``(min, max)`` of a concrete integer layout's values, read off its leaves (no enumeration)."""
    lo = hi = 0
    for s, d in zip(flatten(layout.shape), flatten(layout.stride)):
        lo, hi = (lo + (s - 1) * d, hi) if d < 0 else (lo, hi + (s - 1) * d)
    return lo, hi


def _tile_extent(tiler) -> int | None:
    n = 1
    for t in tiler:
        k = size(t)
        if type(k) is not int:
            return None
        n *= k
    return n


def _fits_tv_form(layout_tv, tiler_mn) -> bool:
    """Do ``(layout_tv, tiler_mn)`` read as CuTe DSL's ``make_tiled_copy``: a rank-2 ``(thr, val)`` layout whose
    values index the tile ``tiler_mn`` (column-major, ``[0, size(tile))``)?"""
    try:
        tv, tiler = as_layout(layout_tv, "make_tiled_copy"), _as_tiler(tiler_mn, "make_tiled_copy")
    except (NotAdmissibleError, ParseError):  # arguments that do not read in this form
        return False
    if type(tv.shape) is not tuple or len(tv.shape) != 2:
        return False
    n = _tile_extent(tiler)
    if not tv.is_concrete or n is None:
        return True
    lo, hi = _index_range(tv)
    return lo >= 0 and hi < n


def _fits_thr_val_form(thr_layout, val_layout) -> bool:
    """Do the two arguments read as C++'s ``make_tiled_copy(atom, thr_layout, val_layout)``?"""
    try:
        make_layout_tv(thr_layout, val_layout)
    except (NotAdmissibleError, ParseError):  # arguments that do not read in this form
        return False
    return True


def make_tiled_copy(atom, layout_tv, tiler_mn, dtype=None) -> TiledCopy:
    """CuTe DSL's ``make_tiled_copy(atom, layout_tv, tiler_mn)`` (C++ ``make_tiled_copy_impl``).

    Admissibility: arguments that read as C++'s ``make_tiled_copy(atom, thr_layout, val_layout)`` and not as a
    TV layout over its tile (its values outside ``[0, size(tile))``, checked for concrete layouts) are refused
    with a pointer to :func:`make_tiled_copy_tv`: the two signatures share the name in C++ and the DSL, and a
    manifest states which it means. Arguments valid in both readings are read as the name says (the DSL's)."""
    if not _fits_tv_form(layout_tv, tiler_mn) and _fits_thr_val_form(layout_tv, tiler_mn):
        raise NotAdmissibleError("make_tiled_copy", f"make_tiled_copy takes (atom, layout_tv, tiler_mn) as CuTe "
                                 f"DSL does, and ({layout_tv}, {tiler_mn}) is no TV layout of that tile: they are a "
                                 "thread and a value layout, C++'s make_tiled_copy(atom, thr_layout, val_layout): "
                                 "write make_tiled_copy_tv(atom, thr_layout, val_layout)")
    return _make_tiled_copy(atom, layout_tv, tiler_mn, dtype)


def _make_tiled_copy(atom, layout_tv, tiler_mn, dtype=None) -> TiledCopy:
    a = make_copy_atom(atom, dtype)
    return TiledCopy(a, as_layout(layout_tv, "make_tiled_copy"), _as_tiler(tiler_mn, "make_tiled_copy"))


def make_tiled_copy_tv(atom, thr_layout, val_layout, dtype=None) -> TiledCopy:
    """CuTe DSL's ``make_tiled_copy_tv`` (C++ ``make_tiled_copy(atom, thr_layout, val_layout)``): the TV layout
    and tiler of :func:`make_layout_tv`. Arguments that fail as thread / value layouts but read as a
    ``(layout_tv, tiler_mn)`` pair are refused with a pointer to :func:`make_tiled_copy`."""
    try:
        tiler, tv = make_layout_tv(thr_layout, val_layout)
    except (NotAdmissibleError, ParseError):  # arguments that do not read in this form
        if _fits_tv_form(thr_layout, val_layout):
            raise NotAdmissibleError("make_tiled_copy_tv", f"make_tiled_copy_tv takes (atom, thr_layout, "
                                     f"val_layout); ({thr_layout}, {val_layout}) are not a thread and a value "
                                     "layout but a TV layout and its tile: write make_tiled_copy(atom, layout_tv, "
                                     "tiler_mn)") from None
        raise
    return _make_tiled_copy(atom, tv, tiler, dtype)


def _atom_for(atom, threads, what, target):
    """The copy atom of a builder's first argument: a tiled copy given there (C++ slices it to its atom) must
    have the threads of the object it is laid out like, or the kernel's copy and ``target`` disagree."""
    if isinstance(atom, TiledCopy) and type(atom.size) is int and type(threads) is int and atom.size != threads:
        raise NotAdmissibleError(what, f"the tiled copy {atom.name} has {atom.size} threads, {target} has "
                                 f"{threads}: pass a copy atom, or a tiled copy of {threads} threads")
    return atom


def make_tiled_copy_A(atom, tiled_mma, dtype=None) -> TiledCopy:
    """The tiled copy of ``atom`` laid out like the tiled MMA's A fragment: ``tv_layout_A_tiled`` over the tile
    ``(tile_M, tile_K)``; it has the tiled MMA's threads (a tiled copy given as ``atom`` must have them too)."""
    atom = _atom_for(atom, tiled_mma.size, "make_tiled_copy_A", f"the tiled MMA {tiled_mma.name}")
    return _make_tiled_copy(atom, tiled_mma.tv_layout_A_tiled, (tiled_mma.get_tile_size(0),
                                                                tiled_mma.get_tile_size(2)), dtype)


def make_tiled_copy_B(atom, tiled_mma, dtype=None) -> TiledCopy:
    atom = _atom_for(atom, tiled_mma.size, "make_tiled_copy_B", f"the tiled MMA {tiled_mma.name}")
    return _make_tiled_copy(atom, tiled_mma.tv_layout_B_tiled, (tiled_mma.get_tile_size(1),
                                                                tiled_mma.get_tile_size(2)), dtype)


def make_tiled_copy_C(atom, tiled_mma, dtype=None) -> TiledCopy:
    atom = _atom_for(atom, tiled_mma.size, "make_tiled_copy_C", f"the tiled MMA {tiled_mma.name}")
    return _make_tiled_copy(atom, tiled_mma.tv_layout_C_tiled, (tiled_mma.get_tile_size(0),
                                                                tiled_mma.get_tile_size(1)), dtype)


def make_tiled_copy_C_atom(atom, tiled_mma, dtype=None) -> TiledCopy:
    """CuTe's ``make_tiled_copy_C_atom``: the smallest tiled copy of ``atom`` that can retile the tiled MMA's C
    fragment (pipelined epilogues that store C in sub-tiles).

    Definition (C++ ``copy_atom.hpp``): the C TV layout truncated to the atom's ``NumValSrc`` values per thread,
    ``L = tv_layout_C_tiled o (threads, NumValSrc)``; the tiler keeps, per mode, just the rows (columns) ``L``
    touches, ``tiler_m = filter((TM,TN):(1,0) o L)``, ``tiler_n = filter((TM,TN):(0,1) o L)``; the TV layout is
    ``L`` re-indexed in that sub-tile, ``left_inverse((TM,TN) o tiler) o L``.
    Admissibility: ``NumValSrc <= `` the values per thread of the C layout (C++'s static assert), and the
    algebra's conditions on the concrete integer layouts involved.
    Post-condition: ``layout_tv_tiled(t, v)`` indexes (column-major) the sub-tile ``tiler_mn`` at the element
    ``tv_layout_C_tiled(t, v)`` lies on, for every thread ``t`` and ``v < NumValSrc``."""
    a = make_copy_atom(_atom_for(atom, tiled_mma.size, "make_tiled_copy_C_atom", f"the tiled MMA {tiled_mma.name}"),
                       dtype)
    c_tv = tiled_mma.tv_layout_C_tiled
    nval = a.num_val_src
    if type(nval) is int and type(size(mode(c_tv, 1))) is int and nval > size(mode(c_tv, 1)):
        raise NotAdmissibleError("make_tiled_copy_C_atom", f"the copy atom moves {nval} values per thread, the "
                                 f"tiled MMA's C fragment has {size(mode(c_tv, 1))}", str(c_tv))
    lay_tv = compose_by_leaf(c_tv, Layout((size(mode(c_tv, 0)), nval)))
    mma_tiler = (tiled_mma.get_tile_size(0), tiled_mma.get_tile_size(1))
    tiler = (filter(compose_by_leaf(Layout(mma_tiler, (1, 0)), lay_tv)),
             filter(compose_by_leaf(Layout(mma_tiler, (0, 1)), lay_tv)))
    tile2mma = composition(Layout(mma_tiler), tiler)
    return TiledCopy(a, compose_by_leaf(left_inverse(tile2mma), lay_tv), tiler)


def make_tiled_copy_S(atom, tiled_copy: TiledCopy, dtype=None) -> TiledCopy:
    """A tiled copy of ``atom`` laid out like ``tiled_copy``'s source side (with its threads)."""
    atom = _atom_for(atom, tiled_copy.size, "make_tiled_copy_S", f"the tiled copy {tiled_copy.name}")
    return _make_tiled_copy(atom, tiled_copy.layout_src_tv_tiled, tiled_copy.tiler_mn, dtype)


def make_tiled_copy_D(atom, tiled_copy: TiledCopy, dtype=None) -> TiledCopy:
    atom = _atom_for(atom, tiled_copy.size, "make_tiled_copy_D", f"the tiled copy {tiled_copy.name}")
    return _make_tiled_copy(atom, tiled_copy.layout_dst_tv_tiled, tiled_copy.tiler_mn, dtype)
