"""The plain-int kernels of coalesce and composition (docs/model.md section 3): the concrete fast paths of
the algebra, and what the core's swizzled slicing decays through. Integer strides only; no decision
interface, no sympy: callers hand over leaves they know are ints."""
from __future__ import annotations

from ..errors import NotAdmissibleError
from .layout import Layout


def coalesce_flat_ints(shapes, strides, keep_last):
    """``algebra.coalesce.coalesce_flat`` on plain-int leaf lists (size-1 modes dropped, ``s0:d0, s1:s0*d0``
    merged; ``keep_last`` keeps a trailing size-1 mode that carries the extended domain), or None when an
    entry is not an int. Valid for integer strides only (docs/model.md section 3.1)."""
    rs: list = []
    rd: list = []
    ps = pd = 0  # the last kept mode
    for s, d in zip(shapes, strides):
        if type(s) is not int or type(d) is not int:
            return None
        if s == 1:
            continue
        if rs and d == ps * pd:
            ps *= s
            rs[-1] = ps
            continue
        rs.append(s)
        rd.append(d)
        ps, pd = s, d
    if not rs:
        if keep_last and shapes:
            return shapes[-1], strides[-1]
        return 1, 0
    if keep_last and shapes[-1] == 1 and strides[-1] != rs[-1] * rd[-1]:
        rs.append(1)
        rd.append(strides[-1])
    if len(rs) == 1:
        return rs[0], rd[0]
    return tuple(rs), tuple(rd)


def compose_ints(a_shapes, a_strides, b_shape, b_stride, alone):
    """``A o B`` for a coalesced flat plain-int A (``a_shapes``, ``a_strides``) and a plain-int B given by its
    shape and stride: the walk of ``algebra.composition._compose_mode`` without the decision interface (the
    differential suites hold the two to the same answers). ``alone``: B has at most one moving mode."""
    if type(b_shape) is tuple:
        ss, ds = [], []
        for n, r in zip(b_shape, b_stride):
            x, y = compose_ints(a_shapes, a_strides, n, r, alone)
            ss.append(x)
            ds.append(y)
        return tuple(ss), tuple(ds)
    n, r = b_shape, b_stride
    last = len(a_shapes) - 1
    if r < 0 and n != 1 and last > 0:
        raise NotAdmissibleError("composition", "negative strides in the right layout are not supported",
                                 f"({n}:{r})")
    if r == 0:
        return n, 0
    if last == 0:
        return n, r * a_strides[0]
    if n == 1:
        for s in a_shapes[:-1]:
            r = -(-r // s)  # CuTe ceil-divides a size-1 mode's stride through A (see _unit_stride)
        return 1, r * a_strides[-1]
    shapes, strides = [], []
    rest_n, rest_r = n, r
    for i in range(last):
        s, d = a_shapes[i], a_strides[i]
        if alone and rest_r * (rest_n - 1) < s:
            shapes.append(rest_n)  # the rest lies inside this mode (see _compose_mode)
            strides.append(rest_r * d)
            rest_n = 1
            break
        if s % rest_r == 0:
            new_s, stride = s // rest_r, rest_r * d
            rest_r = 1
        elif rest_r % s == 0:
            rest_r //= s
            continue
        else:
            raise NotAdmissibleError("composition", f"stride divisibility: {rest_r} and {s} must divide one "
                                     "another", f"mode {i} of the coalesced left layout ({s}:{d}) for the right "
                                     f"mode {n}:{r}")
        if new_s == 1:
            continue
        if new_s % rest_n == 0:
            shapes.append(rest_n)
            strides.append(stride)
            rest_n = 1
            break
        if rest_n % new_s:
            raise NotAdmissibleError("composition", f"shape divisibility: {new_s} and {rest_n} must divide one "
                                     "another", f"mode {i} of the coalesced left layout for the right mode {n}:{r}")
        shapes.append(new_s)
        strides.append(stride)
        rest_n //= new_s
        if rest_n == 1:
            break
    else:
        if rest_n != 1 or not shapes:
            shapes.append(rest_n)
            strides.append(rest_r * a_strides[last])
    if len(shapes) == 1:
        return shapes[0], strides[0]
    return tuple(shapes), tuple(strides)


def composition_ints(la, b, lb):
    """``A o B`` for a plain-int A (given by its leaves ``la``) and a plain-int layout B (leaves ``lb``) with
    non-negative strides: the steps of ``algebra.composition`` without the domain dispatch and the decision
    interface. Refuses (NotAdmissibleError) as the algebra does: B's moving modes must address disjoint
    index ranges, and each step needs stride and shape divisibility."""
    shapes, strides = coalesce_flat_ints(la[0], la[1], True)
    if type(shapes) is not tuple:
        shapes, strides = (shapes,), (strides,)
    alone = False
    if len(shapes) > 1:
        moving = [(d, d * n, n) for n, d in zip(lb[0], lb[1]) if n != 1 and d != 0]
        alone = len(moving) < 2
        if not alone:
            moving.sort()
            for (lo0, hi0, s0), (lo1, _, s1) in zip(moving, moving[1:]):
                if hi0 > lo1:
                    raise overlap_error(s0, lo0, hi0, s1, lo1, b)
    s, d = compose_ints(shapes, strides, b.shape, b.stride, alone)
    return Layout._make_ints(s, d)


def overlap_error(s0, lo0, hi0, s1, lo1, b):
    return NotAdmissibleError(
        "composition", "the modes of the right layout must address disjoint index ranges "
        f"(a mode {s0}:{lo0} covers [{lo0},{hi0}) and a mode {s1}:{lo1} starts at {lo1}), otherwise "
        "A o B differs from the mode-by-mode composition", f"right layout {b}")
