"""The im2col descriptor model against the H200 driver's verdicts (specs/evidence/sm90/tma_im2col_driver_verdicts.jsonl,
written by probes/tma_im2col_encode.c from the cases of probes/tma_im2col_cases.py): the model accepts exactly the
parameter sets cuTensorMapEncodeIm2col accepted, and every enforced rule is the only reason for some refusal."""
import collections
import json
import pathlib

import pytest

from cuteverify.hardware.tma.im2col import TmaIm2colDescriptor

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "specs/evidence/sm90/tma_im2col_driver_verdicts.jsonl"
LINES = [json.loads(x) for x in EVIDENCE.read_text().splitlines()]
META, RECORDS = LINES[0]["meta"], LINES[1:]
BYTES = {0: 1, 6: 2, 7: 4, 9: 2}


def _descriptor(r):
    eb = BYTES[r["dtype"]]
    stride = [1] + [s // eb if s % eb == 0 else s / eb for s in r["strides"]]
    return TmaIm2colDescriptor(r["dtype"], tuple(r["dims"]), tuple(stride) if len(stride) == len(r["dims"]) else None,
                               tuple(r["lower"]), tuple(r["upper"]), r["channels"], r["pixels"], tuple(r["estr"]),
                               interleave=r["interleave"], swizzle=r["swizzle"], l2_promotion=r["l2"],
                               oob_fill=r["oob"], address=r["addr"])


def test_evidence_is_from_an_h200():
    assert META["gpu"] == "NVIDIA H200" and META["cc"] == "9.0"
    accepted = sum(r["result"] == 0 for r in RECORDS)
    assert len(RECORDS) > 500 and 100 < accepted < len(RECORDS) - 100


def test_model_agrees_with_every_driver_verdict():
    wrong = []
    for r in RECORDS:
        v = _descriptor(r).check()
        assert v.status != "unknown", (r, v.reason)
        if v.proved != (r["result"] == 0):
            wrong.append((r["id"], r["result"], v.reason))
    assert not wrong, f"{len(wrong)} of {len(RECORDS)} disagree, e.g. {wrong[:5]}"


def test_each_rule_is_the_only_reason_for_some_refusal():
    only = collections.Counter()
    for r in RECORDS:
        if r["result"] != 0:
            refuted = [x.claim.split(":", 1)[0] for x in _descriptor(r).check().rules if x.refuted]
            if len(refuted) == 1:
                only[refuted[0]] += 1
    for name in ("im2col_rank", "corner_range", "bounding_box", "channels_per_pixel", "channels_bytes",
                 "pixels_per_column", "swizzle_span", "box_bytes", "element_strides", "address_alignment",
                 "stride_alignment"):
        assert only[name] > 0, (name, only)
