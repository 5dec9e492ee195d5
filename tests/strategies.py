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
    from cuteverify.core.tuples import product
    if product(s) > max_size:
        return draw(SMALL)
    return s


@st.composite
def layouts(draw, max_rank=4, max_depth=3, max_size=4096, strides=STRIDE):
    s = draw(shapes(max_rank, max_depth, max_size))
    from cuteverify.core.tuples import transform
    d = transform(s, lambda _: draw(strides))
    return cv.Layout(s, d)


@st.composite
def injective_layouts(draw, max_rank=4, max_size=1024):
    """Compact layouts with permuted, possibly padded modes: always injective."""
    import random
    flat = draw(st.lists(st.sampled_from([2, 2, 3, 4, 5, 8]), min_size=1, max_size=max_rank + 1))
    from cuteverify.core.tuples import product
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


# --- seeded generators for batched differential runs (a fixed stream of cases, not hypothesis) ---------

def rand_shape(rng, depth=2):
    k = rng.randint(1, 3)
    out = []
    for _ in range(k):
        if depth > 0 and rng.random() < 0.25:
            out.append(rand_shape(rng, depth - 1))
        else:
            out.append(rng.choice([1, 2, 2, 3, 4, 4, 6, 8]))
    return tuple(out) if k > 1 or rng.random() < 0.2 else out[0]


def rand_layout(rng, injective_bias=0.6, max_size=2048):
    """A random concrete layout: with probability ``injective_bias`` a permuted, possibly padded compact
    layout (injective), else arbitrary small strides (zeros included)."""
    from cuteverify.core.tuples import flatten, product, unflatten
    while True:
        s = rand_shape(rng)
        if product(s) <= max_size:
            break
    flat = list(flatten(s))
    if rng.random() < injective_bias:
        order = list(range(len(flat)))
        rng.shuffle(order)
        strides = [0] * len(flat)
        cur = 1
        for i in order:
            strides[i] = cur
            cur *= flat[i] * rng.choice([1, 1, 1, 2, 3])
    else:
        strides = [rng.choice([0, 1, 2, 3, 4, 6, 8, 16]) for _ in flat]
    return cv.Layout(s, unflatten(strides, s))
