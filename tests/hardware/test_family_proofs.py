"""Whole spec families proved at once (issue 19): the self-check proves a family's operands for every
parameter value by one symbolic proof where it goes through (and says so), and ``agrees`` against a family
with a symbolic parameter proves the claim for every value the assumptions allow, or instantiates each.
Every symbolic verdict is checked against instantiation: the per-instance comparison (exhaustive over every
(thread, value), the path that checked these families before) at every value of the family."""
from __future__ import annotations

import pytest

from cuteverify import hardware
from cuteverify.errors import SpecError, SpecInconsistent
from cuteverify.hardware.checks import family, selfcheck
from cuteverify.hardware.library.catalog import load_file

_SS = "SM90_64xNx16_F32BF16BF16_SS"
_C = "((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))"


@pytest.fixture(scope="module")
def lib():
    out = hardware.default_library()
    for name in (_SS, "SM90_64xNx16_F16F16F16_RS", "SM90_64xNx8_F32TF32TF32_SS_TN", "SM100_MMA_F16BF16_SS"):
        selfcheck.self_check(out[name], symbolic=True)
    return out


def _instances_agree(spec, operand):
    """The per-instance self-check of ``operand`` at every value of the family (brute force)."""
    return {tuple(p.items()): selfcheck._operand_problem_uncached(spec, operand, p) for p in spec.instances()}


@pytest.mark.parametrize("name", [_SS, "SM90_64xNx16_F16F16F16_RS", "SM90_64xNx8_F32TF32TF32_SS_TN"])
def test_wgmma_families_are_proved_by_one_symbolic_proof(lib, name):
    spec = lib[name]
    assert selfcheck.check_method(spec).startswith("one symbolic proof per operand for every N in 8..256 step 8")
    for op in spec.operands:
        got = _instances_agree(spec, op)
        assert len(got) == 32 and all(v is None for v in got.values()), (op, got)


def test_umma_family_is_proved_for_m_and_n(lib):
    spec = lib["SM100_MMA_F16BF16_SS"]
    method = selfcheck.check_method(spec)
    assert method.startswith("one symbolic proof per operand") and "M in {64,128}" in method, method
    for op in spec.operands:
        assert all(v is None for v in _instances_agree(spec, op).values()), op


_FAMILY = """version: 1
helpers:
  groupID: "lane >> 2"
  threadID_in_group: "lane % 4"
specs:
  TEST_64xNx16_SS:
    kind: mma
    arch: sm_90a
    ptx: "wgmma.mma_async.sync.aligned.m64n{{N}}k16.f32.bf16.bf16"
    dtypes: {{a: bf16, b: bf16, c: f32, d: f32}}
    shape_mnk: [64, N, 16]
    threads: 128
    thr_id: "128:1"
    params:
      N: {{range: [8, 256, 8]}}
    operands:
      A:
        layout: "(128,(64,16)):(0,(1,64))"
        broadcast: all
        row: "i % 64"
        col: "i // 64"
      B:
        layout: "(128,(N,16)):(0,(1,N))"
        broadcast: all
        row: "i // N"
        col: "i % N"
      C:
        layout: "{layout}"
        row: "16*warp + groupID + 8*((i >> 1) & 1)"
        col: "{col}"
    source:
      cutlass: "test"
      ptx: "test"
"""
_COL = "threadID_in_group*2 + (i & 1) + 8*(i >> 2)"


def _family(layout=_C, col=_COL):
    (spec,) = load_file(_FAMILY.format(layout=layout, col=col), "<test>")
    return spec


@pytest.mark.parametrize("layout,col,first_bad", [
    (_C, _COL, None),
    (_C, _COL + " + 256*(i // 128)", None),       # i < N/2 <= 128: the same function on every instance
    (_C, _COL + " + (i // 100)", 208),            # wrong only where N/2 > 100
    (_C.replace("512", "520"), _COL, 16),          # wrong from the second block of columns on
    (_C, _COL + " + ((i >> 6) & 2)", None),        # bit 7 of i: i < N/2 <= 128 never sets it
    (_C, _COL + " + ((i >> 5) & 2)", 136),         # bit 6 of i: set from i = 64 on
])
def test_a_family_proof_agrees_with_every_instance(layout, col, first_bad):
    spec = _family(layout, col)
    asm = family.family_facts(spec, {"N"})
    proved = family.symbolic_tv_agreement(spec, "C", spec.layout("C"), asm)
    bad = sorted(dict(p)["N"] for p, r in _instances_agree(spec, "C").items() if r is not None)
    assert (bad[0] if bad else None) == first_bad, bad
    assert proved == (not bad), (proved, bad)  # sound (never proved with a bad instance) and, here, complete
    selfcheck.clear_cache()
    if bad:
        with pytest.raises(SpecInconsistent) as e:
            selfcheck.self_check(spec, symbolic=True)
        assert f"N={bad[0]}" in str(e.value)
        assert "instances checked" in selfcheck.check_method(spec)
    else:
        selfcheck.self_check(spec, symbolic=True)
        assert selfcheck.check_method(spec).startswith("one symbolic proof per operand")


# --- agrees against a family with a symbolic parameter ---------------------------------------------------

def _brute(layout_text, n):
    """The instance verdict at N = n (the concrete, exhaustive comparison)."""
    return hardware.agrees(layout_text, _SS, "C", N=n).status


@pytest.mark.parametrize("layout,assume,status,how,values", [
    (_C, ["N % 8 == 0", "8 <= N", "N <= 256"], "proved", "symbolic", range(8, 257, 8)),
    (_C, ["N % 64 == 0"], "proved", "symbolic", (64, 128, 192, 256)),
    (_C, None, "proved", "symbolic", range(8, 257, 8)),
    ("((4,8,4),(2,2,2,N/16)):((128,1,16),(64,8,512,1024))", ["N % 16 == 0"], "proved", "symbolic",
     range(16, 257, 16)),
    ("((4,8,4),(2,2,2,N/16)):((128,1,16),(64,8,512,1025))", ["N % 16 == 0"], "refuted", "instantiation",
     range(16, 257, 16)),
    ("((4,8,4),(2,2,2,N/16)):((128,1,16),(64,8,512,1025))", ["N % 16 == 0", "N <= 16"], "proved", "symbolic",
     (16,)),
    ("((4,8,4),(N/8,2,2)):((128,1,16),(512,64,8))", ["N % 8 == 0"], "refuted", "instantiation",
     range(8, 257, 8)),
])
def test_agrees_with_a_symbolic_family_parameter(layout, assume, status, how, values):
    v = hardware.agrees(layout, _SS, "C", assume=assume)
    assert v.status == status and v.method.startswith(how), v.to_json()
    brute = {n: _brute(layout, n) for n in values}
    if status == "proved":
        assert set(brute.values()) == {"proved"}, brute
    else:
        n = v.counterexample.assignment["N"]
        assert brute[n] == "refuted" and all(brute[m] == "proved" for m in values if m < n), (n, brute)


def test_a_plain_load_checks_instances_and_says_so(lib):
    spec = _family()
    selfcheck.self_check(spec)
    assert selfcheck.check_method(spec) == "32 instances checked (N in 8..256 step 8)"


def test_agrees_says_when_no_family_value_is_allowed():
    with pytest.raises(SpecError):
        hardware.agrees(_C, _SS, "C", assume=["N % 512 == 0"])


# --- UMMA 2x1SM: parameter quotients (M//2) and ThrID composed into the query --------------------------

def test_umma_2x1sm_family_is_proved_for_m_and_n():
    spec = hardware.default_library()["SM100_MMA_TF32_2x1SM_SS"]
    selfcheck.clear_cache()
    selfcheck.self_check(spec, symbolic=True)
    method = selfcheck.check_method(spec)
    assert method.startswith("one symbolic proof per operand") and "M in {128,256}" in method, method
    for op in spec.operands:
        assert all(v is None for v in _instances_agree(spec, op).values()), op


_PAIR = """version: 1
specs:
  TEST_PAIR:
    kind: mma
    arch: sm_100a
    ptx: "test"
    dtypes: {{a: tf32, b: tf32, c: f32, d: f32}}
    shape_mnk: [{m}, N, 8]
    threads: {threads}
    thr_id: "{thr}"
    params:
      {mparam}N: {{range: [16, 256, 16]}}
    operands:
      A: {{layout: "({threads},({m},8)):(0,(1,{m}))", broadcast: all, row: "i % {m}", col: "i // {m}"}}
      B: {{layout: "({threads},(N,8)):(0,(1,N))", broadcast: all, row: "i // N", col: "i % N"}}
      C: {{layout: "{layout}", row: "{row}", col: "{col}"}}
    source:
      cutlass: "test"
      ptx: "test"
"""
# the 2x1SM accumulator: CTA c of the pair holds rows c*M/2 ..; ThrID the identity
_PAIR_2SM = dict(m="M", threads=2, thr="2:1", mparam="M: {values: [128, 256]}\n      ",
                 layout="(2,(M/2,N)):(M/2,(1,M))", row="thread*(M//2) + i % (M//2)", col="i // (M//2)")
# four threads whose ThrID transposes a 2x2 grid: logical thread t0 + 2*t1 is physical thread 2*t0 + t1
_PAIR_THR = dict(m=4, threads=4, thr="(2,2):(2,1)", mparam="", layout="((2,2),N):((2,1),4)", row="tid",
                 col="i")


@pytest.mark.parametrize("base,change,first_bad", [
    (_PAIR_2SM, {}, None),
    (_PAIR_2SM, {"col": "i // (M//2) + (i // (M//2)) // 255"}, 256),   # wrong only at the largest N
    (_PAIR_2SM, {"row": "thread*(M//4) + i % (M//2)"}, 16),          # the pair's row offset halved
    (_PAIR_2SM, {"layout": "(2,(M/2,N)):(M/2,(1,M+1))"}, 16),
    (_PAIR_THR, {}, None),
    (_PAIR_THR, {"col": "i + i // 250"}, 256),                          # wrong only at the largest N
    (_PAIR_THR, {"row": "thread"}, 16),                                 # ThrID ignored: wrong everywhere
    (_PAIR_THR, {"layout": "((2,2),N):((1,2),4)"}, 16),                  # the identity where ThrID is not
])
def test_a_pair_family_proof_agrees_with_every_instance(base, change, first_bad):
    (spec,) = load_file(_PAIR.format(**dict(base, **change)), "<test>")
    asm = family.family_facts(spec, set(spec.params))
    proved = family.symbolic_tv_agreement(spec, "C", spec.layout("C"), asm)
    bad = sorted(dict(p)["N"] for p, r in _instances_agree(spec, "C").items() if r is not None)
    assert (bad[0] if bad else None) == first_bad, bad
    assert proved == (not bad), (proved, bad)  # sound, and complete here
