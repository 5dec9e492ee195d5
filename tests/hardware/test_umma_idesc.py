"""The tcgen05.mma instruction descriptor (cuteverify/hardware/descriptors/umma_idesc.py): encodings equal CUTLASS's
``UMMA::make_instr_desc`` / ``make_instr_desc_block_scaled`` / ``make_runtime_instr_desc_block_scaled``
(compiled with host g++ against the shipped headers) for a generated set of field combinations, decode
inverts encode, and the field rules prove, refute with a value, or answer unknown."""
from __future__ import annotations

import itertools
import random

import pytest
from sm100_oracle import run_lines

from cuteverify.errors import SpecError
from cuteverify.hardware.descriptors import umma_idesc as u
from cuteverify.symbolic import symbol
from cuteverify.symbolic.assumptions import Assumptions

CPP_TYPE = {"f16": "half_t", "bf16": "bfloat16_t", "tf32": "tfloat32_t", "u8": "uint8_t", "s8": "int8_t",
            "f32": "float", "s32": "int32_t", "ue8m0": "float_ue8m0_t", "ue4m3": "float_ue4m3_t"}
# kind::f8f6f4 and mxf8f6f4 read the 6- and 4-bit types through CUTLASS's unpacked-smem types
F8 = {"e4m3": "float_e4m3_t", "e5m2": "float_e5m2_t", "e2m3": "detail::float_e2m3_unpacksmem_t",
      "e3m2": "detail::float_e3m2_unpacksmem_t", "e2m1": "detail::float_e2m1_unpacksmem_t"}


def _ctype(kind, t):
    if kind in ("f8f6f4", "mxf8f6f4"):
        return "cutlass::" + F8[t] if t in F8 else CPP_TYPE[t]
    if kind in ("mxf4", "mxf4nvf4") and t == "e2m1":
        return "float_e2m1_t"
    return CPP_TYPE[t]


def _cases(seed=0, n=160):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        kind = rng.choice(u.KINDS)
        fm = list(u.FORMATS[kind])
        a = rng.choice(fm)
        b = a if kind == "f16" else rng.choice(fm)
        f = {"a_type": a, "b_type": b, "M": rng.choice([64, 128, 256]), "N": 8 * rng.randint(1, 32),
             "a_major": rng.randint(0, 1), "b_major": rng.randint(0, 1), "a_negate": rng.randint(0, 1),
             "b_negate": rng.randint(0, 1), "sparse": rng.randint(0, 1)}
        if kind in u.DENSE_KINDS:
            f["d_type"] = {"i8": "s32", "tf32": "f32"}.get(kind, rng.choice(["f16", "f32"]))
            f["saturate"] = rng.randint(0, 1) if kind == "i8" else 0
            f["max_shift"] = rng.randint(0, 3)
        else:
            f["scale_type"] = rng.choice(["ue8m0", "ue4m3"])
            f["a_sf_id"], f["b_sf_id"] = rng.randint(0, 3), rng.randint(0, 3)
        out.append((kind, f))
    return out


def _cpp_expr(kind, f):
    maj = lambda m: "UMMA::Major::MN" if m else "UMMA::Major::K"
    neg = lambda x: "UMMA::ScaleIn::Neg" if x else "UMMA::ScaleIn::One"
    a, b = _ctype(kind, f["a_type"]), _ctype(kind, f["b_type"])
    common = f"{f['M']}, {f['N']}, {maj(f['a_major'])}, {maj(f['b_major'])}, {neg(f['a_negate'])}, {neg(f['b_negate'])}"
    if kind in u.DENSE_KINDS:
        sat = "UMMA::Saturate::True" if f["saturate"] else "UMMA::Saturate::False"
        return (f"uint32_t(UMMA::make_instr_desc<{a}, {b}, {CPP_TYPE[f['d_type']]}, {common}, {sat}, "
                f"{'true' if f['sparse'] else 'false'}, UMMA::MaxShift({f['max_shift']})>())")
    sfa, sfb = f["a_sf_id"] << 30, f["b_sf_id"] << 30
    return (f"uint32_t(UMMA::make_runtime_instr_desc_block_scaled<{a}, {b}, float, {CPP_TYPE[f['scale_type']]}, "
            f"{common}, {'true' if f['sparse'] else 'false'}>({sfa}u, {sfb}u) >> 32)")


def _run_cpp(exprs, tmp_path):
    return [int(x) for x in run_lines(tmp_path, [f'  printf("%u\\n", {e});' for e in exprs], "idesc")]


@pytest.mark.differential
def test_encodings_equal_cutlass_make_instr_desc(tmp_path):
    cases = _cases()
    got = _run_cpp([_cpp_expr(k, f) for k, f in cases], tmp_path)
    assert len(got) == len(cases)
    kinds = set()
    for (kind, f), want in zip(cases, got):
        assert u.encode(kind, **f) == want, (kind, f, hex(want))
        kinds.add(kind)
    assert kinds == set(u.KINDS)


def test_decode_inverts_encode():
    for kind, f in _cases(seed=1, n=300):
        d = u.decode(kind, u.encode(kind, **f))
        assert d.pop("reserved") == 0
        assert {k: d[k] for k in f} == f


def test_decode_reports_reserved_bits_and_unknown_codes():
    w = u.encode("f16", M=128, N=64) | (1 << 6) | (1 << 23)
    assert u.decode("f16", w)["reserved"] == (1 << 6) | (1 << 23)
    assert u.decode("f16", 7 << 7)["a_type"] == "code 7"


def test_encode_refuses_unencodable_fields():
    with pytest.raises(SpecError):
        u.encode("f16", M=120, N=64)
    with pytest.raises(SpecError):
        u.encode("f16", M=128, N=64, a_type="e4m3")
    with pytest.raises(SpecError):
        u.encode("i8", M=128, N=64, sparse_id2=4)
    with pytest.raises(SpecError):
        u.encode("tf32", M=symbol("M"), N=64)


def test_rules_accept_every_cutlass_shape_and_refuse_the_rest():
    # brute force over the concrete space against CUTLASS's static_asserts, written out per struct family
    def cutlass_ok(kind, cg, M, N, ts):
        if kind == "i8":
            if cg == 1:
                return M in (64, 128) and (N == 8 or (N % 16 == 0 and 16 <= N <= 256))
            return M in (128, 256) and N % 32 == 0 and 32 <= N <= 256
        if cg == 1:
            if ts:
                return (M == 64 and N % 8 == 0 and 8 <= N <= 256) or (M == 128 and N % 16 == 0 and 16 <= N <= 256)
            return M in (64, 128) and N % 8 == 0 and 8 <= N <= 256
        if ts:
            return M in (128, 256) and N % 32 == 0 and 32 <= N <= 256
        return M in (128, 256) and N % 16 == 0 and 16 <= N <= 256
    for kind, cg, ts in itertools.product(("f16", "tf32", "i8"), (1, 2), (False, True)):
        if kind == "i8" and ts and cg == 1:
            ts = False
        for M in (32, 48, 64, 96, 128, 192, 256, 512):
            for N in range(0, 272, 8):
                v = u.check_idesc(kind, M=M, N=N, cta_group=cg, a_tmem=ts)
                shape_ok = v.rule("shape_m").proved and v.rule("shape_n").proved
                assert shape_ok == cutlass_ok(kind, cg, M, N, ts), (kind, cg, ts, M, N)


def test_symbolic_n_proved_refuted_unknown():
    N, M = symbol("N"), symbol("M")
    ok = u.check_idesc("f16", M=128, N=N, cta_group=2, assumptions=Assumptions(["N % 16 == 0", "N >= 16", "N <= 256"]))
    assert ok.proved
    bad = u.check_idesc("f16", M=128, N=N, cta_group=2, assumptions=Assumptions(["N % 8 == 0", "N >= 16", "N <= 256"]))
    assert bad.refuted and bad.counterexample.assignment == {"N": 24}
    # i8 with cta_group::1 admits N == 8 or a multiple of 16: the disjunction never refutes N = 8
    i8 = u.check_idesc("i8", M=128, N=N, a_type="s8", b_type="s8", assumptions=Assumptions(["N in {8,16,48,256}"]))
    assert i8.proved
    i8b = u.check_idesc("i8", M=128, N=N, a_type="s8", b_type="s8", assumptions=Assumptions(["N in {8,16,40}"]))
    assert i8b.refuted and i8b.counterexample.assignment == {"N": 40}
    unb = u.check_idesc("i8", M=128, N=N, a_type="s8", b_type="s8", assumptions=Assumptions(["N % 8 == 0", "N >= 8"]))
    assert unb.refuted and unb.rule("shape_n").counterexample.assignment["N"] != 8
    ts = u.check_idesc("tf32", M=M, N=N, a_tmem=True,
                       assumptions=Assumptions(["M in {64,128}", "N % 8 == 0", "N >= 8", "N <= 256"]))
    assert ts.refuted and ts.counterexample.assignment == {"M": 128, "N": 8}


def test_field_rules_refute_with_the_field():
    cases = [
        ("i8", dict(M=128, N=64, a_negate=1), "negate"),
        ("f16", dict(M=128, N=64, saturate=1), "saturate"),
        ("f8f6f4", dict(M=128, N=64, a_type="e2m1", a_major="MN"), "major"),
        ("mxf4", dict(M=128, N=64, b_major="MN"), "major"),
        ("f16", dict(M=128, N=64, sparse_id2=2), "sparsity"),
        ("f16", dict(M=128, N=64, max_shift=1), "max_shift"),
        ("mxf8f6f4", dict(M=128, N=64, scale_type="ue4m3"), "scale_format"),
        ("mxf8f6f4", dict(M=128, N=64, k_size=1), "k_size"),
        ("f16", dict(M=128, N=64, a_type="f16", b_type="bf16"), "ab_format"),
        ("tf32", dict(M=128, N=64, d_type="f16"), "d_format"),
        ("f8f6f4", dict(M=128, N=64, d_type="f16"), "d_format"),
        ("mxf4", dict(M=64, N=64), "shape_m"),
    ]
    for kind, f, rule in cases:
        v = u.check_idesc(kind, **f)
        assert v.refuted and v.rule(rule).refuted, (kind, f, rule, str(v))
        others = [r for r in v.rules if r.refuted and r.claim.split(":")[0] != rule]
        assert not others, (kind, f, [str(r.claim) for r in others])
    assert u.check_idesc("f16", M=128, N=64, max_shift=1, ws=True).proved
    assert u.check_idesc("mxf4nvf4", M=128, N=64, scale_type="ue4m3", k_size=1).proved
