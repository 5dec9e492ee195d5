"""TMA descriptor rules: each boundary both ways (the value just inside and just outside), concrete and
symbolic (proved for all values under assumptions; refuted with the smallest violating assignment), the
CUTLASS make_tma_copy checks, the CLI verb, and the TMA box limit in cv.agrees."""
import json

import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify.frontend.cli.tma_cmd import tma_cmd
from cuteverify.errors import TmaError
from cuteverify.hardware.tma.tiled import TmaDescriptor as T
from cuteverify.hardware.tma.copy import from_copy, merge_box_modes, smem_alignment, tma_swizzle_mode

BASE = dict(dtype="f16", shape=(4096, 4096), stride=(1, 4096), box=(64, 128), swizzle="128B")


def verdict(**kw):
    args = dict(BASE, **kw)
    return T(args.pop("dtype"), args.pop("shape"), args.pop("stride"), args.pop("box"), **args).check()


def rule(v, name):
    return v.rule(name).status


# --------------------------------------------------------------------------- concrete boundaries, both ways

@pytest.mark.parametrize("name, inside, outside", [
    ("global_dims", dict(shape=(2 ** 32, 4)), dict(shape=(2 ** 32 + 1, 4))),
    ("global_dims", dict(shape=(64, 1)), dict(shape=(64, 0))),
    ("stride_alignment", dict(stride=(1, 8)), dict(stride=(1, 4))),           # 16 bytes / 8 bytes
    ("stride_bound", dict(stride=(1, 2 ** 39 - 8)), dict(stride=(1, 2 ** 39))),
    ("innermost_contiguous", dict(stride=(1, 4096)), dict(stride=(2, 4096))),
    ("box_dims", dict(box=(64, 256)), dict(box=(64, 257))),
    ("box_dims", dict(box=(64, 1)), dict(box=(64, 0))),
    ("inner_box_bytes", dict(box=(8, 64), swizzle="NONE"), dict(box=(4, 64), swizzle="NONE")),
    ("inner_box_bytes", dict(box=(24, 64), swizzle="NONE"), dict(box=(12, 64), swizzle="NONE")),
    ("swizzle_span", dict(box=(64, 64)), dict(box=(72, 64))),                  # 128 / 144 bytes under 128B
    ("swizzle_span", dict(box=(16, 64), swizzle="32B"), dict(box=(24, 64), swizzle="32B")),
    ("swizzle_span", dict(box=(32, 64), swizzle="64B"), dict(box=(40, 64), swizzle="64B")),
    ("element_strides", dict(element_strides=(8, 1)), dict(element_strides=(9, 1))),
    ("element_strides", dict(element_strides=(1, 1)), dict(element_strides=(1, 0))),
    ("box_bytes", dict(shape=(4096, 4096, 8), stride=(1, 4096, 2 ** 24), box=(128, 228, 4), swizzle="NONE"),
     dict(shape=(4096, 4096, 8), stride=(1, 4096, 2 ** 24), box=(128, 232, 4), swizzle="NONE")),
    ("address_alignment", dict(address=48), dict(address=40)),
    ("oob_fill_float", dict(oob_fill="NAN_REQUEST_ZERO_FMA"), dict(dtype="s32", box=(32, 64), oob_fill="NAN")),
    ("arch", dict(swizzle="128B"), dict(swizzle="128B_ATOM_32B")),
    ("enums", dict(l2_promotion=3), dict(l2_promotion=4)),
])
def test_rule_boundary_both_ways(name, inside, outside):
    assert rule(verdict(**inside), name) == "proved"
    v = verdict(**outside)
    assert rule(v, name) == "refuted" and v.refuted
    assert v.rule(name).counterexample.detail["rule"] == name


def test_interleave_rules():
    il = dict(shape=(16, 64, 64), stride=(1, 16, 1024), box=(16, 8, 8), interleave="32B", swizzle="32B")
    assert verdict(**il, address=64).proved
    assert rule(verdict(**il, address=48), "address_alignment") == "refuted"          # 32-byte aligned
    assert rule(verdict(**dict(il, stride=(1, 24, 1536))), "stride_alignment") == "refuted"  # 48 bytes
    assert rule(verdict(**dict(il, stride=(1, 32, 2048))), "stride_alignment") == "proved"   # 64 bytes
    assert rule(verdict(shape=(16, 64), stride=(1, 16), box=(16, 8), interleave="16B"), "interleave_rank") \
        == "refuted"
    # documented, not enforced by the sm_90 driver: a warning, not a refutation
    v = verdict(**dict(il, swizzle="NONE"))
    assert v.proved and rule(v, "interleave_swizzle") == "refuted" and v.warnings


def test_rank_bounds():
    assert T.from_driver(6, 5, [8] * 5, [16] * 4, [8] * 5, [1] * 5).check().proved
    assert T.from_driver(6, 6, [8] * 5, [16] * 4, [8] * 5, [1] * 5).check().rule("rank").refuted
    assert T.from_driver(6, 0, [], [], [], []).check().rule("rank").refuted


# ------------------------------------------------------------------------------------------- symbolic

def test_symbolic_stride_proved_under_assumption():
    v = T("bf16", "(K,M)", "(1,K)", "(64,128)", swizzle="128B",
          assume=["K % 8 == 0", "K <= 2**20", "M <= 2**20"]).check()
    assert v.proved, v


def test_symbolic_stride_refuted_with_the_smallest_violating_value():
    v = T("f16", "(K,M)", "(1,K)", "(64,128)", swizzle="128B",
          assume=["K % 4 == 0", "K <= 2**20", "M <= 2**20"]).check()
    assert v.refuted
    r = v.rule("stride_alignment")
    assert r.refuted and str(r.counterexample) == "K = 4: global stride 1 is 8 bytes, not a multiple of 16"
    assert r.counterexample.assignment == {"K": 4}
    # just inside: K % 8 == 0 gives 16-byte strides
    assert T("f16", "(K,M)", "(1,K)", "(64,128)", swizzle="128B",
             assume=["K % 8 == 0", "K <= 2**20", "M <= 2**20"]).check().rule("stride_alignment").proved


def test_missing_bound_refuted_with_the_smallest_violating_value():
    v = T("f16", "(K,M)", "(1,K)", "(64,128)", swizzle="128B", assume=["K % 8 == 0", "K <= 2**20"]).check()
    r = v.rule("global_dims")
    assert r.refuted and r.counterexample.assignment == {"M": 2 ** 32 + 1}
    # the bound just inside proves it
    v = T("f16", "(K,M)", "(1,K)", "(64,128)", swizzle="128B",
          assume=["K % 8 == 0", "K <= 2**20", "M <= 2**32"]).check()
    assert v.rule("global_dims").proved


def test_symbolic_stride_bound_both_ways():
    # the third mode's stride is 2*K*M bytes: < 2**40 needs K*M < 2**39
    def mk(m_bound):
        return T("f16", "(K,M,L)", "(1,K,K*M)", "(64,64,1)", swizzle="128B",
                 assume=["K % 8 == 0", "K <= 2**20", f"M <= {m_bound}", "L <= 64"]).check()
    assert mk(2 ** 19 - 1).rule("stride_bound").proved
    r = mk(2 ** 19).rule("stride_bound")
    assert r.refuted and r.counterexample.assignment == {"K": 2 ** 20, "M": 2 ** 19}


def test_symbolic_box_and_finite_sets():
    v = T("f16", (4096, 4096), (1, 4096), "(64,N)", swizzle="128B", assume=["N in {64,128,256}"]).check()
    assert v.proved
    v = T("f16", (4096, 4096), (1, 4096), "(64,N)", swizzle="128B", assume=["N in {64,128,256,512}"]).check()
    assert v.rule("box_dims").counterexample.assignment == {"N": 512}


def test_symbolic_address():
    v = T("f16", (64, 64), (1, 64), (64, 64), swizzle="128B", address="16*p").check()
    assert v.rule("address_alignment").proved
    v = T("f16", (64, 64), (1, 64), (64, 64), swizzle="128B", address="8*p").check()
    assert v.rule("address_alignment").counterexample.assignment == {"p": 1}


def test_enum_names_and_values():
    for name in ("128B", "SWIZZLE_128B", "CU_TENSOR_MAP_SWIZZLE_128B", "swizzle_128b", 3):
        assert T("f16", (64, 64), box=(64, 64), swizzle=name).swizzle == 3
    assert T("FLOAT16", (64,)).dtype == T("CU_TENSOR_MAP_DATA_TYPE_FLOAT16", (64,)).dtype == 6
    assert T("bf16", (64,)).dtype == 9 and T("e4m3", (64,)).dtype == 0 and T("tf32", (64,)).dtype == 11
    assert T("f16", (64,), l2_promotion="256B").l2_promotion == 3
    with pytest.raises(TmaError):
        T("f16", (64,), swizzle="256B")
    with pytest.raises(TmaError):
        T("f16", (64, 64), box=(64,))


def test_verdict_json_has_every_rule():
    d = verdict(box=(64, 257)).to_json()
    assert d["status"] == "refuted"
    names = [r["name"] for r in d["rules"]]
    assert "box_dims" in names and "swizzle_span" in names
    assert d["counterexample"]["text"] == "box dim 1 is 257 > 256"
    json.dumps(d)


# ----------------------------------------------------------------------------- CUTLASS make_tma_copy

@pytest.mark.parametrize("sw, bits, mode", [
    ((0, 4, 3), 8, 0), ((1, 4, 3), 8, 1), ((2, 4, 3), 8, 2), ((3, 4, 3), 8, 3),
    ((3, 3, 3), 16, 3), ((2, 3, 3), 16, 2), ((3, 2, 3), 32, 3), ((1, 2, 3), 32, 1),
    ((2, 5, 2), 8, 4), ((2, 4, 2), 16, 4), ((2, 6, 3), 8, 6), ((2, 5, 3), 16, 6),
    ((3, 4, 3), 16, None), ((3, 4, 2), 8, None), ((3, 5, 3), 8, None),
])
def test_swizzle_modes(sw, bits, mode):
    assert tma_swizzle_mode(sw, bits)[0] == mode


def test_smem_alignment_of_swizzles():
    assert [smem_alignment((b, 4, 3)) for b in (0, 1, 2, 3)] == [128, 256, 512, 1024]


def test_from_copy_k_major_bf16():
    d, v = from_copy("(M,K):(K,1)", "S<3,3,3> o 0 o (128,64):(64,1)", "bf16",
                     assume=["K % 8 == 0", "K <= 2**20", "M <= 2**20"])
    assert v.proved, v
    assert d.shape == cv.parse("(K,M)").shape and d.box == (64, 128) and d.swizzle == 3


def test_from_copy_mn_major_fp8_and_failures():
    d, v = from_copy("(M,K):(1,M)", "S<3,4,3> o 0 o (128,64):(1,128)", "e4m3",
                     assume=["M % 16 == 0", "M <= 2**20", "K <= 2**20"])
    assert v.proved and d.box == (128, 64)
    _, v = from_copy("(M,K):(K,1)", "S<3,3,3> o 0 o (128,64):(1,128)", "bf16",
                     assume=["K % 8 == 0", "K <= 2**20", "M <= 2**20"])
    assert v.rule("majorness").refuted
    _, v = from_copy("(M,K):(K,1)", "S<3,3,3> o 0 o (128,64):(64,1)", "bf16", multicast=3, smem_address_align=512,
                     assume=["K % 8 == 0", "K <= 2**20", "M <= 2**20"])
    assert v.rule("multicast").refuted and v.rule("smem_alignment").refuted
    _, v = from_copy("(M,K):(K,1)", "S<3,3,3> o 0 o (128,64):(64,1)", "bf16", multicast=2, smem_address_align=1024,
                     assume=["K % 8 == 0", "K <= 2**20", "M <= 2**20"])
    assert v.rule("multicast").proved and v.rule("smem_alignment").proved
    _, v = from_copy("(M,K):(K,1)", "S<3,4,3> o 0 o (128,64):(64,1)", "bf16",
                     assume=["K % 8 == 0", "K <= 2**20", "M <= 2**20"])
    assert v.rule("swizzle_mode").refuted


def test_merge_box_modes():
    # (8,32) contiguous and fully covered -> one mode of 256
    assert merge_box_modes((8, 32, 64), (1, 8, 256), (8, 32, 4)) == ((256, 64), (1, 256), (256, 4))
    # merging would exceed 256: kept apart
    assert merge_box_modes((8, 64, 64), (1, 8, 512), (8, 64, 8)) == ((8, 64, 64), (1, 8, 512), (8, 64, 8))
    # the box does not cover mode 0: kept apart
    assert merge_box_modes((16, 32), (1, 16), (8, 32)) == ((16, 32), (1, 16), (8, 32))


# -------------------------------------------------------------------------------------------- CLI, agree

def test_cli_exit_codes():
    base = ["--dtype", "bf16", "--shape", "(K,M)", "--stride", "(1,K)", "--box", "(64,128)", "--swizzle", "128B"]
    ok = CliRunner().invoke(tma_cmd, base + ["-a", "K % 8 == 0", "-a", "K <= 2**20", "-a", "M <= 2**20"])
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(tma_cmd, base + ["-a", "K % 4 == 0", "-a", "K <= 2**20", "-a", "M <= 2**20", "--json"])
    assert bad.exit_code == 1 and json.loads(bad.output)["status"] == "refuted"
    assert CliRunner().invoke(tma_cmd, base + ["--swizzle", "7B"]).exit_code == 2
    derived = CliRunner().invoke(tma_cmd, ["--gmem", "(M,K):(K,1)", "--smem", "S<3,3,3> o 0 o (128,64):(64,1)",
                                           "--dtype", "bf16", "-a", "K % 8 == 0", "-a", "K <= 2**20",
                                           "-a", "M <= 2**20"])
    assert derived.exit_code == 0, derived.output


def test_agrees_refuses_a_box_over_256_rows():
    # a shape no box can have: an input error (cv.agrees as the CLI and manifests run it)
    with pytest.raises(cv.CuteVerifyError, match="at most 256") as e:
        cv.agrees("(512,64):(64,1)", "CU_TENSOR_MAP_SWIZZLE_128B", dtype="f16")
    assert e.value.kind == "input"
    assert cv.agrees("S<3,3,3> o 0 o (256,64):(64,1)", "CU_TENSOR_MAP_SWIZZLE_128B", dtype="f16").proved


@pytest.mark.parametrize("kw", [dict(multicast=0), dict(multicast=-1), dict(multicast=True), dict(multicast=2.0),
                                dict(smem_address_align=0), dict(smem_address_align=3), dict(smem_address_align=-8)])
def test_copy_options_that_mean_nothing_are_input_errors(kw):
    """A multicast over no CTAs, or an alignment that is not a power of two, is refused before any rule runs."""
    from cuteverify.errors import TmaError
    from cuteverify.hardware.tma.copy import from_copy
    with pytest.raises(TmaError) as e:
        from_copy("(M,K):(1,M)", "(64,64):(1,64)", "bf16", **kw)
    assert e.value.kind == "input" and ("multicast" in str(e.value) or "alignment" in str(e.value))


@pytest.mark.parametrize("address", [-16, "-16", "1/2", 2.5, True])
def test_address_must_be_a_non_negative_integer(address):
    from cuteverify.errors import TmaError
    with pytest.raises(TmaError, match="address"):
        T("bf16", (64, 64), address=address)
