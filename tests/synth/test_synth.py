"""Shared-memory layout synthesis (cuteverify.synth, docs/model.md section 13): post-conditions checked with
evaluators written here (a brute-force bank model of 32 banks x 4 bytes with fixed phases, bijectivity and
vector contiguity by enumeration through the layouts' own call operator), the facts users expect, and
optimality against the whole space scored without pruning."""
from __future__ import annotations

from collections import defaultdict

import pytest

import cuteverify as cv
from cuteverify.core.layout import size
from cuteverify.errors import NoLegalLayout, SynthError
from cuteverify.synth import synthesize_smem_layout
from cuteverify.synth.search import consumer_legality

LDSM_A = "ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:2x2x1"
CP128 = "cp_async:128:thr=(16,8):(8,1)"


def _tv_table(tv):
    T, V = size(tv.shape[0]), size(tv.shape[1])
    return T, V, [[tv(t + T * v) for v in range(V)] for t in range(T)]


def brute_degree(L, tv, eb, vb, lanes):
    """Worst number of distinct 4-byte words on one bank over (warp, vector, phase) with fixed phases of
    ``lanes`` threads (the nominal phases; equal to the merged ones when no two lanes share an address)."""
    T, V, tab = _tv_table(tv)
    n = max(1, vb // eb)
    words = defaultdict(set)
    for t in range(T):
        for v in range(V):
            byte = L(tab[t][v]) * eb
            key = (t // 32, v // n, (t % 32) // lanes)
            for w in range(byte // 4, (byte + eb - 1) // 4 + 1):
                words[key + (w % 32,)].add(w)
    return max(len(s) for s in words.values())


def brute_vectors(L, tv, eb, vb):
    """Every group of vb/eb consecutive values of a thread is contiguous and vb-aligned in bytes."""
    T, V, tab = _tv_table(tv)
    n = vb // eb
    for t in range(T):
        for j in range(0, V, n):
            o = [L(tab[t][v]) for v in range(j, j + n)]
            if (o[0] * eb) % vb or o != list(range(o[0], o[0] + n)):
                return False
    return True


def brute_bijective(L, n):
    return sorted(L(i) for i in range(n)) == list(range(n))


def _check(r, eb):
    n = r.tile[0] * r.tile[1]
    assert brute_bijective(r.layout, n)
    for a, d, vb in zip(r.problem.threads, r.degrees, r.widths):
        lanes = 8 if (a.phases == "ldmatrix" or vb == 16) else (16 if vb == 8 else 32)
        assert brute_vectors(r.layout, a.tv, eb, vb)
        assert brute_degree(r.layout, a.tv, eb, vb, lanes) == d
    assert r.optimal_within_space().proved


def test_sm80_bf16_cp_async_ldmatrix_conflict_free_swizzle333_family():
    r = synthesize_smem_layout((128, 64), "bf16", writes=[CP128], reads=[LDSM_A])
    _check(r, 2)
    assert r.degrees == [1, 1] and r.widths == [16, 16] and r.conflict_free
    family = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (128, 64))
    assert all(r.layout(i) == family(i) for i in range(128 * 64))
    assert "Swizzle" in r.cpp() or "SW128" in r.cpp()
    s = str(r)
    assert "conflict-free" in s and "runner-up" in s and "optimal within the space: proved" in s


def test_unswizzled_row_major_conflicts_under_ldmatrix():
    # the independent model says the plain row-major tile is 8-way for this ldmatrix: the answer must beat it
    r = synthesize_smem_layout((128, 64), "bf16", writes=[CP128], reads=[LDSM_A])
    plain = cv.parse("(128,64):(64,1)")
    a = r.problem.threads[1]
    assert brute_degree(plain, a.tv, 2, 16, 8) == 8 > r.degrees[1]


def test_require_gmma_gives_k_major_sw128_for_64_bf16_columns():
    r = synthesize_smem_layout((128, 64), "bf16", writes=[CP128], reads=["wgmma:A:K"], require=["gmma"])
    assert r.candidate.gmma == "K_SW128"
    _check(r, 2)
    atom = cv.parse("S<3,3,3> o 0 o (8,64):(64,1)")  # GMMA::Layout_K_SW128_Atom<bf16> in elements
    ref = cv.tile_to_shape(atom, (128, 64))
    assert all(r.layout(i) == ref(i) for i in range(128 * 64))
    assert "tile_to_shape(GMMA::Layout_K_SW128_Atom<cute::bfloat16_t>{}, Shape<_128,_64>{})" == r.cpp()


def test_require_tma_refuses_non_tma_swizzles():
    r = synthesize_smem_layout((64, 64), "bf16", writes=["tma", CP128])
    ok, _ = consumer_legality(r.layout, r.problem, "tma", None)
    assert ok and r.proofs["consumers"][0][1].proved
    # a generic swizzle with M = 1 (4-byte units) is no TMA mode: the scores table says why
    for s in r.scores:
        c = r.candidates[s.cand]
        if c.swizzle and c.swizzle[1] == 1 and s.same_as is None and s.legal is False:
            assert "tma" in s.why or "vectors" in s.why


def test_no_conflict_free_layout_minimal_degree_is_optimal():
    # two reads of one warp, 2-byte scalars: thread t reads (t, 0) (a column) and (0, t) (a row) of the
    # 64x64 tile (index m + 64*k); unswizzled layouts cannot serve both without a conflict
    col = (cv.parse("(32,1):(1,0)"), 2)
    row = (cv.parse("(32,1):(64,0)"), 2)
    kw = {"reads": [col, row], "swizzles": [(0, 0, 0)], "allow_padding": False}
    r = synthesize_smem_layout((64, 64), "bf16", **kw)
    full = synthesize_smem_layout((64, 64), "bf16", prune=False, **kw)
    assert r.scores[r.best].key == full.scores[full.best].key
    _check(r, 2)
    worst = max(r.degrees)
    assert worst > 1 and not r.conflict_free
    # independent: the brute-force worst degree of every legal candidate of the space is >= the answer's
    seen = 0
    for s in full.scores:
        if s.legal and s.same_as is None:
            c = full.candidates[s.cand]
            assert max(brute_degree(c.layout, a.tv, 2, 2, 32) for a in full.problem.threads) >= worst
            seen += 1
    assert seen >= 2


def test_pruned_equals_full_space():
    for kw in ({"writes": [CP128], "reads": [LDSM_A]},
               {"writes": ["cp_async:128:thr=(32,4):(4,1)"], "reads": ["ldmatrix:B:SM80_16x8x16_F32F16F16F32_TN:2x2x1"]}):
        a = synthesize_smem_layout((128, 64), "f16", **kw)
        b = synthesize_smem_layout((128, 64), "f16", prune=False, **kw)
        assert a.scores[a.best].key[:4] == b.scores[b.best].key[:4]
        assert all(a.layout(i) == b.layout(i) for i in range(0, 128 * 64, 7))


@pytest.mark.parametrize("bad, part", [
    ("ldmatrix:C:SM80_16x8x16_F32F16F16F32_TN:2x2x1", "operand"),
    ("cp_async:96:thr=(16,8):(8,1)", "bits"),
    ("cp_async:128", "thr"),
    ("cp_async:128:thr=(16,8):(8,1):foo=1", "foo"),
    ("swizzle:3", "unknown kind"),
    ("wgmma:A:X", "major"),
    ("ldmatrix:A:NOPE_16x8x16:2x2x1", "MMA"),
    ("cp_async:128:thr=(16,8", "thr"),
])
def test_bad_access_text_names_the_part(bad, part):
    with pytest.raises(SynthError) as e:
        synthesize_smem_layout((128, 64), "bf16", reads=[bad])
    assert part in str(e.value) and e.value.kind == "input"


def test_bad_problem():
    with pytest.raises(SynthError, match="tile"):
        synthesize_smem_layout((100, 64), "bf16")
    with pytest.raises(SynthError, match="require"):
        synthesize_smem_layout((128, 64), "bf16", require=["tmem"])
    with pytest.raises(SynthError, match="dtype"):
        synthesize_smem_layout((128, 64), "bf17")


def test_no_legal_layout_is_refuted():
    # an MN-major wgmma operand of 32-bit elements: wgmma reads MN-major only for 16-bit types
    with pytest.raises(NoLegalLayout) as e:
        synthesize_smem_layout((64, 64), "f32", reads=["wgmma:A:MN"])
    assert e.value.kind == "refuted"


def _coords(tv, M):
    T, V, tab = _tv_table(tv)
    return T, V, [[(i % M, i // M) for i in row] for row in tab]


@pytest.mark.parametrize("text, along, times", [
    # ldmatrix through 2x2x1 warps: A is read by both N-warps (B by both M-warps); x2 / x1 take addresses from
    # lanes 0-15 / 0-7 only, the other lanes repeat them (the spec's source layout), so 2x / 4x more reads
    # (stmatrix through 2x2x1 SM80 accumulators: 4 values per thread, so x2, lanes 16-31 repeat 0-15)
    (LDSM_A, "k", 2), (LDSM_A + ":x2", "k", 4), (LDSM_A + ":x1", "k", 8), (LDSM_A + ":t", "m", 2),
    ("ldmatrix:B:SM80_16x8x16_F32F16F16F32_TN:2x2x1:x2", "k", 4),
    ("stmatrix:SM80_16x8x16_F32F16F16F32_TN:2x2x1", "k", 2), ("stmatrix:SM80_16x8x16_F32F16F16F32_TN:2x2x1:t", "m", 2),
    (CP128, "k", 1), ("cp_async:128:thr=(8,16):(1,8):val=(8,1)", "m", 1), ("cp_async:64:thr=(32,4):(4,1)", "k", 1),
])
def test_access_text_forms_cover_the_tile_with_rows_of_one_vector(text, along, times):
    from cuteverify.synth import make_problem
    M, K = 128, 64
    p = make_problem((M, K), "f16", reads=[text]) if text.startswith("ldmatrix") else \
        make_problem((M, K), "f16", writes=[text])
    (a,) = p.threads
    vb = a.vector_bytes
    n = vb // 2
    T, V, crd = _coords(a.tv, M)
    count = defaultdict(int)
    for t in range(T):
        for v in range(V):
            count[crd[t][v]] += 1
        for j in range(0, V, n):  # one vector: consecutive elements along one mode
            (m0, k0) = crd[t][j]
            want = [(m0, k0 + d) if along == "k" else (m0 + d, k0) for d in range(n)]
            assert crd[t][j:j + n] == want, (text, t, j)
    assert set(count.values()) == {times} and len(count) == M * K
    assert a.phases == ("ldmatrix" if text.startswith(("ldmatrix", "stmatrix")) else None)


def test_objects_as_accesses():
    from cuteverify.atoms import make_tiled_copy_tv
    tc = make_tiled_copy_tv("UniversalCopy<uint128_t>", cv.parse("(16,8):(8,1)"), cv.parse("(1,8)"), "f16")
    a = synthesize_smem_layout((128, 64), "f16", writes=[tc], reads=[LDSM_A])
    b = synthesize_smem_layout((128, 64), "f16", writes=[CP128], reads=[LDSM_A])
    assert a.scores[a.best].key == b.scores[b.best].key and a.widths == [16, 16]
    # a TV layout object (free width) and the same with a fixed 4-byte width: thread (a, b) reads row b,
    # elements k = 8a .. 8a+7 (index m + 64*k)
    tv = cv.parse("((8,8),8):((512,1),64)")
    c = synthesize_smem_layout((64, 64), "f16", reads=[tv, (tv, 4)])
    assert c.widths[1] == 4 and c.conflict_free
    _check(c, 2)
    d = synthesize_smem_layout((64, 64), "f16", reads=[tv])
    assert d.widths == [16] and d.conflict_free
    _check(d, 2)


def test_optimality_check_refutes_a_tampered_table():
    r = synthesize_smem_layout((64, 64), "bf16", writes=[CP128], reads=[LDSM_A])
    assert r.optimal_within_space().proved
    rows = [s for s in r.scores if s.legal and s.key is not None and s.cand != r.best]
    assert rows and any(s.pruned for s in r.scores)
    victim = rows[0]
    saved = victim.key
    victim.key = (0,) + saved[1:]  # a legal row that scores better than the answer
    try:
        v = r.optimal_within_space()
        assert v.refuted and f"candidate {victim.cand}" in v.reason
    finally:
        victim.key = saved
    pruned = next(s for s in r.scores if s.pruned)
    saved = pruned.lower
    pruned.lower = (1, 1)  # a bound that no longer exceeds the runner-up
    try:
        assert r.optimal_within_space().refuted
    finally:
        pruned.lower = saved
