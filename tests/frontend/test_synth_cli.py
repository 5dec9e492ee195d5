"""``cuteverify synthesize`` and ``cuteverify why`` (issue 20): thin front ends over cuteverify.synth; exit codes,
code output and errors naming the bad part."""
from __future__ import annotations

import json

from click.testing import CliRunner
from cuteverify.frontend.cli.main import main as cli

from cuteverify.core.notation.parse import parse
from cuteverify.synth import synthesize_smem_layout

CP = "cp_async:128:thr=(16,8):(8,1)"
LD = "ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:2x2x1"


def _run(*args):
    return CliRunner().invoke(cli, list(args))


def test_synthesize_prints_the_proved_layout_and_exits_0():
    r = _run("synthesize", "--tile", "128x64", "--dtype", "bf16", "--write", CP, "--read", LD)
    assert r.exit_code == 0, r.output
    api = synthesize_smem_layout(tile=(128, 64), dtype="bf16", writes=[CP], reads=[LD])
    assert str(api.layout) in r.output and "optimal within the space: proved" in r.output
    assert "C++: " in r.output and "CuTe DSL: " in r.output


def test_synthesize_json_and_code():
    r = _run("synthesize", "-t", "64x64", "-d", "f16", "-w", CP, "-r", LD, "--json")
    d = json.loads(r.output)
    assert r.exit_code == 0 and d["exit_code"] == 0 and d["optimal"] == "proved"
    # the layout printed in JSON is the function the API returns
    L = parse(d["layout"])
    api = synthesize_smem_layout(tile=(64, 64), dtype="f16", writes=[CP], reads=[LD]).layout
    assert all(L(i) == api(i) for i in range(64 * 64))
    r = _run("synthesize", "-t", "64x64", "-d", "f16", "-w", CP, "-r", LD, "--code", "cpp")
    assert r.exit_code == 0 and r.output.strip().startswith(("composition(", "tile_to_shape("))


def test_synthesize_bad_input_is_exit_2_naming_the_part():
    r = _run("synthesize", "-t", "128by64", "-w", CP)
    assert r.exit_code == 2 and "--tile" in r.output
    r = _run("synthesize", "-t", "128x64", "-w", "cp_async:100:thr=(16,8):(8,1)")
    assert r.exit_code == 2 and "cp_async" in r.output
    r = _run("synthesize", "-t", "128x64")
    assert r.exit_code == 2


def test_why_explains_a_conflicting_layout_and_exits_1():
    # the unswizzled row-major 64x64 bf16 tile: ldmatrix's 8 row addresses of one phase share a bank group
    r = _run("why", "(64,64):(64,1)", "-t", "64x64", "-d", "bf16", "-r", LD)
    assert r.exit_code == 1, r.output
    assert "conflict" in r.output and "nearest fix" in r.output
    r = _run("why", "S<3,3,3> o 0 o (64,64):(64,1)", "-t", "64x64", "-d", "bf16", "-r", LD)
    assert r.exit_code == 0, r.output


def test_access_text_keeps_cutlass_names_with_colons():
    from cuteverify.atoms import make_tiled_copy_C, make_tiled_mma
    from cuteverify.synth import make_problem
    name = "SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::K>"
    tc = make_tiled_copy_C("SM90_U32x4_STSM_N", make_tiled_mma(name, (2, 1, 1)), "bf16")
    a, b = make_problem((128, 128), "bf16", writes=[f"stmatrix:{name}:2x1x1", tc]).threads
    # the text form names the same (thread, value) -> tile index function as the object
    assert a.tv.shape == b.tv.shape
    assert all(a.tv(i) == b.tv(i) for i in range(0, 128 * 128, 7))
