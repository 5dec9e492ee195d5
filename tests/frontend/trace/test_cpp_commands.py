"""``cuteverify trace cpp --compile-commands compile_commands.json FILE.cu``: the -I / -D / -std of FILE's entry in a
compilation database (cpp_commands), read in nvcc's and g++'s spellings, and used by the host-only capture."""
from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.errors import CaptureError
from cuteverify.frontend.cli.main import main
from cuteverify.frontend.trace import cpp_build
from cuteverify.frontend.trace.cpp_batch import Unit
from cuteverify.frontend.trace.cpp_commands import CommandFlags, entry_flags


def _db(tmp_path, entries):
    p = tmp_path / "compile_commands.json"
    p.write_text(json.dumps(entries))
    return p


def test_the_entry_of_the_file_gives_its_includes_defines_and_std(tmp_path):
    build = tmp_path / "build"
    build.mkdir()
    src = tmp_path / "k.cu"
    src.write_text("")
    nvcc = ["/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler", "-I../inc", "-isystem", "/sys/inc",
            "--include-path=rel", "-DTILE=128", "-D", "USE_TMA", "--define-macro=MODE=2", "-O3", "-std=c++20",
            "-gencode", "arch=compute_90a,code=sm_90a", "-x", "cu", "-c", "../k.cu", "-o", "k.o"]
    db = _db(tmp_path, [{"directory": str(build), "file": "../other.cu", "command": "nvcc -DOTHER -c ../other.cu"},
                        {"directory": str(build), "file": "../k.cu", "arguments": nvcc},
                        {"directory": str(build), "file": "../k.cu", "command": "nvcc -DSECOND -c ../k.cu"}])
    assert entry_flags(str(db), str(src)) == CommandFlags(
        (str(tmp_path / "inc"), "/sys/inc", str(build / "rel")), ("TILE=128", "USE_TMA", "MODE=2"), "c++20")
    # the `command` form (shell-quoted), g++'s spellings, a path relative to the database's folder
    cmd = shlex.join(["g++", "--std", "c++17", "-iquote", "q", "-D", 'NAME="a b"', "-c", "k.cu"])
    db = _db(tmp_path, [{"directory": str(tmp_path), "file": "k.cu", "command": cmd}])
    assert entry_flags(str(db), str(src)) == CommandFlags((str(tmp_path / "q"),), ('NAME="a b"',), "c++17")


def test_no_entry_and_a_bad_database_are_input_errors(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("")
    db = _db(tmp_path, [{"directory": str(tmp_path), "file": "other.cu", "command": "nvcc -c other.cu"}])
    with pytest.raises(CaptureError, match="no entry for"):
        entry_flags(str(db), str(src))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CaptureError, match="not a readable compilation database"):
        entry_flags(str(tmp_path / "bad.json"), str(src))
    r = CliRunner().invoke(main, ["trace", "cpp", str(src), "--entry", "f", "--compile-commands", str(db)])
    assert r.exit_code == 2 and "no entry for" in r.output and "Traceback" not in r.output


_STAGE = r"""#include <cute/tensor.hpp>
#include "stage_cfg.hpp"
using namespace cute;
static_assert(__cplusplus >= 202002L, "built as C++20: the -std of the compile_commands.json entry");

template <class SmemLayout, class Copy>
__global__ void stage(float const* in, SmemLayout sl, Copy copy)
{
  __shared__ float smem[cosize_v<SmemLayout>];
  Tensor s = make_tensor(make_smem_ptr(smem), sl);
  ThrCopy thr = copy.get_slice(threadIdx.x);
  Tensor ts = thr.partition_D(s);
}

void launch(float const* in)
{
  auto sl = make_layout(make_shape(Int<32>{}, Int<8>{}), make_stride(STAGE_STRIDE));
  auto copy = make_tiled_copy(Copy_Atom<UniversalCopy<float>, float>{},
                              Layout<Shape<_32,_1>>{}, Layout<Shape<_1,_1>>{});
  stage<<<1, 32>>>(in, sl, copy);
}
"""


def _project(root: Path):
    """A kernel whose stride comes from a header in inc/ (only the entry's -I finds it) and a -D of the entry, and
    that builds only as C++20; its compile_commands.json."""
    (root / "inc").mkdir(parents=True, exist_ok=True)
    (root / "inc" / "stage_cfg.hpp").write_text("#define STAGE_STRIDE STAGE_COL\n")
    src = root / "stage.cu"
    src.write_text(_STAGE)
    args = ["nvcc", "-Iinc", "-DSTAGE_COL=_1{},_32{}", "-std=c++20", "-c", "stage.cu"]
    db = root / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(root), "file": "stage.cu", "arguments": args}]))
    return src, db


@pytest.mark.differential
@pytest.mark.skipif(cpp_build.toolchain() is None, reason="g++, the CUTLASS headers or CUDA's headers are missing")
def test_cli_builds_with_the_entrys_flags_and_proves():
    src, db = _project(_ROOT)
    r = CliRunner().invoke(main, ["trace", "cpp", str(src), "--entry", "launch", "--compile-commands", str(db),
                                  "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert {x["kind"] for x in out["results"] if x["status"] == "proved"} >= {"injective", "covers", "vector", "banks"}
    # conftest.py built cpp_units() ahead: the same unit (its -std=c++20 and the entry's -I / -D), a cache hit
    assert out["capture"]["cached"] or cpp_build.cache_dir() is None
    r = CliRunner().invoke(main, ["trace", "cpp", str(src), "--entry", "launch"])  # without the entry's flags
    assert r.exit_code == 2 and "stage_cfg.hpp" in r.output


# a fixed folder: the unit names its file, so the content-hash cache hits on the next run
_ROOT = Path(tempfile.gettempdir()) / "cuteverify-trace-cpp" / "commands"


def cpp_units():
    """The translation units the differential test here captures (built ahead: conftest.py)."""
    src, _ = _project(_ROOT)
    return {"test_cli_builds_with_the_entrys_flags_and_proves": [
        Unit(str(src), ("launch",), (str(_ROOT / "inc"),), ("STAGE_COL=_1{},_32{}",), std="c++20")]}
