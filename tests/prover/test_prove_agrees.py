"""cv.agrees: proved / refuted with a re-checked Counterexample naming thread, value and both elements."""
import json

import pytest

import cuteverify as cv
from cuteverify.frontend import manifest as mf
from cuteverify.prover import Counterexample, Verdict
from cuteverify.hardware.checks import agree

TN = "SM80_16x8x16_F32F16F16F32_TN"


def test_agrees_proved():
    assert cv.agrees("S<3,3,3> o 0 o (8,64):(64,1)", "GMMA::Layout_K_SW128_Atom<half_t>").status == "proved"
    assert cv.agrees("((4,8),(2,2,2)):((32,1),(16,8,128))", TN, "A").status == "proved"


def test_agrees_refuted_names_thread_value_and_elements():
    v = cv.agrees("((4,8),(2,2,2)):((32,1),(8,16,128))", TN, "A")
    assert v.status == "refuted", str(v)
    c = v.counterexample
    assert c.kind == "disagree" and (c.thread, c.value_index) == (0, 1)
    assert c.user == (8, 0) and c.hardware == (0, 1) and c.axes == ("m", "k")
    assert c.coords == (0, 1) and c.values == ((8, 0), (0, 1))
    s = str(v)
    assert "thread 0, value 1" in s and "A[m=8, k=0]" in s and "A[m=0, k=1]" in s
    d = json.loads(json.dumps(v.to_json()))
    assert d["counterexample"]["thread"] == 0 and d["counterexample"]["user"] == [8, 0]


def test_agrees_smem_coordinate():
    v = cv.agrees("S<3,4,3> o 0 o (8,64):(64,1)", "GMMA::Layout_K_SW128_Atom<half_t>")
    assert v.status == "refuted"
    c = v.counterexample
    assert c.coords == (1, 0) and c.values == (64, 72)


def test_agrees_shape_mismatch_is_refuted_with_reason():
    # the spec library's verdict; the API (like the CLI and manifests) calls that an input error
    v = agree.agrees("(32,(2,2)):(1,(16,8))", TN, "A")
    assert v.status == "refuted" and v.counterexample.kind == "mismatch"
    assert "value mode" in v.reason and "value mode" in str(v)
    with pytest.raises(cv.CuteVerifyError, match="value mode") as e:
        cv.agrees("(32,(2,2)):(1,(16,8))", TN, "A")
    assert e.value.kind == "input"


def test_agrees_witness_is_rechecked(monkeypatch):
    monkeypatch.setattr(agree, "_recheck_agrees", lambda *a: False)
    v = cv.agrees("((4,8),(2,2,2)):((32,1),(8,16,128))", TN, "A")
    assert v.status == "unknown" and "did not re-check" in v.reason


def test_manifest_agrees_verdict_is_cv_agrees():
    doc = ("version: 1\nkernels:\n  k:\n    layouts:\n      tv: \"((4,8),(2,2,2)):((32,1),(8,16,128))\"\n"
           f"    claims:\n      - agrees: {{layout: tv, spec: {TN}, operand: A}}\n        expect: refuted\n")
    (a,) = mf.run(mf.load_text(doc, "t.cute.yaml"))
    b = cv.agrees("((4,8),(2,2,2)):((32,1),(8,16,128))", TN, "A")
    assert a["status"] == b.status == "refuted" and a["counterexample"]["text"] == str(b.counterexample), a


@pytest.mark.parametrize("cex", [
    Counterexample.of("collision", note="only a note"), Counterexample.of("missed", note="n"),
    Counterexample.of("out-of-range"), Counterexample.of("differ", note="x"), Counterexample.of("overlap"),
    Counterexample.of("disagree"), Counterexample.of("mismatch", note="shapes"), Counterexample(coords=(1,)),
    Counterexample.of("collision", coords=(1,)), Counterexample.of("differ", coords=(3,), values=(1,)),
])
def test_verdict_str_never_fails(cex):
    v = Verdict("refuted", claim="c", counterexample=cex)
    s = str(v)
    assert cex.kind in s or (cex.note and cex.note in s)
    json.dumps(v.to_json())


def test_cv_prove_is_the_function():
    import cuteverify.prover  # noqa: F401 (importing the package must not shadow the function)
    assert callable(cv.prove) and cv.prove.__name__ == "prove"
    assert cv.prove("bijective((M,N):(1,M))").status == "proved"
