"""Regenerate ``blackwell_0[1-5]_*.records.json``: the host-only captures of CUTLASS's Blackwell CuTe tutorials
(``examples/cute/tutorial/blackwell`` of the nvidia-cutlass wheel, unmodified) that the fast tests of
``test_cpp_blackwell*.py`` read. Needs g++, the wheel and CUDA's headers; about 40 s per tutorial uncached.

    python tests/frontend/trace/cpp/make_blackwell_records.py [01 02 03 04 05]
"""
from __future__ import annotations

import json
import os
from importlib import metadata
import subprocess
import sys
from pathlib import Path

import cutlass_library

from cuteverify.frontend.trace import cpp_capture

HERE = Path(__file__).parent
ROOT = Path(cutlass_library.__file__).parent / "source"
DEFINES = ["CUTLASS_ARCH_MMA_SM100_SUPPORTED=1"]
_L = "cute::Layout<cute::tuple<int, int>, cute::tuple<int, cute::C<1>>>"
ENTRY01 = (f"gemm_host_f16xf16_f32_f32_tnt<cute::half_t, {_L}, cute::half_t, {_L}, float, {_L}, float, {_L}, "
           "float, float>")


def _lay(m, n):
    return f"cute::make_layout(cute::make_shape({m}, {n}), cute::make_stride({n}, cute::Int<1>{{}}))"


# make_tma_atom asserts on an empty gmem tensor: 02-05 are entered with the tutorial's default problem sizes
ENTRY_CALL = ("gemm_host_f16xf16_f32_f32_tnt((cute::half_t const*)nullptr, " + _lay(512, 256) + ", (cute::half_t "
              "const*)nullptr, " + _lay(1024, 256) + ", (float const*)nullptr, " + _lay(512, 1024) + ", (float*)"
              "nullptr, " + _lay(512, 1024) + ", 1.0f, 0.0f)")
TUTORIALS = {"01": ("01_mma_sm100.cu", ENTRY01, "ENTRY"), "02": ("02_mma_tma_sm100.cu", ENTRY_CALL, "ENTRY_CALL"),
             "03": ("03_mma_tma_multicast_sm100.cu", ENTRY_CALL, "ENTRY_CALL"),
             "04": ("04_mma_tma_2sm_sm100.cu", ENTRY_CALL, "ENTRY_CALL"),
             "05": ("05_mma_tma_epi_sm100.cu", ENTRY_CALL, "ENTRY_CALL")}


def _gxx() -> str:
    out = subprocess.run(["g++", "-dumpversion"], capture_output=True, text=True, check=False).stdout.strip()
    return out.split(".")[0] or "?"


def make(key: str) -> Path:
    name, entry, entry_name = TUTORIALS[key]
    path = f"examples/cute/tutorial/blackwell/{name}"
    cwd = os.getcwd()
    os.chdir(ROOT)  # the records name the file relative to the wheel's source/ folder
    try:
        records, _, info = cpp_capture.capture(path, [entry], defines=DEFINES)
    finally:
        os.chdir(cwd)
    keep = {"entries": info["entries"]}
    if "replay_error" in info:
        keep["replay_error"] = info["replay_error"]
    version = metadata.version("nvidia-cutlass")
    out = HERE / f"blackwell_{name[:-3]}.records.json"
    out.write_text(json.dumps({
        "generated_by": f"cuteverify.frontend.trace.cpp_capture.capture({name}, [{entry_name}], defines={DEFINES}) "
                        f"with g++ {_gxx()}, nvidia-cutlass {version} headers (tests/frontend/trace/cpp/"
                        "make_blackwell_records.py)",
        "info": keep, "records": [r.__dict__ for r in records]}, indent=1) + "\n")
    return out


if __name__ == "__main__":
    for k in sys.argv[1:] or sorted(TUTORIALS):
        print(make(k))
