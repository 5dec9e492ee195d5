"""Right and left inverses, and the common-vector queries built on them."""
from __future__ import annotations

from ..core.layout import Layout, size
from ..core.tuples import flatten
from ..errors import NotAdmissibleError
from ..symbolic import decide
from ..symbolic.conditions import Condition
from ._op import exact_div, mode_text, operation
from .coalesce import coalesce, coalesce_flat
from .complement import _sorted_symbolic
from .composition import composition


def _flat_coalesced(layout):
    s, d = coalesce_flat(flatten(layout.shape), flatten(layout.stride))
    return (list(s), list(d)) if type(s) is tuple else ([s], [d])


def _prepare(layout, op):
    """Coalesced flat shapes and strides of an invertible-kind layout, with each mode's position (prefix
    product) in the layout's domain."""
    if hasattr(layout, "outer"):
        raise NotAdmissibleError(op, "swizzled layouts: take the inverse of the inner layout")
    _check_int_strides(layout, op)
    shapes, strides = _flat_coalesced(layout)
    pos = []
    cur = 1
    for s in shapes:
        pos.append(cur)
        cur = cur * s
    return shapes, strides, pos


def _check_int_strides(layout, op):
    for s, d in zip(flatten(layout.shape), flatten(layout.stride)):
        if hasattr(d, "path"):
            raise NotAdmissibleError(op, "coordinate (E<i>) strides are not supported", mode_text(s, d))
        unit = (s == 1) if type(s) is int else decide.is_one(s)
        if unit:
            continue  # a size-1 mode is dropped, whatever its stride
        if type(d) is int and d < 0:
            decide.require(None if unit is None else False, Condition("eq", s, 1), op,
                           "negative strides are not supported", mode_text(s, d))
        elif type(d) is not int:
            nonneg = decide.le(0, d)
            if nonneg is False:
                decide.require(None if unit is None else False, Condition("eq", s, 1), op,
                               "negative strides are not supported", mode_text(s, d))
            else:
                decide.require(nonneg, Condition("le", 0, d), op, "negative strides are not supported",
                               mode_text(s, d))


@operation
def right_inverse(layout):
    """The largest ``R`` with ``L(R(i)) == i`` for ``i < size(R)``.

    Definition: coalesce L; starting from stride 1, repeatedly pick the mode whose stride equals the extent
    reached so far; R's modes are those modes' sizes with strides their positions (prefix products) in L's
    domain. Always defined (``1:0`` when no stride is 1).
    Post-condition: ``L(R(i)) == i`` for every ``i < size(R)``.
    """
    shapes, strides, pos = _prepare(layout, "right_inverse")
    used = [False] * len(shapes)
    rs, rd = [], []
    want = 1
    while True:
        for i, d in enumerate(strides):
            if used[i]:
                continue
            hit = decide.eq(d, want)
            if hit:
                break
            if hit is None:
                # the concrete chain would take this mode where its stride equals the extent reached
                decide.obligate(Condition("ne", d, want), "right_inverse follows the stride chain")
        else:
            break
        used[i] = True
        rs.append(shapes[i])
        rd.append(pos[i])
        want = want * shapes[i]
    if not rs:
        return Layout._make(1, 0)
    s, d = coalesce_flat(rs, rd)
    return Layout._make(s, d)


@operation
def left_inverse(layout):
    """An ``R`` with ``R(L(i)) == i`` for every ``i < size(L)``, for injective L.

    Definition: sort L's (non-trivial) modes by stride ``d_0 < d_1 < ...``; R has, for each but the last, a
    mode of size ``d_{k+1}/d_k`` whose stride is that mode's position in L's domain, then the last mode's
    size at its position; a leading ``d_0 : 0`` mode when ``d_0 > 1``.
    Admissibility: L injective with each stride dividing the next (so the gaps are whole).
    Post-condition: ``R(L(i)) == i`` for all ``i < size(L)``.
    """
    shapes, strides, pos = _prepare(layout, "left_inverse")
    modes = []
    for s, d, p in zip(shapes, strides, pos):
        unit = (s == 1) if type(s) is int else decide.is_one(s)
        if unit:
            continue
        zero = (d == 0) if type(d) is int else decide.is_zero(d)
        if zero:
            # a stride-0 mode is injective only with size 1
            decide.require(None if unit is None else False, Condition("eq", s, 1), "left_inverse",
                           "the layout must be injective (a stride-0 mode of size > 1)", mode_text(s, d))
            continue
        if unit is None:
            decide.obligate(Condition("ne", s, 1), "left_inverse keeps a mode whose size is not known to be 1")
        if zero is None:
            decide.obligate(Condition("ne", d, 0), "left_inverse keeps a mode whose stride is not known to be 0")
        modes.append((d, s, p))
    if not modes:
        return Layout._make(1, 0)
    if all(type(d) is int for d, _, _ in modes):
        modes.sort(key=lambda m: m[0])
    else:
        order = _sorted_symbolic([(k, m[0]) for k, m in enumerate(modes)])
        modes = [modes[k] for k, _ in order]
    rs, rd = [], []
    d0 = modes[0][0]
    if not (type(d0) is int and d0 == 1):
        rs.append(d0)
        rd.append(0)
    for k in range(len(modes) - 1):
        d, s, p = modes[k]
        nd = modes[k + 1][0]
        decide.require(decide.divides(d, nd), Condition("divides", d, nd), "left_inverse",
                       "each stride must divide the next larger one", mode_text(s, d))
        gap = exact_div(nd, d)
        decide.require(decide.le(s, gap), Condition("le", s, gap), "left_inverse",
                       "the layout must be injective (a mode overlaps the next)", mode_text(s, d))
        rs.append(gap)
        rd.append(p)
    d, s, p = modes[-1]
    rs.append(s)
    rd.append(p)
    sh, st = coalesce_flat(rs, rd)
    return Layout._make(sh, st)


@operation
def max_common_layout(a, b):
    """The largest layout ``R`` that both A and B map identically onto contiguous elements: ``A(R(i)) ==
    B(R(i)) == i`` structure shared by both. ``1:0`` when they share no contiguous vector."""
    inv_b = right_inverse(b)
    common = coalesce(composition(a, inv_b))
    s0 = common.shape[0] if type(common.shape) is tuple else common.shape
    d0 = common.stride[0] if type(common.stride) is tuple else common.stride
    if type(d0) is int and d0 == 1:
        return composition(inv_b, Layout._make(s0, 1) if type(common.shape) is tuple else common)
    return Layout._make(1, 0)


def max_common_vector(a, b):
    """The number of elements in ``max_common_layout(a, b)``: how many elements both A and B keep
    contiguous (and in the same order) starting from 0: the widest common vectorisation."""
    return size(max_common_layout(a, b))


__all__ = ["right_inverse", "left_inverse", "max_common_layout", "max_common_vector"]
