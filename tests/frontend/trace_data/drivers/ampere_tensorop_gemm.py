from capture_common import *
import ampere_tensorop_gemm as K
m, n, k, l = sym(), sym(), sym(), sym()
F16 = cutlass.Float16
# bmm takes (l,m,k), (l,k,n), (l,m,n); row-major each (last mode contiguous), like the tvm_ffi example
a = fake(F16, (l, m, k), (2, 1, 0))
b = fake(F16, (l, k, n), (2, 1, 0))
c = fake(F16, (l, m, n), (2, 1, 0))
gemm = K.TensorOpGemm(F16, F16, cutlass.Float32, (2, 2, 1), False)
compile_with_hook(K.bmm, gemm, a, b, c, make_fake_stream())
