"""Case splits in the algebra (issue 19): an operation whose result depends on a decision the assumptions leave
open returns a guarded, piecewise layout whose pieces carry their cases; claims are proved per piece; and
``subs`` prints what the concrete operation prints. Every piece is checked against the concrete operation at
many assignments (instantiation by brute force, values enumerated by the evaluator below, which does not use
the library's layout evaluation)."""
from __future__ import annotations

import itertools
import random
import re

import pytest

import cuteverify as cv
from cuteverify.core.piecewise import PiecewiseLayout
from cuteverify.symbolic import Assumptions, decide, parse_expr

T = cv.parse


def _inst(text, values):
    for k, v in values.items():
        text = re.sub(rf"\b{k}\b", str(v), text)
    return text


def brute_values(layout):
    """All values of a concrete layout over ``[0, size)`` in colex order (own enumeration of its leaves)."""
    def leaves(x):
        return [y for e in x for y in leaves(e)] if type(x) is tuple else [x]
    shapes, strides = leaves(layout.shape), leaves(layout.stride)
    out = []
    for digits in itertools.product(*[range(s) for s in reversed(shapes)]):
        out.append(sum(c * d for c, d in zip(reversed(digits), strides)))
    return out


def concrete(op, text, values):
    try:
        return op(T(_inst(text, values)))
    except cv.CuteVerifyError as e:
        return e


def instantiated(R, values):
    try:
        return R.subs(**values)
    except cv.CuteVerifyError as e:
        return e


def agree_with_instantiation(R, op, text, assignments):
    """At every assignment: the symbolic result instantiated and the concrete operation both refuse, or both
    give the same values and the same printed form; returns how many assignments gave a layout."""
    hits = 0
    for values in assignments:
        C, S = concrete(op, text, values), instantiated(R, values)
        if isinstance(C, cv.CuteVerifyError):
            assert isinstance(S, cv.CuteVerifyError), (text, values, S, C)
            continue
        assert not isinstance(S, cv.CuteVerifyError), (text, values, S, C)
        assert brute_values(S) == brute_values(C), (text, values, S, C)
        assert str(S) == str(C), (text, values, S, C)
        hits += 1
    return hits


# --- the issue's cases ---------------------------------------------------------------------------------------

def _compose_48(A):
    return cv.composition(A, T("(4,8):(8,1)"))


def test_composition_splits_on_the_divisibility_order():
    facts = ["M % 4 == 0", "N % 8 == 0"]
    R = _compose_48(T("(M,N):(N,1)", assume=Assumptions(facts)))
    assert isinstance(R, PiecewiseLayout), R
    assert len(R) >= 2
    for p in R:
        assert p.conditions and not isinstance(p.value, cv.CuteVerifyError), p
        assert p.value.assumptions is not None
    grid = [{"M": m, "N": n} for m in range(4, 160, 4) for n in (8, 16, 24, 40)]
    # every assignment lies in exactly one piece
    from cuteverify.core.piecewise import _holds
    for v in grid:
        assert sum(all(_holds(c, v) for c in p.conditions) for p in R) == 1, v
    assert agree_with_instantiation(R, _compose_48, "(M,N):(N,1)", grid) >= 20


def test_composition_split_without_assumptions():
    R = _compose_48(T("(M,N):(N,1)"))
    grid = [{"M": m, "N": n} for m in (1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 64, 96, 128) for n in (1, 2, 3, 8)]
    assert agree_with_instantiation(R, _compose_48, "(M,N):(N,1)", grid) >= 15


def test_claims_about_a_piecewise_layout_hold_per_piece():
    R = _compose_48(T("(M,N):(N,1)", assume=Assumptions(["M % 4 == 0", "N % 8 == 0"])))
    v = cv.is_injective(R)
    assert v.status == "proved" and "case split" in v.method, v
    for m in range(4, 130, 4):
        for n in (8, 16):
            S = instantiated(R, {"M": m, "N": n})
            if isinstance(S, cv.CuteVerifyError):
                continue
            if all(c.holds({"M": m, "N": n}) is not False for c in (o.condition for o in v.obligations)):
                vals = brute_values(S)
                assert len(set(vals)) == len(vals), (m, n, S)
    # surjectivity onto [0, cosize) fails (strides N, 8N leave gaps): refuted in a piece, with its case
    w = cv.is_surjective(R)
    assert w.status == "refuted", w
    a = w.counterexample.assignment
    S = R.subs(**a)
    vals = brute_values(S)
    assert set(vals) != set(range(max(vals) + 1)), (a, S)
    assert "case" in w.method, w


def test_logical_product_of_the_issue_is_one_layout():
    R = cv.logical_product(T("(4,M):(M,1)"), T("(2,N):(1,2)"))
    assert not isinstance(R, PiecewiseLayout), R

    def op(A):
        return cv.logical_product(A, T(_inst("(2,N):(1,2)", {"N": N})))
    for M, N in itertools.product(range(1, 9), (1, 2, 3, 4, 6)):
        S, C = R.subs(M=M, N=N), cv.logical_product(T(f"(4,{M}):({M},1)"), T(f"(2,{N}):(1,2)"))
        assert brute_values(S) == brute_values(C) and str(S) == str(C), (M, N, S, C)


def test_complement_of_the_issue_instantiates_at_one():
    M = parse_expr("M")
    R = cv.complement(T("(M,8):(1,2*M)"), 16 * M)
    assert not [o for o in R.obligations if not o.canonical], R.obligations
    for m in range(1, 33):
        S, C = R.subs(M=m), cv.complement(T(f"({m},8):(1,{2 * m})"), 16 * m)
        assert brute_values(S) == brute_values(C) and str(S) == str(C), (m, S, C)


def test_an_operation_on_a_piecewise_layout_runs_per_piece():
    R = _compose_48(T("(M,N):(N,1)", assume=Assumptions(["M % 4 == 0", "N % 8 == 0"])))
    D = cv.logical_divide(R, T("4:1"))
    assert isinstance(D, PiecewiseLayout) and len(D) >= len(R)
    for m in (4, 8, 16, 32, 64, 128):
        for n in (8, 24):
            S = instantiated(D, {"M": m, "N": n})
            C = cv.logical_divide(_compose_48(T(f"({m},{n}):({n},1)")), T("4:1"))
            assert brute_values(S) == brute_values(C) and str(S) == str(C), (m, n, S, C)


def test_subs_of_a_piecewise_layout_needs_every_case_symbol():
    R = _compose_48(T("(M,N):(N,1)", assume=Assumptions(["M % 4 == 0", "N % 8 == 0"])))
    with pytest.raises(cv.CuteVerifyError):
        R.subs(N=8)


# --- subs prints as the concrete operation, over generated expressions -------------------------------------

_OPS = {
    "coalesce": cv.coalesce,
    "filter": cv.filter,
    "right_inverse": cv.right_inverse,
    "left_inverse": cv.left_inverse,
    "composition": lambda A: cv.composition(A, T("(2,4):(1,2)")),
    "composition_strided": lambda A: cv.composition(A, T("(4,8):(8,1)")),
    "zipped_divide": lambda A: cv.zipped_divide(A, (T("4:1"), T("2:1"))),
    "logical_divide": lambda A: cv.logical_divide(A, T("8:1")),
    "logical_product": lambda A: cv.logical_product(A, T("(2,2):(1,2)")),
    "blocked_product": lambda A: cv.blocked_product(T("(2,2):(1,2)"), A),
    "complement": lambda A: cv.complement(A, 4096),
}


def _random_layout(rng):
    """A rank-2 or rank-3 layout over M and N: sizes are symbols, small ints or products; strides compact
    (column or row major), 0, or symbolic multiples."""
    rank = rng.choice((2, 2, 3))
    shapes = [rng.choice(["M", "N", "2", "4", "2*M", "M"]) for _ in range(rank)]
    kind = rng.choice(("col", "row", "zero", "free"))
    strides, acc = [], "1"
    order = range(rank) if kind != "row" else reversed(range(rank))
    strides = [None] * rank
    for i in order:
        strides[i] = acc
        acc = f"{acc}*{shapes[i]}" if acc != "1" else shapes[i]
    if kind == "zero":
        strides[rng.randrange(rank)] = "0"
    if kind == "free":
        strides = [rng.choice(["1", "M", "2*N", "4", "N"]) for _ in range(rank)]
    return f"({','.join(shapes)}):({','.join(strides)})"


@pytest.mark.parametrize("seed", range(2))
def test_subs_prints_as_the_concrete_operation_on_generated_layouts(seed):
    rng = random.Random(seed)
    hits = 0
    for _ in range(5):
        text = _random_layout(rng)
        facts = rng.choice(([], ["2 | M"], ["M % 4 == 0", "N % 2 == 0"]))
        for name, op in _OPS.items():
            try:
                R = op(T(text, assume=Assumptions(facts) if facts else None))
            except cv.CuteVerifyError:
                continue
            grid = [v for v in ({"M": m, "N": n} for m in (1, 2, 4, 8, 12) for n in (1, 2, 3, 4))
                    if Assumptions(facts).holds(v)]
            for values in rng.sample(grid, min(5, len(grid))):
                C, S = concrete(op, text, values), instantiated(R, values)
                if isinstance(C, cv.CuteVerifyError) or isinstance(S, cv.CuteVerifyError):
                    # the symbolic result may not apply there (a false obligation), the concrete one may refuse
                    # (inadmissible): a layout from subs where the concrete operation refuses is wrong
                    assert not (isinstance(C, cv.CuteVerifyError) and not isinstance(S, cv.CuteVerifyError)
                                and C.kind == "input" and "not admissible" in str(C)), (name, text, values, S, C)
                    continue
                assert brute_values(S) == brute_values(C), (name, text, facts, values, S, C)
                assert str(S) == str(C), (name, text, facts, values, S, C)
                hits += 1
    assert hits >= 25, hits


@pytest.mark.parametrize("facts", [["8 < M", "M <= 32"], ["M % 4 == 0", "8 < M"], ["4 <= M", "M < 64"]])
def test_a_bound_decides_no_divisibility(facts):
    """A case split adds bounds (``8 < M``) to the facts; a bound read as a divisibility fact would drop an
    obligation (``8 | M``) and claim a result at M = 12. Checked against the admissible values."""
    M = parse_expr("M")
    asm = Assumptions(facts)
    with decide.context(asm):
        got = decide.divides(8, M)
    truth = {m % 8 == 0 for m in range(1, 200) if asm.holds({"M": m})}
    assert got is None or truth == {got}, (facts, got, truth)


def test_a_cotarget_given_as_text_is_a_size():
    M = parse_expr("M")
    assert str(cv.complement(T("(4,8):(1,8)"), "64")) == str(cv.complement(T("(4,8):(1,8)"), 64))
    A = T("(M,8):(1,2*M)")
    assert str(cv.complement(A, "16*M")) == str(cv.complement(A, 16 * M))
    assert str(cv.complement(T("2:1"), "(3,4)")) == str(cv.complement(T("2:1"), (3, 4)))
    with pytest.raises(cv.CuteVerifyError):
        cv.complement(T("(4,8):(1,8)"), "(4,8):(8,1)")


def test_a_piecewise_layout_prints_each_piece_with_where_it_is_valid():
    R = _compose_48(T("(M,N):(N,1)", assume=Assumptions(["M % 4 == 0", "N % 8 == 0"])))
    text = str(R)
    for p in R:
        assert " and ".join(map(str, p.conditions)) in text
        for o in p.obligations:
            assert o.canonical or o.text() in text
    with pytest.raises(cv.CuteVerifyError):
        R.values()


def test_equality_of_piecewise_layouts_is_decided_per_pair_of_pieces():
    facts = ["M % 4 == 0", "N % 8 == 0"]
    R = _compose_48(T("(M,N):(N,1)", assume=Assumptions(facts)))
    same = cv.are_equal(R, _compose_48(T("(M,N):(N,1)", assume=Assumptions(facts))))
    assert same.status == "proved", same
    # the large-M piece is (4,8):(8N,N); equality with it fails where M is small: the witness must be real
    other = T("(4,8):(8*N,N)", assume=Assumptions(facts))
    w = cv.are_equal(R, other)
    assert w.status == "refuted", w
    a = w.counterexample.assignment
    assert brute_values(R.subs(**a)) != brute_values(other.subs(**a)), (a, w)
    # and where M >= 32 they do agree, per instantiation
    big = _compose_48(T("(M,N):(N,1)", assume=Assumptions(facts + ["M >= 32", "M % 32 == 0"])))
    v = cv.are_equal(big, T("(4,8):(8*N,N)", assume=Assumptions(facts + ["M >= 32", "M % 32 == 0"])))
    assert v.status == "proved", v
    for m in (32, 64, 96):
        for n in (8, 16):
            assert brute_values(big.subs(M=m, N=n)) == brute_values(T(f"(4,8):({8 * n},{n})"))
