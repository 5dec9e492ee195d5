"""The ``operand`` claim (issue 25): a tiled MMA's shared-memory operand against the wgmma / UMMA descriptor of
its declared major, per k-block of ``partition_A/B``.

Independent evaluators: the PTX canonical-layout address formula written out here (not cuteverify's), evaluated
with the descriptor fields CuTe C++ printed for the same partition (``make_fragment_B(partition_B(sdOt))``,
g++ on CUTLASS's headers, recorded below; tests/atoms/test_operand_desc_cpp.py recompiles it), against the smem
layout's own values. The FlashAttention-4 SM90 backward case (``flash_attn/cute/flash_bwd_sm90.py``: dV = P^T dO,
B = dO^T, an MN-major view of the K-major sdO) is proved with ``Major::MN`` and refuted with ``Major::K``.
"""
import pytest

from click.testing import CliRunner

import cuteverify.frontend.manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.algebra.composition import composition
from cuteverify.algebra.tile import tile_to_shape
from cuteverify.atoms import make_mma_atom, make_tiled_mma
from cuteverify.atoms.operand_desc import declared_major, operand_descriptors, prove_operand
from cuteverify.core.notation.parse import parse
from cuteverify.errors import NotAdmissibleError
from cuteverify.hardware import default_library

K_SW128 = parse("S<3,3,3> o 0 o (8,64):(64,1)")    # GMMA::Layout_K_SW128_Atom<bf16>
MN_SW128 = parse("S<3,3,3> o 0 o (64,8):(1,64)")   # GMMA::Layout_MN_SW128_Atom<bf16>
SDO = tile_to_shape(K_SW128, (64, 128, 2))          # FA4 sdO: (tile_m, hdim, dO_stage), row-major
SDOT = composition(SDO, parse("(128,64,2):(64,1,8192)"))  # utils.transpose_view(sdO): (hdim, tile_m, stage)


def _mma(a, b, atom="SM90_64x128x16_F32BF16BF16_SS", layout=(2, 1, 1)):
    return make_tiled_mma(f"{atom}<GMMA::Major::{a},GMMA::Major::{b}>", layout)


# CuTe C++ (make_fragment_B(partition_B(sdOt)) for SM90_64x128x16_F32BF16BF16_SS<MN,MN> over (2,1,1)):
# per (k-block, stage): LBO 8192, SBO 1024, layout type 1 (B128), start offset in bytes
CPP_SDOT = {(k, s): 2048 * k + 16384 * s for k in range(4) for s in range(2)}


def _swizzle128(x):  # Swizzle<3,4,3> on byte addresses: bits 7..9 into 4..6
    return x ^ ((x >> 3) & 0x70)


def _ptx_mn_b128(i, j, lbo, sbo):
    """PTX's MN-major 128B canonical layout, 16-bit elements: (8 elements x 8 chunks x LBO groups) along MN,
    (8 rows of 128 B x SBO groups) along K, in bytes."""
    return 2 * (i % 8) + 16 * ((i // 8) % 8) + lbo * (i // 64) + 128 * (j % 8) + sbo * (j // 8)


def test_fa4_dv_b_operand_cpp_fields_read_the_layout():
    # the descriptors CuTe C++ builds read, through PTX's formula, exactly what sdOt holds: the right answer
    for (k, s), start in CPP_SDOT.items():
        for j in range(16):
            for i in range(128):
                got = _swizzle128(start + _ptx_mn_b128(i, j, 8192, 1024))
                assert got == 2 * SDOT(i, 16 * k + j, s)
    descs = operand_descriptors(_mma("MN", "MN"), "B", SDOT)
    got = {(rest[1], rest[2]): (d.lbo, d.sbo, d.layout_type_value, d.start) for _, rest, d, _ in descs}
    assert got == {key: (8192, 1024, 1, start) for key, start in CPP_SDOT.items()}


def test_fa4_dv_declared_mn_proved_declared_k_refuted():
    v = prove_operand(_mma("MN", "MN"), "B", SDOT, name="sdOt")
    assert v.proved, v
    v = prove_operand(_mma("MN", "K"), "B", SDOT, name="sdOt", mma_name="tiled_mma_dV")
    assert v.refuted
    assert "declared GMMA::Major::K but the tile is MN-major" in v.reason
    assert "k-block 0" in v.reason and "thread 0" in v.reason
    cex = v.counterexample
    n, kk, s = cex.coords
    # the element is named by its sdOt coordinate; the layout's byte there is the one claimed
    assert cex.values[1] == 2 * SDOT(n, kk, s) and cex.values[0] != cex.values[1]


def test_fa4_dv_a_operand_and_fa3_rs_b_operand():
    sPt = composition(tile_to_shape(K_SW128, (64, 128, 2)), parse("(128,64,2):(64,1,8192)"))
    assert prove_operand(_mma("MN", "MN"), "A", sPt).proved
    v = prove_operand(_mma("K", "MN"), "A", sPt)
    assert v.refuted and "declared GMMA::Major::K but the tile is MN-major" in v.reason
    # FA3 forward PV: SM90_..._RS<K,MN>, B = V^T, tile_to_shape(MN atom, (128,128,2), Step<2,1,3>)
    sVt = tile_to_shape(MN_SW128, (128, 128, 2), (1, 0, 2))
    rs = "SM90_64x128x16_F32BF16BF16_RS"
    assert prove_operand(_mma("K", "MN", rs), "B", sVt).proved
    assert "tile is MN-major" in prove_operand(_mma("K", "K", rs), "B", sVt).reason
    with pytest.raises(NotAdmissibleError, match="operand A of .* is read from registers"):
        prove_operand(_mma("K", "MN", rs), "A", sVt)


def test_k_major_gemm_every_block_and_wrong_declarations():
    sA = tile_to_shape(K_SW128, (128, 64, 3))
    v = prove_operand(_mma("K", "K"), "A", sA)
    assert v.proved and "24 blocks" in v.method  # 2 warpgroups x (1 m-block x 4 k-blocks x 3 stages)
    assert "declared GMMA::Major::MN but the tile is K-major" in prove_operand(_mma("MN", "K"), "A", sA).reason
    # right major, no canonical form: a padded row-major tile, and a swizzle no descriptor has
    v = prove_operand(_mma("K", "K"), "A", parse("(128,64):(72,1)"))
    assert v.refuted and "the tile is K-major but breaks core_rows" in v.reason, v
    v = prove_operand(_mma("K", "K"), "A", tile_to_shape(parse("S<3,4,3> o 0 o (8,64):(64,1)"), (128, 64)))
    assert v.refuted and "swizzle_mode" in v.reason


def test_a_misaligned_stage_is_refuted_in_its_own_blocks():
    # INTERLEAVE K-major core matrices (8 rows x 16 B) in either order are canonical (LBO / SBO are free) ...
    for order in (None, (1, 0)):
        assert prove_operand(_mma("K", "K"), "A", tile_to_shape(parse("(8,8):(8,1)"), (128, 64), order)).proved
    # ... but a stage 8 bytes past a 16-byte boundary gives its blocks start addresses the descriptor cannot hold
    staged = parse("((8,16),(8,8),2):((8,64),(1,1024),8196)")
    v = prove_operand(_mma("K", "K"), "A", staged)
    assert v.refuted and "stage 1" in v.reason and "field_alignment" in v.reason, v
    assert prove_operand(_mma("K", "K"), "A", parse("((8,16),(8,8),2):((8,64),(1,1024),8192)")).proved


def test_input_errors_name_both_shapes_and_what_is_missing():
    with pytest.raises(NotAdmissibleError, match=r"\(64,64\).*\(M,K\) = \(128,16\)"):
        prove_operand(_mma("K", "K"), "A", tile_to_shape(K_SW128, (64, 64)))
    with pytest.raises(NotAdmissibleError, match="declares no major for operand B"):
        prove_operand(make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS"), "B", SDOT)
    assert prove_operand(make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS"), "B", SDOT, major="MN").proved
    with pytest.raises(NotAdmissibleError, match="contradicts"):
        prove_operand(_mma("MN", "K"), "B", SDOT, major="MN")
    with pytest.raises(NotAdmissibleError, match="read from registers"):
        prove_operand(make_tiled_mma("SM80_16x8x16_F32BF16BF16F32_TN"), "A", parse("(16,16):(16,1)"))
    with pytest.raises(NotAdmissibleError, match="A or B"):
        prove_operand(_mma("K", "K"), "C", SDOT)


def test_declared_majors():
    assert (declared_major(_mma("K", "MN"), "A"), declared_major(_mma("K", "MN"), "B")) == ("K", "MN")
    assert declared_major(make_tiled_mma("SM90_64x64x8_F32TF32TF32_SS_TN"), "B") == "K"
    assert declared_major(make_tiled_mma("SM90_64x64x16_F32BF16BF16_SS"), "A") is None


def test_umma_params_and_two_cta_split():
    lib = default_library()
    mma = make_tiled_mma(make_mma_atom(lib["SM100_MMA_F16BF16_SS"], M=128, N=256, a_major=0, b_major=1))
    assert prove_operand(mma, "A", tile_to_shape(K_SW128, (128, 64, 2))).proved
    assert prove_operand(mma, "B", tile_to_shape(MN_SW128, (256, 64))).proved
    v = prove_operand(mma, "B", tile_to_shape(K_SW128, (256, 64)))
    assert "declared UMMA::Major::MN but the tile is K-major" in v.reason
    two = make_tiled_mma(make_mma_atom(lib["SM100_MMA_F16BF16_2x1SM_SS"], M=256, N=256, a_major=0, b_major=0))
    d = operand_descriptors(two, "A", tile_to_shape(K_SW128, (256, 64)))
    # each CTA of the pair reads its 128 rows: CTA 1's blocks start 128 rows (16 KiB) in
    assert sorted({(t, dd.start) for t, rest, dd, _ in d if rest[1] == 0}) == [(0, 0), (1, 16384)]


LAYOUTS = """\
      sAtomK: "S<3,3,3> o 0 o (8,64):(64,1)"
      sdO: tile_to_shape(sAtomK, (64,128,2))
      sdOt: "composition(sdO, (128,64,2):(64,1,8192))"
      mma_dV: make_tiled_mma(SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::MN,GMMA::Major::MN>, (2,1,1))
      bad_dV: make_tiled_mma(SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::MN,GMMA::Major::K>, (2,1,1))
"""


def _doc(layouts, claims):
    return "version: 1\nkernels:\n  k:\n    layouts:\n" + layouts + "    claims:\n" + \
        "".join("      " + ln + "\n" for ln in claims.strip("\n").split("\n"))


def test_manifest_operand_claim():
    claims = mf.load_text(_doc(LAYOUTS, """\
- operand: {tiled_mma: mma_dV, operand: B, smem: sdOt}
- operand: {tiled_mma: bad_dV, operand: B, smem: sdOt}
  expect: refuted
"""), "t.cute.yaml")
    res = mf.run(claims)
    assert [r["status"] for r in res] == ["proved", "refuted"]
    assert "declared GMMA::Major::K but the tile is MN-major" in res[1]["reason"]
    assert "sdOt coordinate" in res[1]["counterexample"]["text"]
    assert claims[0].text == "operand B of mma_dV reads sdOt through its descriptors"


def test_manifest_partition_entry_implies_the_claim():
    layouts = LAYOUTS + "      tB: bad_dV.get_slice(0).partition_B(sdOt).layout\n" \
                        "      tA: mma_dV.get_slice(0).partition_A(sdOt).layout\n"
    claims = mf.load_text(_doc(layouts, "- bijective: sAtomK\n"), "t.cute.yaml")
    implicit = [c for c in claims if c.kind == "operand"]
    assert [(str(c.args["tiled_mma"]), c.args["operand"]) for c in implicit] == [("bad_dV", "B"), ("mma_dV", "A")]
    assert implicit[0].line == 10 and implicit[0].name.startswith("implicit (tB)")
    res = mf.run(claims)
    assert [r["status"] for r in res] == ["proved", "refuted", "proved"]
    # a written claim on the same three replaces the implicit one (its expect holds)
    claims = mf.load_text(_doc(layouts, "- operand: {tiled_mma: bad_dV, operand: B, smem: sdOt}\n"
                                        "  expect: refuted\n"), "t.cute.yaml")
    assert [c.name for c in claims if c.kind == "operand"][1:] == ["implicit (tA): sdOt is read through mma_dV's "
                                                                    "operand A descriptors"]


@pytest.mark.parametrize("claim, match", [
    ("- operand: {tiled_mma: mma_dV, operand: C, smem: sdOt}", "operand"),
    ("- operand: {tiled_mma: mma_dV, operand: B}", "smem"),
    ("- operand: {tiled_mma: sdO, operand: B, smem: sdOt}", "not a tiled MMA"),
])
def test_manifest_operand_errors_have_the_line(claim, match):
    with pytest.raises(mf.ManifestError, match=match) as e:
        mf.load_text(_doc(LAYOUTS, claim), "t.cute.yaml")
    assert e.value.line == 11


@pytest.mark.parametrize("claim, match", [
    ("- operand: {tiled_mma: mma_dV, operand: B, smem: sdO}", r"\(64,128,2\).*\(128,16\)"),
    ("- operand: {tiled_mma: mma_dV, operand: B, smem: sdOt, dtype: bogus}", "bogus"),
])
def test_manifest_operand_inadmissible_is_that_claim_s_error(claim, match):
    """A tile that does not fit or an unknown dtype is the claim's own error, with its line; the file's other
    claims still run (issue 25: a claim that fails belongs to that claim)."""
    import re
    res = mf.run(mf.load_text(_doc(LAYOUTS, "- bijective: sAtomK\n" + claim), "t.cute.yaml"))
    assert [r["status"] for r in res] == ["proved", "error"], res
    assert res[1]["line"] == 12 and re.search(match, res[1]["reason"]), res[1]


def test_cli_desc_with_tiled_mma():
    base = ["desc", "--smem", "S<3,3,3> o 0 o (64,8):(1,64)", "--tile", "(128,64)", "--dtype", "bf16", "--operand",
            "B", "--atom-layout", "(2,1,1)", "--tiled-mma"]
    r = CliRunner().invoke(main, base + ["SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::MN,GMMA::Major::MN>"])
    assert r.exit_code == 0 and "PROVED" in r.output, r.output
    r = CliRunner().invoke(main, base + ["SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::MN,GMMA::Major::K>"])
    assert r.exit_code == 1 and "declared GMMA::Major::K but the tile is MN-major" in r.output, r.output
    r = CliRunner().invoke(main, base + ["SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::MN,GMMA::Major::MN>",
                                         "--k-block", "1"])
    assert r.exit_code == 2 and "--k-block" in r.output
    r = CliRunner().invoke(main, base[:-3] + ["--tiled-mma", "SM90_64x128x16_F32BF16BF16_SS"])
    assert r.exit_code == 2 and "declares no major" in r.output


