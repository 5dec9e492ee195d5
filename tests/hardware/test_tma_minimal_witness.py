"""A refuted TMA rule answers the smallest violating assignment over ALL its clauses (one clause per stride,
per dim ...), and the descriptor's counterexample is the smallest over all broken rules.

Independent check: the witnesses are recomputed here from the definition (the byte strides of a packed
``(K, 64, 64)`` f16 tensor are ``2K`` and ``128K``; the rule is ``stride < 2**40``), with plain integers.
"""
from __future__ import annotations

from click.testing import CliRunner

from cuteverify.frontend.cli.tma_cmd import tma_cmd
from cuteverify.hardware.tma.tiled import TmaDescriptor as T


def _smallest_k(pred, hi=1 << 45):
    """The smallest K >= 1 with pred(K) (pred monotone), by bisection on plain integers."""
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if pred(mid) else (mid + 1, hi)
    return lo


def test_stride_bound_answers_the_stride_that_breaks_first():
    v = T("f16", "(K,64,64)", box="(64,64,1)", swizzle="128B").check()
    r = v.rule("stride_bound")
    assert r.refuted
    # stride 1 = 2K bytes, stride 2 = 128K bytes: stride 2 reaches 2**40 first
    k = min(_smallest_k(lambda k: 2 * k >= 2 ** 40), _smallest_k(lambda k: 128 * k >= 2 ** 40))
    assert k == 8589934592
    assert r.counterexample.assignment == {"K": k}
    assert "global stride 2" in str(r.counterexample)


def test_the_descriptors_counterexample_is_the_smallest_over_every_rule():
    v = T("f16", "(K,64,64)", box="(64,64,1)", swizzle="128B").check()
    assert v.refuted
    broken = [r for r in v.rules if r.refuted]
    assert len(broken) >= 3
    smallest = min(r.counterexample.assignment["K"] for r in broken)
    assert smallest == 1  # K = 1: stride 1 is 2 bytes, not a multiple of 16
    assert v.counterexample.assignment == {"K": smallest}


def test_the_cli_prints_the_per_stride_minimum():
    r = CliRunner().invoke(tma_cmd, ["-d", "f16", "--shape", "(K,64,64)", "--box", "(64,64,1)", "--swizzle",
                                     "128B"])
    assert r.exit_code == 1, r.output
    assert "K = 8589934592: global stride 2" in r.output
    assert "549755813888" not in r.output
