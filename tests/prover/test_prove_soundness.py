"""Soundness sweeps: every proved/refuted answer of the prover agrees with brute-force enumeration."""
import random

import pytest

import cuteverify as cv
from cuteverify import ComposedLayout, Layout, Swizzle
from cuteverify.prover import exact, tables
from cuteverify.prover.forms import decompose, norm_value
from cuteverify.prover.verdict import Collision, Verdict


def _rand_int_layout(rng):
    r = rng.randint(1, 5)
    shapes = [rng.choice([1, 2, 2, 3, 4, 4, 5, 8]) for _ in range(r)]
    mode = rng.random()
    strides = []
    cur = 1
    for s in shapes:
        if mode < 0.35:  # near-compact with perturbations: injective and near misses
            d = cur + rng.choice([0, 0, 0, -1, 1])
            cur = cur * s
        elif mode < 0.5:
            d = rng.choice([0, 1, 2, 3])
        elif mode < 0.6:
            d = rng.randint(-12, 12)
        else:
            d = rng.randint(0, 40)
        strides.append(d)
    rng.shuffle(strides)
    return Layout(tuple(shapes), tuple(strides))


def _rand_coord_layout(rng):
    r = rng.randint(1, 4)
    shapes = tuple(rng.choice([1, 2, 3, 4]) for _ in range(r))
    strides = tuple(cv.ScaledBasis(rng.choice([0, 1, 1, 2, 3, 4]), (rng.randint(0, 2),)) for _ in range(r))
    return Layout(shapes, strides)


def _rand_swizzle_layout(rng):
    b = rng.randint(0, 3)
    m = rng.randint(0, 3)
    s = rng.choice([b, b + 1, b + 2]) if b else rng.randint(0, 3)
    sw = Swizzle(b, m, s)
    if rng.random() < 0.5:
        shapes = tuple(rng.choice([2, 4, 8]) for _ in range(rng.randint(1, 3)))
        strides = tuple(rng.choice([1, 2, 4, 8, 16, 32, 64, 0]) for _ in shapes)
    else:
        L = _rand_int_layout(rng)
        shapes, strides = L.shape, tuple(abs(d) for d in L.stride)
    return ComposedLayout(sw, rng.choice([0, 0, 0, 8, 3]), Layout(shapes, strides))


def _size(L):
    return cv.size(L)


def _brute_injective(L):
    vals = [tuple(sorted(norm_value(v).items())) for v in L.values()]
    return len(set(vals)) == len(vals)


def _check_verdict(v, truth):
    assert v.status in ("proved", "refuted", "unknown")
    if v.status == "proved":
        assert truth, str(v)
    elif v.status == "refuted":
        assert not truth, str(v)
        assert v.counterexample is not None


GENERATORS = [("int", _rand_int_layout), ("coord", _rand_coord_layout), ("swizzle", _rand_swizzle_layout)]


@pytest.fixture(params=[False, True], ids=["enum-allowed", "no-enum"])
def enum_mode(request, monkeypatch):
    if request.param:
        monkeypatch.setattr(tables, "ENUM_LIMIT", 0)
        monkeypatch.setattr(tables, "ENUM_SURJ_LIMIT", 0)
    return request.param


@pytest.mark.parametrize("kind,gen", GENERATORS, ids=[g[0] for g in GENERATORS])
def test_injective_sweep(kind, gen, enum_mode):
    rng = random.Random(1234 + len(kind))
    decided = 0
    for _ in range(400):
        L = gen(rng)
        v = cv.is_injective(L)
        _check_verdict(v, _brute_injective(L))
        decided += v.status != "unknown"
        if v.status == "refuted":
            i, j = v.counterexample.coords
            assert i != j and norm_value(L(i)) == norm_value(L(j))
    assert decided == 400


@pytest.mark.parametrize("kind,gen", GENERATORS, ids=[g[0] for g in GENERATORS])
def test_bijective_sweep(kind, gen, enum_mode):
    rng = random.Random(99 + len(kind))
    decided = 0
    for _ in range(300):
        L = gen(rng)
        v = cv.is_bijective(L)
        if kind == "coord":
            f = decompose(L)
            sizes = exact.coord_sizes(f)
            vals = [norm_value(x) for x in L.values()]
            import itertools
            box = set()
            paths = sorted(sizes)
            for combo in itertools.product(*[range(sizes[p]) for p in paths]):
                box.add(tuple(sorted((p, c) for p, c in zip(paths, combo) if c)))
            truth = _brute_injective(L) and {tuple(sorted(x.items())) for x in vals} == box and \
                all(s > 0 or True for s in sizes.values())
            truth = truth and all(any(st is not None and st[0] == p for st in f.strides) for p in paths)
            # a zero-stride mode makes it non-injective anyway
            truth = truth and all(not (s > 1 and st is None) for s, st in zip(f.shapes, f.strides))
        else:
            truth = sorted(L.values()) == list(range(_size(L)))
        _check_verdict(v, truth)
        decided += v.status != "unknown"
    assert decided >= (150 if (enum_mode and kind == "swizzle") else 295)


@pytest.mark.parametrize("kind,gen", [g for g in GENERATORS if g[0] != "coord"], ids=["int", "swizzle"])
def test_surjective_sweep(kind, gen, enum_mode):
    rng = random.Random(7 + len(kind))
    decided = 0
    for _ in range(300):
        L = gen(rng)
        vals = set(L.values())
        n = rng.choice([None, _size(L), rng.randint(1, 2 * _size(L))])
        v = cv.is_surjective(L, n)
        nn = n if n is not None else max(vals) + 1
        truth = all(x in vals for x in range(nn))
        _check_verdict(v, truth)
        if v.status == "refuted":
            assert 0 <= v.counterexample.value < nn and v.counterexample.value not in vals
        decided += v.status != "unknown"
    assert decided >= (50 if (enum_mode and kind == "swizzle") else 280)


@pytest.mark.parametrize("kind,gen", GENERATORS, ids=[g[0] for g in GENERATORS])
def test_equal_sweep(kind, gen, enum_mode):
    rng = random.Random(31 + len(kind))
    decided = 0
    for _ in range(300):
        A = gen(rng)
        choice = rng.random()
        if choice < 0.4 and kind == "int":
            B = cv.coalesce(A)
        elif choice < 0.6:
            B = A
        else:
            B = gen(rng)
        v = cv.are_equal(A, B)
        if _size(A) != _size(B):
            # different domains are different functions: refuted, with the sizes as the witness
            assert v.status == "refuted" and v.counterexample.kind == "mismatch"
            continue
        truth = all(norm_value(x) == norm_value(y) for x, y in zip(A.values(), B.values()))
        _check_verdict(v, truth)
        if v.status == "refuted":
            i = v.counterexample.coords[0]
            assert norm_value(A(i)) != norm_value(B(i))
        decided += v.status != "unknown"
    assert decided > 0


def test_complement_disjoint_sweep():
    rng = random.Random(5)
    proved = 0
    for _ in range(200):
        L = _rand_int_layout(rng)
        L = Layout(L.shape, tuple(abs(d) for d in L.stride))
        M = rng.choice([None, 256, 1024])
        v = cv.complement_disjoint(L, M)
        if v.status == "unknown":
            assert "not admissible" in (v.reason or "")
            continue
        R = cv.complement(L, M)
        ia, ir = set(L.values()), set(R.values())
        cover = M if M is not None else cv.cosize(L)
        AR = cv.make_layout(cv.filter(L), R)
        truth = ia & ir <= {0} and _brute_injective(AR) and set(range(cover)) <= set(AR.values())
        _check_verdict(v, truth)
        proved += v.status == "proved"
    assert proved > 20


def test_large_adversarial():
    # 2^40-sized near misses decided without enumeration, witnesses far apart
    L = Layout((1 << 20, 1 << 20, 3), (1, 1 << 20, (1 << 40) - 1))
    v = cv.is_injective(L)
    assert v.status == "refuted"
    i, j = v.counterexample.coords
    assert L(i) == L(j) and i != j
    L = Layout(tuple([2] * 40), tuple(1 << i for i in range(40)))
    assert cv.is_bijective(L).status == "proved"
    L = Layout(tuple([3] * 20), tuple(3 ** i for i in range(20)))
    assert cv.is_bijective(L).status == "proved"
    L = Layout(tuple([4] + [3] * 19), tuple(3 ** i for i in range(20)))
    v = cv.is_injective(L)
    assert v.status == "refuted"


def test_internal_recheck_catches_bad_witness(monkeypatch):
    from cuteverify.prover import pipeline

    def bad(f):
        return Verdict("refuted", method="fake", counterexample=Collision(coords=(0, 1)))
    monkeypatch.setattr(exact, "injective", bad)
    v = cv.is_injective("(4,8):(1,4)")
    assert v.status == "unknown" and v.reason.startswith(pipeline.INTERNAL)


def test_verdict_api():
    v = cv.is_injective("(4,8):(1,2)")
    assert not v and v.status == "refuted" and v.method
    d = v.to_json()
    import json
    json.dumps(d)
    assert d["counterexample"]["kind"] == "collision"
    assert "REFUTED" in str(v)
    assert bool(cv.is_injective("(4,8):(1,4)"))
