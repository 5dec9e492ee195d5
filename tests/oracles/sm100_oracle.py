"""Compile and run a small C++ program against the CUTLASS headers shipped in the nvidia-cutlass wheel (host
g++, no GPU): the oracle of the SM100 tests (test_umma_idesc, test_blockscaled, test_tmem). Each program
prints one answer per line; g++ runs through the content-keyed cache of ``tests/oracles/cpp_oracle/gxx_cache.py``."""
from __future__ import annotations

import subprocess

import pytest

from cpp_oracle import gxx_cache
from cpp_oracle import harness as h

HEADERS = ("cute/tensor.hpp", "cute/atom/mma_traits_sm100.hpp", "cute/atom/copy_traits_sm100.hpp",
           "cutlass/detail/sm100_blockscaled_layout.hpp", "cutlass/detail/sm103_blockscaled_layout.hpp")


def run_lines(tmp_path, statements, name="probe") -> list:
    """Compile ``statements`` (C++ statements inside ``main``, ``using namespace cute``) and return stdout's
    lines; skips the test when the toolchain is missing."""
    tc = h.toolchain()
    if tc is None:
        pytest.skip("g++ / CUTLASS headers not found")
    gxx, inc = tc
    src = tmp_path / f"{name}.cpp"
    head = "".join(f"#include <{x}>\n" for x in HEADERS)
    text = head + "#include <cstdio>\nusing namespace cute;\nint main() {\n" + "\n".join(statements) + "\n  return 0;\n}\n"
    exe = tmp_path / name
    r = gxx_cache.compile_cpp(gxx, ["-std=c++17", "-O0", "-w", *inc], text, src, exe)
    assert r.returncode == 0, r.stderr[-3000:]
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return out.splitlines()
