"""`cuteverify spec validate-hw`: probe tables against the spec library (issue 8)."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.frontend.cli.main import main

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

EVIDENCE = Path(__file__).resolve().parents[2] / "specs" / "evidence" / "sm90"


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


# ------------------------------------------------------------------ silicon annotations in the specs

from cuteverify import hardware  # noqa: E402
from cuteverify.hardware.checks import evidence as hw_evidence  # noqa: E402


@pytest.fixture(scope="module")
def evidence():
    if not EVIDENCE.exists():
        pytest.skip("no silicon evidence in this checkout")
    return hw_evidence.evidence_results(EVIDENCE, lib=hardware.load())


def test_annotations_match_committed_evidence(evidence):
    """Every spec annotated as silicon-confirmed is still confirmed by the committed records (with the same
    record count and operands), and every spec the records confirm is annotated: the annotation cannot rot.
    Regenerate with ``python3 -c "from cuteverify.hardware import evidence; evidence.annotate('specs', 'specs/evidence/sm90')"``."""
    lib = hardware.load()
    res = {n: r for n, r in evidence.items() if not n.startswith("_")}
    assert evidence["_unmatched"] == []
    assert not [n for n, r in res.items() if r["status"] != "confirmed"]
    gpu = evidence["_meta"]["gpu"]
    for name, spec in lib.items():
        ev = spec.evidence
        if name in res:
            assert spec.silicon_confirmed, f"{name}: confirmed by the evidence but not annotated"
            assert ev == hw_evidence.evidence_entry(res[name], "sm90", gpu), name
        else:
            assert not spec.silicon_confirmed, f"{name}: annotated but the evidence has no record for it"
    confirmed = [n for n in lib if lib[n].silicon_confirmed]
    assert len(confirmed) >= 50
    for n in ("SM80_16x8x16_F32F16F16F32_TN", "SM90_64xNx16_F32F16F16_SS", "SM75_U32x4_LDSM_N",
              "GMMA::Layout_K_SW128_Atom<half_t>", "GMMA::Layout_MN_SW32_Atom<half_t>", "CU_TENSOR_MAP_SWIZZLE_64B"):
        assert lib[n].silicon_confirmed, n
    # bf16 atoms are aliases of the half_t entries; 8-bit atoms were not probed
    assert lib.get("GMMA::Layout_K_SW128_Atom<bfloat16_t>").silicon_confirmed
    assert not lib["GMMA::Layout_K_SW128_Atom<uint8_t>"].silicon_confirmed
    assert not lib["SM80_16x8x16_S32U8U8S32_TN"].silicon_confirmed  # merged from a probed anchor: null


def test_smem_evidence_detects_a_wrong_atom(tmp_path):
    """The descriptor/TMA check is not vacuous: a corrupted record is reported with the spec's prediction."""
    import gzip as gz
    src = EVIDENCE / "wgmma_smem_desc.jsonl.gz"
    if not src.exists():
        pytest.skip("no silicon evidence")
    lines = gz.open(src, "rt").read().splitlines()
    recs = [json.loads(x) for x in lines[1:]]
    target = next(r for r in recs if r["smem_layout"] == "MN_SW64" and r["row"] == 1 and r["col"] == 0)
    target["smem_offset"] += 16
    p = tmp_path / "desc.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in recs))
    res = hw_evidence.validate_smem([p], lib=hardware.load())
    r = res["GMMA::Layout_MN_SW64_Atom<half_t>"]
    assert r["status"] == "contradicted" and r["first"]["silicon"] == r["first"]["spec_says"] + 16
    assert res["GMMA::Layout_K_SW64_Atom<half_t>"]["status"] == "confirmed"


def test_cli_spec_show_and_list_display_evidence():
    show = CliRunner().invoke(main, ["spec", "show", "SM80_16x8x16_F32F16F16F32_TN"])
    lst = CliRunner().invoke(main, ["spec", "list", "SM80_16x8x16_F32"])
    assert show.exit_code == 0 and lst.exit_code == 0
    assert "evidence: sm90 (NVIDIA H200), confirmed" in show.output
    assert "confirmed on sm90 (NVIDIA H200)" in lst.output
    unprobed = CliRunner().invoke(main, ["spec", "show", "SM80_8x8x4_F64F64F64F64_TN"])
    assert "evidence:" in unprobed.output
