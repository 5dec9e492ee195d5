from capture_common import *
import ampere_sgemm as K
m, n, k = sym(), sym(), sym()
F32 = cutlass.Float32
a = fake(F32, (m, k), (1, 0))   # k-major (m,k)
b = fake(F32, (n, k), (1, 0))   # k-major (n,k)
c = fake(F32, (m, n), (1, 0))   # n-major
compile_with_hook(K.SGemm(), a, b, c, stream=make_fake_stream())
