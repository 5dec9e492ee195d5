from capture_common import *
import blackwell_dense_gemm as K
m, n, k, l = sym(), sym(), sym(), sym()
F16 = cutlass.Float16
mA = fake(F16, (m, k, l), (1, 0, 2))   # k-major
mB = fake(F16, (n, k, l), (1, 0, 2))   # k-major
mC = fake(F16, (m, n, l), (1, 0, 2))   # n-major
# 2-CTA MMA, 256x128 tile, cluster (2,1), TMA store
gemm = K.DenseGemmKernel(cutlass.Float32, True, (256, 128), (2, 1), True)
compile_with_hook(gemm, mA, mB, mC, make_fake_stream())
