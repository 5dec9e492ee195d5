"""``nullspace``: the indices a layout sends to 0 through its stride-0 modes (CuTe C++ ``nullspace``, CuTe DSL
``cute.nullspace``, the NVlabs reference's ``nullspace``)."""
from __future__ import annotations

from ..core.layout import Layout
from ..core.strides import F2
from ..core.tuples import flatten
from ..errors import NotAdmissibleError, UndecidedError
from ..symbolic import decide
from ..symbolic.conditions import Condition
from ._op import mode_text, operation, split_cases

# The text every note of a nullspace that is not the whole kernel starts with (tests look for it).
NOT_WHOLE_KERNEL = "nullspace: other indices map to 0 as well"

# Where the modes of non-zero stride could cancel (negative or F2 strides), their coordinates are enumerated
# up to this many to decide whether the result is the whole kernel; past it the note says it is not known.
ENUMERATION_CAP = 1 << 16


@operation
def nullspace(layout):
    """The layout ``K`` of the indices of ``layout``'s domain that its stride-0 leaves span.

    Definition (CuTe's, and the NVlabs reference's): flatten ``L``; ``K``'s leaves are the leaves of ``L`` whose
    stride is 0, in order, each with its size and, as stride, its position in ``L``'s domain (the prefix
    product of the flat shape before it: ``L``'s index of the coordinate 1 in that leaf). No such leaf gives
    ``1:0``. ``nullspace((2,4,6):(1,2,0))`` is ``6:8``; size-1 leaves of stride 0 stay (``(2,1,3):(0,0,0)``
    gives ``(2,1,3):(1,2,2)``), as CuTe DSL prints them.
    Valid for: plain layouts with integer, coordinate (E<i>) or F2 strides, concrete or symbolic (a stride
    not known to be 0 or not is split into cases, or refused with the assumption to add); a swizzled layout
    ``Sw o 0 o L`` (a swizzle maps only 0 to 0, so its kernel is ``L``'s). A composed layout with a non-zero
    offset, or whose outer function is not a swizzle, is refused (its zeros are not ``L``'s).
    Post-condition: ``K`` is injective into ``[0, size(L))``, ``size(K) == size(L) / size(filter_zeros(L))``
    and ``L(K(i)) == 0`` for ``i < size(K)``. Also ``image(K)`` is the whole kernel ``{i < size(L) : L(i) ==
    0}`` where the leaves of non-zero stride cannot cancel: integer strides (positive), coordinate strides
    (positive values), or a concrete check by enumeration (negative or F2 strides). Where that stronger
    property fails or is not established, the result carries a note starting with ``NOT_WHOLE_KERNEL``.
    """
    if type(layout) is not Layout and hasattr(layout, "outer"):
        return _composed(layout)
    if not isinstance(layout, Layout):
        raise NotAdmissibleError("nullspace", f"expected a layout, got {layout!r}")
    fs, fd = flatten(layout.shape), flatten(layout.stride)
    shapes, strides, rest = [], [], []
    pos = 1
    for s, d in zip(fs, fd):
        if _is_zero(s, d):
            shapes.append(s)
            strides.append(pos)
        else:
            rest.append((s, d))
        pos = pos * s
    _check_whole(rest)
    if not shapes:
        return Layout._make(1, 0)
    if len(shapes) == 1:
        return Layout._make(shapes[0], strides[0])
    return Layout._make(tuple(shapes), tuple(strides))


def _is_zero(s, d):
    if type(d) is int:
        return d == 0
    if type(d) is F2:
        return d.value == 0
    z = decide.is_zero(d.value if hasattr(d, "path") else d)
    if z is None:
        cond = Condition("eq", d.value if hasattr(d, "path") else d, 0)
        split_cases(cond)
        raise UndecidedError(f"nullspace needs to know whether the stride of {mode_text(s, d)} is 0 (the two "
                             f"cases give different layouts); add an assumption that decides {cond}")
    return z


def _check_whole(rest):
    """Note where the leaves of non-zero stride may reach 0 at a non-zero coordinate (then the result is
    not the whole kernel)."""
    open_ = []
    rest = [(s, d) for s, d in rest if not (type(s) is int and s == 1)]  # a size-1 leaf's coordinate is 0
    for s, d in rest:
        v = d.value if hasattr(d, "path") else d
        if type(d) is F2 or (type(d) is int and d < 0):
            open_.append((s, d))
            continue
        if type(v) is int and v < 0:  # a negative coordinate stride: another mode of the coordinate may cancel it
            decide.note(f"{NOT_WHOLE_KERNEL} unless the negative coordinate stride of {mode_text(s, d)} is "
                        "never cancelled (not checked)")
            return
        if type(v) is not int and decide.lt(0, v) is not True:
            decide.note(f"{NOT_WHOLE_KERNEL} unless the stride of {mode_text(s, d)} is positive (not known)",
                        Condition("lt", 0, v))
            return
    if not open_:
        return
    open_ = rest  # a negative or F2 stride may cancel against any other mode: all of them are checked together
    if not all(type(s) is int for s, _ in open_) or _count(open_) > ENUMERATION_CAP:
        decide.note(f"{NOT_WHOLE_KERNEL} unless the modes {', '.join(mode_text(s, d) for s, d in open_)} "
                    "never cancel (negative or F2 strides; too many coordinates to check)")
        return
    witness = _cancelling(open_)
    if witness is not None:
        decide.note(f"{NOT_WHOLE_KERNEL}: the modes {', '.join(mode_text(s, d) for s, d in open_)} reach 0 at "
                    f"the non-zero coordinate {witness}")


def _count(modes):
    n = 1
    for s, _ in modes:
        n *= s
    return n


def _cancelling(modes):
    """A non-zero coordinate of ``modes`` (``(size, stride)`` pairs, integer or F2) whose value is 0, or None."""
    f2 = type(modes[0][1]) is F2
    seen = {0: ()}  # value -> the first coordinate reaching it (only the zero coordinate reaches 0 so far)
    for s, d in modes:
        step = d.value if f2 else d
        nxt = {}
        for v, c in seen.items():
            for k in range(s):
                w = (v ^ (k * step)) if f2 else v + k * step
                cw = c + (k,)
                if w == 0 and any(cw):
                    return cw
                nxt.setdefault(w, cw)
        seen = nxt
    return None


def _composed(layout):
    from_swizzle = hasattr(layout.inner, "yyy_mask")
    if not from_swizzle or not (type(layout.offset) is int and layout.offset == 0):
        raise NotAdmissibleError("nullspace", "the zeros of a composed layout are the inner layout's only for a "
                                 "swizzle with offset 0 (a swizzle maps only 0 to 0)", str(layout))
    return nullspace(layout.outer)


__all__ = ["nullspace", "NOT_WHOLE_KERNEL"]
