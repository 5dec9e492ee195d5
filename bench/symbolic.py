"""Symbolic algebra speed: per-operation times on a fixed corpus of symbolic layouts.

Families: ``(M,N):(1,M)`` / ``(M,N):(N,1)`` under several assumption sets, tilers of 128x64, and
wgmma-accumulator-like layouts ``((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))`` with ``N in {8,16,...,256}``.
Prints, per operation, the median and p95 time of one call in ms (each case timed --repeat times, every
sample counted), then re-runs bench/algebra.py's concrete corpus to show that concrete layouts pay nothing
for the symbolic support (its ratios against pycute must stay <= 1.0). Asserts nothing.

``--random N`` instead runs N random symbolic claims (bench/symbolic_random.py: 1-3 symbols, random
divisibility / bound / finite-set / pow2 assumptions) and prints, per family and query, the unknown rate,
the wrong verdicts (checked by enumeration of sampled assignments) and the timing; ``--save F`` keeps the
figures as JSON and ``--compare F`` prints them side by side with saved ones (the issue's targets: unknown
<= 3% per query and family, 0 wrong, median <= 10 ms, p95 <= 50 ms).

    python bench/symbolic.py [--repeat 5]
    python bench/symbolic.py --random 600 [--save before.json] [--compare before.json]
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


def _figures(rows):
    """``{"family/query": {...}}`` and an ``"all"`` entry: counts, unknown %, wrong, ms median/p95/max."""
    groups = {}
    for r in rows:
        groups.setdefault(f"{r[0]}/{r[1]}", []).append(r)
        groups.setdefault("all", []).append(r)
    out = {}
    for key, rs in sorted(groups.items()):
        ts = [r[3] * 1e3 for r in rs]
        out[key] = {"n": len(rs), "unknown": 100.0 * sum(r[2] == "unknown" for r in rs) / len(rs),
                    "refuted": sum(r[2] == "refuted" for r in rs), "errors": sum(r[2] == "error" for r in rs),
                    "wrong": sum(bool(r[4]) for r in rs), "med": statistics.median(ts), "p95": _p95(ts),
                    "max": max(ts)}
    return out


def random_main(args):
    import json
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import symbolic_random
    cv.is_injective("(M,4):(1,M)")  # load sympy and z3 before timing
    rows = symbolic_random.run_cases(args.random, seed=args.seed)
    figs = _figures(rows)
    old = json.load(open(args.compare)) if args.compare else {}
    print(f"{'family/query':22s} {'n':>4s} {'unknown%':>9s} {'refuted':>7s} {'wrong':>5s} {'med ms':>7s} "
          f"{'p95 ms':>7s} {'max ms':>7s}" + ("   | before: unknown% wrong med p95 max" if old else ""))
    for key, f in figs.items():
        line = (f"{key:22s} {f['n']:4d} {f['unknown']:9.1f} {f['refuted']:7d} {f['wrong']:5d} {f['med']:7.1f} "
                f"{f['p95']:7.1f} {f['max']:7.0f}")
        o = old.get(key)
        if o:
            line += f"   | {o['unknown']:7.1f} {o['wrong']:5d} {o['med']:5.1f} {o['p95']:5.1f} {o['max']:5.0f}"
        print(line)
    for r in rows:
        if r[4]:
            print("WRONG", r[4], r[6])
    if args.verbose:
        for r in rows:
            if r[2] in ("unknown", "error"):
                print(f"{r[2]:7s} {r[0]}/{r[1]} {r[6][2]} {r[6][3]} {r[6][4]}: {r[5][:160]}")
    if args.save:
        json.dump(figs, open(args.save, "w"), indent=1)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-concrete", action="store_true", help="skip the bench/algebra.py re-run")
    ap.add_argument("--random", type=int, default=0, help="run this many random symbolic claims instead")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", help="write the random-claim figures to this JSON file")
    ap.add_argument("--compare", help="print saved random-claim figures side by side")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the unknown random claims")
    args = ap.parse_args()
    if args.random:
        return random_main(args)
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
