"""TTGIR layout attributes -> linear layouts, as Triton 3.9's compiler computes them (docs/model.md section 12).

Follows Triton 3.9's ``toLinearLayout`` (``LinearLayoutConversions.cpp``, ``LayoutUtils.cpp``) step by step,
with the operations of :class:`cuteverify.linear.LinearLayout` (Triton's ``operator*``, ``transposeOuts``): a
register layout has in dims ``register, lane, warp, block`` and a shared layout ``offset, block``; out dims are
``dim0, dim1, ...`` (``dim0`` the tensor's first index). The CTA split is the attribute's CGA layout (3.9's
``CGALayout`` bases, or those ``makeCgaLayout`` derives from the older fields): the ``block`` in dim then has
bases. What 3.9 changed from older revisions, and this module follows: a dot operand's CGA bases have K set to
0 (CTAs never split K); ``blocked`` drops the registers that fall outside a tensor smaller than
``sizePerThread`` (others broadcast them); ``swizzled_shared`` swizzles each CTA's share; ``nvmma_shared`` tiles
one CTA's share by TMA boxes (each extent at most 256, the contiguous one the swizzle width), including the
unswizzled and rank-3 forms.

Admissible: tensor extents that are powers of two, a rank the attribute allows, and the per-attribute rules
Triton asserts (an nvmma_shared box at least one 8-row swizzle atom, mma tiles of whole instruction shapes, a
``linear`` attribute that is a permutation once its zero bases are removed). Anything else is a
:class:`TritonLayoutError` (an input error) naming the attribute and the rule, never an assertion; so is the one
form whose 3.9 answer is degenerate (a transposed unswizzled nvmma_shared of rank >= 3 maps more offsets than
the tensor has elements).

Post-condition (checked by tests/triton/test_triton39_corpus.py against a corpus converted by Triton 3.9 itself): the
bases are exactly Triton's, in Triton's order, out dims ``dim0..`` with sizes the tensor's extents.
"""
from __future__ import annotations

from ..errors import TritonLayoutError
from ..linear import LinearLayout
from .attrs import (
    Blocked,
    CtaLayout,
    DotOperand,
    LinearAttr,
    NvidiaMma,
    NvmmaShared,
    SwizzledShared,
)

__all__ = ["dim_names", "ensure_not_larger", "ensure_not_smaller", "to_linear"]


def _pow2(n) -> bool:
    return type(n) is int and n > 0 and n & (n - 1) == 0


def _log2(n: int) -> int:
    return n.bit_length() - 1


def dim_names(rank: int) -> list:
    """Triton's ``standardOutDimNames``: ``["dim0", "dim1", ...]``."""
    return [f"dim{i}" for i in range(rank)]


def _make(bases, outs) -> LinearLayout:
    """Triton's ``LinearLayout(bases, outDimNames)``: each out dim's size is the power of two just above its
    largest basis value (``llvm::NextPowerOf2``; 1 for a dim with no non-zero value)."""
    bases = [(n, [tuple(b) for b in bs]) for n, bs in (bases.items() if isinstance(bases, dict) else bases)]
    sizes = [1] * len(outs)
    for _, bs in bases:
        for b in bs:
            for i, v in enumerate(b):
                sizes[i] = max(sizes[i], 1 << v.bit_length())
    return LinearLayout(bases, list(zip(outs, sizes)))


def _identity_nd(in_dim: str, shape, order) -> LinearLayout:
    """Triton's ``identityStandardND``: the identity of ``prod(shape)`` elements reshaped to ``shape``, the
    dims taken fastest first in ``order`` (out dims in that order)."""
    names = dim_names(len(shape))
    out = LinearLayout.empty()
    for d in order:
        out = out * LinearLayout.identity_1d(shape[d], in_dim, names[d])
    return out


def ensure_not_larger(lay: LinearLayout, shape: dict, broadcast_registers: bool = True) -> LinearLayout:
    """Triton's ``ensureLayoutNotLargerThan`` (3.9): each out dim's size becomes ``min(size, shape[dim])`` and
    every basis value at or above it is set to 0 (those bits then broadcast: several inputs hold the same
    element). With ``broadcast_registers=False`` a ``register`` basis that this turns into all zeros is dropped
    instead (fewer registers, as Triton's ``combineCtaCgaWithShape`` does for a tensor smaller than the tile)."""
    sizes = [min(s, shape[o]) for o, s in lay.out_dims]
    out = []
    for n, bs in lay.bases.items():
        row = []
        for b in bs:
            nb = tuple(0 if v >= sz else v for v, sz in zip(b, sizes))
            if not broadcast_registers and n == "register" and any(b) and not any(nb):
                continue
            row.append(nb)
        out.append((n, row))
    return LinearLayout(out, list(zip(lay.out_dim_names, sizes)))


def ensure_not_smaller(lay: LinearLayout, shape: dict) -> LinearLayout:
    """Triton's ``ensureLayoutNotSmallerThan``: for each out dim (in the layout's out-dim order) smaller than
    ``shape[dim]``, more bits of the first in dim (``register`` / ``offset``) repeat the layout along it."""
    first = lay.in_dim_names[0]
    out = lay
    for o in lay.out_dim_names:
        actual, want = lay.out_dim_size(o), shape[o]
        if actual < want:
            out = out * LinearLayout.identity_1d(want // actual, first, o)
    return out


def _cga(cta, rank: int) -> LinearLayout:
    """The CGA layout: block id -> tensor index, from Triton 3.9's ``CGALayout`` bases (or the bases
    ``makeCgaLayout`` derives from the older ``CTAsPerCGA`` fields); out dims ``dim0..`` in order, each sized
    by its largest basis value."""
    names = dim_names(rank)
    bases = cta.cga_bases()
    for b in bases:
        if len(b) != rank:
            raise TritonLayoutError(f"the CGA layout {[list(x) for x in bases]} has rank {len(b)}, the tensor {rank}")
    return _make({"block": bases}, names)


def _shape_per_cta(cta, shape) -> list:
    """Triton's ``getShapePerCTA``: each extent divided by the CTAs that split it (at least 1)."""
    cga = _cga(cta, len(shape))
    return [max(1, s // cga.out_dim_size(d)) for s, d in zip(shape, dim_names(len(shape)))]


def _combine(cta_lay: LinearLayout, cta, shape, broadcast_registers: bool = True) -> LinearLayout:
    """Triton's ``combineCtaCgaWithShape``: fit the block layout and then the CTA layout to the tensor shape
    (repeat along the first in dim when smaller; when larger, broadcast, or with ``broadcast_registers=False``
    drop the register bits that fall outside, as Triton 3.9 does for ``blocked``) and join them."""
    rank = len(shape)
    names = dim_names(rank)
    labeled = dict(zip(names, shape))
    cga = ensure_not_larger(_cga(cta, rank), labeled).transpose_outs(cta_lay.out_dim_names)
    cta_shape = {d: max(1, labeled[d] // cga.out_dim_size(d)) for d in cta_lay.out_dim_names}
    cta_lay = ensure_not_smaller(cta_lay, cta_shape)
    cta_lay = ensure_not_larger(cta_lay, cta_shape, broadcast_registers)
    out = (cta_lay * cga).transpose_outs(names)
    for d in names:
        if out.out_dim_size(d) != labeled[d]:
            raise TritonLayoutError(f"the CGA layout {[list(b) for b in cta.cga_bases()]} does not fit the tensor "
                                    f"{'x'.join(map(str, shape))}: {d} has size {out.out_dim_size(d)}, not "
                                    f"{labeled[d]}")
    return out


def _matrix_order(rank: int, row_major: bool) -> list:
    """Triton's ``getMatrixOrder``: ``[rank-1, ..., 0]``, the first two swapped when not row-major."""
    order = list(range(rank - 1, -1, -1))
    if not row_major and rank >= 2:
        order[0], order[1] = order[1], order[0]
    return order


def _dot_order(op_idx: int, rank: int) -> list:
    """Triton's ``getOrderForDotOperand(opIdx, rank, kContig=true)``: K fastest."""
    return _matrix_order(rank, not op_idx)  # Triton: rowMajor = (opIdx != kContig), kContig = true


def _bad(attr, why: str):
    raise TritonLayoutError(f"{attr.text()}: {why}")


# ------------------------------------------------------------------------------------------ distributed

def _blocked(a: Blocked, shape) -> LinearLayout:
    cta = _identity_nd("register", a.size_per_thread, a.order) * \
        _identity_nd("lane", a.threads_per_warp, a.order) * _identity_nd("warp", a.warps_per_cta, a.order)
    # Triton 3.9 keeps no register that only repeats an element of a tensor smaller than sizePerThread
    return _combine(cta, a.cta, shape, broadcast_registers=False)


def _mma_tile(tile, k_width: int, order, rep_order) -> LinearLayout:
    """Triton's ``nvidiaMmaTile``: kWidth registers and 4 lanes along the inner dim, 8 lanes along the outer,
    then registers repeating along the outer and the inner dim; out dims in ``rep_order``."""
    rank = len(rep_order)
    names = dim_names(rank)
    inner, outer = order[0], order[1]
    m, n = tile[outer], tile[inner]
    lay = _identity_nd("register", [1] * rank, rep_order)
    for size, ind, d in ((k_width, "register", inner), (4, "lane", inner), (8, "lane", outer),
                         (m // 8, "register", outer), (n // (k_width * 4), "register", inner)):
        lay = lay * LinearLayout.identity_1d(size, ind, names[d])
    return lay


def _check_mma(a: NvidiaMma, rank: int):
    if a.version_major not in (2, 3):
        _bad(a, f"versionMajor {a.version_major} is not modelled (2: mma.sync, 3: wgmma)")
    if len(a.warps_per_cta) != rank:
        _bad(a, f"warpsPerCTA has {len(a.warps_per_cta)} entries for a rank-{rank} tensor")
    if any(not _pow2(w) for w in a.warps_per_cta):
        _bad(a, "every warpsPerCTA entry must be a power of two")
    if a.version_major == 2:
        if len(a.instr_shape) != rank or tuple(a.instr_shape[-2:]) != (16, 8) or any(x != 1 for x in
                                                                                    a.instr_shape[:-2]):
            _bad(a, "an mma v2 layout has instrShape [16, 8] (with leading 1s for a batch dim)")
    else:
        if rank != 2:
            _bad(a, "an mma v3 (wgmma) layout is modelled for rank-2 tensors only")
        if len(a.instr_shape) != 3 or a.instr_shape[0] != 16 or not _pow2(a.instr_shape[1]) or \
                a.instr_shape[1] < 8 or a.instr_shape[1] > 256:
            _bad(a, "an mma v3 layout has instrShape [16, N, K] with N a power of two in 8..256 (the "
                    "power-of-two N that have a linear layout)")


def _nvidia_mma(a: NvidiaMma, shape) -> LinearLayout:
    rank = len(shape)
    _check_mma(a, rank)
    tile = list(a.instr_shape) if a.version_major == 2 else [a.instr_shape[0], a.instr_shape[1]]
    rep = _matrix_order(rank, True)
    cta = _mma_tile(tile, 2, _matrix_order(rank, True), rep)
    warps = _identity_nd("warp", a.warps_per_cta, _matrix_order(rank, a.version_major != 3))
    cta = cta * warps.transpose_outs(cta.out_dim_names)
    return _combine(cta, a.cta, shape)


def _broadcast_dot(shape, order, k_dim: int, in_dim: str) -> LinearLayout:
    """Triton's ``broadcastedDotOperandLayout``: ``in_dim`` spread over ``shape`` in ``order``, every bit
    along the K dim sent to 0 (each warp / lane of the other operand's dim needs the whole K slice)."""
    names = dim_names(len(shape))
    out = LinearLayout.empty()
    for d in order:
        f = LinearLayout.zeros_1d if d == k_dim else LinearLayout.identity_1d
        out = out * f(shape[d], in_dim, names[d])
    return out


def _nvidia_dot(a: DotOperand, shape) -> LinearLayout:
    mma, rank = a.parent, len(shape)
    _check_mma(mma, rank)
    kw, is_a = a.k_width, a.op_idx == 0
    if not _pow2(kw):
        _bad(a, "kWidth must be a power of two >= 1 for an nvidia_mma parent")
    if not is_a and mma.version_major == 3:
        _bad(a, "opIdx = 1 with an mma v3 parent: wgmma reads B from shared memory (no register layout)")
    tile = [1] * rank
    if is_a:
        tile[rank - 2], tile[rank - 1] = 16, kw * 8
    else:
        tile[rank - 2], tile[rank - 1] = kw * 8, 8
    order = _dot_order(a.op_idx, rank)
    cta = _mma_tile(tile, kw, order, order)
    k_dim = rank - 1 if is_a else rank - 2
    warps = _broadcast_dot(mma.warps_per_cta, _matrix_order(rank, mma.version_major != 3), k_dim, "warp")
    cta = cta * warps.transpose_outs(cta.out_dim_names)
    return _combine(cta, _dot_cga(mma.cta, k_dim, rank), shape)


def _fma_dot(a: DotOperand, shape) -> LinearLayout:
    """Triton's ``fmaDotToLinearLayout`` (a dot operand of a blocked parent: FMA dots)."""
    b, rank = a.parent, len(shape)
    if b.rank != rank:
        _bad(a, f"the parent has rank {b.rank}, the tensor {rank}")
    k_dim = rank - 1 if a.op_idx == 0 else rank - 2
    size = list(b.size_per_thread)
    size[k_dim] = shape[k_dim]
    rep = [dim_names(rank)[d] for d in b.order]
    regs = _identity_nd("register", size, b.order).transpose_outs(rep)
    lanes = _broadcast_dot(b.threads_per_warp, b.order, k_dim, "lane").transpose_outs(rep)
    warps = _broadcast_dot(b.warps_per_cta, b.order, k_dim, "warp").transpose_outs(rep)
    return _combine(regs * lanes * warps, _dot_cga(b.cta, k_dim, rank), shape)


def _dot_cga(cta, k_dim: int, rank: int) -> CtaLayout:
    """Triton's ``getCGALayout`` of a dot operand: the parent's CGA bases with the K entry set to 0 (CTAs never
    split K: each CTA holding a slice of M (or N) needs the whole K extent)."""
    bases = tuple(tuple(0 if i == k_dim else v for i, v in enumerate(b)) for b in cta.cga_bases())
    return CtaLayout.from_bases(bases, rank)


def _dot(a: DotOperand, shape) -> LinearLayout:
    if isinstance(a.parent, NvidiaMma):
        return _nvidia_dot(a, shape)
    if isinstance(a.parent, Blocked):
        return _fma_dot(a, shape)
    _bad(a, f"a dot_op of a {a.parent.kind} parent is not modelled (nvidia_mma and blocked are)")


def _linear(a: LinearAttr, shape) -> LinearLayout:
    rank = len(shape)
    names = dim_names(rank)
    for n, bs in a.bases:
        for b in bs:
            if len(b) != rank:
                _bad(a, f"a basis of {n} has {len(b)} entries for a rank-{rank} tensor")
            for v, s, d in zip(b, shape, names):
                if v >= s:
                    _bad(a, f"a basis of {n} ({list(b)}) has {d} = {v}, outside the tensor's extent {s}")
    lay = LinearLayout(list(a.bases), list(zip(names, shape)))
    seen = set()
    for n, bs in a.bases:
        for b in bs:
            if not any(b):
                continue
            if sum(1 for v in b if v) != 1 or not _pow2(max(b)) or b in seen:
                _bad(a, f"the basis {list(b)} of {n}: Triton 3.9 requires a permutation matrix once the zero "
                        "(broadcast) bases are removed (each basis one power of two in one dim, no two equal)")
            seen.add(b)
    if not lay.is_surjective():
        _bad(a, f"the bases do not reach every element of a {'x'.join(map(str, shape))} tensor (Triton "
                "requires a surjective layout)")
    return lay


# ------------------------------------------------------------------------------------------ shared

def _swizzled(a: SwizzledShared, shape) -> LinearLayout:
    """Triton's ``swizzledSharedToLinearLayout``: each CTA's share (``getShapePerCTA``) is swizzled, its rows
    (``order[1]``) XOR-ing ``vec * ((row / perPhase) % maxPhase)`` into the columns (``order[0]``)."""
    rank = len(shape)
    names = dim_names(rank)
    per_cta = _shape_per_cta(a.cta, shape)
    if rank == 1:
        return _combine(LinearLayout.identity_1d(per_cta[0], "offset", "dim0"), a.cta, shape)
    col, row = a.order[0], a.order[1]
    ncols, nrows = per_cta[col], per_cta[row]
    bases = [(0, 1 << i) for i in range(_log2(ncols))]
    for i in range(_log2(nrows)):
        r = 1 << i
        bases.append((r, (a.vec * ((r // a.per_phase) % a.max_phase)) % ncols))
    cta = _make({"offset": bases}, [names[row], names[col]])
    for d in a.order[2:]:
        cta = cta * LinearLayout.identity_1d(per_cta[d], "offset", names[d])
    return _combine(cta, a.cta, shape)


def _cta_of(a: NvmmaShared, rank: int):
    # a single-CTA attribute without a rank field (older Triton's text) fits a tensor of any rank
    return CtaLayout.default(rank) if a.cta.single else a.cta


_PHASES = {0: (1, 1), 32: (4, 2), 64: (2, 4), 128: (1, 8)}
TMA_BOX_MAX = 256  # Triton's getTMABlockShape: no TMA box extent above 256


def _tma_block(a: NvmmaShared, per_cta) -> list:
    """Triton's ``getTMABlockShape(..., packedSize=true)``: the TMA box of one CTA's share: every extent at most
    256, the contiguous one exactly the swizzle width (in elements; halved again for fp4Padded)."""
    block = list(per_cta)
    contig = 0 if a.transposed else len(block) - 1
    if a.fp4_padded:
        block[contig] *= 2
    block = [min(x, TMA_BOX_MAX) for x in block]
    if a.swizzling_byte_width:
        width = 8 * a.swizzling_byte_width // a.element_bit_width
        if block[contig] < width:
            _bad(a, f"the contiguous dim {contig} of a CTA's share is {block[contig]} elements, less than one "
                    f"{a.swizzling_byte_width}-byte swizzle row ({width} elements)")
        block[contig] = width
    if a.fp4_padded:
        block[contig] //= 2
    return block


def _reshape_row_major(bases, src, dst):
    """Bases over out dims of sizes ``src`` re-read over ``dst`` (both row-major: the last dim fastest), as
    Triton's ``reshapeLayout``."""
    def flat(v):
        f = 0
        for x, n in zip(v, src):
            f = f * n + x
        return f

    def unflat(f):
        out = []
        for n in reversed(dst):
            out.append(f % n)
            f //= n
        return tuple(reversed(out))
    return [unflat(flat(b)) for b in bases]


def _nvmma_shared(a: NvmmaShared, shape) -> LinearLayout:
    """Triton 3.9's ``nvmmaSharedToLinearLayout``: the 8-row swizzle atom (``getCoreMatrixLinearLayout``) is
    repeated over the TMA box of one CTA's share, rows first, then reshaped to the box (transposed: the first
    dim contiguous), then repeated over the rest of the share dim by dim (dim0 first), then over the CTAs.
    Unswizzled (``swizzlingByteWidth = 0``): the box in row-major order, the contiguous dim fastest."""
    rank = len(shape)
    if a.nd and a.nd != rank:
        _bad(a, f"the attribute has rank {a.nd}, the tensor {'x'.join(map(str, shape))} rank {rank}")
    if a.fp4_padded and (a.swizzling_byte_width != 128 or a.element_bit_width != 8):
        _bad(a, "fp4Padded needs swizzlingByteWidth = 128 and elementBitWidth = 8")
    cta = _cta_of(a, rank)
    names = dim_names(rank)
    per_cta = _shape_per_cta(cta, shape)
    block = _tma_block(a, per_cta)
    if a.swizzling_byte_width == 0:
        if a.transposed and rank > 2:
            _bad(a, "a transposed unswizzled nvmma_shared layout of rank 3 or more is not modelled (Triton 3.9 "
                    "maps more offsets than the tensor has elements there)")
        # the box with the contiguous dim fastest (transposed: dim0), then the share's rest, last dim first
        lay = LinearLayout.empty()
        for d in ([0, 1] if a.transposed else range(rank - 1, -1, -1)):
            lay = lay * LinearLayout.identity_1d(block[d], "offset", names[d])
        lay = ensure_not_smaller(lay.transpose_outs(names[::-1]), dict(zip(names, per_cta)))
        return _combine(lay.transpose_outs(names), cta, shape)
    if rank < 2:
        _bad(a, "a swizzled nvmma_shared layout needs a tensor of rank 2 or more")
    rows, cols = 1, block[-1]
    for x in block[:-1]:
        rows *= x
    if a.transposed:
        rows, cols = cols, rows
    eb, width = a.element_bit_width, a.swizzling_byte_width
    per_phase, max_phase = _PHASES[width]
    vec = 128 // eb
    tile_rows, tile_cols = 8, 8 * width // eb
    packing = 2 if a.fp4_padded else 1
    if cols * packing < tile_cols or rows < tile_rows:
        _bad(a, f"a CTA's TMA box must hold one swizzle atom of {tile_rows} x {tile_cols // packing} elements "
                f"(rows x contiguous), got {rows} x {cols}")

    def packed(c):
        return c // 16 * 8 + c % 8 if a.fp4_padded else c

    bases = [(0, packed(1 << i)) for i in range(_log2(tile_cols))]
    for i in range(_log2(tile_rows)):
        r = 1 << i
        bases.append((r, packed(vec * ((r // per_phase) % max_phase))))
    tile = ensure_not_smaller(_make({"offset": bases}, ["dim0", "dim1"]), {"dim0": rows, "dim1": cols})
    box = block[1:] + block[:1] if a.transposed else block
    flat = [b for b in tile.bases["offset"]]
    if tile.total_out_size() != _prod(box):
        _bad(a, f"the swizzle atoms do not tile the TMA box {'x'.join(map(str, block))}")
    moved = _reshape_row_major(flat, [tile.out_dim_size("dim0"), tile.out_dim_size("dim1")], box)
    if a.transposed:  # the last dim of the reshaped box is the tensor's first
        moved = [(b[-1],) + tuple(b[:-1]) for b in moved]
    lay = LinearLayout({"offset": moved}, list(zip(names, block)))
    lay = ensure_not_smaller(lay, dict(zip(names, per_cta)))
    return _combine(lay, cta, shape)


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


_CONVERT = {"blocked": _blocked, "nvidia_mma": _nvidia_mma, "dot_op": _dot, "linear": _linear,
            "swizzled_shared": _swizzled, "nvmma_shared": _nvmma_shared}


def to_linear(attr, shape) -> LinearLayout:
    """The linear layout Triton's ``toLinearLayout(shape, attr)`` gives (``attr`` a record of
    :mod:`.attrs`, ``shape`` the tensor's extents). Register layouts: in dims ``register, lane, warp, block``
    -> ``dim0..``; shared layouts: ``offset, block`` -> ``dim0..``. TritonLayoutError when inadmissible."""
    shape = tuple(shape)
    if not shape or any(not _pow2(s) for s in shape):
        raise TritonLayoutError(f"tensor shape {'x'.join(map(str, shape)) or '()'}: every extent must be a power "
                                "of two (Triton's tensors are)")
    if max(shape) > 1 << 20 or len(shape) > 6:
        raise TritonLayoutError(f"tensor shape {'x'.join(map(str, shape))}: larger than this package models "
                                "(extents up to 2^20, rank up to 6)")
    kind = getattr(attr, "kind", None)
    if kind not in _CONVERT:
        raise TritonLayoutError(f"{attr!r} is not a layout attribute record of cuteverify.triton.attrs")
    rank = attr.rank
    if kind != "nvmma_shared" and kind != "linear" and rank != len(shape):
        raise TritonLayoutError(f"{attr.text()} has rank {rank}, the tensor "
                                f"{'x'.join(map(str, shape))} rank {len(shape)}")
    if kind == "nvmma_shared" and not attr.cta.single and attr.cta.rank != len(shape):
        raise TritonLayoutError(f"{attr.text()}: the CTA fields have rank {attr.cta.rank}, the "
                                f"tensor {len(shape)}")
    cta = getattr(attr, "cta", None) or getattr(getattr(attr, "parent", None), "cta", None)
    if cta is not None:
        if cta.bases is None:
            for f in (cta.ctas_per_cga, cta.cta_split_num):
                if any(not _pow2(x) for x in f):
                    raise TritonLayoutError(f"{attr.text()}: CTAsPerCGA and CTASplitNum entries must be powers "
                                            "of two")
        elif any(v and not _pow2(v) for b in cta.bases for v in b):
            raise TritonLayoutError(f"{attr.text()}: every CGALayout entry must be 0 or a power of two")
    for name in ("size_per_thread", "threads_per_warp", "warps_per_cta"):
        vals = getattr(attr, name, ())
        if any(not _pow2(x) for x in vals):
            raise TritonLayoutError(f"{attr.text()}: every {name} entry must be a power of two")
    if kind == "swizzled_shared" and not all(_pow2(x) for x in (attr.vec, attr.per_phase, attr.max_phase)):
        raise TritonLayoutError(f"{attr.text()}: vec, perPhase and maxPhase must be powers of two for a linear "
                                "layout")
    return _CONVERT[kind](attr, shape)
