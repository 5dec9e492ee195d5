"""Spec-library benchmark (issue 30 goals: ``spec check`` cold <= 10 s, warm <= 1 s on the 2-core CI machine).

``cuteverify spec check`` over the whole shipped library in a fresh process, wall and CPU time, median of
``--runs``: cold (an empty self-check cache directory each run: load, schema, formulas, the self-check of every
spec and family, the Blackwell modules) and warm (the same directory again: the cached result for these exact
YAML bytes and this checker), and their ratio; ``spec validate-hw`` on an empty file (it must read its input
before any self-check); the in-process default library cold (parse every file, nothing checked) and warm
(the cached name index: no file parsed until a name is asked for). Optionally the silicon evidence re-check.
Prints figures; asserts nothing.

    python bench/specs.py [--runs 3] [--evidence]
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

ROOT = Path(__file__).resolve().parents[1]


def _command(*args) -> list:
    exe = shutil.which("cuteverify", path=str(Path(sys.executable).parent)) or shutil.which("cuteverify")
    if exe:
        return [exe, *args]
    return [sys.executable, "-c", "from cuteverify.frontend.cli.main import main; main()", *args]


def _run(cmd, env) -> tuple:
    """(wall s, CPU s of the child, completed process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, p


def _env(cache_dir) -> dict:
    env = {**os.environ, "CUTEVERIFY_CACHE_DIR": str(cache_dir)}
    env.pop("CUTEVERIFY_NO_CACHE", None)
    env.pop("CUTEVERIFY_NO_SPEC_CACHE", None)
    return env


def spec_check_cold_warm(runs: int) -> dict:
    cold, warm, out = [], [], ""
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as d:
            env = _env(d)
            for bucket in (cold, warm):
                wall, cpu, p = _run(_command("spec", "check"), env)
                if p.returncode != 0:
                    raise SystemExit(f"spec check failed ({p.returncode}): {p.stdout}{p.stderr}")
                bucket.append((wall, cpu))
                out = p.stdout.strip()
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    return {"cold": (med(cold, 0), med(cold, 1)), "warm": (med(warm, 0), med(warm, 1)), "out": out}


def validate_hw_empty(runs: int) -> tuple:
    with tempfile.TemporaryDirectory() as d:
        empty = Path(d) / "empty.jsonl"
        empty.write_text("")
        got = [_run(_command("spec", "validate-hw", str(empty)), _env(Path(d) / "cache"))[:2] for _ in range(runs)]
    return statistics.median(w for w, _ in got), statistics.median(c for _, c in got)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--evidence", action="store_true", help="also time the silicon evidence re-check")
    a = ap.parse_args(argv)
    r = spec_check_cold_warm(a.runs)
    (cw, cc), (ww, wc) = r["cold"], r["warm"]
    print(f"cuteverify spec check, fresh process, median of {a.runs}:")
    print(f"  cold (empty cache): {cw:.2f} s wall, {cc:.2f} s CPU   goal <= 10 s")
    print(f"  warm (cached):      {ww:.2f} s wall, {wc:.2f} s CPU   goal <= 1 s")
    print(f"  warm / cold: {ww / cw:.3f} wall, {wc / cc:.3f} CPU")
    print(f"  its report (warm): {r['out'].splitlines()[0][:160]}")
    vw, vc = validate_hw_empty(a.runs)
    print(f"spec validate-hw on an empty file: {vw:.2f} s wall, {vc:.2f} s CPU (an input error before any self-check)")
    sys.path.insert(0, str(ROOT))
    from cuteverify.hardware.library import catalog as library
    with tempfile.TemporaryDirectory() as d:
        os.environ.update(_env(d))
        os.environ.pop("CUTEVERIFY_NO_SPEC_CACHE", None)
        t0 = time.perf_counter()
        lib = library.load(check="lazy", cached=True)
        t_cold = time.perf_counter() - t0
        subprocess.run(_command("spec", "check"), capture_output=True, cwd=ROOT, env=_env(d))
        t0 = time.perf_counter()
        lib2 = library.load(check="lazy", cached=True)
        lib2["SM80_16x8x16_F32F16F16F32_TN"]
        t_warm = time.perf_counter() - t0
        parsed = len(getattr(lib2, "_loaded", ())) or len(lib2.files)
    print(f"default library in-process: cold {t_cold * 1e3:.0f} ms ({len(lib)} specs, every file parsed); warm "
          f"{t_warm * 1e3:.0f} ms to hand out one checked spec ({parsed} of {len(lib2.files)} files parsed); "
          f"ratio {t_warm / t_cold:.2f}")
    if a.evidence:
        from cuteverify import hardware
        from cuteverify.hardware.checks import evidence
        lib = hardware.load()
        t0 = time.perf_counter()
        res = evidence.evidence_results(ROOT / "specs" / "evidence" / "sm90", lib=lib)
        n = sum(r["records"] for k, r in res.items() if not k.startswith("_"))
        print(f"evidence re-check: {time.perf_counter() - t0:.2f} s for {n} record checks")


if __name__ == "__main__":
    main()
