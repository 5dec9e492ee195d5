"""``cuteverify check A.yaml B.yaml``: a manifest that cannot be loaded is reported as one error row (its file,
line, column and reason) next to every other file's verdicts, in the table, the JSON, the JUnit XML and the HTML
page; the exit code is the worst over all files (4 > 2 > 1 > 3 > 0). Issue 25."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.main import main

GOOD = """kernels:
  k:
    layouts: {A: "(4,8):(1,4)", B: "(4,8):(1,5)"}
    claims:
      - bijective: A
      - bijective: B
        expect: refuted
"""
REFUTED = """kernels:
  r:
    claims:
      - injective: "(2,2):(1,1)"
"""
BAD = 'kernels:\n  k:\n    layouts:\n      A: "(4,8):(1,4x)"\n    claims:\n      - bijective: A\n'


@pytest.fixture()
def files(tmp_path):
    out = {}
    for name, text in (("good", GOOD), ("refuted", REFUTED), ("bad", BAD)):
        p = tmp_path / f"{name}.cute.yaml"
        p.write_text(text)
        out[name] = str(p)
    return out


def _run(*args):
    return CliRunner().invoke(main, ["check", *args])


def test_a_broken_file_does_not_hide_the_others(files):
    r = _run(files["good"], files["bad"], files["refuted"])
    assert r.exit_code == 2, r.output  # an input error outranks a refutation
    out = r.output
    # every file's rows, in the order given, each under its file's name
    assert out.index(files["good"]) < out.index(files["bad"]) < out.index(files["refuted"])
    assert "bijective A" in out and "injective (2,2):(1,1)" in out
    assert "[r] injective (2,2):(1,1): expected proved, got refuted" in out  # the other file's verdict
    assert f"{files['bad']}:4:20: error: cannot parse layout A" in out
    assert "1 file(s) not loaded" in out


def test_json_has_each_files_results_and_the_error(files):
    r = _run("--json", files["bad"], files["good"])
    d = json.loads(r.output)
    assert d["exit_code"] == r.exit_code == 2
    rows = d["results"]
    assert [x["file"] for x in rows] == [files["bad"], files["good"], files["good"]]
    load = rows[0]
    assert (load["kind"], load["status"], load["error_kind"], load["line"], load["column"]) == \
        ("load", "error", "input", 4, 20)
    assert [x["status"] for x in rows[1:]] == ["proved", "refuted"] and all(x["ok"] for x in rows[1:])
    assert d["errors"] == [{"file": files["bad"], "line": 4, "column": 20, "reason": load["reason"]}]


def test_junit_has_a_suite_per_file_and_the_broken_file_as_an_errored_case(files, tmp_path):
    junit = tmp_path / "j.xml"
    r = _run("--junit-xml", str(junit), "--html", str(tmp_path / "r.html"), files["good"], files["bad"])
    assert r.exit_code == 2, r.output
    root = ET.parse(junit).getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert list(suites) == [files["good"], files["bad"]]
    good = suites[files["good"]]
    assert good.get("tests") == "2" and good.get("failures") == "0" and good.get("errors") == "0"
    bad = suites[files["bad"]]
    (case,) = bad.iter("testcase")
    err = case.find("error")
    assert bad.get("errors") == "1" and case.get("line") == "4"
    assert err is not None and err.get("type") == "input" and "cannot parse layout A" in err.get("message")
    assert f"{files['bad']}:4:20" in err.text
    page = (tmp_path / "r.html").read_text()
    assert page.count('id="row-') == 3 and "(manifest not loaded)" in page and 'id="claim-2"' in page


def test_exit_code_is_the_worst_over_files(files):
    assert _run(files["good"]).exit_code == 0
    assert _run(files["good"], files["refuted"]).exit_code == 1
    assert _run(files["refuted"], files["bad"]).exit_code == 2


@pytest.mark.parametrize("statuses, code", [
    ((("proved", None, True), ("unknown", None, False)), 3),
    ((("unknown", None, False), ("refuted", None, False)), 1),
    ((("refuted", None, False), ("error", "input", False)), 2),
    ((("error", "input", False), ("error", "internal", False), ("refuted", None, False)), 4),
    ((("proved", None, True), ("refuted", None, True)), 0),
])
def test_exit_code_order(statuses, code):
    rows = [{"status": s, "ok": ok, **({"error_kind": k} if k else {})} for s, k, ok in statuses]
    assert mf.exit_code(rows) == code
