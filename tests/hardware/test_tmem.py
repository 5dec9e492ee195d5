"""TMEM (cuteverify/hardware/descriptors/tmem.py): the accumulator data paths A..G equal CUTLASS's ``UMMA::tmem_frg``
layouts (compiled with g++) and the PTX placement (enumeration of every coordinate), a kernel's accumulator
layout and tcgen05.ld partition are checked against both (the SM100 tutorial's epilogue), a wrong stride is
refuted with the lane and column, the warp-to-subpartition rule, the tcgen05.alloc rules, and the element
views of TMEM copies equal CUTLASS's ``Copy_Atom<Op, T>``."""
from __future__ import annotations

import re

import pytest
from sm100_oracle import run_lines

from cuteverify.core.notation.parse import parse
from cuteverify.errors import SpecError
from cuteverify.hardware import agrees
from cuteverify.hardware.descriptors import tmem
from cuteverify.hardware.library.intlayout import int_layout
from cuteverify.hardware.checks.rules import check_rules
from cuteverify.symbolic import symbol
from cuteverify.symbolic.assumptions import Assumptions

TUTORIAL_ACC = "((128,256),1,1):((65536,1),0,0)"  # 01_mma_sm100.cu: tCtAcc for SM100_MMA_F16BF16_SS 128x256


def _cute(text: str) -> str:
    return re.sub(r"_(\d+)", r"\1", text.strip())


def _values(text):
    return int_layout(parse(text), "layout").values()


def test_datapath_names_follow_the_instruction():
    assert [tmem.datapath(256, 2), tmem.datapath(128, 2), tmem.datapath(128, 2, sparse=True),
            tmem.datapath(128, 1), tmem.datapath(64, 1, ws=True), tmem.datapath(64, 1),
            tmem.datapath(32, 1, ws=True)] == list("ABCDEFG")
    for bad in ((64, 2), (256, 1), (32, 1), (96, 1)):
        with pytest.raises(SpecError):
            tmem.datapath(*bad)


def test_cutlass_atoms_equal_the_ptx_placement_for_every_n():
    for name in tmem.DATAPATHS:
        step = {"B": 16, "E": 16, "G": 32}.get(name, 8)
        for N in range(step, 257, step):
            v = tmem.check_datapath(name, N)
            assert v.proved, str(v)


# (N_SM, M per CTA, N, C++ value type, data path)
FRG_CASES = [(1, 128, 256, "float", "D"), (1, 128, 64, "float", "D"), (1, 64, 64, "float", "F"),
             (1, 64, 128, "float", "F"), (2, 64, 128, "float", "B"), (2, 64, 256, "float", "B"),
             (2, 128, 128, "float", "A"), (2, 32, 128, "float", "G"), (1, 128, 64, "half_t", "D"),
             (2, 64, 64, "half_t", "B"), (1, 64, 32, "int32_t", "F")]
ELEMENT_CASES = [("SM100_TMEM_LOAD_32dp32b1x", "float", "f32"), ("SM100_TMEM_LOAD_32dp32b4x", "half_t", "f16"),
                 ("SM100_TMEM_LOAD_16dp256b1x", "half_t", "f16"), ("SM100_TMEM_LOAD_16dp256b2x", "float", "f32"),
                 ("SM100_TMEM_LOAD_16dp128b2x", "uint8_t", "u8"), ("SM100_TMEM_LOAD_16dp64b8x", "half_t", "f16"),
                 ("SM100_TMEM_LOAD_16dp32b4x", "float", "f32"), ("SM100_TMEM_STORE_32dp32b2x", "half_t", "f16"),
                 ("SM100_TMEM_STORE_16dp256b1x_16b", "half_t", "f16"), ("SM100_TMEM_LOAD_32dp32b8x_16b", "half_t", "f16")]


@pytest.fixture(scope="module")
def cpp(tmp_path_factory):
    """What CUTLASS prints, one program for the module: the tmem_frg layouts, then each Copy_Atom's
    ValLayoutSrc and ValLayoutDst."""
    stmts = [f"  print(UMMA::tmem_frg_{n}sm<{t}>::make(make_shape(make_shape(Int<{m}>{{}},Int<{N}>{{}}),_1{{}},"
             f"_1{{}})).layout()); printf(\"\\n\");" for n, m, N, t, _ in FRG_CASES]
    for op, t, _ in ELEMENT_CASES:
        stmts.append(f"  {{ using A = Copy_Atom<{op}, {t}>; print(typename A::ValLayoutSrc{{}}); printf(\"\\n\"); "
                     f"print(typename A::ValLayoutDst{{}}); printf(\"\\n\"); }}")
    lines = run_lines(tmp_path_factory.mktemp("tmem"), stmts, "tmem")
    assert len(lines) == len(FRG_CASES) + 2 * len(ELEMENT_CASES)
    return lines[:len(FRG_CASES)], lines[len(FRG_CASES):]


@pytest.mark.differential
def test_cutlass_tmem_frg_prints_the_atoms(cpp):
    for (n_sm, m, N, t, name), line in zip(FRG_CASES, cpp[0]):
        cpp_layout = _cute(line)
        dtype = {"float": "f32", "half_t": "f16", "int32_t": "s32"}[t]
        M = {"A": 256, "B": 128, "D": 128, "F": 64, "G": 32}[name]
        v = (tmem.check_accumulator(cpp_layout, M, N, n_sm, dtype=dtype) if name != "G"
             else tmem.check_datapath("G", N))
        assert v.proved, (cpp_layout, str(v))
        if t != "half_t":
            assert _values(cpp_layout) == _values(tmem.cutlass_atom(name, N)), (cpp_layout, name)


def test_one_stride_off_is_refuted_with_lane_and_column():
    v = tmem.check_accumulator("((128,256),1,1):((65536,2),0,0)", 128, 256)
    assert v.refuted and v.counterexample.detail["m"] == 0 and v.counterexample.detail["n"] == 1
    assert "lane 0, column 2" in str(v.counterexample) and "lane 0, column 1" in str(v.counterexample)
    # layout F read as if it were D (rows 16.. in lane 16..): refuted at D(16, 0), which lives in lane 32
    v = tmem.check_accumulator("(64,64):(65536,1)", 64, 64)
    assert v.refuted and v.counterexample.detail["hardware"] == (32, 0) and v.counterexample.detail["m"] == 16
    # layout B without the fold: refuted at the first column of the second half
    v = tmem.check_accumulator("(64,128):(65536,1)", 128, 128, 2)
    assert v.refuted and v.counterexample.detail["n"] == 64 and v.counterexample.detail["hardware"] == (64, 0)
    v = tmem.check_accumulator("(128,64):(65536,1)", 128, 128)
    assert v.refuted and v.counterexample.kind == "mismatch"


def test_tutorial_epilogue_agrees_and_wrong_partitions_are_refuted():
    # 128 threads, SM100_TMEM_LOAD_32dp32b1x over the 128x256 accumulator: thread t reads row t, value v column v
    tv = "(128,256):(1,128)"
    assert tmem.check_epilogue(TUTORIAL_ACC, tv, 128, 256).proved
    assert tmem.check_epilogue(TUTORIAL_ACC, tv, 128, 256, R=8).proved
    v = tmem.check_epilogue(TUTORIAL_ACC, "(128,256):(128,1)", 128, 256)  # thread and value swapped
    assert v.refuted and (v.counterexample.detail["thread"], v.counterexample.detail["value"]) == (0, 1)
    assert "cannot reach" not in str(v.counterexample)
    # a warp asked for rows of another sub-partition: the warp rule is named
    v = tmem.check_epilogue(TUTORIAL_ACC, "((32,4),256):((1,64),128)", 128, 256)
    assert v.refuted and "a lane warp 1 cannot reach (it reaches lanes 32..63)" in str(v.counterexample)
    # a wrong accumulator is reported before the partition
    v = tmem.check_epilogue("(128,256):(65536,2)", tv, 128, 256)
    assert v.refuted and "column 2" in str(v.counterexample)


def test_two_cta_and_half_datapath_epilogues():
    # layout B (M=128, cta_group::2, N=256): warps 0-1 read columns 0..127, warps 2-3 columns 128..255
    acc_b = tmem.cutlass_atom("B", 256)
    assert tmem.check_epilogue(acc_b, "((64,2),128):((1,8192),64)", 128, 256, 2).proved
    v = tmem.check_epilogue(acc_b, "(128,128):(1,64)", 128, 256, 2)
    assert v.refuted and v.counterexample.detail["thread"] == 64
    # layout A (M=256, cta_group::2): each CTA holds 128 rows, read like layout D
    assert tmem.check_epilogue(tmem.cutlass_atom("A", 128), "(128,128):(1,128)", 256, 128, 2).proved
    # layout F (M=64) with tcgen05.ld.16x256b: warp w reads rows 16w.., thread l: row l//4 (+8), columns 2*(l%4)(+1)
    tv_f = "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))"
    assert tmem.check_epilogue(tmem.cutlass_atom("F", 64), tv_f, 64, 64, shape="16x256b").proved
    v = tmem.check_epilogue(tmem.cutlass_atom("F", 64), "((4,8,4),(2,2,8)):((128,1,16),(8,64,512))", 64, 64,
                            shape="16x256b")
    assert v.refuted and v.counterexample.detail["value"] == 1
    with pytest.raises(SpecError):
        tmem.check_epilogue(TUTORIAL_ACC, "(160,256):(1,128)", 128, 256)


def test_warp_subpartition_rule():
    assert [tmem.warp_lanes(w).start for w in range(8)] == [0, 32, 64, 96, 0, 32, 64, 96]
    lane = symbol("L")
    ok = check_rules([tmem.warp_access_rule(5, lane, 16)], Assumptions(["L >= 32", "L <= 48"]), "ld")
    assert ok.proved
    bad = check_rules([tmem.warp_access_rule(5, lane, 16)], Assumptions(["L >= 32", "L <= 64"]), "ld")
    assert bad.refuted and bad.counterexample.assignment == {"L": 49}
    assert check_rules([tmem.warp_access_rule(2, 60)], None, "ld").refuted


def test_alloc_rules_proved_refuted_unknown():
    n = symbol("n")
    assert tmem.check_alloc(n, Assumptions(["n in {32,64,128,256,512}"])).proved
    v = tmem.check_alloc(n, Assumptions(["n % 32 == 0", "n >= 32", "n <= 512"]))
    assert v.refuted and v.rule("alloc_ncols_pow2").counterexample.assignment == {"n": 96}
    v = tmem.check_alloc(n, Assumptions(["pow2(n)", "n >= 32"]))
    assert v.refuted and v.rule("alloc_ncols_range").counterexample.assignment == {"n": 1024}
    # a bounded pow2 symbol is a finite set: enumerated, and the method says which values
    v = tmem.check_alloc(n, Assumptions(["pow2(n)", "n >= 32", "n <= 512"]))
    assert v.proved and "n in {32,64,128,256,512}" in v.method
    v = tmem.check_alloc(n, Assumptions(["pow2(n)", "16 <= n", "n <= 512"]))
    assert v.refuted and v.counterexample.assignment == {"n": 16}
    assert v.rule("alloc_ncols_range").refuted and v.rule("alloc_ncols_pow2").proved
    assert tmem.check_alloc(256, live=256).proved
    assert tmem.check_alloc(256, live=384).rule("alloc_capacity").refuted
    assert tmem.check_alloc(128, relinquished=True).rule("alloc_after_relinquish").refuted
    need = tmem.accumulator_columns(128, 256, 2)  # layout B folds N=256 into 128 columns
    assert need == 128 and tmem.check_alloc(128, needed=need).proved
    assert tmem.check_alloc(128, needed=tmem.accumulator_columns(128, 256)).rule("alloc_fits").refuted
    N = symbol("N")
    v = tmem.check_alloc(256, Assumptions(["N in {64,128,256,512}"]), needed=N)
    assert v.refuted and v.counterexample.assignment == {"N": 512}


@pytest.mark.differential
def test_element_views_equal_cutlass_copy_atom(cpp):
    lines = cpp[1]
    for k, (op, _, dt) in enumerate(ELEMENT_CASES):
        view = tmem.element_view(op, dt)
        for side, line in (("src", lines[2 * k]), ("dst", lines[2 * k + 1])):
            theirs = int_layout(parse(_cute(line)), "cpp")
            mine = int_layout(view[side], "mine")
            assert (mine.mode_size(0), mine.mode_size(1)) == (theirs.mode_size(0), theirs.mode_size(1)), (op, side)
            assert mine.tv_values() == theirs.tv_values(), (op, side, str(view[side]), line)


def test_element_views_agree_with_the_ptx_formulas():
    for op, _, dt in ELEMENT_CASES:
        view = tmem.element_view(op, dt)
        reg = "dst" if "LOAD" in op else "src"
        v = agrees(view[reg], op, reg, dtype=dt)
        assert v.proved, (op, str(v))
    # one stride off in the element view is refuted with the thread and value
    bad = "((4,8),(4,2)):((4,16),(1,64))"
    v = agrees(bad, "SM100_TMEM_LOAD_16dp256b1x", "dst", dtype="f16")
    assert v.refuted and v.counterexample.detail["value"] == 4
    with pytest.raises(SpecError):
        tmem.element_view("SM100_TMEM_LOAD_32dp32b1x", "f64")
    assert str(tmem.element_view("SM100_TMEM_LOAD_32dp32b2x", "f64")["dst"]) == "(32,1):(1,1)"


def test_accumulator_layouts_must_be_m_by_n_tiles():
    # the same addresses enumerated (n, m) instead of (m, n): a mismatch, not an accidental proof
    v = tmem.check_accumulator("(256,128):(1,65536)", 128, 256)
    assert v.refuted and v.counterexample.kind == "mismatch" and "256 x 128" in str(v.counterexample)
    v = tmem.check_accumulator("(32768):(1)", 128, 256)
    assert v.refuted and v.counterexample.kind == "mismatch"
    assert tmem.check_accumulator("(((16,4),64),1,1):(((65536,2097152),1),0,0)", 64, 64).proved
