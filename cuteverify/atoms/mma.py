"""MMA atoms and tiled MMAs under CuTe DSL's names (``make_mma_atom``, ``make_tiled_mma``), following CUTLASS's
``include/cute/atom/mma_atom.hpp`` step by step (docs/model.md sections 3 and 6).

An atom's TV layouts come from the spec library: A ``(thr, val) -> m + M*k``, B ``-> n + N*k``, C
``-> m + M*n``. A tiled MMA repeats the atom over ``atom_layout_mnk`` (threads) and over the permutation tile
(values); its ``tv_layout_X_tiled`` maps ``(thread index, value)`` to a column-major index into the CTA tile
``(tile_M, tile_K)`` / ``(tile_N, tile_K)`` / ``(tile_M, tile_N)``.
"""
from __future__ import annotations

from ._alg import (
    complement,
    composition,
    logical_divide,
    right_inverse,
    tiled_product,
    upcast,
)
from ..core.layout import Layout, make_layout, size
from ..core.notation.interop import as_layout
from ..core.swizzle import ComposedLayout
from ..core.notation.tiles import read_permutation
from ..errors import NotAdmissibleError
from ..hardware import Spec, dtype_bits
from ..hardware.library.spec import OPERAND_MODES, TILED_OPERANDS
from ._util import (
    as_tile_item,
    compose_mode0,
    first_size,
    flat_coord,
    format_tile,
    mode,
    slice_offset,
    zipped_divide_keep,
)
from ..hardware.library.catalog import instance_name, resolve
from .partition import Partitioned, fragment_like, through_swizzle

__all__ = ["MmaAtom", "ThrMma", "TiledMma", "make_mma_atom", "make_tiled_mma"]

# operand -> (the MNK modes of its tile, the vmnk thread modes it is tiled over: vmnk's mode 0 is the atom's thread)
_OPERAND_MODES = {op: (OPERAND_MODES[op], tuple(i + 1 for i in OPERAND_MODES[op])) for op in TILED_OPERANDS}


class MmaAtom:
    """One MMA instruction: ``thr_id``, ``shape_mnk`` and the TV layouts ``tv_layout_A/B/C`` of its spec
    (CuTe's ``MMA_Atom``). ``name`` is the instance's CUTLASS name, ``params`` the family parameters,
    ``template_args`` the C++ template arguments it was named with (``<GMMA::Major::K,GMMA::Major::MN>``)."""

    template_args = ""

    def __init__(self, spec: Spec, params: dict, name: str):
        self.spec, self.params, self.name = spec, dict(params), name
        self.shape_mnk = spec.shape_mnk(**params)  # checks the family parameters
        self.thr_id, self.tv_layout_A, self.tv_layout_B, self.tv_layout_C = _atom_layouts(spec, self.params)

    def tv_layout(self, operand: str) -> Layout:
        return getattr(self, "tv_layout_" + operand)

    def operand_source(self, operand: str) -> str:
        """``"smem_desc"`` for an operand read through a shared-memory descriptor (wgmma SS), else ``"rmem"``."""
        node = self.spec.data["operands"].get(operand, {})
        return "smem_desc" if node.get("from") == "smem_desc" else "rmem"

    def _atom_lines(self, pad: str) -> list:
        return ["MMA Atom", f"  ThrID:{pad}{self.thr_id}", f"  Shape MNK:{pad[:-4]}{_tuple(self.shape_mnk)}",
                f"  TV Layout A:{pad[:-6]}{self.tv_layout_A}", f"  TV Layout B:{pad[:-6]}{self.tv_layout_B}",
                f"  TV Layout C:{pad[:-6]}{self.tv_layout_C}"]

    def __str__(self):
        return "\n".join(self._atom_lines(" " * 7))

    def __repr__(self):
        return f"MmaAtom({self.name})"


_ATOM_LAYOUTS: dict = {}


def _atom_layouts(spec: Spec, params: dict) -> tuple:
    """``(thr_id, A, B, C)`` of a spec instance, parsed once per (spec, parameters): layouts are immutable, and
    the parameters are substituted in the text, so a family instance parses without sympy."""
    key = (id(spec), tuple(sorted(params.items())))
    hit = _ATOM_LAYOUTS.get(key)
    if hit is None or hit[0] is not spec:
        hit = _ATOM_LAYOUTS[key] = (spec, tuple(spec.layout(k, **params) for k in ("thr_id", "A", "B", "C")))
    return hit[1]


def _tuple(t) -> str:
    return "(" + ",".join(str(x) for x in t) + ")"


def make_mma_atom(atom, **params) -> MmaAtom:
    """The MMA atom for a CUTLASS name (``"SM80_16x8x16_F32F16F16F32_TN"``, a wgmma instance
    ``"SM90_64x128x16_F32BF16BF16_SS"`` or ``"SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS"``, a class template
    ``"SM100_MMA_F16BF16_2x1SM_SS<half_t, half_t, float, 256, 128, UMMA::Major::K, UMMA::Major::K>"``), a family
    name or :class:`~cuteverify.hardware.Spec` with its parameters as keywords (``"SM100_MMA_F16BF16_SS", M=128,
    N=256, a_major="K", b_major="K"``), or an :class:`MmaAtom` (returned as is). Names are read by the one
    resolver (:func:`cuteverify.hardware.library.catalog.resolve`). Raises :class:`~cuteverify.errors.UnknownSpec` for an
    unknown name, :class:`~cuteverify.errors.SpecError` for a parameter that contradicts the name or the family,
    and :class:`NotAdmissibleError` for a non-MMA spec or a family without all its parameters."""
    if isinstance(atom, MmaAtom):
        if params:
            raise NotAdmissibleError("make_mma_atom", f"{atom!r} is an atom already: its parameters are fixed")
        return atom
    if isinstance(atom, Spec):
        if atom.kind != "mma":
            raise NotAdmissibleError("make_mma_atom", f"{atom.name} is a {atom.kind} spec, not an MMA atom")
        p = atom.check_params(params)
        return MmaAtom(atom, p, instance_name(atom, p))
    if not isinstance(atom, str):
        raise NotAdmissibleError("make_mma_atom", f"expected an atom name, a spec or an MmaAtom, got {atom!r}")
    spec, p = resolve(atom, kind="mma", instance=True, **params)
    out = MmaAtom(spec, p, instance_name(spec, p))
    # the majors a GMMA name declares in its template arguments are not family parameters: kept for operand_desc
    out.template_args = atom.strip()[len(atom.strip().split("<")[0]):].strip()
    return out


class TiledMma(MmaAtom):
    """CuTe's ``TiledMMA``: the atom tiled over ``thr_layout_vmnk = tiled_product(thr_id, atom_layout_mnk)``
    threads and over ``permutation_mnk`` values. Built by :func:`make_tiled_mma`."""

    def __init__(self, atom: MmaAtom, atom_layout_mnk: Layout, permutation_mnk: tuple):
        self.__dict__.update(atom.__dict__)
        self.atom = atom
        self.atom_layout_mnk = atom_layout_mnk
        self.permutation_mnk = permutation_mnk
        self.thr_layout_vmnk = tiled_product(atom.thr_id, atom_layout_mnk)
        self.size = size(self.thr_layout_vmnk)
        self._cache = {}

    # -- tile sizes ----------------------------------------------------------------------------------------
    def permutation(self, i: int):
        """CuTe's ``permutation_mnk<I>()``: the permutation layout of mode ``i``, or, for ``_``, the extent
        ``size<I>(shape_mnk) * size<I+1>(thr_layout_vmnk)`` (an int)."""
        p = self.permutation_mnk[i]
        if p is None:
            return self.shape_mnk[i] * first_size(self.thr_layout_vmnk, i + 1)
        return p

    def get_tile_size(self, i: int):
        """The extent of the tiled MMA's tile in mode ``i`` (0: M, 1: N, 2: K): ``size(permutation_mnk<i>)``."""
        if i not in (0, 1, 2):
            raise NotAdmissibleError("get_tile_size", f"mode must be 0, 1 or 2, got {i}")
        p = self.permutation(i)
        return p if type(p) is int else size(p)

    @property
    def tile_shape_mnk(self) -> tuple:
        return tuple(self.get_tile_size(i) for i in range(3))

    # -- thrfrg: (M,K,...) -> ((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK,...))) ----------------------------------
    def thrfrg(self, operand: str, layout) -> Layout:
        """CuTe's ``thrfrg_A/B/C``: ``layout`` (a layout over the operand's ``(M,K)`` / ``(N,K)`` / ``(M,N)``
        coordinates) reshaped to ``((ThrV,(Thr0,Thr1)),(FrgV,(Rest0,Rest1,...)))``. Steps (C++): divide by the
        permutation tile, zipped-divide by the atom's extent, compose the atom mode with the atom's TV layout,
        zipped-divide the rest by the thread tiling."""
        modes, thr_modes = _OPERAND_MODES[operand]
        layout = as_layout(layout, "thrfrg")
        t = logical_divide(layout, tuple(_perm_tile(self.permutation(i)) for i in modes))
        a = zipped_divide_keep(t, tuple(Layout(self.shape_mnk[i]) for i in modes))
        tv = compose_mode0(a, self.tv_layout(operand))
        vmnk = self.thr_layout_vmnk
        thr_tile = (None, tuple(Layout(first_size(vmnk, j)) for j in thr_modes))
        return zipped_divide_keep(tv, thr_tile)

    def _thridx_2_thrid(self) -> Layout:
        vmnk = self.thr_layout_vmnk
        inv = right_inverse(make_layout(vmnk, complement(vmnk)))
        return composition(Layout((size(vmnk), 1), (1, 0)), inv)

    def tv_layout_tiled(self, operand: str) -> Layout:
        """CuTe's ``get_layoutA/B/C_TV``: ``(thread index, value) -> `` column-major index of the operand's CTA
        tile. A and B broadcast over the thread mode they are not tiled in (N for A, M for B): the thread
        coordinate is widened with a stride-0 mode before the thread index is mapped back to ``(V,M,N,K)``."""
        if operand in self._cache:
            return self._cache[operand]
        modes, _ = _OPERAND_MODES[operand]
        ref = Layout(tuple(self.get_tile_size(i) for i in modes))
        thr = self.thrfrg(operand, ref)
        vmnk = self.thr_layout_vmnk
        s1, s2 = first_size(vmnk, 1), first_size(vmnk, 2)
        if operand == "A":
            thr = compose_mode0(thr, (None, (Layout((s1, s2), (1, 0)), None)))
        elif operand == "B":
            thr = compose_mode0(thr, (None, (Layout((s1, s2), (0, 1)), None)))
        out = compose_mode0(thr, self._thridx_2_thrid())
        self._cache[operand] = out
        return out

    @property
    def tv_layout_A_tiled(self) -> Layout:
        return self.tv_layout_tiled("A")

    @property
    def tv_layout_B_tiled(self) -> Layout:
        return self.tv_layout_tiled("B")

    @property
    def tv_layout_C_tiled(self) -> Layout:
        return self.tv_layout_tiled("C")

    # -- slices ------------------------------------------------------------------------------------------
    def get_slice(self, thr_idx: int) -> ThrMma:
        """The thread slice of thread ``thr_idx`` (``0 <= thr_idx < size``)."""
        if type(thr_idx) is not int or not 0 <= thr_idx < self.size:
            raise NotAdmissibleError("get_slice", f"thread index must be in [0, {self.size}), got {thr_idx!r}")
        return ThrMma(self, thr_idx)

    def partition_shape(self, operand: str, shape) -> tuple:
        """CuTe's ``partition_shape_A/B/C``: ``(V, R0, R1, rest...)`` with ``V`` the atom's values per thread
        (``shape<1>`` of its TV layout), ``R_i = size<i>(shape) / (atom extent x threads)`` in the operand's two
        modes (flat counts, as C++'s ``shape_div`` of sizes gives, even where a permutation makes the
        partition's own rest modes hierarchical) and the modes past the second as given.
        Admissibility: ``shape`` has rank >= 2 and each R_i divides (C++'s ``shape_div``)."""
        modes, thr_modes = _OPERAND_MODES[operand]
        if type(shape) is not tuple or len(shape) < 2:
            raise NotAdmissibleError(f"partition_shape_{operand}", f"needs a shape of rank >= 2, got {shape!r}")
        v = self.tv_layout(operand).shape[1]
        out = [v]
        for k, (i, j) in enumerate(zip(modes, thr_modes)):
            per = self.shape_mnk[i] * first_size(self.thr_layout_vmnk, j)
            n = size(Layout(shape[k]))
            if type(n) is int and n % per:
                raise NotAdmissibleError(f"partition_shape_{operand}", f"mode {k} has size {n}, not a multiple of "
                                         f"the atom's {self.shape_mnk[i]} x {first_size(self.thr_layout_vmnk, j)} "
                                         "threads")
            out.append(n // per)
        return tuple(out) + tuple(shape[2:])

    def partition_shape_A(self, shape_mk):
        return self.partition_shape("A", shape_mk)

    def partition_shape_B(self, shape_nk):
        return self.partition_shape("B", shape_nk)

    def partition_shape_C(self, shape_mn):
        return self.partition_shape("C", shape_mn)

    def __str__(self):
        perm = format_tile(self.permutation_mnk) if any(p is not None for p in self.permutation_mnk) else \
            "(_,_,_)"
        return "\n".join(["Tiled MMA", f"  Thr Layout VMNK: {self.thr_layout_vmnk}", f"  Permutation MNK: {perm}"]
                         + self._atom_lines(" " * 11))

    def __repr__(self):
        return f"TiledMma({self.name}, {self.atom_layout_mnk}, {format_tile(self.permutation_mnk)})"


def _perm_tile(p):
    return Layout(p) if type(p) is int else p


def _repeat_none(shape):
    n = len(shape) if type(shape) is tuple else 1
    return tuple([None] * n) if n > 1 else None


class ThrMma:
    """One thread's view of a tiled MMA (CuTe's ``ThrMMA``): ``thr_vmnk`` is the thread's flat ``(V,M,N,K)``
    coordinate in ``thr_layout_vmnk``."""

    def __init__(self, tiled: TiledMma, thr_idx: int):
        self.tiled_mma, self.thr_idx = tiled, thr_idx
        self.thr_vmnk = flat_coord(tiled.thr_layout_vmnk, thr_idx)

    def partition(self, operand: str, layout) -> Partitioned:
        """CuTe's ``partition_A/B/C``: the thread's values of a tensor with ``layout`` over the operand's
        coordinates, ``(FrgV, Rest0, Rest1, ...)``, with the offset of the thread's coordinate.
        Post-condition: ``result(v, r...) == layout(thrfrg(layout)((thread coords), (v, (r...))))``."""
        layout = as_layout(layout, "partition")
        return through_swizzle(layout, lambda plain: self._partition_plain(operand, plain))

    def _partition_plain(self, operand: str, layout: Layout) -> Partitioned:
        thr = self.tiled_mma.thrfrg(operand, layout)
        v, (m, n, k) = self.thr_vmnk[0], self.thr_vmnk[1:]
        coord = tuple((m, n, k)[i] for i in OPERAND_MODES[operand])
        rest = mode(thr, 1)
        rest_rank = len(mode(rest, 1)) if type(mode(rest, 1).shape) is tuple else 1
        sub, off = slice_offset(thr, ((v, coord), (None, tuple([None] * rest_rank) if rest_rank > 1 else None)))
        return Partitioned(sub, off)

    def partition_A(self, layout) -> Partitioned:
        return self.partition("A", layout)

    def partition_B(self, layout) -> Partitioned:
        return self.partition("B", layout)

    def partition_C(self, layout) -> Partitioned:
        return self.partition("C", layout)

    def partition_fragment(self, operand: str, layout) -> Layout:
        """CuTe's ``partition_fragment_A/B/C``: the register fragment for the thread's partition. C is compact
        column-major over the partition's shape; A and B are ``make_fragment_like`` of the partition (compact,
        mode 0 column-major, stride-0 modes kept), except an operand read through a shared-memory descriptor
        (wgmma SS): its fragment is CUTLASS's descriptor view (``MakeTensor<GMMA::smem_desc>``), the partition
        read in 128-bit units with the atom mode replaced by ``1:0`` (one descriptor per atom), so
        ``(1, RestM, RestK)`` with the rest strides counting 16-byte steps, as CuTe DSL prints it.
        Admissibility (descriptor view): the partition's strides divide into 128-bit units."""
        part = self.partition(operand, layout)
        if operand == "C":
            return Layout(part.shape)
        tm = self.tiled_mma
        if tm.operand_source(operand) == "smem_desc":
            bits = dtype_bits(tm.spec.data.get("dtypes", {}).get(operand.lower(), "b16"))
            lay = part.layout.outer if isinstance(part.layout, ComposedLayout) else part.layout  # the descriptor
            units = upcast(lay, 128 // bits) if bits < 128 else lay                            # encodes the swizzle
            return make_layout(Layout(1, 0), *[mode(units, i) for i in range(1, len(units))])
        return fragment_like(part.layout)

    def partition_fragment_A(self, layout) -> Layout:
        return self.partition_fragment("A", layout)

    def partition_fragment_B(self, layout) -> Layout:
        return self.partition_fragment("B", layout)

    def partition_fragment_C(self, layout) -> Layout:
        return self.partition_fragment("C", layout)

    def __repr__(self):
        return f"ThrMma({self.tiled_mma!r}, thr_idx={self.thr_idx})"


def make_tiled_mma(atom, atom_layout_mnk=(1, 1, 1), permutation_mnk=None, **params) -> TiledMma:
    """CuTe's ``make_tiled_mma(atom, atom_layout_mnk, permutation_mnk)``.

    ``atom``: see :func:`make_mma_atom`. ``atom_layout_mnk``: a shape (compact column-major), a layout or its
    text, rank <= 3 (padded with ``1:0`` as C++ does). ``permutation_mnk``: None or up to 3 entries, each None
    (``_``), an int ``n`` (``n:1``) or a layout (``(8,2,2):(1,16,8)``, as text or a Layout), or the whole tile as
    text (``"(32,32,16)"``, ``"Tile<32,(8,2,2):(1,16,8),16>"``, ``"[32:1;32:1;16:1]"``, read as the CLI reads it).
    Admissibility: each permutation tile's size must be a multiple of the atom's extent times the threads in
    that mode (CuTe's divisibility of the tile by the atom), checked here with the mode named."""
    a = make_mma_atom(atom, **params)
    lay = as_layout(atom_layout_mnk, "atom_layout_mnk")
    r = len(lay) if type(lay.shape) is tuple else 1
    if r > 3:
        raise NotAdmissibleError("make_tiled_mma", f"atom_layout_mnk must have rank <= 3, got {lay}")
    if r < 3:
        modes = [mode(lay, i) for i in range(r)] + [Layout(1, 0)] * (3 - r)
        lay = make_layout(*modes)
    if isinstance(permutation_mnk, str):  # the CLI's and manifests' text forms: (32,32,16), Tile<...>, [a;b;c]
        permutation_mnk = read_permutation(permutation_mnk, "make_tiled_mma permutation_mnk")
    perm = tuple(permutation_mnk) if isinstance(permutation_mnk, (tuple, list)) else \
        (() if permutation_mnk is None else (permutation_mnk,))
    if len(perm) > 3:
        raise NotAdmissibleError("make_tiled_mma", f"permutation_mnk has {len(perm)} entries, at most 3")
    perm = tuple(as_tile_item(p, "make_tiled_mma") for p in perm) + (None,) * (3 - len(perm))
    tiled = TiledMma(a, lay, perm)
    for i, what in enumerate("MNK"):
        need = a.shape_mnk[i] * first_size(tiled.thr_layout_vmnk, i + 1)
        got = tiled.get_tile_size(i)
        if type(got) is int and got % need:
            raise NotAdmissibleError("make_tiled_mma", f"the permutation tile of mode {what} has size {got}, "
                                     f"not a multiple of the atom's {a.shape_mnk[i]} x "
                                     f"{first_size(tiled.thr_layout_vmnk, i + 1)} threads = {need}")
    return tiled
