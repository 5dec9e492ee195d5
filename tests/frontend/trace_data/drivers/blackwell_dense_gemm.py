"""CUTLASS CuTe DSL example kernels/blackwell_dense_gemm.py (DenseGemmKernel), f16: 2-CTA MMA, 256x128 tile,
cluster (2,1), TMA store; arch sm_100a."""
import os, sys
sys.path.insert(0, os.path.abspath(os.environ.get("CUTEVERIFY_KERNELS", "kernels")))
import cutlass
from cutlass import cute
from cuteverify.frontend.trace.fakes import fake_stream, fake_tensor
import blackwell_dense_gemm as K

F16 = cutlass.Float16
mA = fake_tensor(F16, ("m", "k", "l"), major=1)   # k-major
mB = fake_tensor(F16, ("n", "k", "l"), major=1)   # k-major
mC = fake_tensor(F16, ("m", "n", "l"), major=1)   # n-major
gemm = K.DenseGemmKernel(cutlass.Float32, True, (256, 128), (2, 1), True)
cute.compile(gemm, mA, mB, mC, fake_stream())
