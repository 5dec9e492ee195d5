"""Reading TTGIR layout attributes (cuteverify.triton.attrs), tensor types and modules (cuteverify.triton.ttgir)."""
from __future__ import annotations

import pytest

from cuteverify.errors import ParseError, UnsupportedAttribute, exit_code
from cuteverify.triton.attrs import (
    Blocked,
    CtaLayout,
    DotOperand,
    LinearAttr,
    NvidiaMma,
    NvmmaShared,
    SwizzledShared,
    parse_attr,
)
from cuteverify.core.notation.tiles import read_extents
from cuteverify.triton.ttgir import parse_module, parse_tensor_type

GOOD = [
    ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
     Blocked((1, 4), (8, 4), (4, 1), (1, 0), CtaLayout.default(2))),
    (("#triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], "
     "CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>"),
     Blocked((1, 4), (8, 4), (4, 1), (1, 0), CtaLayout((2, 1), (2, 1), (1, 0)))),
    ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
     NvidiaMma(3, 0, (4, 1), (16, 64, 16), CtaLayout.default(2))),
    ("#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [4, 1]}>",   # test/TritonGPU prints v2 without instrShape
     NvidiaMma(2, 0, (4, 1), (16, 8), CtaLayout.default(2))),
    ("#triton_gpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>",
     NvidiaMma(2, 0, (2, 2), (16, 8), CtaLayout.default(2))),
    ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
     NvmmaShared(128, False, 16, False, CtaLayout.default(2))),
    ("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
     SwizzledShared(8, 1, 8, (1, 0), CtaLayout.default(2))),
    ("#triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = false}>",
     SwizzledShared(8, 1, 8, (1, 0), CtaLayout.default(2))),
    ("#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2]], warp = [], block = []}>",
     LinearAttr((("register", ((0, 1), (8, 0))), ("lane", ((0, 2),)), ("warp", ()), ("block", ())))),
]


@pytest.mark.parametrize("text,want", GOOD)
def test_reads_and_prints_back(text, want):
    got = parse_attr(text)
    assert got == want
    assert parse_attr(got.text()) == got  # the printed form reads back to the same record


def test_dot_op_parent_inline_or_by_alias():
    mma = parse_attr("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>")
    inline = parse_attr(f"#ttg.dot_op<{{opIdx = 1, parent = {mma.text()}, kWidth=4}}>")
    alias = parse_attr("#ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>", aliases={"mma": mma})
    assert inline == alias == DotOperand(1, mma, 4)


MODULE = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dotA = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32} {
  tt.func @k(%a: tensor<128x64xf16, #blocked>) -> tensor<64x64xf32, #mma> {
    %0 = ttg.local_alloc %a : (tensor<128x64xf16, #blocked>) -> !ttg.memdesc<128x64xf16, #shared, #smem>
    %1 = ttg.local_load %0 : !ttg.memdesc<128x64xf16, #shared, #smem> -> tensor<128x64xf16, #dotA>
    %2 = ttng.tmem_load %t : !ttg.memdesc<128x256xf32, #tmem, #ttng.tensor_memory> -> tensor<128x256xf32, #blocked>
  }
}
"""


def test_module_aliases_and_tensor_types():
    m = parse_module(MODULE, "k.ttgir")
    assert m.names() == ["blocked", "mma", "dotA", "shared", "smem", "tmem"]
    assert m.attr("#dotA").parent == m.attr("mma")
    got = [(t.line, t.kind, t.shape, t.dtype, t.layout.kind) for t in m.tensors]
    assert got == [(8, "tensor", (128, 64), "f16", "blocked"), (8, "tensor", (64, 64), "f32", "nvidia_mma"),
                   (9, "tensor", (128, 64), "f16", "blocked"), (9, "memdesc", (128, 64), "f16", "swizzled_shared"),
                   (10, "memdesc", (128, 64), "f16", "swizzled_shared"), (10, "tensor", (128, 64), "f16", "dot_op"),
                   (11, "tensor", (128, 256), "f32", "blocked")]
    # the tmem memdesc is skipped with its reason (an attribute of another dialect), not an error
    assert [(no, "#ttng.tensor_memory_encoding" in why) for no, _, why in m.skipped] == [(11, True)]
    with pytest.raises(UnsupportedAttribute, match="tensor_memory_encoding"):
        m.attr("tmem")
    with pytest.raises(ParseError, match="an alias the module defines"):
        m.attr("nosuch")


def test_tensor_type_alone():
    t = parse_tensor_type("tensor<64x16xbf16, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], "
                          "warpsPerCTA = [1, 4], order = [0, 1]}>>")
    assert (t.shape, t.dtype, t.layout.order) == ((64, 16), "bf16", (0, 1))
    with pytest.raises(ParseError) as e:
        parse_tensor_type("tensor<64x?xf16, #blocked>", aliases={})
    assert e.value.column == 11
    with pytest.raises(ParseError) as e:
        parse_tensor_type("tensor<64x16xf16> trailing")
    assert e.value.column == 19


def test_shapes():
    # a tensor shape's text is read by the one extents reader (core.notation.tiles.read_extents)
    assert read_extents("128x64") == (128, 64) == read_extents("[128, 64]") == read_extents("128,64")
    for bad, col in (("128x0", 5), ("128xx", 5), ("12a", 2)):
        with pytest.raises(ParseError) as e:
            read_extents(bad)
        assert e.value.column == col, bad


BAD = [
    # (text, column of the error, words of what was expected)
    ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 1]}>", 94,
     "permutation"),
    ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4], order = [1, 0]}>", 78,
     "2 entries"),
    ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]}>", 84, "the field order"),
    ("#ttg.blocked<{sizePerThread = [1, 4], order = [1, 0], colour = 3}>", 55, "one of the fields"),
    ("#ttg.blocked<{sizePerThread = [1, 4]", 37, "closing '}'"),
    ("#ttg.blocked<{sizePerThread = [1, 0], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>", 35,
     ">= 1"),
    ("#ttg.blocked<{sizePerThread = [1, x]}>", 35, "an integer"),
    ("#ttg.blocked<{sizePerThread = [1, 4], sizePerThread = [1, 4]}>", 39, "each field once"),
    ("#ttg.nvidia_mma<{versionMajor = 3, warpsPerCTA = [4, 1]}>", 56, "instrShape"),
    ("#ttg.nvidia_mma<{versionMajor = 4, warpsPerCTA = [4, 1]}>", 33, "versionMajor in"),
    ("#ttg.dot_op<{opIdx = 2, parent = #ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [4, 1]}>}>", 22, "opIdx in"),
    ("#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>", 34, "a defined alias"),
    ("#ttg.nvmma_shared<{swizzlingByteWidth = 96, transposed = false, elementBitWidth = 16}>", 41,
     "swizzlingByteWidth in"),
    ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = 0, elementBitWidth = 16}>", 59, "true or false"),
    ("#ttg.linear<{register = [[0, 1], [8]], lane = [], warp = [], block = []}>", 34, "2 entries"),
    ("ttg.blocked<{}>", 1, "a layout attribute"),
    ("#ttg.blocked<{order = [0]}> x", 29, "the end of the attribute"),
]


@pytest.mark.parametrize("text,col,words", BAD)
def test_bad_text_names_the_column(text, col, words):
    with pytest.raises(ParseError) as e:
        parse_attr(text)
    assert e.value.column == col, str(e.value)
    assert words in e.value.expected
    assert f"column {col}" in str(e.value) and exit_code(e.value) == 2


@pytest.mark.parametrize("name", ["amd_mfma", "amd_wmma", "slice", "shared_linear", "padded_shared"])
def test_unsupported_attributes_are_refused_by_name(name):
    with pytest.raises(UnsupportedAttribute) as e:
        parse_attr(f"#ttg.{name}<{{versionMajor = 2}}>")
    assert e.value.name == f"ttg.{name}" and f"#ttg.{name}" in str(e.value) and exit_code(e.value) == 2


def test_leading_offset_shared_is_refused_with_the_reason():
    with pytest.raises(UnsupportedAttribute, match="nvmma_shared"):
        parse_attr("#triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>")


def test_alias_cycle_is_an_error():
    m = parse_module("#a = #ttg.dot_op<{opIdx = 0, parent = #b, kWidth = 2}>\n"
                     "#b = #ttg.dot_op<{opIdx = 0, parent = #a, kWidth = 2}>\n")
    with pytest.raises(ParseError, match="refer to itself"):
        m.attr("a")


def test_hostile_nesting_and_sizes_are_input_errors():
    deep = "#ttg.dot_op<{opIdx = 0, parent = " * 40 + "#x" + ", kWidth = 2}>" * 40
    with pytest.raises(ParseError, match="nested"):
        parse_attr(deep)
    with pytest.raises(ParseError, match="nested"):
        parse_attr("#ttg.linear<{register = " + "[" * 40 + "]" * 40 + "}>")
    with pytest.raises(ParseError, match="at most"):
        parse_attr("#ttg.swizzled_shared<{vec = 99999999999999999999, perPhase = 1, maxPhase = 1, order = [0]}>")
    with pytest.raises(ParseError):
        parse_attr("#ttg.blocked<{sizePerThread = [1, 4]]]], order = [0]}>")
    for junk in ("", "#", "#ttg.blocked", "#ttg.blocked<", "#ttg.blocked<>", "#ttg.blocked<{}", "#ttg.blocked<{,}>",
                 "#ttg.blocked<{a}>", "#ttg.blocked<{a = }>", "#ttg.blocked<{= 1}>", "\x00", 42):
        with pytest.raises(ParseError):
            parse_attr(junk)
