"""Where cpp_build finds CUDA's headers (``cuda_includes``: $CUDA_HOME / $CUDA_PATH, then the header wheels the
test extras install, then /usr/local/cuda*) and that CuTe's headers need nothing else: a host-only capture unit
preprocessed against the wheels alone reads no header of a CUDA toolkit."""
from __future__ import annotations

import importlib.metadata
import inspect
import os
import subprocess
from pathlib import Path

import pytest

from cuteverify.frontend.trace import cpp_batch, cpp_build, cpp_capture
from cuteverify.errors import Planned


def _toolkit(root: Path, cccl: bool) -> Path:
    """A fake CUDA toolkit root holding the three marker headers (libcu++ under include/cccl or include)."""
    inc = root / "include"
    lib = inc / "cccl" if cccl else inc
    for d, name in ((inc, "cuda_runtime_api.h"), (inc, "crt/host_defines.h"), (lib, "cuda/std/version")):
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text("// fake\n")
    return root


def _wheels():
    return cpp_build._wheel_includes(cpp_build.CUDA_WHEELS[0])


def test_cuda_home_wins_and_a_root_without_the_headers_is_passed_over(tmp_path, monkeypatch):
    home = _toolkit(tmp_path / "home", cccl=True)
    path = _toolkit(tmp_path / "path", cccl=False)
    monkeypatch.setenv("CUDA_HOME", str(home))
    monkeypatch.setenv("CUDA_PATH", str(path))
    assert cpp_build.cuda_includes() == [str(home / "include" / "cccl"), str(home / "include")]
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "empty"))  # no headers there: the next candidate
    assert cpp_build.cuda_includes() == [str(path / "include")]
    (path / "include" / "crt" / "host_defines.h").unlink()  # incomplete: not mixed with another installation
    monkeypatch.delenv("CUDA_PATH")
    got = cpp_build.cuda_includes()
    assert got is None or all(not d.startswith(str(tmp_path)) for d in got)


def test_wheels_come_before_the_system_toolkit(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "nowhere"))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    wheels = _wheels()
    if wheels is None:
        pytest.skip("the CUDA header wheels (pip install -e '.[test]') are not installed")
    assert cpp_build.cuda_includes() == wheels
    site = str(importlib.metadata.distribution("nvidia-cuda-runtime").locate_file(""))
    assert all(os.path.realpath(d).startswith(os.path.realpath(site)) for d in wheels)
    for m in ("cuda_runtime_api.h", "crt/host_defines.h", "cuda/std/version"):
        assert any(os.path.isfile(os.path.join(d, m)) for d in wheels), m


@pytest.mark.differential
def test_cute_headers_need_only_the_wheels(tmp_path, monkeypatch):
    """The Blackwell TMA-epilogue tutorial's capture unit (CuTe, CUTLASS's arch headers, libcu++) preprocessed with
    the toolchain's flags while CUDA_HOME points nowhere: every CUDA header it reads comes from the wheels."""
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "nowhere"))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    wheels = _wheels()
    if wheels is None or cpp_build.toolchain() is None:
        pytest.skip("g++, the CUTLASS headers or the CUDA header wheels are missing")
    src = Path(cpp_build.cutlass_include()).parent / "examples/cute/tutorial/blackwell/05_mma_tma_epi_sm100.cu"
    if not src.is_file():
        pytest.skip(f"the wheel has no {src.name}")
    unit = tmp_path / "unit.cpp"
    unit.write_text(cpp_capture.rewrite(src.read_text(), str(src), ["f"])[0])
    flags = cpp_capture.include_flags(str(src), (), ["CUTLASS_ARCH_MMA_SM100_SUPPORTED=1"])
    r = subprocess.run([cpp_build.compiler(), *cpp_build.CXXFLAGS, *flags, "-M", str(unit)], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    deps = [os.path.realpath(d) for d in r.stdout.replace("\\\n", " ").split()[1:]]
    cuda = [d for d in deps if os.path.basename(d) in ("cuda_runtime_api.h", "host_defines.h", "driver_types.h")
            or "/cuda/std/" in d]
    roots = [os.path.realpath(w) for w in wheels]
    assert cuda and all(any(d.startswith(w + os.sep) for w in roots) for d in cuda)
    assert not [d for d in deps if d.startswith("/usr/local/cuda")]


def test_building_ahead_does_nothing_with_the_cache_off(monkeypatch):
    monkeypatch.setenv("CUTEVERIFY_TEST_CACHE", "0")
    assert cpp_batch.build_all([cpp_batch.Unit("missing.cu", ("f",))]) == []


def test_every_differential_capture_test_lists_its_units():
    """conftest.py builds ahead only what ``cpp_units()`` lists: a differential test that captures C++ (``capture(``
    or the ``trace cpp`` CLI) and is not listed still passes, but compiles alone, after the others, and the C++
    trace suite's CI budget (8 minutes on 2 cores, cold) counts on the parallel build. Listed names must exist."""
    from tests.frontend.trace import test_cpp, test_cpp_blackwell, test_cpp_commands, test_cpp_hopper
    for mod in (test_cpp, test_cpp_hopper, test_cpp_blackwell, test_cpp_commands):
        units = mod.cpp_units()
        tests = {n: f for n, f in vars(mod).items() if n.startswith("test_") and callable(f)}
        assert set(units) <= set(tests), f"{mod.__name__}.cpp_units() names no such test"
        for n, f in tests.items():
            marks = {m.name for m in getattr(f, "pytestmark", [])}
            src = inspect.getsource(f)
            if "differential" in marks and ("capture(" in src or '"trace", "cpp"' in src):
                assert n in units, f"{mod.__name__}.{n} captures C++: list its units in cpp_units()"


def test_planning_says_whether_a_compile_is_cached_and_runs_nothing(tmp_path, monkeypatch):
    if cpp_build.compiler() is None:
        pytest.skip("no g++")
    monkeypatch.setenv("CUTEVERIFY_TEST_CACHE", str(tmp_path / "cache"))
    src, exe = tmp_path / "a.cpp", tmp_path / "a"

    def plan():
        with cpp_build.planning(), pytest.raises(Planned) as p:
            cpp_build.compile_cpp("int main() { return 3; }\n", src, exe, includes=[])
        return p.value.cached
    assert plan() is False and not src.exists() and not (tmp_path / "cache").exists()
    c = cpp_build.compile_cpp("int main() { return 3; }\n", src, exe, includes=[])
    assert c.returncode == 0 and not c.cached and subprocess.run([str(exe)], check=False).returncode == 3
    assert plan() is True
