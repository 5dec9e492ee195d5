"""Coordinates of a shape (docs/model.md section 2.1): integral <-> natural coordinates and row-major
strides. Plain tuple arithmetic on ints and sympy expressions; ``core.layout`` re-exports them."""
from __future__ import annotations

from ..errors import NotAdmissibleError
from .tuples import flatten, product, unflatten, weakly_congruent


def compact_row_major(shape):
    """Row-major (rightmost mode fastest) strides for a flat or nested shape."""
    flat = list(flatten(shape))
    strides = [0] * len(flat)
    cur = 1
    for i in reversed(range(len(flat))):
        strides[i] = 0 if flat[i] == 1 else cur
        cur = cur * flat[i]
    return unflatten(strides, shape)


def idx2crd(idx, shape):
    """Integral coordinate -> natural coordinate of ``shape`` (paper eq. 4; last mode not reduced)."""
    if type(idx) is tuple:
        if not weakly_congruent(idx, shape):
            raise NotAdmissibleError("idx2crd", "the coordinate must be weakly congruent with the shape",
                                     f"coordinate {idx!r}, shape {shape!r}")
        return tuple(idx2crd(i, s) for i, s in zip(idx, shape))
    if type(shape) is tuple:
        out = []
        for k in range(len(shape) - 1):
            sz = product(shape[k])
            out.append(idx2crd(idx % sz, shape[k]))
            idx = idx // sz
        out.append(idx2crd(idx, shape[-1]))
        return tuple(out)
    return idx


def crd2idx(crd, shape):
    """Any coordinate of ``shape`` -> its integral coordinate (paper eq. 5, hierarchical)."""
    if type(crd) is tuple:
        if type(shape) is not tuple or len(crd) != len(shape):
            raise NotAdmissibleError("crd2idx", "the coordinate must be weakly congruent with the shape",
                                     f"coordinate {crd!r}, shape {shape!r}")
        total, mult = 0, 1
        for c, s in zip(crd, shape):
            total = total + crd2idx(c, s) * mult
            mult = mult * product(s)
        return total
    return crd


def crd2crd(crd, src_shape, dst_shape):
    """Re-express a coordinate of ``src_shape`` in the coordinate system of ``dst_shape``."""
    return idx2crd(crd2idx(crd, src_shape), dst_shape)
