"""Shared helpers for capture drivers: the trace-finalize hook and fake args."""
import os, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernels"))

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream

OUT = os.environ.get("CAPTURE_OUT", "/tmp/capture.mlir")
_count = [0]

def hook(owner, module, function_name):
    t0 = time.time()
    op = module.operation
    txt = op.get_asm(enable_debug_info=True, print_generic_op_form=True)
    path = OUT if _count[0] == 0 else OUT.replace(".mlir", f".{_count[0]}.mlir")
    _count[0] += 1
    with open(path, "w") as f:
        f.write(txt)
    print(f"[hook] {function_name} -> {path}: {len(txt)} chars, print {time.time()-t0:.3f}s",
          file=sys.stderr)

def sym():
    return cute.sym_int32(divisibility=8)

def fake(dtype, shape, stride_order, align=16):
    return make_fake_compact_tensor(dtype, shape, stride_order=stride_order, assumed_align=align)

def compile_with_hook(*args, **kw):
    t0 = time.time()
    r = cute.compile(*args, trace_finalize_hooks=hook, **kw)
    print(f"[driver] cute.compile returned in {time.time()-t0:.2f}s", file=sys.stderr)
    return r
