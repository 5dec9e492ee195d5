"""The vectorised bank model (issue 30) equals the pre-issue-30 model on random inputs.

Oracles: ``tests/oracles/banks_reference.py`` (the model as it was, frozen: ``Layout.values()`` element by
element, ``np.unique`` over (phase, word) keys, the merged phases' loop over lane runs, ``np.argwhere``), and
``_scalar_degree`` below, a pure-Python dictionary count of the hardware model that shares no code with either
(fixed phases of ``lanes`` threads; the H200's merged 8- / 16-byte phases: a quad's lanes with one address are
one request, requests fill 128-byte phases in lane order, 16-byte phases never mix half-warps).
"""
from __future__ import annotations

import numpy as np
import pytest

import cuteverify as cv
from cuteverify.analysis.banks import model as bm
import banks_reference as ref
from cuteverify.analysis.banks import bank_conflicts
from cuteverify.synth import search

RNG_SEED = 30


def _scalar_degree(off, eb, vb, lanes, base, merge):
    """(degree, wavefronts, ideal) by dictionaries, thread by thread (module docstring)."""
    T, V = off.shape
    n = max(1, vb // eb)
    wpe = max(1, eb // 4)
    groups = {}
    for t in range(T):
        warp, lane = divmod(t, 32)
        for k in range(V // n):
            if merge and vb in (8, 16):
                phase = _scalar_merged_phase(off, eb, vb, base, warp, lane, k, n, T)
            else:
                phase = lane // lanes
            words = groups.setdefault((warp, k, phase), set())
            for v in range(k * n, k * n + n):
                a = int(off[t, v]) * eb + base
                for j in range(wpe):
                    words.add(a // 4 + j)
    per = []
    for words in groups.values():
        banks = {}
        for w in words:
            banks[w % 32] = banks.get(w % 32, 0) + 1
        per.append(max(banks.values()))
    return max(per, default=0), sum(per), len(per)


def _scalar_merged_phase(off, eb, vb, base, warp, lane, k, n, T):
    def addr(ln):
        return int(off[warp * 32 + ln, k * n]) * eb + base

    def first_of(ln):  # the earliest lane of ln's quad with ln's address carries its request
        q = ln - ln % 4
        return next(m for m in range(q, ln + 1) if addr(m) == addr(ln))

    seg = 16 if vb == 16 else 32
    lead = first_of(lane)
    s0 = lead - lead % seg
    rank = sum(1 for m in range(s0, lead) if warp * 32 + m < T and first_of(m) == m)
    return rank // (128 // vb) + (2 * (s0 // 16) if vb == 16 else 0)


def _random_offsets(rng, T, V, eb, n, kind):
    """(T, V) element offsets: ``random`` (anything, many conflicts), ``vectors`` (aligned contiguous vectors
    at random vector slots: a legal access), ``shared`` (vectors drawn from a few slots: broadcasts and
    quads sharing an address, the merged phases' cases), ``negative`` (offsets below 0)."""
    if kind == "random":
        return rng.integers(0, 4 * T * V + 1, size=(T, V))
    K = V // n
    slots = {"vectors": T * K * 4, "shared": max(1, int(rng.integers(1, 9))), "negative": T * K * 2}[kind]
    start = rng.integers(0, slots, size=(T, K)) * n
    if kind == "negative":
        start -= slots * n // 2
    return (start[:, :, None] + np.arange(n)).reshape(T, V)


def _cases(count, seed):
    rng = np.random.default_rng(seed)
    kinds = ("random", "vectors", "shared", "shared", "negative")
    for i in range(count):
        eb = int(rng.choice([1, 2, 4, 8, 16]))
        vb = int(rng.choice([w for w in (1, 2, 4, 8, 16) if w >= eb]))
        n = max(1, vb // eb)
        T = int(rng.choice([8, 16, 32, 48, 64, 128]))
        V = n * int(rng.integers(1, 5))
        merge = bool(rng.integers(0, 2)) and vb in (8, 16)
        lanes = int(rng.choice([32, 16, 8, 4]))
        base = int(rng.choice([0, 0, 128, 16 * int(rng.integers(1, 64)), int(rng.integers(0, 1024)) // eb * eb]))
        kind = kinds[i % len(kinds)]
        off = _random_offsets(rng, T, V, eb, n, kind).astype(np.int64)
        idx = rng.permutation(off.size).reshape(off.shape).astype(np.int64)
        yield idx, off, eb, vb, lanes, base, merge, kind


def test_degree_equals_reference_and_scalar_model():
    """400 random accesses (widths, element sizes, phases, merged 8/16-byte phases, bases, broadcasts, negative
    offsets): degree, wavefronts, ideal and the witness equal the frozen model's; the numbers equal a scalar
    count's on every third case and on every case with words below 0 (where the frozen model was wrong)."""
    for i, (idx, off, eb, vb, lanes, base, merge, kind) in enumerate(_cases(400, RNG_SEED)):
        new = bm.conflict_degree(idx, off, eb, vb, lanes, base, merge)
        if kind == "negative":  # the frozen model mixes groups (or fails) on words below 0: the scalar count only
            assert new[:3] == _scalar_degree(off, eb, vb, lanes, base, merge), (i, eb, vb, lanes, base, merge)
            continue
        old = ref.degree_ref(idx, off, eb, vb, lanes, base, merge)
        assert new == old, (i, kind, eb, vb, lanes, base, merge)
        if i % 3 == 0:
            assert new[:3] == _scalar_degree(off, eb, vb, lanes, base, merge), (i, kind, eb, vb, lanes, merge)


@pytest.mark.parametrize("vb", [8, 16])
def test_merged_phases_equal_reference(vb):
    """The loop-free merged phases equal the frozen loop's on 150 address tables per width, thread counts that
    are and are not multiples of the lane runs, with many quads sharing addresses."""
    rng = np.random.default_rng(RNG_SEED + vb)
    for _ in range(150):
        T, K = int(rng.choice([4, 8, 12, 16, 24, 32, 40, 64, 96, 128])), int(rng.integers(1, 5))
        vaddr = rng.integers(0, int(rng.choice([2, 4, 64, 4096])), size=(T, K)) * vb
        assert np.array_equal(bm._merged_phases(vaddr, vb), ref.merged_phases_ref(vaddr, vb))


def _random_layout(rng):
    rank = int(rng.integers(1, 5))
    shape = [int(rng.choice([1, 2, 3, 4, 8, 16])) for _ in range(rank)]
    stride = [int(rng.choice([0, 1, 2, 3, 8, 64, 128, 1024, -1, -4])) for _ in range(rank)]
    if rank >= 2 and rng.integers(0, 2):  # one nested mode
        return cv.Layout((tuple(shape[:2]), *shape[2:]), (tuple(stride[:2]), *stride[2:]))
    return cv.Layout(tuple(shape), tuple(stride))


def test_layout_values_equal_reference():
    """Tables of 300 random layouts (nested modes, size-1 modes, zero and negative strides), swizzled
    compositions with offsets, and compositions with a layout as the outer function (in and out of its
    domain) equal the element-by-element table."""
    rng = np.random.default_rng(RNG_SEED + 1)
    for i in range(300):
        L = _random_layout(rng)
        if i % 3 == 1:
            b, m = int(rng.integers(0, 4)), int(rng.integers(0, 5))
            L = cv.ComposedLayout(cv.Swizzle(b, m, int(rng.integers(b, b + 4)) if b else 0), int(rng.integers(0, 64)), L)
        elif i % 3 == 2:
            inner = cv.Layout((int(rng.choice([2, 4, 8, 64])), 4), (int(rng.choice([1, 4, 16])), 1))
            L = cv.ComposedLayout(inner, int(rng.integers(0, 4)), L)
        try:
            want = ref.layout_values_ref(L)
        except Exception as e:  # the same refusal on both paths
            with pytest.raises(type(e)):
                bm.layout_values(L)
            continue
        got = bm.layout_values(L)
        assert got.dtype == want.dtype and np.array_equal(got, want), (i, str(L))


def test_vector_problem_and_widest_equal_reference():
    """Vector legality and the widest width (with their witnesses) equal the frozen ones on 300 random
    tables: contiguous, broken, misaligned, per-tile splits."""
    rng = np.random.default_rng(RNG_SEED + 2)
    for i in range(300):
        eb = int(rng.choice([1, 2, 4, 8]))
        n = int(rng.choice([1, 2, 4, 8]))
        T, V = int(rng.choice([1, 4, 32])), n * int(rng.integers(1, 4))
        off = _random_offsets(rng, T, V, eb, n, ("vectors", "random", "shared")[i % 3]).astype(np.int64)
        if i % 4 == 0:
            off = off + int(rng.integers(0, 3))
        per = None if i % 5 else V
        for width in (1, 2, 4, 8, 16, 32):
            assert bm.vector_problem(off, eb, width, 16, per) == ref.vector_problem_ref(off, eb, width, 16, per)
        assert bm.widest_vector(off, eb, 16, per) == ref.widest_ref(off, eb, 16, per)


def test_bijective_equals_reference():
    """Bijectivity of 300 random offset tables (permutations, duplicates, holes, negatives, padded)."""
    rng = np.random.default_rng(RNG_SEED + 3)
    for i in range(300):
        n = int(rng.integers(1, 300))
        sv = rng.permutation(n).astype(np.int64)
        mode = i % 5
        if mode == 1:
            sv[int(rng.integers(0, n))] = int(rng.integers(0, n))          # a duplicate (or no change)
        elif mode == 2:
            sv = sv + (np.arange(n) // 8) * int(rng.integers(0, 3))         # a padded pitch
        elif mode == 3:
            sv[int(rng.integers(0, n))] = -1
        elif mode == 4:
            sv = sv * int(rng.integers(1, 1000))                             # sparse
        for padded in (False, True):
            assert search._bijective(sv, n, padded) == ref.bijective_ref(sv, n, padded), (i, padded)


def test_bank_conflicts_end_to_end_degrees():
    """Whole calls agree with the scalar count on placed accesses over swizzled and plain tiles (the
    placement, the widths and the merge decision as the API makes them)."""
    s = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (128, 64))
    p = cv.tile_to_shape(cv.parse("(8,64):(64,1)"), (128, 64))
    row = cv.parse("((8,16),(8,8)):((1024,1),(128,16))")
    col = cv.parse("((16,8),(8,8)):((1,1024),(128,16))")
    for smem in (s, p):
        for acc in (row, col):
            for vb in (4, 8, 16):
                r = bank_conflicts(smem, acc, "bf16", vector_bytes=vb)
                _, off = bm.access_offsets(smem, acc)
                deg, wf, ideal = _scalar_degree(off, 2, vb, 32 if vb <= 4 else 128 // vb, 0, vb in (8, 16))
                assert (r.degree, r.wavefronts, r.ideal_wavefronts) == (deg, wf, ideal), (str(smem), str(acc), vb)


@pytest.mark.parametrize("eb,vb", [(8, 4), (16, 8), (16, 4), (8, 8), (16, 16), (2, 16), (1, 4)])
def test_degree_of_whole_chunk_vectors_equals_scalar_model(eb, vb):
    """Aligned contiguous vectors (one key per vector: the chunk path) and elements wider than the vector
    (every element's words count): degree, wavefronts and ideal equal the scalar count, fixed and merged
    phases, bases on and off the vector's alignment."""
    rng = np.random.default_rng(RNG_SEED + 7)
    n = max(1, vb // eb)
    for i in range(12):
        T, K = int(rng.choice([32, 64])), int(rng.integers(1, 4))
        start = rng.integers(-64, 64, size=(T, K)) * n
        off = (start[:, :, None] + np.arange(n)).reshape(T, K * n).astype(np.int64)
        idx = np.arange(off.size, dtype=np.int64).reshape(off.shape)
        base = (0, vb, 4 * eb, 128)[i % 4]
        merge = vb in (8, 16) and i % 2 == 0
        lanes = 8 if vb == 16 else 16
        got = bm.conflict_degree(idx, off, eb, vb, lanes, base, merge)
        assert got[:3] == _scalar_degree(off, eb, vb, lanes, base, merge), (i, eb, vb, base, merge)
