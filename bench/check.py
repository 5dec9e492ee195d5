"""`cuteverify check` on a real-kernel manifest, wall clock including start-up (issue 15's goal: <= 1 s for a
manifest of about 30 claims).

Runs ``cuteverify check -q MANIFEST`` in a fresh subprocess ``--repeat`` times after one warm-up run (the warm-up
remembers the manifest as schema-valid in ``cuteverify.frontend.manifest.cache``, leaves the spec library's name
index in the self-check cache and fills Python's bytecode caches, as any second run on a machine finds them; the
children run without ``PYTHONDONTWRITEBYTECODE``, which would make every run compile the package's sources again)
and prints the median wall time and the median CPU time (user + system) of the child.
On a machine shared with other jobs the wall time includes waiting for a core; the CPU time does not. With
``--cold`` each run gets an empty cache directory (the manifest is validated against the schema and every spec
file is parsed every time; the specs the manifest uses are self-checked in every run either way).
With ``--before-after`` it then runs the manifest's claims in this process (after one warm-up pass), each
on today's bank model and on the model before issue 30 (``banks_before.before()``), interleaved, and prints
the median CPU seconds of the claims that differ and of all claims together. Asserts nothing.

With ``--against CHECKOUT`` every manifest runs, interleaved, under this checkout and under another one
(its ``.venv/bin/python``; e.g. a worktree of the commit before a refactoring) and the median CPU seconds of
both and their ratio are printed per manifest and for all of them (issue 27: no example slower than before).
``--all`` takes every ``examples/*.cute.yaml``.

    python bench/check.py [--repeat 5] [--cold] [--before-after] [MANIFEST]
    python bench/check.py --all --against ../base [--repeat 3]
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


def _command(manifest, checkout=None):
    """``cuteverify check -q MANIFEST`` run by ``checkout``'s interpreter (default: this one) in that checkout."""
    if checkout is None:
        # the checkout this script is in (cwd = ROOT comes first on sys.path), not whatever `cuteverify` is installed
        return [sys.executable, "-m", "cuteverify.frontend.cli.main", "check", "-q", str(manifest)]
    python = checkout / ".venv" / "bin" / "python"
    main = "cuteverify.cli.main" if (checkout / "cli" / "main.py").exists() else "cuteverify.frontend.cli.main"
    return [str(python if python.exists() else sys.executable), "-m", main, "check", "-q", str(manifest)]


def _claims(manifest, env) -> int:
    code = "import sys; from cuteverify.frontend import manifest as mf; print(len(mf.load(sys.argv[1])))"
    p = subprocess.run([sys.executable, "-c", code, str(manifest)], capture_output=True, text=True, env=env, cwd=ROOT)
    return int(p.stdout.strip() or 0)


def _env(cache) -> dict:
    """The children's environment: the bench's cache directory, and bytecode written (module docstring)."""
    env = dict(os.environ, CUTEVERIFY_CACHE_DIR=cache, PYTHONWARNINGS="ignore")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def one(cmd, env, cwd=ROOT) -> tuple:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit(f"cuteverify check exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return wall, cpu


def before_after(manifest, repeat):
    """Median CPU seconds per claim now and before issue 30's bank model, in this process (module docstring)."""
    # imported here, not at the top: the subprocess timings above measure the checkout without this process
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT))
    from banks_before import before
    from cuteverify.frontend import manifest as mf

    payloads = mf.load(manifest)
    for p in payloads:  # warm-up: imports, the spec library, first calls
        mf.run_claim(p)
    now, was = [[] for _ in payloads], [[] for _ in payloads]
    for _ in range(repeat):
        for i, p in enumerate(payloads):
            t0 = time.process_time()
            mf.run_claim(p)
            now[i].append(time.process_time() - t0)
            with before():
                t0 = time.process_time()
                mf.run_claim(p)
                was[i].append(time.process_time() - t0)
    n = [statistics.median(x) for x in now]
    w = [statistics.median(x) for x in was]
    print(f"claims in one warm process, CPU seconds, median of {repeat} (now / before issue 30's bank model):")
    for i, p in enumerate(payloads):
        if w[i] > 0.02 or n[i] > 0.02:
            print(f"  claim {i:3d} {p.kind:16s} now {n[i]:.3f}  before {w[i]:.3f}  ({w[i] / n[i]:.1f}x)")
    print(f"  all {len(payloads)} claims: now {sum(n):.3f}  before {sum(w):.3f}  ({sum(w) / sum(n):.1f}x)")


def against(manifests, other: Path, repeat: int):
    """Median CPU seconds of ``check`` per manifest here and under ``other``, interleaved (module docstring)."""
    cache = tempfile.mkdtemp(prefix="cv-bench-cache-")
    env = _env(cache)
    total_now = total_was = 0.0
    print(f"cuteverify check, median CPU seconds of {repeat} warm runs: this checkout vs {other}")
    try:
        for m in manifests:
            runs = ((_command(m), ROOT), (_command(m, other), other))
            for cmd, cwd in runs:
                one(cmd, env, cwd)  # warm-up: bytecode and the result cache of each checkout
            now, was = [], []
            for _ in range(repeat):
                now.append(one(runs[0][0], env, runs[0][1])[1])
                was.append(one(runs[1][0], env, runs[1][1])[1])
            n, w = statistics.median(now), statistics.median(was)
            total_now, total_was = total_now + n, total_was + w
            print(f"  {os.path.relpath(m, ROOT):45s} now {n:6.3f}  before {w:6.3f}  ratio {n / w:5.2f}")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"  {'all':45s} now {total_now:6.3f}  before {total_was:6.3f}  ratio {total_now / total_was:5.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", nargs="?", default=str(ROOT / "examples" / "sgemm_sm80.cute.yaml"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cold", action="store_true", help="an empty cache directory for every run")
    ap.add_argument("--before-after", action="store_true",
                    help="also time the claims in this process on today's bank model and the one before issue 30")
    ap.add_argument("--all", action="store_true", help="every examples/*.cute.yaml")
    ap.add_argument("--against", type=Path, help="another checkout to compare with, interleaved")
    a = ap.parse_args(argv)
    if a.against is not None:
        manifests = sorted((ROOT / "examples").glob("*.cute.yaml")) if a.all else [Path(a.manifest)]
        against(manifests, a.against.resolve(), a.repeat)
        return
    cmd = _command(a.manifest)
    cache = tempfile.mkdtemp(prefix="cv-bench-cache-")
    env = _env(cache)
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
    if a.before_after:
        before_after(a.manifest, a.repeat)


if __name__ == "__main__":
    main()
