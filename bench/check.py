"""`cuteverify check` on a real-kernel manifest, wall clock including start-up (issue 15's goal: <= 1 s for a
manifest of about 30 claims).

Runs ``cuteverify check -q MANIFEST`` in a fresh subprocess ``--repeat`` times after one warm-up run (the warm-up
remembers the manifest as schema-valid in ``cuteverify.manifest_cache`` and fills Python's bytecode caches,
as any second run on a machine finds them) and prints the median wall time and the median CPU time (user + system) of the child.
On a machine shared with other jobs the wall time includes waiting for a core; the CPU time does not. With
``--cold`` each run gets an empty cache directory (the manifest is validated against the schema every time;
the spec library is parsed and the specs the manifest uses are self-checked in every run either way).
Asserts nothing.

    python bench/check.py [--repeat 5] [--cold] [MANIFEST]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_S = 1.0


def _command(manifest):
    # the checkout this script is in (cwd = ROOT comes first on sys.path), not whatever `cuteverify` is installed
    return [sys.executable, "-m", "cuteverify.cli.main", "check", "-q", str(manifest)]


def _claims(manifest, env) -> int:
    code = "import sys; from cuteverify import manifest as mf; print(len(mf.load(sys.argv[1])))"
    p = subprocess.run([sys.executable, "-c", code, str(manifest)], capture_output=True, text=True, env=env, cwd=ROOT)
    return int(p.stdout.strip() or 0)


def one(cmd, env) -> tuple:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit(f"cuteverify check exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return wall, cpu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", nargs="?", default=str(ROOT / "examples" / "sgemm_sm80.cute.yaml"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cold", action="store_true", help="an empty cache directory for every run")
    a = ap.parse_args(argv)
    cmd = _command(a.manifest)
    cache = tempfile.mkdtemp(prefix="cv-bench-cache-")
    env = dict(os.environ, CUTEVERIFY_CACHE_DIR=cache, PYTHONWARNINGS="ignore")
    try:
        n = _claims(a.manifest, env)
        one(cmd, env)  # warm-up
        walls, cpus = [], []
        for _ in range(a.repeat):
            if a.cold:
                shutil.rmtree(cache, ignore_errors=True)
                os.makedirs(cache)
            w, c = one(cmd, env)
            walls.append(w)
            cpus.append(c)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cuteverify check {os.path.relpath(a.manifest, ROOT)}: {n} claims, {'cold' if a.cold else 'warm'} cache, "
          f"median of {a.repeat} runs")
    print(f"  wall {wall:.3f} s (min {min(walls):.3f}, max {max(walls):.3f})   cpu {cpu:.3f} s   "
          f"load average {load:.1f} on {os.cpu_count()} cores")
    print(f"  goal <= {GOAL_S:.1f} s wall for ~30 claims: {'met' if wall <= GOAL_S else 'NOT met'} (wall), "
          f"{'met' if cpu <= GOAL_S else 'NOT met'} (cpu)")


if __name__ == "__main__":
    main()
