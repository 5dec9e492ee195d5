"""Post-conditions of every algebra operation (ALGEBRA.md section 3), checked by an evaluator independent of
cuteverify (tests/oracles/strategies.py: it parses printed layouts and evaluates them itself).

A refusal (NotAdmissibleError) never passes a test by itself (issue 25):
- on the committed CuTe C++ corpus (tests/oracles/cpp_oracle/corpus), cuteverify must answer every case where C++
  answers with a result that satisfies the post-condition, and its answer must satisfy it too; the cases it
  refuses today although C++'s answer is right are listed one by one in KNOWN_OVER_REFUSALS (strict: a new
  one fails, and so does a listed one that gets fixed, until it leaves the list);
- on generated inputs, a refusal must name a condition that the test finds violated on its own
  (``_justified``), and an answer must satisfy the post-condition.
"""
import os
import re

import pytest
from hypothesis import assume, given, settings, strategies as st

import cuteverify as cv
from cuteverify.core.tuples import flatten
from cuteverify.algebra.complement import NOT_NESTED
from strategies import (coalesce_of, cosize_of, cute_complement, ev, flat, holds, injective_layouts, layouts,
                        parse_plain, size_of)

from cpp_oracle import harness as h

P = cv.parse
SETTINGS = settings(max_examples=150, deadline=None)


def same_function(a, b, n=None):
    n = cv.size(a) if n is None else n
    return all(a(i) == b(i) for i in range(n))


def injective(L):
    v = L.values()
    return len(set(v)) == len(v)


def lay(L):
    """``(shape, stride)`` of a cuteverify layout, read from its printed form."""
    out = parse_plain(str(L))
    assert out is not None, str(L)
    return out


def leaves(x):
    return list(zip(flat(x[0]), flat(x[1])))


# --- refusals: the named condition, checked here ----------------------------------------------------------

_STRIDE = re.compile(r"stride divisibility: (\d+) and (\d+) must divide one another at mode (\d+) of the coalesced "
                     r"left layout \((-?\d+):(-?\d+)\)")
_SHAPE = re.compile(r"shape divisibility: (\d+) and (\d+) must divide one another at mode (\d+) of the coalesced "
                    r"left layout for the right mode (-?\d+):(-?\d+)")
_CARRY = re.compile(r"carry: .* at the leaf coordinates \(([\d,]*)\) A\(B\(c\)\) = (-?\d+) but the leaves composed one "
                    r"by one give (-?\d+)")
_OVERLAP = re.compile(r"mode (\d+):(-?\d+) starts inside the extent (\d+) of the smaller modes")


def _overlap_at(A):
    """The ``(s, d, cur)`` where CuTe's complement construction meets a mode inside the extent of the smaller
    ones (``d < cur``), or None."""
    cur = 1
    for d, s in sorted((d, s) for s, d in leaves(A) if d != 0 and s != 1):
        if d < cur:
            return s, d, cur
        cur = d * s
    return None


def _justified(e, lefts=(), rights=(), complemented=()):
    """Assert that the refusal ``e`` names a condition that is violated, recomputed here: ``lefts`` /
    ``rights`` are the (shape, stride) operands of the compositions the operation performs, ``complemented``
    the layouts it takes a complement of."""
    msg = str(e)
    m = _STRIDE.search(msg)
    if m:
        x, y, i, s, d = map(int, m.groups())
        assert x % y and y % x, msg
        assert any(i < len(leaves(coalesce_of(L))) and leaves(coalesce_of(L))[i] == (s, d) for L in lefts), msg
        return
    m = _SHAPE.search(msg)
    if m:
        x, y, i, n, r = map(int, m.groups())
        assert x % y and y % x, msg
        assert any(i < len(leaves(coalesce_of(L))) for L in lefts), msg
        assert any((n, r) in leaves(R) for R in rights), msg
        return
    m = _CARRY.search(msg)
    if m:
        # B's leaves at these coordinates: A at their sum differs from the sum of A at each, so no layout of
        # B's shape (its leaves are fixed one by one by R(c) == A(B(c)) on the axes) is A o B
        c = [int(x) for x in m.group(1).split(",")]
        whole, parts = int(m.group(2)), int(m.group(3))
        assert whole != parts, msg
        found = False
        for R in rights:
            lv = leaves(R)
            if len(lv) != len(c) or any(not 0 <= x < n for x, (n, _) in zip(c, lv)):
                continue
            vals = [x * d for x, (_, d) in zip(c, lv)]
            found = found or any(ev(L, sum(vals)) == whole and sum(ev(L, v) for v in vals) == parts for L in lefts)
        assert found, msg
        return
    m = _OVERLAP.search(msg)
    if m:
        assert tuple(map(int, m.groups())) in [_overlap_at(C) for C in complemented], msg
        return
    raise AssertionError(f"a refusal that names no condition this test can check: {msg}")


def _tiler_lay(b):
    return [(x, 1) if type(x) is int else x for x in b]


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
    a, b = lay(A), lay(B)
    try:
        R = cv.composition(A, B)
    except cv.NotAdmissibleError as e:
        _justified(e, [a], [b])
        return
    assert cv.compatible(B.shape, R.shape) or cv.size(R) == cv.size(B)
    assert holds("composition", [str(A), str(B)], lay(R)) is not False, (str(A), str(B), str(R))


@given(layouts(max_rank=3))
@SETTINGS
def test_composition_with_tiler(A):
    tiler = tuple(cv.Layout(max(1, cv.size(A[i]) // 2), 1) for i in range(cv.rank(A)))
    text = "<" + ",".join(map(str, tiler)) + ">"
    try:
        R = cv.composition(A, tiler)
    except cv.NotAdmissibleError as e:
        _justified(e, [lay(A[i]) for i in range(cv.rank(A))], [lay(t) for t in tiler])
        return
    assert holds("composition", [str(A), text], lay(R)) is not False, (str(A), text, str(R))


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
    assert holds("complement", [str(A), str(M)], lay(R)) is not False, (str(A), M, str(R))
    nested = not any(n.text.startswith(NOT_NESTED) for n in R.notes)
    assert nested == (_overlap_at(lay(A)) is None and all(
        d % c == 0 for c, d in _extents(lay(A)))), (str(A), str(R))
    return R


def _extents(A):
    """``(cur, d)`` at each step of the construction (sorted non-trivial modes)."""
    out, cur = [], 1
    for d, s in sorted((d, s) for s, d in leaves(A) if d != 0 and s != 1):
        out.append((cur, d))
        cur = d * s
    return out


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
    except cv.NotAdmissibleError as e:
        _justified(e, complemented=[lay(A)])
        return
    assert _overlap_at(lay(A)) is None, str(A)  # CuTe C++ rejects these (static_assert): so must we


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
    a, b = lay(A), lay(B)
    try:
        R = cv.logical_divide(A, B)
    except cv.NotAdmissibleError as e:
        C = cute_complement(b, coalesce_of(a)[0])
        _justified(e, [a], [((b[0], C[0]), (b[1], C[1]))], [b])
        return
    assert holds("logical_divide", [str(A), btext], lay(R)) is not False, (str(A), btext, str(R))
    Z, T, F = cv.zipped_divide(A, B), cv.tiled_divide(A, B), cv.flat_divide(A, B)
    assert holds("zipped_divide", [str(A), btext], lay(Z)) is not False
    assert Z.values() == R.values() and T.values() == R.values() and F.values() == R.values()
    assert cv.size(R) == cv.size(Z)


@given(layouts(max_rank=2, max_size=64), st.sampled_from(["2:1", "3:1", "(2,2):(1,2)", "4:2", "(2,3):(3,1)"]))
@SETTINGS
def test_logical_product_post_condition(A, btext):
    B = P(btext)
    a, b = lay(A), lay(B)
    try:
        R = cv.logical_product(A, B)
    except cv.NotAdmissibleError as e:
        C = cute_complement(a, size_of(a) * cosize_of(b))
        _justified(e, [C] if C else [], [b], [a])
        return
    assert R[0] == A
    assert holds("logical_product", [str(A), btext], lay(R)) is not False, (str(A), btext, str(R))
    for op in (cv.zipped_product, cv.tiled_product, cv.flat_product):
        assert op(A, B).values() == R.values()


@given(injective_layouts(max_rank=2, max_size=64), st.sampled_from(["(2,3):(1,2)", "(3,4):(1,3)", "(2,2):(2,1)"]))
@SETTINGS
def test_blocked_and_raked_products(A, btext):
    B = P(btext)
    assume(cv.rank(A) <= 2)
    a, b = lay(A), lay(B)
    try:
        Rb = cv.blocked_product(A, B)
        Rr = cv.raked_product(A, B)
    except cv.NotAdmissibleError as e:
        r = max(cv.rank(A), cv.rank(B))
        pad = lambda x: (tuple(flat_mode(x, m)[0] for m in range(r)), tuple(flat_mode(x, m)[1] for m in range(r)))
        ap, bp = pad(a), pad(b)
        C = cute_complement(ap, size_of(ap) * cosize_of(bp))
        _justified(e, [C] if C else [], [bp], [ap])
        return
    assert holds("blocked_product", [str(A), btext], lay(Rb)) is not False, (str(A), btext, str(Rb))
    assert holds("raked_product", [str(A), btext], lay(Rr)) is not False, (str(A), btext, str(Rr))
    assert cv.size(Rb) == cv.size(Rr) == cv.size(A) * cv.size(B)
    assert sorted(Rb.values()) == sorted(Rr.values())
    r = max(cv.rank(A), cv.rank(B))
    ap = (tuple(flat_mode(a, m)[0] for m in range(r)), tuple(flat_mode(a, m)[1] for m in range(r)))
    bp = (tuple(flat_mode(b, m)[0] for m in range(r)), tuple(flat_mode(b, m)[1] for m in range(r)))
    if injective(A) and _repeat_adds_up(ap, bp):
        assert injective(Rb) and injective(Rr)


def _repeat_adds_up(ap, bp):
    """The repeat modes ``C o B_m`` (CuTe composes B with the complement C mode by mode) add up to ``C o B``:
    C at each B(i) equals the sum of C at B's modes. Where they do not (C's digits carry), copies of the block
    can overlap, in CuTe C++ as here (``blocked_product(4:3, (2,2):(2,1))`` is
    ``((4,2),(1,2)):((3,2),(0,1))``), so injectivity is not expected."""
    C = cute_complement(ap, size_of(ap) * cosize_of(bp))
    modes = [flat_mode(bp, m) for m in range(len(bp[0]))]
    for i in range(size_of(bp)):
        parts, k = 0, i
        for M in modes:
            parts += ev(C, ev(M, k % size_of(M)))
            k //= size_of(M)
        if ev(C, ev(bp, i)) != parts:
            return False
    return True


def flat_mode(x, m):
    if type(x[0]) is tuple:
        return (x[0][m], x[1][m]) if m < len(x[0]) else (1, 0)
    return x if m == 0 else (1, 0)


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
    assert holds("right_inverse", [str(L)], lay(R)) is not False, (str(L), str(R))


@given(injective_layouts(max_size=512))
@SETTINGS
def test_left_inverse_post_condition(L):
    R = cv.left_inverse(L)  # an injective layout with non-negative strides always has one: no refusal
    assert holds("left_inverse", [str(L)], lay(R)) is True, (str(L), str(R))


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


# --- the committed CuTe C++ corpus: no refusal where C++ answers correctly ----------------------------------

# Corpus cases (ids without the ``op:`` prefix) where cuteverify refuses although CuTe C++'s answer satisfies
# the post-condition as strategies.POST checks it (strict: a new one fails, and so does a listed one that gets
# fixed). Each left here is wrong on the left layout's extended domain, which the evaluator leaves open when
# the left layout has a size-1 leaf (``strategies.at``), but which C++'s own composition fixes: it coalesces
# the left layout with ``coalesce_x``, which keeps a trailing size-1 leaf as the extended mode. No layout of
# B's shape equals A o B on it, so cuteverify's refusal is the right answer.
KNOWN_OVER_REFUSALS = {
    "composition": {
        # ((2,6),1):((1,1),8) o 12:8: C++ gives (2,6):(4,8), but A(B(2)) = A(16) = 2 + 8 = 10, not 8 (the
        # leaf's values 8k step by 4 through the mode 6:1, which 4 does not divide)
        "058bd15065eb",
    },
    "zipped_divide": {
        # (4,(2,5),1):(0,(0,0),4) / (2):(16): C++ gives ((2),(16,2)):((0),(0,0)), but the leaves 2:16, 16:1
        # and 2:32 of (B, complement) add up past 40 = size(A): A(16 + 15 + 32) = 4, not 0 (a carry)
        "e95f1b8dd233",
        # (2,6,1):(-1,-2,12) / (1,6):(8,8): C++ gives ((1,(2,3)),8):((12,(-8,12)),-1), but A(B(2)) = A(16)
        # = -4 + 12 = 8, not 12 (the leaf 6:8 steps by 8 through the mode 12:-1, which 8 does not divide)
        "1d1fec28f98b",
    },
}

OPS = ["composition", "logical_divide", "zipped_divide", "logical_product", "blocked_product", "raked_product",
       "complement", "left_inverse", "right_inverse"]


def corpus_check(op, apply=None, every=23, limit=None):
    """``(refused, wrong)``: ids of the corpus cases of ``op`` that ``apply`` (cuteverify by default) refuses
    although C++'s answer satisfies the post-condition, and of the answers (every ``every``-th case) that
    violate it; ``limit``: the first cases only."""
    apply = apply or h.cv_apply
    refused, wrong = [], []
    for k, r in enumerate(h.read_corpus(op)[:limit]):
        if "cpp_reject" in r or "size" not in r:
            continue
        cpp = parse_plain(r["result"])
        if cpp is None:
            continue
        try:
            out = apply(op, r["args"])
        except cv.NotAdmissibleError:
            if holds(op, r["args"], cpp):
                refused.append(r["id"].split(":")[1])
            continue
        if k % every == 0:
            got = parse_plain(str(out))
            if got is None or holds(op, r["args"], got) is False:
                wrong.append(f"{op}({', '.join(r['args'])}) = {out}")
    return refused, wrong


@pytest.mark.differential
@pytest.mark.parametrize("op", OPS)
def test_corpus_no_refusal_where_cute_cpp_answers_correctly(op):
    if not os.path.exists(h.corpus_path(op)):
        pytest.skip("no committed C++ corpus")
    refused, wrong = corpus_check(op)
    assert not wrong, wrong[:5]
    known = KNOWN_OVER_REFUSALS.get(op, set())
    new = sorted(set(refused) - known)
    fixed = sorted(known - set(refused))
    assert not new, f"{len(new)} new refusals of inputs C++ answers correctly: {op} {new[:10]}"
    assert not fixed, f"no longer refused (remove from KNOWN_OVER_REFUSALS): {op} {fixed}"


@pytest.mark.differential
def test_a_build_that_refuses_everything_fails_these_tests():
    """The checks above on a cuteverify that refuses every composition, divide, product and inverse."""
    def refuse(op, args):
        raise cv.NotAdmissibleError(op, "refused")
    for op in OPS:
        refused, _ = corpus_check(op, refuse, every=10 ** 9, limit=200)
        assert len(set(refused) - KNOWN_OVER_REFUSALS.get(op, set())) > 20, op
    with pytest.raises(AssertionError, match="names no condition"):
        _justified(cv.NotAdmissibleError("composition", "refused"), [((4, 2), (1, 4))], [(8, 1)])
    with pytest.raises(AssertionError):  # a divisibility it names that does hold
        _justified(cv.NotAdmissibleError("composition", "stride divisibility: 2 and 4 must divide one another at "
                                         "mode 0 of the coalesced left layout (4:1)"), [(4, 1)], [(2, 2)])
