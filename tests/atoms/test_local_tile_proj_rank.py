"""``local_tile`` with a coordinate longer than its projection (CUTLASS's Hopper dense GEMM,
hopper_dense_gemm.py:657: ``cute.local_tile(mC_mnl, tile_shape_mnk, tile_coord_mnkl, proj=(1, 1, None))`` with
a rank-4 ``(m, n, _, l)`` coordinate): CuTe DSL 4.8.1 keeps the coordinate's entries past the projection's rank,
so the tile is the ``(bM, bN)`` one at ``(m, n, l)`` (capture hopper_dense_gemm_sm_90a: result
``(128,256):(1@1,1@0)``). Found by the trace algebra differential (issue 28): before the fix the trailing ``l``
was dropped and the ``L`` mode stayed in the result. Checked against a hand-written evaluation of the tensor."""
from cuteverify.atoms import local_tile
from cuteverify.core.notation.parse import parse

M, N, L = 512, 512, 4


def _tensor(x, y, z):  # the (M, N, L) column-major tensor, evaluated by hand
    return x + M * y + M * N * z


def test_coordinate_entries_past_the_projection_are_kept():
    A = parse(f"({M},{N},{L}):(1,{M},{M * N})")
    part = local_tile(A, (128, 256, 64), (1, 1, None, 2), proj=(1, 1, None))
    assert part.layout.shape == (128, 256)
    for i in range(0, 128, 7):
        for j in range(0, 256, 11):
            assert part.offset + part.layout((i, j)) == _tensor(128 * 1 + i, 256 * 1 + j, 2)


def test_gemm_a_operand_tile_with_rank4_coordinate():
    # gA_mkl = local_tile(mA_mkl, (bM, bN, bK), (m, n, _, l), proj=(1, None, 1)): (bM, bK, k tiles) at (m, l)
    K = 128

    def a(x, y, z):
        return x + M * y + M * K * z
    A = parse(f"({M},{K},{L}):(1,{M},{M * K})")
    part = local_tile(A, (128, 256, 64), (3, 9, None, 2), proj=(1, None, 1))
    assert part.layout.shape == (128, 64, 2)
    for c in ((0, 0, 0), (5, 6, 1), (127, 63, 1)):
        assert part.offset + part.layout(c) == a(128 * 3 + c[0], 64 * c[2] + c[1], 2)
