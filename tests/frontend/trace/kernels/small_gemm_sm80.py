"""A small Ampere-style GEMM main loop, written for cuteverify's capture tests (not a CUTLASS example): one
64x64x32 f16 tile a CTA, A and B staged in a swizzled smem layout by a cp.async tiled copy, then a 2x2-warp
tiled MMA (mma.sync 16x8x16, f32 accumulators) reading them. Run by ``cuteverify trace capture -- small_gemm_sm80.py``
(arch sm_80); ``--no-compile`` makes it a script that compiles nothing (for the error test)."""
import sys

import cutlass
import cutlass.cute as cute
from cutlass.memory import SmemAllocator

from cuteverify.frontend.trace.fakes import fake_stream, fake_tensor

BM, BN, BK = 64, 64, 32
THREADS = 128


@cute.kernel
def small_gemm_kernel(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor, s_layout: cute.ComposedLayout,
                      copy_g2s: cute.TiledCopy, tiled_mma: cute.TiledMma):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, bidy, _ = cute.arch.block_idx()
    gA = cute.local_tile(mA, (BM, BK), (bidx, 0))
    gB = cute.local_tile(mB, (BN, BK), (bidy, 0))
    gC = cute.local_tile(mC, (BM, BN), (bidx, bidy))
    smem = SmemAllocator()
    sA = smem.allocate_tensor(cutlass.Float16, s_layout, 128)
    sB = smem.allocate_tensor(cutlass.Float16, s_layout, 128)
    thr_copy = copy_g2s.get_slice(tidx)
    tAgA = thr_copy.partition_S(gA)
    tAsA = thr_copy.partition_D(sA)
    tBgB = thr_copy.partition_S(gB)
    tBsB = thr_copy.partition_D(sB)
    cute.copy(copy_g2s, tAgA, tAsA)
    cute.copy(copy_g2s, tBgB, tBsB)
    cute.arch.cp_async_commit_group()
    cute.arch.cp_async_wait_group(0)
    cute.arch.sync_threads()
    thr_mma = tiled_mma.get_slice(tidx)
    tCsA = thr_mma.partition_A(sA)
    tCsB = thr_mma.partition_B(sB)
    tCgC = thr_mma.partition_C(gC)
    tCrA = tiled_mma.make_fragment_A(tCsA)
    tCrB = tiled_mma.make_fragment_B(tCsB)
    tCrC = tiled_mma.make_fragment_C(tCgC)
    tCrC.fill(0.0)
    cute.autovec_copy(tCsA, tCrA)
    cute.autovec_copy(tCsB, tCrB)
    cute.gemm(tiled_mma, tCrC, tCrA, tCrB, tCrC)
    cute.autovec_copy(tCrC, tCgC)


@cute.jit
def small_gemm(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor, stream):
    # 8 rows of 32 f16 (64 B), 16 B chunks swizzled over 4 rows: an element swizzle S<2,3,3>
    atom = cute.make_composed_layout(cute.make_swizzle(2, 3, 3), 0, cute.make_layout((8, BK), stride=(BK, 1)))
    s_layout = cute.tile_to_shape(atom, (BM, BK), (0, 1))
    g2s = cute.make_copy_atom(cute.nvgpu.cpasync.CopyG2SOp(cache_mode=cute.nvgpu.LoadCacheMode.GLOBAL),
                              cutlass.Float16, num_bits_per_copy=128)
    copy_g2s = cute.make_tiled_copy_tv(g2s, cute.make_layout((32, 4), stride=(4, 1)), cute.make_layout((1, 8)))
    tiled_mma = cute.make_tiled_mma(cute.nvgpu.warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16)),
                                    cute.make_layout((2, 2, 1)), permutation_mnk=(32, 32, 16))
    grid = (cute.ceil_div(cute.size(mC, mode=[0]), BM), cute.ceil_div(cute.size(mC, mode=[1]), BN), 1)
    small_gemm_kernel(mA, mB, mC, s_layout, copy_g2s, tiled_mma).launch(grid=grid, block=(THREADS, 1, 1),
                                                                         stream=stream)


if __name__ == "__main__" and "--no-compile" not in sys.argv[1:]:
    a = fake_tensor(cutlass.Float16, ("m", "k"), major=1)   # (m,k), k contiguous
    b = fake_tensor(cutlass.Float16, ("n", "k"), major=1)   # (n,k), k contiguous
    c = fake_tensor(cutlass.Float32, ("m", "n"), major=1)
    cute.compile(small_gemm, a, b, c, fake_stream())
