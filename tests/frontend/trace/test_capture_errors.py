"""``cuteverify trace capture``'s refusals: each is an input error (exit 2) whose message says what went wrong
and what to do (the DSL missing, the script failing, an arch mismatch, nothing compiled), plus the torch stubs
(run without the DSL) and the command-line split."""
from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cuteverify.errors import CaptureError, DslUnavailable, NoKernelCompiled, ScriptFailed, exit_code
from cuteverify.frontend.trace import capture as capture_mod
from cuteverify.frontend.testing import trace_script
from cuteverify.frontend.trace.capture import STUBS_DIR, capture, split_command

HERE = Path(__file__).resolve().parent
CLI = [sys.executable, "-m", "cuteverify.frontend.cli.main"]
try:
    importlib.metadata.version("nvidia-cutlass-dsl")
    HAVE_DSL = True
except importlib.metadata.PackageNotFoundError:
    HAVE_DSL = False
needs_dsl = pytest.mark.skipif(not HAVE_DSL, reason="the CuTe DSL (nvidia-cutlass-dsl) is not installed")


def test_errors_are_input_errors():
    for cls in (CaptureError, DslUnavailable, ScriptFailed, NoKernelCompiled):
        assert exit_code(cls("x")) == 2


def test_hook_run_shares_the_no_dsl_protocol():
    # hook_run is standalone (it cannot import capture.py); its two constants must be capture.py's
    src = capture_mod.HOOK_RUN.read_text()
    assert re.search(rf"^NO_DSL_EXIT = {capture_mod.NO_DSL_EXIT}\b", src, re.M)
    assert f'NO_DSL_MARKER = "{capture_mod.NO_DSL_MARKER}"' in src


def test_dsl_missing_names_the_package_and_pip(tmp_path):
    # an interpreter without the DSL: this one with no site-packages at all (-S)
    python = tmp_path / "bare-python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    python.chmod(0o755)
    script = tmp_path / "k.py"
    script.write_text("print('never runs')\n")
    with pytest.raises(DslUnavailable) as e:
        capture([str(python), str(script)], arch="sm_80", out_dir=tmp_path / "out")
    msg = str(e.value)
    assert "nvidia-cutlass-dsl" in msg and "pip install" in msg and str(python) in msg
    assert "No module named 'cutlass'" in msg


@needs_dsl
def test_failing_script_gives_status_and_its_last_lines(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import sys, torch\nprint('setup went wrong: ' + torch.__version__, file=sys.stderr)\n"
                      "sys.exit(3)\n")
    proc = subprocess.run([*CLI, "trace", "capture", "--arch", "sm_80", "--stub-torch", "-o", str(tmp_path),
                           "--", str(script)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "exit status 3" in proc.stderr
    assert "setup went wrong: 0.0.0+cuteverify.stub" in proc.stderr  # --stub-torch served the stub
    assert "Traceback" not in proc.stderr.split("last lines")[0]


@needs_dsl
def test_arch_mismatch_hints_at_the_right_arch(tmp_path):
    with pytest.raises(ScriptFailed) as e:
        capture([str(HERE / "kernels" / "wgmma_only_sm90a.py")], arch="sm_80", out_dir=tmp_path)
    msg = str(e.value)
    assert "expects arch to be sm_90a, but got sm_80" in msg
    assert "--arch sm_90a" in msg


@needs_dsl
def test_script_that_compiles_nothing(tmp_path):
    # through the test helper: its arguments reach the script (else the kernel would compile)
    with pytest.raises(NoKernelCompiled) as e:
        trace_script(HERE / "kernels" / "small_gemm_sm80.py", "--no-compile", arch="sm_80", out_dir=tmp_path)
    assert "cute.compile" in str(e.value)
    assert not list(tmp_path.glob("*.mlir"))


def test_split_command_forms(tmp_path):
    script = tmp_path / "k.py"
    script.write_text("")
    assert split_command([str(script), "--n", "4"]) == (sys.executable, script, ["--n", "4"])
    assert split_command([sys.executable, "k.py", "x"], cwd=tmp_path) == (sys.executable, script, ["x"])
    with pytest.raises(CaptureError, match="not found"):
        split_command(["missing.py"], cwd=tmp_path)
    with pytest.raises(CaptureError, match="option '-m'"):
        split_command([sys.executable, "-m", "mod"], cwd=tmp_path)
    with pytest.raises(CaptureError, match="not found"):
        split_command(["no-such-python-interpreter", "k.py"], cwd=tmp_path)
    with pytest.raises(CaptureError, match="--arch 'hopper'"):
        capture([str(script)], arch="hopper", out_dir=tmp_path)


def test_torch_stub_serves_what_fa4_and_quack_need_at_import():
    code = "\n".join([
        "import torch, torch.library, torch._dynamo.config as cfg, triton, triton.language as tl",
        "import torch_c_dlpack_ext",
        "assert torch.__version__.endswith('+cuteverify.stub')",
        "assert isinstance(torch.float8_e4m3fn, torch.dtype) and not isinstance(3, torch.Tensor)",
        "assert torch.float16 is torch.float16 and not torch.cuda.is_available()",
        "assert max(cfg.cache_size_limit, 64) is not None and not (8 > torch.float8_e4m3fn.itemsize * 8)",
        "@torch.library.custom_op('cv::f', mutates_args=())",
        "def f(x):\n    return x + 1",
        "@f.register_fake\ndef g(x):\n    return x",
        "f.register_autograd(g, setup_context=g)",
        "assert f(1) == 2 and g(5) == 5",
        "@torch.compile\ndef h():\n    return 7",
        "assert h() == 7 and list(torch.Size) == []",
        "print('ok')",
    ])
    proc = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(STUBS_DIR)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
