"""The TMA descriptor model against the H200 driver's verdicts (specs/evidence/sm90/tma_driver_verdicts.jsonl,
written by probes/tma_encode.c from the cases of probes/tma_encode_cases.py): the model accepts exactly the
parameter sets cuTensorMapEncodeTiled accepted, and the recorded parameters are the generator's."""
import importlib.util
import json
import pathlib

import pytest

from cuteverify.hardware.tma.tiled import TmaDescriptor

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "specs/evidence/sm90/tma_driver_verdicts.jsonl"


def _records():
    lines = [json.loads(x) for x in EVIDENCE.read_text().splitlines()]
    return lines[0]["meta"], lines[1:]


META, RECORDS = _records()


def _descriptor(r):
    return TmaDescriptor.from_driver(r["dtype"], r["rank"], r["dims"], r["strides"], r["box"], r["estr"],
                                     r["interleave"], r["swizzle"], r["l2"], r["oob"], address=r["addr"])


def test_evidence_is_from_an_h200():
    assert META["gpu"] == "NVIDIA H200" and META["cc"] == "9.0"
    assert len(RECORDS) > 1000
    accepted = sum(r["result"] == 0 for r in RECORDS)
    assert 300 < accepted < len(RECORDS) - 300  # both verdicts well represented


def test_model_agrees_with_every_driver_verdict():
    wrong = []
    for r in RECORDS:
        v = _descriptor(r).check()
        assert v.status != "unknown", (r, v.reason)
        if v.proved != (r["result"] == 0):
            wrong.append((r["id"], r["result"], v.reason))
    assert not wrong, f"{len(wrong)} of {len(RECORDS)} disagree, e.g. {wrong[:5]}"


def test_each_rule_is_exercised_by_the_evidence():
    # every enforced rule refutes at least one recorded case that the driver refused
    seen = set()
    for r in RECORDS:
        if r["result"] != 0:
            v = _descriptor(r).check()
            seen |= {x.claim.split(":", 1)[0] for x in v.rules if x.refuted}
    for name in ("rank", "interleave_rank", "address_alignment", "global_dims", "stride_alignment", "stride_bound",
                 "box_dims", "inner_box_bytes", "swizzle_span", "box_bytes", "element_strides", "enums",
                 "oob_fill_float", "arch"):
        assert name in seen, name


def test_recorded_parameters_are_the_generators():
    spec = importlib.util.spec_from_file_location("tma_encode_cases", ROOT / "probes/tma_encode_cases.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    cases = {}
    for rnd, fn in ((1, gen.all_cases), (2, gen.limit_cases), (3, gen.box_size_cases)):
        for i, c in enumerate(fn(), (rnd - 1) * 10000):
            cases[i] = c
    assert set(cases) == {r["id"] for r in RECORDS}
    for r in RECORDS:
        c = cases[r["id"]]
        n = min(c["rank"], 5)
        pad = lambda xs, k: (list(xs) + [0] * k)[:k]  # noqa: E731
        assert (r["dtype"], r["rank"], r["addr"]) == (c["dtype"], c["rank"], c["addr"])
        assert r["dims"] == pad(c["dims"], n) and r["box"] == pad(c["box"], n)
        assert r["strides"] == pad(c["strides"], max(n - 1, 0)) and r["estr"] == pad(c["estr"], n)


@pytest.mark.parametrize("swizzle, ok", [
    (1, True), (4, False),          # 128B_ATOM_32B refused on sm_90
    (0, True), (3, True),           # INTERLEAVE_32B without SWIZZLE_32B accepted (cuda.h says it needs 32B)
])
def test_driver_facts_that_differ_from_the_documentation(swizzle, ok):
    base = dict(dtype=6, rank=3, dims=[16, 64, 64], strides=[32, 2048], box=[16, 8, 8], estr=[1, 1, 1],
                interleave=2, swizzle=swizzle, l2=0, oob=0, addr=32)
    matching = [r for r in RECORDS if all(r[k] == v for k, v in base.items())]
    assert matching and all((r["result"] == 0) == ok for r in matching)
    assert _descriptor(matching[0]).check().proved == ok
