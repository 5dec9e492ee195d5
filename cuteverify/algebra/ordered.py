"""Compact layouts laid out in a given mode order: CuTe's ``make_ordered_layout`` and ``make_layout_like``
(C++ ``compact_order``, cute/layout.hpp)."""
from __future__ import annotations

from ..core.layout import Layout, compact_col_major
from ..core.swizzle import ComposedLayout
from ..core.tuples import flatten, product
from ..errors import NotAdmissibleError


def make_ordered_layout(shape, order):
    """CuTe's ``make_ordered_layout(shape, order)``: ``shape`` with compact strides in the order ``order``.

    Definition (C++ ``compact_order``): ``order`` is ``shape``'s profile or a coarser one (an integer per mode,
    or per sub-mode); the sub-shape ``s`` under an order entry ``o`` is laid out column-major from the stride
    ``d = product of the sizes of the sub-shapes whose order is < o`` (static size-1 leaves get stride 0, as
    CuTe's compact layouts). Equal order entries start at the same ``d``, as in C++.
    Admissibility: integer order entries (C++ ranks a dynamic entry after every static one; not read here),
    ``order`` a tuple exactly where ``shape`` is, of the same rank; else ``NotAdmissibleError``.
    Post-condition: the result's shape is ``shape``; with distinct orders it is a bijection onto
    ``[0, size(shape))`` whose mode of order ``o`` has stride ``d`` above.
    """
    pairs = _pairs(shape, order)
    return Layout(shape, _strides(shape, order, pairs))


def make_layout_like(layout):
    """CuTe's ``make_layout_like(layout)``: a compact layout of ``layout``'s shape whose leaves are ordered like
    its strides, stride-0 leaves kept at 0 (C++: ``make_layout(shape, compact_order(filter_zeros(stride,
    shape), stride))``).

    Definition: each leaf's order is its stride; a leaf of stride 0 counts as size 1 (so it gets stride 0 and
    adds nothing to the others' strides); equal strides share a start, as in C++.
    Admissibility: a plain layout with integer strides (a swizzled or coordinate-stride layout has no order by
    integer strides here); else ``NotAdmissibleError``.
    Post-condition: same shape; ``d[i] == 0`` where the input's stride is 0; with distinct nonzero strides the
    result restricted to the nonzero-stride leaves is a bijection onto ``[0, product of their extents)``.
    """
    if isinstance(layout, ComposedLayout) or not isinstance(layout, Layout):
        raise NotAdmissibleError("make_layout_like", "needs a plain layout", str(layout))
    strides = flatten(layout.stride)
    if not all(type(d) is int for d in strides):
        raise NotAdmissibleError("make_layout_like", "needs integer strides (the order of the leaves)",
                                 str(layout))
    filtered = _zero_to_one(layout.shape, layout.stride)
    pairs = _pairs(filtered, layout.stride)
    return Layout(layout.shape, _strides(filtered, layout.stride, pairs))


def _zero_to_one(shape, stride):
    if type(stride) is tuple:
        return tuple(_zero_to_one(s, d) for s, d in zip(shape, stride))
    return 1 if stride == 0 else shape


def _pairs(shape, order):
    """``(sub-shape, order entry)`` for every leaf of ``order``."""
    if type(order) is tuple:
        if type(shape) is not tuple or len(shape) != len(order):
            raise NotAdmissibleError("make_ordered_layout", "the order must have the shape's profile (or a "
                                     "coarser one)", f"shape {shape}, order {order}")
        return [p for s, o in zip(shape, order) for p in _pairs(s, o)]
    if type(order) is not int:
        raise NotAdmissibleError("make_ordered_layout", "order entries must be integers", f"order {order!r}")
    return [(shape, order)]


def _strides(shape, order, pairs):
    if type(order) is tuple:
        return tuple(_strides(s, o, pairs) for s, o in zip(shape, order))
    d = 1
    for s, o in pairs:
        if o < order:
            d = d * product(s)
    return compact_col_major(shape, d)
