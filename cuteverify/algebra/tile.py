"""``tile_to_shape`` and slicing."""
from __future__ import annotations

from .. import decide
from ..decide import Condition
from ..errors import NotAdmissibleError
from ..layout import Layout, compact_col_major, make_layout, size
from ..tuples import product
from ._op import exact_div, keeps_swizzle, operation
from .coalesce import coalesce
from .divide import _append, blocked_product


@operation
@keeps_swizzle
def tile_to_shape(block, target_shape, order=None):
    """Repeat ``block`` (column-major by default, or in the mode ``order`` given as a tuple of ranks) until
    it covers ``target_shape``; each mode of the result is coalesced to the target's mode.

    Admissibility: each mode of the block divides the corresponding target mode.
    Post-condition: ``shape`` is compatible with ``target_shape`` mode by mode and the layout restricted to
    the first block equals ``block``.
    """
    target = target_shape if type(target_shape) is tuple else (target_shape,)
    r = max(len(block), len(target))
    pb = block if len(block) >= r else _append(block, r)  # C++ append<R>: a rank-R block stays as it is
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
    if len(order) != len(shape):
        raise NotAdmissibleError("tile_to_shape", "the order must have one entry per mode")
    strides = [0] * len(shape)
    cur = 1
    for i in sorted(range(len(shape)), key=lambda k: order[k]):
        strides[i] = 0 if shape[i] == 1 else cur
        cur = cur * shape[i]
    return tuple(strides)


def slice_and_offset(layout, crd):
    """Split a coordinate with ``None`` (CuTe's ``_``) into the sublayout of the free modes and the offset
    of the fixed ones: ``L(crd) == sub(rest) + offset``."""
    if crd is None:
        return layout, 0
    if type(crd) is not tuple:
        return None, layout(crd)
    if type(layout.shape) is not tuple or len(crd) != len(layout.shape):
        raise ValueError(f"slice coordinate of rank {len(crd)} does not match layout {layout}")
    subs, offset = [], 0
    for c, i in zip(crd, range(len(crd))):
        sub, off = slice_and_offset(layout[i], c)
        offset = offset + off
        if sub is not None:
            subs.append(sub)
    if not subs:
        return None, offset
    if len(subs) == 1:
        return subs[0], offset
    return make_layout(*subs), offset


def slice_layout(layout, crd):
    """The layout of the ``None`` modes of ``crd`` (the offset of the fixed modes is dropped)."""
    sub, _ = slice_and_offset(layout, crd)
    return sub if sub is not None else Layout._make(1, 0)


__all__ = ["tile_to_shape", "slice_and_offset", "slice_layout"]
