"""``cuteverify triton`` (cuteverify/frontend/cli/triton_cmd.py) through click's CliRunner: exit codes 0 / 1 / 2, JSON, aliases."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from cuteverify.frontend.cli.triton_cmd import triton_group

from cuteverify.core.notation.parse import parse

TTGIR = """\
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dotA = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
module {
  tt.func @f(%x: tensor<64x64xf32, #mma>, %a: tensor<64x32xf16, #dotA>) { }
}
"""
SM80 = "SM80_16x8x16_F32F16F16F32_TN"


@pytest.fixture
def ttgir(tmp_path):
    p = tmp_path / "k.ttgir"
    p.write_text(TTGIR)
    return str(p)


def run(*args):
    return CliRunner().invoke(triton_group, list(args))


def test_show_prints_bases_and_the_cute_form(ttgir):
    r = run("show", "#mma", "--ttgir", ttgir, "--shape", "32x16", "--json")
    assert r.exit_code == 0, r.output
    info = json.loads(r.output)
    assert info["bases"]["register"] == [[0, 1], [8, 0]] and info["bases"]["warp"] == [[0, 8], [16, 0]]
    L = parse(info["cute"])  # the CuTe form evaluates as the bases: warp 1 -> (0, 8), index m + 32 n
    assert L((32, 0)) == 0 + 32 * 8 and L((0, 1)) == 32 * 1  # register 1 -> (0, 1): m + 32 n
    r = run("show", "#shared", "--ttgir", ttgir, "--shape", "8x64")
    assert r.exit_code == 0 and "smem (m, n) -> offset" in r.output


def test_equal_proves_refutes_and_exits(ttgir):
    ok = run("equal", "#mma", "--ttgir", ttgir, "--shape", "64x64", "--atom", SM80, "--operand", "C",
             "--atom-layout", "(2,2,1):(2,1,0)")
    assert ok.exit_code == 0 and "PROVED" in ok.output and "register order differs" in ok.output
    exact = run("equal", "#mma", "--ttgir", ttgir, "--shape", "64x64", "--atom", SM80, "--operand", "C",
                "--atom-layout", "(2,2,1):(2,1,0)", "--exact", "--json")
    assert exact.exit_code == 1
    d = json.loads(exact.output)
    assert d["status"] == "refuted" and d["counterexample"]["detail"]["register"] == 4
    colmajor = run("equal", "#mma", "--ttgir", ttgir, "--shape", "64x64", "--atom", SM80, "--operand", "C",
                   "--atom-layout", "(2,2,1)")
    assert colmajor.exit_code == 1 and "warp 1" in colmajor.output
    a = run("equal", "#dotA", "--ttgir", ttgir, "--shape", "64x32", "--atom", SM80, "--operand", "A",
            "--atom-layout", "(2,2,1):(2,1,0)")
    assert a.exit_code == 0, a.output


def test_equal_shared_against_a_cute_smem_layout(ttgir):
    good = "S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))"  # tile_to_shape(K_SW128 atom<16b>, (128, 64))
    assert run("equal", "#shared", "--ttgir", ttgir, "--shape", "128x64", "--cute", good).exit_code == 0
    bad = "S<3,3,4> o 0 o ((8,16),(64,1)):((64,512),(1,0))"
    r = run("equal", "#shared", "--ttgir", ttgir, "--shape", "128x64", "--cute", bad)
    assert r.exit_code == 1 and "offset" in r.output


def test_equal_against_another_attribute():
    blk = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>"
    mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>"
    assert run("equal", mma, "--shape", "16x16", "--attr", blk).exit_code == 0
    assert run("equal", mma, "--shape", "16x16", "--attr", blk, "--exact").exit_code == 1


@pytest.mark.parametrize("args,words", [
    (["equal", "#mma", "--shape", "64x64", "--attr", "#mma"], "a defined alias"),
    (["equal", "#ttg.blocked<{order = [1, 1]}>", "--shape", "64x64", "--attr", "#x"], "column 23"),
    (["equal", "#ttg.amd_mfma<{versionMajor = 2}>", "--shape", "64x64", "--cute", "(32,4):(1,32)"], "amd_mfma"),
    (["show", "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>", "--shape", "64x0"],
     "--shape"),
    (["show", "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"], "--shape is required"),
    (["equal", "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>", "--shape", "8x8"],
     "exactly one of"),
    (["equal", "#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [1, 1]}>", "--shape", "32x32", "--atom", SM80,
      "--operand", "C", "--permutation", "(16,8,16)"], "shapes differ"),
    (["equal", "#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [1, 1]}>", "--shape", "16x8", "--atom", SM80],
     "--operand"),
    (["show", "#mma", "--ttgir", "/nonexistent/k.ttgir", "--shape", "8x8"], "cannot read"),
])
def test_input_errors_exit_2(args, words):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert words in r.output


def test_types_lists_the_modules_tensors(ttgir):
    r = run("types", ttgir, "--json")
    assert r.exit_code == 0
    d = json.loads(r.output)
    assert d["aliases"] == ["mma", "dotA", "shared"]
    assert [(t["line"], t["shape"], t["dtype"]) for t in d["types"]] == [(5, "64x64", "f32"), (5, "64x32", "f16")]
