"""Complement and the inverses against CuTe C++ (facts printed by CuTe 4.7 headers, g++ 12) and against
post-conditions checked by an evaluator written here, independent of the library's own evaluation.

Classes: negative strides, size-0 modes, shape cotargets, strides that do not nest, non-injective left
inverses, swizzled inverses and common vectors, F2 / coordinate strides.
"""
import itertools
import random

import pytest

import cuteverify as cv
from cuteverify.algebra import complement
from cuteverify.algebra.complement import NOT_NESTED
from cuteverify.algebra.inverse import NOT_INJECTIVE

P = cv.parse


# --- an independent evaluator: flat (shape, stride) leaves, colexicographic, last mode not reduced -------

def leaves(x):
    if type(x) is tuple:
        return [y for e in x for y in leaves(e)]
    return [x]


def ev(layout, i):
    """``layout(i)`` for an integral ``i`` (extended domain: the last leaf takes what is left)."""
    if hasattr(layout, "outer"):
        return swz(layout.inner, layout.offset + ev(layout.outer, i))
    s, d = leaves(layout.shape), leaves(layout.stride)
    total = 0
    for k, (n, st) in enumerate(zip(s, d)):
        if k == len(s) - 1:
            total += i * st
        else:
            total += (i % n) * st
            i //= n
    return total


def swz(sw, x):
    b, m, s = sw.bits, sw.base, sw.shift
    mask = ((1 << b) - 1) << (m + max(s, 0))
    return x ^ ((x & mask) >> s) if s >= 0 else x ^ ((x & mask) << -s)


def nsize(layout):
    out = 1
    for n in leaves(layout.shape):
        out *= n
    return out


def image(layout):
    return [ev(layout, i) for i in range(nsize(layout))]


def random_layout(rng, rank, neg=False, zero=True):
    shape = tuple(rng.choice([1, 2, 3, 4, 5, 6, 8]) for _ in range(rank))
    pool = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32] if zero else [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32]
    stride = tuple(rng.choice(pool) * (rng.choice([1, -1]) if neg else 1) for _ in range(rank))
    return cv.Layout(shape, stride)


# --- complement ------------------------------------------------------------------------------------------------

def check_cute_complement(A, R):
    """CuTe's post-condition: R ordered, meets A only at 0."""
    rv = image(R)
    assert all(rv[i] < rv[i + 1] for i in range(len(rv) - 1)), f"{R} not ordered"
    assert set(rv) & set(image(A)) <= {0}, f"{R} meets {A}"


def nests(A):
    modes = sorted((d, s) for s, d in zip(leaves(A.shape), leaves(A.stride)) if d != 0 and s != 1)
    cur = 1
    for d, s in modes:
        if d % cur:
            return False
        cur = d * s
    return True


@pytest.mark.parametrize("a,m,r", [
    # CuTe C++ facts (print of complement(a, m))
    ("(3,6):(1,10)", None, "3:3"), ("(4,6):(1,6)", None, "1:0"), ("(4,2):(1,10)", None, "2:4"),
    ("(4,10):(1,10)", None, "2:4"), ("(4,6):(1,6)", 100, "3:36"), ("(2,4):(1,3)", 24, "2:12"),
    ("(2,2):(1,3)", 24, "4:6"),
])
def test_complement_not_nested_follows_cute(a, m, r):
    A = P(a)
    R = complement(A) if m is None else complement(A, m)
    assert str(R) == r
    check_cute_complement(A, R)
    assert any(n.text.startswith(NOT_NESTED) for n in R.notes)


def test_logical_product_through_a_complement_that_does_not_nest():
    # CUTLASS test/unit/cute/core/logical_product.cpp:212
    A, B = P("((4,6)):((1,6))"), P("(3):(1)")
    R = cv.logical_product(A, B)
    assert str(R) == "(((4,6)),(3)):(((1,6)),(36))"
    assert any(n.text.startswith(NOT_NESTED) for n in R.notes)


@pytest.mark.parametrize("a", ["(2,2):(3,2)", "(2,3):(4,6)", "(4,2):(1,3)", "(2,2):(1,1)", "(4,4):(1,2)"])
def test_complement_refuses_what_cute_rejects(a):
    # CuTe C++: static_assert "Non-injective Layout detected in complement."
    with pytest.raises(cv.NotAdmissibleError, match="overlap"):
        complement(P(a))


def test_complement_sweep():
    """Every result meets CuTe's post-condition; nested ones also cover [0, M) bijectively; refusals only
    where a sorted stride falls inside the extent of the smaller modes."""
    rng = random.Random(7)
    for _ in range(400):
        A = random_layout(rng, rng.randint(1, 3))
        if 0 in leaves(A.shape):
            continue
        M = rng.choice([None, 1, 7, 24, 64, 100])
        live = [(s, d) for s, d in zip(leaves(A.shape), leaves(A.stride)) if d != 0]
        try:
            R = complement(A) if M is None else complement(A, M)
        except cv.NotAdmissibleError:
            modes = sorted((d, s) for s, d in zip(leaves(A.shape), leaves(A.stride)) if d != 0 and s != 1)
            cur, ok = 1, True
            for d, s in modes:
                ok = ok and d >= cur
                cur = d * s
            assert not ok, A
            continue
        check_cute_complement(A, R)
        noted = any(n.text.startswith(NOT_NESTED) for n in R.notes)
        assert noted == (not nests(A)), (A, R)
        if not noted and live:
            full = cv.make_layout(cv.Layout(tuple(s for s, _ in live), tuple(d for _, d in live)), R)
            fv = image(full)
            assert len(set(fv)) == len(fv) and set(fv) == set(range(len(fv)))
            m = cv.cosize(A) if M is None else M
            assert len(fv) >= m


def test_complement_negative_strides_refused_with_the_right_reason():
    # CuTe C++: complement(4:-1) is (_-1,_0):(_1,_-4), not a layout
    for a in ["4:-1", "(2,2):(-1,4)"]:
        with pytest.raises(cv.NotAdmissibleError, match="non-negative"):
            complement(P(a))
    assert str(complement(P("(1,4):(-3,1)"), 8)) == "2:4"  # a size-1 mode's stride does not matter


def test_complement_size_zero():
    with pytest.raises(cv.NotAdmissibleError, match="size 0"):
        complement(cv.Layout(0, 1), 16)
    with pytest.raises(cv.NotAdmissibleError, match="size 0"):
        complement(cv.Layout((4, 0), (1, 8)), 16)
    assert str(complement(cv.Layout(0, 0), 16)) == "16:1"  # CuTe: a stride-0 mode is filtered out


@pytest.mark.parametrize("a,m,r", [
    # CuTe C++ facts: ceil_div(shape, n) divides mode by mode
    ("2:1", (3, 4), "8:2"), ("2:1", (4, 3), "6:2"), ("4:2", (2, 2), "2:1"), ("4:2", (3, 3), "2:1"),
    ("3:4", (5, 7, 2), "(4,6):(1,12)"), ("3:4", ((5, 3), 7), "(4,7):(1,12)"), ("64:1", (32, 4, 4), "8:64"),
    ("(4,2):(1,8)", (3, 4), "2:4"),
])
def test_complement_shape_cotarget_per_mode(a, m, r):
    assert str(complement(P(a), m)) == r


def test_complement_symbolic():
    from cuteverify.symbolic import symbol
    N = symbol("N")
    R = complement(P("4:1"), (N, 4))
    assert str(R) == "N:4" and "4 | N" in [o.text() for o in R.obligations]
    R = complement(cv.parse("(4,M):(1,8)"), 64)  # symbolic sizes keep the nested construction
    assert str(R) == "(2,8/M):(4,8*M)" and "8*M | 64" in [o.text() for o in R.obligations]


def test_complement_f2_refused_coordinate_strides_per_axis():
    with pytest.raises(cv.NotAdmissibleError, match="F2"):
        complement(P("(4,4):(^1,^5)"))
    # coordinate strides: one construction per axis (tests/algebra/test_coord_algebra.py has the rest)
    assert str(complement(P("(4,2):(1@0,1@1)"))) == "(1,1):(4@0,2@1)"


# --- right and left inverses ---------------------------------------------------------------------------------

@pytest.mark.parametrize("a,r", [
    ("4:-1", "1:0"), ("(4,2):(-1,1)", "2:4"), ("(2,4):(4,-1)", "1:0"), ("(4,2):(1,-4)", "4:1"),
])
def test_right_inverse_negative_strides_follow_cute(a, r):
    L, R = P(a), cv.right_inverse(P(a))
    assert str(R) == r
    assert all(ev(L, ev(R, i)) == i for i in range(nsize(R)))


def test_right_inverse_sweep_with_negative_strides():
    rng = random.Random(11)
    for _ in range(300):
        L = random_layout(rng, rng.randint(1, 3), neg=True)
        R = cv.right_inverse(L)
        assert all(ev(L, ev(R, i)) == i for i in range(nsize(R))), (L, R)


@pytest.mark.parametrize("a,r", [
    # CuTe C++ facts; the negative ones have the same values on L's image as CuTe's (-d, s):(0, 1)
    ("(2,4):(0,2)", "(2,4):(0,2)"), ("(2,2):(1,1)", "2:2"),
    ("(4,2):(1,2)", "(2,2):(1,4)"), ("(2,3):(3,1)", "(3,2):(2,1)"), ("(4,2):(1,3)", "(3,2):(1,4)"),
    ("(2,4,4,6):(4,1,0,8)", "(4,2,6):(2,1,32)"), ("(2,2,2):(4,0,1)", "(4,2):(4,1)"),
    ("4:-1", "4:-1"), ("4:-2", "(2,4):(0,-1)"), ("(4,2):(-1,-4)", "8:-1"),
])
def test_left_inverse_follows_cute(a, r):
    L = P(a)
    R = cv.left_inverse(L)
    assert str(R) == r
    check_left(L, R)


def check_left(L, R):
    n = nsize(L)
    assert all(ev(L, ev(R, ev(L, i))) == ev(L, i) for i in range(n)), (L, R)  # CuTe's quasi-inverse
    noted = any(n.text.startswith(NOT_INJECTIVE) for n in R.notes)
    img = image(L)
    assert noted == (len(set(img)) != len(img)), (L, R)
    if not noted:
        assert all(ev(R, ev(L, i)) == i for i in range(n)), (L, R)


def test_left_inverse_sweep():
    rng = random.Random(5)
    for _ in range(400):
        L = random_layout(rng, rng.randint(1, 3), neg=rng.random() < 0.2)
        try:
            R = cv.left_inverse(L)
        except cv.NotAdmissibleError as e:
            text = str(e)
            assert "divide" in text or "both signs" in text or "quasi-inverse" in text, text
            if "quasi-inverse" in text:  # CuTe's result really misses its post-condition
                R = cute_left_inverse(L)
                assert not all(ev(L, ev(R, ev(L, i))) == ev(L, i) for i in range(nsize(L)))
            continue
        check_left(L, R)


def cute_left_inverse(L):
    """CuTe's construction, written here from its definition (non-negative strides)."""
    s, d = leaves(L.shape), leaves(L.stride)
    pos, cur = [], 1
    for n in s:
        pos.append(cur)
        cur *= n
    modes = sorted((dd, n, p) for n, dd, p in zip(s, d, pos) if dd != 0 and n != 1)
    shape, stride, prev = [], [0], 1
    for dd, n, p in modes:
        shape.append(dd // prev)
        stride.append(p)
        prev = dd
    shape.append(modes[-1][1])
    return cv.Layout(tuple(shape), tuple(stride))


@pytest.mark.parametrize("a,r", [("(3,7):(0,0)", "1:0"), ("4:0", "1:0"), ("2:0", "1:0"), ("(3,1):(0,3)", "1:0"),
                                 ("((2,4),1):((0,0),5)", "1:0"), ("1:0", "1:0"), ("(1,1):(0,0)", "1:0")])
def test_left_inverse_all_stride_zero(a, r):
    # no left inverse exists, this is CuTe's quasi-inverse (R(0) == 0), noted as such. CuTe DSL and CuTe IR
    # print 1:0 (tests/algebra/test_dsl_differential.py), CuTe C++ _21:_0, _4:_0, ...; cuteverify follows DSL (issue 26)
    L = P(a)
    R = cv.left_inverse(L)
    assert str(R) == r
    check_left(L, R)
    assert any(n.text.startswith(NOT_INJECTIVE) for n in R.notes) == (nsize(L) > 1)


def test_left_inverse_refuses_what_misses_cute_post_condition():
    # CuTe C++ returns (_5,_2,_8):(_0,_8,_1) for (8,5):(10,5), and L(R(L(23))) != L(23) there
    with pytest.raises(cv.NotAdmissibleError, match="quasi-inverse"):
        cv.left_inverse(P("(8,5):(10,5)"))
    R = cute_left_inverse(P("(8,5):(10,5)"))
    assert str(R) == "(5,2,8):(0,8,1)"


@pytest.mark.parametrize("a", ["(2,4):(4,-1)", "(2,4):(1,-2)", "(4,2):(-1,4)"])
def test_left_inverse_mixed_signs_refused(a):
    with pytest.raises(cv.NotAdmissibleError, match="both signs"):
        cv.left_inverse(P(a))


# --- swizzled layouts ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op,a,r", [
    # CuTe C++ facts (CUTLASS inverse_right.cpp / inverse_left.cpp and direct prints)
    ("right_inverse", "S<3,0,3> o 0 o (8,8):(8,1)", "S<3,0,-3> o 0 o (8,8):(8,1)"),
    ("left_inverse", "S<3,0,3> o 0 o (8,8):(8,1)", "S<3,0,-3> o 0 o (8,8):(8,1)"),
    ("right_inverse", "S<1,0,2> o 0 o (4,4):(1,4)", "S<1,0,2> o 0 o 16:1"),
    ("right_inverse", "S<1,0,2> o 0 o (4,4):(4,1)", "S<1,0,-2> o 0 o (4,4):(4,1)"),
    ("right_inverse", "S<1,0,1> o 0 o (4,4):(8,1)", "S<1,2,1> o 0 o 4:4"),
    ("left_inverse", "S<1,0,2> o 0 o (4,4):(1,4)", "S<1,0,2> o 0 o 16:1"),
    ("left_inverse", "S<1,0,2> o 0 o (4,4):(4,1)", "S<1,0,-2> o 0 o (4,4):(4,1)"),
    ("left_inverse", "S<1,0,1> o 0 o (4,4):(8,1)", "S<1,2,1> o 0 o (8,4):(4,1)"),
    ("left_inverse", "S<2,0,3> o 0 o (8,4):(4,1)", "S<2,1,-2> o 0 o (4,8):(8,1)"),
    ("right_inverse", "S<2,0,3> o 0 o (4,8):(1,4)", "S<2,0,3> o 0 o 32:1"),
])
def test_swizzled_inverses_follow_cute(op, a, r):
    L = P(a)
    R = getattr(cv, op)(L)
    assert str(R) == r
    if op == "right_inverse":
        assert all(ev(L, ev(R, i)) == i for i in range(nsize(R.outer)))
    else:
        assert all(ev(R, ev(L, i)) == i for i in range(nsize(L.outer)))


def test_swizzled_inverse_refusals():
    # CuTe C++: static_assert "Number of bits in Y and Z don't match"
    with pytest.raises(cv.NotAdmissibleError, match="bits"):
        cv.right_inverse(P("S<2,1,3> o 0 o (5,8):(8,1)"))
    with pytest.raises(cv.NotAdmissibleError, match="offset"):
        cv.right_inverse(P("S<3,0,3> o 8 o (8,8):(8,1)"))


def test_swizzled_right_inverse_sweep():
    rng = random.Random(3)
    for _ in range(150):
        b = rng.randint(1, 3)
        sw = cv.Swizzle(b, rng.randint(0, 2), rng.choice([1, -1]) * rng.randint(b, b + 2))
        shape = rng.choice([(8, 8), (4, 16), (16, 4), (8, 4, 2)])
        perm = list(range(len(shape)))
        rng.shuffle(perm)
        inner = cv.Layout(tuple(shape[p] for p in perm), cv.compact_col_major(shape) if False else
                          tuple(_col(shape)[p] for p in perm))
        L = cv.make_swizzle_layout(sw, inner)
        for op in ("right_inverse", "left_inverse"):
            try:
                R = getattr(cv, op)(L)
            except cv.NotAdmissibleError:
                continue
            n = nsize(R.outer if hasattr(R, "outer") else R) if op == "right_inverse" else nsize(inner)
            if op == "right_inverse":
                assert all(ev(L, ev(R, i)) == i for i in range(n)), (L, R)
            else:
                assert all(ev(R, ev(L, i)) == i for i in range(n)), (L, R)


def _col(shape):
    out, cur = [], 1
    for s in shape:
        out.append(cur)
        cur *= s
    return out


@pytest.mark.parametrize("a,b,n", [
    # CuTe C++ facts
    ("S<2,1,3> o 0 o 32:1", "32:1", 2), ("32:1", "S<2,1,3> o 0 o 32:1", 2),
    ("S<2,1,3> o 0 o 32:1", "S<2,1,3> o 0 o 32:1", 32), ("S<2,1,3> o 0 o 32:1", "S<2,2,3> o 0 o 32:1", 2),
    ("S<3,3,3> o 0 o (8,64):(64,1)", "(8,64):(64,1)", 8),
])
def test_max_common_vector_swizzled(a, b, n):
    A, B = P(a), P(b)
    assert cv.max_common_vector(A, B) == n
    if not (hasattr(A, "outer") and hasattr(B, "outer")):
        C = cv.max_common_layout(A, B)
        assert nsize(C) == n
        assert all(ev(A, ev(C, i)) == i and ev(B, ev(C, i)) == i for i in range(n))


def test_max_common_layout_swizzled_facts():
    # CuTe C++: max_common_layout(S<3,3,3> o 0 o (8,64):(64,1), (8,64):(64,1)) is 8:8, either order
    A, B = P("S<3,3,3> o 0 o (8,64):(64,1)"), P("(8,64):(64,1)")
    assert str(cv.max_common_layout(A, B)) == "8:8" == str(cv.max_common_layout(B, A))


def test_inverses_f2_refused_coordinate_strides_per_axis():
    for op in (cv.right_inverse, cv.left_inverse):
        with pytest.raises(cv.NotAdmissibleError, match="F2"):
            op(P("(4,4):(^1,^5)"))
        # coordinate strides: one chain per axis (tests/algebra/test_coord_algebra.py has the rest)
        assert str(op(P("(4,2):(1@0,1@1)"))) == "(4,2):(1,4)"


def test_never_crash():
    """Every failure is a CuteVerifyError, over a grid of awkward small layouts."""
    shapes = [1, 2, 3, 4]
    strides = [-2, -1, 0, 1, 2, 3, 4]
    for s0, s1, d0, d1 in itertools.product(shapes, shapes, strides, strides):
        L = cv.Layout((s0, s1), (d0, d1))
        for fn in (complement, cv.right_inverse, cv.left_inverse):
            try:
                fn(L)
            except cv.CuteVerifyError:
                pass
        try:
            cv.max_common_vector(L, L)
        except cv.CuteVerifyError:
            pass


@pytest.mark.parametrize("op,args,r", [
    # CuTe C++ facts (oracle corpus): equal strides are taken in CuTe's exchange-sort order
    ("right_inverse", ("(3,8,8):(8,8,1)",), "(8,8):(24,3)"), ("right_inverse", ("(2,2,16):(32,1,1)",), "2:2"),
    ("right_inverse", ("(5,(8,2)):(2,(2,1))",), "(2,8):(40,5)"),
    ("max_common_vector", ("((8,4),4):((4,4),1)", "((8,4),4):((4,4),1)"), "16"),
])
def test_equal_strides_in_cute_order(op, args, r):
    ls = [P(a) for a in args]
    R = getattr(cv, op)(*ls)
    assert str(R) == r
    if op == "right_inverse":
        assert all(ev(ls[0], ev(R, i)) == i for i in range(nsize(R)))
