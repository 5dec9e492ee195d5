"""Wall time of ``cuteverify trace capture`` per kernel (issue 28's budget: <= 30 s a kernel on the 2-core box).

Times the library call ``capture`` (the subprocess: interpreter start, DSL import, the user's script, tracing,
printing the module, writing the file) best of --repeat, for cuteverify's own small kernel
(tests/frontend/trace/kernels/small_gemm_sm80.py) and for each capture driver whose sources are present
(tests/frontend/trace_data/drivers; --kernels-root holds kernels/, --r28 the FA4/QuACK interpreter). Prints one
row per kernel and the worst figure against the budget. Asserts nothing.

    python bench/trace_capture.py [--repeat 3] [--kernels-root /work/research28] [--r28 PATH] [--all]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from cuteverify.frontend.trace.capture import capture

ROOT = Path(__file__).resolve().parent.parent
DRIVERS = ROOT / "tests" / "frontend" / "trace_data" / "drivers"
SMALL = ROOT / "tests" / "frontend" / "trace" / "kernels" / "small_gemm_sm80.py"
BUDGET = 30.0
# name, arch, driver, needs the FA4/QuACK interpreter (and the torch stub)
CASES = [("hopper_dense_gemm", "sm_90a", "hopper_dense_gemm.py", False),
         ("ampere_tensorop_gemm", "sm_80", "ampere_tensorop_gemm.py", False),
         ("blackwell_dense_gemm", "sm_100a", "blackwell_dense_gemm.py", False),
         ("fa4_fwd_sm100", "sm_100a", "fa4_fwd_sm100.py", True),
         ("quack_gemm", "sm_90a", "quack_gemm.py", True)]


def best(argv, arch, cwd, stub, repeat):
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            files = capture(argv, arch=arch, out_dir=out, stub_torch=stub, cwd=cwd)
            times.append(time.perf_counter() - t0)
            size = sum(os.path.getsize(f) for f in files)
    return min(times), size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kernels-root", default="/work/research28")
    ap.add_argument("--r28", default="/work/research28/venv/bin/python")
    ap.add_argument("--all", action="store_true", help="also the FA4 / QuACK drivers (needs --r28)")
    a = ap.parse_args()
    rows = [("small_gemm_sm80 (ours)", *best([sys.executable, str(SMALL)], "sm_80", SMALL.parent.parent, False,
                                             a.repeat))]
    root = Path(a.kernels_root)
    for name, arch, driver, r28 in CASES:
        if r28 and not (a.all and Path(a.r28).exists()):
            continue
        if not r28 and not (root / "kernels").is_dir():
            continue
        py = a.r28 if r28 else sys.executable
        rows.append((name, *best([py, str(DRIVERS / driver)], arch, root, r28, a.repeat)))
    for name, t, size in rows:
        print(f"{name:28s} {t:6.2f} s  {size:9d} bytes")
    worst = max(t for _, t, _ in rows)
    print(f"worst {worst:.2f} s against the budget of {BUDGET:.0f} s: ratio {worst / BUDGET:.2f}")


if __name__ == "__main__":
    main()
