"""Im2col TMA descriptors (cuteverify.hardware.tma.im2col, cuTensorMapEncodeIm2col's documented rules): each
rule's boundary both ways, concrete and symbolic (the smallest violating value of a missing bound), and the CLI.
The H200 driver's verdicts: tests/hardware/test_tma_im2col_driver.py."""
import pytest
from click.testing import CliRunner
from cuteverify.frontend.cli.tma_cmd import tma_cmd

from cuteverify.hardware.tma.im2col import TmaIm2colDescriptor as I

# NHWC bf16, 64 channels, a 3x3 convolution with padding 1: lower = -pad, upper = pad - (kernel - 1)
BASE = dict(dtype="bf16", shape=(64, 56, 56, 8), lower=(-1, -1), upper=(-1, -1), channels=64, pixels=128,
            swizzle="128B")


def v(**kw):
    a = dict(BASE, **kw)
    return I(a.pop("dtype"), a.pop("shape"), **a).check()


def test_base_is_legal():
    assert v().proved, v()


@pytest.mark.parametrize("rule, inside, outside", [
    ("im2col_rank", {"shape": (64, 56, 8), "lower": (-1,), "upper": (-1,)}, {"shape": (64, 8), "lower": (), "upper": ()}),
    ("corner_count", {}, {"lower": (-1,)}),
    ("corner_range", {"lower": (-128, -1)}, {"lower": (-129, -1)}),
    ("corner_range", {"upper": (127, -1)}, {"upper": (128, -1)}),
    ("corner_range", {"shape": (64, 56, 56, 56, 8), "lower": (-16, -1, -1), "upper": (15, -1, -1)},
     {"shape": (64, 56, 56, 56, 8), "lower": (-17, -1, -1), "upper": (15, -1, -1)}),
    ("corner_range", {"shape": (64, 56, 8), "lower": (-32768,), "upper": (0,)},
     {"shape": (64, 56, 8), "lower": (-32769,), "upper": (0,)}),
    ("bounding_box", {"shape": (64, 2, 56, 8), "lower": (0, -1), "upper": (-1, -1)},
     {"shape": (64, 2, 56, 8), "lower": (0, -1), "upper": (-2, -1)}),
    ("channels_per_pixel", {"channels": 256, "swizzle": "NONE"}, {"channels": 257, "swizzle": "NONE"}),
    ("channels_per_pixel", {"channels": 1, "swizzle": "NONE"}, {"channels": 0, "swizzle": "NONE"}),
    ("pixels_per_column", {"pixels": 1024}, {"pixels": 1025}),
    ("swizzle_span", {"channels": 64}, {"channels": 72}),
    ("swizzle_span", {"channels": 32, "swizzle": "64B"}, {"channels": 40, "swizzle": "64B"}),
])
def test_rule_boundary_both_ways(rule, inside, outside):
    assert v(**inside).rule(rule).proved, v(**inside)
    out = v(**outside)
    assert out.refuted and out.rule(rule).refuted


def test_symbolic_sizes():
    asm = ["W >= 1", "H >= 1", "W <= 2**16", "H <= 2**16", "N <= 2**16"]
    base = dict(BASE, shape=(64, "W", "H", "N"))
    assert v(**base, assume=asm).proved
    # pixels per column P without its bound: refuted with the smallest violating value
    r = v(**dict(base, pixels="P"), assume=asm)
    assert r.rule("pixels_per_column").counterexample.assignment == {"P": 1025}
    assert v(**dict(base, pixels="P"), assume=[*asm, "P <= 1024"]).proved
    # a 5x5 window without padding on a symbolic width: W + upper - lower >= 1 needs W >= 5
    r = v(**dict(base, lower=(0, 0), upper=(-4, -4)), assume=asm)
    assert r.rule("bounding_box").counterexample.assignment["W"] <= 4
    assert v(**dict(base, lower=(0, 0), upper=(-4, -4)), assume=[*asm, "W >= 5", "H >= 5"]).proved
    # the channel stride: C channels of bf16 must make 16-byte rows
    r = v(**dict(base, shape=("C", "W", "H", "N"), channels=8), assume=[*asm, "C >= 1", "C <= 2**10"])
    assert r.rule("stride_alignment").counterexample.assignment == {"C": 1}
    r = v(**dict(base, shape=("C", "W", "H", "N"), channels=8), assume=[*asm, "C % 8 == 0", "C <= 2**10"])
    assert r.rule("stride_bound").refuted  # C * W * H * 2 bytes reaches 2**40 at the largest sizes
    assert v(**dict(base, shape=("C", "W", "H", "N"), channels=8),
             assume=[*asm, "C % 8 == 0", "C <= 2**10", "W <= 2**12", "H <= 2**12"]).proved


def test_cli():
    args = ["--dtype", "bf16", "--shape", "(64,56,56,8)", "--im2col", "64,128", "--lower", "(-1,-1)",
            "--upper", "(-1,-1)", "--swizzle", "128B"]
    assert CliRunner().invoke(tma_cmd, args).exit_code == 0
    r = CliRunner().invoke(tma_cmd, args[:-2] + ["--swizzle", "32B"])
    assert r.exit_code == 1 and "swizzle_span" in r.output
    assert CliRunner().invoke(tma_cmd, ["--dtype", "bf16", "--im2col", "64"]).exit_code == 2
