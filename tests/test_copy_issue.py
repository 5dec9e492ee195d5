"""Issue 25: a copy atom's width is checked against the values it moves where the kernel issues it (over the
smem tensor), as ``cute.copy`` does: ``make_tiled_copy_C(UniversalCopy<uint64_t>, m16n8k16, bf16)`` moves 4
bf16 values per atom, two adjacent columns on two rows 8 apart."""
from __future__ import annotations

import textwrap

import numpy as np

from cuteverify import manifest as mf

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
        text = str(r.get("counterexample")) + str(r.get("reason"))
        assert "thread 0" in text, r
        assert all(str(o) in text for o in offs), r
    # the blocked smem makes them contiguous: ((8,2,2),(2,16)):((4,2,32),(1,64)) at (m, n)
    def blk(m, n):
        return 4 * (m % 8) + 2 * ((m // 8) % 2) + 32 * (m // 16) + (n % 2) + 64 * (n // 2)
    assert np.diff(sorted(_offsets_of_thread0(blk))).tolist() == [1, 1, 1]
