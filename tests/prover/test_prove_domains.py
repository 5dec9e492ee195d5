"""Soundness sweeps per stride domain (integer incl. negative, F2, mixed F2/integer, coordinate E<i>,
swizzled): every proved / refuted verdict of every query agrees with a brute-force evaluation written here,
independently of the library (its own walk over shapes and strides; docs/model.md section 2 and 9)."""
import random

import pytest

import cuteverify as cv
from cuteverify import ComposedLayout, Layout, ScaledBasis, Swizzle
from cuteverify.core.strides import F2
from cuteverify.prover import tables

# --- an independent evaluator ---------------------------------------------------------------------------
# A value is ("int", n), ("f2", n) or ("coord", (n0, n1, n2)). Mode terms fold left to right: two integer
# terms add, a fold that involves an F2 term XORs (the F2 semimodule: scalars multiply as integers, elements
# add by XOR); nesting groups the fold.


def _leaf(c, d):
    if isinstance(d, F2):
        return ("f2", c * d.value)
    if isinstance(d, ScaledBasis):
        v = [0, 0, 0]
        v[d.path[0]] = c * d.value
        return ("coord", tuple(v))
    return ("int", c * d)


def _combine(a, b):
    if a[0] == "coord" or b[0] == "coord":
        x = a[1] if a[0] == "coord" else (0, 0, 0)
        y = b[1] if b[0] == "coord" else (0, 0, 0)
        return ("coord", tuple(p + q for p, q in zip(x, y)))
    if a[0] == "f2" or b[0] == "f2":
        return ("f2", a[1] ^ b[1])
    return ("int", a[1] + b[1])


def _size_of(s):
    if type(s) is tuple:
        out = 1
        for x in s:
            out *= _size_of(x)
        return out
    return s


def _walk(idx, s, d):
    if type(s) is tuple:
        total = ("int", 0)
        for k, (sk, dk) in enumerate(zip(s, d)):
            n = _size_of(sk)
            c = idx if k == len(s) - 1 else idx % n
            idx //= n
            total = _combine(total, _walk(c, sk, dk))
        return total
    return _leaf(idx, d)


def _flat(t):
    return [y for x in t for y in _flat(x)] if type(t) is tuple else [t]


def _swz(sw, x):
    b, m, s = sw
    mask = ((1 << b) - 1) << (m + max(s, 0))
    return x ^ ((x & mask) >> s) if s >= 0 else x ^ ((x & mask) << -s)


def _table(L):
    """Every value of ``L`` on ``[0, size)``: ints, or coordinate triples."""
    if isinstance(L, ComposedLayout):
        sw = (L.inner.bits, L.inner.base, L.inner.shift)
        return [_swz(sw, L.offset + _walk(i, L.outer.shape, L.outer.stride)[1])
                for i in range(_size_of(L.outer.shape))]
    return [_walk(i, L.shape, L.stride)[1] for i in range(_size_of(L.shape))]


# --- families -------------------------------------------------------------------------------------------

def _shapes(rng, pow2=False):
    r = rng.randint(1, 4)
    pool = [1, 2, 2, 4, 4, 8] if pow2 else [1, 2, 2, 3, 4, 5, 8]
    return tuple(rng.choice(pool) for _ in range(r))


def _int(rng):
    shapes = _shapes(rng)
    cur, out = 1, []
    for s in shapes:
        d = rng.choice([cur, cur, cur + 1, -cur, rng.randint(-12, 12), rng.randint(0, 40), 0])
        out.append(d)
        cur *= s
    rng.shuffle(out)
    return Layout(shapes, tuple(out))


def _f2_stride(rng):
    return F2(rng.choice([0, 1, 2, 4, 8, 16, 3, 5, 6, 7, 12, 9, rng.randint(0, 64)]))


def _f2(rng):
    shapes = _shapes(rng, pow2=rng.random() < 0.7)
    strides = [_f2_stride(rng) if rng.random() < 0.9 else 0 for _ in shapes]
    if rng.random() < 0.3 and len(shapes) >= 2:  # nested
        return Layout((shapes[0], tuple(shapes[1:])), (strides[0], tuple(strides[1:])))
    return Layout(shapes, tuple(strides))


def _mixed(rng):
    """F2 next to non-zero integer strides. The constructor refuses them (their value depends on the order in
    which modes fold); the algebra's internal constructor does not check, so the prover must stay sound on them."""
    shapes = _shapes(rng, pow2=rng.random() < 0.5)
    strides = [_f2_stride(rng) if rng.random() < 0.5 else rng.choice([1, 2, 3, 4, 8, -2]) for _ in shapes]
    if not any(isinstance(d, F2) for d in strides):
        strides[0] = F2(1)
    if rng.random() < 0.4 and len(shapes) >= 2:
        return Layout._make((tuple(shapes[:-1]), shapes[-1]), (tuple(strides[:-1]), strides[-1]))
    if rng.random() < 0.4 and len(shapes) >= 2:
        return Layout._make((shapes[0], tuple(shapes[1:])), (strides[0], tuple(strides[1:])))
    return Layout._make(tuple(shapes), tuple(strides))


def _coord(rng):
    shapes = _shapes(rng)
    return Layout(shapes, tuple(ScaledBasis(rng.choice([0, 1, 1, 2, 3, 4]), (rng.randint(0, 2),)) for _ in shapes))


def _swizzled(rng):
    b = rng.randint(0, 3)
    m = rng.randint(0, 3)
    s = rng.choice([b, b + 1, b + 2]) * rng.choice([1, 1, -1]) if b else rng.randint(0, 3)
    inner = _int(rng)
    if rng.random() < 0.5:
        inner = Layout(inner.shape, tuple(abs(d) for d in inner.stride))
    return ComposedLayout(Swizzle(b, m, s), rng.choice([0, 0, 0, 8, 3]), inner)


FAMILIES = {"int": _int, "f2": _f2, "mixed": _mixed, "coord": _coord, "swizzle": _swizzled}
UNKNOWN = {}
MODE = ["enum"]


def _check(v, truth, family, query):
    assert v.status in ("proved", "refuted", "unknown"), str(v)
    if v.status == "proved":
        assert truth, f"wrong proof: {v}"
    elif v.status == "refuted":
        assert not truth, f"wrong refutation: {v}"
    key = (family, query, MODE[0])
    n, u = UNKNOWN.get(key, (0, 0))
    UNKNOWN[key] = (n + 1, u + (v.status == "unknown"))


@pytest.fixture(params=[False, True], ids=["enum", "no-enum"])
def no_enum(request, monkeypatch):
    MODE[0] = "no-enum" if request.param else "enum"
    if request.param:
        monkeypatch.setattr(tables, "ENUM_LIMIT", 0)
        monkeypatch.setattr(tables, "ENUM_SURJ_LIMIT", 0)
    return request.param


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_injective_bijective_surjective(family, no_enum):
    rng = random.Random(sum(map(ord, family)) + 17)
    gen = FAMILIES[family]
    for _ in range(250):
        L = gen(rng)
        t = _table(L)
        distinct = len(set(t)) == len(t)
        _check(cv.is_injective(L), distinct, family, "injective")
        if family != "coord":
            _check(cv.is_bijective(L), distinct and set(t) == set(range(len(t))), family, "bijective")
            n = rng.choice([None, len(t), rng.randint(1, 2 * len(t) + 2)])
            nn = max(t) + 1 if n is None else n
            v = cv.is_surjective(L, n)
            _check(v, set(range(nn)) <= set(t), family, "surjective")
            if v.status == "refuted":
                assert v.counterexample.value not in t and 0 <= v.counterexample.value < nn


def _partner(rng, family, A):
    """A layout often equal to A as a function, written another way (another stride domain or shape)."""
    r = rng.random()
    if r < 0.25:
        return FAMILIES[family](rng)
    if isinstance(A, ComposedLayout):
        return ComposedLayout(A.inner, A.offset, cv.coalesce(A.outer)) if r < 0.6 else A
    flat_s, flat_d = _flat(A.shape), _flat(A.stride)
    if r < 0.5:  # the same strides in the other domain
        other = tuple(F2(d) if type(d) is int and d >= 0 else (d.value if isinstance(d, F2) else d) for d in flat_d)
        return Layout._make(tuple(flat_s), other)  # may mix domains (see _mixed)
    if r < 0.75:  # split a power-of-two mode in two, keeping the stride domain (equal only when linear)
        out_s, out_d = [], []
        for s, d in zip(flat_s, flat_d):
            if s % 2 == 0 and s > 2 and not isinstance(d, ScaledBasis):
                out_s += [2, s // 2]
                out_d += [d, d * 2]
            else:
                out_s.append(s)
                out_d.append(d)
        return Layout._make(tuple(out_s), tuple(out_d))
    return Layout._make(A.shape, A.stride)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_equal(family, no_enum):
    rng = random.Random(sum(map(ord, family)) + 5)
    gen = FAMILIES[family]
    for _ in range(250):
        A = gen(rng)
        B = _partner(rng, family, A)
        ta, tb = _table(A), _table(B)
        v = cv.are_equal(A, B)
        _check(v, len(ta) == len(tb) and ta == tb, family, "equal")
        if v.status == "refuted" and v.counterexample.kind == "differ":
            i = v.counterexample.coords[0]
            assert ta[i] != tb[i]


@pytest.mark.parametrize("family", ["int", "f2"])
def test_complement_disjoint(family):
    MODE[0] = "enum"
    rng = random.Random(sum(map(ord, family)) + 3)
    gen = FAMILIES[family]
    for _ in range(200):
        A = gen(rng)
        cot = rng.choice([None, 64, 256])
        v = cv.complement_disjoint(A, cot)
        if v.status == "unknown":
            if v.method != "algebra":  # a complement that is not admissible is no question to the prover
                _check(v, None, family, "disjoint")
            continue
        R = cv.complement(A, cot)
        ia, ir = _table(A), _table(R)
        # the images of A and R meet only at 0, and the layout (A, R) covers [0, cotarget)
        both = _table(Layout._make((A.shape, R.shape), (A.stride, R.stride)))
        cover = cot if cot is not None else cv.cosize(A)
        truth = set(ia) & set(ir) <= {0} and set(range(cover)) <= set(both)
        _check(v, truth, family, "disjoint")


def test_reported_cases():
    assert cv.are_equal("4:^3", "(2,2):(^3,^6)").status == "refuted"
    assert cv.are_equal("(2,2):(1,1)", "(2,2):(^1,^1)").status == "refuted"
    assert cv.are_equal("(2,2):(^1,^2)", "4:1").status == "proved"
    assert cv.are_equal("(2,4):(^1,^2)", "(2,2,2):(^1,^2,^4)").status == "proved"
    assert cv.is_bijective("(2,2,2):(^3,^1,^4)").status == "proved"
    # a large GF(2)-linear layout is decided by rank, without enumeration
    L = Layout(tuple([2] * 40), tuple(F2((1 << i) | (1 << (i + 1) if i < 39 else 0)) for i in range(40)))
    v = cv.is_bijective(L)
    assert v.status == "proved" and v.method == "f2-rank", str(v)
    L = Layout(tuple([2] * 40), tuple(F2(1 << i) for i in range(39)) + (F2(3),))  # ^1 ^ ^2 ^ ^3 == 0
    v = cv.is_injective(L)
    assert v.status == "refuted", str(v)
    i, j = v.counterexample.coords
    assert i != j and _table_at(L, i) == _table_at(L, j)
    # beyond enumeration and not linear: a bit-vector query
    L = Layout((3, 1 << 13, 2), (F2(5), F2(4), F2(1 << 15)))  # the low two bits tell the first digit
    v = cv.is_injective(L)
    assert v.status == "proved" and "bitvector" in v.method, str(v)
    L = Layout((3, 1 << 13, 2), (F2(1), F2(2), F2(1 << 15)))  # 2 ^ 0 == 0 ^ 2
    v = cv.is_injective(L)
    assert v.status == "refuted" and "bitvector" in v.method, str(v)
    i, j = v.counterexample.coords
    assert i != j and _table_at(L, i) == _table_at(L, j)


def _table_at(L, i):
    return _walk(i, L.shape, L.stride)[1]


def test_report_unknown_rates(capsys):
    """Not a check: prints the unknown rate per family and query of the sweeps that ran before it."""
    with capsys.disabled():
        for (family, query, mode), (n, u) in sorted(UNKNOWN.items()):
            print(f"\n  unknown {family:8s} {query:10s} {mode:8s} {u:4d}/{n:4d} ({100 * u / n:.0f}%)", end="")
