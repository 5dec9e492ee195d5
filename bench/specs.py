"""Spec-library benchmark (issue 5 goal: under 10 s on the 2-core CI machine): wall time of
``cuteverify spec check`` over the whole shipped library (load, schema, formulas, self-check of every spec and
every family instance) in a fresh process each run, median of ``--runs``; also the in-process load time and
the silicon evidence re-check (``cuteverify.hardware.evidence.evidence_results``) for reference.  Prints figures; asserts nothing.

    python bench/specs.py [--runs 3] [--evidence]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _command() -> list:
    exe = shutil.which("cuteverify")
    if exe:
        return [exe, "spec", "check"]
    return [sys.executable, "-c", "from cuteverify.cli.main import main; main()", "spec", "check"]


def spec_check_wall(runs: int) -> tuple:
    cmd = _command()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        times.append(time.perf_counter() - t0)
        if p.returncode != 0:
            raise SystemExit(f"spec check failed ({p.returncode}): {p.stdout}{p.stderr}")
    return statistics.median(times), times, p.stdout.strip()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--evidence", action="store_true", help="also time the silicon evidence re-check")
    a = ap.parse_args(argv)
    med, times, out = spec_check_wall(a.runs)
    print(f"cuteverify spec check (fresh process, wall): median {med:.2f} s of {a.runs} "
          f"({', '.join(f'{t:.2f}' for t in times)}); goal < 10 s")
    print(f"  its report: {out}")
    sys.path.insert(0, str(ROOT))
    from cuteverify import hardware
    t0 = time.perf_counter()
    lib = hardware.load()
    print(f"in-process load + self-check: {time.perf_counter() - t0:.2f} s for {len(lib)} specs, "
          f"{sum(len(s.instances()) for s in lib.values())} instances, "
          f"{sum(s.silicon_confirmed for s in lib.values())} silicon-confirmed")
    if a.evidence:
        from cuteverify.hardware import evidence
        t0 = time.perf_counter()
        res = evidence.evidence_results(ROOT / "specs" / "evidence" / "sm90", lib=lib)
        n = sum(r["records"] for k, r in res.items() if not k.startswith("_"))
        print(f"evidence re-check: {time.perf_counter() - t0:.2f} s for {n} record checks")


if __name__ == "__main__":
    main()
