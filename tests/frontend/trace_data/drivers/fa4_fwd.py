"""FlashAttention-4 forward, traced on the CPU. Run with /work/research28/venv/bin/python (FA4 venv),
CUTE_DSL_ARCH picks the class (sm_80 -> Sm80, sm_90a -> Sm90, sm_100a -> Sm100)."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "stubs"))
import torchstub; torchstub.install()
from capture_common import *
arch = os.environ["CUTE_DSL_ARCH"]
F16, F32 = cutlass.Float16, cutlass.Float32
b, sq, sk, h = sym(), sym(), sym(), sym()
d = 128
# (batch, seqlen, nheads, headdim), headdim contiguous, then heads, seqlen, batch (torch-contiguous)
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
    compile_with_hook(fa, mQ, mK, mV, mO, mLSE, scale, stream=make_fake_stream())
elif arch == "sm_90a":
    from flash_attn.cute.flash_fwd_sm90 import FlashAttentionForwardSm90
    from flash_attn.cute.config import Sm90Registers
    fa = FlashAttentionForwardSm90(F16, d, d, 1, is_causal=True, pack_gqa=False, tile_m=128, tile_n=128,
                                   num_stages=2, Q_in_regs=False, intra_wg_overlap=True, mma_pv_is_rs=True,
                                   registers=Sm90Registers(mma=240, producer=24))
    compile_with_hook(fa, mQ, mK, mV, mO, mLSE, scale, stream=make_fake_stream())
else:
    raise SystemExit("sm_100a: see fa4_fwd_sm100.py")
