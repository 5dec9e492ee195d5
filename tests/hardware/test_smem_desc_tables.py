"""The descriptor rules on numpy tables (issue 30) decide as an element-by-element walk does.

``from_layout``'s canonical-digit rules and ``prove_reads`` evaluate the layout and the descriptor's address
function as whole-block tables. The oracle here walks the block element by element in (k, mn) order with the
layout's own ``__call__`` (``smem(x, y)``) and the descriptor's scalar ``address(i, j)``: the verdict must be the
same, and a refutation must name the first disagreeing element of that walk with both byte addresses.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from cuteverify.algebra.tile import tile_to_shape
from cuteverify.core.notation.parse import parse
from cuteverify.hardware.descriptors.smem import SmemDescriptor
from cuteverify.hardware.descriptors.smem_rules import from_layout, prove_reads

ATOMS = ["S<3,3,3> o 0 o (8,64):(64,1)", "S<2,3,3> o 0 o (8,32):(32,1)", "S<1,3,3> o 0 o (8,16):(16,1)",
         "(8,8):(8,1)", "S<3,3,3> o 0 o (64,8):(1,64)", "(8,8):(1,8)", "S<3,2,3> o 0 o (8,64):(64,1)"]


def _walk(desc, smem, mn_block, k_block, start):
    """The first (i, j, descriptor byte, layout byte) that differ, walking k outer and mn inner, or None."""
    eb = desc.bits // 8
    for j in range(desc.k):
        for i in range(desc.mn):
            got = desc.address(i, j, start)
            want = eb * smem(mn_block * desc.mn + i, k_block * desc.k + j)
            if got != want:
                return i, j, got, want
    return None


@pytest.mark.parametrize("atom,tile", list(itertools.product(ATOMS, [(64, 64), (128, 128)])))
def test_prove_reads_equals_the_walk(atom, tile):
    """Proved iff the walk finds no difference; refuted at the walk's first element, for descriptors derived
    from the layout and for perturbed ones (wrong LBO / SBO / start / layout type)."""
    smem = tile_to_shape(parse(atom), tile)
    rng = np.random.default_rng(30)
    for bits, arch in ((16, "sm_90"), (32, "sm_100")):
        dtype = "bf16" if bits == 16 else "f32"
        desc, _ = from_layout(smem, dtype, arch, mn=64)
        if desc is None:
            continue
        variants = [desc]
        for _ in range(4):
            lbo, sbo = (desc.lbo or 0) + 16 * int(rng.integers(-2, 3)), (desc.sbo or 0) + 16 * int(rng.integers(-2, 3))
            start = 16 * int(rng.integers(0, 64))
            lt = str(rng.choice(["INTERLEAVE", "SWIZZLE_128B", "SWIZZLE_64B"]))
            variants.append(SmemDescriptor(arch, major=desc.major, bits=bits, mn=64, start=start, lbo=lbo, sbo=sbo,
                                           layout_type=lt if arch == "sm_90" else desc.layout_type))
        for d, (mb, kb) in itertools.product(variants, [(0, 0), (0, 1)]):
            start = d.start if type(d.start) is int else 0
            want = _walk(d, smem, mb, kb, start)
            v = prove_reads(d, smem, mb, kb)
            assert v.proved == (want is None), (d, mb, kb)
            if want is not None:
                i, j, got, lay = want
                assert v.counterexample.coords == (i, j)
                assert v.counterexample.values == (got, lay)


@pytest.mark.parametrize("text,rule,unit", [
    ("S<3,3,3> o 0 o ((8,2,4),64):((64,512,2048),1)", "sbo_uniform", (8, 0)),   # 8-row groups 512, then 1536 apart
    ("S<3,3,3> o 0 o ((4,2,8),64):((64,512,1024),1)", "core_rows", (1, 0)),      # row 4 is not 128 B after row 3
])
def test_digit_rule_counterexample_is_the_first_in_walk_order(text, rule, unit):
    """A layout whose digit steps are not uniform: the rule is refuted and names the first pair of the walk
    (k outer, mn inner) whose step differs from the field the descriptor took from the block's origin."""
    smem = parse(text)
    desc, v = from_layout(smem, "bf16", mn=64)
    r = v.rule(rule)
    assert r.status == "refuted"
    outer = smem.outer if hasattr(smem, "outer") else smem
    field = desc.sbo if rule == "sbo_uniform" else 128
    du, dv = unit
    first = next((i, j) for j in range(16 - dv) for i in range(64 - du)
                 if (outer(i + du, j + dv) - outer(i, j)) * 2 != field)
    assert f"elements {first} and {(first[0] + du, first[1] + dv)} of block (0, 0)" in r.reason, r.reason
