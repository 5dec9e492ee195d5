"""Regenerate ``mutants.records.json``: capture every mutant of ``tests/frontend/trace/cpp_mutants.py`` (an
edited copy of the nvidia-cutlass wheel's tutorial source, written under the temp folder) with ``cuteverify trace
cpp``'s host-only g++ build and store what it printed. Run from the project root:

    .venv/bin/python tests/frontend/trace/cpp/make_mutants.py [NAME ...]

(names: only those mutants, or `originals`: the unmodified 03-05, merged into the existing file). Each build is
15-30 s (cached by content in ``~/.cache/cuteverify-tests``). A mutant g++ rejects (``REJECTED``: CuTe's own
static assertions) is stored with its first compiler error and no records. Records are stored as deltas against
the unmodified source's (``cpp_mutants.delta``).
"""
from __future__ import annotations

import dataclasses
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[4]))

from cuteverify.errors import CaptureError  # noqa: E402
from cuteverify.frontend.trace import cpp_capture, cpp_check  # noqa: E402
from tests.frontend.trace.cpp_mutants import (BW02, CONTROLS, MUTANTS, REJECTED, SM100,  # noqa: E402
                                              TUTORIAL, delta, original, refuted, source_root, workdir, write_copy)

OUT = Path(__file__).parent / "mutants.records.json"


def capture(m, root):
    """``(records, info)`` of mutant ``m`` captured from its edited copy (info has ``error`` when g++ fails)."""
    write_copy(m, root)
    here = os.getcwd()
    os.chdir(workdir(m))
    try:
        recs, _, info = cpp_capture.capture(m.path, [m.entry], includes=[str((root / m.path).parent)],
                                            defines=list(m.defines))
    except CaptureError as e:
        return [], {"error": str(e)}
    finally:
        os.chdir(here)
    info = {k: v for k, v in info.items() if k not in ("compile_s", "cached")}
    return [dataclasses.asdict(r) for r in recs], info


# the unmodified tutorials without a fixture of their own (test_cpp_blackwell.py compiles them): the rows a mutant
# refutes must be proved on these
ORIGINALS = [f"{TUTORIAL}/blackwell/{n}" for n in ("03_mma_tma_multicast_sm100.cu", "04_mma_tma_2sm_sm100.cu",
                                                    "05_mma_tma_epi_sm100.cu")]


def capture_original(path, root):
    """``(records, info)`` of the unmodified ``path`` (relative to the wheel's source folder) with 02's entry."""
    here = os.getcwd()
    os.chdir(root)
    try:
        recs, _, info = cpp_capture.capture(path, [BW02], defines=list(SM100))
    finally:
        os.chdir(here)
    info = {k: v for k, v in info.items() if k not in ("compile_s", "cached")}
    return [dataclasses.asdict(r) for r in recs], info


def main(names):
    root = source_root()
    if root is None:
        sys.exit("the nvidia-cutlass wheel (cutlass_library/source/examples) is missing")
    data = json.loads(OUT.read_text()) if OUT.is_file() else {"mutants": {}}
    gxx = subprocess.run(["g++", "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    import cutlass_library
    data["generated_by"] = (f"tests/frontend/trace/cpp/make_mutants.py with g++ {gxx}, nvidia-cutlass "
                            f"{getattr(cutlass_library, '__version__', '?')} headers ({platform.machine()})")
    for path in ORIGINALS:
        if names and "originals" not in names:
            continue
        recs, info = capture_original(path, root)
        data.setdefault("originals", {})[path] = {"info": info, "records": recs}
        print(f"{path}: {len(recs)} records", flush=True)
    for m in MUTANTS + REJECTED + CONTROLS:
        if names and m.name not in names:
            continue
        t0 = time.perf_counter()
        recs, info = capture(m, root)
        stored = {"file": m.path, "line": m.line, "old": m.old, "new": m.new, "entry": m.entry, "info": info}
        data["mutants"][m.name] = {**stored, **delta(recs, original(m, OUT.parent, data)[0])}
        if "error" in info:
            print(f"{m.name}: BUILD FAILED {info['error'][:400]}", flush=True)
            continue
        text = (workdir(m) / m.path).read_text()
        docs = cpp_check.documents(m.path, text, [cpp_capture.Record(**r) for r in recs], info)
        rows = cpp_check.run_documents(docs)[0]
        got = refuted(rows)
        print(f"{m.name} ({time.perf_counter() - t0:.0f}s): refuted {sorted(got)} expect {sorted(m.expect)}",
              flush=True)
        OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(set(sys.argv[1:]))
