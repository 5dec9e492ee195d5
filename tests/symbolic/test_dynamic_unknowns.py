"""CuTe DSL's ``?`` (issue 25): each ``?`` is an unknown of its own, independent of every other ``?`` (also in
another text of the same command); verdicts and ``eval`` say so; ``?NAME`` names an unknown so that relations
can be stated; CuTe's IR forms ``?{div=N}`` / ``?{i64 div=N}`` assume divisibility; every printed result is in
CuTe notation (never sympy's ``Mod`` / ``floor``). Values are checked with evaluators written here."""
from __future__ import annotations

import json
import random
import re

import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify.frontend.cli.main import main
from cuteverify.symbolic import parse_expr
from cuteverify.symbolic.expr import format_value

SYMPY_NAMES = re.compile(r"\b(Mod|floor|ceiling|Piecewise|Min|Max|Abs|Eq|Ne|And|Or)\(")


def _cli(*args):
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output


def _unknowns(text):
    return list(dict.fromkeys(re.findall(r"\?\d+", text)))


def _value(shape, stride, i):
    """A flat (colexicographic) index through a layout given as nested tuples of ints."""
    if isinstance(shape, int):
        return (i % shape) * stride
    out = 0
    for s, d in zip(shape, stride):
        n = _size(s)
        out += _value(s, d, i % n)
        i //= n
    return out


def _size(s):
    if isinstance(s, int):
        return s
    n = 1
    for x in s:
        n *= _size(x)
    return n


def test_a_refutation_says_the_unknowns_are_independent_and_its_assignment_refutes():
    code, out = _cli("bijective", "(?,?):(1,?)")
    assert code == 1, out
    a, b, c = _unknowns(out.splitlines()[0])  # REFUTED: bijective((?a,?b):(1,?c)): three distinct unknowns
    assert "independent" in out and f"{a}, {b}, {c} are dynamic values" in out
    m = re.search(r"with (.*?) \(", out)
    values = dict(kv.split("=") for kv in m.group(1).split(", "))
    x, y, z = (int(values[n]) for n in (a, b, c))
    image = sorted(_value((x, y), (1, z), i) for i in range(x * y))
    assert image != list(range(x * y))  # the assignment really is a counterexample


def test_two_question_marks_in_two_texts_are_two_unknowns():
    # before: both texts read as (dyn1,4):(1,dyn2), PROVED equal; a ? is a runtime value of its own
    code, out = _cli("equal", "(?,4):(1,?)", "(?,4):(1,?)", "--json")
    d = json.loads(out)
    assert code == 1 and d["status"] == "refuted", out
    names = _unknowns(d["what"])
    assert len(names) == 4 and d["notes"] and "independent" in d["notes"][0]
    asg = d["counterexample"]["assignment"]
    (i,) = d["counterexample"]["coords"]
    a0, a1, b0, b1 = (asg.get(n, 1) for n in names)
    assert _value((a0, 4), (1, a1), i) != _value((b0, 4), (1, b1), i)


def test_a_manifest_reads_each_inline_question_mark_as_its_own_unknown(tmp_path):
    m = tmp_path / "k.cute.yaml"
    m.write_text('kernels:\n  k:\n    layouts: {A: "(?,4)"}\n    claims:\n      - equal: ["(?,4)", "(?,4)"]\n'
                 '      - equal: [A, A]\n')  # one entry is one layout: its unknowns are the same values
    code, out = _cli("check", "--json", str(m))
    rows = json.loads(out)["results"]
    assert [r["status"] for r in rows] == ["refuted", "proved"], out
    assert rows[0]["notes"] and "independent" in rows[0]["notes"][0]


def test_prove_names_the_unknowns_of_its_bindings():
    code, out = _cli("prove", "A == B", "--let", "A=(?,4)", "--let", "B=(?,4)")
    assert code == 1 and "where A = (" in out and "independent" in out, out


def test_python_api_parses_give_independent_unknowns():
    A, B = cv.parse("(?,4):(1,?)"), cv.parse("(?,4):(1,?)")
    assert not ({s.name for s in A.free_symbols()} & {s.name for s in B.free_symbols()})


@pytest.mark.parametrize("d1, d2", [(1, 1), (2, 3), (3, 5), (5, 2), (7, 9)])
def test_eval_prints_cute_notation_that_evaluates_to_the_layouts_value(d1, d2):
    code, out = _cli("eval", "(?,(4,8)):(8192,(?,40))", "3")
    assert code == 0, out
    value = re.search(r"^value: (.*)$", out, re.M).group(1)
    assert not SYMPY_NAMES.search(out), out
    assert "note:" in out and "independent" in out
    a, b = _unknowns(re.search(r"^layout: (.*)$", out, re.M).group(1))
    text = value.replace(a, "d1").replace(b, "d2")
    assert re.fullmatch(r"[\w+\-*/%() ]+", text)
    got = eval(text, {"__builtins__": {}}, {"d1": d1, "d2": d2})  # Python's // and % as CuTe DSL's
    assert got == _value((d1, (4, 8)), (8192, (d2, 40)), 3)


def test_named_unknowns_state_relations():
    code, out = _cli("bijective", "(?M,?N):(1,?M)")
    assert code == 0 and "PROVED" in out, out
    code, out = _cli("bijective", "(?M,?N):(1,?K)")
    assert code == 1, out
    code, out = _cli("equal", "(?M,4):(1,?M)", "(?M,4):(1,M)")  # ?M and M are one symbol
    assert code == 0, out
    code, out = _cli("bijective", "(?M,?N):(1,?M)", "--assume", "M % 8 == 0")
    assert code == 0, out


def test_ir_divisibility_forms_are_assumptions():
    L = cv.parse("(?{i64 div=8},4):(4,1)")
    (name,) = [s.name for s in L.free_symbols()]
    assert L.assumptions.holds({name: 16}) and not L.assumptions.holds({name: 12})
    assert len(cv.parse("(?{i32},?{div=1})").free_symbols()) == 2
    # the assumption discharges the obligation 4 | M that M/4 needs
    code, out = _cli("equal", "(?M{div=4}):(1)", "(4,M/4):(1,4)")
    assert code == 0 and "discharged from the assumptions" in out and "under obligations" not in out, out
    code, out = _cli("equal", "(?M):(1)", "(4,M/4):(1,4)")
    assert "under obligations" in out, out


@pytest.mark.parametrize("text, col, word", [("(?1,4)", 2, "?NAME"), ("(?{div=x},4)", 4, "div=N"),
                                             ("(4,?{i16})", 6, "div=N"), ("(4,?*2)", 4, "?NAME")])
def test_malformed_dynamic_values_are_input_errors_with_the_column(text, col, word):
    code, out = _cli("bijective", text)
    assert code == 2 and f"column {col}" in out and word in out and "Traceback" not in out, out


# ------------------------------------------------------------------------------- CuTe notation printing

def _random_expr(rng, depth):
    """A random integer expression over M, N, K: + - * // % with positive divisors, as Python text."""
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(["M", "N", "K", str(rng.randint(1, 9))])
    op = rng.choice(["+", "-", "*", "//", "%"])
    a = _random_expr(rng, depth - 1)
    b = rng.choice(["M", "N", "K", str(rng.randint(1, 9)), "(M+3)", "(2*N)"]) if op in ("//", "%") else \
        _random_expr(rng, depth - 1)
    return f"({a}{op}{b})"


def test_printed_expressions_are_cute_notation_with_the_same_value():
    rng = random.Random(25)
    for _ in range(150):
        src = _random_expr(rng, 4)
        printed = format_value(parse_expr(src))
        assert not SYMPY_NAMES.search(printed), (src, printed)
        for _ in range(4):
            env = {"M": rng.randint(1, 40), "N": rng.randint(1, 40), "K": rng.randint(1, 40)}
            want = eval(src, {"__builtins__": {}}, env)
            got = eval(printed, {"__builtins__": {}}, env)
            assert got == want, (src, printed, env)


def test_a_kernel_with_declared_symbols_accepts_anonymous_unknowns(tmp_path):
    """``symbols:`` lists the names a kernel may use; each ``?`` is its own unknown, never an undeclared name."""
    from cuteverify.frontend import manifest as mf
    p = tmp_path / "q.cute.yaml"
    p.write_text('version: 1\nkernels:\n  k:\n    symbols: [M]\n    layouts:\n      A: "(?,M):(1,?)"\n'
                 '    claims:\n      - injective: A\n        expect: refuted\n')
    (r,) = mf.run(mf.load(str(p)))
    assert r["status"] == "refuted" and r["notes"], r
