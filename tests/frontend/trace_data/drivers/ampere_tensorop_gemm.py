"""CUTLASS CuTe DSL example kernels/ampere_tensorop_gemm.py (bmm), f16 in, f32 accumulate, 2x2x1 warps.
bmm takes (l,m,k), (l,k,n), (l,m,n); each row-major (last mode contiguous), as CUTLASS's tvm_ffi example."""
import os, sys
sys.path.insert(0, os.path.abspath(os.environ.get("CUTEVERIFY_KERNELS", "kernels")))
import cutlass
from cutlass import cute
from cuteverify.frontend.trace.fakes import fake_stream, fake_tensor
import ampere_tensorop_gemm as K

F16 = cutlass.Float16
a = fake_tensor(F16, ("l", "m", "k"), stride_order=(2, 1, 0))
b = fake_tensor(F16, ("l", "k", "n"), stride_order=(2, 1, 0))
c = fake_tensor(F16, ("l", "m", "n"), stride_order=(2, 1, 0))
gemm = K.TensorOpGemm(F16, F16, cutlass.Float32, (2, 2, 1), False)
cute.compile(K.bmm, gemm, a, b, c, fake_stream())
