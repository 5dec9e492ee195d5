"""Bank conflicts and vector width (issue 10): ``cuteverify.banks`` against a separate, straightforward
simulation of the banking model, on hundreds of generated (smem, access) pairs, plus the worked examples."""
from __future__ import annotations

import os
import random
import sys
from collections import defaultdict

import pytest

import cuteverify as cv
from cuteverify.analysis import banks
from cuteverify.errors import CuteVerifyError, NotAdmissibleError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))


# ------------------------------------------------------------------- the reference model, written plainly

def brute_vector_ok(offsets, eb, width):
    """offsets[t][v] element offsets; can every thread read its values as aligned contiguous vectors?"""
    n = width // eb
    for row in offsets:
        if len(row) % n:
            return False
        for k in range(0, len(row), n):
            if (row[k] * eb) % width:
                return False
            for j in range(n):
                if row[k + j] != row[k] + j:
                    return False
    return True


def brute_widest(offsets, eb, alignment=16):
    best = eb
    w = eb * 2
    while w <= 16 and w <= alignment:
        if brute_vector_ok(offsets, eb, w):
            best = w
        else:
            break
        w *= 2
    return best


def brute_offsets(smem, access):
    T = cv.size(access[0]) if isinstance(access.shape, tuple) else cv.size(access)
    V = cv.size(access) // T
    idx = [[access(t + T * v) for v in range(V)] for t in range(T)]
    off = [[smem(i) for i in row] for row in idx]
    return idx, off


def brute_phase(offsets, eb, vector_bytes):
    """(thread, iteration) -> phase of its warp request: one phase of 32 lanes for <= 4 bytes; for 8 / 16 bytes
    the H200's phases (recorded in specs/evidence/sm90/banks_ncu.jsonl): lanes of an aligned quad with the
    same vector address are one request; requests in lane order fill phases of 16 (8 bytes) or 8 (16 bytes,
    each half-warp on its own)."""
    T, V = len(offsets), len(offsets[0])
    n = vector_bytes // eb
    out = {}
    for k in range(V // n):
        for w0 in range(0, T, 32):
            if vector_bytes <= 4:
                out.update({(t, k): 0 for t in range(w0, min(T, w0 + 32))})
                continue
            seg = 16 if vector_bytes == 16 else 32
            for s0 in range(w0, min(T, w0 + 32), seg):
                reqs = {}                                   # (quad, address) -> phase
                count = 0
                for t in range(s0, min(T, s0 + seg)):
                    key = (t // 4, offsets[t][k * n])
                    if key not in reqs:
                        reqs[key] = count // (128 // vector_bytes) + (2 * ((s0 % 32) // 16) if seg == 16 else 0)
                        count += 1
                    out[(t, k)] = reqs[key]
    return out


def brute_degree(offsets, eb, vector_bytes):
    """Max distinct words on one bank over (warp, iteration, phase); each element's bytes touch words."""
    T, V = len(offsets), len(offsets[0])
    n = vector_bytes // eb
    phase_of = brute_phase(offsets, eb, vector_bytes)
    phases = defaultdict(lambda: defaultdict(set))      # (warp, iter, phase) -> bank -> words
    for t in range(T):
        warp, lane = divmod(t, 32)
        for v in range(V):
            key = (warp, v // n, phase_of[(t, v // n)])
            a = offsets[t][v] * eb
            for b in range(a, a + eb):
                w = b // 4
                phases[key][w % 32].add(w)
    worst, waves = 0, 0
    for banks_of in phases.values():
        d = max(len(ws) for ws in banks_of.values())
        worst = max(worst, d)
        waves += d
    return worst, waves, len(phases)


# ---------------------------------------------------------------------------------- generators

def rand_access(rng, N):
    """A TV layout over a tile of N = 2^k elements: size-2 leaves with permuted power-of-two strides,
    sometimes with the lowest bits leading the value mode (vectorisable), sometimes a broadcast leaf."""
    k = N.bit_length() - 1
    tk = rng.randint(3, min(k, 7))                      # 8 .. 128 threads
    bits = list(range(k))
    rng.shuffle(bits)
    if rng.random() < 0.6:                              # make values contiguous: low bits into the value mode
        nv = rng.randint(0, min(4, k - tk))
        low = list(range(nv))
        rest = [b for b in bits if b not in low]
        bits = rest[:tk] + low + rest[tk:]
    strides = [1 << b for b in bits]
    if rng.random() < 0.15:                             # a broadcast: two threads read the same element
        strides[rng.randrange(tk)] = 0
    thr = cv.Layout((2,) * tk, tuple(strides[:tk])) if tk > 1 else cv.Layout(2, strides[0])
    vk = k - tk
    if vk == 0:
        val = cv.Layout(1, 0)
    elif vk == 1:
        val = cv.Layout(2, strides[tk])
    else:
        val = cv.Layout((2,) * vk, tuple(strides[tk:]))
    return cv.make_layout(thr, val)


def rand_smem(rng, N):
    """(R, C) tile -> offset: row-major, column-major, padded, or swizzled row-major."""
    k = N.bit_length() - 1
    r = rng.randint(1, k - 1)
    R, C = 1 << r, 1 << (k - r)
    kind = rng.choice(["row", "col", "pad", "swz", "swz", "swz"])
    if kind == "row":
        return cv.Layout((R, C), (C, 1))
    if kind == "col":
        return cv.Layout((R, C), (1, R))
    if kind == "pad":
        return cv.Layout((R, C), (C + rng.choice([1, 2, 4, 8]), 1))
    B = rng.randint(1, 3)
    M = rng.randint(0, 4)
    S = rng.randint(B, 5)
    return cv.ComposedLayout(cv.Swizzle(B, M, S), 0, cv.Layout((R, C), (C, 1)))


def cases(n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        N = 1 << rng.randint(6, 11)
        eb = rng.choice([1, 2, 2, 2, 4, 4, 8])
        out.append((rand_smem(rng, N), rand_access(rng, N), eb, rng.random()))
    return out


# --------------------------------------------------------------------------------------- tests

@pytest.mark.parametrize("chunk", range(6))
def test_degree_matches_brute_force(chunk):
    checked = 0
    for smem, access, eb, u in cases(60, 1000 + chunk):
        idx, off = brute_offsets(smem, access)
        widest = brute_widest(off, eb)
        # the width: inferred, or an explicit valid one, or an explicit invalid one (must be refused)
        if u < 0.4:
            vb = None
            expect_vb = widest
        elif u < 0.85:
            vb = rng_valid(widest, eb, u)
            expect_vb = vb
        else:
            vb = min(16, max(eb, widest * 2))
            expect_vb = vb
        if vb is not None and not brute_vector_ok(off, eb, vb):
            # an access that cannot be issued at its width: refuted, naming a thread whose values break it
            r = banks.bank_conflicts(smem, access, elem_bytes=eb, vector_bytes=vb, tile=cv.size(smem))
            assert r.refuted and r.degree is None, (str(smem), str(access), eb, vb)
            assert not brute_vector_ok([off[r.counterexample.thread]], eb, vb)
            continue
        # the access indexes the whole smem tile: tile= says so (a broadcast leaf may leave its last index out)
        v = banks.bank_conflicts(smem, access, elem_bytes=eb, vector_bytes=vb, tile=cv.size(smem))
        deg, waves, ideal = brute_degree(off, eb, expect_vb)
        assert v.vector_bytes == expect_vb, (smem, access, eb)
        assert v.degree == deg, (str(smem), str(access), eb, expect_vb, v.degree, deg)
        assert (v.wavefronts, v.ideal_wavefronts) == (waves, ideal)
        assert v.status == ("proved" if deg <= 1 else "refuted")
        if deg > 1:
            check_witness(v.counterexample, smem, access, eb, expect_vb, off)
        checked += 1
    assert checked >= 40


def rng_valid(widest, eb, u):
    ws = []
    w = eb
    while w <= widest:
        ws.append(w)
        w *= 2
    return ws[int(u * 1000) % len(ws)]


def check_witness(cex, smem, access, eb, vb, off):
    """The two threads share warp, iteration and phase, touch different words of one bank, at the stated
    addresses."""
    t0, t1 = cex.threads
    phase_of = brute_phase(off, eb, vb)
    assert t0 // 32 == t1 // 32 == cex.warp
    assert phase_of[(t0, cex.iteration)] == phase_of[(t1, cex.iteration)] == cex.phase
    n = vb // eb
    for t, e, a in zip(cex.threads, cex.elements, cex.addresses):
        T = cv.size(access[0])
        vs = [v for v in range(cex.iteration * n, cex.iteration * n + n) if access(t + T * v) == e]
        assert vs, (t, e)
        assert off[t][vs[0]] * eb == a == smem(e) * eb
        assert (a // 4) % 32 == cex.bank
    assert cex.addresses[0] // 4 != cex.addresses[1] // 4
    assert cex.degree >= 2


@pytest.mark.parametrize("seed", range(3))
def test_vector_width_matches_enumeration(seed):
    for smem, access, eb, _ in cases(60, 77 + seed):
        idx, off = brute_offsets(smem, access)
        for align in (16, 8, 4):
            v = banks.max_vector_width(access, elem_bytes=eb, smem=smem, alignment=align, tile=cv.size(smem))
            assert v.status == "proved"
            assert v.width == brute_widest(off, eb, align), (str(smem), str(access), eb, align)
            if v.width < 16 and v.width < align:
                assert v.blocker is not None and v.blocker.width == 2 * v.width
        r = banks.max_vector_width(access, elem_bytes=eb, smem=smem, require=16, tile=cv.size(smem))
        assert r.status == ("proved" if brute_widest(off, eb) >= 16 else "refuted")
        if r.refuted:
            t = r.counterexample.thread
            assert not brute_vector_ok([off[t]], eb, 16)


def test_vector_width_plain_layouts():
    assert banks.max_vector_width(cv.parse("(4,8):(8,1)"), "bf16").width == 16
    assert banks.max_vector_width(cv.parse("(4,(2,4)):(2,(1,16))"), "bf16").width == 4
    assert banks.max_vector_width(cv.parse("(64,64):(64,1)"), "bf16", tv=False).width == 2
    assert banks.max_vector_width(cv.parse("32:1"), "f32").width == 16           # one thread, 32 floats
    assert banks.max_vector_width(cv.parse("(4,8):(8,1)"), "f32", alignment=8).width == 8
    assert banks.max_vector_width(cv.parse("(4,8):(8,1)"), "f64").width == 16
    v = banks.max_vector_width(cv.parse("(32,4):(1,32)"), "e4m3", require=4)
    assert v.refuted and v.counterexample.thread == 0
    # a swizzle keeps 16-byte chunks for S<3,3,3> on 16-bit elements but not S<3,2,3>
    tv = cv.parse("((8,16),(8,8)):((1024,1),(128,16))")
    assert banks.max_vector_width(tv, "bf16", smem=cv.parse("S<3,3,3> o 0 o (128,64):(64,1)")).width == 16
    assert banks.max_vector_width(tv, "bf16", smem=cv.parse("S<3,2,3> o 0 o (128,64):(64,1)")).width == 8


def test_worked_examples():
    import banks_fa2 as ex
    k_sw = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (64, 64))
    k_plain = cv.tile_to_shape(cv.parse("(8,64):(64,1)"), (64, 64))
    access, _ = ex.fa2_k_tile_access()
    assert cv.size(access) == 64 * 64 and sorted(access.values()) == list(range(4096))
    sw = banks.bank_conflicts(k_sw, access, "bf16", phases="ldmatrix")
    assert sw.proved and sw.degree == 1 and sw.vector_bytes == 16
    pl = banks.bank_conflicts(k_plain, access, "bf16", phases="ldmatrix")
    assert pl.refuted and pl.degree == 8
    c = pl.counterexample
    assert c.bank == (c.addresses[0] // 4) % 32 == (c.addresses[1] // 4) % 32
    # Hopper 128B swizzle, 16-byte copy, column-major threads: conflict-free only with the swizzle
    col_major = cv.parse("((16,8),(8,8)):((1,1024),(128,16))")
    s128 = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (128, 64))
    p128 = cv.tile_to_shape(cv.parse("(8,64):(64,1)"), (128, 64))
    assert banks.bank_conflicts(s128, col_major, "bf16", vector_bytes=16).degree == 1
    assert banks.bank_conflicts(p128, col_major, "bf16", vector_bytes=16).degree == 8
    ex.main()  # the script runs


def test_phase_models():
    # 32 threads each reading one f32 with stride 2 words: 2-way in one 32-thread phase
    acc = cv.parse("(32,1):(2,0)")
    smem = cv.parse("64:1")
    assert banks.bank_conflicts(smem, acc, "f32", tile=64).degree == 2
    # the same stride with 8-byte (2 x f32) accesses: 16-thread phases, 32 words of 16 threads: conflict-free
    acc8 = cv.parse("(32,2):(2,1)")
    v = banks.bank_conflicts(smem, acc8, "f32")
    assert v.vector_bytes == 8 and v.lanes_per_phase == 16 and v.degree == 1
    # forcing one 32-thread phase on the same request gives 2-way
    assert banks.bank_conflicts(smem, acc8, "f32", phases=1).degree == 2
    # broadcast: every thread reads element 0
    assert banks.bank_conflicts(smem, cv.parse("(32,1):(0,0)"), "f32", tile=64).degree == 1
    # bf16 pairs in one word are one word: 32 threads x 1 bf16, stride 1 element, conflict-free
    assert banks.bank_conflicts(cv.parse("64:1"), cv.parse("32:1"), "bf16", tile=64).degree == 1
    # coordinates as the access codomain: (t, v) -> (row, col) of a (8,64) row-major tile
    smem2 = cv.parse("(8,64):(64,1)")
    acc_c = cv.Layout((8, 8), (cv.E(0), cv.E(1) * 8))  # thread t: row t, value v: col 8v
    acc_i = cv.Layout((8, 8), (1, 64))
    a, b = banks.bank_conflicts(smem2, acc_c, "bf16"), banks.bank_conflicts(smem2, acc_i, "bf16", tile=(8, 64))
    assert a.degree == b.degree


def test_bad_input_and_symbolic():
    smem = cv.parse("(64,64):(64,1)")
    with pytest.raises(CuteVerifyError):
        banks.bank_conflicts(smem, cv.parse("(32,(8,32)):(64,(1,2048))"), "bf16")  # outside the tile
    with pytest.raises(CuteVerifyError):
        banks.bank_conflicts(smem, cv.parse("(32,8):(8,1)"), "bf16", vector_bytes=32)
    with pytest.raises(CuteVerifyError):
        banks.bank_conflicts(smem, cv.parse("(32,8):(8,1)"), "q7")
    L = cv.parse("(N,64):(64,1)")
    acc = cv.Layout((32, 8), (cv.E(0), cv.E(1)))        # thread t: row t, 8 contiguous columns
    u = banks.bank_conflicts(L, acc, "bf16")
    assert u.status == "unknown" and "N" in u.reason
    Lf = cv.parse("(N,64):(64,1)", assume=["N in {32,64,128}"])
    f = banks.bank_conflicts(Lf, acc, "bf16")
    assert f.refuted and f.degree == 8 and len(f.instances) == 3
    pad = cv.parse("(N,64):(P,1)", assume=["N in {32,64}", "P in {64,72}"])
    r = banks.bank_conflicts(pad, acc, "bf16")
    assert r.degree == 8 and r.counterexample.assignment["P"] == 64
    ok = cv.parse("(N,64):(72,1)", assume=["N in {32,64}"])
    assert banks.bank_conflicts(ok, acc, "bf16").proved
    vw = banks.max_vector_width(cv.parse("(32,(V,2)):(V,(1,32*V))", assume=["V in {2,4,8}"]), "bf16")
    assert vw.width == 4


def test_cli():
    click_testing = pytest.importorskip("click.testing")
    import click
    from cuteverify.frontend.cli.banks_cmd import register

    @click.group()
    def grp():
        pass

    register(grp)
    run = click_testing.CliRunner().invoke
    acc = "((8,2,2),(8,(4,4))):((1,512,8),(64,(16,1024)))"
    r = run(grp, ["banks", "S<3,3,3> o 0 o (64,64):(64,1)", "--access", acc, "--dtype", "bf16", "--vector", "16"])
    assert r.exit_code == 0, r.output
    r = run(grp, ["banks", "(64,64):(64,1)", "--access", acc, "--json"])
    assert r.exit_code == 1 and '"degree": 8' in r.output
    r = run(grp, ["banks", "(64,64):(64,1)", "--access", acc, "--vector", "3"])
    assert r.exit_code == 2
    r = run(grp, ["banks", "(N,64):(64,1)", "--access", acc])
    assert r.exit_code == 3
    r = run(grp, ["banks", "(64,64", "--access", acc])
    assert r.exit_code == 2
    r = run(grp, ["vector", "(4,(2,4)):(2,(1,16))", "--dtype", "bf16", "--require", "16"])
    assert r.exit_code == 1
    r = run(grp, ["vector", "(4,8):(8,1)", "--dtype", "bf16"])
    assert r.exit_code == 0 and "16 bytes" in r.output
