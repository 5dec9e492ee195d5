"""cp.async 4/8/16-byte copy legality (cuteverify.analysis.cp_async): each rule both ways, symbolic (proved for
every value under the assumptions, refuted with the assignment) and concrete, against a brute-force oracle that
walks every thread's chunks (independent of the vector-width analysis)."""
import itertools
import random

import pytest

from cuteverify.analysis.cp_async import cp_async
from cuteverify.core.notation.parse import parse


def legal_by_enumeration(src, dst, eb, size, smem=None):
    """Every chunk of size/eb consecutive values of every thread contiguous and size-aligned (bytes)."""
    n = size // eb
    for lay, sm in ((parse(src), None), (parse(dst), parse(smem) if smem else None)):
        t_sz, v_sz = _sizes(lay)
        if v_sz % n:
            return False
        for t in range(t_sz):
            for c in range(v_sz // n):
                offs = [lay(t, c * n + i) for i in range(n)]
                if sm is not None:
                    offs = [sm(o) for o in offs]
                if any(b - a != 1 for a, b in itertools.pairwise(offs)) or (offs[0] * eb) % size:
                    return False
    return True


def _sizes(lay):
    from cuteverify.core.layout import size
    return size(lay.shape[0]), size(lay.shape[1])


@pytest.mark.parametrize("rule, inside, outside", [
    ("cp_size", {"size": 16}, {"size": 12}),
    ("cp_size", {"size": 4}, {"size": 2}),
    ("cache_mode", {"size": 16, "cache": "cg"}, {"size": 8, "cache": "cg"}),
])
def test_size_rules_both_ways(rule, inside, outside):
    a = dict(src="(32,8):(64,1)", dst="(32,8):(8,1)", dtype="f16")
    assert cp_async(**a, **inside).rule(rule).proved
    v = cp_async(**a, **outside)
    assert v.refuted and v.rule(rule).refuted


def test_element_wider_than_the_copy():
    v = cp_async("(32,2):(2,1)", "(32,2):(2,1)", "f64", 4)
    assert v.rule("cp_size").refuted and "whole number" in str(v.rule("cp_size").counterexample)
    assert cp_async("(32,2):(2,1)", "(32,2):(2,1)", "f64", 16).proved


@pytest.mark.parametrize("size, good, bad, witness", [
    (16, "K % 8 == 0", "K % 4 == 0", 4),
    (8, "K % 4 == 0", "K % 2 == 0", 2),
    (4, "K % 2 == 0", "K >= 1", 1),
])
def test_symbolic_leading_dimension_both_ways(size, good, bad, witness):
    src = "(32,8):(K,1)"
    v = cp_async(src, "(32,8):(8,1)", "f16", size, assume=[good])
    assert v.proved, v
    v = cp_async(src, "(32,8):(8,1)", "f16", size, assume=[bad])
    assert v.refuted and v.rule("src_vector").refuted
    note = str(v.counterexample)
    assert note.startswith(f"K = {witness}: ") and "thread 1" in note
    # the witness really is illegal, and legal just inside (the next value the good assumption admits)
    assert not legal_by_enumeration(src.replace("K", str(witness)), "(32,8):(8,1)", 2, size)
    inside = next(k for k in range(witness + 1, 64) if k % (size // 2) == 0)
    assert legal_by_enumeration(src.replace("K", str(inside)), "(32,8):(8,1)", 2, size)


@pytest.mark.parametrize("k, ok", [(8, True), (12, False), (16, True), (4, False)])
def test_concrete_leading_dimension_both_ways(k, ok):
    v = cp_async(f"(32,8):({k},1)", "(32,8):(8,1)", "f16", 16)
    assert v.proved == ok and v.refuted == (not ok)


def test_destination_through_a_swizzled_smem_layout():
    # thread t = t0 + 8*t1 copies row t1, 16-byte chunk t0 of the 64-element rows: (thread, value) -> the
    # smem layout's (colexicographic) index row + 8*col
    tv = "((8,8),8):((64,1),8)"
    good, bad = "S<3,3,3> o 0 o (8,64):(64,1)", "S<3,2,3> o 0 o (8,64):(64,1)"
    assert cp_async("(64,8):(8,1)", tv, "f16", 16, dst_smem=good).proved
    v = cp_async("(64,8):(8,1)", tv, "f16", 16, dst_smem=bad)
    assert v.rule("dst_vector").refuted and not legal_by_enumeration("(64,8):(8,1)", tv, 2, 16, bad)
    assert legal_by_enumeration("(64,8):(8,1)", tv, 2, 16, good)


def test_transposed_destination_is_refuted():
    v = cp_async("(32,8):(8,1)", "(32,8):(1,32)", "f16", 4)
    assert v.rule("dst_vector").refuted


def test_addresses_symbolic_both_ways():
    a = dict(src="(32,8):(64,1)", dst="(32,8):(8,1)", dtype="f16", size=16)
    assert cp_async(**a, src_address="A", assume=["A % 16 == 0"]).proved
    v = cp_async(**a, src_address="A", assume=["A % 8 == 0"])
    assert v.rule("src_address").refuted and v.rule("src_address").counterexample.assignment == {"A": 8}
    assert cp_async(**a, dst_address=1024 + 16).proved
    assert cp_async(**a, dst_address=1024 + 8).rule("dst_address").refuted


def test_against_brute_force_on_random_concrete_copies():
    rnd = random.Random(16)
    for _ in range(120):
        eb = rnd.choice((1, 2, 4))
        dtype = {1: "e4m3", 2: "f16", 4: "f32"}[eb]
        size = rnd.choice((4, 8, 16))
        if size < eb:
            continue
        v_shape = rnd.choice((4, 8, 16, (2, 4), (4, 2)))
        v_stride = rnd.choice((1, 2)) if not isinstance(v_shape, tuple) else \
            rnd.choice(((1, 2), (1, 4), (1, v_shape[0]), (2, 1)))
        t_stride = rnd.choice((1, 2, 4, 8, 12, 16, 24, 32, 64))
        vs = f"({v_shape[0]},{v_shape[1]})" if isinstance(v_shape, tuple) else str(v_shape)
        vd = f"({v_stride[0]},{v_stride[1]})" if isinstance(v_stride, tuple) else str(v_stride)
        src = f"(8,{vs}):({t_stride},{vd})"
        dst = "(8,16):(16,1)" if (v_shape if not isinstance(v_shape, tuple) else v_shape[0] * v_shape[1]) == 16 \
            else f"(8,{vs}):(16,{vd})"
        v = cp_async(src, dst, dtype, size)
        assert v.status != "unknown", (src, dst, size, v.reason)
        assert v.proved == legal_by_enumeration(src, dst, eb, size), (src, dst, dtype, size, str(v))
