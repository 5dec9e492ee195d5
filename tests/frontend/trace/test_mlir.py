"""The capture reader (cuteverify.frontend.trace.mlir / types) on the committed CuTe DSL 4.8.1 captures."""
from pathlib import Path

import pytest

from cuteverify.errors import CaptureError
from cuteverify.frontend.trace.mlir import Bare, KeyVal, read, read_file
from cuteverify.frontend.trace.types import memref

DATA = Path(__file__).resolve().parents[1] / "trace_data"
CAPTURES = sorted(DATA.glob("*.mlir.gz"))


def _layout_value(shape, stride, coord):
    """Independent evaluator: a flat integer layout at a flat coordinate (colexicographic)."""
    out = 0
    for s, d in zip(shape, stride):
        out += (coord % s) * d
        coord //= s
    return out


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name.split(".")[0])
def test_every_op_has_types_and_location(path):
    m = read_file(path)
    assert len(m.ops) > 500
    cute_ops = [op for op in m.ops if op.name.startswith("cute")]
    assert cute_ops and all(op.loc.line for op in cute_ops)
    # every operand of a cute op has a known type: the reader found its producer or block argument
    missing = [(op.line, v) for op in cute_ops for v in op.operands if m.type_of(v, op.func) is None]
    assert not missing, missing[:5]
    # operand types printed in the signature are the defining types (aliases resolved the same way)
    for op in cute_ops[:400]:
        for v, t in zip(op.operands, op.in_types):
            assert m.type_of(v, op.func).text == t.text


def test_partition_op_fields():
    m = read_file(DATA / "ampere_tensorop_gemm_sm_80.mlir.gz")
    ops = [op for op in m.of("cute.tiled.copy.partition_S") if op.loc.text and "tAgA" in op.loc.text]
    assert ops
    op = ops[0]
    assert op.loc.file.endswith("ampere_tensorop_gemm.py") and op.loc.line == 465
    copy, src = op.in_types[0], memref(op.in_types[1])
    assert copy.name == "cute.tiled_copy"
    atom = copy.args[0]
    assert atom.name == "cute_nvgpu.atom.simt_async_copy" and Bare("f16") in atom.args
    assert copy.get("layout_copy_tv") == "((4,32),8):((256,1),32)" and copy.get("tiler_mn") == "[32:1;32:1]"
    assert src.space == "gmem" and src.elem == "f16" and src.align == 16
    assert m.producer(op.operands[1], op.func) is not None


def test_tma_atom_keyvals_printed_without_comma():
    m = read_file(DATA / "hopper_dense_gemm_sm_90a.mlir.gz")
    t = next(t for op in m.ops for t in op.in_types if t.name == "cute_nvgpu.atom.tma_load")
    assert t.get("g_stride") == "()" and t.get("tma_gbasis") == "(64,128,1):(1@1,1@0,1@2)"
    assert all(isinstance(a, KeyVal) for a in t.args[1:])


def test_element_layout_of_byte_swizzled_tensor():
    """S<3,4,3> on the byte addresses of f16 elements is S<3,3,3> on element offsets: check
    2*element_layout(c) == Sw_bytes(2*L(c)) at every coordinate with a hand-written swizzle."""
    text = '!cute.memref<f16, smem, align<1024>, S<3,4,3>, "(8,64):(64,1)">'
    mr = memref(read("%0 = \"x.y\"() : () -> " + text + " loc(unknown)").ops[0].out_types[0])
    el = mr.element_layout()
    assert str(el).startswith("S<3,3,3>")

    def sw_bytes(a):  # S<3,4,3>: bits [7,10) xor into bits [4,7)
        return a ^ ((a >> 3) & (0b111 << 4))
    for c in range(8 * 64):
        assert 2 * el(c) == sw_bytes(2 * _layout_value((8, 64), (64, 1), c))


def test_bad_lines_are_parse_errors_with_line():
    with pytest.raises(CaptureError, match=r"<capture>:2"):
        read('"builtin.module"() ({\nthis is not mlir\n}) : () -> () loc(unknown)')
    with pytest.raises(CaptureError, match="never closed"):
        read('"builtin.module"() ({')
