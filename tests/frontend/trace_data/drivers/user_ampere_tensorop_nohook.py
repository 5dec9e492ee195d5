# a "user" script: plain cute.compile, no hook argument
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels"))
import cutlass, cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream
import ampere_tensorop_gemm as K
s = lambda: cute.sym_int32(divisibility=8)
l, m, n, k = s(), s(), s(), s()
F16 = cutlass.Float16
a = make_fake_compact_tensor(F16, (l, m, k), stride_order=(2, 1, 0), assumed_align=16)
b = make_fake_compact_tensor(F16, (l, k, n), stride_order=(2, 0, 1), assumed_align=16)  # (l,k,n) with k contiguous -> B k-major
c = make_fake_compact_tensor(F16, (l, m, n), stride_order=(2, 1, 0), assumed_align=16)
cute.compile(K.bmm, K.TensorOpGemm(F16, F16, cutlass.Float32, (2, 2, 1), False), a, b, c, make_fake_stream())
print("user script done")
