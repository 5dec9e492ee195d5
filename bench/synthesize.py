"""Benchmark of shared-memory layout synthesis (issue 20; docs/model.md section 13).

A generated set of (tile, dtype, accesses, requirements) problems: tiles from 8x64 to 128x128, f16 / bf16 /
f32 / e4m3, writes by 128-bit cp.async from several thread arrangements (K-major and MN-major) or by TMA, reads
by ldmatrix (A / B operands, x4 / x2, non-transposed and transposed) of SM80 MMAs or by wgmma, the
requirements gmma / tma, and one warp reading a column and a row as scalars (no conflict-free unpadded
layout: a minimal degree above 1, or with padding allowed a padded pitch). For each problem it times
``synthesize_smem_layout`` (with pruning), then, in the same process, scores the WHOLE space without pruning
and checks that the pruned search found the same optimum (equal objective) and that
``optimal_within_space()`` proves it. Combinations whose access tile does not divide the smem tile, or that
no layout serves (an MN-major write with a K-major ldmatrix), are counted as skipped.

Prints: problems, median / p95 / max seconds (goal: median <= 1 s), optimal count, conflict-free count.

Issue 30: every problem's pruned search is also timed on the bank model before issue 30
(``banks_before.before()``: element-by-element layout tables, ``np.unique`` degrees, sorted bijectivity), in
this process, and must find the same optimum; the lines print both CPU times and the ratio, the summary the
median ratio and the totals, then the same for 256x256 tiles (goal: <= 1 s).
Run: ``python bench/synthesize.py`` (a few minutes; ``--quick`` for a third of the set).
"""
from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cuteverify as cv
from banks_before import before
from cuteverify.errors import SynthError
from cuteverify.synth import synthesize_smem_layout

MMA = {"f16": "SM80_16x8x16_F32F16F16F32_TN", "bf16": "SM80_16x8x16_F32BF16BF16F32_TN",
       "f32": "SM80_16x8x8_F32TF32TF32F32_TN", "e4m3": "SM80_16x8x32_S32S8S8S32_TN"}
EB = {"f16": 2, "bf16": 2, "f32": 4, "e4m3": 1}


def _cp_writes(tile, dtype):
    """128-bit cp.async writes whose thread tile divides the smem tile: K-major (16,8), (32,4), (8,16) threads
    and an MN-major (16,8) arrangement with the vector along MN."""
    M, K = tile
    n = 16 // EB[dtype]
    out = []
    for tm, tk in ((16, 8), (32, 4), (8, 16), (8, 8)):
        if M % tm == 0 and K % (tk * n) == 0:
            out.append(f"cp_async:128:thr=({tm},{tk}):({tk},1)")
    if M % (8 * n) == 0 and K % 16 == 0:
        out.append(f"cp_async:128:thr=(8,16):(1,8):val=({n},1)")
    return out


def _ldsm_reads(dtype):
    out = []
    for op, warps in (("A", "2x2x1"), ("B", "2x2x1"), ("A", "4x1x1"), ("B", "1x4x1")):
        for opt in ("", ":x2", ":t"):
            if opt == ":t" and EB[dtype] != 2:
                continue
            out.append(f"ldmatrix:{op}:{MMA[dtype]}:{warps}{opt}")
    return out


def _column_and_row(tile):
    """One warp reading a column (thread t: (t, 0)) and a row (thread t: (0, t)) as scalars: no unpadded layout
    of the space serves both conflict-free, so these problems have a minimal degree above 1 (or a pad)."""
    M = tile[0]
    n = min(32, tile[0], tile[1])
    return [(cv.parse(f"({n},1):(1,0)"), None), (cv.parse(f"({n},1):({M},0)"), None)]


def problems():
    """(tile, dtype, writes, reads, require, options) of the set (module docstring)."""
    tiles = [(64, 64), (128, 64), (64, 128), (128, 128), (8, 64), (16, 64), (32, 128)]
    out = []
    for tile in tiles:
        for dtype in ("f16", "bf16", "f32", "e4m3"):
            writes = _cp_writes(tile, dtype)[:3]
            reads = _ldsm_reads(dtype)
            k = len(out)
            for i, w in enumerate(writes):
                r = reads[(k + i) % len(reads)] if tile[0] >= 32 else None
                out.append((tile, dtype, [w], [r] if r else [], [], {}))
            if tile[0] >= 64 and dtype in ("bf16", "e4m3"):
                out.append((tile, dtype, ["tma"], ["wgmma:A:K"], ["gmma"], {}))
                if writes:
                    out.append((tile, dtype, [writes[0]], [], ["gmma", "tma"], {}))
            if dtype in ("f16", "f32") and tile[0] >= 32:
                out.append((tile, dtype, [], _column_and_row(tile), [], {"allow_padding": dtype == "f32"}))
    return out


def big_problems():
    """256x256 tiles (issue 30's goal case): a cp.async write with an ldmatrix read, TMA with wgmma, the column
    and row scalar reads."""
    mma = MMA["bf16"]
    return [((256, 256), "bf16", [_cp_writes((256, 256), "bf16")[0]], [f"ldmatrix:A:{mma}:2x2x1"], [], {}),
            ((256, 256), "bf16", ["tma"], ["wgmma:A:K"], ["gmma"], {}),
            ((256, 256), "f16", [_cp_writes((256, 256), "f16")[0]], [f"ldmatrix:B:{MMA['f16']}:2x2x1"], [], {}),
            ((256, 256), "f32", [], _column_and_row((256, 256)), [], {"allow_padding": True})]


def _timed(tile, dtype, writes, reads, req, opts):
    """(result, CPU seconds now, CPU seconds before issue 30); the two optima must agree."""
    t0 = time.process_time()
    r = synthesize_smem_layout(tile, dtype, writes=writes, reads=reads, require=req, **opts)
    now = time.process_time() - t0
    with before():
        t0 = time.process_time()
        old = synthesize_smem_layout(tile, dtype, writes=writes, reads=reads, require=req, **opts)
        was = time.process_time() - t0
    if old.scores[old.best].key != r.scores[r.best].key or str(old.layout) != str(r.layout):
        raise SystemExit(f"{tile} {dtype}: the model before issue 30 finds {old.layout}, today {r.layout}")
    return r, now, was


def _name(a):
    return a if isinstance(a, str) else f"tv {a[0]}"


def main(quick=False):
    probs = problems()
    if quick:
        probs = probs[::3]
    times, optimal, free, skipped, n, ratios, was_total = [], 0, 0, [], 0, [], 0.0
    for tile, dtype, writes, reads, req, opts in probs:
        try:
            r, dt, was = _timed(tile, dtype, writes, reads, req, opts)
        except SynthError as e:  # an access whose tile does not divide this one: not a problem of the set
            skipped.append(f"{tile} {dtype}: {str(e)[:100]}")
            continue
        n += 1
        times.append(dt)
        ratios.append(was / dt)
        was_total += was
        full = synthesize_smem_layout(tile, dtype, writes=writes, reads=reads, require=req, prune=False, **opts)
        same = r.scores[r.best].key == full.scores[full.best].key
        ok = same and r.optimal_within_space().proved and full.optimal_within_space().proved
        optimal += ok
        free += r.conflict_free
        print(f"{dt:6.3f}s (before {was:6.3f}s, {was / dt:4.1f}x)  {'opt ' if ok else 'DIFF'} "
              f"{'free' if r.conflict_free else f'{max(r.degrees)}-way'}"
              f"  {tile[0]}x{tile[1]} {dtype:5s} {' + '.join(_name(a) for a in writes + reads) or '-'}"
              f"{' require ' + ','.join(req) if req else ''}{' (padding)' if opts.get('allow_padding') else ''}"
              f" -> {r.cpp()[:90]}", flush=True)
    print(f"\nbefore/after (CPU, this process): total {was_total:.2f} s before, {sum(times):.2f} s now "
          f"({was_total / sum(times):.1f}x); median ratio {statistics.median(ratios):.1f}x, "
          f"min {min(ratios):.1f}x")
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"\nproblems: {n} (skipped {len(skipped)} inadmissible combinations)")
    print(f"CPU seconds per problem: median {statistics.median(times):.3f}, p95 {p95:.3f}, max {times[-1]:.3f} "
          f"(goal: median <= 1 s)")
    print(f"optimal within the searched space (pruned == whole space, proved): {optimal} / {n}")
    print(f"conflict-free on every access: {free} / {n}")
    print("\n256x256 tiles (goal: <= 1 s):")
    for tile, dtype, writes, reads, req, opts in big_problems():
        r, dt, was = _timed(tile, dtype, writes, reads, req, opts)
        print(f"{dt:6.3f}s (before {was:6.3f}s, {was / dt:4.1f}x)  {tile[0]}x{tile[1]} {dtype:5s} "
              f"{' + '.join(_name(a) for a in writes + reads)}{' require ' + ','.join(req) if req else ''}"
              f"{' (padding)' if opts.get('allow_padding') else ''} -> {r.cpp()[:80]}", flush=True)
    return 0 if optimal == n else 1


if __name__ == "__main__":
    sys.exit(main("--quick" in sys.argv))
