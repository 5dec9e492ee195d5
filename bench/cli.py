"""CLI benchmark: ``cuteverify check`` on a generated manifest of 1,000 claims with -j 1 and -j 2 (claims per
second, wall clock including start-up), and ``cuteverify --help`` start-up time. Prints figures; asserts nothing.

    python bench/cli.py [--claims 1000] [--jobs 1 2]
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _layout(rng):
    rank = rng.randint(1, 3)
    shape = [rng.choice([2, 4, 8]) for _ in range(rank)]
    if rng.random() < 0.7:  # compact in a random mode order: bijective
        order = list(range(rank))
        rng.shuffle(order)
        stride, acc = [0] * rank, 1
        for i in order:
            stride[i], acc = acc, acc * shape[i]
    else:
        stride = [rng.choice([1, 2, 3, 4, 8, 16]) for _ in range(rank)]
    return f"({','.join(map(str, shape))}):({','.join(map(str, stride))})"


def make_manifest(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    lines = ["version: 1", "kernels:"]
    per_kernel = 50
    for k in range(0, n, per_kernel):
        lines += [f"  k{k // per_kernel}:", "    layouts:", "      sw: \"S<3,3,3> o 0 o (8,64):(64,1)\"",
                  "      tvA: \"((4,8),(2,2,2)):((32,1),(16,8,128))\"", "    claims:"]
        for i in range(min(per_kernel, n - k)):
            r = rng.random()
            if r < 0.3:
                c = f"bijective: \"{_layout(rng)}\""
            elif r < 0.55:
                c = f"injective: \"{_layout(rng)}\""
            elif r < 0.75:
                a = _layout(rng)
                c = f"equal: [\"{a}\", \"{a}\"]"
            elif r < 0.85:
                c = "disjoint: {layout: \"%s:%d\", cotarget: %d}" % (rng.choice([2, 4]), rng.choice([1, 2]), 64)
            elif r < 0.95:
                c = "bijective: sw"
            else:
                c = "agrees: {layout: tvA, spec: SM80_16x8x16_F32BF16BF16F32_TN, operand: A}"
            lines.append(f"      - {c}")  # random layouts: some claims are refuted, so check exits 1
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--claims", type=int, default=1000)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    exe = shutil.which("cuteverify") or None
    cmd = [exe] if exe else [sys.executable, "-m", "cuteverify.frontend.cli.main"]

    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        subprocess.run([*cmd, "--help"], capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    base = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], capture_output=True, check=True)
        base.append(time.perf_counter() - t0)
    imp = subprocess.run([sys.executable, "-c", "import time; t=time.perf_counter(); import cuteverify.frontend.cli.main; "
                          "print(time.perf_counter()-t)"], capture_output=True, text=True, check=True)
    print(f"cuteverify --help: median {statistics.median(times) * 1e3:.0f} ms, min {min(times) * 1e3:.0f} ms "
          f"(bare python start-up: median {statistics.median(base) * 1e3:.0f} ms; importing the CLI in-process: "
          f"{float(imp.stdout) * 1e3:.0f} ms)")

    with tempfile.TemporaryDirectory() as d:
        m = Path(d) / "bench.cute.yaml"
        m.write_text(make_manifest(args.claims))
        for j in args.jobs:
            t0 = time.perf_counter()
            p = subprocess.run([*cmd, "check", "-q", "--no-progress", "-j", str(j), "--json", str(m)],
                               capture_output=True, text=True)
            dt = time.perf_counter() - t0
            try:
                res = json.loads(p.stdout)["results"]
                inner = sum(r["elapsed"] for r in res)
                statuses = {s: sum(1 for r in res if r["status"] == s) for s in ("proved", "refuted", "unknown",
                                                                                 "error")}
            except (ValueError, KeyError):
                res, inner, statuses = [], 0.0, {}
                print(p.stderr[-2000:])
            print(f"check -j {j}: {args.claims} claims in {dt:.2f} s = {args.claims / dt:.0f} claims/s "
                  f"(exit {p.returncode}; prover time {inner:.2f} s; {statuses})")


if __name__ == "__main__":
    main()
