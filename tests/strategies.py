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


# --- an independent evaluator (shares no code with cuteverify: parses printed forms itself) -------------
# Used by the post-condition tests to evaluate inputs, CuTe C++'s results (the committed corpus) and
# cuteverify's results. A layout here is a pair (shape, stride) of nested tuples of ints.

def parse_plain(text):
    """``(shape, stride)`` of a plain layout printed by cuteverify or CuTe C++ (``_4`` static marks
    allowed), or None for anything else (swizzles, coordinate strides, tilers)."""
    t = text.replace(" ", "").replace("_", "")
    if "@" in t or "<" in t or " o " in text or t.count(":") != 1:
        return None
    a, b = t.split(":")
    try:
        shape, stride = _tup(a), _tup(b)
    except (ValueError, IndexError):
        return None
    return (shape, stride) if _congruent(shape, stride) else None


def parse_tiler(text):
    """A tiler ``<B0, B1, ...>`` (items: layouts or ints n, read as n:1) as a list of layouts, or None."""
    t = text.strip()
    if not (t.startswith("<") and t.endswith(">")):
        return None
    items, depth, cur = [], 0, ""
    for ch in t[1:-1]:
        depth += ch in "(<"
        depth -= ch in ")>"
        if ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += ch
    items.append(cur.strip())
    out = []
    for x in items:
        if x.lstrip("-").isdigit():
            out.append((int(x), 1))
        else:
            lay = parse_plain(x)
            if lay is None:
                return None
            out.append(lay)
    return out


def _tup(s):
    def node(i):
        if s[i] == "(":
            xs, i = [], i + 1
            while True:
                x, i = node(i)
                xs.append(x)
                if s[i] == ")":
                    return tuple(xs), i + 1
                if s[i] != ",":
                    raise ValueError(s)
                i += 1
        j = i + (s[i] == "-")
        while j < len(s) and s[j].isdigit():
            j += 1
        return int(s[i:j]), j
    x, i = node(0)
    if i != len(s):
        raise ValueError(s)
    return x


def _congruent(a, b):
    if type(a) is tuple:
        return type(b) is tuple and len(a) == len(b) and all(map(_congruent, a, b))
    return type(b) is not tuple


def flat(x):
    return [y for e in x for y in flat(e)] if type(x) is tuple else [x]


def size_of(lay):
    n = 1
    for s in flat(lay[0]):
        n *= s
    return n


def cosize_of(lay):
    """``L(size-1) + 1`` (non-negative strides)."""
    return 1 + sum((s - 1) * d for s, d in zip(flat(lay[0]), flat(lay[1])))


def ev(lay, i):
    """``L(i)`` for a flat index ``i``: colexicographic over the flattened leaves, the last leaf not reduced
    (the extended domain, ALGEBRA.md section 1); a negative index divides as C++ does."""
    s, d = flat(lay[0]), flat(lay[1])
    total = 0
    for k, (n, st) in enumerate(zip(s, d)):
        if k == len(s) - 1:
            return total + i * st
        q = abs(i) // n * (1 if i >= 0 else -1)  # C++'s / and % (CuTe's idx2crd) truncate toward zero
        total += (i - q * n) * st
        i = q
    return total


def values(lay):
    return [ev(lay, i) for i in range(size_of(lay))]


def rank_of(lay):
    return len(lay[0]) if type(lay[0]) is tuple else 1


def mode(lay, m):
    """Top-level mode ``m`` (a non-tuple layout is its own mode 0; past the rank: ``1:0``, as CuTe's
    ``append`` pads)."""
    if type(lay[0]) is tuple:
        return (lay[0][m], lay[1][m]) if m < len(lay[0]) else (1, 0)
    return lay if m == 0 else (1, 0)


def cute_complement(lay, m):
    """CuTe's construction (ALGEBRA.md section 3), written out here: drop stride-0 and size-1 modes, sort by
    stride, each mode ``s:d`` contributes ``d // cur : cur`` and sets ``cur = d*s``, then ``ceil(m/cur) : cur``
    (a shape ``m``: CuTe's ``ceil_div(m, cur)`` mode by mode). None where CuTe rejects (``d < cur``) or builds
    no layout (negative strides, size 0)."""
    modes = sorted((d, s) for s, d in zip(flat(lay[0]), flat(lay[1])) if d != 0 and s != 1)
    if any(d < 0 or s <= 0 for d, s in modes) or min(flat(m)) <= 0:
        return None
    shape, stride, cur = [], [], 1
    for d, s in modes:
        if d < cur:
            return None
        shape.append(d // cur)
        stride.append(cur)
        cur = d * s
    rest = cur
    for a in flat(m):
        q = -(-a // rest)
        rest = -(-rest // a)
        shape.append(q)
        stride.append(cur)
        cur *= q
    return tuple(shape), tuple(stride)


def coalesce_of(lay):
    """Size-1 leaves dropped and neighbours ``s0:d0, s1:s0*d0`` merged (the same function on [0, size))."""
    out = []
    for s, d in zip(flat(lay[0]), flat(lay[1])):
        if s == 1:
            continue
        if out and d == out[-1][0] * out[-1][1]:
            out[-1] = (out[-1][0] * s, out[-1][1])
        else:
            out.append((s, d))
    if not out:
        return 1, 0
    if len(out) == 1:
        return out[0]
    return tuple(s for s, _ in out), tuple(d for _, d in out)


def nests(lay):
    """The sorted non-trivial strides nest: ``cur`` divides each in turn (Shah Def. 2.5)."""
    cur = 1
    for d, s in sorted((d, s) for s, d in zip(flat(lay[0]), flat(lay[1])) if d != 0 and s != 1):
        if d % cur:
            return False
        cur = d * s
    return True
