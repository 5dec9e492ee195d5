"""Canonical loops (paper section 1.2): parse, layout, print back, no-repeat check."""
import itertools
import random

import pytest
import sympy
from hypothesis import given, settings, strategies as st

import cuteverify as cv
from cuteverify.errors import CuteVerifyError, ParseError
from cuteverify.errors import LoopNestError
from cuteverify.analysis.loops import ENUMERATION_LIMIT, Loop, check_no_repeat, loop_layout, to_loop_nest, trip_count
from cuteverify.symbolic import symbol

p, q = symbol("p"), symbol("q")
PAPER_PY = "for n in range(3,43,2): for m in range(4,23,5): A[p*m+q*n]"
PAPER_C = "for (int n = 3; n < 43; n += 2)\n  for (int m = 4; m <= 22; m += 5)\n    A[p*m + q*n] = e(m,n);"


# --- the paper's examples --------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [PAPER_PY, PAPER_C])
def test_paper_2d(text):
    r = loop_layout(text)
    assert sympy.expand(r.offset - (4 * p + 3 * q)) == 0
    assert r.accessor == "A + 4*p + 3*q"
    assert r.layout == cv.Layout((4, 20), (5 * p, 2 * q))
    assert str(r.layout) == "(4,20):(5*p,2*q)"
    assert r.canonical() == ("for (int j = 0; j < 20; ++j)\n  for (int i = 0; i < 4; ++i)\n"
                             "    (A + 4*p + 3*q)[5*p*i + 2*q*j] = g(i,j);")
    assert "[5*p*(k%4) + 2*q*(k/4)]" in r.one_d()
    assert "k < 80" in r.one_d()


def test_paper_1d():
    r = loop_layout("for (int m = 2; m <= 50; m += 3) A[m] = e(m);")
    assert r.offset == 2 and r.layout == cv.Layout(17, 3)
    assert r.accessor == "A + 2"
    assert r.canonical() == "for (int i = 0; i < 17; ++i)\n  (A + 2)[3*i] = g(i);"


def test_python_multiline_and_forms():
    text = "for n in range(3, 43, 2):\n    for m in range(4, 23, 5):\n        A[p*m + q*n] = e(m, n)\n"
    assert loop_layout(text).layout == loop_layout(PAPER_PY).layout
    assert loop_layout("for i in range(7): X[i]").layout == cv.Layout(7, 1)
    assert loop_layout("for i in range(2, 7): X[2*i]").offset == 4
    assert loop_layout("for (int i = 0; i < 8; i++) { X[i] = 0; }").layout == cv.Layout(8, 1)
    assert loop_layout("for (int i = 0; i < 8; i = i + 2) X[i];").layout == cv.Layout(4, 2)
    r = loop_layout("for (int m = 50; m >= 2; m -= 3) A[m];")
    assert r.offset == 50 and r.layout == cv.Layout(17, -3)
    assert r.offsets() == list(range(50, 1, -3))


def test_structure_input():
    r = loop_layout({"loops": [("n", 3, 43, 2), ("m", 4, 23, 5)], "index": "p*m+q*n"})
    assert r.layout == loop_layout(PAPER_PY).layout
    r2 = loop_layout(([Loop("j", 0, 4), ("i", 8)], "i + 8*j", "B"))
    assert r2.array == "B" and r2.layout == cv.Layout((8, 4), (1, 8))


def test_coalesced_single_loop():
    r = loop_layout("for j in range(4): for i in range(8): B[8*j + i + 3]")
    assert r.coalesced == cv.Layout(32, 1) and r.one_loop
    assert r.one_d() == "for (int k = 0; k < 32; ++k)\n  (B + 3)[k] = f(k);"
    r = loop_layout("for i in range(8): for j in range(4): B[8*j + i]")
    assert not r.one_loop


def test_trip_counts_exact():
    for start, stop, step in itertools.product(range(-6, 7), range(-6, 7), [-4, -3, -1, 1, 2, 5]):
        assert trip_count(start, stop, step) == len(range(start, stop, step))
    r = loop_layout("for m in range(5, 3): A[m]")
    assert r.layout.shape == 0 and r.offsets() == []
    assert check_no_repeat(r).proved
    N, K = symbol("N"), symbol("K")
    r = loop_layout("for m in range(N): for k in range(0, K, 2): A[m + M*k]")
    assert r.layout.shape == (sympy.ceiling(K / 2), N)


def test_symbolic_substitution_matches_enumeration():
    r = loop_layout(PAPER_PY)
    for pv, qv in [(1, 1), (3, 7), (100, 1)]:
        L = r.layout.subs(p=pv, q=qv)
        off = int(r.offset.subs({p: pv, q: qv}))
        want = [pv * m + qv * n for n in range(3, 43, 2) for m in range(4, 23, 5)]
        assert [off + v for v in L.values()] == want


# --- random nests: layout visits exactly what the loops visit, in order -------------------------------------

def _random_nest(rng, depth):
    loops, coeffs = [], []
    for d in range(depth):
        step = rng.choice([1, 1, 2, 3, -1, -2, 5])
        start = rng.randint(-5, 10)
        n = rng.randint(0, 5) if rng.random() < 0.1 else rng.randint(1, 5)
        stop = start + step * n - rng.randint(0, abs(step) - 1) * (1 if step > 0 else -1)
        loops.append((f"v{d}", start, stop, step))
        coeffs.append(rng.choice([0, 1, 2, 3, -1, 4, 7, 12, 30]))
    const = rng.randint(-10, 10)
    return loops, coeffs, const


def _python_text(loops, index):
    return " ".join(f"for {v} in range({a}, {b}, {s}):" for v, a, b, s in loops) + f" A[{index}]"


def _c_text(loops, index, rng):
    parts = []
    for v, a, b, s in loops:
        if s > 0:
            if rng.random() < 0.5:
                cond = f"{v} < {b}"
            else:
                cond = f"{v} <= {b - 1}"
            inc = f"++{v}" if s == 1 and rng.random() < 0.5 else f"{v} += {s}"
        else:
            cond = f"{v} > {b}" if rng.random() < 0.5 else f"{v} >= {b + 1}"
            inc = f"--{v}" if s == -1 and rng.random() < 0.5 else f"{v} -= {-s}"
        parts.append(f"for (int {v} = {a}; {cond}; {inc})")
    return "\n".join(parts) + f"\n  A[{index}] = e();"


def _enumerate(loops, coeffs, const):
    out = []
    for it in itertools.product(*[range(a, b, s) for _, a, b, s in loops]):
        out.append(const + sum(c * x for c, x in zip(coeffs, it)))
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(1, 6))
def test_random_nests_visit_same_offsets(seed, depth):
    rng = random.Random(seed)
    loops, coeffs, const = _random_nest(rng, depth)
    index = " + ".join(f"({c})*{v}" for c, (v, *_) in zip(coeffs, loops)) + f" + ({const})"
    want = _enumerate(loops, coeffs, const)
    for text in (_python_text(loops, index), _c_text(loops, index, rng)):
        r = loop_layout(text)
        assert r.offsets() == want, text
        assert cv.size(r.layout) == len(want)
        # coalesced: same function
        if want:
            assert [r.offset + v for v in r.coalesced.values()] == want
        # print back and re-parse: the canonical nest is the same layout
        back = loop_layout(r.canonical())
        assert back.offsets() == want
        one = loop_layout(r.one_d()) if r.one_loop else None
        if one is not None:
            assert one.offsets() == want
        # no-repeat verdict agrees with brute force; a witness names real iterations
        v = check_no_repeat(r)
        distinct = len(set(want)) == len(want)
        assert v.verdict == ("proved" if distinct else "refuted"), (text, v)
        if v.refuted:
            a, b = v.witness
            assert a != b
            names = [lp[0] for lp in loops]
            assert list(a) == names
            va = const + sum(c * a[n] for c, n in zip(coeffs, names))
            vb = const + sum(c * b[n] for c, n in zip(coeffs, names))
            assert va == vb == v.offset
            for (nm, s0, s1, s2) in loops:
                assert a[nm] in range(s0, s1, s2) and b[nm] in range(s0, s1, s2)


# --- no-repeat ---------------------------------------------------------------------------------------------

def test_no_repeat_witness_in_loop_variables():
    v = check_no_repeat("for n in range(3,43,2): for m in range(4,23,5): A[m + 5*n]")
    assert v.refuted
    a, b = v.witness
    assert set(a) == {"n", "m"} and list(a) == ["n", "m"]
    assert a["m"] + 5 * a["n"] == b["m"] + 5 * b["n"] == v.offset
    assert a["m"] in range(4, 23, 5) and a["n"] in range(3, 43, 2)


def test_no_repeat_stride_zero_and_chain():
    v = check_no_repeat("for n in range(4): for m in range(3): A[m]")
    assert v.refuted and v.witness == ({"n": 0, "m": 0}, {"n": 1, "m": 0})
    assert check_no_repeat("for n in range(1000): for m in range(1000): A[m + 1000*n]").proved
    # large but structured: the chain proves without enumerating
    assert check_no_repeat("for a in range(4096): for b in range(4096): A[a + 4096*b]").proved


def test_no_repeat_large_unknown_or_prover(monkeypatch):
    import cuteverify.analysis.loops.repeat as lp
    monkeypatch.setattr(lp, "_prover", lambda *a: None)
    v = check_no_repeat("for a in range(64): for b in range(64): A[3*a + 5*b]", limit=100)
    assert v.verdict == "unknown" and "limit" in v.reason
    v = check_no_repeat("for a in range(64): for b in range(64): A[3*a + 5*b]")
    assert v.refuted and v.method == "enumeration"


def test_no_repeat_through_prover():
    pytest.importorskip("cuteverify.prover")
    v = check_no_repeat("for a in range(64): for b in range(64): A[3*a + 5*b + 1]", limit=100)
    assert v.refuted and v.method == "prover"
    a, b = v.witness
    assert 3 * a["a"] + 5 * a["b"] + 1 == 3 * b["a"] + 5 * b["b"] + 1 == v.offset
    # symbolic: a collision for some values of the symbols, reported with them
    v = check_no_repeat(PAPER_PY)
    if v.refuted:
        a, b = v.witness
        pv, qv = v.assignment.get("p"), v.assignment.get("q")
        assert pv * a["m"] + qv * a["n"] == pv * b["m"] + qv * b["n"] == v.offset


def test_no_repeat_symbolic():
    assert check_no_repeat(PAPER_PY).verdict in ("unknown", "proved", "refuted")
    # symbolic strides that chain: M*n with m < M... chain needs M >= 8 which is not known -> not proved
    v = check_no_repeat("for n in range(4): for m in range(8): A[m + 8*p*n]")
    assert v.proved
    v = check_no_repeat(cv.Layout((4, 8), (p, 0)))
    assert v.refuted and v.witness == ((0, 0), (0, 1))


def test_no_repeat_on_layout():
    v = check_no_repeat(cv.Layout((5, 4), (3, 4)))
    assert v.refuted
    (a, b) = v.witness
    assert cv.Layout((5, 4), (3, 4))(a) == cv.Layout((5, 4), (3, 4))(b)


def test_to_loop_nest_general():
    L = cv.Layout((2, 3, 4, 5), (1, 2, 6, 24))
    text = to_loop_nest(L, 7, "X")
    assert text.splitlines()[0] == "for (int i3 = 0; i3 < 5; ++i3)"
    assert loop_layout(text).offsets() == [7 + v for v in L.values()]
    # the 1-D form of a non-coalescable layout uses % and / (not an affine nest any more)
    with pytest.raises(LoopNestError):
        loop_layout(to_loop_nest(L, 7, "X", one_d=True))
    assert loop_layout(to_loop_nest(cv.coalesce(L), 7, "X", one_d=True)).offsets() == [7 + v for v in L.values()]
    assert to_loop_nest(cv.Layout(4, 1), 0) == "for (int i = 0; i < 4; ++i)\n  A[i] = g(i);"


# --- bad input -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("A[n]", "loop header"),
    ("for n in range(3,43,2) A[n]", "':'"),
    ("for n in range(3,43,2): B", "array access"),
    ("for n in range(4): for m in range(n): A[m]", "rectangular"),
    ("for n in range(4): A[n*n]", "affine"),
    ("for n in range(4): A[n][2]", "single subscript"),
    ("for n in range(4): A[n, 2]", "multi-dimensional"),
    ("for n in range(4): A[n+]", "expression"),
    ("for n in range(4): for n in range(3): A[n]", "two loops"),
    ("for n in range(1,2,0): A[n]", "step"),
    ("for n in range(4): A[n/2]", "non-integer"),
    ("for (int m = 2; m <= 50; m -= 3) A[m];", "terminate"),
    ("for (int m = 2; k <= 50; m += 3) A[m];", "condition"),
    ("for (int m = 2; m <= 50; m *= 3) A[m];", "increment"),
    ("for (int m = 2; m <= 50) A[m];", "three parts"),
    ("for n in range(4): A[n] for m in range(3): A[m]", "perfectly nested"),
    ("for n in range(4: A[n]", "closing"),
])
def test_bad_loops(text, words):
    with pytest.raises((ParseError, LoopNestError)) as e:
        loop_layout(text)
    assert isinstance(e.value, CuteVerifyError) and isinstance(e.value, ValueError)
    assert words in str(e.value)


# --- CLI -----------------------------------------------------------------------------------------------------

def _cli():
    import click
    from click.testing import CliRunner
    from cuteverify.frontend.cli.fold_cmd import register

    @click.group()
    def g():
        pass

    register(g)
    return g, CliRunner()


def test_cli_loops():
    import json
    g, run = _cli()
    r = run.invoke(g, ["loops", PAPER_PY])
    assert r.exit_code == 0, r.output
    assert "accessor: A + 4*p + 3*q" in r.output and "(4,20):(5*p,2*q)" in r.output
    r = run.invoke(g, ["loops", "for j in range(4): for i in range(8): B[8*j+i+3]", "--json"])
    assert r.exit_code == 0
    info = json.loads(r.output)
    assert info["coalesced"] == "32:1" and info["one_loop"] and info["no_repeat"]["status"] == "proved"
    r = run.invoke(g, ["loops", "for n in range(3,43,2): for m in range(4,23,5): A[m+5*n]"])
    assert r.exit_code == 1 and "both touch offset" in r.output and "n=" in r.output


@pytest.mark.parametrize("text", ["for j in range(4) B[j]", "for j in range(4): for i in range(j): B[i]",
                                  "for j in range(4): B[j*j]", "", "for (;;) A[0];"])
def test_cli_loops_bad_input(text):
    g, run = _cli()
    r = run.invoke(g, ["loops", text])
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert "error:" in r.output and "Traceback" not in r.output


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(1, 4))
def test_random_symbolic_nests(seed, depth):
    rng = random.Random(seed)
    N = symbol("N")
    coeff_txt = ["p", "2*q", "(p + q)", "3", "-p"]
    loops, coeffs = [], []
    for d in range(depth):
        start = rng.randint(0, 3)
        step = rng.choice([1, 2, 3])
        stop = rng.choice(["N", "N + 3", str(start + rng.randint(1, 6))])
        loops.append((f"v{d}", start, stop, step))
        coeffs.append(rng.choice(coeff_txt))
    text = " ".join(f"for {v} in range({a}, {b}, {s}):" for v, a, b, s in loops) + \
        " A[" + " + ".join(f"{c}*{v}" for c, (v, *_) in zip(coeffs, loops)) + " + q]"
    r = loop_layout(text)
    for vals in [dict(p=1, q=1, N=5), dict(p=7, q=2, N=8), dict(p=2, q=9, N=3)]:
        env = dict(vals)
        conc = [(v, a, eval(b, {}, env), s) for v, a, b, s in loops]
        cvals = [eval(c, {}, env) for c in coeffs]
        want = _enumerate(conc, cvals, env["q"])
        L = r.layout.subs(vals)
        off = r.offset if type(r.offset) is int else int(r.offset.subs({symbol(k): x for k, x in vals.items()}))
        assert [off + x for x in L.values()] == want, (text, vals)
