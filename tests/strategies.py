"""Hypothesis strategies for concrete layouts (ranks up to 4, depth up to 3, bounded sizes)."""
from __future__ import annotations

from hypothesis import strategies as st

import cuteverify as cv

SMALL = st.sampled_from([1, 2, 2, 3, 4, 4, 5, 6, 8])
STRIDE = st.sampled_from([0, 1, 1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 64])


@st.composite
def shapes(draw, max_rank=4, max_depth=3, max_size=4096):
    def node(d):
        if d == 0 or draw(st.integers(0, 3)) > 0:
            return draw(SMALL)
        return tuple(node(d - 1) for _ in range(draw(st.integers(1, 3))))

    r = draw(st.integers(1, max_rank))
    s = node(max_depth) if r == 1 else tuple(node(max_depth - 1) for _ in range(r))
    from cuteverify.tuples import product
    if product(s) > max_size:
        return draw(SMALL)
    return s


@st.composite
def layouts(draw, max_rank=4, max_depth=3, max_size=4096, strides=STRIDE):
    s = draw(shapes(max_rank, max_depth, max_size))
    from cuteverify.tuples import transform
    d = transform(s, lambda _: draw(strides))
    return cv.Layout(s, d)


@st.composite
def injective_layouts(draw, max_rank=4, max_size=1024):
    """Compact layouts with permuted, possibly padded modes: always injective."""
    import random
    flat = draw(st.lists(st.sampled_from([2, 2, 3, 4, 5, 8]), min_size=1, max_size=max_rank + 1))
    from cuteverify.tuples import product
    while product(tuple(flat)) > max_size and len(flat) > 1:
        flat.pop()
    order = draw(st.permutations(range(len(flat))))
    pads = [draw(st.sampled_from([1, 1, 1, 2])) for _ in flat]
    strides = [0] * len(flat)
    cur = 1
    for i in order:
        strides[i] = cur
        cur = cur * flat[i] * pads[i]
    return cv.Layout(tuple(flat) if len(flat) > 1 else flat[0], tuple(strides) if len(flat) > 1 else strides[0])
