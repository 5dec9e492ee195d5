"""Bank-conflict proof speed (issue 10): a 128x64 bf16 shared-memory tile with a 128-thread copy of 16-byte
vectors (``Swizzle<3,3,3>`` = the 128B swizzle, and unswizzled), median milliseconds per
``cv.banks.bank_conflicts`` call (goal: <= 100 ms). Also the FA2 ldmatrix case and ``max_vector_width``.
Prints, asserts nothing.

    python bench/banks.py [--repeat 50]
"""
from __future__ import annotations

import argparse
import statistics
import time

import cuteverify as cv
from cuteverify.analysis import banks


def timed(fn, repeat):
    fn()  # warm-up (imports, numpy first calls)
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts), min(ts), r


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
    ]
    print(f"{'case':60s} {'median ms':>10s} {'min ms':>8s}  result")
    for name, fn in rows:
        med, mn, r = timed(fn, args.repeat)
        extra = f"{r.status}, {r.degree}-way" if hasattr(r, "degree") else f"{r.status}, {r.width} bytes"
        print(f"{name:60s} {med:10.2f} {mn:8.2f}  {extra}")


if __name__ == "__main__":
    main()
