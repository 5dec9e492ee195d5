"""CUTLASS CuTe DSL example kernels/ampere_sgemm.py (SGemm), f32, all operands k-major / n-major."""
import os, sys
sys.path.insert(0, os.path.abspath(os.environ.get("CUTEVERIFY_KERNELS", "kernels")))
import cutlass
from cutlass import cute
from cuteverify.frontend.trace.fakes import fake_stream, fake_tensor
import ampere_sgemm as K

F32 = cutlass.Float32
a = fake_tensor(F32, ("m", "k"), major=1)   # (m,k), k contiguous
b = fake_tensor(F32, ("n", "k"), major=1)   # (n,k), k contiguous
c = fake_tensor(F32, ("m", "n"), major=1)   # (m,n), n contiguous
cute.compile(K.SGemm(), a, b, c, stream=fake_stream())
