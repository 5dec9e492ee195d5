"""FlashAttention-4 forward, traced on the CPU. Run by `cuteverify trace capture --stub-torch` under the FA4 venv (see README.md);
CUTE_DSL_ARCH picks the class (sm_80 -> Sm80, sm_90a -> Sm90, sm_100a -> Sm100)."""
import os, sys
import cutlass
from cutlass import cute
from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream

# this venv has the DSL and FA4/QuACK but not cuteverify: fakes written with the DSL's own calls
def sym():
    return cute.sym_int32(divisibility=8)

def fake(dtype, shape, stride_order, align=16):
    return make_fake_compact_tensor(dtype, shape, stride_order=stride_order, assumed_align=align)

arch = os.environ["CUTE_DSL_ARCH"]
F16, F32 = cutlass.Float16, cutlass.Float32
b, sq, sk, h = sym(), sym(), sym(), sym()
d = 128
# (batch, seqlen, nheads, headdim): stride order (3,1,2,0) = headdim contiguous, then seqlen, heads, batch
mQ = fake(F16, (b, sq, h, d), (3, 1, 2, 0))
mK = fake(F16, (b, sk, h, d), (3, 1, 2, 0))
mV = fake(F16, (b, sk, h, d), (3, 1, 2, 0))
mO = fake(F16, (b, sq, h, d), (3, 1, 2, 0))
mLSE = fake(F32, (b, h, sq), (2, 1, 0), align=4)
scale = F32(0.08838834764831845)
if arch == "sm_80":
    from flash_attn.cute.flash_fwd import FlashAttentionForwardSm80
    fa = FlashAttentionForwardSm80(F16, d, d, 1, is_causal=True, pack_gqa=False, tile_m=128, tile_n=64,
                                   num_stages=1, num_threads=128, Q_in_regs=False)
    cute.compile(fa, mQ, mK, mV, mO, mLSE, scale, stream=make_fake_stream())
elif arch == "sm_90a":
    from flash_attn.cute.flash_fwd_sm90 import FlashAttentionForwardSm90
    from flash_attn.cute.config import Sm90Registers
    fa = FlashAttentionForwardSm90(F16, d, d, 1, is_causal=True, pack_gqa=False, tile_m=128, tile_n=128,
                                   num_stages=2, Q_in_regs=False, intra_wg_overlap=True, mma_pv_is_rs=True,
                                   registers=Sm90Registers(mma=240, producer=24))
    cute.compile(fa, mQ, mK, mV, mO, mLSE, scale, stream=make_fake_stream())
else:
    raise SystemExit("sm_100a: see fa4_fwd_sm100.py")
