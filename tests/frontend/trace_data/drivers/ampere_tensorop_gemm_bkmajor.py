"""CUTLASS CuTe DSL example kernels/ampere_tensorop_gemm.py (bmm) with B k-major: (l,k,n) with k contiguous is
stride order (2,0,1) (the DSL's stride_order gives each mode's rank, 0 = stride 1). A plain user script: it only
calls cute.compile."""
import os, sys
sys.path.insert(0, os.path.abspath(os.environ.get("CUTEVERIFY_KERNELS", "kernels")))
import cutlass
from cutlass import cute
from cuteverify.frontend.trace.fakes import fake_stream, fake_tensor
import ampere_tensorop_gemm as K

F16 = cutlass.Float16
a = fake_tensor(F16, ("l", "m", "k"), stride_order=(2, 1, 0))
b = fake_tensor(F16, ("l", "k", "n"), stride_order=(2, 0, 1))
c = fake_tensor(F16, ("l", "m", "n"), stride_order=(2, 1, 0))
cute.compile(K.bmm, K.TensorOpGemm(F16, F16, cutlass.Float32, (2, 2, 1), False), a, b, c, fake_stream())
