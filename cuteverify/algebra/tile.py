"""``tile_to_shape`` and ``tile_to_mma_shape`` (slicing is part of the core: ``core.layout.slice_and_offset``)."""
from __future__ import annotations

from ..core.layout import Layout, compact_col_major, make_layout, size
from ..core.tuples import product
from ..errors import NotAdmissibleError
from ..symbolic import decide
from ..symbolic.conditions import Condition
from ._op import exact_div, operation
from .coalesce import coalesce
from .divide import append_to_rank, blocked_product, tiled_divide


@operation(swizzle_through=True)
def tile_to_shape(block, target_shape, order=None):
    """Repeat ``block`` (column-major by default, or in the mode ``order`` given as a tuple of ranks) until
    it covers ``target_shape``; each mode of the result is coalesced to the target's mode.

    Admissibility (CuTe C++'s): ``rank(block) <= rank(target_shape)``; each mode of the block divides the
    corresponding target mode; ``order``, where given, has one distinct integer per mode (only their order
    counts, as C++'s ``Step<_2,_1,_3>``).
    Post-condition: ``shape`` is compatible with ``target_shape`` mode by mode and the layout restricted to
    the first block equals ``block``.
    """
    target = target_shape if type(target_shape) is tuple else (target_shape,)
    if len(block) > len(target):
        raise NotAdmissibleError("tile_to_shape", "the block's rank must not exceed the target shape's",
                                 f"rank {len(block)} block, rank {len(target)} target")
    r = len(target)
    pb = block if len(block) >= r else append_to_rank(block, r)  # C++ append<R>: a rank-R block stays as it is
    target = target + (1,) * (r - len(target))
    reps = []
    for i in range(r):
        bs, ts = size(pb[i]), product(target[i])
        decide.require(decide.divides(bs, ts), Condition("divides", bs, ts), "tile_to_shape",
                       "the block must divide the target shape", f"mode {i}")
        reps.append(exact_div(ts, bs))
    reps = tuple(reps)
    rep_layout = Layout._make(reps, compact_col_major(reps) if order is None else _ordered_strides(reps, order))
    # CuTe DSL returns the blocked product as it is (C++ coalesces each mode to the target's profile):
    # ``(2,2):(2,1)`` to ``(2,2)`` is ``((2,1),(2,1)):((2,0),(1,0))``
    return blocked_product(pb, rep_layout)


def _ordered_strides(shape, order):
    """Compact strides where mode ``i`` has rank ``order[i]`` (0 fastest), like ``make_ordered_layout``."""
    if type(order) is not tuple or len(order) != len(shape):
        raise NotAdmissibleError("tile_to_shape", f"the order must have one entry per mode ({len(shape)})",
                                 f"order {order!r}")
    if any(type(o) is not int for o in order) or len(set(order)) != len(order):
        raise NotAdmissibleError("tile_to_shape", "the order must be distinct integers (the order in which the "
                                 "modes are tiled)", f"order {order!r}")
    strides = [0] * len(shape)
    cur = 1
    for i in sorted(range(len(shape)), key=lambda k: order[k]):
        strides[i] = 0 if shape[i] == 1 else cur
        cur = cur * shape[i]
    return tuple(strides)


def tile_to_mma_shape(atom, mma_tile_shape, order=None):
    """A shared-memory layout for an MMA's operand tile, as CUTLASS's ``UMMA::tile_to_mma_shape`` builds it
    (cute/atom/mma_traits_sm100.hpp) and CuTe DSL prints it.

    ``mma_tile_shape`` is ``((MMA_M, MMA_K), M_MMAs, K_MMAs, rest...)`` (what ``partition_shape_A`` gives,
    often with a stage count appended). Definition: tile ``atom`` to ``((MMA_M, M_MMAs), (MMA_K, K_MMAs),
    rest...)`` with ``tile_to_shape`` (``order`` over those modes, column-major by default), divide by
    ``(size(MMA_M), size(MMA_K))`` with ``tiled_divide``, and coalesce to the profile of ``mma_tile_shape``
    (CuTe DSL's last step; C++ stops before it, the same function).
    Admissibility: ``mma_tile_shape`` has rank >= 3 with a rank-2 first mode, and the atom divides each
    merged mode (``tile_to_shape``'s condition). Valid for plain and composed (swizzled) atoms with integer
    strides: every step is. Post-condition: the result has the profile of ``mma_tile_shape``, and its first
    mode restricted to the atom's extent equals the atom.
    """
    if type(mma_tile_shape) is not tuple or len(mma_tile_shape) < 3 or type(mma_tile_shape[0]) is not tuple \
            or len(mma_tile_shape[0]) != 2:
        raise NotAdmissibleError("tile_to_mma_shape", f"the MMA tile shape must be ((MMA_M, MMA_K), M_MMAs, "
                                 f"K_MMAs, ...), got {mma_tile_shape}")
    mma = mma_tile_shape[0]
    mn_shape = tuple(zip(mma, mma_tile_shape[1:3])) + tuple(mma_tile_shape[3:])
    if order is not None and (type(order) is not tuple or len(order) != len(mn_shape)):
        raise NotAdmissibleError("tile_to_mma_shape", f"the order needs one entry per mode of {mn_shape} (rank "
                                 f"of the MMA tile shape minus 1), got {order}")
    tiled = tile_to_shape(atom, mn_shape, order)
    return coalesce(tiled_divide(tiled, tuple(product(m) for m in mma)), mma_tile_shape)


__all__ = ["tile_to_shape", "tile_to_mma_shape"]
