"""`cuteverify trace cpp` timings (issue 29's budgets: a capture of one translation unit <= 3 minutes, its check
<= 10 s).

For each source (default: CUTLASS's sgemm_sm80.cu, as the nvidia-cutlass wheel ships it, with its four
entry points): the host-only capture uncached (the g++ compile and link of the rewritten unit at -O0, then each
entry's run), the documents built from its records and their claims run; beside the compile, as the peer in the
same process, g++ -fsyntax-only of the same unit (the parse and template instantiation every capture pays).

    python bench/trace_cpp.py [SOURCE.cu --entry NAME ...]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cuteverify.frontend.trace import cpp_build, cpp_capture, cpp_check  # noqa: E402

SGEMM = str(Path(__import__("cutlass_library").__file__).parent / "source/examples/cute/tutorial/sgemm_sm80.cu")
ENTRIES = ["gemm_tn<cute::half_t, cute::half_t>", "gemm_nt<cute::half_t, cute::half_t>",
           "gemm_nt<float, float, float, float, float>", "gemm_tn<float, float, float, float, float>"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", nargs="?", default=SGEMM)
    ap.add_argument("--entry", action="append")
    a = ap.parse_args()
    os.chdir(ROOT)
    entries = a.entry or ENTRIES
    if cpp_build.toolchain() is None:
        sys.exit("g++, the CUTLASS headers or CUDA's headers are missing")
    os.environ["CUTEVERIFY_TEST_CACHE"] = "0"  # time the compile itself
    text = Path(a.source).read_text()
    unit, _ = cpp_capture.rewrite(text, a.source, entries)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "unit.cpp")
        Path(src).write_text(unit)
        gxx, incs = cpp_build.compiler(), cpp_capture.include_flags(a.source)
        t = time.perf_counter()
        subprocess.run([gxx, *cpp_build.CXXFLAGS, "-fsyntax-only", *incs, src], check=True)
        peer = time.perf_counter() - t
    t = time.perf_counter()
    records, _, info = cpp_capture.capture(a.source, entries)
    cap = time.perf_counter() - t
    t = time.perf_counter()
    docs = cpp_check.documents(a.source, text, records, info)
    results, _ = cpp_check.run_documents(docs)
    check = time.perf_counter() - t
    status = {}
    for r in results:
        status[r["status"]] = status.get(r["status"], 0) + 1
    print(f"{a.source}: {len(entries)} entries, {len(records)} records, {len(docs)} documents, {len(results)} rows "
          f"{dict(sorted(status.items()))}")
    print(f"  capture  {cap:7.1f} s  (compile+link {info['compile_s']:.1f} s; g++ -fsyntax-only peer {peer:.1f} s: "
          f"ratio {info['compile_s'] / peer:.2f})   budget 180 s")
    print(f"  check    {check:7.2f} s   budget 10 s")


if __name__ == "__main__":
    main()
