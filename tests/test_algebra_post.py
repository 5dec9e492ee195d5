"""Post-conditions of every algebra operation, checked by enumeration (ALGEBRA.md section 3).

Each test computes the operation on generated layouts; when the operation refuses (NotAdmissibleError) the
test checks that refusal was justified where that is decidable by enumeration, and otherwise checks the
operation's post-condition on every coordinate.
"""
import itertools

import pytest
from hypothesis import assume, given, settings, strategies as st

import cuteverify as cv
from cuteverify.core.tuples import flatten
from cuteverify.algebra.complement import NOT_NESTED
from strategies import injective_layouts, layouts

P = cv.parse
SETTINGS = settings(max_examples=300, deadline=None)


def same_function(a, b, n=None):
    n = cv.size(a) if n is None else n
    return all(a(i) == b(i) for i in range(n))


def injective(L):
    v = L.values()
    return len(set(v)) == len(v)


# --- coalesce / filter ---------------------------------------------------------------------------------

@given(layouts())
@SETTINGS
def test_coalesce_same_function_flat(L):
    R = cv.coalesce(L)
    assert cv.size(R) == cv.size(L)
    assert cv.depth(R) <= 1
    assert R.values() == L.values()
    # canonical: no size-1 modes and no mergeable neighbours
    s, d = list(flatten(R.shape)), list(flatten(R.stride))
    if len(s) > 1:
        assert all(x != 1 for x in s)
        assert all(d[i + 1] != s[i] * d[i] for i in range(len(s) - 1))


@given(layouts(max_rank=3))
@SETTINGS
def test_coalesce_by_profile_keeps_modes(L):
    prof = tuple(1 for _ in range(cv.rank(L)))
    R = cv.coalesce(L, prof)
    assert cv.rank(R) == cv.rank(L)
    assert R.values() == L.values()


@given(layouts())
@SETTINGS
def test_filter_keeps_image(L):
    R = cv.filter(L)
    assert set(R.values()) == set(L.values())
    assert str(R) == "1:0" or 0 not in flatten(R.stride)


def test_coalesce_examples():
    assert str(cv.coalesce(P("(2,(1,6)):(1,(6,2))"))) == "12:1"
    assert str(cv.coalesce(P("(4,1,8):(1,9,4)"))) == "32:1"
    assert str(cv.filter(P("(4,(2,3)):(1,(0,4))"))) == "12:1"
    assert str(cv.coalesce(P("(1,1):(3,5)"))) == "1:0"


# --- composition -------------------------------------------------------------------------------------------

@given(layouts(max_rank=3), layouts(max_rank=2, max_size=256))
@SETTINGS
def test_composition_post_condition(A, B):
    try:
        R = cv.composition(A, B)
    except cv.NotAdmissibleError:
        return
    assert cv.compatible(B.shape, R.shape) or cv.size(R) == cv.size(B)
    # On A's domain always; past it (A's extended domain) when coalescing A dropped no size-1 mode, since
    # the extended domain of a layout is a property of its representation, not of its function.
    full = 1 not in flatten(A.shape)
    for i in range(cv.size(B)):
        if full or B(i) < cv.size(A):
            assert R(i) == A(B(i)), (str(A), str(B), str(R), i)


@given(layouts(max_rank=3))
@SETTINGS
def test_composition_with_tiler(A):
    tiler = tuple(cv.Layout(max(1, cv.size(A[i]) // 2), 1) for i in range(cv.rank(A)))
    try:
        R = cv.composition(A, tiler)
    except cv.NotAdmissibleError:
        return
    for i in range(cv.rank(A)):
        for j in range(cv.size(tiler[i])):
            assert R[i](j) == A[i](tiler[i](j))


@pytest.mark.parametrize("a,b,r", [
    ("(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)"),
    ("(10,2):(16,4)", "(5,4):(1,5)", "(5,(2,2)):(16,(80,4))"),
])
def test_composition_examples(a, b, r):
    assert str(cv.composition(P(a), P(b))) == r


def test_composition_tiler_example():
    R = cv.composition(P("(12,(4,8)):(59,(13,1))"), (P("3:4"), P("8:2")))
    assert str(R) == "(3,(2,4)):(236,(26,1))"


def test_composition_not_admissible_is_refused():
    with pytest.raises(cv.NotAdmissibleError, match="divisibility"):
        cv.composition(P("(4,6):(1,5)"), P("6:1"))
    with pytest.raises(cv.NotAdmissibleError, match="stride divisibility"):
        cv.composition(P("(4,6):(1,5)"), P("3:3"))


# --- complement -----------------------------------------------------------------------------------------------

def _check_complement(A, M):
    R = cv.complement(A, M)
    a_img, r_img = set(A.values()), set(R.values())
    assert a_img & r_img <= {0}
    rv = R.values()
    assert all(rv[i] < rv[i + 1] for i in range(len(rv) - 1)), "complement must be ordered"
    full = cv.make_layout(A, R)
    fv = full.values()
    # a complement of strides that do not nest says so (CuTe's truncated result): no bijection claimed
    nested = not any(n.text.startswith(NOT_NESTED) for n in R.notes)
    if nested and injective(cv.filter(A)) and all(flatten(A.stride)):
        assert len(set(fv)) == len(fv)
        assert set(range(M)) <= set(fv)
    return R


@given(injective_layouts(), st.integers(1, 4))
@SETTINGS
def test_complement_post_condition(A, k):
    M = cv.cosize(A) * k
    _check_complement(A, M)


@given(layouts(max_rank=3, max_size=512))
@SETTINGS
def test_complement_refuses_or_is_correct(A):
    M = max(1, cv.cosize(A)) * 2
    try:
        _check_complement(A, M)
    except cv.NotAdmissibleError:
        # only non-nesting (or overlapping) layouts are refused
        fa = cv.filter(A)
        s, d = list(flatten(fa.shape)), list(flatten(fa.stride))
        modes = sorted(zip(d, s))
        cur = 1
        ok = True
        for dd, ss in modes:
            if dd % cur:
                ok = False
            cur = dd * ss
        assert not ok


@pytest.mark.parametrize("a,m,r", [("4:2", 24, "(2,3):(1,8)"), ("(2,4):(1,6)", 24, "3:2"),
                                   ("(2,2):(1,6)", 24, "(3,2):(2,12)")])
def test_complement_examples(a, m, r):
    assert str(cv.complement(P(a), m)) == r


def test_complement_follows_what_cutlass_truncates():
    R = cv.complement(P("(2,4):(1,3)"), 24)
    assert str(R) == "2:12" and R.notes[0].text.startswith(NOT_NESTED)
    with pytest.raises(cv.NotAdmissibleError, match="injective"):
        cv.complement(P("(4,4):(1,2)"), 24)


# --- divide / product -------------------------------------------------------------------------------------------

@given(injective_layouts(max_size=512), st.sampled_from(["2:1", "4:1", "2:2", "(2,2):(1,4)", "3:1", "4:2"]))
@SETTINGS
def test_logical_divide_post_condition(A, btext):
    B = P(btext)
    try:
        R = cv.logical_divide(A, B)
    except cv.NotAdmissibleError:
        return
    C = cv.complement(B, cv.size(A))
    assert cv.size(R) >= cv.size(A) or cv.size(R) == cv.size(B) * cv.size(C)
    tile, rest = R[0], R[1]
    for i in range(cv.size(B)):
        assert tile(i) == A(B(i))
    for j in range(cv.size(rest)):
        assert rest(j) == A(C(j))
    Z, T, F = cv.zipped_divide(A, B), cv.tiled_divide(A, B), cv.flat_divide(A, B)
    n = cv.size(R)
    assert Z.values() == R.values() and T.values() == R.values() and F.values() == R.values()
    assert n == cv.size(Z)


@given(layouts(max_rank=2, max_size=64), st.sampled_from(["2:1", "3:1", "(2,2):(1,2)", "4:2", "(2,3):(3,1)"]))
@SETTINGS
def test_logical_product_post_condition(A, btext):
    B = P(btext)
    try:
        R = cv.logical_product(A, B)
    except cv.NotAdmissibleError:
        return
    assert R[0] == A
    assert cv.size(R) == cv.size(A) * cv.size(B)
    C = cv.complement(A, cv.size(A) * cv.cosize(B))
    for j in range(cv.size(B)):
        assert R[1](j) == C(B(j))
    for op in (cv.zipped_product, cv.tiled_product, cv.flat_product):
        assert op(A, B).values() == R.values()


@given(injective_layouts(max_rank=2, max_size=64), st.sampled_from(["(2,3):(1,2)", "(3,4):(1,3)", "(2,2):(2,1)"]))
@SETTINGS
def test_blocked_and_raked_products(A, btext):
    B = P(btext)
    assume(cv.rank(A) <= 2)
    try:
        Rb = cv.blocked_product(A, B)
        Rr = cv.raked_product(A, B)
    except cv.NotAdmissibleError:
        return
    assert cv.size(Rb) == cv.size(Rr) == cv.size(A) * cv.size(B)
    assert sorted(Rb.values()) == sorted(Rr.values())
    if injective(A):
        assert injective(Rb) and injective(Rr)


@pytest.mark.parametrize("expr,r", [
    ("logical_divide((4,2,3):(2,1,8), 4:2)", "((2,2),(2,3)):((4,1),(2,8))"),
    ("logical_divide((9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>)", "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"),
    ("zipped_divide((9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>)", "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))"),
    ("logical_product((2,2):(4,1), 6:1)", "((2,2),(2,3)):((4,1),(2,8))"),
    ("blocked_product((2,5):(5,1), (3,4):(1,3))", "((2,3),(5,4)):((5,10),(1,30))"),
    ("raked_product((2,5):(5,1), (3,4):(1,3))", "((3,2),(4,5)):((10,5),(30,1))"),
    ("right_inverse(((2,2),(4,2)):((1,8),(2,16)))", "(2,4,2,2):(1,4,2,16)"),
    ("right_inverse((4,8):(1,5))", "4:1"),
    ("left_inverse((4,8):(1,5))", "(5,8):(1,4)"),
    ("left_inverse((4,8):(8,1))", "(8,4):(4,1)"),
])
def test_algebra_md_examples(expr, r):
    from cuteverify.algebra.expr import evaluate
    assert str(evaluate(expr)) == r


# --- inverses -------------------------------------------------------------------------------------------------

@given(layouts(max_rank=3, max_size=512))
@SETTINGS
def test_right_inverse_post_condition(L):
    R = cv.right_inverse(L)
    for i in range(cv.size(R)):
        assert L(R(i)) == i


@given(injective_layouts(max_size=512))
@SETTINGS
def test_left_inverse_post_condition(L):
    try:
        R = cv.left_inverse(L)
    except cv.NotAdmissibleError:
        return
    for i in range(cv.size(L)):
        assert R(L(i)) == i


@given(injective_layouts(max_size=256))
@SETTINGS
def test_right_inverse_of_bijection_is_inverse(L):
    C = cv.coalesce(L)
    assume(sorted(C.values()) == list(range(cv.size(C))))
    R = cv.right_inverse(L)
    assert cv.size(R) == cv.size(L)
    for i in range(cv.size(L)):
        assert R(L(i)) == i and L(R(i)) == i


# --- recast / common vector / tile_to_shape --------------------------------------------------------------------

def test_upcast_downcast():
    assert str(cv.upcast(P("(4,8):(1,4)"), 2)) == "(2,8):(1,2)"
    assert str(cv.downcast(P("(4,8):(1,4)"), 2)) == "(8,8):(1,8)"
    L = P("(8,16):(16,1)")
    assert cv.upcast(cv.downcast(L, 4), 4) == L


@given(injective_layouts(max_size=256))
@SETTINGS
def test_max_common_vector(L):
    n = cv.max_common_vector(L, L)
    R = cv.right_inverse(L)
    assert n >= 1
    C = cv.max_common_layout(L, L)
    for i in range(cv.size(C)):
        assert L(C(i)) == i


def test_tile_to_shape():
    R = cv.tile_to_shape(P("(2,2):(1,2)"), (8, 8))
    assert cv.size(R) == 64
    assert sorted(R.values()) == list(range(64))
    assert all(R(m, n) == m % 2 + 2 * (n % 2) + 4 * (m // 2) + 16 * (n // 2) for m in range(8) for n in range(8))
