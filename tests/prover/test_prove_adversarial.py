"""Adversarial tests: each tries to make a prover path answer "proved" (or "refuted") wrongly.

One test per hole found in the audit (named after the path), plus symbolic sweeps that check every proved
verdict against brute force at every small admissible assignment and every refutation at its assignment.
"""
import itertools
import random

import pytest
import sympy

import cuteverify as cv
from cuteverify import ComposedLayout, Layout, Swizzle
from cuteverify.core.tuples import flatten
from cuteverify.errors import Unsupported
from cuteverify.prover import exact, z3query
from cuteverify.prover.forms import decompose, norm_value
from cuteverify.symbolic import smt

M, N = cv.symbol("M"), cv.symbol("N")


def _well_formed(L):
    outer = L.outer if hasattr(L, "outer") else L
    return all(type(s) is int and s >= 1 for s in flatten(outer.shape)) and \
        all(type(d) is int for d in flatten(outer.stride))


def _at(L, values):
    if hasattr(L, "outer"):
        off = L.offset.subs({cv.symbol(k): v for k, v in values.items()}) if hasattr(L.offset, "subs") else L.offset
        return ComposedLayout(L.inner, int(off), L.outer.subs(values))
    return L.subs(values)


def _injective(L):
    vals = [tuple(sorted(norm_value(v).items())) for v in L.values()]
    return len(set(vals)) == len(vals)


# --- holes found in the audit ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["(N,2):(1,0)", "(N,M):(1,0)", "(M):(0)", "(1,3,1):(1,0,-M)"])
def test_symbolic_stride0_mode_is_not_injective(text):
    # hole: the symbolic sorted-strides proof dropped stride-0 modes (right for surjectivity, wrong for
    # injectivity) and said "proved"
    v = cv.is_injective(text)
    assert v.status == "refuted", str(v)
    L = _at(cv.parse(text), v.counterexample.assignment)
    i, j = v.counterexample.coords
    assert i != j and L(i) == L(j)


def test_symbolic_swizzle_over_stride0_mode_is_not_injective():
    L = ComposedLayout(Swizzle(1, 0, 1), 0, cv.parse("(3,M*N):(0,M)"))
    assert cv.is_injective(L).status == "refuted"
    assert cv.is_bijective(L).status != "proved"


@pytest.mark.parametrize("codomain", [(64, 64), 64, {(): 4, (1,): 4}])
def test_symbolic_coordinate_codomain_is_checked(codomain):
    # hole: for coordinate layouts a codomain given as a tuple or an int (or a box with a coordinate the
    # layout never moves) was ignored by the symbolic proof: M = 1 reaches nothing but 0
    v = cv.is_surjective("(M,N):(1@0,1@1)" if codomain != {(): 4, (1,): 4} else "(M):(1@0)", codomain=codomain)
    assert v.status == "refuted", str(v)


def test_symbolic_coordinate_codomain_claim_text():
    assert cv.prove("surjective((M):(1@0), (M,2))").status == "refuted"
    assert cv.prove("surjective((M,N):(1@0,1@1), (M,N))").status == "proved"
    assert cv.prove("surjective((M,N):(1@0,1@1), (M,1))").status == "proved"


def test_refutation_needs_every_assumption_to_hold():
    # hole: an assignment was admitted when a fact over a symbol it did not fix (M == 2*K) evaluated to
    # "don't know", so M = 1 (no integer K) was reported as a counterexample
    A = cv.Assumptions(["M in {1,2,3,4,5,6}", "M == 2*K", "K in {1,2}"])
    v = cv.is_injective("(M,2):(1,M-1)", assume=A)
    assert v.status == "refuted" and v.counterexample.assignment["M"] == 2, str(v)
    v = cv.is_injective("(M,2):(1,M-1)", assume=cv.Assumptions(["M in {1,2,3,5,6}", "M == 2*K"]))
    assert v.status != "refuted" or v.counterexample.assignment.get("M") % 2 == 0, str(v)


def test_pow2_bounded_search_is_not_a_proof():
    # hole: Z3's pow2 retry restricted the symbols to 2^0..2^62 and reported "unsat" as proved; M = 2^64
    # collides
    v = cv.is_injective("(M,2):(1,9223372036854775808)", assume=["pow2(M)"])
    assert v.status != "proved", str(v)
    if v.status == "refuted":
        m = v.counterexample.assignment["M"]
        assert m & (m - 1) == 0
        L = cv.parse("(M,2):(1,9223372036854775808)").subs(M=m)
        i, j = v.counterexample.coords
        assert L(i) == L(j)


def test_pow2_relaxation_still_proves():
    assert cv.is_bijective("(M,N):(1,M)", assume=["pow2(M)"]).status == "proved"
    v = cv.is_injective("(M,2):(1,M-1)", assume=["pow2(M)", "M >= 2"])
    assert v.status == "refuted" and v.counterexample.assignment["M"] in (2, 4, 8, 16, 32, 64)


def test_z3_division_by_a_possibly_negative_divisor_is_not_translated():
    # Z3's div/mod match Python's floor division only for a positive divisor
    env = smt.SymEnv()
    with pytest.raises(Unsupported):
        env.term(sympy.floor(N / (1 - M)))
    with pytest.raises(Unsupported):
        env.term(sympy.Mod(N, 1 - M))
    env.term(sympy.floor(N / 8))
    env.term(sympy.Mod(N, M))


def test_symbolic_swizzle_offset_is_substituted():
    # a symbolic offset was invisible (free symbols of the outer layout only): surjectivity crashed
    L = ComposedLayout(Swizzle(1, 0, 1), N, Layout((4,), (1,)))
    assert cv.is_injective(L).status == "proved"
    v = cv.is_surjective(L)
    assert v.status == "refuted" and "N" in v.counterexample.assignment


def test_unknown_from_a_crash_never_becomes_a_verdict(monkeypatch):
    def boom(*a, **k):
        raise ZeroDivisionError("boom")
    monkeypatch.setattr(exact, "injective", boom)
    v = cv.is_injective("(4,8):(1,4)")
    assert v.status == "unknown" and "boom" in v.reason


def test_z3_unknown_is_unknown(monkeypatch):
    # rlimit: a tiny resource limit makes Z3 give up; that must stay unknown
    monkeypatch.setattr(smt, "SYMBOLIC_QUERY", 1)
    f = decompose(cv.parse("(M,N,K):(1,M,M*N+1)"))
    r = z3query.z3_injective(f, None)
    assert r.status == "unknown"


def test_structural_step_that_records_an_obligation_is_not_a_proof(monkeypatch):
    from cuteverify.prover import queries
    from cuteverify.symbolic import decide
    from cuteverify.symbolic.conditions import Condition

    def sneaky(ls, extra):
        decide.obligate(Condition("lt", M, 4), "assumed silently")
        return "sneaky"
    monkeypatch.setattr(queries.Injective, "structural", lambda self, ls, extra: sneaky(ls, extra))
    v = cv.is_injective("(M,2):(1,M)")
    assert v.method != "sneaky"


# --- paths that were sound: pinned -----------------------------------------------------------------------

def test_negative_strides():
    assert cv.is_injective("(4,2):(-1,4)").status == "proved"
    assert cv.is_injective("(4,2):(-1,3)").status == "refuted"
    assert cv.is_surjective("(4,2):(-1,4)", 5).status == "proved"  # values -3..0 and 1..4
    v = cv.is_surjective("(4,2):(-1,5)", 5)  # values -3..0 and 2..5: 1 is missed
    assert v.status == "refuted" and v.counterexample.value == 1
    v = cv.is_bijective("(4):(-1)")
    assert v.status == "refuted" and v.counterexample.kind == "out-of-range"
    assert cv.is_injective("(M,2):(1,-M)").status != "refuted"


def test_size1_modes_and_stride0():
    assert cv.is_bijective("(M,1,N):(1,0,M)").status == "proved"
    assert cv.is_bijective("(M,1,N):(1,5,M)").status == "proved"
    assert cv.is_surjective("(M,2):(1,0)").status == "proved"
    assert cv.is_bijective("(M,2):(1,0)").status == "refuted"


def test_swizzle_with_offset_is_not_onto():
    L = ComposedLayout(Swizzle(1, 0, 1), 1, Layout((4,), (1,)))
    assert cv.is_surjective(L, 4).status == "refuted"
    assert cv.is_bijective(L).status == "refuted"
    assert cv.is_injective(L).status == "proved"


def test_swizzle_block_larger_than_cosize():
    # S<2,0,2> has a block of 16; over [0, 8) it still permutes (bit 3 is 0). S<1,2,1> (block 16) does not
    # permute [0, 12): 8 -> 12
    assert cv.is_bijective(ComposedLayout(Swizzle(2, 0, 2), 0, Layout((8,), (1,)))).status == "proved"
    assert cv.is_bijective(ComposedLayout(Swizzle(2, 0, 2), 0, Layout((12,), (1,)))).status == "proved"
    L = ComposedLayout(Swizzle(1, 2, 1), 0, Layout((12,), (1,)))
    assert sorted(L.values()) != list(range(12))
    assert cv.is_bijective(L).status == "refuted"
    assert cv.is_surjective(L, 12).status == "refuted"


def test_symbolic_swizzle_bijective_needs_block_alignment():
    assert cv.is_bijective(ComposedLayout(Swizzle(3, 3, 3), 0, cv.parse("(8,M*64):(M*64,1)"))).status == "proved"
    v = cv.is_bijective(ComposedLayout(Swizzle(3, 3, 3), 0, cv.parse("(8,M):(M,1)")))
    assert v.status != "proved"  # false at M = 9
    assert cv.is_bijective(ComposedLayout(Swizzle(3, 3, 3), 0, cv.parse("(8,9):(9,1)"))).status == "refuted"


def test_finite_sets_with_a_stride_that_is_wrong_off_the_set():
    # stride 3*(M/2 - 3) is 0 (a collision) at M = 6 only
    assert cv.is_injective("(3,2):(1,(3*M-18)/2)", assume=["M in {4,8}"]).status == "proved"
    v = cv.is_injective("(3,2):(1,(3*M-18)/2)", assume=["M in {4,6,8}"])
    assert v.status == "refuted" and v.counterexample.assignment == {"M": 6}


def test_finite_set_mixed_with_divisibility():
    v = cv.is_injective("(3,2):(1,(3*M-18)/2)", assume=["M in {4,6,8}", "4 | M"])
    assert v.status == "proved"


def test_obligations_listed_when_they_are_hypotheses():
    v = cv.complement_disjoint("(M,4):(1,M*8)", "M*64")
    assert v.status == "proved"
    for o in v.obligations:
        assert o.reason


# --- symbolic sweeps ---------------------------------------------------------------------------------------

_SH = [M, N, 2, 3, 1, 4, M * N, 2 * M]
_ST = [0, 1, 2, M, N, 2 * M, M * N, M - 1, M + 1, 2 * N, 4, -1, -M]


def _rand_sym(rng):
    r = rng.randint(1, 3)
    L = Layout(tuple(rng.choice(_SH) for _ in range(r)), tuple(rng.choice(_ST) for _ in range(r)))
    if rng.random() < 0.25:
        return ComposedLayout(Swizzle(1, 0, 1), 0, L)
    return L


def _truth(kind, L, n):
    vals = list(L.values())
    if kind == "injective":
        return _injective(L)
    if kind == "surjective":
        n = n if n is not None else max(vals) + 1
        return set(range(n)) <= set(vals)
    return sorted(vals) == list(range(len(vals)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_symbolic_sweep(seed):
    rng = random.Random(seed)
    for _ in range(120):
        L = _rand_sym(rng)
        kind = rng.choice(["injective", "surjective", "bijective"])
        cd = rng.choice([None, M, 2 * M, M * N]) if kind == "surjective" else None
        v = {"injective": lambda: cv.is_injective(L), "surjective": lambda: cv.is_surjective(L, cd),
             "bijective": lambda: cv.is_bijective(L)}[kind]()
        if v.status == "proved":
            for m, n in itertools.product(range(1, 8), range(1, 8)):
                Lc = _at(L, {"M": m, "N": n})
                if not _well_formed(Lc):
                    continue
                nn = int(cd.subs({M: m, N: n})) if cd is not None else None
                assert _truth(kind, Lc, nn), f"wrong proof: {v} at M={m}, N={n}"
        elif v.status == "refuted":
            a = v.counterexample.assignment
            Lc = _at(L, a)
            nn = int(cd.subs({cv.symbol(k): x for k, x in a.items()})) if cd is not None else None
            assert not _truth(kind, Lc, nn), f"wrong refutation: {v}"
