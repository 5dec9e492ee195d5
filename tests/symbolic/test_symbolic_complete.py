"""Symbolic completeness (issue 19): divisibility facts encode in Z3, bounded symbols are finite sets, Z3
proves surjectivity via injectivity + range, and every proof is checked against enumeration of sampled
assignments with the evaluator below (independent of the library's own evaluation)."""
from __future__ import annotations

import itertools
import random
import re

import pytest

import cuteverify as cv
from cuteverify.symbolic import Assumptions, domain, parse_expr
from cuteverify.symbolic.lazy import sympy

# --- an evaluator of flat layout texts of this file ----------------------------------------------------------


def _entries(t):
    body, parts, depth, cur = t[1:-1], [], 0, ""
    for ch in body:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [parse_expr(x) for x in parts + [cur]]


def _at(e, values):
    v = sympy.sympify(e).subs({sympy.Symbol(k, integer=True, positive=True): x for k, x in values.items()})
    return int(v) if v.is_Integer else None


def values_of(text, values):
    """All values of ``[S<B,M,S> o 0 o ](s0,s1,...):(d0,d1,...)`` at an assignment (None: not a layout)."""
    sw = None
    if text.startswith("S<"):
        head, text = text.split(" o 0 o ")
        sw = tuple(int(x) for x in head[2:-1].split(","))
    sh, st = text.split(":")
    shapes = [_at(e, values) for e in _entries(sh)]
    strides = [_at(e, values) for e in _entries(st)]
    if None in shapes or None in strides or min(shapes) < 1:
        return None
    size = 1
    for x in shapes:
        size *= x
    if size > (1 << 13):
        return None  # too large to enumerate here: the assignment is skipped
    out = []
    for digits in itertools.product(*[range(s) for s in reversed(shapes)]):
        x = sum(c * d for c, d in zip(reversed(digits), strides))
        if sw is not None:
            b, m, s = sw
            x ^= (x & (((1 << b) - 1) << (m + s))) >> s
        out.append(x)
    return out


def brute(query, text, values):
    vals = values_of(text, values)
    if vals is None:
        return None
    if query == "injective":
        return len(set(vals)) == len(vals)
    if query == "surjective":
        return set(vals) == set(range(max(vals) + 1))
    return sorted(vals) == list(range(len(vals)))  # bijective


def admissible(facts, names, pool=range(1, 40), extra=(64, 96, 128, 192, 256, 384, 512)):
    asm = Assumptions(facts)
    cand = sorted(set(pool) | set(extra))
    for combo in itertools.product(*[cand] * len(names)):
        v = dict(zip(names, combo))
        if asm.holds(v):
            yield v


def check_sound(query, text, facts, names, limit=60):
    """The verdict agrees with brute force at every sampled admissible assignment; returns the verdict."""
    fn = {"injective": cv.is_injective, "surjective": cv.is_surjective, "bijective": cv.is_bijective}[query]
    v = fn(text, assume=facts or None)
    if v.status == "refuted" and v.counterexample.assignment:
        assert brute(query, text, v.counterexample.assignment) is False, (text, facts, v)
    if v.status == "proved":
        hyps = [o.condition for o in v.obligations]
        for k, values in enumerate(admissible(facts, names)):
            if k >= limit:
                break
            if any(c.holds(values) is False for c in hyps):
                continue
            b = brute(query, text, values)
            assert b is not False, (text, facts, values, v)
    return v


# --- divisibility facts encode in Z3 ----------------------------------------------------------------------------

def test_rational_terms_encode_by_clearing_denominators():
    from cuteverify.symbolic import smt
    env = {}
    c = smt.condition_to_z3("ne", parse_expr("M/128"), 1, env)
    assert str(c) == "128 != M"
    d = smt.condition_to_z3("lt", parse_expr("M/N"), 3, env)
    assert str(d) == "M < 3*N"


def test_cta_tile_complement_disjoint_under_divisibility():
    v = cv.complement_disjoint("(128,64):(1,M)", parse_expr("M*N"), assume=["128 | M", "64 | N"])
    assert v.status == "proved", v
    for M, N in itertools.product((128, 256, 384), (64, 128, 192)):
        A = cv.parse(f"(128,64):(1,{M})")
        R = cv.complement(A, M * N)
        vals = sorted(a + r for r in R.values() for a in A.values())
        assert vals == list(range(M * N))


# --- bounded symbols are finite sets ----------------------------------------------------------------------

def test_bounded_symbol_domain():
    asm = Assumptions(["K <= 16", "K > 2", "4 | K"])
    assert domain(asm, "K") == (4, 8, 12, 16)
    assert domain(Assumptions(["K >= 2"]), "K") is None
    assert domain(Assumptions(["pow2(K)", "K <= 40"]), "K") == (1, 2, 4, 8, 16, 32)


def test_bounded_swizzle_bijective_says_enumerated():
    text = "S<3,4,3> o 0 o (8,64*K):(64*K,1)"
    v = check_sound("bijective", text, ["K <= 16"], ["K"])
    assert v.status == "proved" and "bounded" in v.method and "K" in v.method, v


def test_swizzle_surjective_without_bound():
    # the swizzle changes only bits 4..6: [0, 512*K) is kept for every K, not only for 1024 | 512*K
    v = check_sound("bijective", "S<3,4,3> o 0 o (8,64*K):(64*K,1)", [], ["K"])
    assert v.status == "proved", v


def test_swizzle_partial_block_refuted():
    v = check_sound("bijective", "S<3,4,3> o 0 o (8,8*K):(8*K,1)", [], ["K"])
    assert v.status == "refuted", v


def test_bounded_refutation_carries_assignment():
    v = check_sound("injective", "(K,4):(1,3)", ["K <= 8"], ["K"])
    assert v.status == "refuted" and v.counterexample.assignment["K"] >= 4, v


# --- sound on random symbolic layouts ----------------------------------------------------------------------

def _rand_case(rng):
    names = ["M", "N"][:rng.randint(1, 2)]
    facts = []
    for n in names:
        k = rng.choice(["div", "bound", "pow2", "set", "none"])
        if k == "div":
            facts.append(f"{rng.choice([2, 4, 8])} | {n}")
        elif k == "bound":
            facts.append(f"{n} <= {rng.choice([6, 12, 20])}")
        elif k == "pow2":
            facts.append(f"pow2({n})")
        elif k == "set":
            facts.append(f"{n} in {{{','.join(str(x) for x in rng.sample(range(1, 20), 3))}}}")
    atoms = names + [f"2*{n}" for n in names] + ["2", "4"]
    shapes = [rng.choice(atoms) for _ in range(rng.randint(2, 3))]
    shapes[0] = names[-1]
    order = list(range(len(shapes)))
    rng.shuffle(order)
    strides, cur = [None] * len(shapes), "1"
    for i in order:
        strides[i] = cur
        cur = f"({cur})*({shapes[i]})"
    r = rng.random()
    if r < 0.3:
        k = rng.randrange(len(strides))
        strides[k] = f"({strides[k]})*{rng.choice(['2', '3', names[0]])}"
    elif r < 0.5:
        strides[rng.randrange(len(strides))] = rng.choice(["1", "2", names[0]])
    text = f"({','.join(shapes)}):({','.join(strides)})"
    if rng.random() < 0.2:
        w = rng.choice([8, 16, 64])
        text = f"S<{rng.choice([1, 2, 3])},3,3> o 0 o (8,{w}*{names[-1]}):({w}*{names[-1]},1)"
    present = [n for n in names if re.search(rf"\b{n}\b", text)]
    facts = [f for f in facts if any(re.search(rf"\b{n}\b", f) for n in present)]
    return rng.choice(["injective", "surjective", "bijective"]), text, facts, present


@pytest.mark.parametrize("seed", range(6))
def test_random_verdicts_agree_with_enumeration(seed):
    rng = random.Random(1000 + seed)
    for _ in range(12):
        q, text, facts, names = _rand_case(rng)
        check_sound(q, text, facts, names, limit=25)


# --- subs re-canonicalizes ------------------------------------------------------------------------------------

def test_subs_prints_as_the_concrete_operation():
    R = cv.zipped_divide(cv.parse("(M,N):(1,M)"), (cv.parse("32:1"), cv.parse("16:1")))
    assert str(R.subs(M=64, N=16)) == "((32,16),(2,1)):((1,64),(32,0))"
    assert str(cv.zipped_divide(cv.parse("(64,16):(1,64)"), (cv.parse("32:1"), cv.parse("16:1")))) == \
        "((32,16),(2,1)):((1,64),(32,0))"


_T = cv.parse


@pytest.mark.parametrize("name,op", [
    ("zipped_divide", lambda A: cv.zipped_divide(A, (_T("32:1"), _T("16:1")))),
    ("logical_divide", lambda A: cv.logical_divide(A, (_T("8:1"), _T("4:1")))),
    ("tiled_divide", lambda A: cv.tiled_divide(A, (_T("16:1"), _T("8:1")))),
    ("composition", lambda A: cv.composition(A, _T("(4,2):(1,4)"))),
    ("logical_product", lambda A: cv.logical_product(A, _T("2:1"))),
    ("blocked_product", lambda A: cv.blocked_product(_T("(2,2):(1,2)"), A)),
    ("complement", lambda A: cv.complement(A, 8192)),
    ("right_inverse", lambda A: cv.right_inverse(A)),
])
def test_subs_agrees_with_the_concrete_operation(name, op):
    """At every substitution subs accepts, the result is the concrete operation's function; for the divides
    (whose size-1 modes CuTe prints as 1:0) also its printed form."""
    printed = name.endswith("divide")
    rng = random.Random(7)
    for text in ["(M,N):(1,M)", "(M,N):(N,1)", "(M,(4,N)):(4,(1,4*M))", "(4,M):(M,1)"]:
        for facts in ([], ["32 | M", "16 | N"]):
            A = cv.parse(text, assume=cv.Assumptions(facts) if facts else None)
            try:
                R = op(A)
            except cv.CuteVerifyError:
                continue
            for _ in range(12):
                M, N = rng.choice([1, 2, 4, 8, 16, 32, 64, 96, 128]), rng.choice([1, 2, 4, 8, 16, 32, 48])
                if not Assumptions(facts).holds({"M": M, "N": N}):
                    continue
                try:
                    C = op(cv.parse(text.replace("M", str(M)).replace("N", str(N))))
                    S = R.subs(M=M, N=N)
                except cv.CuteVerifyError:
                    continue  # refused: an obligation of the symbolic result is false there
                assert list(S.values()) == list(C.values()), (text, facts, M, N, S, C)
                if printed:
                    assert str(S) == str(C), (text, facts, M, N, S, C)


# --- case splits ----------------------------------------------------------------------------------------------

def test_complement_split_removes_the_size_one_obligation():
    from cuteverify.symbolic import symbol
    M = symbol("M")
    R = cv.complement(cv.parse("(M,8):(1,2*M)"), 16 * M)
    assert not [o for o in R.obligations if not o.canonical], R.obligations
    for m in range(1, 20):
        C = cv.complement(cv.parse(f"({m},8):(1,{2 * m})"), 16 * m)
        S = R.subs(M=m)
        assert list(S.values()) == list(C.values()), (m, S, C)
    assert str(R.subs(M=1)) == str(cv.complement(cv.parse("(1,8):(1,2)"), 16))


def test_logical_product_decides_the_stride_order_by_cases():
    R = cv.logical_product(cv.parse("(4,M):(M,1)"), cv.parse("(2,N):(1,2)"))
    for m, n in itertools.product(range(1, 7), (1, 2, 3, 4)):
        C = cv.logical_product(cv.parse(f"(4,{m}):({m},1)"), cv.parse(f"(2,{n}):(1,2)"))
        S = R.subs(M=m, N=n)
        assert list(S.values()) == list(C.values()), (m, n, S, C)


def test_split_pieces_carry_their_conditions_and_claims_hold_per_piece():
    from cuteverify.symbolic import Condition, decide, symbol
    M = symbol("M")
    asm = cv.Assumptions(["M <= 64"])
    A = cv.parse("(M,4):(1,M)", assume=asm)
    pw = decide.split(Condition("le", M, 4), lambda: cv.complement(A, 16 * M), assume=asm)
    assert [str(p.conditions[0]) for p in pw] == ["M <= 4", "4 < M"]
    v = cv.is_injective(pw)
    assert v.status == "proved" and "case split" in v.method, v
    # each piece's result is the concrete complement's function where its condition holds
    for p in pw:
        for m in range(1, 65):
            if all(c.holds({"M": m}) for c in p.conditions):
                C = cv.complement(cv.parse(f"({m},4):(1,{m})"), 16 * m)
                assert list(p.value.subs(M=m).values()) == list(C.values())
    bad = decide.split(Condition("le", M, 4), lambda: cv.parse("(M,2):(1,M-2)", assume=asm), assume=asm)
    w = cv.is_injective(bad)
    assert w.status == "refuted" and w.counterexample.assignment["M"] <= 4, w


# --- vector width with a symbolic leading dimension ----------------------------------------------------------

def _concrete_width(text, values, eb):
    from cuteverify.analysis.banks import max_vector_width
    t = text
    for k, x in values.items():
        t = re.sub(rf"\b{k}\b", str(x), t)
    return max_vector_width(cv.parse(t), elem_bytes=eb).width


@pytest.mark.parametrize("text,facts,eb,want", [
    ("(32,8):(L,1)", ["L % 8 == 0"], 2, 16),
    ("(32,8):(L,1)", ["L % 4 == 0"], 2, 8),
    ("(32,(2,4)):(8*L,(1,2))", [], 4, 16),
    ("(32,(2,4)):(L,(1,2))", [], 2, 2),
    ("((4,8),(2,2)):((2*L,16*L),(1,8))", ["4 | L"], 2, 4),
])
def test_symbolic_vector_width_by_divisibility(text, facts, eb, want):
    from cuteverify.analysis.banks import max_vector_width
    L = cv.parse(text, assume=cv.Assumptions(facts) if facts else None)
    v = max_vector_width(L, elem_bytes=eb)
    assert v.status == "proved" and v.width == want, v
    widths = []
    for values in admissible(facts, ["L"], pool=range(1, 33), extra=(48, 64, 128)):
        widths.append(_concrete_width(text, values, eb))
        assert widths[-1] >= want, (values, widths[-1])
    assert min(widths) == want
    r = max_vector_width(L, elem_bytes=eb, require=2 * want) if 2 * want <= 16 else None
    if r is not None:
        assert r.status == "refuted"
        assert _concrete_width(text, r.counterexample.assignment, eb) < 2 * want


def test_z3_onto_needs_injective_and_range():
    from cuteverify.prover import z3query
    from cuteverify.prover.forms import decompose
    asm = Assumptions(["4 | M"])
    ok = z3query.z3_onto(decompose(cv.parse("(M,N):(N,1)")), parse_expr("M*N"), asm)
    assert ok.status == "proved", ok
    gap = z3query.z3_onto(decompose(cv.parse("(M,N):(2*N,1)")), parse_expr("M*N"), asm)
    assert gap.status == "unknown", gap
    col = z3query.z3_onto(decompose(cv.parse("(M,N):(1,M-1)")), parse_expr("M*N"), asm)
    assert col.status == "unknown", col  # collides (M-1 < M): never proved


def test_samples_reach_admissible_assignments():
    v = cv.is_surjective("(K,N):(N*M,1)", assume=["M <= 8", "N % 32 == 0", "K % 8 == 0"])
    assert v.status == "refuted" and v.counterexample.assignment["M"] >= 2, v
    a = v.counterexample.assignment
    assert brute("surjective", "(K,N):(N*M,1)", a) is False


def test_case_split_over_finite_symbols_with_the_rest_symbolic():
    facts = ["M in {1,2,3,4,5,6}", "N % 64 == 0"]
    v = check_sound("surjective", "(N/4,M,M):(M,2,1)", facts, ["M", "N"])
    assert v.status == "proved" and "case split over M" in v.method, v
    w = check_sound("bijective", "(N,M):(1,N*M)", ["M <= 3"], ["M", "N"])
    assert w.status == "refuted", w  # M = 2: a gap between the two modes
