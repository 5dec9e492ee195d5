"""QuACK GEMM (GemmDefaultSm90 / Sm100 by CUTE_DSL_ARCH), compiled through quack.gemm._compile_gemm (QuACK's own
fake tensors, epilogue and scheduler args); the compile call is inside QuACK, which is why the capture's hook is
registered globally. `__wrapped__` skips QuACK's jit_cache."""
import os
import cutlass
from quack.gemm import _compile_gemm
fn = getattr(_compile_gemm, "__wrapped__", _compile_gemm)
arch = os.environ["CUTE_DSL_ARCH"]
cap = (9, 0) if arch.startswith("sm_90") else (10, 0)
BF16 = cutlass.BFloat16
tile, cluster = ((128, 192), (2, 1, 1)) if cap[0] == 9 else ((256, 256), (2, 1, 1))
fn(BF16, BF16, BF16, None, "k", "k", "n", "n", tile, cluster,
   True if cap[0] == 9 else False,   # pingpong (sm90 only)
   True, False,                      # persistent, is_dynamic_persistent
   None, None, 0,                    # rowvec_dtype, colvec_dtype, colvec_ndim
   0, 0, False,                      # alpha_mode, beta_mode, add_to_output
   None, False, False, False, False, False,  # concat_layout, varlen_m, varlen_k, gather_A, use_tma_gather, has_batch_idx_permute
   cap, None, 0, None)               # device_capacity, rounding_mode, sr_seed_mode, num_warps
