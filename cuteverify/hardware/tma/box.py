"""The TMA box of a CuTe copy, as CUTLASS's ``construct_tma_gbasis`` finds it, and the proof that each box lands
in shared memory where the smem layout puts its elements (issue 16; docs/model.md sections 4 and 6).

Box (``smem_box``; cute/atom/copy_traits_sm90_tma.hpp): invert the smem tile's unswizzled layout (smem element
offset -> tile coordinate) and walk the offsets from 0: the box is the longest prefix that is a dense array
of the tile, innermost first, each of its dimensions a run of one gmem mode with coordinate step 1 (CUTLASS's
truncation at the first stride that is not a unit basis ``1@i``). Its dimensions are ``(gmem mode, extent)``
in TMA order; the offsets past it are further copies of the same box (``copies`` = tile / box elements).
Valid for concrete smem layouts (plain or composed, integer strides) that are bijections onto
``[0, size)`` (the tile of one stage); the gmem side may be symbolic.

Landing (``prove_landing``): TMA writes box element ``b`` of the copy that starts at smem offset ``c * P``
(``P`` the box's elements) to the byte ``swizzle(base + bytes * (c * P + dense(b)))``, where ``dense`` is
the innermost-first row-major offset in the box and ``swizzle`` the descriptor's mode (``Swizzle<B,4,3>`` on
absolute byte addresses, confirmed on the H200: specs/evidence/sm90/tma.jsonl); the copy's gmem origin is the
tile coordinate at its first offset. Proved when, for every element of the tile, that byte is
``base + bytes * smem_layout(coordinate)`` (exhaustive over the tile; the base aligned to the swizzle repeat,
``smem_alignment``); refuted with the element and both addresses.
"""
from __future__ import annotations

import numpy as np

from ...core.layout import size
from ...core.swizzle import ComposedLayout, Swizzle
from ...errors import TmaError
from ...prover.verdict import Disagree, Verdict

__all__ = ["SmemBox", "prove_landing", "smem_box"]

_LIMIT = 1 << 20  # tile elements enumerated at most (a stage of smem is far smaller)


class SmemBox:
    """``dims``: ``((gmem mode, extent), ...)`` in TMA order (innermost first); ``elements`` = the box's
    product; ``copies``: how many boxes the tile takes; ``coord[i][o]``: the index along tile mode ``i`` of the
    element at smem offset ``o`` (numpy arrays); ``ext``: the tile's mode sizes; ``why``: the sentence saying
    where the box stops (None when it is the whole tile)."""

    __slots__ = ("coord", "copies", "dims", "elements", "ext", "rank", "why")

    def __init__(self, dims, coord, why, ext):
        self.dims, self.coord, self.why = tuple(dims), coord, why
        self.ext, self.rank = tuple(ext), len(ext)
        self.elements = 1
        for _, e in self.dims:
            self.elements *= e
        n = len(coord[0]) if coord else 1
        self.copies = n // self.elements if self.elements else 0

    def at(self, o):
        return tuple(int(c[o]) for c in self.coord)

    def __repr__(self):
        return f"SmemBox(dims={self.dims}, copies={self.copies})"


def _outer(smem):
    if isinstance(smem, ComposedLayout):
        if not isinstance(smem.inner, Swizzle) or not hasattr(smem.outer, "stride"):
            raise TmaError(f"smem layout {smem}: a TMA destination is a layout or a swizzle composed with one")
        return smem.outer, smem.inner, smem.offset
    return smem, None, 0


def _tile_coords(outer):
    """``(coord, ext)``: per tile mode, the mode index of the element at each smem offset (the inverse of the
    unswizzled smem layout, numpy arrays over offsets 0..size-1), and the mode sizes."""
    leaves = getattr(outer, "int_leaves", None)
    if leaves is None:
        raise TmaError(f"smem layout {outer}: the TMA box needs a concrete smem layout (integer shapes and strides)")
    modes = outer.shape if isinstance(outer.shape, tuple) else (outer.shape,)
    n = size(outer.shape)
    if n > _LIMIT:
        raise TmaError(f"smem layout {outer}: {n} elements, more than one smem stage can hold")
    idx = np.arange(n, dtype=np.int64)
    off, p = np.zeros(n, dtype=np.int64), 1
    for s, d in zip(*leaves):  # CuTe's index -> offset: colexicographic over the flattened modes
        off += (idx // p) % s * d
        p *= s
    # n offsets in 0..n-1 are one-to-one iff each is counted once (a count, not a sort)
    if off.min() < 0 or off.max() != n - 1 or not (np.bincount(off, minlength=n) == 1).all():
        raise TmaError(f"smem layout {outer}: its offsets are not 0..{n - 1} (not a compact one-to-one tile)")
    inv = np.empty(n, dtype=np.int64)
    inv[off] = idx
    ext = [size(m) for m in modes]
    coord, p = [], 1
    for e in ext:
        coord.append(((inv // p) % e).astype(np.int64))
        p *= e
    return coord, ext


def smem_box(smem) -> SmemBox:
    """The TMA box of the smem tile ``smem`` (module docstring). A tile whose offsets are not ``0 .. size-1``
    is a :class:`TmaError` (CUTLASS's right inverse would cover only a prefix; we refuse rather than guess)."""
    outer, _, _ = _outer(smem)
    coord, ext = _tile_coords(outer)
    n, r = len(coord[0]), len(ext)
    dims, p, why = [], 1, None
    used = set()
    while p < n:
        c = [int(x[p]) for x in coord]
        unit = [i for i, x in enumerate(c) if x != 0]
        if len(unit) != 1 or c[unit[0]] != 1 or unit[0] in used:
            why = f"smem offset {p} holds tile coordinate {tuple(c)}: not one step along a new mode"
            break
        m = unit[0]
        e = 1
        while (e + 1) * p <= n and all(int(coord[i][e * p]) == (e if i == m else 0) for i in range(r)):
            e += 1
        # the box so far times this run is dense: offset o holds coordinate(o % p) + (o // p) @ m
        o = np.arange(e * p)
        ok = all(np.array_equal(coord[i][: e * p], coord[i][o % p] + (o // p if i == m else 0)) for i in range(r))
        if not ok:
            why = f"the run along mode {m} from smem offset {p} is not a dense continuation of the box"
            break
        dims.append((m, e))
        used.add(m)
        p *= e
    if not dims:  # a one-element tile
        dims = [(0, 1)]
    return SmemBox(dims, coord, why, ext)


def prove_landing(smem, box: SmemBox, byte_swizzle, elem_bits, base=0, claim=None) -> Verdict:
    """Does each TMA copy of ``box`` (dense innermost-first box order, then ``byte_swizzle`` ``(B, M, S)`` on
    the absolute byte address) put every element of the tile at ``base + bytes * smem(coordinate)``?
    Exhaustive over the tile (a proof as functions); refuted with the element and both addresses."""
    eb = elem_bits // 8
    sw = Swizzle(*byte_swizzle) if byte_swizzle and byte_swizzle[0] else None
    claim = claim or f"the TMA box {box.dims} lands as {smem} places each element"
    p = box.elements
    n = len(box.coord[0])
    o = np.arange(n, dtype=np.int64)
    first = (o // p) * p  # the offset where each element's copy starts
    dense = np.zeros(n, dtype=np.int64)
    inside = np.ones(n, dtype=bool)
    st = 1
    for m, e in box.dims:
        d = box.coord[m] - box.coord[m][first]
        inside &= (d >= 0) & (d < e)
        dense += d * st
        st *= e
    # the other modes must not move inside a copy (the box has extent 1 along them)
    for i in range(box.rank):
        if i not in {m for m, _ in box.dims}:
            inside &= box.coord[i] == box.coord[i][first]
    tma = base + eb * (first + dense)
    if sw is not None:
        tma = sw(tma)
    # the smem layout's value at the element whose unswizzled offset is o
    _, inner, off = _outer(smem)
    val = off + o
    if inner is not None:
        val = inner(val)
    lay = base + eb * val
    bad = np.nonzero(~inside | (tma != lay))[0]
    if len(bad):
        k = int(bad[0])
        coord, c_idx = box.at(k), k // p
        tma_at = int(tma[k]) if inside[k] else None
        note = (f"tile coordinate {coord} (copy {c_idx}): the TMA writes byte {tma_at}, the smem layout "
                f"puts it at byte {int(lay[k])}")
        cex = Disagree(coords=coord, values=(tma_at, int(lay[k])), note=note,
                             detail={"copy": c_idx, "tma": tma_at, "layout": int(lay[k])})
        return Verdict("refuted", claim=claim, method="evaluation on the tile", counterexample=cex, reason=note)
    return Verdict("proved", claim=claim, method=f"evaluation on all {n} elements of the tile")
