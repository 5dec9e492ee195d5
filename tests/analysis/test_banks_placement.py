"""Bank and vector claims compute the addresses the kernel's copy touches (issue 25): a copy's tile (or a TV
layout's ``tile``) is placed over the smem tensor as ``partition_S/D`` places it, every tile one more
instruction, or the call is refused naming both shapes; an access the hardware cannot issue is refuted with the
thread and values, not an input error; an smem_optimal claim whose access cannot be built is that claim's error.

The post-conditions are re-derived here without analysis.banks: the coordinates each (thread, value, tile)
touches by hand from the thread / value layouts of ``make_tiled_copy_tv`` (a raked product: thread ``t`` of
``(16,8):(8,1)`` sits at row ``t // 8``, column block ``t % 8``), the swizzle by its XOR formula, and the conflict
degree by the plain simulator of tests/analysis/test_banks.py."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_banks import brute_degree

import cuteverify as cv
from cuteverify.frontend import manifest as mf
from cuteverify.analysis import banks
from cuteverify.atoms import make_tiled_copy_A, make_tiled_copy_tv, make_tiled_mma
from cuteverify.frontend.cli.main import main
from cuteverify.errors import NotAdmissibleError
from cuteverify.prover.verdict import Counterexample
from cuteverify.synth import prove_smem_optimal

G2S = make_tiled_copy_tv("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", cv.parse("(16,8):(8,1)"), cv.parse("(1,8)"), "bf16")


def sw333(o):
    """Swizzle<3,3,3> on an element offset: bits 6..8 XOR-ed into bits 3..5."""
    return o ^ ((o & (7 << 6)) >> 3)


def g2s_coords(M, N):
    """{(thread, placed column): (m, n)} of G2S over an (M, N) tensor: tile (rm, rn) of the (M/16, N/64) tiles,
    colexicographic; in it thread t's value v is at (t // 8, 8 * (t % 8) + v)."""
    out = {}
    for rn in range(N // 64):
        for rm in range(M // 16):
            r = rm + (M // 16) * rn
            for t in range(128):
                for v in range(8):
                    out[(t, v + 8 * r)] = (16 * rm + t // 8, 64 * rn + 8 * (t % 8) + v)
    return out


def table(coords, offset_of, T, C):
    return [[offset_of(*coords[(t, c)]) for c in range(C)] for t in range(T)]


# ------------------------------------------------------------------------- placement post-conditions

@pytest.mark.parametrize("smem_text, offset_of", [
    ("S<3,3,3> o 0 o (128,128):(128,1)", lambda m, n: sw333(128 * m + n)),
    ("(128,128):(128,1)", lambda m, n: 128 * m + n),
    ("(128,128):(1,128)", lambda m, n: m + 128 * n),
])
def test_copy_placement_is_every_tile_of_the_partition(smem_text, offset_of):
    smem = cv.parse(smem_text)
    pl = banks.place_access(G2S, smem)
    coords = g2s_coords(128, 128)
    assert pl.idx.shape == (128, 8 * 16) and pl.per_iter == 8 and pl.tiles == 16
    for (t, c), (m, n) in coords.items():
        assert pl.idx[t, c] == m + 128 * n          # the smem element index (colexicographic)
    # the same offsets through the atom layer's own partition of the (swizzled) tensor, thread by thread
    for t in (0, 5, 77, 127):
        part = G2S.get_slice(t).partition_D(smem)
        want = [offset_of(*coords[(t, c)]) for c in range(128)]
        assert [part(i) for i in range(128)] == want
    # the verdict is the plain simulator's on the hand-computed byte addresses
    off = table(coords, offset_of, 128, 128)
    deg = brute_degree(off, 2, 16)[0]
    v = banks.bank_conflicts(smem, G2S)
    assert v.vector_bytes == 16 and v.lanes_per_phase == 8
    if deg is None or any(off[t][8 * k + j] != off[t][8 * k] + j for t in range(128) for k in range(16)
                          for j in range(8)):
        assert v.refuted and v.degree is None   # the column-major tile: each thread's 8 values are not 16 bytes
    else:
        assert v.degree == deg and v.status == ("proved" if deg == 1 else "refuted")


def test_ldmatrix_copy_placement_over_a_stage_of_the_sgemm_tile():
    mma = make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", (2, 2, 1), (32, 32, 16))
    s2r = make_tiled_copy_A("SM75_U32x4_LDSM_N", mma, "f16")
    atom = cv.parse("S<3,3,3> o 0 o (8,(8,8)):(8,(1,64))")
    smem = cv.composition(cv.tile_to_shape(atom, (128, 64, 3)), cv.parse("(128,64):(1,128)"))
    tv = s2r.layout_tv("src")                      # (thread, value) -> index of the 32x16 tile
    T, V = cv.size(tv[0]), cv.size(tv[1])
    pl = banks.place_access(s2r, smem)
    assert pl.tiles == 4 * 4 and pl.per_iter == V
    for rk in range(4):
        for rm in range(4):
            r = rm + 4 * rk
            for t in range(T):
                for v in range(V):
                    i = tv(t, v)
                    assert pl.idx[t, v + V * r] == (32 * rm + i % 32) + 128 * (16 * rk + i // 32)
    v = banks.bank_conflicts(smem, s2r)
    assert v.proved and v.lanes_per_phase == 8 and v.vector_bytes == 16
    off = [[smem(int(e)) for e in row] for row in pl.idx]
    assert brute_degree(off, 2, 16)[0] == 1


def test_a_tv_layout_with_its_tile_is_placed_like_the_copy():
    smem = cv.parse("(128,64):(64,1)")
    tv = G2S.layout_tv("dst")
    a = banks.place_access(tv, smem, tile="16x64")
    b = banks.place_access(G2S, smem)
    assert (a.idx == b.idx).all() and a.tiles == 8
    coords = g2s_coords(128, 64)
    assert all(a.idx[t, c] == m + 128 * n for (t, c), (m, n) in coords.items())
    for tile in ((16, 64), [16, 64], "(16,64)", "16x64"):
        assert banks.bank_conflicts(smem, tv, tile=tile).degree == 1
        assert banks.max_vector_width(tv, smem=smem, tile=tile).width == 16


# ----------------------------------------------------------- the issue's manifest, fails on the old code

MANIFEST = """version: 1
kernels:
  k:
    layouts:
      g2s: make_tiled_copy_tv(SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, (16,8):(8,1), (1,8), bf16)
      sQ: "S<3,3,3> o 0 o (128,128):(128,1)"
      sP: "(128,128):(128,1)"
      sBad: "((16,8),128):((1024,1),8)"
      sOdd: "(24,64):(64,1)"
      tvP: "((8,16),(8,1)):((128,1),(16,0))"
      sP64: "(128,64):(64,1)"
    claims:
      - banks: {smem: sQ, copy: g2s, dtype: bf16}
      - banks: {smem: sP, copy: g2s, dtype: bf16}
      - vector: {copy: g2s, smem: sP, require: 16}
      - banks: {smem: sBad, copy: g2s, dtype: bf16}
        expect: refuted
      - vector: {copy: g2s, smem: sBad, require: 16}
        expect: refuted
      - banks: {smem: sOdd, copy: g2s}
      - banks: {smem: sP64, access: tvP, tile: 16x64}
      - vector: {layout: tvP, smem: sP64, tile: "(16,64)", require: 16}
      - banks: {smem: sP64, access: tvP}
"""


def test_manifest_claims_relate_the_copy_tile_to_the_smem_tensor(tmp_path):
    p = tmp_path / "k.cute.yaml"
    p.write_text(MANIFEST)
    res = mf.run(mf.load(p))
    assert [r["status"] for r in res] == ["proved", "proved", "proved", "refuted", "refuted", "error", "proved",
                                          "proved", "error"], res
    # sBad: element (m, n) at 1024 (m % 16) + m // 16 + 8 n, so thread t's 8 columns are 8 elements apart and
    # the 16-byte cp.async cannot be issued (the old code read the tile's indices as sBad's and proved it)
    for r in res[3:5]:
        assert "thread 0" in r["counterexample"]["text"] and "values 0..7" in r["counterexample"]["text"], r
    assert "((0,0),0) .. ((0,0),7)" in res[3]["reason"], res[3]
    sbad = cv.parse("((16,8),128):((1024,1),8)")
    assert [sbad((0, 8 * 0 + v)) for v in range(8)] == [8 * v for v in range(8)]
    # shapes that cannot be related: an input error naming both
    for r in (res[5], res[8]):
        assert r["error_kind"] == "input", r
    assert "(16,64)" in res[5]["reason"] and "(24,64)" in res[5]["reason"]
    assert "1024" in res[8]["reason"] and "(128,64)" in res[8]["reason"]
    assert mf.exit_code(res) == 2


def test_bad_tile_fields_are_errors_at_their_line():
    for body, needle in (("{smem: sP, copy: g2s, tile: 16x64}", "copy's own tiler"),
                         ("{smem: sP64, access: tvP, tile: 16xx}", "tile shape")):
        text = MANIFEST.split("    claims:\n")[0] + "    claims:\n      - banks: " + body + "\n"
        with pytest.raises(mf.ManifestError) as ei:
            mf.load_text(text, "t.cute.yaml")
        assert needle in str(ei.value) and ei.value.line == text.count("\n"), str(ei.value)


def test_shapes_that_cannot_be_related_are_refused_naming_both():
    smem = cv.parse("(128,64):(64,1)")
    tv = G2S.layout_tv("dst")
    cases = [
        (lambda: banks.bank_conflicts(smem, tv), ("1024", "(128,64)")),
        (lambda: banks.max_vector_width(tv, smem=smem), ("1024", "(128,64)")),
        (lambda: banks.bank_conflicts(smem, tv, tile=(24, 64)), ("(24,64)", "(128,64)")),
        (lambda: banks.bank_conflicts(smem, tv, tile=(16, 48)), ("(16,48)", "1023")),
        (lambda: banks.bank_conflicts(cv.parse("8192:1"), G2S), ("(16,64)", "8192")),
        (lambda: banks.bank_conflicts(smem, G2S, tile=(32, 64)), ("(32,64)", "(16,64)")),
        (lambda: banks.bank_conflicts(smem, G2S, dtype="f32"), ("16-bit", "4 bytes")),
        (lambda: banks.bank_conflicts(smem, cv.Layout((32, 8), (cv.E(0), cv.E(1))), tile=(32, 8)), ("E<i>",)),
        (lambda: banks.bank_conflicts(smem, tv, tile="abc"), ("abc",)),
    ]
    for call, needles in cases:
        with pytest.raises(NotAdmissibleError) as ei:
            call()
        assert all(n in str(ei.value) for n in needles), (needles, str(ei.value))


# ------------------------------------------------------------- hardware-illegal accesses are refuted

def test_an_ldmatrix_row_that_is_not_16_contiguous_bytes_is_refuted(tmp_path):
    mma = make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", (2, 2, 1), (32, 32, 16))
    s2r = make_tiled_copy_A("SM75_U32x4_LDSM_N", mma, "f16")
    pad = cv.parse("(32,16):(1,40)")                # M-major, padded: a K-row of 8 halves is 40 elements apart
    v = banks.bank_conflicts(pad, s2r)
    assert v.refuted and v.degree is None and "ldmatrix" in v.reason
    t, vals = v.counterexample.thread, v.counterexample.value_indices
    tv = s2r.layout_tv("src")
    offs = [pad(tv(t, x)) for x in vals]
    assert len(vals) == 8 and any(offs[j + 1] != offs[j] + 1 for j in range(7))
    p = tmp_path / "ld.cute.yaml"
    p.write_text(f"""version: 1
kernels:
  k:
    layouts:
      mma: make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN, (2,2,1), (32,32,16))
      s2rA: make_tiled_copy_A(SM75_U32x4_LDSM_N, mma, f16)
      sPad: "(32,16):(1,40)"
    claims:
      - banks: {{smem: sPad, copy: s2rA, dtype: f16}}
      - bijective: "(4,8):(8,1)"
""")
    r = CliRunner().invoke(main, ["check", str(p)])
    assert r.exit_code == 1, r.output
    assert "thread" in r.output and "values 0..7" in r.output


def test_prove_smem_optimal_refutes_a_layout_that_cannot_issue_the_access():
    smem = cv.parse("(128,64):(64,1)")
    v = prove_smem_optimal(smem, (128, 64), "bf16", reads=["tv:16:(32,8):(1,32)"])
    assert v.refuted and isinstance(v.counterexample, Counterexample) and v.counterexample.kind == "illegal"
    d = v.counterexample.detail
    # thread t's value v is tile index t + 32 v, i.e. (m, k) = ((t + 32 v) % 128, (t + 32 v) // 128)
    t = d["thread"]
    offs = [smem(((t + 32 * x) % 128, (t + 32 * x) // 128)) for x in d["values"]]
    assert offs == d["offsets"] and any(offs[j + 1] != offs[j] + 1 for j in range(len(offs) - 1))


# ------------------------------------------------------------------------------------------ the CLI

def test_cli_banks_and_vector_need_the_tile_of_a_smaller_access():
    run = CliRunner().invoke
    tv = str(G2S.layout_tv("dst"))
    r = run(main, ["banks", "(128,64):(64,1)", "--access", tv])
    assert r.exit_code == 2 and "1024" in r.output and "(128,64)" in r.output, r.output
    r = run(main, ["banks", "(128,64):(64,1)", "--access", tv, "--tile", "16x64", "--json"])
    assert r.exit_code == 0, r.output
    coords = g2s_coords(128, 64)
    off = table(coords, lambda m, n: 64 * m + n, 128, 64)
    assert json.loads(r.output)["degree"] == brute_degree(off, 2, 16)[0] == 1
    r = run(main, ["banks", "(128,64):(1,128)", "--access", tv, "--tile", "(16,64)"])
    assert r.exit_code == 1 and "thread" in r.output, r.output     # M-major: no 16-byte vectors
    r = run(main, ["banks", "(128,64):(64,1)", "--access", tv, "--tile", "(24,64)"])
    assert r.exit_code == 2 and "(24,64)" in r.output, r.output
    r = run(main, ["banks", "(128,64):(64,1)", "--access", tv, "--tile", "sixteen"])
    assert r.exit_code == 2 and "--tile" in r.output, r.output
    r = run(main, ["vector", tv, "--smem", "(128,64):(64,1)", "-r", "16"])
    assert r.exit_code == 2 and "1024" in r.output, r.output
    r = run(main, ["vector", tv, "--smem", "(128,64):(64,1)", "--tile", "16x64", "-r", "16"])
    assert r.exit_code == 0, r.output
