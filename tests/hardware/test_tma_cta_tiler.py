"""The ``tma`` claim's CTA tile (issue 25): ``make_tma_copy(op, gmem, slayout, cta_tiler)`` relates the smem
tile to the CTA tile, and an epilogue stage smaller than its epilogue tile is refuted, both shapes named.

Oracle: CuTe C++ (g++ -fsyntax-only on CUTLASS's headers, one translation unit; its answers are recorded in
``CASES``, and ``CUTEVERIFY_CPP_ORACLE=1`` recompiles it, about 5 s): make_tma_copy's static_assert rejects a smem
tile whose size is not the CTA tile's ("TMA requires CTA_Tile and SLayout top-level size equivalence"), and
accepts the matching tile. Where C++ accepts a CTA tile of the smem tile's size but another shape,
construct_tma_gbasis relates the two through the column-major index (CTA tile element (0,1) of a (32,64) tile goes
to smem coordinate (32,0) of a (64,32) tile): cuteverify refutes it.
"""
import os
import re

import pytest

from click.testing import CliRunner

import cuteverify.frontend.manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.algebra.tile import tile_to_shape
from cuteverify.core.notation.parse import parse
from cuteverify.errors import TmaError
from cuteverify.hardware.tma.copy import from_copy, read_cta_tiler

from cpp_oracle.gxx import run_cpp

K_SW64 = parse("S<2,3,3> o 0 o (8,32):(32,1)")     # GMMA::Layout_K_SW64_Atom<bf16>
MN_SW64 = parse("S<2,3,3> o 0 o (32,8):(1,32)")    # GMMA::Layout_MN_SW64_Atom<bf16>
ASSUME = ["M >= 128", "N >= 128", "M % 8 == 0", "N % 8 == 0", "M <= 65536", "N <= 65536"]
ROW, COL = "(M,N):(N,1)", "(M,N):(1,M)"

# (gmem, atom, smem tile, cta tile, does CuTe C++ compile make_tma_copy, cuteverify's verdict)
CASES = [
    (ROW, "K", (64, 32), (64, 32), True, "proved"),
    (ROW, "K", (64, 32), (128, 64), False, "refuted"),    # the epilogue stage is a quarter of the tile
    (ROW, "K", (64, 32), (32, 64), False, "refuted"),     # same size, the copy cannot vectorize
    (COL, "MN", (64, 32), (32, 64), True, "refuted"),     # same size: C++ copies, reshaped
    (COL, "MN", (64, 32), (64, 32), True, "proved"),
]


def _copy(gmem, atom, smem, tile):
    return from_copy(gmem, tile_to_shape(K_SW64 if atom == "K" else MN_SW64, smem), "bf16", assume=ASSUME,
                     cta_tiler=tile)


@pytest.mark.parametrize("case", CASES)
def test_verdicts(case):
    gmem, atom, smem, tile, _, want = case
    _, v = _copy(gmem, atom, smem, tile)
    assert v.status == want, v
    rule = v.rule("cta_tile")
    assert rule.status == want
    if want == "refuted":
        text = str(rule.counterexample)
        assert f"the smem tile {_t(smem)} and the CTA tile {_t(tile)}" in text


def _t(x):
    return "(" + ",".join(map(str, x)) + ")"


def test_epilogue_stage_smaller_than_its_tile_names_both_shapes_and_cutlass():
    _, v = _copy(ROW, "K", (64, 32), (128, 64))
    text = str(v.rule("cta_tile").counterexample)
    assert "2048 and 8192 elements" in text and "size equivalence" in text
    _, v = _copy(COL, "MN", (64, 32), (32, 64))
    assert "CTA tile element (0,1) is copied to smem coordinate (32,0)" in str(v.rule("cta_tile").counterexample)


def test_without_cta_tiler_nothing_changes_and_a_staged_smem_is_stage_0():
    sD = tile_to_shape(K_SW64, (64, 32))
    d0, v0 = from_copy(ROW, sD, "bf16", assume=ASSUME)
    with pytest.raises(KeyError):
        v0.rule("cta_tile")
    staged = tile_to_shape(K_SW64, (64, 32, 4))
    d1, v1 = from_copy(ROW, staged, "bf16", assume=ASSUME, cta_tiler="64x32")
    assert v0.proved and v1.proved and v1.rule("cta_tile").proved
    assert d1.fields()["box_dim"] == d0.fields()["box_dim"] and d1.fields()["swizzle"] == d0.fields()["swizzle"]
    _, v = from_copy(ROW, staged, "bf16", assume=ASSUME, cta_tiler=(128, 32))
    assert v.rule("cta_tile").refuted


def test_input_errors():
    sD = tile_to_shape(K_SW64, (64, 32))
    with pytest.raises(TmaError, match=r"cta_tiler \(64,32,1\) has 3 modes, the gmem layout .* 2"):
        from_copy(ROW, sD, "bf16", assume=ASSUME, cta_tiler=(64, 32, 1))
    with pytest.raises(TmaError, match=r"has 4 modes, the CTA tile \(64,32\) 2"):
        from_copy(ROW, parse("(64,32,2,2):(32,1,2048,4096)"), "bf16", assume=ASSUME, cta_tiler=(64, 32))
    for bad in ("(64,x)", "(0,32)", "64:1", [64, -1], None and 0):
        with pytest.raises(TmaError, match="positive extents"):
            read_cta_tiler(bad)
    assert read_cta_tiler("(128,64)") == read_cta_tiler("128x64") == read_cta_tiler([128, 64]) == (128, 64)


DOC = """\
version: 1
kernels:
  epilogue:
    symbols: [M, N]
    assume: ["M >= 128", "N >= 128", "N % 8 == 0", "M <= 65536", "N <= 65536"]
    layouts:
      sAtom: "S<2,3,3> o 0 o (8,32):(32,1)"
      sD: tile_to_shape(sAtom, (64,32,2))
    claims:
      - tma: {dtype: bf16, gmem: "(M,N):(N,1)", smem: sD, cta_tiler: "(64,32)"}
      - tma: {dtype: bf16, gmem: "(M,N):(N,1)", smem: sD, cta_tiler: [128, 64]}
        expect: refuted
"""


def test_manifest_cta_tiler():
    claims = mf.load_text(DOC, "t.cute.yaml")
    res = mf.run(claims)
    assert [r["status"] for r in res] == ["proved", "refuted"]
    assert "the CTA tile (128,64)" in ((res[1]["counterexample"] or {}).get("text") or res[1]["reason"])
    assert claims[1].text.endswith("(cta_tiler (128,64))")


@pytest.mark.parametrize("claim, match", [
    ('{dtype: bf16, gmem: "(M,N):(N,1)", smem: sD, cta_tiler: "(64,y)"}', "positive extents"),
    ('{dtype: bf16, shape: "(M,N)", stride: "(1,M)", box: "(64,32)", cta_tiler: "(64,32)"}',
     "belong to a copy"),
])
def test_manifest_cta_tiler_errors_have_the_line(claim, match):
    doc = DOC.split("    claims:\n")[0] + "    claims:\n      - tma: " + claim + "\n"
    with pytest.raises(mf.ManifestError, match=match) as e:
        mf.load_text(doc, "t.cute.yaml")
    assert e.value.line == 10


def _cpp_case(i, gmem, atom, smem, tile):
    stride = "make_stride(N, Int<1>{})" if gmem == ROW else "make_stride(Int<1>{}, M)"
    return f"""
void case_{i}(bfloat16_t* p, int M, int N) {{
  auto g = make_tensor(make_gmem_ptr(p), make_layout(make_shape(M, N), {stride}));
  auto s = tile_to_shape(GMMA::Layout_{atom}_SW64_Atom<bfloat16_t>{{}},
                         make_shape(Int<{smem[0]}>{{}}, Int<{smem[1]}>{{}}));
  auto t = make_tma_copy(SM90_TMA_LOAD{{}}, g, s, make_shape(Int<{tile[0]}>{{}}, Int<{tile[1]}>{{}}),
                         Int<1>{{}});
  (void)t;
}}
// end {i}"""


@pytest.mark.differential
@pytest.mark.skipif(os.environ.get("CUTEVERIFY_CPP_ORACLE") != "1", reason="set CUTEVERIFY_CPP_ORACLE=1 (~5 s of g++)")
def test_cpp_make_tma_copy_accepts_what_cuteverify_proves():
    body = ["#include <cute/tensor.hpp>", "#include <cute/atom/copy_traits_sm90_tma.hpp>", "using namespace cute;"]
    body += [_cpp_case(i, *c[:4]) for i, c in enumerate(CASES)]
    src = "\n".join(body)
    lines = src.split("\n")
    starts = {i: next(n for n, ln in enumerate(lines, 1) if ln.startswith(f"void case_{i}("))
              for i in range(len(CASES))}
    r = run_cpp(src, syntax_only=True, name="tma_cta")
    failing_lines = {int(n) for n in re.findall(r"tma_cta\.cpp:(\d+):\d+:\s+required from here", r.stderr)}
    rejected = {i for i, s in starts.items() if any(s < n < s + 8 for n in failing_lines)}
    assert r.returncode == (1 if rejected else 0), r.stderr[-2000:]
    assert rejected == {i for i, c in enumerate(CASES) if not c[4]}
    assert "TMA requires CTA_Tile and SLayout top-level size equivalence" in r.stderr
    for i, c in enumerate(CASES):  # C++ rejects only what cuteverify refutes
        if i in rejected:
            assert c[5] == "refuted"


def test_cli_cta_tiler():
    base = ["tma", "--gmem", ROW, "--smem", "S<2,3,3> o 0 o (8,32):(32,1)", "--tile", "(64,32)", "--dtype", "bf16",
            *[x for a in ASSUME for x in ("-a", a)], "--cta-tiler"]
    assert CliRunner().invoke(main, base + ["(64,32)"]).exit_code == 0
    r = CliRunner().invoke(main, base + ["128x64"])
    assert r.exit_code == 1 and "the CTA tile (128,64)" in r.output, r.output
    r = CliRunner().invoke(main, ["tma", "--dtype", "bf16", "--shape", "(64,64)", "--cta-tiler", "(64,32)"])
    assert r.exit_code == 2 and "--cta-tiler" in r.output
