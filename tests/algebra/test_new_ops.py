"""The NVlabs reference's operations (issue 26 part 4): nullspace, layout_add, greatest_common_domain, coalesce_z,
``mode=`` on every operation, and the size-1 stride convention.

Post-conditions are checked on printed results with the independent evaluator of tests/oracles/strategies.py (plus a
small F2 evaluator here); facts come from the reference's docstrings, CUTLASS's unit tests (cases.json), CuTe
IR's test corpus and CuTe DSL 4.8.1 (run on the CPU where it has the operation).
"""
from __future__ import annotations

import json
import math
import os
import random

import pytest
from click.testing import CliRunner

import cuteverify as cv
import dsl_oracle
from cuteverify.algebra.expr import evaluate
from cuteverify.algebra.nullspace import NOT_WHOLE_KERNEL
from cuteverify.frontend.cli.main import main
from strategies import coalesce_of, ev, flat, parse_plain, size_of

HERE = os.path.dirname(os.path.abspath(__file__))


def lay(x):
    """``(shape, stride)`` of a printed plain layout (the independent parser)."""
    r = parse_plain(str(x))
    assert r is not None, str(x)
    return r


def text(shape, stride):
    f = lambda t: "(" + ",".join(map(f, t)) + ")" if type(t) is tuple else str(t)  # noqa: E731
    return f"{f(shape)}:{f(stride)}"


def rand_shape(rng, leaves=(1, 2, 2, 3, 4, 4, 5, 6, 8), max_rank=3):
    def node(d):
        if d and rng.random() < 0.25:
            return tuple(node(d - 1) for _ in range(rng.randint(1, 3)))
        return rng.choice(leaves)
    k = rng.randint(1, max_rank)
    return tuple(node(1) for _ in range(k)) if k > 1 or rng.random() < 0.3 else node(1)


def like(shape, fn):
    return tuple(like(s, fn) for s in shape) if type(shape) is tuple else fn(shape)


def rand_layout(rng, strides=(0, 0, 1, 2, 3, 4, 6, 8, 16, 32)):
    s = rand_shape(rng)
    return text(s, like(s, lambda _: rng.choice(strides)))


# --- nullspace --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("a,k", [
    ("(2,4,6):(1,2,0)", "6:8"),                       # issue 26, the reference
    ("(4,5):(1@0,1@1)", "1:0"), ("(4,5):(0,1@1)", "4:1"),   # the reference (coordinate strides)
    ("(2,2,2):(0,0,0)", "(2,2,2):(1,2,4)"), ("(7,5,16):(0,0,0)", "(7,5,16):(1,7,35)"),   # CUTLASS nullspace.cpp
    ("(2,2,2):(1,0,2)", "2:2"), ("(7,5,16):(3,1,0)", "16:35"),
    ("(2,1,3):(0,0,0)", "(2,1,3):(1,2,2)"),           # CuTe DSL keeps the size-1 leaf
    ("(2,(1,3)):(0,(5,0))", "(2,3):(1,2)"), ("4:1", "1:0"),
])
def test_nullspace_facts(a, k):
    assert str(cv.nullspace(a)) == k
    assert not cv.nullspace(a).notes


@pytest.mark.differential
def test_nullspace_cutlass_unit_cases():
    cases = [c for c in json.load(open(os.path.join(HERE, "cutlass_unit", "cases.json")))["cases"]
             if c["op"] == "nullspace"]
    assert len(cases) == 4
    for c in cases:
        assert str(cv.nullspace(c["inputs_cv"][0])) == c["cpp_result"].replace("_", ""), c["id"]


def _kernel(L, ev_fn):
    return {i for i in range(size_of(L)) if ev_fn(L, i) == 0}


def _ev_f2(L, i):
    """``L(i)`` for F2 strides: the digits' ``c*v`` XORed (the model's F2 semimodule)."""
    total = 0
    for n, v in zip(flat(L[0]), flat(L[1])):
        total ^= (i % n) * v
        i //= n
    return total


def _check_nullspace(a, f2=False):
    L = lay(a.replace("^", ""))
    R = cv.nullspace(a)
    K = lay(R)
    ks = [ev(K, i) for i in range(size_of(K))]
    evl = _ev_f2 if f2 else ev
    assert len(set(ks)) == len(ks) and all(0 <= k < size_of(L) for k in ks), (a, R)
    assert all(evl(L, k) == 0 for k in ks), (a, R)
    nonzero = math.prod(n for n, d in zip(flat(L[0]), flat(L[1])) if d != 0)
    assert size_of(K) * nonzero == size_of(L), (a, R)
    whole = set(ks) == _kernel(L, evl)
    noted = any(n.text.startswith(NOT_WHOLE_KERNEL) for n in R.notes)
    assert whole != noted, (a, R, R.notes)


def test_nullspace_post_conditions():
    rng = random.Random(26)
    for _ in range(300):
        _check_nullspace(rand_layout(rng))
    for _ in range(150):  # negative strides can cancel: the note says where the result is not the kernel
        _check_nullspace(rand_layout(rng, (0, 0, 1, -1, 2, -2, 3)))
    for _ in range(150):
        s = rand_shape(rng)
        _check_nullspace(text(s, like(s, lambda _: "^%d" % rng.choice((0, 0, 1, 2, 3, 4, 6)))), f2=True)


def test_nullspace_admissibility():
    assert str(cv.nullspace(cv.parse("S<3,4,3> o 0 o (8,4):(0,8)"))) == "8:1"  # a swizzle maps only 0 to 0
    with pytest.raises(cv.NotAdmissibleError, match="offset 0"):
        cv.nullspace(cv.parse("S<3,4,3> o 8 o (8,4):(0,8)"))
    M = cv.symbol("M")
    assert str(cv.nullspace(cv.parse("(M,4):(0,M)"))) == "M:1"
    r = cv.nullspace(cv.parse("(4,8):(M-1,1)"))  # is M-1 zero? the two cases give different layouts
    assert sorted(str(p.value) for p in r.pieces) == ["1:0", "4:1"]
    assert str(cv.nullspace(cv.parse("(4,8):(M-1,1)", assume=["M >= 2"]))) == "1:0"


# --- coalesce_z -------------------------------------------------------------------------------------------

def test_coalesce_z_facts():
    assert str(cv.coalesce_z("(2,1,6,1):(1,7,8,0)")) == "(2,6,1):(1,8,0)"        # the reference
    assert str(cv.coalesce_z("(3,(2,6)):(1,(3,6))", mode=1)) == "(3,12):(1,3)"  # the reference, by mode
    assert str(cv.coalesce_z("(1,1):(3,5)")) == "1:5"
    assert str(cv.coalesce_z("(2,1):(1,2)")) == "2:1"  # a trailing 1:d that continues the last mode goes
    # what coalesce loses: past the size, (2,6):(1,8) maps 12 to 48, the layout to 0
    assert ev(lay(cv.coalesce("(2,1,6,1):(1,7,8,0)")), 12) == 48
    assert ev(lay(cv.coalesce_z("(2,1,6,1):(1,7,8,0)")), 12) == ev(lay("(2,1,6,1):(1,7,8,0)"), 12) == 0


def test_coalesce_z_post_conditions():
    rng = random.Random(7)
    for _ in range(400):
        a = rand_layout(rng)
        L, R = lay(a), cv.coalesce_z(a)
        if size_of(L) > 256:
            continue
        r = lay(R)
        assert size_of(r) == size_of(L)
        assert type(r[0]) is not tuple or all(type(x) is not tuple for x in r[0]), (a, R)
        n = size_of(L)
        assert all(ev(r, i) == ev(L, i) for i in range(3 * n + 2)), (a, R)  # on Z, past the size too
        c = lay(cv.coalesce(a))
        assert all(ev(c, i) == ev(L, i) for i in range(n))


# --- greatest_common_domain and layout_add ----------------------------------------------------------------

@pytest.mark.parametrize("a,b,g", [
    ((10,), (10,), "(10):(1)"), ((16, 3), (16, 3), "(16,3):(1,16)"), ((5, 3, 4), (10, 6), "(5,2):(1,30)"),
    ((6, 35), (15, 14), "(3,7):(1,30)"), ((5, 3), (3, 5), "(1):(0)"),
])
def test_greatest_common_domain_facts(a, b, g):
    assert str(cv.greatest_common_domain(a, b)) == g == str(cv.greatest_common_domain(b, a))


def _positions(shape):
    out, p = [], 1
    for s in flat(shape):
        if s != 1:
            out.append((p, s))
            p *= s
    return out


def _chain(*shapes):
    pts = sorted({p for s in shapes for p, _ in _positions(s)} | {size_of((s, s)) for s in shapes})
    return all(y % x == 0 for x, y in zip(pts, pts[1:]))


def test_greatest_common_domain_post_conditions():
    rng = random.Random(3)
    leaves = (1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 15)
    for _ in range(400):
        a, b = rand_shape(rng, leaves), rand_shape(rng, leaves)
        if rng.random() < 0.4:  # same size, different factorizations
            b = (size_of((a, a)),) if rng.random() < 0.5 else b
        G = cv.greatest_common_domain(a, b)
        g = lay(G)
        assert type(g[0]) is tuple and all(type(x) is int for x in g[0]), G
        assert str(G) == str(cv.greatest_common_domain(b, a))
        na, nb = size_of((a, a)), size_of((b, b))
        assert math.gcd(na, nb) % size_of(g) == 0
        for n, o in zip(g[0], g[1]):
            if n == 1:
                continue
            for s in (a, b):  # the leaf lies inside one leaf of each shape
                assert any(o % p == 0 and s_ % (o // p * n) == 0 for p, s_ in _positions(s)), (a, b, G)
        if na == nb:
            assert (size_of(g) == na) == _chain(a, b), (a, b, G)


@pytest.mark.parametrize("a,b,r", [  # the reference's examples
    ("12:1", "12:1", "12:2"), ("5:0", "5:1", "5:1"), ("(4,3):(1,4)", "(4,3):(3,1)", "(4,3):(4,5)"),
    ("(5,3,4):(1,5,15)", "(10,6):(1,10)", "60:2"),
])
def test_layout_add_facts(a, b, r):
    assert str(cv.layout_add(a, b)) == r == str(cv.layout_add(b, a))


def test_layout_add_post_conditions():
    rng = random.Random(11)
    admitted = refused = 0
    for _ in range(400):
        a = rand_layout(rng, (0, 1, 2, 3, 4, -1, 8, 12))
        A = lay(a)
        n = size_of(A)
        if n > 256:
            continue
        # a second layout of the same size: a refactorization of the size with random strides
        parts, m = [], n
        for f in (2, 3, 5, 4, 6):
            while m % f == 0 and rng.random() < 0.6:
                parts.append(f)
                m //= f
        parts.append(m)
        rng.shuffle(parts)
        b = text(tuple(parts), tuple(rng.choice((0, 1, 2, 5, 7)) for _ in parts))
        B = lay(b)
        try:
            R = cv.layout_add(a, b)
        except cv.NotAdmissibleError as e:
            assert "no common refinement" in str(e)
            assert not _chain(coalesce_of(A)[0], coalesce_of(B)[0]), (a, b)
            refused += 1
            continue
        admitted += 1
        r = lay(R)
        assert size_of(r) == n
        assert all(ev(r, i) == ev(A, i) + ev(B, i) for i in range(n)), (a, b, R)
        r2 = lay(cv.layout_add(b, a))
        assert all(ev(r2, i) == ev(r, i) for i in range(n))
    assert admitted > 80 and refused > 10


def test_layout_add_admissibility():
    with pytest.raises(cv.NotAdmissibleError, match="same size"):
        cv.layout_add("4:1", "8:1")
    with pytest.raises(cv.NotAdmissibleError, match="F2"):
        cv.layout_add("(2,2):(^1,^2)", "4:1")
    with pytest.raises(cv.NotAdmissibleError, match="do not add"):
        cv.layout_add("(4,5):(1@0,1@1)", "(4,5):(1@1,0)")
    assert str(cv.layout_add("(4,5):(1@0,1@1)", "(4,5):(2@0,0)")) == "(4,5):(3@0,1@1)"
    with pytest.raises(cv.NotAdmissibleError, match="plain layout"):
        cv.layout_add(cv.parse("S<1,2,3> o 0 o 16:1"), "16:1")
    M = cv.symbol("M")
    R = cv.layout_add(cv.parse("(4,M):(1,4)"), cv.parse("(2,2,M):(0,7,0)"))
    for m in (1, 2, 3, 6):
        want = cv.layout_add(f"(4,{m}):(1,4)", f"(2,2,{m}):(0,7,0)")
        assert R.subs(M=m).values() == want.values()


# --- mode= ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,want", [  # the reference's by-mode examples
    (lambda: cv.coalesce("(3,(2,6)):(1,(3,6))", mode=1), "(3,12):(1,3)"),
    (lambda: cv.composition("(4,6):(1,4)", "3:2", mode=1), "(4,3):(1,8)"),
    (lambda: cv.logical_product("(3,5):(1,20)", "4:1", mode=0), "((3,4),5):((1,3),20)"),
    (lambda: cv.logical_divide("(3,8):(1,3)", "4:2", mode=1), "(3,(4,2)):(1,(6,3))"),
    (lambda: cv.zipped_divide("(5,24):(1,5)", "4:2", mode=1), "(5,(4,(2,3))):(1,(10,(5,40)))"),
    (lambda: cv.coalesce("(4,(2,(3,2))):(1,(4,(8,24)))", mode=(1, 1)), "(4,(2,6)):(1,(4,8))"),
    (lambda: cv.coalesce("8:1", mode=0), "8:1"),
    (lambda: cv.max_common_vector("(4,8):(1,4)", "(4,8):(1,8)", mode=0), "4"),
    (lambda: cv.greatest_common_domain((6, (5, 3)), (6, (3, 5)), mode=1), "(1):(0)"),
    (lambda: cv.composition(cv.parse("S<1,2,3> o 0 o (4,8):(1,4)"), "2:2", mode=1), "S<1,2,3> o 0 o (4,2):(1,8)"),
])
def test_mode_facts(call, want):
    assert str(call()) == want


UNARY = ["coalesce", "coalesce_z", "filter", "filter_zeros", "complement", "right_inverse", "left_inverse",
         "nullspace"]
BINARY = ["composition", "logical_divide", "logical_product", "zipped_divide", "layout_add"]


def test_mode_replaces_one_mode():
    rng = random.Random(5)
    done = 0
    for _ in range(300):
        s = tuple(rand_shape(rng) for _ in range(rng.randint(2, 3)))
        a = text(s, like(s, lambda _: rng.choice((0, 1, 2, 4, 8, 16))))
        A = lay(a)
        m = rng.randrange(len(s))
        op = rng.choice(UNARY + BINARY)
        sub = text(A[0][m], A[1][m])
        arg = () if op in UNARY else ((text((size_of((A[0][m],) * 2),), (1,)),) if op == "layout_add"
                                     else (rng.choice(("2:1", "1:1", "2:2")),))
        fn = getattr(cv, op)
        try:
            want = fn(sub, *arg)
        except cv.CuteVerifyError:
            with pytest.raises(cv.CuteVerifyError):
                fn(a, *arg, mode=m)
            continue
        R = lay(fn(a, *arg, mode=m))
        assert len(R[0]) == len(s)
        for k in range(len(s)):
            got = text(R[0][k], R[1][k])
            assert got == (str(want) if k == m else text(A[0][k], A[1][k])), (op, a, m, got)
        done += 1
    assert done > 150


def test_mode_admissibility():
    with pytest.raises(cv.NotAdmissibleError, match="mode 2 is not a mode"):
        cv.coalesce("(4,8):(1,4)", mode=2)
    with pytest.raises(cv.NotAdmissibleError, match=r"mode \(0, 1\) is not a mode"):
        cv.coalesce("(4,8):(1,4)", mode=(0, 1))
    with pytest.raises(cv.NotAdmissibleError, match="non-negative"):
        cv.coalesce("(4,8):(1,4)", mode=-1)
    with pytest.raises(cv.NotAdmissibleError, match="composed"):
        cv.right_inverse(cv.parse("S<1,2,3> o 0 o (4,8):(1,4)"), mode=1)
    M = cv.symbol("M")
    r = cv.coalesce(cv.parse("(4,(M,2)):(1,(4,4*M))"), mode=1)
    assert str(r) == "(4,2*M):(1,4)" and [str(o.condition) for o in r.obligations] == ["M != 1"]


def test_expression_keywords_and_cli():
    assert str(evaluate("nullspace((2,4,6):(1,2,0))")) == "6:8"
    assert str(evaluate("coalesce(A, mode=1)", {"A": "(3,(2,6)):(1,(3,6))"})) == "(3,12):(1,3)"
    assert str(evaluate("layout_add(greatest_common_domain((6,35),(15,14)), 21:1)")) == "(3,7):(2,33)"
    with pytest.raises(cv.ParseError) as e:
        evaluate("coalesce((4,8):(1,4), mod=1)")
    assert e.value.column == 23
    r = CliRunner().invoke(main, ["algebra", "logical_divide((3,8):(1,3), 4:2, mode=1)"])
    assert r.exit_code == 0 and "(3,(4,2)):(1,(6,3))" in r.output
    r = CliRunner().invoke(main, ["algebra", "coalesce((4,8):(1,4), mode=1, 3)"])
    assert r.exit_code == 2 and "positional arguments come first" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["algebra", "layout_add((2,3):(1,10), (3,2):(1,10))"])
    assert r.exit_code == 2 and "no common refinement" in r.output


# --- the size-1 convention --------------------------------------------------------------------------------

# CuTe IR's complement tests (cute_ir/test/.../complement.mlir): (layout, cotarget, result)
IR_COMPLEMENT = [("3:1", 3, "1:3"), ("(2,3):(1,2)", 6, "1:6"), ("1:0", 1, "1:1"), ("1:1", 1, "1:1"),
                 ("1:2", 1, "1:1"), ("4:0", 1, "1:1"), ("4:1", 1, "1:4"), ("4:1", 2, "1:4"), ("4:1", 8, "2:4"),
                 ("4:2", 1, "2:1"), ("3:2", 6, "2:1"), ("3:0", 6, "6:1"), ("3:2", 24, "(2,4):(1,6)"),
                 ("1:0", 5, "5:1"), ("(3,(5,2)):(1,(3,15))", (6, 20), "4:30"), ("3:2", (2, 3), "2:1")]


@pytest.mark.differential
def test_size1_keep_is_cute_ir():
    with cv.size1_strides("keep"):
        for a, c, r in IR_COMPLEMENT:
            assert str(cv.complement(a, c)) == r, (a, c)
        assert str(cv.logical_divide("1:1", "1:1")) == "(1,1):(1,1)"
        assert str(cv.left_inverse("4:0")) == "1:0"  # CuTe IR's too
    assert str(cv.complement("3:1", 3)) == "1:0"  # the setting ends with the block
    for a, c, r in IR_COMPLEMENT:  # the same function either way
        d, k = lay(cv.complement(a, c)), lay(r)
        assert size_of(d) == size_of(k) and all(ev(d, i) == ev(k, i) for i in range(size_of(d)))
    with pytest.raises(cv.NotAdmissibleError, match="dsl, keep"):
        with cv.size1_strides("cpp"):
            pass
    r = CliRunner().invoke(main, ["algebra", "complement(3:1, 3)", "--size1-strides", "keep"])
    assert r.exit_code == 0 and "1:3" in r.output
    r = CliRunner().invoke(main, ["algebra", "complement(3:1, 3)"])
    assert r.exit_code == 0 and "1:0" in r.output


def test_size1_default_is_dsl():
    assert str(cv.complement("3:1", 3)) == "1:0"
    assert str(cv.logical_divide("1:1", "1:1")) == "(1,1):(1,0)"
    assert str(cv.left_inverse("4:0")) == "1:0"  # was C++'s 4:0
    assert str(cv.left_inverse("(3,7):(0,0)")) == "1:0"


@pytest.mark.differential
@pytest.mark.skipif(not dsl_oracle.available(), reason="CuTe DSL (nvidia-cutlass-dsl) is not installed")
def test_against_cute_dsl():
    rng = random.Random(9)
    null = [lay(rand_layout(rng)) for _ in range(60)]
    null = [x for x in null if type(x[0]) is tuple]  # DSL 4.8.1's nullspace fails on an unnested shape
    cases = [("nullspace", (x,)) for x in null]
    size1 = [("complement", ((3, 1), 3)), ("logical_divide", ((1, 1), (1, 1))), ("left_inverse", ((4, 0),)),
             ("left_inverse", (((3, 7), (0, 0)),))]
    comp = [("complement", (lay(a), c)) for a, c, _ in IR_COMPLEMENT if "(" not in a and type(c) is int]
    got = dsl_oracle.run_cases(cases + size1 + comp)
    ours = [str(cv.nullspace(text(*x))) for x in null]
    ours += [str(cv.complement("3:1", 3)), str(cv.logical_divide("1:1", "1:1")), str(cv.left_inverse("4:0")),
             str(cv.left_inverse("(3,7):(0,0)"))]
    ours += [str(cv.complement(text(*a[0]), a[1])) for _, a in comp]
    assert got == ours
