"""The tests' g++ runner: :func:`run_cpp` compiles with the content-hash cache of
:mod:`cuteverify.frontend.trace.cpp_build` (toolchain, cache, ``compile_cpp``; see there) and runs the program.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile

import pytest

from cuteverify.frontend.trace.cpp_build import CXXFLAGS, compile_cpp, toolchain


@dataclasses.dataclass(frozen=True)
class CppRun:
    returncode: int        # g++'s exit code
    stderr: str            # g++'s diagnostics
    stdout: str            # the program's standard output ("" when it did not run)
    run_returncode: int | None  # the program's exit code (None: syntax only, or it did not compile)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.run_returncode in (0, None)


def run_cpp(source, *, flags=CXXFLAGS, includes=None, syntax_only=False, argv=(), name="prog", workdir=None,
            timeout=600, run_timeout=300) -> CppRun:
    """Compile ``source`` as ``<workdir>/<name>.cpp`` (diagnostics name that file) and, unless ``syntax_only``
    or the compile fails, run it with ``argv``; the program's output is returned, not checked.

    Admissibility: ``includes`` None means the toolchain's headers; where g++ or those headers are missing the
    calling test is skipped (``pytest.skip``). ``workdir`` None: a temporary directory, removed afterwards.
    ``timeout`` / ``run_timeout``: hang guards in wall seconds for g++ / the program, not budgets.
    Post-condition: what an uncached ``g++ *flags *includes SRC -o EXE && EXE *argv`` gives."""
    if includes is None and toolchain() is None:
        pytest.skip("g++ or the CUTLASS / CUDA (libcu++) headers are not available")
    own = workdir is None
    workdir = tempfile.mkdtemp(prefix="cute_cpp_") if own else str(workdir)
    try:
        src = os.path.join(workdir, name + ".cpp")
        exe = None if syntax_only else os.path.join(workdir, name)
        c = compile_cpp(source, src, exe, flags=[*flags, "-fsyntax-only"] if syntax_only else flags,
                        includes=includes, cwd=workdir, timeout=timeout)
        if syntax_only or c.returncode != 0:
            return CppRun(c.returncode, c.stderr, "", None)
        p = subprocess.run([exe, *map(str, argv)], capture_output=True, text=True, timeout=run_timeout)
        return CppRun(c.returncode, c.stderr, p.stdout, p.returncode)
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)
