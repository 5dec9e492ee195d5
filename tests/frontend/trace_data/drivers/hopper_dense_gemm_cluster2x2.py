"""CUTLASS CuTe DSL example kernels/hopper_dense_gemm.py (HopperWgmmaGemmKernel), f16, 128x256 tile, cluster 2x2 (TMA multicast 2); arch sm_90a."""
import os, sys
sys.path.insert(0, os.path.abspath(os.environ.get("CUTEVERIFY_KERNELS", "kernels")))
import cutlass
from cutlass import cute
from cuteverify.frontend.trace.fakes import fake_stream, fake_tensor
import hopper_dense_gemm as K

F16 = cutlass.Float16
mA = fake_tensor(F16, ("m", "k", "l"), major=1)   # k-major
mB = fake_tensor(F16, ("n", "k", "l"), major=1)   # k-major
mC = fake_tensor(F16, ("m", "n", "l"), major=1)   # n-major
gemm = K.HopperWgmmaGemmKernel(cutlass.Float32, (128, 256), (2, 2))
cute.compile(gemm, mA, mB, mC, fake_stream())
