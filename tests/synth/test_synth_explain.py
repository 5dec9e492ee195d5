"""``explain_smem_layout``: why a user's layout conflicts (the witness re-checked here by address arithmetic on
the layout) and the nearest candidate of the space that removes the conflict (its degrees re-checked with the
brute-force bank model of test_synth), or that no change within the space removes it."""
from __future__ import annotations


from test_synth import CP128, LDSM_A, brute_degree

import cuteverify as cv
from cuteverify.synth import enumerate_space, explain_smem_layout, make_problem


def _check_witness(L, c, eb):
    (e0, e1), (a0, a1) = c.elements, c.addresses
    assert L(e0) * eb == a0 and L(e1) * eb == a1
    assert (a0 // 4) % 32 == (a1 // 4) % 32 == c.bank and a0 // 4 != a1 // 4
    assert c.threads[0] // 32 == c.threads[1] // 32  # one warp


def test_row_major_tile_ldmatrix_conflict_and_its_fix():
    L = cv.parse("(128,64):(64,1)")
    e = explain_smem_layout(L, (128, 64), "bf16", writes=[CP128], reads=[LDSM_A])
    w, r = e.accesses
    assert w.degree == 1 and w.fix is None
    assert r.degree == 8 and len(e.conflicting) == 1
    _check_witness(L, r.conflict, 2)
    fix = r.fix
    assert fix is not None
    # the fix's degrees, by the independent model: the ldmatrix read is conflict-free, the write no worse
    prob = make_problem((128, 64), "bf16", [CP128], [LDSM_A])
    degs = [brute_degree(fix.layout, a.tv, 2, 16, 8) for a in prob.threads]
    assert degs == fix.degrees and degs[1] == 1 and degs[0] <= w.degree
    moved = sum(fix.layout(i) != L(i) for i in range(128 * 64)) / (128 * 64)
    assert abs(moved - fix.distance) < 1e-12
    assert e.in_space is not None and fix.changes  # the row-major tile is a point of the space
    assert "8-way" in str(e) and "nearest fix" in str(e)


def test_fa2_swizzled_tile_is_conflict_free():
    L = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (64, 64))
    e = explain_smem_layout(L, (64, 64), "bf16", writes=[CP128],
                            reads=["ldmatrix:B:SM80_16x8x16_F32F16F16F32_TN:4x1x1:x2"])
    assert all(a.degree == 1 and a.fix is None for a in e.accesses) and not e.conflicting


def test_no_change_within_the_space_removes_it():
    # a column and a row of 32 elements read by one warp (2-byte scalars): the row-major tile serves the row
    col = (cv.parse("(32,1):(1,0)"), 2)
    row = (cv.parse("(32,1):(64,0)"), 2)
    L = cv.parse("(64,64):(64,1)")
    kw = {"reads": [col, row], "swizzles": [(0, 0, 0)]}
    e = explain_smem_layout(L, (64, 64), "bf16", **kw)
    c, r = e.accesses
    assert r.degree == 1 and c.degree == 32
    _check_witness(L, c.conflict, 2)
    # independent: over every candidate of the space, the least column degree with the row still conflict-free
    prob = make_problem((64, 64), "bf16", reads=[col, row])
    best = min(brute_degree(k.layout, prob.threads[0].tv, 2, 2, 32) for k in enumerate_space((64, 64), 16,
                                                                                             swizzles=[(0, 0, 0)])
               if brute_degree(k.layout, prob.threads[1].tv, 2, 2, 32) <= 1)
    assert c.min_degree == best > 1
    assert c.fix is None or (not c.fix.removes and c.fix.degrees[0] == best)
    assert "no layout of the searched space removes it" in str(e)
    # with padding in the space, a padded pitch removes it
    p = explain_smem_layout(L, (64, 64), "bf16", allow_padding=True, **kw)
    assert p.accesses[0].fix.removes and p.accesses[0].fix.candidate.family == "padded"
    assert brute_degree(p.accesses[0].fix.layout, prob.threads[0].tv, 2, 2, 32) == 1


def test_the_smallest_change_wraps_the_users_layout_in_a_swizzle():
    from cuteverify.analysis.banks import bank_conflicts
    from cuteverify.core.notation.parse import parse
    from cuteverify.synth import explain_smem_layout, make_problem
    ld, cp = "ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:2x2x1", "cp_async:128:thr=(16,8):(8,1)"
    user = parse("(64,64):(64,1)")
    ex = explain_smem_layout(user, (64, 64), "bf16", writes=[cp], reads=[ld])
    acc = [a for a in ex.accesses if a.degree > 1]
    assert len(acc) == 1 and acc[0].wrap is not None
    w = acc[0].wrap
    sw = w.swizzle
    # the wrapped layout is the user's offsets through the swizzle, point by point (our own XOR formula)
    src = ((1 << sw.bits) - 1) << (sw.base + sw.shift)
    moved = 0
    for i in range(64 * 64):
        o = user(i)
        assert w.layout(i) == o ^ ((o & src) >> sw.shift)
        moved += w.layout(i) != o
    assert abs(moved / 4096 - w.distance) < 1e-9
    # conflict-free for the access it fixes, and no access worse (re-derived through bank_conflicts)
    prob = make_problem((64, 64), "bf16", writes=[cp], reads=[ld])
    for a, before in zip(prob.threads, ex.accesses):
        d = bank_conflicts(w.layout, a.tv, dtype="bf16", vector_bytes=16,
                           phases=a.phases).degree
        assert d <= before.degree and (before.degree == 1 or d == 1)
    # a layout that already has a swizzle gets no wrapper (two swizzles are not one)
    ex2 = explain_smem_layout(parse("S<1,3,3> o 0 o (64,64):(64,1)"), (64, 64), "bf16", reads=[ld])
    assert any(a.degree > 1 for a in ex2.accesses) and all(a.wrap is None for a in ex2.accesses)
