"""Worked examples for ``cuteverify.banks`` (issue 10). Run: ``python examples/banks_fa2.py``.

1. FlashAttention-2's K tile: 64x64 bf16 in shared memory, ``Swizzle<3,3,3>`` over an (8,64) row-major atom
   (FA2's ``SmemLayoutAtomQdO`` / ``SmemLayoutKV`` for headdim 64), read by ``ldmatrix.x4`` for the B
   operand of ``SM80_16x8x16`` (S = Q K^T): conflict-free; the same tile without the swizzle: 8-way.
2. A Hopper 128B-swizzled 128x64 bf16 tile (the GMMA K-major SW128 atom, ``Swizzle<3,4,3>`` on bytes =
   ``Swizzle<3,3,3>`` on 16-bit elements) written by a 128-thread copy of 16-byte vectors (``uint128_t``):
   row-major thread arrangement and column-major thread arrangement, swizzled and not.
"""
from __future__ import annotations

import cuteverify as cv
from cuteverify import banks


def ldmatrix_x4_src_elements():
    """The ldmatrix.x4 source TV layout in bf16 elements: thread -> its 16-byte row, (32,8):(8,1) on a
    32x8 row-major atom tile (from the spec library if present, else written out)."""
    try:
        spec = cv.specs.get("SM75_U32x4_LDSM_N")
        return cv.upcast(spec.layout("src"), 16), "spec SM75_U32x4_LDSM_N (bits) upcast to bf16"
    except Exception as e:  # the spec library is optional here
        return cv.parse("(32,8):(8,1)"), f"written out (spec library unavailable: {type(e).__name__})"


def fa2_k_tile_access():
    """One warp reading the whole 64(n) x 64(k) K tile with ldmatrix.x4 (B operand of m16n8k16).

    Lane l supplies the address of row l%8 of matrix j = l/8; matrix j covers n = 8*(j/2) .. +7 and
    k = 8*(j%2) .. +7, so one ldmatrix.x4 covers n16 x k16; 4 x 4 of them cover the tile. The tile's element
    index is n + 64*k (the smem layout's (64,64) domain, colexicographic).
    """
    src, origin = ldmatrix_x4_src_elements()
    # atom tile (row r = lane, col c) -> K-tile index: c -> k (stride 64), r%8 -> n (1),
    # (r/8)%2 -> k+8 (512), r/16 -> n+8 (8)
    place = cv.parse("(8,8,2,2):(64,1,512,8)")
    one = cv.composition(place, src)                       # ((8,2,2),8):((1,512,8),64)
    iters = cv.parse("(4,4):(16,1024)")                    # n-blocks of 16, k-blocks of 16
    return cv.make_layout(one[0], cv.make_layout(one[1], iters)), origin


def main():
    atom_sw = cv.parse("S<3,3,3> o 0 o (8,64):(64,1)")
    atom = cv.parse("(8,64):(64,1)")
    k_sw = cv.tile_to_shape(atom_sw, (64, 64))
    k_plain = cv.tile_to_shape(atom, (64, 64))
    access, origin = fa2_k_tile_access()

    print("== 1. FlashAttention-2 K tile, 64x64 bf16, ldmatrix.x4 ==")
    print(f"ldmatrix source layout: {origin}")
    print(f"access (thread, value) -> n + 64*k: {access}")
    print(banks.max_vector_width(access, "bf16", smem=k_sw))
    for name, smem in (("swizzled", k_sw), ("unswizzled", k_plain)):
        v = banks.bank_conflicts(smem, access, "bf16", phases="ldmatrix")
        print(f"-- {name}: {smem}")
        print(v)
        print(f"   => {v.degree}-way" + (" (conflict-free)" if v.degree == 1 else ""))

    print()
    print("== 2. Hopper 128B-swizzled 128x64 bf16 tile, 128-thread copy of 16-byte vectors ==")
    s128 = cv.tile_to_shape(atom_sw, (128, 64))
    p128 = cv.tile_to_shape(atom, (128, 64))
    # thread t: row t/8, 16-byte chunk t%8 (16x8 threads, row-major), 8 elements along k, 8 row iterations
    row_major = cv.parse("((8,16),(8,8)):((1024,1),(128,16))")
    # thread t: row t%16, chunk t/16 (16x8 threads, column-major): each 8-thread phase hits one chunk column
    col_major = cv.parse("((16,8),(8,8)):((1,1024),(128,16))")
    for tname, acc in (("row-major threads", row_major), ("column-major threads", col_major)):
        for sname, smem in (("SW128", s128), ("no swizzle", p128)):
            v = banks.bank_conflicts(smem, acc, "bf16", vector_bytes=16)
            print(f"-- {tname}, {sname}: {acc} through {smem}")
            print(v)


if __name__ == "__main__":
    main()
