"""`cuteverify spec validate-hw`: probe tables against the spec library (issue 8)."""
import json
from pathlib import Path

from click.testing import CliRunner

from cuteverify.cli.main import main

EVIDENCE = Path(__file__).resolve().parents[1] / "specs" / "evidence" / "sm90"


def test_validate_hw_confirms_committed_evidence():
    r = CliRunner().invoke(main, ["spec", "validate-hw", str(EVIDENCE / "mma_sync.jsonl"), "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["results"]["SM80_16x8x16_F32F16F16F32_TN"]["status"] == "confirmed"


def test_validate_hw_reports_a_contradiction(tmp_path):
    lines = (EVIDENCE / "mma_sync.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in lines if x.startswith('{"instr"')]
    target = next(r for r in recs if r["instr"].startswith("mma.sync.aligned.m16n8k16") and r["operand"] == "C"
                  and r["thread"] == 5 and r["slot"] == 1)
    target["col"] += 1  # corrupt one element
    p = tmp_path / "bad.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in recs))
    r = CliRunner().invoke(main, ["spec", "validate-hw", str(p)])
    assert r.exit_code == 1, r.output
    assert "contradicted" in r.output and "thread 5 slot 1" in r.output


def test_validate_hw_bad_input(tmp_path):
    p = tmp_path / "junk.jsonl"
    p.write_text("{not json\n")
    r = CliRunner().invoke(main, ["spec", "validate-hw", str(p)])
    assert r.exit_code == 2 and "Traceback" not in r.output
