"""Issue 25: a copy atom's width is checked against the values it moves where the kernel issues it (over the
smem tensor), as ``cute.copy`` does: ``make_tiled_copy_C(UniversalCopy<uint64_t>, m16n8k16, bf16)`` moves 4
bf16 values per atom, two adjacent columns on two rows 8 apart."""
from __future__ import annotations

import textwrap

import numpy as np

from cuteverify.frontend import manifest as mf

MANIFEST = """
version: 1
kernels:
  k:
    layouts:
      mma: make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, (2,2,1))
      r2s64: make_tiled_copy_C(UniversalCopy<uint64_t>, mma, bf16)
      r2s32: make_tiled_copy_C(UniversalCopy<uint32_t>, mma, bf16)
      sRow: "(32,32):(32,1)"
      sBlk: "((8,2,2),(2,16)):((4,2,32),(1,64))"
    claims:
      - vector: {smem: sRow, copy: r2s64, require: 8}
        expect: refuted
      - banks: {smem: sRow, copy: r2s64}
        expect: refuted
      - vector: {smem: sRow, copy: r2s32, require: 4}
      - vector: {smem: sBlk, copy: r2s64, require: 8}
"""


def _offsets_of_thread0(smem_fn):
    """Thread 0's accumulator elements of m16n8k16 (PTX ISA: c0,c1 at (g, 2q..2q+1), c2,c3 at (g+8, ...)
    with g = lane/4, q = lane%4), placed through ``smem_fn(m, n)``."""
    return [smem_fn(0, 0), smem_fn(0, 1), smem_fn(8, 0), smem_fn(8, 1)]


def test_a_64_bit_universal_copy_over_row_major_c_is_refuted_where_it_is_issued(tmp_path):
    p = tmp_path / "k.cute.yaml"
    p.write_text(textwrap.dedent(MANIFEST))
    results = mf.run(mf.load(str(p)))
    got = [r["status"] for r in results]
    assert got == ["refuted", "refuted", "proved", "proved"], results
    # the row-major smem puts thread 0's 4 values at these offsets (independent of cuteverify): not contiguous
    offs = _offsets_of_thread0(lambda m, n: 32 * m + n)
    assert np.any(np.diff(offs) != 1)
    for r in results[:2]:
        text = str((r.get("counterexample") or {}).get("text")) + str(r.get("reason"))
        assert "thread 0" in text, r
        assert all(str(o) in text for o in offs), r
    # the blocked smem makes them contiguous: ((8,2,2),(2,16)):((4,2,32),(1,64)) at (m, n)
    def blk(m, n):
        return 4 * (m % 8) + 2 * ((m // 8) % 2) + 32 * (m // 16) + (n % 2) + 64 * (n // 2)
    assert np.diff(sorted(_offsets_of_thread0(blk))).tolist() == [1, 1, 1]


def _sw333(x):
    """Swizzle<3,3,3> written out: bits 6..8 XOR into bits 3..5."""
    return x ^ (((x >> 6) & 7) << 3)


def test_local_tile_and_local_partition_of_a_swizzled_layout():
    import cuteverify as cv
    from cuteverify import atoms as at
    L = cv.parse("S<3,3,3> o 0 o (128,64):(64,1)")
    t = at.local_tile(L, (16, 64), (1, 0))
    assert all(t(m, n) == _sw333(64 * (16 + m) + n) for m in range(16) for n in range(64))
    # thread 3 of the thread layout (8,8):(8,1), which maps (i, j) -> 8i + j: CuTe's get_flat_coord(3) is the
    # coordinate the layout sends to 3, (0, 3); the thread takes element (8a, 3 + 8b) of the 128x64 tensor
    p = at.local_partition(L, cv.parse("(8,8):(8,1)"), 3)
    assert all(p(a, b) == _sw333(64 * (8 * a) + 3 + 8 * b) for a in range(16) for b in range(8))


def test_make_tiled_copy_C_atom_is_a_manifest_function(tmp_path):
    p = tmp_path / "c.cute.yaml"
    p.write_text(textwrap.dedent("""
        version: 1
        kernels:
          k:
            layouts:
              mma: make_tiled_mma(SM90_64x128x16_F32BF16BF16_SS)
              catom: make_tiled_copy_C_atom(SM90_U32x4_STSM_N, mma, bf16)
            claims:
              - covers: {tiled_copy: catom}
        """))
    assert [r["status"] for r in mf.run(mf.load(str(p)))] == ["proved"]


CP_ASYNC = """
version: 1
kernels:
  k:
    symbols: [K]
    assume: ["K % 64 == 0", "K >= 64"]
    layouts:
      g2s_mt: make_tiled_copy_tv(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, (16,8):(1,16), (1,8), f16)
      g2s_kt: make_tiled_copy_tv(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, (16,8):(8,1), (1,8), f16)
      sA: "S<3,3,3> o 0 o (128,64):(64,1)"
    claims:
      - banks: {smem: sA, copy: g2s_mt}
      - banks: {smem: sA, copy: g2s_mt, gmem: "(128,64):(K,1)"}
        expect: refuted
      - banks: {smem: sA, copy: g2s_kt, gmem: "(128,64):(K,1)"}
"""


def test_a_cp_async_claim_with_gmem_counts_the_global_rows(tmp_path):
    """The M-major thread layout over a K-major global tile: the smem side alone is conflict-free, but the 8
    lanes of a phase read 8 different 128-byte rows (thread t reads row t of the tile: byte 2*K*t), which the
    H200 serves in 8 passes (specs/evidence/sm90/cp_async_rows.jsonl); the K-major control reads one row."""
    p = tmp_path / "cp.cute.yaml"
    p.write_text(textwrap.dedent(CP_ASYNC))
    res = mf.run(mf.load(str(p)))
    assert [r["status"] for r in res] == ["proved", "refuted", "proved"], res
    rows = {(2 * 64 * t) // 128 for t in range(8)}  # K = 64: lanes 0..7 of phase 0
    assert len(rows) == 8
    assert "8 passes" in res[1]["counterexample"]["text"] and "rows 0 and 1" in res[1]["counterexample"]["text"]
    bad = CP_ASYNC.replace('gmem: "(128,64):(K,1)"}\n        expect', 'gmem: "(64,64):(K,1)"}\n        expect')
    p.write_text(textwrap.dedent(bad))
    res = mf.run(mf.load(str(p)))
    assert res[1]["status"] == "error" and "(64,64)" in res[1]["reason"] and "(128,64)" in res[1]["reason"]


def test_compatible_with_an_operand_outside_registers_is_an_input_error():
    """UMMA's accumulator lives in TMEM and an SS wgmma's B in shared memory: no thread holds a fragment of
    them, so a register copy cannot be compatible or incompatible with it."""
    import pytest
    from cuteverify import atoms as at
    from cuteverify.errors import NotAdmissibleError
    umma = at.make_tiled_mma("SM100_MMA_F16BF16_SS", M=128, N=256, a_major="K", b_major="K")
    wg = at.make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS")
    copy = at.make_tiled_copy_tv("UniversalCopy<uint32_t>", "(32,4):(1,32)", "(1,2)", "f32")
    for mma, op, where in ((umma, "C", "TMEM"), (wg, "B", "shared memory")):
        with pytest.raises(NotAdmissibleError) as e:
            at.compatible_tv(copy, mma, op)
        assert where in str(e.value) and f"operand {op}" in str(e.value)


def test_a_tv_layout_read_off_a_copy_is_placed_by_the_copy_s_tile(tmp_path):
    """Review finding: ``tv: g2s.layout_tv_tiled`` indexes the copy's 16x64 tile; over a 64x16 smem of the same
    size it used to be read in the smem's own index space (proved), and a contradicting ``tile:`` was used."""
    p = tmp_path / "t.cute.yaml"
    p.write_text(textwrap.dedent("""
        version: 1
        kernels:
          k:
            layouts:
              g2s: make_tiled_copy_tv(SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, (16,8):(8,1), (1,8), bf16)
              tv: g2s.layout_tv_tiled
              sX: "(64,16):(16,1)"
              sP: "(128,128):(128,1)"
            claims:
              - banks: {smem: sX, access: tv, dtype: bf16}
              - banks: {smem: sP, access: tv, tile: 64x16, dtype: bf16}
              - banks: {smem: sP, access: tv, dtype: bf16}
              - vector: {smem: sX, layout: tv, require: 16}
        """))
    res = mf.run(mf.load(str(p)))
    assert [r["status"] for r in res] == ["error", "error", "proved", "error"], res
    assert "(16,64)" in res[0]["reason"] and "(64,16)" in res[0]["reason"]
    assert "64x16" in res[1]["reason"] and "16x64" in res[1]["reason"]


def test_a_cta_tiler_over_the_leading_gmem_modes_keeps_the_batch_mode(tmp_path):
    """Review finding: CuTe's composition(gmem, cta_tiler) keeps gmem modes past the tiler (the batch L of an
    (M,K,L) tensor, as CUTLASS's collectives and the CuTe DSL Hopper GEMM pass it); that was an input error."""
    p = tmp_path / "t.cute.yaml"
    p.write_text(textwrap.dedent("""
        version: 1
        kernels:
          k:
            symbols: [M, K, L]
            assume: ["M % 128 == 0", "K % 64 == 0", "M <= 65536", "K <= 65536", "L <= 64"]
            layouts:
              sA0: tile_to_shape(S<3,3,3> o 0 o (8,64):(64,1), (128,64,4))
            claims:
              - tma: {dtype: f16, gmem: "(M,K,L):(K,1,M*K)", smem: sA0, cta_tiler: "(128,64)"}
              - tma: {dtype: f16, gmem: "(M,K,L):(K,1,M*K)", smem: sA0, cta_tiler: "(64,64)"}
                expect: refuted
              - tma: {dtype: f16, gmem: "(M,K):(K,1)", smem: sA0, cta_tiler: "(128,64,2)"}
                expect: refuted
        """))
    res = mf.run(mf.load(str(p)))
    assert [r["status"] for r in res] == ["proved", "refuted", "error"], res
    assert "CTA tile (64,64" in str(res[1]["reason"]) + str((res[1]["counterexample"] or {}).get("text"))
