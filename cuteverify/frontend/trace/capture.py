"""``capture``: run a user's CuTe DSL compile script in a subprocess and collect one ``.mlir`` capture per
``cute.compile`` it performs (the capture side of ``cuteverify trace``).

The child runs ``hook_run`` (standard library and DSL only) under the interpreter the command names, with the
DSL's CPU tracing switched on: ``CUTE_DSL_ARCH=<arch>`` (the DSL defaults to sm_100a and a kernel built for
another arch fails), ``CUTE_DSL_DRYRUN=1`` (stop after tracing), ``CUTE_DSL_LINEINFO=1`` (file, line and source
text on every op). With ``stub_torch`` the ``stubs/`` folder (inert ``torch``, ``triton`` and
``torch_c_dlpack_ext`` packages) goes first on the child's ``PYTHONPATH``, for kernels such as FlashAttention-4
and QuACK that import torch at module level but need none of it to trace.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ...errors import CaptureError, DslUnavailable, NoKernelCompiled, ScriptFailed

__all__ = ["capture", "split_command", "ARCHES", "ARCH_FORM", "DEFAULT_ARCH", "DEFAULT_TIMEOUT"]

ARCHES = ("sm_80", "sm_90a", "sm_100a")  # the ones the committed captures use; others of the form sm_NN[a|f] pass
ARCH_FORM = re.compile(r"sm_\d{2,3}[af]?")
DEFAULT_ARCH = "sm_90a"
DEFAULT_TIMEOUT = 600.0  # seconds; the budget is 30 s a kernel, so this only catches a hung script
TAIL_LINES = 12  # lines of the script's stderr quoted in a failure
PIP_HINT = "pip install nvidia-cutlass-dsl (cuteverify's captures are tested with 4.8.1)"

HOOK_RUN = Path(__file__).with_name("hook_run.py")
STUBS_DIR = Path(__file__).with_name("stubs")
# the same two values as in hook_run.py (which is standalone and cannot import them; a test keeps them equal)
NO_DSL_EXIT = 86
NO_DSL_MARKER = "cuteverify-capture: cannot import the CuTe DSL"
# the child's bootstrap: run hook_run by path without putting its folder on sys.path
BOOT = "import runpy, sys; p = sys.argv[1]; sys.argv = sys.argv[1:]; runpy.run_path(p, run_name='__main__')"
_ARCH_MISMATCH = re.compile(r"expects arch to be (\w+), but got (\w+)")


def split_command(argv, cwd=None):
    """``(interpreter, script, args)`` of a command line ``python SCRIPT ARGS...`` or ``SCRIPT ARGS...``.

    Admissible: a first word ending in ``.py`` (run by the interpreter running cuteverify, ``sys.executable``)
    or an interpreter (a path, or a name looked up on ``PATH`` as a shell would) followed by the script. Python
    options before the script (``-m``, ``-u``, ...) are refused: the capture must run a script file. The script
    is resolved against ``cwd`` and must exist. Raises :class:`CaptureError` naming the offending word."""
    argv = [str(a) for a in argv]
    bad = next((a for a in argv if "\x00" in a), None)
    if bad is not None:
        raise CaptureError(f"command word {_cut(bad)!r} holds a NUL character")
    if not argv:
        raise CaptureError("no command given: write `cuteverify trace capture -- python my_kernel.py [ARGS...]`")
    base = Path(cwd) if cwd else Path.cwd()
    if argv[0].endswith(".py"):
        interpreter, rest = sys.executable, argv
    else:
        word = argv[0]
        interpreter = word if os.sep in word else shutil.which(word)
        if interpreter is None or not _is(os.path.isfile, interpreter):
            raise CaptureError(f"interpreter {_cut(word)!r} not found (give a path, or the script first to use "
                               f"cuteverify's own interpreter {sys.executable})")
        rest = argv[1:]
        if not rest:
            raise CaptureError(f"no script after {_cut(word)!r}: write `-- {_cut(word)} my_kernel.py [ARGS...]`")
        if rest[0].startswith("-"):
            raise CaptureError(f"{_cut(word)} option {_cut(rest[0])!r}: the capture runs a script file; put the script "
                               "right after the interpreter")
    script = Path(rest[0])
    if not script.is_absolute():
        script = base / script
    if not _is(os.path.isfile, script):
        raise CaptureError(f"script {_cut(rest[0])!r} not found (looked for {_cut(str(script))})")
    return interpreter, script, rest[1:]


def _cut(word: str, n: int = 120) -> str:
    """``word`` as a message shows it: at most ``n`` characters."""
    return word if len(word) <= n else word[:n] + "..."


def _is(test, path) -> bool:
    """``test(path)``, False where the name itself is unusable (too long, ...) rather than an OSError."""
    try:
        return test(path)
    except (OSError, ValueError):
        return False


def _tail(text: str, n: int = TAIL_LINES) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join("    " + ln for ln in lines[-n:])


def _failure(script, arch, proc, interpreter) -> CaptureError:
    err = proc.stderr or ""
    if proc.returncode == NO_DSL_EXIT and NO_DSL_MARKER in err:
        why = err[err.index(NO_DSL_MARKER) + len(NO_DSL_MARKER):].strip(": \n").splitlines()[0]
        return DslUnavailable(f"the CuTe DSL (package nvidia-cutlass-dsl) cannot be imported by {interpreter} "
                              f"({why}); install it there: {interpreter} -m {PIP_HINT}")
    status = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
              else f"exit status {proc.returncode}")
    shown = _tail(err) or _tail(proc.stdout or "") or "    (no output)"
    msg = f"{script} failed under CUTE_DSL_ARCH={arch} ({status}); last lines of its output:\n{shown}"
    m = _ARCH_MISMATCH.search(err)
    if m and m.group(2) == arch:
        msg += f"\n  hint: the kernel is built for {m.group(1)}: capture with --arch {m.group(1)}"
    elif "No module named 'torch'" in err or "No module named 'triton'" in err:
        msg += "\n  hint: the script imports torch/triton; --stub-torch serves inert stubs (enough to trace)"
    return ScriptFailed(msg)


def capture(argv, arch: str = DEFAULT_ARCH, out_dir=".", stub_torch: bool = False, cwd=None,
            timeout: float = DEFAULT_TIMEOUT) -> list:
    """Run the compile script ``argv`` (see :func:`split_command`) with the trace hook and return the capture
    files it wrote, in the order the kernels were compiled.

    Admissible: ``arch`` a CuTe DSL arch name ``sm_NN`` with an optional ``a``/``f`` (``sm_80``, ``sm_90a``,
    ``sm_100a``; the DSL itself refuses one it does not know, a ScriptFailed); ``out_dir`` is created
    if missing (an existing capture of the same name is overwritten); ``cwd`` is the script's working directory
    and the root that location paths are made relative to (default: the current directory).
    Post-condition: each returned path exists and holds one module, header first (``hook_run``'s docstring).
    Raises :class:`DslUnavailable` (the interpreter lacks the DSL), :class:`ScriptFailed` (non-zero exit or
    timeout: the status and the last lines of stderr, with a hint on an arch mismatch), :class:`NoKernelCompiled`
    (the script never called ``cute.compile``), :class:`CaptureError` (bad command line, arch or folder)."""
    if not ARCH_FORM.fullmatch(arch or ""):
        raise CaptureError(f"--arch {_cut(arch)!r}: expected a CuTe DSL arch such as {', '.join(ARCHES)}")
    cwd = Path(cwd).resolve() if cwd else Path.cwd()
    interpreter, script, args = split_command(argv, cwd)
    out = Path(out_dir)
    out = (out if out.is_absolute() else cwd / out).resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CaptureError(f"-o {out_dir}: cannot create the folder: {e.strerror or e}") from None
    with tempfile.TemporaryDirectory(prefix="cuteverify-capture-") as tmp:
        log = Path(tmp) / "written.txt"
        env = dict(os.environ, CUTE_DSL_ARCH=arch, CUTE_DSL_DRYRUN="1", CUTE_DSL_LINEINFO="1",
                   CUTEVERIFY_CAPTURE_DIR=str(out), CUTEVERIFY_CAPTURE_LOG=str(log),
                   CUTEVERIFY_CAPTURE_ROOT=str(cwd))
        if stub_torch:
            env["PYTHONPATH"] = os.pathsep.join([str(STUBS_DIR)] + [p for p in [env.get("PYTHONPATH")] if p])
        cmd = [interpreter, "-c", BOOT, str(HOOK_RUN), str(script), *args]
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ScriptFailed(f"{script} ran past the capture's time limit of {timeout:g} s") from None
        except OSError as e:
            raise CaptureError(f"cannot run {interpreter}: {e.strerror or e}") from None
        if proc.returncode != 0:
            raise _failure(script, arch, proc, interpreter)
        written = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    if not written:
        raise NoKernelCompiled(f"{script} ran to its end but compiled no kernel: nothing called cute.compile "
                               "(a script that only defines kernels must compile them, e.g. with the fake "
                               "tensors of cuteverify.frontend.trace.fakes)")
    return [Path(p) for p in written]
