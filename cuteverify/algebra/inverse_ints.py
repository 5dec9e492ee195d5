"""The plain-int fast paths of ``right_inverse`` and ``left_inverse`` (algebra/inverse.py): CuTe's
constructions on the leaves of a concrete integer layout, without the decision interface; each returns None
where the general path is needed (it makes the notes, refusals and CuTe's order of equal strides)."""
from __future__ import annotations

from ..core.kernels import coalesce_ints
from ..core.layout import Layout


def right_inverse_ints(fs, fd):
    """``right_inverse`` of a plain-int layout given by its leaves (the concrete fast path), or None where
    the general walk is needed (equal strides, whose order CuTe's sort decides, or modes of size 0)."""
    r = coalesce_ints(fs, fd, False)
    shapes, strides = (r[0], r[1]) if type(r[0]) is tuple else ((r[0],), (r[1],))
    at = {}
    cur = 1
    for s, d in zip(shapes, strides):
        if s <= 0 or d in at:
            return None
        at[d] = (s, cur)
        cur *= s
    # with distinct strides, CuTe's pass over the sorted modes takes exactly the chain 1, s0, s0*s1, ...
    rs, rd = [], []
    want = 1
    while want in at:
        s, p = at.pop(want)
        rs.append(s)
        rd.append(p)
        want *= s
    if not rs:
        return Layout._make(1, 0)
    # coalescing R would change nothing: every size is >= 2, and chain modes k, k+1 with positions
    # p' == s*p would be neighbours of L with d' == s*d, which L's coalesce merged
    if len(rs) == 1:
        return Layout._make_ints(rs[0], rd[0], flat=True)
    return Layout._make_ints(tuple(rs), tuple(rd), flat=True)


def left_inverse_ints(fs, fd):
    """``left_inverse`` of a plain-int layout given by its leaves (the concrete fast path): the same
    construction where every kept mode has a positive stride, each stride divides the next and no mode
    overlaps the next; None elsewhere (stride-0 and overlapping modes carry notes, negative strides and
    refusals take the general path)."""
    r = coalesce_ints(fs, fd, False)
    shapes, strides = (r[0], r[1]) if type(r[0]) is tuple else ((r[0],), (r[1],))
    modes = []
    cur = 1
    for s, d in zip(shapes, strides):
        if s <= 0 or d <= 0:
            return None
        modes.append((d, s, cur))
        cur *= s
    if len(set(strides)) != len(strides):
        return None  # equal strides: CuTe's unstable sort decides (the general path's _cute_order)
    modes.sort()
    rs, rd = [], []
    d0 = modes[0][0]
    if d0 != 1:
        rs.append(d0)
        rd.append(0)
    for k in range(len(modes) - 1):
        d, s, p = modes[k]
        nd = modes[k + 1][0]
        if nd % d or s > nd // d:
            return None
        rs.append(nd // d)
        rd.append(p)
    rs.append(modes[-1][1])
    rd.append(modes[-1][2])
    return Layout._make_ints(*coalesce_ints(rs, rd, False), flat=True)
