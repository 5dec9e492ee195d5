"""One result form: every verb's ``--json`` and every manifest result carry the same verdict shape (status, what,
a typed counterexample with its ``kind`` and ``text``, obligations, notes); verdicts and layouts are immutable
values; ``Layout.with_`` refuses a stride not congruent with the shape, naming both."""
from __future__ import annotations

import dataclasses
import json
import textwrap

import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify.errors import CuteVerifyError
from cuteverify.frontend.cli.main import main
from cuteverify.prover.verdict import Collision, Verdict
from strategies import ev, parse_plain

SM80 = "SM80_16x8x16_F32BF16BF16F32_TN"
TV_A_BAD = "((4,8),(2,2,2)):((32,1),(16,8,64))"
ACCESS = "((8,2,2),(8,(4,4))):((1,512,8),(64,(16,1024)))"

#: every verdict's JSON has these keys, whatever verb printed it
VERDICT_KEYS = {"status", "what", "method", "counterexample", "reason", "obligations", "discharged", "notes",
                "elapsed"}

REFUTING = {
    "injective": ["injective", "(4,8):(1,2)"],
    "surjective": ["surjective", "(4,8):(1,5)", "--codomain", "32"],
    "bijective": ["bijective", "(4,8):(2,8)"],
    "equal": ["equal", "(4,8):(1,4)", "(4,8):(8,1)"],
    "agrees": ["agrees", TV_A_BAD, "--spec", SM80, "--operand", "A"],
    "banks": ["banks", "(64,64):(64,1)", "--access", ACCESS],
    "tma": ["tma", "--dtype", "bf16", "--shape", "(64,64)", "--box", "(64,257)"],
    "desc": ["desc", "--smem", "(64,64):(64,1)", "-d", "bf16"],
}


def _json(args):
    r = CliRunner().invoke(main, list(args) + ["--json"])
    assert "Traceback" not in r.output, r.output
    return r.exit_code, json.loads(r.output)


def _same_shape(d):
    """The uniform verdict shape: the keys, a status word, a typed counterexample object."""
    assert VERDICT_KEYS <= set(d), sorted(d)
    assert d["status"] in ("proved", "refuted", "unknown")
    cex = d["counterexample"]
    assert isinstance(cex, dict), cex
    assert isinstance(cex["kind"], str) and cex["kind"] and isinstance(cex["text"], str) and cex["text"]
    assert all(isinstance(o, dict) and "condition" in o for o in d["obligations"])
    assert isinstance(d["notes"], list)


@pytest.mark.parametrize("verb", sorted(REFUTING))
def test_every_verb_json_has_the_verdict_shape(verb):
    code, d = _json(REFUTING[verb])
    assert code == 1 and d["exit_code"] == 1 and d["status"] == "refuted", d
    _same_shape(d)


def test_injective_counterexample_is_a_real_collision():
    # the typed witness, checked with the test suite's own evaluator (no cuteverify code)
    _, d = _json(REFUTING["injective"])
    cex = d["counterexample"]
    assert cex["kind"] == "collision"
    lay = parse_plain("(4,8):(1,2)")
    i, j = cex["coords"]
    assert i != j and ev(lay, i) == ev(lay, j) == cex["values"][0]


def test_check_json_rows_have_the_same_shape_as_injective(tmp_path):
    p = tmp_path / "m.cute.yaml"
    p.write_text(textwrap.dedent("""\
        version: 1
        kernels:
          k:
            layouts:
              bad: "(4,8):(1,2)"
            claims:
              - injective: bad
                expect: refuted
              - injective: bad
        """))
    r = CliRunner().invoke(main, ["check", str(p), "--json"])
    out = json.loads(r.output)
    assert r.exit_code == 1 and out["exit_code"] == 1
    rows = out["results"]
    assert [x["status"] for x in rows] == ["refuted", "refuted"] and [x["ok"] for x in rows] == [True, False]
    _, single = _json(REFUTING["injective"])
    for row in rows:
        _same_shape(row)
        # the counterexample is the same object under the same key as `injective --json` gives
        assert row["counterexample"] == single["counterexample"]
        assert row["what"] == single["what"]


def test_verdict_is_immutable():
    v = cv.is_injective("(4,8):(1,2)")
    assert isinstance(v, Verdict) and isinstance(v.counterexample, Collision)
    for obj, name, value in ((v, "status", "proved"), (v, "method", "x"), (v.counterexample, "coords", (0, 0))):
        with pytest.raises(AttributeError):
            setattr(obj, name, value)
    assert v.status == "refuted" and v.counterexample.coords != (0, 0)
    w = dataclasses.replace(v, method="other")
    assert w.method == "other" and v.method != "other" and w.counterexample is v.counterexample


def test_layout_is_immutable_and_its_hash_stable():
    L = cv.Layout((2, 4), (1, 2))
    h = hash(L)
    for name, value in (("shape", (4, 2)), ("stride", (1, 4)), ("notes", ("x",))):
        with pytest.raises(AttributeError):
            setattr(L, name, value)
    assert L.shape == (2, 4) and L.stride == (1, 2) and hash(L) == h == hash(cv.Layout((2, 4), (1, 2)))
    for composed in (cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), cv.Swizzle(3, 3, 3)):
        with pytest.raises(AttributeError):
            setattr(composed, "outer" if hasattr(composed, "outer") else "bits", None)


def test_with_refuses_a_stride_not_congruent_with_the_shape():
    L = cv.Layout((2, 4), (1, 2))
    with pytest.raises(CuteVerifyError) as ei:
        L.with_((2, 2), 1)
    text = str(ei.value)
    assert "(2,2)" in text and "stride 1" in text
    M = L.with_((4, 2), (2, 1))
    assert [M(i) for i in range(8)] == [ev(parse_plain("(4,2):(2,1)"), i) for i in range(8)]
