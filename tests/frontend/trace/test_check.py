"""``trace check`` / ``trace manifest`` plumbing: version gate, unknown types named, rows and exit codes, the
generated manifest loads with the manifest loader (the emitters' own claims are tested in their files)."""
import gzip
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.trace_check_cmd import trace_check_cmd, trace_manifest_cmd
from cuteverify.frontend.trace.check import capture_paths, check_captures, document

DATA = Path(__file__).resolve().parents[1] / "trace_data"
HOPPER = DATA / "hopper_dense_gemm_sm_90a.mlir.gz"
HEADER = '// cuteverify-capture: {"dsl": "%s", "arch": "sm_90a", "function": "f"}\n'


def _bare(path):
    """The capture's text without its header line (the committed captures carry one)."""
    text = gzip.decompress(path.read_bytes()).decode()
    return text.split("\n", 1)[1] if text.startswith("// cuteverify-capture:") else text


def _with_header(tmp_path, dsl, name="k.mlir", body=None):
    text = _bare(HOPPER) if body is None else body
    p = tmp_path / name
    p.write_text(HEADER % dsl + text)
    return p


def test_header_version_is_read_and_gated(tmp_path):
    known = document(_with_header(tmp_path, "4.8.1"))
    assert known.header["dsl"] == "4.8.1" and not [u for u in known.unknowns if "DSL" in u.what]
    newer = document(_with_header(tmp_path, "9.0.0", "n.mlir"))
    assert any(u.what == "DSL 9.0.0" for u in newer.unknowns)
    (tmp_path / "bare.mlir").write_text(_bare(HOPPER))
    bare = document(tmp_path / "bare.mlir")
    assert any(u.what == "capture header" for u in bare.unknowns)


def test_unknown_type_is_named_with_its_location(tmp_path):
    body = ('"builtin.module"() ({\n'
            '  %0 = "cute.frobnicate"() : () -> !cute.hyper_tensor<"(2,2):(1,2)"> loc(#loc1)\n'
            '}) : () -> () loc(#loc)\n'
            '#loc = loc("k.py":1:0)\n#loc1 = loc("x = cute.frobnicate()"(#loc2))\n#loc2 = loc("k.py":7:4)\n')
    doc = document(_with_header(tmp_path, "4.8.1", body=body))
    (u,) = doc.unknowns
    assert u.what == "type cute.hyper_tensor" and str(u.loc) == "k.py:7" and "cute.frobnicate" in u.why
    results, claims, _ = check_captures([tmp_path / "k.mlir"])
    assert [r["status"] for r in results] == ["unknown"] and results[0]["at"].startswith("k.py:7")
    assert mf.exit_code(results) == 3


def test_cli_check_rows_summary_and_exit_codes(tmp_path):
    run = CliRunner().invoke
    r = run(trace_check_cmd, [str(_with_header(tmp_path, "4.8.1")), "--json"])
    out = json.loads(r.output)
    assert r.exit_code == out["exit_code"] and out["kernels"][0]["kernel"] == "k"
    assert run(trace_check_cmd, [str(tmp_path / "missing.mlir")]).exit_code == 2
    (tmp_path / "bad.mlir").write_text("this is no module\n")
    r = run(trace_check_cmd, [str(tmp_path / "bad.mlir")])
    assert r.exit_code == 2 and "bad.mlir:1" in r.output
    assert capture_paths([DATA])[0].name.endswith(".mlir.gz")
    with pytest.raises(Exception, match="no capture"):
        capture_paths([tmp_path / "empty"] if (tmp_path / "empty").mkdir() is None else [])


def test_manifest_is_what_check_runs(tmp_path):
    cap = _with_header(tmp_path, "4.8.1")
    out = tmp_path / "k.cute.yaml"
    r = CliRunner().invoke(trace_manifest_cmd, [str(cap), "-o", str(out)])
    assert r.exit_code == 0, r.output
    doc = document(cap)
    claims = mf.load(out) if doc.claims else []
    assert len(claims) == len(doc.claims)
    assert all(c.at for c in claims)


def test_trace_script_then_check_in_one_go(tmp_path):
    """`cuteverify trace --arch sm_80 KERNEL.py` captures the repo's own small kernel and checks it; the pytest
    helper does the same and raises on a claim that is not as expected (DSL needed)."""
    pytest.importorskip("cutlass.cute")
    from cuteverify.frontend.cli.main import main
    from cuteverify.frontend.testing import assert_trace_checks
    kernel = Path(__file__).resolve().parent / "kernels" / "small_gemm_sm80.py"
    r = CliRunner().invoke(main, ["trace", "--arch", "sm_80", "-o", str(tmp_path / "c"), "--json", str(kernel)])
    out = json.loads(r.output)
    assert r.exit_code == out["exit_code"] and [k["kernel"] for k in out["kernels"]] == ["small_gemm"]
    assert r.exit_code == 0, [x for x in out["results"] if not x["ok"]]
    rows = assert_trace_checks(kernel, arch="sm_80", out_dir=tmp_path / "d")
    assert rows == [] or all(x["ok"] for x in rows)


def test_reports_name_the_source_line(tmp_path):
    """JUnit and HTML of a traced kernel: each failing claim under the kernel source line that built it."""
    cap = DATA / "blackwell_dense_gemm_sm_100a.mlir.gz"
    html, junit = tmp_path / "r.html", tmp_path / "j.xml"
    r = CliRunner().invoke(trace_check_cmd, [str(cap), "-q", "--html", str(html), "--junit-xml", str(junit)])
    assert r.exit_code == 1, r.output  # the epilogue's 4-way bank conflict (test_copy.KNOWN_REFUTED)
    page = html.read_text()
    assert "kernels/blackwell_dense_gemm.py:934: tRS_sC = thr_copy_r2s.partition_D(sC)" in page
    assert "blackwell_dense_gemm.py:934" in r.output and "<testsuite" in junit.read_text()


def test_no_equal_claim_compares_an_entry_with_itself():
    """A claim `equal: [x, x]` could never fail in the written manifest: the DSL's side of every comparison is
    an entry of its own (review of issue 28: 140 such claims before)."""
    for path in sorted(DATA.glob("*.mlir.gz")):
        doc = document(path)
        same = [c for c in doc.claims if "equal" in c and c["equal"][0] == c["equal"][1]]
        assert not same, (path.name, same[:2])


def test_a_capture_without_line_info_says_so(tmp_path):
    """Traced without CUTE_DSL_LINEINFO every op is loc(unknown): one unknown row says the findings cannot name
    source lines (review of issue 28: such a capture passed quietly)."""
    text = gzip.decompress(HOPPER.read_bytes()).decode()
    body = re.sub(r"loc\(#loc\d+\)", "loc(unknown)", text)
    doc = document(_with_header(tmp_path, "4.8.1", body=body))
    assert any(u.what == "source locations" for u in doc.unknowns)
    assert not any(u.what == "source locations" for u in document(_with_header(tmp_path, "4.8.1", "o.mlir")).unknowns)
