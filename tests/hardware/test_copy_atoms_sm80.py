"""cp.async and UniversalCopy atoms in the spec library (specs/sm80_copy.yaml) as CUTLASS names them, their
element-level views by dtype (Copy_Atom<Op, T>), and agrees(..., dtype=) reading element-level TV layouts of
copy atoms by recasting the bit layout (issue 15)."""
from pathlib import Path

import pytest

import cuteverify as cv
from cuteverify.atoms import covers, make_copy_atom, make_tiled_copy_tv
from cuteverify.errors import UnknownSpec
from cuteverify.hardware import specs as S

SPEC = Path(__file__).parents[2] / "specs" / "sm80_copy.yaml"
CP16 = "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"


@pytest.mark.parametrize("name,bits", [(CP16, 128), ("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", 128),
                                       ("SM80_CP_ASYNC_CACHEALWAYS<uint64_t>", 64),
                                       ("SM80_CP_ASYNC_CACHEALWAYS<uint32_t>", 32),
                                       ("UniversalCopy<uint128_t>", 128), ("UniversalCopy<uint16_t>", 16)])
def test_specs_load_and_prove(name, bits):
    spec = S.load([SPEC])[name]
    assert spec.kind == "copy" and spec.threads == 1
    for side in ("src", "dst"):
        assert str(spec.layout(side)) == f"(1,{bits}):(0,1)"              # CUTLASS (1, sizeof_bits<S>)
    assert cv.agrees(f"(1,{bits}):(0,1)", name, "src").proved


def test_cacheglobal_is_16_bytes_only():
    lib = S.load([SPEC])
    assert [n for n in lib if n.startswith("SM80_CP_ASYNC_CACHEGLOBAL")] == [CP16]
    with pytest.raises(UnknownSpec):
        make_copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint64_t>", "f16")


def test_corrupt_spec_is_refused(tmp_path):
    # a bit layout that skips every other bit disagrees with the formula "bit i is column i"
    text = SPEC.read_text().replace('layout: "(1,64):(0,1)"', 'layout: "(1,64):(0,2)"', 1)
    p = tmp_path / "sm80_copy.yaml"
    p.write_text(text)
    with pytest.raises(S.SpecError) as ei:
        S.load([p])
    assert ei.value.spec == "SM80_CP_ASYNC_CACHEALWAYS<uint64_t>" and ei.value.kind == "refuted"


@pytest.mark.parametrize("name,dtype,layout", [(CP16, "f16", "(1,8):(0,1)"), (CP16, "f32", "(1,4):(0,1)"),
                                               ("SM80_CP_ASYNC_CACHEALWAYS<uint64_t>", "bf16", "(1,4):(0,1)"),
                                               ("SM80_CP_ASYNC_CACHEALWAYS<uint32_t>", "f32", "(1,1):(0,1)")])
def test_element_views_by_dtype(name, dtype, layout):
    a = make_copy_atom(name, dtype)
    assert str(a.layout_src_tv) == str(a.layout_dst_tv) == layout
    assert cv.agrees(a.layout_src_tv, name, "src", dtype=dtype).proved


def test_tiled_cp_async_covers_its_tile():
    # 128 threads x 8 halves: a 16x64 f16 tile read as 16-byte vectors, 8 threads per row
    tc = make_tiled_copy_tv(CP16, cv.Layout((16, 8), (8, 1)), cv.Layout((1, 8)), "f16")
    assert tuple(cv.size(t) for t in tc.tiler_mn) == (16, 64)
    assert covers(tc.layout_src_tv_tiled, 16 * 64).proved


def test_agrees_dtype_reads_element_layouts():
    ldsm = make_copy_atom("SM75_U32x4_LDSM_N", "f16")
    assert str(ldsm.layout_dst_tv) == "(32,(2,4)):(2,(1,64))"
    assert cv.agrees(ldsm.layout_dst_tv, "SM75_U32x4_LDSM_N", "dst", dtype="f16").proved
    assert cv.agrees(ldsm.layout_src_tv, "SM75_U32x4_LDSM_N", "src", dtype="f16").proved
    stsm = make_copy_atom("SM90_U32x4_STSM_N", "bf16")
    assert cv.agrees(stsm.layout_src_tv, "SM90_U32x4_STSM_N", "src", dtype="bf16").proved
    # the bit layout with dtype= is still read as bits
    assert cv.agrees("(32,(32,4)):(32,(1,1024))", "SM75_U32x4_LDSM_N", "dst", dtype="f16").proved


def test_agrees_dtype_broken_element_layouts():
    # the two halves of each register in the wrong direction: value 1 leaves the tile
    v = cv.agrees("(32,(2,4)):(2,(-1,64))", "SM75_U32x4_LDSM_N", "dst", dtype="f16")
    c = v.counterexample
    assert v.status == "refuted" and (c.thread, c.value, c.hardware) == (0, 1, (0, 1)) and c.user is None
    # registers in the wrong order (matrix stride 128 elements, not 64): thread 0, value 2
    v = cv.agrees("(32,(2,4)):(2,(1,128))", "SM75_U32x4_LDSM_N", "dst", dtype="f16")
    c = v.counterexample
    assert v.status == "refuted" and (c.thread, c.value) == (0, 2)
    assert (c.user_index, c.hardware_index) == (128, 64) and c.user == (16, 0) and c.hardware == (8, 0)
    assert "thread 0, value 2" in str(v)
    # cp.async: 8 halves strided by 2 elements
    c = cv.agrees("(1,8):(0,2)", CP16, "src", dtype="f16").counterexample
    assert (c.thread, c.value, c.user_index, c.hardware_index) == (0, 1, 2, 1)
    # a value count that is neither bits nor elements of the dtype
    # (the spec library refutes with a mismatch; the API, like the CLI, calls that an input error)
    with pytest.raises(cv.CuteVerifyError, match="128 bits per thread = 8 f16 values") as e:
        cv.agrees("(1,4):(0,1)", CP16, "src", dtype="f16")
    assert e.value.kind == "input"
