"""FlashAttention-4 forward for sm_100a (FlashAttentionForwardSm100), config from FA4's own heuristic."""
import os, sys
import cutlass
from cutlass import cute
from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream

# this venv has the DSL and FA4/QuACK but not cuteverify: fakes written with the DSL's own calls
def sym():
    return cute.sym_int32(divisibility=8)

def fake(dtype, shape, stride_order, align=16):
    return make_fake_compact_tensor(dtype, shape, stride_order=stride_order, assumed_align=align)

from flash_attn.cute.config import FwdHeuristicInputs, select_fwd_config
from flash_attn.cute.flash_fwd_sm100 import FlashAttentionForwardSm100
from flash_attn.cute.interface import fwd_codegen_config
F16, F32 = cutlass.Float16, cutlass.Float32
d = 128
inputs = FwdHeuristicInputs(device_arch=100, num_sms=148, dtype="torch.float16", head_dim=d, head_dim_v=d,
                            num_heads=16, num_heads_kv=16, batch_size=4, total_q=4 * 4096, total_k=4 * 4096,
                            max_seqlen_q=4096, max_seqlen_k=4096, causal=True, has_lse=True, pack_gqa=False)
config = select_fwd_config(inputs)
print("[fa4] config:", config, file=sys.stderr)
try:
    config = fwd_codegen_config(config)
except Exception as e:
    print("[fa4] fwd_codegen_config failed:", e, file=sys.stderr)
b, sq, sk, h = sym(), sym(), sym(), sym()
mQ = fake(F16, (b, sq, h, d), (3, 1, 2, 0))
mK = fake(F16, (b, sk, h, d), (3, 1, 2, 0))
mV = fake(F16, (b, sk, h, d), (3, 1, 2, 0))
mO = fake(F16, (b, sq, h, d), (3, 1, 2, 0))
mLSE = fake(F32, (b, h, sq), (2, 1, 0), align=4)
fa = FlashAttentionForwardSm100(d, d, 1, is_causal=True, config=config)
cute.compile(fa, mQ, mK, mV, mO, mLSE, F32(0.08838834764831845), stream=make_fake_stream())
