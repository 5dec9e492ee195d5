"""Kernel manifests: loading (errors with file:line:column), running, JUnit, the pytest plugin, the testing
assertions and interop."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cuteverify.frontend import manifest as mf

ROOT = Path(__file__).resolve().parents[2]

GOOD = textwrap.dedent("""\
    version: 1
    kernels:
      k:
        symbols: [M]
        assume: ["M >= 1"]
        layouts:
          sw: "S<3,3,3> o 0 o (8,64):(64,1)"
          gA: "(M,64):(64,1)"
          bad: "(4,8):(1,2)"
        claims:
          - bijective: sw
          - injective: "(4,8):(1,4)"
          - surjective: {layout: "(4,8):(1,4)", codomain: 32}
          - equal: [sw, "S<3,3,3> o 0 o (8,64):(64,1)"]
          - disjoint: {layout: "4:2", cotarget: 24}
          - bijective: gA
          - injective: bad
            expect: refuted
            name: a known collision
          - prove: "bijective(composition(sw, (8,64):(1,8)))"
    """)


def _err(text, tmp_path):
    p = tmp_path / "m.cute.yaml"
    p.write_text(text)
    with pytest.raises(mf.ManifestError) as ei:
        mf.load(p)
    return ei.value


def test_load_and_run(tmp_path):
    p = tmp_path / "m.cute.yaml"
    p.write_text(GOOD)
    claims = mf.load(p)
    assert [c.kind for c in claims] == ["bijective", "injective", "surjective", "equal", "disjoint", "bijective",
                                        "injective", "prove"]
    assert claims[0].line == 11 and claims[6].label == "a known collision"
    for jobs in (1, 2):
        res = mf.run(claims, jobs=jobs)
        assert [r["status"] for r in res] == ["proved"] * 6 + ["refuted", "proved"], res
        assert all(r["ok"] for r in res)
        assert mf.exit_code(res) == 0
    assert res[6]["counterexample"]
    xml = mf.junit_xml(res)
    assert 'tests="8"' in xml and 'failures="0"' in xml


def test_exit_code_rules():
    r = lambda status, expect="proved": {"status": status, "expect": expect, "ok": status == expect}  # noqa: E731
    assert mf.exit_code([r("proved")]) == 0
    assert mf.exit_code([r("refuted"), r("unknown")]) == 1
    assert mf.exit_code([r("proved", "refuted")]) == 1
    assert mf.exit_code([r("unknown")]) == 3
    assert mf.exit_code([r("error"), r("refuted")]) == 2


@pytest.mark.parametrize("text, line, col, needle", [
    ("kernels:\n  k: [\n", 3, 1, "YAML error"),
    ("kernels:\n  k:\n    claims:\n      - bijective: A\n    claims: []\n", 5, 5, "duplicate key"),
    ("", 1, 1, "empty manifest"),
    ("kernels: {}\n", 1, 10, "schema"),
    ("kernels:\n  k:\n    claims:\n      - frobnicate: A\n", 4, 9, "schema"),
    ("kernels:\n  k:\n    claims:\n      - bijective: A\n        injective: A\n", 4, 9, "more than one kind"),
    ("kernels:\n  k:\n    claims:\n      - equal: [A]\n", 4, 16, "schema"),
    ("kernels:\n  k:\n    claims:\n      - bijective: A\n", 4, 20, "unknown layout name 'A'"),
    ("kernels:\n  k:\n    layouts: {A: '(4,8):(1,4'}\n    claims:\n      - bijective: A\n", 3, 29,
     "cannot parse layout A"),
    ("kernels:\n  k:\n    claims:\n      - bijective: '(4,8):(1,,4)'\n", 4, 30, "cannot parse layout"),
    ("kernels:\n  k:\n    symbols: [M]\n    layouts: {A: '(N,8):(1,N)'}\n    claims:\n      - bijective: A\n",
     4, 18, "undeclared symbol"),
    ("kernels:\n  k:\n    assume: ['M >>= 3']\n    claims:\n      - bijective: '4:1'\n", 3, None, "assum"),
    ("kernels:\n  k:\n    claims:\n      - agrees: {layout: '4:1'}\n", 4, 17, "schema"),
])
def test_errors_have_file_line_column(text, line, col, needle, tmp_path):
    e = _err(text, tmp_path)
    assert needle in str(e), str(e)
    assert e.file.endswith("m.cute.yaml")
    assert e.line == line, str(e)
    if col is not None:
        assert e.column == col, str(e)
    assert str(e).startswith(f"{e.file}:{line}")


def test_prove_claim_parse_error_is_an_error_result(tmp_path):
    p = tmp_path / "m.cute.yaml"
    p.write_text("kernels:\n  k:\n    claims:\n      - prove: 'frobnicate((4,8):(1,4))'\n")
    res = mf.run(mf.load(p))
    assert res[0]["status"] == "error" and "m.cute.yaml:4" in res[0]["reason"]
    assert mf.exit_code(res) == 2


def test_unreadable_file(tmp_path):
    with pytest.raises(mf.ManifestError, match="cannot read"):
        mf.load(tmp_path / "missing.cute.yaml")


def test_schema_is_valid_json_schema():
    import jsonschema
    jsonschema.validators.validator_for(mf.schema()).check_schema(mf.schema())


def test_examples_load():
    for p in sorted((ROOT / "examples").rglob("*.cute.yaml")):
        assert mf.load(p)


# -------------------------------------------------------------------------------------- testing.py

def test_testing_assertions():
    from cuteverify.frontend import testing as t
    t.assert_bijective("S<3,3,3> o 0 o (8,64):(64,1)")
    t.assert_injective("(4,8):(1,4)")
    t.assert_equal("(4,8):(1,4)", "32:1")
    t.assert_disjoint("4:2", 24)
    t.assert_agrees("((4,8),(2,2)):((32,1),(16,8))", "SM80_16x8x16_F32BF16BF16F32_TN", "C")
    t.assert_bijective("(M,N):(1,M)", assume=["M >= 1", "N >= 1"])
    with pytest.raises(AssertionError, match=r"coordinates 2 \(2,0\) and 4 \(0,1\) both map to 2"):
        t.assert_injective("(4,8):(1,2)")
    with pytest.raises(AssertionError, match="counterexample"):
        t.assert_bijective("(4,8):(2,8)")
    with pytest.raises(AssertionError, match=r"at coordinate 1"):
        t.assert_equal("(4,8):(1,4)", "(4,8):(8,1)")
    with pytest.raises(AssertionError, match="thread 0, value 4"):
        t.assert_agrees("((4,8),(2,2,2)):((32,1),(16,8,64))", "SM80_16x8x16_F32BF16BF16F32_TN", "A")


# -------------------------------------------------------------------------------------- interop

def test_interop():
    import cuteverify as cv
    from cuteverify.core.notation.interop import as_layout
    assert str(as_layout("((_2,_2),_4):((_1,_2),_4)")) == "((2,2),4):((1,2),4)"
    assert str(as_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")) == "S<3,3,3> o 0 o (8,64):(64,1)"
    assert str(as_layout((4, 8))) == "(4,8):(1,4)"

    class DSLish:  # the shape/stride structure of a CuTe DSL layout
        shape = (4, (2, 3))
        stride = (1, (8, 4))
    assert str(cv.parse(DSLish())) == "(4,(2,3)):(1,(8,4))"
    with pytest.raises(cv.ParseError, match="got object"):  # an input error naming the argument (was TypeError)
        as_layout(object())
    pycute = pytest.importorskip("pycute")
    assert str(as_layout(pycute.Layout((4, (2, 3)), (1, (8, 4))))) == "(4,(2,3)):(1,(8,4))"
    c = as_layout(pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((8, 64), (64, 1))))
    assert str(c) == "S<3,3,3> o 0 o (8,64):(64,1)"
    from cuteverify.frontend.testing import assert_bijective
    assert_bijective(pycute.Layout((4, 8), (8, 1)))


# -------------------------------------------------------------------------------------- pytest plugin

def _pytest(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def test_plugin_collects_manifests(tmp_path):
    (tmp_path / "good.cute.yaml").write_text(GOOD)
    (tmp_path / "bad.cute.yaml").write_text(
        "kernels:\n  k:\n    claims:\n      - injective: '(4,8):(1,2)'\n")
    (tmp_path / "other.yaml").write_text("not: a manifest\n")
    p = _pytest(str(tmp_path), cwd=tmp_path)
    out = p.stdout + p.stderr
    assert "1 failed, 8 passed" in out, out
    assert "counterexample: coordinates 2 (2,0) and 4 (0,1) both map to 2" in out
    p = _pytest(str(tmp_path), "--no-cute-manifests", cwd=tmp_path)
    assert "no tests ran" in p.stdout + p.stderr


def test_plugin_is_silent_without_manifests(tmp_path):
    (tmp_path / "test_x.py").write_text("def test_x():\n    assert len('x') == 1\n")
    p = _pytest(str(tmp_path), cwd=tmp_path)
    assert "1 passed" in p.stdout, p.stdout + p.stderr
