"""``cuteverify trace capture`` on a small kernel of our own (tests/frontend/trace/kernels/small_gemm_sm80.py),
traced by the CuTe DSL in a subprocess: the capture file, its header, portable paths, and what the text holds,
checked against the kernel's source (line numbers found by reading the file, not from cuteverify)."""
from __future__ import annotations

import gzip
import importlib.metadata
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest


HERE = Path(__file__).resolve().parent
KERNEL = HERE / "kernels" / "small_gemm_sm80.py"


def _dsl_version():
    try:
        return importlib.metadata.version("nvidia-cutlass-dsl")
    except importlib.metadata.PackageNotFoundError:
        return None


DSL = _dsl_version()
needs_dsl = pytest.mark.skipif(DSL is None, reason="the CuTe DSL (nvidia-cutlass-dsl) is not installed")
CLI = [sys.executable, "-m", "cuteverify.frontend.cli.main"]


def source_line(path: Path, statement: str) -> int:
    """1-based line of the first source line that contains ``statement`` (the oracle for the locations)."""
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if statement in line:
            return i
    raise AssertionError(f"{statement!r} not in {path}")


@pytest.fixture(scope="module")
def cli_capture(tmp_path_factory):
    out = tmp_path_factory.mktemp("captures")
    proc = subprocess.run([*CLI, "trace", "capture", "--arch", "sm_80", "-o", str(out), "--",
                           "kernels/small_gemm_sm80.py"], cwd=HERE, capture_output=True, text=True, timeout=300)
    return out, proc


@needs_dsl
def test_cli_writes_one_capture_with_header(cli_capture):
    out, proc = cli_capture
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout.split()
    assert len(printed) == 1
    path = Path(printed[0])
    assert path.parent.resolve() == out.resolve() and path.suffix == ".mlir" and path.is_file()
    first = path.read_text().splitlines()[0]
    assert first.startswith("// cuteverify-capture: ")
    header = json.loads(first[len("// cuteverify-capture: "):])
    assert header["dsl"] == DSL and header["tool"] == "cuteverify trace capture"
    assert header["arch"] == "sm_80"
    assert header["script"] == "kernels/small_gemm_sm80.py"
    assert header["python"] == platform.python_version()
    assert "small_gemm" in header["function"] and path.name.startswith("cutlass_small_gemm")


@needs_dsl
def test_capture_text_has_portable_locations_and_the_kernels_objects(cli_capture):
    out, proc = cli_capture
    text = Path(proc.stdout.split()[0]).read_text()
    files = set(re.findall(r'loc\("((?:[^"\\]|\\.)*)":\d+:\d+', text))
    assert "kernels/small_gemm_sm80.py" in files
    assert not [f for f in files if os.path.isabs(f)], files
    assert str(HERE) not in text
    assert "!cute.tiled_mma<!cute_nvgpu.sm80.mma<16x8x16" in text
    assert '"cute.tiled.copy.partition_S"' in text and "!cute_nvgpu.atom.simt_async_copy<f16" in text
    # A (m,k) with k contiguous (fake_tensor(..., major=1)): stride 1 on mode 1
    assert '"(?{div=8},?{div=8}):(?{i64 div=8},1)"' in text
    # the op built by `tAsA = thr_copy.partition_D(sA)` carries that statement's file and line
    line = source_line(KERNEL, "tAsA = thr_copy.partition_D(sA)")
    file_locs = dict(re.findall(r'^(#loc\d*) = loc\("kernels/small_gemm_sm80.py":(\d+):\d+\)$', text, re.M))
    at_line = {alias for alias, ln in file_locs.items() if int(ln) == line}
    assert at_line, f"no location at kernels/small_gemm_sm80.py:{line}"
    named = re.findall(r'^(#loc\d*) = loc\("tAsA = thr_copy.partition_D\(sA\)"\((#loc\d*)\)\)$', text, re.M)
    assert any(inner in at_line for _, inner in named)
    ops = re.findall(r'"cute.tiled.copy.partition_D".* loc\((#loc\d*)\)$', text, re.M)
    assert {alias for alias, _ in named} & set(ops)


DATA = HERE.parent / "trace_data"


def test_committed_captures_carry_header_and_portable_paths():
    """The 12 committed captures (re-captured by drivers/run_all.sh): header first, arch as in the file name,
    and every location's file relative: a CUTLASS source under kernels/, an installed package's file under
    site-packages/, or the driver itself (a file of drivers/); no DSL needed."""
    captures = sorted(DATA.glob("*.mlir.gz"))
    assert len(captures) == 12
    for path in captures:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            text = f.read()
        first, _, body = text.partition("\n")
        header = json.loads(first[len("// cuteverify-capture: "):])
        assert first.startswith("// cuteverify-capture: ")
        assert header["dsl"] == "4.8.1" and path.name.endswith(f"_{header['arch']}.mlir.gz"), path.name
        files = set(re.findall(r'loc\("((?:[^"\\]|\\.)*)":\d+:\d+', body))
        for f in files:
            assert (f.startswith(("kernels/", "site-packages/")) or f == "<string>"
                    or (DATA / "drivers" / f).is_file()), (path.name, f)
        assert (DATA / "drivers" / header["script"]).is_file(), header["script"]


@needs_dsl
def test_stride_order_for_gives_each_modes_rank():
    # the DSL's stride_order: entry i = rank of mode i's stride (0 = stride 1); CUTLASS's (m,k,l) k-major is (1,0,2)
    fakes = pytest.importorskip("cuteverify.frontend.trace.fakes")
    assert fakes.stride_order_for(3, 1) == (1, 0, 2)
    assert fakes.stride_order_for(3, 0) == (0, 1, 2)
    assert fakes.stride_order_for(4, -1) == (1, 2, 3, 0)
    with pytest.raises(IndexError):
        fakes.stride_order_for(2, 2)
