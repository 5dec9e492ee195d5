"""Post-conditions of the atom layer (no DSL needed): tiled MMAs cover their tiles exactly once per operand,
thread partitions agree with the TV layouts, copies built from a tiled MMA are compatible with it, fragments have
the partition shapes, name resolution and refusals."""
from __future__ import annotations

import random

import numpy as np
import pytest

import cuteverify as cv
import cuteverify.atoms as at
from cuteverify.core.tuples import flatten, unflatten

CONFIGS = [
    ("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), None),
    ("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, "(8,2,2):(1,16,8)", 16)),
    ("SM80_16x8x8_F32TF32TF32F32_TN", (1, 4, 1), (16, 64, 16)),
    ("SM80_16x8x16_S32S8S8S32_TN", ((2, 2, 1), (2, 1, 4)), None),
    ("SM75_16x8x8_F32F16F16F32_TN", (4, 1, 1), None),
    ("SM70_8x8x4_F32F16F16F32_NT", (2, 2, 1), None),
    ("SM90_64x128x16_F32BF16BF16_SS", (2, 1, 1), None),
    ("SM90_64x64x16_F32F16F16_RS", (1, 2, 1), None),
]
TILE_MODES = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}


def _tiled(name, alay, perm):
    lay = cv.Layout(*alay) if type(alay[0]) is tuple else alay
    return at.make_tiled_mma(name, lay, perm)


@pytest.mark.parametrize("name,alay,perm", CONFIGS)
def test_tiled_mma_covers_each_tile_exactly_once(name, alay, perm):
    t = _tiled(name, alay, perm)
    for op, (i, j) in TILE_MODES.items():
        tv = t.tv_layout_tiled(op)
        assert cv.size(tv[0]) == t.size
        v = at.covers(tv, t.get_tile_size(i) * t.get_tile_size(j))
        assert v.proved, (op, v.counterexample)


@pytest.mark.parametrize("name,alay,perm", CONFIGS[:4])
def test_partitions_agree_with_tv_layouts(name, alay, perm):
    """partition_X of the tile's own compact layout gives, per thread, exactly the TV layout's elements in the
    TV layout's value order (the tensor is the tile, so Rest is 1 per mode)."""
    t = _tiled(name, alay, perm)
    for op, (i, j) in TILE_MODES.items():
        tile = cv.Layout((t.get_tile_size(i), t.get_tile_size(j)))
        tv = t.tv_layout_tiled(op)
        for tid in (0, 1, t.size // 2 + 3, t.size - 1):
            part = t.get_slice(tid).partition(op, tile)
            assert part.values() == [tv(tid, v) for v in range(cv.size(tv[1]))], (op, tid)
            assert part.shape == t.partition_shape(op, tile.shape)
            assert t.get_slice(tid).partition_fragment(op, tile).shape == part.shape


def test_partition_of_larger_tensor_tiles_by_the_mma_tile():
    t = at.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1))
    big = cv.Layout((128, 64))
    part = t.get_slice(37).partition_A(big)
    seen = set()
    for tid in range(t.size):
        seen |= set(t.get_slice(tid).partition_A(big).values())
    assert seen == set(range(128 * 64))
    assert cv.size(part.layout) * t.size // 2 == 128 * 64  # A is replicated over the 2 N-threads


def test_broken_atom_layout_is_refuted_with_thread_and_element():
    t = at.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1))
    tv = t.tv_layout_C_tiled
    broken = cv.Layout(tv.shape, ((tv.stride[0][0], tv.stride[0][1], tv.stride[0][2], 0), tv.stride[1]))
    v = at.covers(broken, 32 * 16)
    assert v.refuted and v.counterexample.kind in ("missed", "collision")
    assert "thread" in v.counterexample.note


def test_copies_from_the_mma_are_compatible():
    t = at.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16))
    for op, name, dtype in (("A", "SM75_U32x4_LDSM_N", "f16"), ("B", "SM75_U32x2_LDSM_N", "f16"),
                            ("C", "UniversalCopy<uint32_t>", "f32")):
        mk = {"A": at.make_tiled_copy_A, "B": at.make_tiled_copy_B, "C": at.make_tiled_copy_C}[op]
        tc = mk(at.make_copy_atom(name, dtype), t)
        assert at.compatible_tv(tc, t, op).proved
        assert at.covers(tc.layout_tv(tc.ref_side), cv.size(tc.tiler_mn[0]) * cv.size(tc.tiler_mn[1])).proved
    # the A copy is not the B fragment
    tcA = at.make_tiled_copy_A(at.make_copy_atom("SM75_U32x4_LDSM_N", "f16"), t)
    v = at.compatible_tv(tcA, at.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (1, 2, 1), (32, 32, 16)), "A")
    assert v.refuted and "thread" in v.counterexample.note


def test_ldmatrix_element_views_and_partitions_cover_the_tile():
    t = at.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1))
    tc = at.make_tiled_copy_A(at.make_copy_atom("SM75_U32x4_LDSM_N", "f16"), t)
    assert str(tc.layout_src_tv) == "(32,8):(8,1)" and str(tc.layout_dst_tv) == "(32,(2,4)):(2,(1,64))"
    smem = cv.Layout((32, 16), (16, 1))
    seen = []
    for tid in range(tc.size):
        seen += tc.get_slice(tid).partition_S(smem).values()
    assert sorted(seen) == sorted(smem.values() * 2)  # A's src side: replicated over the N threads
    frag = t.get_slice(0).partition_fragment_A(cv.Layout((32, 16)))
    r = tc.retile(frag)
    assert cv.size(r) == cv.size(frag)


def test_make_layout_tv_is_a_bijection_onto_the_tile():
    tiler, tv = at.make_layout_tv(cv.Layout((2, 3), (3, 1)), cv.Layout((2, 2), (2, 1)))
    assert tiler == (4, 6) and str(tv) == "((3,2),(2,2)):((8,2),(4,1))"
    assert cv.is_bijective(tv).proved


def test_local_tile_and_local_partition():
    L = cv.Layout((64, 64))
    tile = at.local_tile(L, (32, 16), (1, 2))
    assert tile.shape == (32, 16) and tile.values()[0] == 32 + 64 * 32
    parts = [at.local_partition(L, cv.Layout((4, 8)), i) for i in range(32)]
    assert sorted(v for p in parts for v in p.values()) == list(range(64 * 64))


def test_symbolic_problem_size_partition():
    M, K = cv.symbol("M"), cv.symbol("K")
    t = at.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1))
    p = t.get_slice(5).partition_A(cv.Layout((M * 32, K * 16)))
    assert p.layout.subs(M=2, K=3) == t.get_slice(5).partition_A(cv.Layout((64, 48))).layout


def test_names_and_refusals():
    assert at.make_mma_atom("SM90_64x128x16_F32BF16BF16_SS").shape_mnk == (64, 128, 16)
    assert at.make_mma_atom("SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::K>").params == {"N": 128}
    with pytest.raises(cv.CuteVerifyError):
        at.make_mma_atom("SM90_64x12x16_F32BF16BF16_SS")
    with pytest.raises(cv.CuteVerifyError):
        at.make_mma_atom("SM75_U32x4_LDSM_N")
    with pytest.raises(cv.CuteVerifyError):
        at.make_mma_atom("SM80_16x8x16_F32F16F16F32_NN")
    with pytest.raises(cv.NotAdmissibleError):
        at.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (16, 16, 16))
    with pytest.raises(cv.NotAdmissibleError):  # CUTLASS's static_assert: 4 values per thread, atom needs 8
        at.make_tiled_copy_C(at.make_copy_atom("UniversalCopy<uint128_t>", "f16"),
                             at.make_tiled_mma("SM80_16x8x8_F32F16F16F32_TN", (1, 1, 1)))
    assert cv.make_tiled_mma is at.make_tiled_mma and cv.local_tile is at.local_tile


def _np_values(layout):
    """Every value, colexicographic, by numpy (independent of the library's evaluators)."""
    vals = np.zeros(1, dtype=np.int64)
    for s, d in zip(flatten(layout.shape), flatten(layout.stride)):
        vals = (vals[None, :] + (np.arange(s, dtype=np.int64) * d)[:, None]).ravel()
    return vals


@pytest.mark.parametrize("name,alay,perm", CONFIGS)
def test_agrees_tiled_fast_path_matches_brute_force(name, alay, perm):
    """agrees_tiled proves a layout iff it equals, at every (thread, value), the builder's tiled TV layout (which
    tests/atoms/test_atoms_dsl.py checks against CuTe DSL and agrees_tiled proves): mutations of one stride each, in
    the thread and in the value mode, decided against brute-force enumeration of both layouts."""
    t = _tiled(name, alay, perm)
    rng = random.Random(hash(name) & 0xFFFF)
    for op in "ABC":
        tv = t.tv_layout_tiled(op)
        assert at.agrees_tiled(tv, t, op).proved
        ref = _np_values(tv)
        strides = list(flatten(tv.stride))
        for _ in range(4):
            i = rng.randrange(len(strides))
            new = list(strides)
            new[i] = rng.choice([0, 1, 2, strides[i] + 1, strides[i] * 2 or 3])
            mut = cv.Layout(tv.shape, unflatten(new, tv.shape))
            v = at.agrees_tiled(mut, t, op)
            same = bool(np.array_equal(_np_values(mut), ref))
            assert v.proved == same, (op, mut, v.status)
            if not same:
                c = v.counterexample
                assert "thread" in str(c), c


def test_partitions_of_swizzled_smem():
    """partition_A / partition_S of a swizzled Sw o off o L are Sw(off + partition of L) at every coordinate
    (evaluated by brute force over the swizzle), and fragments are the plain layout's (registers are not
    swizzled); an SS operand's fragment is the descriptor view of the plain partition."""
    sA = cv.algebra.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (128, 64))
    plain, sw = sA.outer, sA.inner
    for name, alay in (("SM90_64x64x16_F16F16F16_SS", (2, 1, 1)), ("SM80_16x8x16_F16F16F16F16_TN", (2, 2, 1))):
        t = at.make_tiled_mma(name, alay)
        copy = None if name.endswith("SS") else at.make_tiled_copy_A(at.make_copy_atom("SM75_U32x4_LDSM_N", "f16"), t)
        for tid in (0, 37, t.size - 1):
            p, q = t.get_slice(tid).partition_A(sA), t.get_slice(tid).partition_A(plain)
            assert p.shape == q.shape
            assert p.values() == [sw(sA.offset + q.offset + v) for v in q.layout.values()]
            assert t.get_slice(tid).partition_fragment_A(sA) == t.get_slice(tid).partition_fragment_A(plain)
            if copy is not None:
                ps, qs = copy.get_slice(tid).partition_S(sA), copy.get_slice(tid).partition_S(plain)
                assert ps.values() == [sw(qs.offset + v) for v in qs.layout.values()]
