"""Symbolic algebra speed: per-operation times on a fixed corpus of symbolic layouts.

Families: ``(M,N):(1,M)`` / ``(M,N):(N,1)`` under several assumption sets, tilers of 128x64, and
wgmma-accumulator-like layouts ``((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))`` with ``N in {8,16,...,256}``.
Prints, per operation, the median and p95 time of one call in ms (each case timed --repeat times, every
sample counted), then re-runs bench/algebra.py's concrete corpus to show that concrete layouts pay nothing
for the symbolic support (its ratios against pycute must stay <= 1.0). Asserts nothing.

``--random N`` instead runs N random symbolic claims (bench/symbolic_random.py: 1-3 symbols, random
divisibility / bound / finite-set / pow2 assumptions) and prints, per family and query, the unknown rate,
the wrong verdicts (checked by enumeration of sampled assignments) and the timing (wall clock, and this
process's CPU time, which other processes on a shared machine do not inflate), side by side with the
baseline (bench/symbolic_baseline.json, before issue 19; ``--compare F`` for other saved figures);
``--runs R`` repeats the campaign in R fresh processes and merges the figures (worst unknown rate and max,
median of the medians and p95s); ``--save F`` keeps the figures as JSON (the issue's targets: unknown
<= 3% per query and family, 0 wrong, median <= 10 ms, p95 <= 50 ms, no call over 2 s: Z3's budgets are
deterministic rlimits, symbolic/smt.py).

    python bench/symbolic.py [--repeat 5]
    python bench/symbolic.py --random 400 [--runs 3] [--save bench/symbolic_after.json] [--compare F]
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
    """``{"family/query": {...}}`` and an ``"all"`` entry: counts, unknown %, wrong, wall-clock ms
    median/p95/max and CPU ms median/p95/max."""
    groups = {}
    for r in rows:
        groups.setdefault(f"{r[0]}/{r[1]}", []).append(r)
        groups.setdefault("all", []).append(r)
    out = {}
    for key, rs in sorted(groups.items()):
        ts = [r[3] * 1e3 for r in rs]
        cs = [r[7] * 1e3 for r in rs]
        out[key] = {"n": len(rs), "unknown": 100.0 * sum(r[2] == "unknown" for r in rs) / len(rs),
                    "refuted": sum(r[2] == "refuted" for r in rs), "errors": sum(r[2] == "error" for r in rs),
                    "wrong": sum(bool(r[4]) for r in rs), "med": statistics.median(ts), "p95": _p95(ts),
                    "max": max(ts), "cpu_med": statistics.median(cs), "cpu_p95": _p95(cs), "cpu_max": max(cs)}
    return out


BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "symbolic_baseline.json")


def _merge_runs(runs):
    """One figure per family/query over several runs (separate processes, so every run starts with cold
    caches): unknown % and max are the worst run's, wrong the sum, median and p95 the median of the runs'."""
    out = {}
    for key in runs[0]:
        fs = [r[key] for r in runs if key in r]
        m = dict(fs[0])
        m["unknown"] = max(f["unknown"] for f in fs)
        m["wrong"] = sum(f["wrong"] for f in fs)
        for k in ("med", "p95", "cpu_med", "cpu_p95"):
            if all(k in f for f in fs):
                m[k] = statistics.median(f[k] for f in fs)
        for k in ("max", "cpu_max"):
            if all(k in f for f in fs):
                m[k] = max(f[k] for f in fs)
        out[key] = m
    return out


def _print_table(figs, old, title):
    print(title)
    print(f"{'family/query':22s} {'n':>4s} {'unknown%':>9s} {'refuted':>7s} {'wrong':>5s} {'med ms':>7s} "
          f"{'p95 ms':>7s} {'max ms':>7s} {'cpu med':>7s} {'cpu p95':>7s} {'cpu max':>7s}"
          + ("   | baseline: unknown% wrong  med   p95   max" if old else ""))
    for key, f in figs.items():
        if key.startswith("_"):
            continue
        line = (f"{key:22s} {f['n']:4d} {f['unknown']:9.1f} {f['refuted']:7d} {f['wrong']:5d} {f['med']:7.1f} "
                f"{f['p95']:7.1f} {f['max']:7.0f} {f.get('cpu_med', 0):7.1f} {f.get('cpu_p95', 0):7.1f} "
                f"{f.get('cpu_max', 0):7.0f}")
        o = old.get(key)
        if o:
            line += f"   | {o['unknown']:16.1f} {o['wrong']:5d} {o['med']:5.1f} {o['p95']:5.1f} {o['max']:5.0f}"
        print(line)


def random_main(args):
    import json
    import subprocess
    import tempfile
    old = json.load(open(args.compare or BASELINE))
    if args.runs > 1:
        # each run in a fresh process: the decision caches start cold every time, as in the baseline
        runs = []
        for k in range(args.runs):
            with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tf:
                path = tf.name
            subprocess.run([sys.executable, os.path.abspath(__file__), "--random", str(args.random), "--seed",
                            str(args.seed), "--save", path, "--quiet"], check=True)
            runs.append(json.load(open(path)))
            os.unlink(path)
            a = runs[-1]["all"]
            print(f"run {k + 1}: unknown {a['unknown']:.1f}% wrong {a['wrong']} median {a['med']:.1f} ms "
                  f"p95 {a['p95']:.1f} ms max {a['max']:.0f} ms | cpu median {a['cpu_med']:.1f} ms "
                  f"p95 {a['cpu_p95']:.1f} ms max {a['cpu_max']:.0f} ms")
            sys.stdout.flush()
        figs = _merge_runs(runs)
        figs["_runs"] = [r["all"] for r in runs]
        _print_table(figs, old, f"\n{args.runs} runs of {args.random} cases (seed {args.seed}): unknown% and max "
                     "are the worst run's, med/p95 the median over runs")
        if args.save:
            json.dump(figs, open(args.save, "w"), indent=1)
        return 0
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import symbolic_random
    cv.is_injective("(M,4):(1,M)")  # load sympy and z3 before timing
    rows = symbolic_random.run_cases(args.random, seed=args.seed)
    figs = _figures(rows)
    if args.save:
        json.dump(figs, open(args.save, "w"), indent=1)
    if args.quiet:
        return 0
    _print_table(figs, old, f"{args.random} cases (seed {args.seed}); baseline: {args.compare or BASELINE}")
    for r in rows:
        if r[4]:
            print("WRONG", r[4], r[6])
    if args.verbose:
        for r in rows:
            if r[2] in ("unknown", "error"):
                print(f"{r[2]:7s} {r[0]}/{r[1]} {r[6][2]} {r[6][3]} {r[6][4]}: {r[5][:160]}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-concrete", action="store_true", help="skip the bench/algebra.py re-run")
    ap.add_argument("--random", type=int, default=0, help="run this many random symbolic claims instead")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", help="write the random-claim figures to this JSON file")
    ap.add_argument("--compare", help="print saved random-claim figures side by side (default: the baseline, "
                    "bench/symbolic_baseline.json)")
    ap.add_argument("--runs", type=int, default=1, help="repeat the random campaign in this many fresh processes")
    ap.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
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
