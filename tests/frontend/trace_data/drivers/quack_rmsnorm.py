"""QuACK RMSNorm forward, the same cute.compile call as quack.rmsnorm._compile_rmsnorm_fwd (N=4096, bf16,
weight, rstd), with quack's own fake tensors."""
import math
import cutlass
from cutlass import cute
from quack.rmsnorm import RMSNorm
from quack.compile_utils import make_fake_tensor as fake_tensor
BF16, F32 = cutlass.BFloat16, cutlass.Float32
N = 4096
batch = cute.sym_int()
div = math.gcd(N, 128 // BF16.width)
x = fake_tensor(BF16, (batch, N), div)
o = fake_tensor(BF16, (batch, N), div)
w = fake_tensor(BF16, (N,), div)
rstd = fake_tensor(F32, (batch,))
cute.compile(RMSNorm(BF16, N), x, w, None, None, o, None, rstd, None, F32(0),
                  cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True), options="--enable-tvm-ffi")
