from capture_common import *
import hopper_dense_gemm as K
m, n, k, l = sym(), sym(), sym(), sym()
F16 = cutlass.Float16
mA = fake(F16, (m, k, l), (1, 0, 2))   # k-major
mB = fake(F16, (n, k, l), (1, 0, 2))   # k-major
mC = fake(F16, (m, n, l), (1, 0, 2))   # n-major
gemm = K.HopperWgmmaGemmKernel(cutlass.Float32, (128, 256), (1, 1))
compile_with_hook(gemm, mA, mB, mC, make_fake_stream())
