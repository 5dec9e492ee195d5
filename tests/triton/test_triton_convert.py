"""TTGIR attributes -> linear layouts against Triton's own expectations.

The facts are the expected bases of triton-lang/triton's ``unittest/Dialect/TritonGPU/
LinearLayoutConversionsTest.cpp`` (each case names its TEST_F); the attribute is written as TTGIR text and
read by cuteverify.triton.attrs, so the reader is exercised too. A second, independent oracle: blocked layouts
enumerated from the attribute's definition (which thread holds which element) against the conversion.
"""
from __future__ import annotations

import itertools
import random

import pytest

from cuteverify.linear import from_linear_layout
from cuteverify.triton.attrs import parse_attr
from cuteverify.errors import TritonLayoutError
from cuteverify.triton.convert import to_linear


def blocked(spt, tpw, wpc, order, cpg=None, split=None, cord=None):
    s = (f"#ttg.blocked<{{sizePerThread = {list(spt)}, threadsPerWarp = {list(tpw)}, warpsPerCTA = {list(wpc)}, "
         f"order = {list(order)}")
    if cpg:
        s += f", CTAsPerCGA = {list(cpg)}, CTASplitNum = {list(split)}, CTAOrder = {list(cord)}"
    return s + "}>"


def mma(v, instr, warps, cpg=None, split=None, cord=None):
    cta = f", CTAsPerCGA = {list(cpg)}, CTASplitNum = {list(split)}, CTAOrder = {list(cord)}" if cpg else ""
    return (f"#ttg.nvidia_mma<{{versionMajor = {v}, versionMinor = 0, warpsPerCTA = {list(warps)}{cta}, "
            f"instrShape = {list(instr)}}}>")


def dot(parent, idx, kw):
    return f"#ttg.dot_op<{{opIdx = {idx}, parent = {parent}, kWidth = {kw}}}>"


def swz(vec, pp, mp, order):
    return f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {pp}, maxPhase = {mp}, order = {list(order)}}}>"


def nvmma(sw, tr, eb, fp4=False):
    return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {sw}, transposed = {str(tr).lower()}, elementBitWidth = {eb}"
            + (", fp4Padded = true" if fp4 else "") + "}>")


R, L, W, K = "register", "lane", "warp", "block"

# (Triton's TEST_F name, attribute, shape, expected bases)
FACTS = [
    ("SimpleBlocked", blocked([1], [4], [4], [0]), [16], {R: [], L: [[1], [2]], W: [[4], [8]], K: []}),
    ("CTADuplication", blocked([1], [4], [4], [0], [4], [2], [0]), [32],
     {R: [], L: [[1], [2]], W: [[4], [8]], K: [[16], [0]]}),
    ("CTABroadcast", blocked([8, 1], [8, 4], [1, 4], [0, 1], [1, 2], [1, 2], [1, 0]), [64, 128],
     {R: [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], L: [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]],
      W: [[0, 4], [0, 8]], K: [[0, 64]]}),
    ("ShapeLargerThanLayout", blocked([1], [4], [4], [0]), [128],
     {R: [[16], [32], [64]], L: [[1], [2]], W: [[4], [8]], K: []}),
    ("ShapeLargerThanLayout2DDegenerate", blocked([1, 1], [4, 1], [4, 1], [0, 1]), [128, 1],
     {R: [[16, 0], [32, 0], [64, 0]], L: [[1, 0], [2, 0]], W: [[4, 0], [8, 0]], K: []}),
    ("ShapeSmallerThanLayout", blocked([4], [4], [4], [0]), [8], {R: [[1], [2]], L: [[4], [0]], W: [[0], [0]], K: []}),
    ("ReversedOrder", blocked([1, 1], [32, 1], [1, 8], [0, 1]), [1, 64],
     {R: [[0, 8], [0, 16], [0, 32]], L: [[0, 0]] * 5, W: [[0, 1], [0, 2], [0, 4]], K: []}),
    ("ReplicateInRegisterDim", blocked([2], [4], [1], [0]), [32], {R: [[1], [8], [16]], L: [[2], [4]], W: [], K: []}),
    ("OneDimTooLargeAnotherTooSmall", blocked([1, 4], [8, 4], [4, 1], [1, 0], [2, 2], [2, 1], [1, 0]), [128, 16],
     {R: [[0, 1], [0, 2], [32, 0]], L: [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], W: [[8, 0], [16, 0]],
      K: [[0, 0], [64, 0]]}),
    ("RepeatInCTGDimFirst", blocked([1], [1], [4], [0], [2], [2], [0]), [4], {R: [], L: [], W: [[1], [0]], K: [[2]]}),
    ("SmallerThanCTALayout", blocked([1], [1], [1], [0], [4], [4], [0]), [2], {R: [], L: [], W: [], K: [[1], [0]]}),
    ("Skinny", blocked([8, 1], [8, 4], [1, 4], [0, 1], [1, 2], [1, 2], [0, 1]), [64, 1],
     {R: [[1, 0], [2, 0], [4, 0]], L: [[8, 0], [16, 0], [32, 0], [0, 0], [0, 0]], W: [[0, 0], [0, 0]], K: [[0, 0]]}),
    ("BlockedOrder", blocked([2, 2], [4, 8], [2, 2], [1, 0], [2, 2], [2, 2], [1, 0]), [1024, 128],
     {R: [[0, 1], [1, 0], [0, 32], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0]],
      L: [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]], W: [[0, 16], [8, 0]], K: [[0, 64], [512, 0]]}),
    ("Blocked4D", blocked([1, 1, 1, 4], [2, 1, 1, 16], [1, 2, 4, 1], [3, 0, 1, 2]), [2, 1, 1, 1],
     # Triton 3.9 drops the two registers that only repeat the one element along dim3 (older unit test: [0]*2)
     {R: [], L: [[0, 0, 0, 0]] * 4 + [[1, 0, 0, 0]], W: [[0, 0, 0, 0]] * 3, K: []}),
    ("BlockedDotOperandLhs", dot(blocked([2, 4], [8, 4], [2, 4], [1, 0]), 0, 0), [32, 16],
     {R: [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], L: [[0, 0], [0, 0], [2, 0], [4, 0], [8, 0]],
      W: [[0, 0], [0, 0], [16, 0]], K: []}),
    ("BlockedDotOperandRhs", dot(blocked([2, 4], [8, 4], [2, 4], [1, 0]), 1, 0), [16, 64],
     {R: [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0], [8, 0]], L: [[0, 4], [0, 8], [0, 0], [0, 0], [0, 0]],
      W: [[0, 16], [0, 32], [0, 0]], K: []}),
    ("BlockedDot3dOperandLhs", dot(blocked([2, 2, 4], [2, 4, 4], [2, 2, 2], [2, 1, 0]), 0, 0), [16, 32, 4],
     {R: [[0, 0, 1], [0, 0, 2], [0, 1, 0], [1, 0, 0], [0, 16, 0], [8, 0, 0]],
      L: [[0, 0, 0], [0, 0, 0], [0, 2, 0], [0, 4, 0], [2, 0, 0]], W: [[0, 0, 0], [0, 8, 0], [4, 0, 0]], K: []}),
    ("BlockedDot3dOperandRhs", dot(blocked([2, 2, 4], [2, 4, 4], [2, 2, 2], [2, 1, 0]), 1, 0), [16, 4, 64],
     {R: [[0, 0, 1], [0, 0, 2], [0, 1, 0], [0, 2, 0], [1, 0, 0], [0, 0, 32], [8, 0, 0]],
      L: [[0, 0, 4], [0, 0, 8], [0, 0, 0], [0, 0, 0], [2, 0, 0]], W: [[0, 0, 16], [0, 0, 0], [4, 0, 0]], K: []}),
    ("MMAv2_Cga", mma(2, [1, 16, 8], [16, 1, 1], [4, 2, 2], [4, 2, 1], [2, 1, 0]), [64, 128, 128],
     {R: [[0, 0, 1], [0, 8, 0], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 16, 0], [0, 32, 0]],
      L: [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]], W: [[1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0]],
      K: [[0, 0, 0], [0, 64, 0], [16, 0, 0], [32, 0, 0]]}),
    ("MMAv2_Small3D", mma(2, [1, 16, 8], [16, 1, 1], [4, 2, 2], [4, 2, 1], [2, 1, 0]), [1, 128, 128],
     {R: [[0, 0, 1], [0, 8, 0], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 16, 0], [0, 32, 0]],
      L: [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]], W: [[0, 0, 0]] * 4,
      K: [[0, 0, 0], [0, 64, 0], [0, 0, 0], [0, 0, 0]]}),
    ("MMAv2_16x16", mma(2, [16, 8], [1, 1]), [16, 16],
     {R: [[0, 1], [8, 0], [0, 8]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], W: [], K: []}),
    ("MMAv2_32x32", mma(2, [16, 8], [1, 1]), [32, 32],
     {R: [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], W: [], K: []}),
    ("MMAv2_ExtendDim2", mma(2, [16, 8], [1, 1]), [16, 128],
     {R: [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], W: [],
      K: []}),
    ("MMAv3_64x16", mma(3, [16, 16, 8], [4, 1]), [64, 16],
     {R: [[0, 1], [8, 0], [0, 8]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], W: [[16, 0], [32, 0]], K: []}),
    ("MMAv3_64x16 (instrShape 16x8x8)", mma(3, [16, 8, 8], [4, 1]), [64, 16],
     {R: [[0, 1], [8, 0], [0, 8]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], W: [[16, 0], [32, 0]], K: []}),
    ("MMAv3_128x16", mma(3, [16, 16, 8], [4, 1]), [128, 16],
     {R: [[0, 1], [8, 0], [0, 8], [64, 0]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], W: [[16, 0], [32, 0]],
      K: []}),
    ("MMAv3_1024x1024", mma(3, [16, 16, 8], [4, 1]), [1024, 1024],
     {R: [[0, 1], [8, 0]] + [[0, 8 << i] for i in range(7)] + [[64 << i, 0] for i in range(4)],
      L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], W: [[16, 0], [32, 0]], K: []}),
    ("MMAv3_4x2Warps 64x32", mma(3, [16, 32, 16], [4, 2]), [64, 32],
     {R: [[0, 1], [8, 0], [0, 8], [0, 16]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
      W: [[16, 0], [32, 0], [0, 0]], K: []}),
    ("MMAv3_4x2Warps 256x64", mma(3, [16, 32, 16], [4, 2]), [256, 64],
     {R: [[0, 1], [8, 0], [0, 8], [0, 16], [64, 0], [128, 0]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
      W: [[16, 0], [32, 0], [0, 32]], K: []}),
    ("MMAv3_4x4Warps 32x32", mma(3, [16, 16, 8], [4, 4]), [32, 32],
     {R: [[0, 1], [8, 0], [0, 8]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
      W: [[16, 0], [0, 0], [0, 16], [0, 0]], K: []}),
    ("MMAv3_4x4Warps 16x16", mma(3, [16, 16, 8], [4, 4]), [16, 16],
     {R: [[0, 1], [8, 0], [0, 8]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], W: [[0, 0]] * 4, K: []}),
    ("DotMMAv2_tile_kwidth8 A", dot(mma(2, [16, 8], [1, 1]), 0, 8), [16, 64],
     {R: [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]], L: [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], W: [], K: []}),
    ("DotMMAv2_tile_kwidth8 B", dot(mma(2, [16, 8], [1, 1]), 1, 8), [64, 8],
     {R: [[1, 0], [2, 0], [4, 0], [32, 0]], L: [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]], W: [], K: []}),
    ("DotMMAv2_large_warp4_kwidth8 A", dot(mma(2, [16, 8], [4, 1]), 0, 8), [128, 128],
     {R: [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [64, 0]], L: [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]],
      W: [[16, 0], [32, 0]], K: []}),
    ("DotMMAv2_large_warp4_kwidth8 B", dot(mma(2, [16, 8], [4, 1]), 1, 8), [128, 64],
     {R: [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32]],
      L: [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]], W: [[0, 0], [0, 0]], K: []}),
    ("DotMMAv2_split_warp_kwidth8 A", dot(mma(2, [16, 8], [2, 2]), 0, 8), [64, 128],
     {R: [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [32, 0]], L: [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]],
      W: [[0, 0], [16, 0]], K: []}),
    ("DotMMAv2_split_warp_kwidth8 B", dot(mma(2, [16, 8], [2, 2]), 1, 8), [128, 32],
     {R: [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 16]], L: [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]],
      W: [[0, 8], [0, 0]], K: []}),
    ("DotMMAv2_3D A", dot(mma(2, [1, 16, 8], [2, 4, 2]), 0, 8), [16, 128, 128],
     {R: [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 8, 0], [0, 0, 32], [0, 0, 64], [0, 64, 0], [2, 0, 0], [4, 0, 0],
          [8, 0, 0]], L: [[0, 0, 8], [0, 0, 16], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
      W: [[0, 0, 0], [0, 16, 0], [0, 32, 0], [1, 0, 0]], K: []}),
    ("DotMMAv2_3D B", dot(mma(2, [1, 16, 8], [2, 4, 2]), 1, 8), [8, 128, 64],
     {R: [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 32, 0], [0, 64, 0], [0, 0, 16], [0, 0, 32], [2, 0, 0], [4, 0, 0]],
      L: [[0, 8, 0], [0, 16, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4]],
      W: [[0, 0, 8], [0, 0, 0], [0, 0, 0], [1, 0, 0]], K: []}),
    ("DotMMAv3_warp4_kwidth2 128x32", dot(mma(3, [16, 16, 8], [4, 1]), 0, 2), [128, 32],
     {R: [[0, 1], [8, 0], [0, 8], [0, 16], [64, 0]], L: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
      W: [[16, 0], [32, 0]], K: []}),
    ("DotMMAv3_mixed_warp_kwidth4", dot(mma(3, [16, 16, 8], [4, 2]), 0, 4), [128, 64],
     {R: [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [64, 0]], L: [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
      W: [[16, 0], [32, 0], [0, 0]], K: []}),
    ("SharedSwizzled2D_MaxPhaseOnly", swz(1, 1, 4, [1, 0]), [32, 32],
     {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 1], [2, 2], [4, 0], [8, 0], [16, 0]], K: []}),
    ("SharedSwizzled2D_PerPhaseMaxPhase", swz(1, 2, 4, [1, 0]), [32, 32],
     {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 1], [4, 2], [8, 0], [16, 0]], K: []}),
    ("SharedSwizzled2D_Vec", swz(2, 1, 4, [1, 0]), [4, 8], {"offset": [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]], K: []}),
    ("SharedSwizzled2D_PerPhaseMaxPhaseVec", swz(2, 2, 4, [1, 0]), [32, 32],
     {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 2], [4, 4], [8, 0], [16, 0]], K: []}),
    ("SharedSwizzled4D", swz(2, 2, 4, [3, 2, 1, 0]), [2, 4, 32, 32],
     {"offset": [[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 4], [0, 0, 0, 8], [0, 0, 0, 16], [0, 0, 1, 0], [0, 0, 2, 2],
                 [0, 0, 4, 4], [0, 0, 8, 0], [0, 0, 16, 0], [0, 1, 0, 0], [0, 2, 0, 0], [1, 0, 0, 0]], K: []}),
    ("SharedSwizzled2D_Order01", swz(1, 1, 4, [0, 1]), [4, 8],
     {"offset": [[1, 0], [2, 0], [1, 1], [2, 2], [0, 4]], K: []}),
    ("SharedSimple1D", swz(1, 1, 1, [0]), [1024], {"offset": [[1 << i] for i in range(10)], K: []}),
    ("Shared1DSwizzle", swz(2, 2, 4, [1, 0]), [64, 1], {"offset": [[1 << i, 0] for i in range(6)], K: []}),
    ("LeadingOffset_8x16_4_2", nvmma(32, False, 16), [8, 16],
     {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8]], K: []}),
    ("LeadingOffset_128x16_4_2", nvmma(32, False, 16), [128, 16],
     {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8], [8, 0], [16, 0], [32, 0], [64, 0]], K: []}),
    ("LeadingOffset_8x32_2_4", nvmma(64, False, 16), [8, 32],
     {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 8], [4, 16]], K: []}),
    ("LeadingOffset_8x64_1_8", nvmma(128, False, 16), [8, 64],
     {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]], K: []}),
    ("LeadingOffset_8x64_1_8_32b", nvmma(128, False, 32), [8, 64],
     {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [0, 32]], K: []}),
    ("MMAv5Fp4Padded", nvmma(128, False, 8, fp4=True), [32, 64],
     {"offset": [[0, 1], [0, 2], [0, 4], [0, 0], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0],
                 [16, 0]], K: []}),
]


@pytest.mark.parametrize("name,text,shape,expected", FACTS, ids=[f[0] for f in FACTS])
def test_conversion_matches_tritons_unit_test(name, text, shape, expected):
    lay = to_linear(parse_attr(text), shape)
    assert lay.in_dim_names == list(expected)
    assert {n: [list(b) for b in bs] for n, bs in lay.bases.items()} == expected
    assert lay.out_dims == [(f"dim{i}", s) for i, s in enumerate(shape)]


def test_linear_attribute_is_its_bases():
    text = ("#ttg.linear<{register = [[0, 1], [8, 0], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
            "warp = [], block = []}>")
    lay = to_linear(parse_attr(text), [16, 16])
    assert lay == to_linear(parse_attr(mma(2, [16, 8], [1, 1])), [16, 16])  # MMAv2_16x16's bases
    with pytest.raises(TritonLayoutError, match="surjective"):
        to_linear(parse_attr(text), [32, 16])
    with pytest.raises(TritonLayoutError, match="outside"):
        to_linear(parse_attr(text), [8, 16])


@pytest.mark.parametrize("text,shape,words", [
    (blocked([1, 4], [8, 4], [4, 1], [1, 0]), [128, 48], "power of two"),
    (blocked([1, 4], [8, 4], [4, 1], [1, 0]), [128], "rank"),
    (blocked([1, 3], [8, 4], [4, 1], [1, 0]), [128, 64], "power of two"),
    (mma(3, [16, 64, 16], [4, 1]), [64, 64, 64], "rank"),
    (mma(3, [16, 48, 16], [4, 1]), [64, 64], "instrShape"),
    (mma(2, [16, 16], [4, 1]), [64, 64], "instrShape"),
    (dot(mma(3, [16, 64, 16], [4, 1]), 1, 2), [64, 64], "shared memory"),
    (dot(mma(2, [16, 8], [4, 1]), 0, 3), [64, 64], "kWidth"),
    (nvmma(128, False, 16), [8, 32], "swizzle row"),
    (nvmma(128, False, 16), [4, 64], "swizzle atom"),
    (nvmma(0, True, 16), [4, 64, 64], "rank 3 or more"),  # Triton 3.9's answer has more offsets than elements
])
def test_inadmissible_shapes_are_input_errors(text, shape, words):
    with pytest.raises(TritonLayoutError, match=words) as e:
        to_linear(parse_attr(text), shape)
    assert e.value.kind == "input"


def _blocked_owner_sets(spt, tpw, wpc, order, shape):
    """Independent oracle: the blocked layout's definition. Along dim d a CTA tile covers spt*tpw*wpc
    elements; element x of dim d belongs to lane digit (x // spt) % tpw, warp digit (x // (spt*tpw)) % wpc, the
    tile repeating over larger tensors and wrapping (broadcast) over smaller ones. The thread's linear lane /
    warp ids are the digits combined with order[0] fastest."""
    owners = {}
    rank = len(shape)
    for idx in itertools.product(*[range(s) for s in shape]):
        cands = []
        for d in range(rank):
            tile = spt[d] * tpw[d] * wpc[d]
            # when the tile is larger than the tensor, every copy x + k*shape[d] < tile is the same element
            xs = [x for x in range(max(tile, shape[d])) if x % shape[d] == idx[d]] if tile > shape[d] else [idx[d]]
            cands.append([((x // spt[d]) % tpw[d], (x // (spt[d] * tpw[d])) % wpc[d]) for x in xs])
        for pick in itertools.product(*cands):
            lane = warp = 0
            lm = wm = 1
            for d in order:
                lane += pick[d][0] * lm
                warp += pick[d][1] * wm
                lm *= tpw[d]
                wm *= wpc[d]
            owners.setdefault((lane, warp), set()).add(idx)
    return owners


def _ll_owner_sets(lay):
    regs, lanes, warps = (lay.in_dim_size(n) for n in (R, L, W))
    return {(ln, w): {lay.apply({R: r, L: ln, W: w}) for r in range(regs)}
            for ln in range(lanes) for w in range(warps)}


def test_blocked_against_its_definition_on_random_layouts():
    rng = random.Random(20)
    pw = [1, 2, 4]
    for _ in range(60):
        rank = rng.choice([1, 2, 2, 3])
        spt = [rng.choice(pw) for _ in range(rank)]
        tpw = [1] * rank
        for _ in range(5):
            tpw[rng.randrange(rank)] *= 2
        wpc = [rng.choice([1, 2]) for _ in range(rank)]
        order = list(range(rank))
        rng.shuffle(order)
        shape = [rng.choice([1, 2, 4, 8, 16]) for _ in range(rank)]
        lay = to_linear(parse_attr(blocked(spt, tpw, wpc, order)), shape)
        got = _ll_owner_sets(lay)
        want = _blocked_owner_sets(spt, tpw, wpc, order, shape)
        assert got == {k: want.get(k, set()) for k in got}, (spt, tpw, wpc, order, shape)


@pytest.mark.parametrize("name,text,shape,expected", [f for f in FACTS if len(f[2]) == 2],
                         ids=[f[0] for f in FACTS if len(f[2]) == 2])
def test_the_cute_form_shown_is_the_same_function(name, text, shape, expected):
    """``cuteverify triton show`` prints from_linear_layout of the conversion: read back as CuTe (TV with the
    tensor as tile, or smem), it is the same function, evaluated at every input by CuTe's own layout."""
    lay = to_linear(parse_attr(text), shape)
    if lay.in_dim_size("block") > 1:
        pytest.skip("a CuTe layout is one CTA's")
    M = shape[0]
    rng = random.Random(name)
    if "offset" in lay.in_dim_names:
        if not lay.sublayout(["offset"], lay.out_dim_names).is_invertible():
            pytest.skip("a broadcasting shared layout has no smem form")
        cute = from_linear_layout(lay)
        n = lay.in_dim_size("offset")
        for o in (range(n) if n <= 1 << 12 else rng.sample(range(n), 1 << 12)):
            assert cute(lay.apply({"offset": o})) == o
        return
    cute = from_linear_layout(lay)
    lanes, warps, regs = (lay.in_dim_size(d) for d in (L, W, R))
    points = [(t, r) for t in range(lanes * warps) for r in range(regs)]
    for t, r in (points if len(points) <= 1 << 12 else rng.sample(points, 1 << 12)):
        i = cute((t, r))
        assert (i % M, i // M) == lay.apply({L: t % lanes, W: t // lanes, R: r})
