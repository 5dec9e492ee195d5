"""Compile and run a small C++ program against the CUTLASS headers shipped in the nvidia-cutlass wheel (host
g++, no GPU): the oracle of the SM100 tests (test_umma_idesc, test_blockscaled, test_tmem). Each program
prints one answer per line; g++ runs through ``tests/oracles/cpp_oracle/gxx.py``'s ``run_cpp``."""
from __future__ import annotations

from cpp_oracle.gxx import run_cpp

HEADERS = ("cute/tensor.hpp", "cute/atom/mma_traits_sm100.hpp", "cute/atom/copy_traits_sm100.hpp",
           "cutlass/detail/sm100_blockscaled_layout.hpp", "cutlass/detail/sm103_blockscaled_layout.hpp")


def run_lines(tmp_path, statements, name="probe") -> list:
    """Compile ``statements`` (C++ statements inside ``main``, ``using namespace cute``) and return stdout's
    lines; skips the test when the toolchain is missing."""
    head = "".join(f"#include <{x}>\n" for x in HEADERS)
    text = head + "#include <cstdio>\nusing namespace cute;\nint main() {\n" + "\n".join(statements) + "\n  return 0;\n}\n"
    r = run_cpp(text, name=name, workdir=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.run_returncode == 0, r.stdout[-3000:]
    return r.stdout.splitlines()
