"""Bounded pow2 symbols (and bounded plain symbols) are finite sets: ``symbolic.finite_assignments`` returns
exactly the admissible values (every fact filters the candidates, facts tying two symbols included), and
``hardware.rules.check_rules`` decides a clause by enumerating them. Checked against brute force over a
range the generated bounds enclose, with the facts evaluated by plain Python (not by ``Assumptions``)."""
import itertools
import random

import pytest

from cuteverify.errors import ContradictoryAssumptions
from cuteverify.hardware.checks.rules import Rule, check_rules
from cuteverify.symbolic import decide
from cuteverify.symbolic.assumptions import Assumptions, domain, finite_assignments
from cuteverify.symbolic.conditions import Condition
from cuteverify.symbolic.expr import symbol

#: every generated symbol is bounded by this (a fact ``X <= hi`` with hi <= U is always present)
U = 1100


def _pow2(v):
    return v > 0 and v & (v - 1) == 0


def _random_facts(rng, names):
    """``(texts, tests)``: assumption texts and the same facts as Python predicates over a dict."""
    texts, tests = [], []
    for n in names:
        lo, hi = rng.choice([1, 2, 3, 16, 20, 32, 33]), rng.choice([8, 64, 100, 512, 513, 1000, 1024])
        texts += [f"{lo} <= {n}", f"{n} <= {hi}"]
        tests += [lambda v, n=n, lo=lo: lo <= v[n], lambda v, n=n, hi=hi: v[n] <= hi]
        if rng.random() < 0.7:
            texts.append(f"pow2({n})")
            tests.append(lambda v, n=n: _pow2(v[n]))
        if rng.random() < 0.3:
            d = rng.choice([3, 4, 8, 12])
            texts.append(f"{n} % {d} == 0")
            tests.append(lambda v, n=n, d=d: v[n] % d == 0)
    if len(names) == 2 and rng.random() < 0.6:
        a, b = names
        k = rng.choice([1, 2, 4])
        kind = rng.choice(["eq", "le", "lt"])
        op = {"eq": "==", "le": "<=", "lt": "<"}[kind]
        texts.append(f"{a} {op} {k}*{b}")
        tests.append({"eq": lambda v: v[a] == k * v[b], "le": lambda v: v[a] <= k * v[b],
                      "lt": lambda v: v[a] < k * v[b]}[kind])
    return texts, tests


def _brute(names, tests, project):
    out = set()
    for combo in itertools.product(range(1, U + 1), repeat=len(names)):
        v = dict(zip(names, combo))
        if all(t(v) for t in tests):
            out.add(tuple(v[n] for n in project))
    return out


@pytest.mark.parametrize("seed", range(60))
def test_finite_assignments_equal_brute_force_one_symbol(seed):
    rng = random.Random(seed)
    texts, tests = _random_facts(rng, ["n"])
    asm = Assumptions(texts)
    got = finite_assignments(["n"], asm, 4096)
    want = _brute(["n"], tests, ["n"])
    if "pow2(n)" in texts:
        assert got is not None, texts  # a bounded pow2 symbol always enumerates (at most 11 values here)
    if got is not None:
        assert {(v["n"],) for v in got} == want, texts


@pytest.mark.parametrize("seed", range(40))
def test_finite_assignments_project_tied_symbols_exactly(seed):
    """``n`` asked alone while a fact ties it to ``m``: the projection is exact (every fact filters)."""
    rng = random.Random(1000 + seed)
    texts, tests = _random_facts(rng, ["n", "m"])
    texts.append("pow2(m)")
    tests.append(lambda v: _pow2(v["m"]))
    asm = Assumptions(texts)
    got = finite_assignments(["n"], asm, 4096, exact=True)
    m_values = [1 << e for e in range(11)]  # pow2(m), m <= U
    want = set()
    for nv in range(1, U + 1):
        if any(all(t({"n": nv, "m": mv}) for t in tests) for mv in m_values):
            want.add((nv,))
    if got is not None and got and not want:
        # m's own facts contradict each other and nothing ties it to n: an input error before any decision
        with pytest.raises(ContradictoryAssumptions):
            asm.check_consistent()
    elif got is not None:
        assert {(v["n"],) for v in got} == want, texts
    if "pow2(n)" in texts:
        assert got is not None, texts


def test_tied_symbol_without_finite_domain_is_not_exact():
    # m has no upper bound: n's values cannot be decided by enumeration alone
    asm = Assumptions(["pow2(n)", "n <= 512", "n == 2*m", "m >= 16"])
    assert finite_assignments(["n"], asm, 4096, exact=True) is None
    # the superset (for "every admissible assignment" questions) still comes back
    assert {v["n"] for v in finite_assignments(["n"], asm, 4096)} == {1 << e for e in range(10)}


def test_bounded_pow2_domain_is_small_whatever_the_range():
    asm = Assumptions(["pow2(n)", "n >= 1", f"n <= {2 ** 40}"])
    assert domain(asm, "n", 256) == tuple(1 << e for e in range(41))
    assert domain(Assumptions(["pow2(n)", "n >= 32", "n <= 512", "n % 64 == 0"]), "n") == (64, 128, 256, 512)
    assert domain(Assumptions(["pow2(n)", "n >= 33", "n <= 63"]), "n") == ()


@pytest.mark.parametrize("seed", range(40))
def test_rule_verdicts_equal_brute_force(seed):
    """A random clause ``a*n + b <= c`` / ``d | n`` over random facts: proved iff no admissible value breaks
    it, else refuted at the smallest admissible value that does."""
    rng = random.Random(2000 + seed)
    texts, tests = _random_facts(rng, ["n"])
    n = symbol("n")
    kind = rng.choice(["le", "divides"])
    if kind == "le":
        a, b, c = rng.choice([1, 2, 3]), rng.choice([0, 5, 32]), rng.choice([64, 512, 1024, 2048])
        cond, ok = Condition("le", a * n + b, c), (lambda v: a * v + b <= c)
    else:
        d = rng.choice([32, 512, 1024, 96])
        cond, ok = Condition("divides", n, d), (lambda v: d % v == 0)
    rule = Rule("r", "random", [(cond, lambda v: "broken")], source="test")
    asm = Assumptions(texts)
    v = check_rules([rule], asm, "random")
    admissible = sorted(x for (x,) in _brute(["n"], tests, ["n"]))
    bad = [x for x in admissible if not ok(x)]
    if "pow2(n)" in texts and admissible:
        assert v.status != "unknown", (texts, str(cond), v.reason)
        assert "enumeration of n in {" in v.method
    if v.status == "proved":
        assert not bad, (texts, str(cond))
    elif v.status == "refuted":
        assert bad and v.counterexample.assignment == {"n": bad[0]}, (texts, str(cond), bad[:3])


@pytest.mark.parametrize("seed", range(40))
def test_decisions_over_bounded_pow2_symbols_equal_brute_force(seed):
    """The decision interface (``decide.divides`` / ``decide.le``) under random facts on a pow2 symbol:
    True exactly when every admissible value satisfies the question, False exactly when none does, None when
    both happen (a bounded pow2 symbol is enumerated, so nothing is left undecided)."""
    rng = random.Random(3000 + seed)
    texts, tests = _random_facts(rng, ["n"])
    if "pow2(n)" not in texts:
        texts.append("pow2(n)")
        tests.append(lambda v: _pow2(v["n"]))
    asm = Assumptions(texts)
    admissible = sorted(x for (x,) in _brute(["n"], tests, ["n"]))
    if not admissible:
        return
    n = symbol("n")
    d, c = rng.choice([32, 96, 512, 1024]), rng.choice([16, 64, 200, 512])
    for question, ok in ((lambda: decide.divides(n, d), lambda x: d % x == 0),
                         (lambda: decide.le(n, c), lambda x: x <= c),
                         (lambda: decide.divides(16, n), lambda x: x % 16 == 0)):
        with decide.context(asm):
            got = question()
        truth = {ok(x) for x in admissible}
        # true at one admissible value and false at another: undecided, correctly
        assert got is (truth.pop() if len(truth) == 1 else None), (texts, got, truth)
