"""Bank-conflict proof speed (issue 10): a 128x64 bf16 shared-memory tile with a 128-thread copy of 16-byte
vectors (``Swizzle<3,3,3>`` = the 128B swizzle, and unswizzled), median milliseconds per
``cv.banks.bank_conflicts`` call (goal: <= 100 ms). Also the FA2 ldmatrix case, ``max_vector_width`` and the
same copy placed over a 512x512 tile (256k elements, 32 tiles; issue 30).

Issue 30: every case is timed on today's model and on the model before issue 30 (``banks_before.before()``:
the frozen element-by-element tables, ``np.unique`` degrees, loops), interleaved in this process; the table
prints both medians and the ratio (goal: >= 10x at 256k elements). Prints, asserts nothing.

    python bench/banks.py [--repeat 50]
"""
from __future__ import annotations

import argparse
import statistics
import time

import cuteverify as cv
from banks_before import before
from cuteverify.analysis import banks


def timed(fn, repeat):
    """(median CPU ms now, median CPU ms before issue 30, result now), the two interleaved call by call (CPU
    time: on a shared machine the wall clock also counts waiting for a core)."""
    with before():
        old = fn()  # warm-up (imports, numpy first calls)
    r = fn()
    if (getattr(r, "degree", None), getattr(r, "width", None)) != (getattr(old, "degree", None), getattr(old, "width", None)):
        raise SystemExit(f"the model before issue 30 answers differently: {old} vs {r}")
    now, was = [], []
    for _ in range(repeat):
        t0 = time.process_time()
        r = fn()
        now.append((time.process_time() - t0) * 1e3)
        with before():
            t0 = time.process_time()
            fn()
            was.append((time.process_time() - t0) * 1e3)
    return statistics.median(now), statistics.median(was), r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()

    s128 = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (128, 64))
    p128 = cv.tile_to_shape(cv.parse("(8,64):(64,1)"), (128, 64))
    row_major = cv.parse("((8,16),(8,8)):((1024,1),(128,16))")   # 16x8 threads, 8 bf16 each, 8 row steps
    col_major = cv.parse("((16,8),(8,8)):((1,1024),(128,16))")
    k64 = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (64, 64))
    ldsm = cv.parse("((8,2,2),(8,(4,4))):((1,512,8),(64,(16,1024)))")
    s512 = cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (512, 512))
    p512 = cv.tile_to_shape(cv.parse("(8,64):(64,1)"), (512, 512))

    rows = [
        ("128x64 bf16 SW128, 128 thr row-major, 16B (goal case)",
         lambda: banks.bank_conflicts(s128, row_major, "bf16", vector_bytes=16)),
        ("128x64 bf16 SW128, 128 thr col-major, 16B",
         lambda: banks.bank_conflicts(s128, col_major, "bf16", vector_bytes=16)),
        ("128x64 bf16 no swizzle, 128 thr col-major, 16B (8-way)",
         lambda: banks.bank_conflicts(p128, col_major, "bf16", vector_bytes=16)),
        ("128x64 bf16 SW128, 128 thr row-major, width inferred",
         lambda: banks.bank_conflicts(s128, row_major, "bf16")),
        ("64x64 bf16 FA2 K tile, ldmatrix.x4",
         lambda: banks.bank_conflicts(k64, ldsm, "bf16", phases="ldmatrix")),
        ("max_vector_width, 128x64 SW128 row-major copy",
         lambda: banks.max_vector_width(row_major, "bf16", smem=s128)),
        ("512x512 bf16 SW128 (256k elements), row-major 16B, 32 tiles",
         lambda: banks.bank_conflicts(s512, row_major, "bf16", vector_bytes=16, tile=(128, 64))),
        ("512x512 bf16 no swizzle (256k elements), col-major 16B",
         lambda: banks.bank_conflicts(p512, col_major, "bf16", vector_bytes=16, tile=(128, 64))),
        ("512x512 bf16 SW128 (256k elements), width inferred",
         lambda: banks.bank_conflicts(s512, row_major, "bf16", tile=(128, 64))),
    ]
    print(f"{'case':62s} {'now cpu ms':>10s} {'before':>8s} {'ratio':>7s}  result")
    for name, fn in rows:
        now, was, r = timed(fn, args.repeat)
        extra = f"{r.status}, {r.degree}-way" if hasattr(r, "degree") else f"{r.status}, {r.width} bytes"
        print(f"{name:62s} {now:10.2f} {was:8.2f} {was / now:6.1f}x  {extra}", flush=True)


if __name__ == "__main__":
    main()
