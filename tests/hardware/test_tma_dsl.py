"""The derived TMA descriptor (hardware.tma_copy.from_copy, the box of hardware.tma_box) against CuTe DSL's
``cute.nvgpu.cpasync.make_tiled_tma_atom`` traced on the CPU (CUTE_DSL_DRYRUN=1, one @cute.jit for all cases,
in a subprocess as tests/oracles/dsl_oracle.py does).

What the DSL shows without a GPU: the smem layout ``tile_to_shape`` makes of its own GMMA atoms
(``warpgroup.make_smem_layout_atom``), and the atom's type ``non_exec_tiled_tma_load<..., copy_bits = N,
tma_gbasis = "(box...):(1@mode...)">``: the box extents in TMA order with the gmem mode each walks, and the
bits one TMA copy moves. Compared here for every case: the smem layout (cuteverify's element-level atom tiled
the same way), the box dimensions and their gmem modes, the bits per copy (after cuteverify merges box modes),
and the global strides in the DSL's order. Not comparable on the CPU: the swizzle mode and the encoded
descriptor (the DSL builds them when the kernel launches); the swizzle is checked against the atom kind's
name instead. The DSL traces a K-major gmem tensor with an MN-major smem atom without complaint (the driver
would refuse the descriptor: its innermost stride is not 1); cuteverify refutes it (``majorness``)."""
import json
import os
import subprocess

import pytest

import dsl_oracle

from cuteverify.algebra.tile import tile_to_shape
from cuteverify.core.notation.parse import parse
from cuteverify.hardware import load, resolve
from cuteverify.hardware.tma.box import smem_box
from cuteverify.hardware.tma.copy import from_copy

pytestmark = pytest.mark.skipif(not dsl_oracle.available(), reason="CuTe DSL not installed")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ATOMS = load([os.path.join(ROOT, "specs/smem_atoms.yaml")], shipped=False)
TYPES = {"bf16": ("BFloat16", 16), "f32": ("Float32", 32), "e4m3": ("Float8E4M3FN", 8)}
KINDS = ["K_INTER", "K_SW32", "K_SW64", "K_SW128", "MN_INTER", "MN_SW32", "MN_SW64", "MN_SW128"]
SWIZZLE = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}
GMEM = {"K": ((512, 512), (512, 1)), "MN": ((512, 512), (1, 512))}


def _cases():
    out = []
    for dt, (_, bits) in TYPES.items():
        e = 1024 // bits  # the widest atom extent (the SW128 swizzle row)
        for kind in KINDS:
            for tile in ((128, max(128, e)), (256, e)):
                for order in ((0, 1), (1, 0)):
                    out.append(dict(dtype=dt, kind=kind, tile=tile, order=order, gmem=kind.split("_")[0]))
    # majorness mismatch: MN-major smem atoms under K-major gmem
    out += [dict(dtype="bf16", kind=k, tile=(128, 128), order=(0, 1), gmem="K") for k in ("MN_SW128", "MN_INTER")]
    return out


CASES = _cases()

WORKER = r'''
import json, os, sys
import cutlass, cutlass.cute as cute
from cutlass.cute.nvgpu import cpasync, warpgroup
cases = json.loads(sys.stdin.read())
def one(c):
    dt = getattr(cutlass, c["cutlass_type"])
    ptr = cute.make_ptr(dt, 1 << 20, cute.AddressSpace.gmem, assumed_align=16)
    g = cute.make_tensor(ptr, cute.make_layout(tuple(c["gshape"]), stride=tuple(c["gstride"])))
    atom = warpgroup.make_smem_layout_atom(getattr(warpgroup.SmemLayoutAtomKind, c["kind"]), dt)
    s = cute.tile_to_shape(atom, tuple(c["tile"]), tuple(c["order"]))
    try:
        info = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileG2SOp(), g, s, tuple(c["tile"]))
        return {"smem": str(s), "type": str(info[0]._trait.value.type)}
    except Exception as e:
        return {"smem": str(s), "error": f"{type(e).__name__}: {e}"[:300]}
@cute.jit
def run():
    out = [one(c) for c in cases]
    print("RESULT " + json.dumps(out))
run()
'''


@pytest.fixture(scope="module")
def dsl(tmp_path_factory):
    script = tmp_path_factory.mktemp("tma_dsl") / "worker.py"  # the DSL compiles from a source file only
    script.write_text(WORKER)
    payload = [dict(c, cutlass_type=TYPES[c["dtype"]][0], gshape=GMEM[c["gmem"]][0], gstride=GMEM[c["gmem"]][1])
               for c in CASES]
    env = dsl_oracle._worker_env()
    r = subprocess.run([dsl_oracle._python(), str(script)], input=json.dumps(payload), capture_output=True,
                       text=True, env=env, timeout=600, check=False)
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, r.stderr[-3000:]
    res = json.loads(line[len("RESULT "):])
    assert len(res) == len(CASES)
    return res


def _gbasis(t):
    """``[(extent, gmem mode), ...]`` of ``tma_gbasis = <"(64,8):(1@1,1@0)">`` and ``copy_bits``."""
    body = t.split('tma_gbasis = <"', 1)[1].split('">', 1)[0]
    shape, stride = body.split(":")
    ext = [int(x) for x in shape.strip("()").split(",")]
    modes = [int(x.split("@")[1]) for x in stride.strip("()").split(",")]
    assert all(x.split("@")[0] == "1" for x in stride.strip("()").split(","))
    bits = int(t.split("copy_bits = ", 1)[1].split(",", 1)[0])
    return list(zip(ext, modes)), bits


def _cv_smem(c):
    major, sw = c["kind"].split("_")
    atom = parse(resolve(f"GMMA_{major}_{sw}", dtype=c["dtype"], library=ATOMS)[0].data["layout"])
    return tile_to_shape(atom, c["tile"], c["order"])


def _byte_swizzle_text(cv_smem, bits):
    """cuteverify's element swizzle S<B,M,S> written as the DSL writes its atoms: S<B, M + log2(bytes), S>."""
    sw = cv_smem.inner
    return f"S<{sw.bits},{sw.base + (bits // 8).bit_length() - 1},{sw.shift}> o 0 o {cv_smem.outer}"


@pytest.mark.parametrize("i", range(len(CASES)), ids=lambda i: "{dtype}-{kind}-{tile}-{order}-{gmem}".format(**CASES[i]))
def test_derived_box_matches_the_dsl(dsl, i):
    c, d = CASES[i], dsl[i]
    bits = TYPES[c["dtype"]][1]
    smem = _cv_smem(c)
    # the same smem layout (the DSL's atoms carry the byte swizzle; cuteverify's count elements)
    assert _byte_swizzle_text(smem, bits) == d["smem"]
    assert "error" not in d, d
    dims, copy_bits = _gbasis(d["type"])
    box = smem_box(smem)
    assert [(e, m) for m, e in box.dims] == dims, (box, dims)
    gshape, gstride = GMEM[c["gmem"]]
    gtext = f"({gshape[0]},{gshape[1]}):({gstride[0]},{gstride[1]})"
    desc, v = from_copy(gtext, smem, c["dtype"])
    if c["gmem"] != c["kind"].split("_")[0]:
        assert v.rule("majorness").refuted
        return
    assert v.proved, v
    prod = 1
    for b in desc.box:
        prod *= b
    assert prod * bits == copy_bits
    # strides of the TMA dimensions in the DSL's order, and the swizzle the atom's name says
    order = [m for _, m in dims] + [m for m in range(2) if m not in {m for _, m in dims}]
    merged = len(desc.box) < len(order)
    if not merged:
        assert desc.stride == tuple(gstride[m] for m in order)
    assert desc.swizzle == SWIZZLE[c["kind"].split("_")[1]]
    assert v.rule("box_lands").proved
