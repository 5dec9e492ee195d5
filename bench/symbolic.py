"""Symbolic algebra speed: per-operation times on a fixed corpus of symbolic layouts.

Families: ``(M,N):(1,M)`` / ``(M,N):(N,1)`` under several assumption sets, tilers of 128x64, and
wgmma-accumulator-like layouts ``((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))`` with ``N in {8,16,...,256}``.
Prints, per operation, the median and p95 time of one call in ms (each case timed --repeat times, every
sample counted), then re-runs bench/algebra.py's concrete corpus to show that concrete layouts pay nothing
for the symbolic support (its ratios against pycute must stay <= 1.0). Asserts nothing.

    python bench/symbolic.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

import cuteverify as cv

ASSUME = {
    "none": [],
    "div128x64": ["M % 128 == 0", "N % 64 == 0"],
    "div128x64+min": ["128 | M", "64 | N", "M >= 256", "N >= 128"],
    "set": ["M in {128,256,...,1024}", "N in {64,128,...,512}"],
}
WGMMA = ["((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))",      # m64nNk16 f32 accumulator (TV layout)
         "(64,N):(1,64)",                                       # its (m,n) codomain tile
         "((4,8,4),(2,(2,N/8))):((128,1,16),(64,(8,512)))"]


def corpus():
    """``{op: [(label, callable, args), ...]}`` over the fixed symbolic families."""
    P = cv.parse
    t128 = P("128:1")
    t64 = P("64:1")
    cases = {op: [] for op in ("coalesce", "filter", "composition", "complement", "logical_divide",
                               "zipped_divide", "tiled_divide", "logical_product", "blocked_product",
                               "right_inverse", "left_inverse")}

    def add(op, label, *args):
        cases[op].append((label, getattr(cv, op), args))

    for name, asm in ASSUME.items():
        a = cv.Assumptions(asm) if asm else None
        col = P("(M,N):(1,M)", assume=a)
        row = P("(M,N):(N,1)", assume=a)
        for lname, L in (("col", col), ("row", row)):
            tag = f"{lname}/{name}"
            add("coalesce", tag, L)
            add("filter", tag, L)
            add("right_inverse", tag, L)
            add("left_inverse", tag, L)
            add("composition", tag + " o (128,64):(1,M)", L, P("(128,64):(1,M)", assume=a))
            add("composition", tag + " o <128:1,64:1>", L, (t128, t64))
            add("logical_divide", tag + " / <128:1,64:1>", L, (t128, t64))
            add("logical_divide", tag + " / <128:1,_>", L, (t128, None))
            add("zipped_divide", tag + " / <128:1,64:1>", L, (t128, t64))
            add("tiled_divide", tag + " / <128:1,64:1>", L, (t128, t64))
            add("logical_product", tag + " x 4:1", L, P("4:1"))
            add("blocked_product", "(2,2):(1,2) x " + tag, P("(2,2):(1,2)"), L)
        add("complement", f"(4,8):(1,M)/{name}", P("(4,8):(1,M)", assume=cv.Assumptions(asm + ["4 | M"])))
        add("complement", f"(M,2):(1,64),4096/{name}",
            P("(M,2):(1,64)", assume=cv.Assumptions(["M in {1,2,4,8,16,32,64}"])), 4096)
    wa = cv.Assumptions(["N in {8,16,...,256}"])
    for i, text in enumerate(WGMMA):
        L = P(text, assume=wa)
        tag = f"wgmma{i}"
        add("coalesce", tag, L)
        add("filter", tag, L)
        add("right_inverse", tag, L)
        add("composition", tag + " o (128,2):(1,128)", L, P("(128,2):(1,128)"))
        add("logical_divide", tag + " / <(4,8):(1,4),_>", L, (P("(4,8):(1,4)"), None))
        add("zipped_divide", tag + " / <128:1,2:1>", L, (t128, P("2:1")))
        add("logical_product", tag + " x 2:1", L, P("2:1"))
    return cases


def _p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, math.ceil(0.95 * len(xs)) - 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-concrete", action="store_true", help="skip the bench/algebra.py re-run")
    args = ap.parse_args()
    cases = corpus()
    print("first = the first call per case (cold decision caches); all = every call, --repeat per case")
    print(f"{'operation':16s} {'cases':>5s} {'refused/undecided':>17s} {'oblig.':>6s} {'first med':>9s} "
          f"{'first p95':>9s} {'all med ms':>10s} {'all p95 ms':>10s}")
    for op, items in cases.items():
        samples, first, refused, with_obl = [], [], 0, 0
        for label, fn, a in items:
            for k in range(args.repeat):
                t0 = time.perf_counter()
                try:
                    r = fn(*a)
                except (cv.NotAdmissibleError, cv.UndecidedError):
                    r = None  # refused, or needs an assumption the case does not give
                samples.append(time.perf_counter() - t0)
                if k == 0:
                    first.append(samples[-1])
                    refused += r is None
                    with_obl += bool(getattr(r, "obligations", ()))
        print(f"{op:16s} {len(items):5d} {refused:17d} {with_obl:6d} {statistics.median(first) * 1e3:9.3f} "
              f"{_p95(first) * 1e3:9.3f} {statistics.median(samples) * 1e3:10.3f} {_p95(samples) * 1e3:10.3f}")
    if not args.no_concrete:
        print("\nconcrete corpus (bench/algebra.py): the symbolic support must cost concrete layouts nothing")
        sys.stdout.flush()
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import algebra as concrete_bench
        sys.argv = [sys.argv[0]]
        concrete_bench.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
