"""The child process of ``cuteverify trace capture``: registers cuteverify's trace hook on the CuTe DSL, then
runs the user's compile script unchanged, as ``python SCRIPT ARGS...`` would.

Standalone on purpose: it imports only the standard library and the CuTe DSL, so any interpreter that has the
DSL runs it, whether cuteverify is installed there or not; no module of cuteverify imports it. ``capture.py``
starts it as ``PYTHON -c BOOT hook_run.py SCRIPT ARGS...`` (running it by path as ``python hook_run.py`` would
put this package's folder first on ``sys.path``, where ``types.py`` would shadow the standard library's).

Environment (set by ``capture.py``): ``CUTEVERIFY_CAPTURE_DIR`` (where the ``.mlir`` files go),
``CUTEVERIFY_CAPTURE_LOG`` (a file receiving the path of each capture written, one a line),
``CUTEVERIFY_CAPTURE_ROOT`` (the folder that location paths are made relative to), and the DSL's own
``CUTE_DSL_ARCH`` / ``CUTE_DSL_DRYRUN`` / ``CUTE_DSL_LINEINFO``.

Post-condition of one ``cute.compile`` in the script: a file ``<function>.mlir`` (``<function>.<n>.mlir`` for
the n-th repeat of a name in this run; the name cut to ``MAX_STEM`` characters) whose first line is ``// cuteverify-capture: {json}`` (keys ``tool``,
``dsl`` (the nvidia-cutlass-dsl version), ``arch``, ``function``, ``script``, ``python``) and whose rest is
``module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)`` with every absolute file name
in a ``loc("FILE":line:col)`` rewritten by :func:`portable_path`.
"""
import importlib.metadata
import json
import os
import platform
import re
import runpy
import sys

NO_DSL_EXIT = 86  # exit status meaning "the DSL cannot be imported" (capture.py reads it with the marker below)
NO_DSL_MARKER = "cuteverify-capture: cannot import the CuTe DSL"
HEADER_PREFIX = "// cuteverify-capture: "
DSL_DIST = "nvidia-cutlass-dsl"
MAX_STEM = 80  # the DSL's function names carry every argument's type: keep file names short (header has all)

try:
    import cutlass.cute  # noqa: F401 - the DSL's CuTe dialect registers itself on import
    from cutlass.cutlass_dsl import CuTeDSL
except ImportError as _e:  # the parent turns this into DslUnavailable
    print(f"{NO_DSL_MARKER}: {type(_e).__name__}: {_e}", file=sys.stderr)
    sys.exit(NO_DSL_EXIT)

# a file name in a FileLineColLoc: loc("FILE":LINE:COL ...); a NameLoc's text is followed by '(' and never matches
_FILE_LOC = re.compile(r'loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_SITE = re.compile(r"[\\/](?:site|dist)-packages[\\/]")


def _under(path: str, root: str):
    """``path`` relative to ``root`` when it lies inside it, else None."""
    if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, root)
    return None


def portable_path(path: str, roots) -> str:
    """A location's file name that does not depend on the machine: ``site-packages/<module path>`` for an
    installed package's file (wherever its environment lives); else relative to the first of ``roots`` that
    holds it (the capture's root, then the script's folder); otherwise unchanged. Relative names and non-absolute pseudo-files (``<string>``) stay as they are."""
    if not os.path.isabs(path):
        return path
    tail = _SITE.split(os.path.normpath(path))
    if len(tail) > 1:
        return "site-packages/" + tail[-1].replace(os.sep, "/")
    for cand in (os.path.normpath(path), os.path.realpath(path)):
        for root in roots:
            rel = _under(cand, root)
            if rel is not None:
                return rel.replace(os.sep, "/")
    return path


def normalise_locations(text: str, roots) -> str:
    """``text`` with every ``loc("FILE":l:c`` file name passed through :func:`portable_path`."""
    cache = {}

    def repl(m):
        f = m.group(1)
        if f not in cache:
            cache[f] = portable_path(f, roots) if "\\" not in f else f  # an escaped name: leave it alone
        return f'loc("{cache[f]}":{m.group(2)}:{m.group(3)}'

    return _FILE_LOC.sub(repl, text)


class CaptureHook:
    """The trace-finalize hook: ``hook(owner, module, function_name)`` writes one capture file per call."""

    def __init__(self, out_dir, log_path, roots, script):
        self.out_dir, self.log_path, self.roots, self.script = out_dir, log_path, roots, script
        self.seen = {}
        try:
            self.dsl_version = importlib.metadata.version(DSL_DIST)
        except importlib.metadata.PackageNotFoundError:
            self.dsl_version = None

    def file_name(self, function_name: str) -> str:
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", function_name or "kernel").strip(".")[:MAX_STEM] or "kernel"
        n = self.seen.get(stem, 0)
        self.seen[stem] = n + 1
        return f"{stem}.mlir" if n == 0 else f"{stem}.{n}.mlir"

    def __call__(self, owner, module, function_name):
        text = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
        header = {"tool": "cuteverify trace capture", "dsl": self.dsl_version,
                  "arch": os.environ.get("CUTE_DSL_ARCH"), "function": function_name, "script": self.script,
                  "python": platform.python_version()}
        path = os.path.join(self.out_dir, self.file_name(function_name))
        with open(path, "w", encoding="utf-8") as f:
            f.write(HEADER_PREFIX + json.dumps(header) + "\n")
            f.write(normalise_locations(text, self.roots))
        if self.log_path:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(path + "\n")


def main(argv):
    if not argv:
        print("usage: hook_run.py SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    script = os.path.abspath(argv[0])
    out_dir = os.path.abspath(os.environ.get("CUTEVERIFY_CAPTURE_DIR", "."))
    root = os.path.realpath(os.environ.get("CUTEVERIFY_CAPTURE_ROOT", os.getcwd()))
    roots = [root, os.path.realpath(os.path.dirname(script))]
    rel_script = portable_path(script, roots)
    os.makedirs(out_dir, exist_ok=True)
    hook = CaptureHook(out_dir, os.environ.get("CUTEVERIFY_CAPTURE_LOG"), roots, rel_script)
    CuTeDSL._get_dsl().register_trace_finalize_hook(hook)
    sys.argv = [script] + list(argv[1:])
    sys.path[0] = os.path.dirname(script)  # as `python SCRIPT` sets it (it is '' under `python -c`)
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
