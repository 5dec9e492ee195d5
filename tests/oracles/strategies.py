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


# --- post-conditions of the algebra on printed layouts (ALGEBRA.md section 3, CuTe C++'s definitions) ----
# Each ``post_<op>(args, R)`` takes the operation's arguments as text (a layout, a tiler ``<...>``, an integer
# cotarget) and a result ``R = (shape, stride)``; it raises AssertionError naming what fails, and
# NotEvaluable where the post-condition is outside what this evaluator covers (swizzles, coordinate strides,
# a composition that needs a layout at a negative index). Divides and products take CuTe's own complement
# (``cute_complement``) as the definition does.

class NotEvaluable(Exception):
    pass


def _lay(text):
    lay = parse_plain(text)
    if lay is None:
        raise NotEvaluable(text)
    return lay


def _rhs(text):
    """A right operand: a layout, or a tiler (a list of layouts)."""
    t = parse_tiler(text)
    if t is not None:
        return t
    return _lay(text)


def at(lay, x):
    """``lay(x)`` where a composition's post-condition fixes it: on ``lay``'s domain, and past it (its
    extended domain) only where ``lay`` has no size-1 leaf, since CuTe drops or keeps those depending on the
    representation; None (unconstrained) elsewhere. A negative index is outside every domain the algebra
    defines (CuTe C++'s answers there follow no evaluation rule): the case is not evaluable."""
    if x is None:
        return None
    if x < 0:
        raise NotEvaluable("a negative index")
    if x < size_of(lay) or 1 not in flat(lay[0]):
        return ev(lay, x)
    return None


def _check(ok, why):
    if not ok:
        raise AssertionError(why)


def _same_on(R, f, n, what):
    _check(all(s >= 1 for s in flat(R[0])), f"{what}: not a layout (a shape entry below 1)")
    _check(size_of(R) == n, f"{what}: size {size_of(R)}, expected {n}")
    for i in range(n):
        want = f(i)
        _check(want is None or ev(R, i) == want, f"{what} at {i}: {ev(R, i)}, expected {want}")


def post_composition(args, R):
    A, B = _lay(args[0]), _rhs(args[1])
    if type(B) is list:
        # CuTe C++ composes mode by mode and keeps the tiler's modes only
        _check(rank_of(R) == len(B) or len(B) == 1 and rank_of(R) == 1, f"rank {rank_of(R)}, not {len(B)}")
        for m, Bm in enumerate(B):
            Am, Rm = mode(A, m), mode(R, m)
            _same_on(Rm, lambda i: at(Am, ev(Bm, i)), size_of(Bm), f"mode {m}")
    else:
        _same_on(R, lambda i: at(A, ev(B, i)), size_of(B), "R(i) == A(B(i))")


def _divide_mode(Am, Bm, Rm, what):
    C = cute_complement(Bm, coalesce_of(Am)[0])  # CuTe: complement(tiler, shape(coalesce(layout)))
    if C is None:
        raise NotEvaluable("complement")
    sb = size_of(Bm)
    _same_on(Rm, lambda k: at(Am, ev(Bm, k % sb) + ev(C, k // sb)), sb * size_of(C), what)
    _check(size_of(mode(Rm, 0)) == sb, f"{what}: the tile mode has size {size_of(mode(Rm, 0))}, not {sb}")


def post_logical_divide(args, R):
    A, B = _lay(args[0]), _rhs(args[1])
    if type(B) is list:
        for m in range(max(rank_of(A), len(B))):
            if m < len(B):
                _divide_mode(mode(A, m), B[m], mode(R, m), f"mode {m}")
            else:
                _same_on(mode(R, m), lambda i: ev(mode(A, m), i), size_of(mode(A, m)), f"mode {m}")
    else:
        _check(rank_of(R) == 2, f"rank {rank_of(R)}")
        _divide_mode(A, B, R, "A o (B, complement(B, size(A)))")


def post_zipped_divide(args, R):
    A, B = _lay(args[0]), _rhs(args[1])
    if type(B) is not list:
        return post_logical_divide(args, R)
    _check(rank_of(R) == 2, f"rank {rank_of(R)}")
    T, Rest = mode(R, 0), mode(R, 1)
    for m in range(max(rank_of(A), len(B))):
        Am = mode(A, m)
        if m < len(B):
            Bm = B[m]
            C = cute_complement(Bm, coalesce_of(Am)[0])
            if C is None:
                raise NotEvaluable("complement")
            _same_on(mode(T, m), lambda i: at(Am, ev(Bm, i)), size_of(Bm), f"tile {m}")
            _same_on(mode(Rest, m), lambda j: at(Am, ev(C, j)), size_of(C), f"rest {m}")
        else:
            _same_on(mode(Rest, m), lambda j: ev(Am, j), size_of(Am), f"rest {m}")


def _add(a, b):
    return None if a is None or b is None else a + b


def _product_mode(Am, Bm, Rm, what, raked=False, C=None):
    if C is None:
        C = cute_complement(Am, size_of(Am) * cosize_of(Bm))
    if C is None or any(d < 0 for d in flat(Bm[1])):
        raise NotEvaluable("complement")
    sa, sb = size_of(Am), size_of(Bm)
    if raked:
        f = lambda k: _add(at(C, ev(Bm, k % sb)), ev(Am, k // sb))
    else:
        f = lambda k: _add(ev(Am, k % sa), at(C, ev(Bm, k // sa)))
    _same_on(Rm, f, sa * sb, what)


def post_logical_product(args, R):
    A, B = _lay(args[0]), _rhs(args[1])
    if type(B) is list:
        for m in range(max(rank_of(A), len(B))):
            if m < len(B):
                Rm = mode(R, m)
                _product_mode(mode(A, m), B[m], Rm, f"mode {m}")
                _check(size_of(mode(Rm, 0)) == size_of(mode(A, m)), f"mode {m}: block size")
            else:
                _same_on(mode(R, m), lambda i: ev(mode(A, m), i), size_of(mode(A, m)), f"mode {m}")
    else:
        _check(rank_of(R) == 2 and size_of(mode(R, 0)) == size_of(A), "(A, complement(A) o B): block mode")
        _product_mode(A, B, R, "(A, complement(A, size(A)*cosize(B)) o B)")


def _blocked(args, R, raked):
    A, B = _lay(args[0]), _lay(args[1])
    r = max(rank_of(A), rank_of(B))
    _check(rank_of(R) == r, f"rank {rank_of(R)}, expected {r}")
    # CuTe pads both to rank r with 1:0 and takes one complement of the whole padded block
    Ap = (tuple(mode(A, m)[0] for m in range(r)), tuple(mode(A, m)[1] for m in range(r)))
    Bp = (tuple(mode(B, m)[0] for m in range(r)), tuple(mode(B, m)[1] for m in range(r)))
    if any(d < 0 for d in flat(Bp[1])):
        raise NotEvaluable("negative")
    C = cute_complement(Ap, size_of(Ap) * cosize_of(Bp))
    for m in range(r):
        _product_mode(mode(Ap, m), mode(Bp, m), mode(R, m), f"mode {m}", raked, C)


def post_blocked_product(args, R):
    _blocked(args, R, False)


def post_raked_product(args, R):
    _blocked(args, R, True)


def post_complement(args, R):
    A = _lay(args[0])
    M = int(args[1]) if len(args) > 1 and args[1] is not None else cosize_of(A)
    if any(s <= 0 for s in flat(A[0])):
        raise NotEvaluable("size 0")
    _check(all(s >= 1 for s in flat(R[0])), "not a layout (a shape entry below 1)")
    rv = values(R)
    _check(all(rv[i] < rv[i + 1] for i in range(len(rv) - 1)), "R is not ordered")
    _check(not (set(rv) & set(values(A))) - {0}, "R meets A away from 0")
    if nests(A) and all(d >= 0 for d in flat(A[1])):
        live = [(s, d) for s, d in zip(flat(A[0]), flat(A[1])) if d != 0 and s != 1]
        full = (tuple(s for s, _ in live) + (R[0],), tuple(d for _, d in live) + (R[1],))
        fv = values(full)
        _check(len(set(fv)) == len(fv) and set(range(M)) <= set(fv), "(A, R) is no bijection covering [0, M)")


def post_left_inverse(args, R):
    L = _lay(args[0])
    _check(all(s >= 1 for s in flat(R[0])), "not a layout (a shape entry below 1)")
    lv = values(L)
    inj = len(set(lv)) == len(lv)
    for i, x in enumerate(lv):
        if inj:
            _check(ev(R, x) == i, f"R(L({i})) = {ev(R, x)}")
        else:
            _check(ev(L, ev(R, x)) == x, f"L(R(L({i}))) != L({i})")


def post_right_inverse(args, R):
    L = _lay(args[0])
    for i in range(size_of(R)):
        _check(ev(L, ev(R, i)) == i, f"L(R({i})) = {ev(L, ev(R, i))}")


POST = {"composition": post_composition, "logical_divide": post_logical_divide,
        "zipped_divide": post_zipped_divide, "logical_product": post_logical_product,
        "blocked_product": post_blocked_product, "raked_product": post_raked_product,
        "complement": post_complement, "left_inverse": post_left_inverse, "right_inverse": post_right_inverse}


def holds(op, args, R):
    """True / False: the post-condition of ``op`` on ``args`` holds for ``R`` (a (shape, stride) pair);
    None where it is not evaluable here."""
    try:
        POST[op](args, R)
    except NotEvaluable:
        return None
    except AssertionError:
        return False
    return True
