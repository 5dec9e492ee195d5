"""The fast paths of the symbolic decisions (issue 19): exact polynomial arithmetic instead of sympy, decisions
cached by the content of the facts, small admissible assignments tried before Z3, a plain evaluation of
layouts at an assignment, pow2 contradictions as input errors, and injectivity by coprime strides under pow2.
Every answer is checked against an evaluator of this file (sympy substitution, brute-force enumeration)."""
from __future__ import annotations

import itertools
import math
import random

import pytest

import cuteverify as cv
from cuteverify.errors import ContradictoryAssumptions
from cuteverify.prover.splits import substitute
from cuteverify.symbolic import Assumptions, decide, parse_expr, to_int
from cuteverify.symbolic.lazy import sympy

NAMES = ("M", "N", "K")


def _at(e, values):
    """An independent evaluation: sympy substitution (None where it is no integer)."""
    if type(e) is int:
        return e
    v = sympy.sympify(e).subs({sympy.Symbol(k, integer=True, positive=True): x for k, x in values.items()})
    return int(v) if v.is_Integer else None


def _rand_expr(rng, names):
    def atom():
        r = rng.random()
        if r < 0.5:
            return rng.choice(names)
        if r < 0.7:
            return f"{rng.choice(names)}/{rng.choice([2, 4, 8])}"
        return str(rng.randint(0, 9))

    def term():
        return "*".join(atom() for _ in range(rng.randint(1, 2)))

    out = term()
    for _ in range(rng.randint(0, 2)):
        out += rng.choice([" + ", " - "]) + term()
    return out


def _rand_facts(rng, names):
    facts = []
    for n in names:
        k = rng.choice(["div", "bound", "low", "set", "ne", "pow2", "none"])
        if k == "ne":
            facts.append(f"{n} != {rng.choice([1, 2, 4, 8, 64])}")
        elif k == "pow2":
            facts.append(f"pow2({n})")
        elif k == "div":
            facts.append(f"{rng.choice([2, 4, 8, 16])} | {n}")
        elif k == "bound":
            facts.append(f"{n} <= {rng.choice([4, 8, 16])}")
        elif k == "low":
            facts.append(f"{n} >= {rng.choice([2, 8, 64])}")
        elif k == "set":
            facts.append(f"{n} in {{{','.join(str(4 * (i + 1)) for i in range(rng.randint(2, 4)))}}}")
    return facts


def _assignments(names, asm, limit=60):
    pool = sorted(set(range(1, 17)) | {24, 32, 48, 64, 96, 128, 256})
    out = []
    for combo in itertools.product(*[pool] * len(names)):
        v = dict(zip(names, combo))
        if all(_fact_holds(f, v) for f in asm):
            out.append(v)
    random.Random(len(out)).shuffle(out)
    return out[:limit]


def _fact_holds(fact, v):
    """The facts of ``_rand_facts`` evaluated by hand (no library code)."""
    if fact.startswith("pow2("):
        x = v[fact[5:-1]]
        return x & (x - 1) == 0
    if " != " in fact:
        n, b = fact.split(" != ")
        return v[n] != int(b)
    if " | " in fact:
        d, n = fact.split(" | ")
        return v[n] % int(d) == 0
    if " <= " in fact:
        n, b = fact.split(" <= ")
        return v[n] <= int(b)
    if " >= " in fact:
        n, b = fact.split(" >= ")
        return v[n] >= int(b)
    n, body = fact.split(" in ")
    return v[n] in {int(x) for x in body.strip("{}").split(",")}


@pytest.mark.parametrize("seed", range(6))
def test_decisions_agree_with_enumeration(seed):
    rng = random.Random(seed)
    ops = {"eq": lambda a, b: a == b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
           "divides": lambda a, b: (b == 0) if a == 0 else b % a == 0}
    for _ in range(40):
        names = list(NAMES[:rng.randint(1, 2)])
        facts = _rand_facts(rng, names)
        a, b = parse_expr(_rand_expr(rng, names)), parse_expr(_rand_expr(rng, names))
        kind = rng.choice(list(ops))
        asm = Assumptions(facts)
        with decide.context(asm):
            got = getattr(decide, kind)(a, b)
        if got is None:
            continue
        for v in _assignments(names, facts):
            x, y = _at(a, v), _at(b, v)
            if x is None or y is None:
                continue  # a fractional value: the question is about integers only
            assert ops[kind](x, y) is got, (kind, a, b, facts, v)


@pytest.mark.parametrize("seed", range(3))
def test_to_int_agrees_with_sympy(seed):
    rng = random.Random(seed)
    texts = ["M//4 + N", "M % 3 + 1"]  # non-polynomial: the sympy fallback
    texts += [_rand_expr(rng, ["M", "N"]) for _ in range(60)]
    for t in texts:
        e = parse_expr(t)
        for v in ({"M": rng.randint(1, 40), "N": rng.randint(1, 40)}, {"M": 8}):
            assert to_int(e, v) == _at(e, v), (t, v)


def test_decisions_follow_the_facts_not_the_object():
    M = parse_expr("M")
    a = Assumptions(["M <= 4"])
    with decide.context(a):
        assert decide.lt(M, 8) is True
    b = Assumptions(["M >= 8"])
    with decide.context(b):
        assert decide.lt(M, 8) is False
    c = Assumptions(["M >= 2"])
    with decide.context(c):
        assert decide.lt(M, 8) is None
    c.add("M >= 9")  # the facts changed: the cached answer must not be reused
    with decide.context(c):
        assert decide.lt(M, 8) is False


@pytest.mark.parametrize("facts,named", [
    (["pow2(M)", "M % 3 == 0"], "3 | M"),
    (["5 <= M", "M <= 7", "pow2(M)"], "M <= 7"),
    (["pow2(M)", "M in {3,5,6,12}"], "M in {3,5,6,12}"),
    (["pow2(M)", "M % 6 == 0", "N >= 2"], "6 | M"),
])
def test_contradictory_pow2_facts_are_an_input_error(facts, named):
    with pytest.raises(ContradictoryAssumptions) as e:
        cv.is_injective("(M,4):(1,M)", assume=cv.Assumptions(facts))
    assert e.value.kind == "input" and named in str(e.value) and "pow2(M)" in str(e.value)


@pytest.mark.parametrize("facts", [["pow2(M)", "M % 4 == 0"], ["pow2(M)", "5 <= M", "M <= 8"],
                                   ["pow2(M)", "M in {3,4,6}"], ["pow2(M)", "M >= 1000"]])
def test_satisfiable_pow2_facts_are_accepted(facts):
    v = cv.is_injective("(M,4):(1,M)", assume=cv.Assumptions(facts))
    assert v.status == "proved"


def _brute_injective(shapes, strides):
    seen = set()
    for digits in itertools.product(*[range(s) for s in shapes]):
        x = sum(c * d for c, d in zip(digits, strides))
        if x in seen:
            return False
        seen.add(x)
    return True


@pytest.mark.parametrize("seed", range(4))
def test_pow2_injectivity_by_coprime_strides(seed):
    """Random ``(M,K):(c, k*M)`` (and a peeled stride-1 mode in front) under pow2(M): every verdict agrees
    with enumeration at M = 1..64 (powers of two) and the K the facts allow."""
    rng = random.Random(seed)
    decided = 0
    for _ in range(12):
        c, k, kb = rng.choice([1, 3, 5, 6, 9, 15]), rng.choice([1, 2, 3]), rng.choice([2, 4, 8, 16])
        peel = rng.random() < 0.5
        text = f"(N,M,K):({c}*N,1,{k}*M*N)" if peel else f"(M,K):({c},{k}*M)"
        facts = ["pow2(M)", f"K <= {kb}"] + (["N <= 4"] if peel else [])
        v = cv.is_injective(text, assume=cv.Assumptions(facts))
        if v.status == "unknown":
            continue
        decided += 1
        for e in range(7):
            for K in range(1, kb + 1):
                for N in (range(1, 5) if peel else [1]):
                    M = 1 << e
                    shapes = [N, M, K] if peel else [M, K]
                    strides = [c * N, 1, k * M * N] if peel else [c, k * M]
                    truth = _brute_injective(shapes, strides)
                    if v.status == "proved":
                        assert truth, (text, facts, M, K, N)
        if v.status == "refuted":
            vals = v.counterexample.assignment
            M, K = vals["M"], vals.get("K", 1)
            N = vals.get("N", 1)
            shapes = [N, M, K] if peel else [M, K]
            strides = [c * N, 1, k * M * N] if peel else [c, k * M]
            assert not _brute_injective(shapes, strides)
    assert decided >= 6


def test_coprime_rule_proves_the_padded_pow2_cases():
    for text, facts in [("(M,N/8):(3,M)", ["pow2(M)", "N % 32 == 0"]),
                        ("(M,N,K):((N)*(3),1,(N)*(M))", ["pow2(M)", "N % 8 == 0", "64 | K"])]:
        v = cv.is_injective(text, assume=cv.Assumptions(facts))
        assert v.status == "proved" and "coprime" in v.method, v


@pytest.mark.parametrize("seed", range(3))
def test_plain_substitution_is_the_layouts_function(seed):
    rng = random.Random(seed)
    for text in ["(M,(N/8,2)):(1,(M,M*N/8))", "(M,N):(N,1)", "((2,M),N/4):((1,2*N),2)", "(4*M,N):(M/2,3)"]:
        L = cv.parse(text, assume=cv.Assumptions(["8 | N", "2 | M"]))
        for _ in range(4):
            v = {"M": 2 * rng.randint(1, 6), "N": 8 * rng.randint(1, 3)}
            got = substitute(L, v)
            want = L.subs(v)
            assert [int(x) for x in got.values()] == [int(x) for x in want.values()]
            assert math.prod(_flat(got.shape)) == math.prod(_flat(want.shape))


def _flat(t):
    if type(t) is tuple:
        out = []
        for x in t:
            out += _flat(x)
        return out
    return [t]


@pytest.mark.parametrize("facts,question", [
    (["128 | M", "M != 128"], ("eq", "M/128", "1")),
    (["128 | M", "M != 128"], ("lt", "128", "M")),
    (["128 | M", "M != 128"], ("le", "M", "128")),
    (["M in {8,16,24}"], ("eq", "K*M", "1")),
    (["2 | N"], ("divides", "K*N", "K")),
    (["pow2(M)", "M != 1"], ("divides", "M**2", "M")),
    (["2 | M", "M >= 4"], ("divides", "2*M", "M**2")),  # M = 2*q + 4: exact division, not a monomial test
])
def test_decisions_from_stated_facts_agree_with_enumeration(facts, question):
    """Facts read up to a constant factor, a finite set's least value, ``0 < b < a``, pow2 as 1-or-even: each
    decides the question, and enumeration agrees."""
    kind, a, b = question
    ea, eb = parse_expr(a), parse_expr(b)
    with decide.context(Assumptions(facts)):
        got = getattr(decide, kind)(ea, eb)
    assert got is not None
    ops = {"eq": lambda x, y: x == y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y,
           "divides": lambda x, y: y % x == 0}
    names = sorted({s.name for s in sympy.sympify(ea).free_symbols | sympy.sympify(eb).free_symbols})
    checked = 0
    for combo in itertools.product(*[range(1, 600)] * len(names)) if len(names) == 1 else \
            itertools.product(*[range(1, 40)] * len(names)):
        v = dict(zip(names, combo))
        if not Assumptions(facts).holds(v):
            continue
        assert ops[kind](_at(ea, v), _at(eb, v)) is got, v
        checked += 1
    assert checked


@pytest.mark.parametrize("text,facts,query", [
    ("(K,M/4,N):(N,2,1)", ["M % 64 == 0", "K % 128 == 0", "K >= 256"], "surjective"),
    ("(K,M,N):(N,2,1)", ["M >= 2", "K >= 3"], "surjective"),
    ("(K,M,N):(N,3,1)", ["M >= 2", "K >= 2"], "surjective"),
])
def test_unit_split_verdicts_agree_with_enumeration(text, facts, query):
    """A size symbol split into X == 1 / X >= 2: every proof holds at the sampled admissible assignments
    (brute force over the values), every refutation's assignment is a real counterexample."""
    v = getattr(cv, f"is_{query}")(text, assume=cv.Assumptions(facts))
    assert v.status != "unknown", v
    sh, st = text.split(":")
    she, ste = [parse_expr(x) for x in sh[1:-1].split(",")], [parse_expr(x) for x in st[1:-1].split(",")]

    def onto(values):
        shapes, strides = [_at(e, values) for e in she], [_at(e, values) for e in ste]
        vals = {sum(c * d for c, d in zip(digits, strides)) for digits in itertools.product(*map(range, shapes))}
        return vals == set(range(max(vals) + 1))

    if v.status == "refuted":
        assert not onto(v.counterexample.assignment)
        return
    checked = 0
    for K, M, N in itertools.product([1, 2, 3, 4, 128, 256, 384], [1, 2, 3, 4, 64, 128], [1, 2, 3, 5, 8]):
        values = {"K": K, "M": M, "N": N}
        if Assumptions(facts).holds(values) and all(_at(e, values) for e in she):
            assert onto(values), values
            checked += 1
    assert checked


@pytest.mark.parametrize("seed", range(2))
def test_questions_about_the_facts_themselves_agree_with_enumeration(seed):
    """Each fact ``a REL b`` (and its scaled and swapped forms) asked as eq / lt / le: the facts are read up
    to a constant factor, so every sign combination is exercised; enumeration over M = 1..300 agrees."""
    rng = random.Random(seed)
    ops = {"eq": lambda x, y: x == y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y}
    rels = {"<=": lambda x, y: x <= y, ">=": lambda x, y: x >= y, "<": lambda x, y: x < y,
            ">": lambda x, y: x > y, "!=": lambda x, y: x != y, "==": lambda x, y: x == y}
    M = parse_expr("M")
    for _ in range(30):
        facts = []
        for _ in range(rng.randint(1, 2)):
            facts.append((rng.choice(list(rels)), rng.choice([2, 4, 8, 64])))
        texts = [f"M {r} {c}" for r, c in facts] + ([f"{rng.choice([2, 4])} | M"] if rng.random() < 0.4 else [])
        admissible = [m for m in range(1, 301) if all(rels[r](m, c) for r, c in facts)
                      and all(m % int(t.split(" | ")[0]) == 0 for t in texts if " | " in t)]
        if not admissible:
            continue
        r, c = facts[0]
        k = rng.choice([1, 2, 3])
        for kind in ops:
            for a, b in ((k * M, k * c), (k * c, k * M), (M / k, sympy.Rational(c, k))):
                with decide.context(Assumptions(texts)):
                    got = getattr(decide, kind)(a, b)
                if got is None:
                    continue
                for m in admissible:
                    x, y = (sympy.sympify(e).subs(M, m) for e in (a, b))  # exact rationals
                    assert bool(ops[kind](x, y)) is got, (texts, kind, a, b, m)
