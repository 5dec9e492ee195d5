"""One way to run g++ for the C++ oracles of the tests, with a cache keyed by content.

Definition: ``compile_cpp(gxx, args, source, ...)`` runs ``gxx *args SRC [-o EXE]`` and returns the exit code,
the diagnostics and (when asked) the executable. The cache key is the SHA-256 of everything that decides the
result: the compiler's identity (``gxx --version``), the header version (the CUTLASS ``version.h`` and the CUDA
``cuda.h`` / libcu++ version files found under the ``-I`` directories, with the directories' paths), the flags,
the source text, any extra inputs the caller names (``deps``: a precompiled header's text) and the mode (object,
syntax only, standard input). A hit hands back the recorded exit code and diagnostics (with the source's path
substituted) and a copy of the recorded executable; a miss runs g++ and records the outcome, failures included
(g++ is deterministic on identical inputs; the oracles classify compile errors).

Admissibility: editing a header in place without changing its version file is not seen; set
``CUTEVERIFY_TEST_CACHE=0`` (no cache) or point it at a fresh directory. Where it lives: ``$CUTEVERIFY_TEST_CACHE``,
else ``$XDG_CACHE_HOME/cuteverify-tests``, else ``~/.cache/cuteverify-tests``. CI starts from a fresh clone and
a fresh home, so the cache mainly saves repeated local runs; in one run it saves the compiles that repeat (the
same program built by two tests). Nothing is evicted: an entry is one program's diagnostics and executable.

Post-condition: the caller sees what an uncached g++ run would have produced for the same inputs.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

_SRC = "@CUTEVERIFY_SRC@"
_VERSION_FILES = ("cutlass/version.h", "cuda.h", "cuda/version", "cuda/std/version", "cuda/std/__cccl/version.h")


@dataclasses.dataclass
class Compiled:
    returncode: int
    stderr: str
    exe: str | None  # the executable's path (when one was asked for and g++ succeeded)
    cached: bool


def cache_dir() -> str | None:
    """The cache directory, or None when caching is switched off (CUTEVERIFY_TEST_CACHE=0)."""
    env = os.environ.get("CUTEVERIFY_TEST_CACHE")
    if env is not None and env.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cuteverify-tests")


@functools.lru_cache(maxsize=None)
def _compiler_id(gxx: str) -> str:
    r = subprocess.run([gxx, "--version"], capture_output=True, text=True, check=False)
    return os.path.realpath(gxx) + "\n" + r.stdout


@functools.lru_cache(maxsize=None)
def _header_stamp(incs: tuple) -> str:
    h = hashlib.sha256()
    for d in incs:
        h.update(d.encode() + b"\0")
        for name in _VERSION_FILES:
            p = os.path.join(d, name)
            if os.path.isfile(p):
                with open(p, "rb") as f:
                    h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


def _key(gxx, args, source, deps, mode) -> str:
    incs = tuple(a[2:] for a in args if a.startswith("-I"))
    blob = json.dumps([_compiler_id(gxx), _header_stamp(incs), list(args), source, list(deps), mode])
    return hashlib.sha256(blob.encode()).hexdigest()


def compile_cpp(gxx, args, source, src_path=None, exe_path=None, *, deps=(), cwd=None, timeout=600,
                before=None) -> Compiled:
    """Compile ``source`` with ``gxx *args``.

    ``src_path``: where the source is written and compiled from; None feeds it on standard input (``-x c++ -``
    must then be in ``args``). ``exe_path``: link an executable there (``-o``); None for a syntax-only or
    diagnostics-only run (``args`` carries ``-fsyntax-only``). ``deps``: texts of other inputs the result
    depends on (a precompiled header's source). ``before``: called once, only when g++ really runs (to build
    that precompiled header). ``timeout``: a hang guard in wall seconds, not a budget."""
    mode = ("stdin" if src_path is None else "file") + ("+exe" if exe_path else "")
    if src_path is not None:
        with open(src_path, "w") as f:
            f.write(source)
    root = cache_dir()
    key = _key(gxx, args, source, deps, mode) if root else None
    entry = os.path.join(root, key[:2], key) if root else None
    if entry and os.path.isfile(os.path.join(entry, "meta.json")):
        with open(os.path.join(entry, "meta.json")) as f:
            meta = json.load(f)
        exe = None
        if exe_path and meta["returncode"] == 0:
            shutil.copy2(os.path.join(entry, "exe"), exe_path)
            exe = str(exe_path)
        stderr = meta["stderr"].replace(_SRC, str(src_path)) if src_path is not None else meta["stderr"]
        return Compiled(meta["returncode"], stderr, exe, True)
    if before is not None:
        before()
    cmd = [gxx, *args] + ([str(src_path)] if src_path is not None else []) + (["-o", str(exe_path)] if exe_path else [])
    r = subprocess.run(cmd, input=source if src_path is None else None, capture_output=True, text=True,
                       cwd=cwd, timeout=timeout)
    exe = str(exe_path) if exe_path and r.returncode == 0 else None
    if entry:
        _store(root, entry, r.returncode, r.stderr.replace(str(src_path), _SRC) if src_path is not None else r.stderr,
               exe)
    return Compiled(r.returncode, r.stderr, exe, False)


def _store(root, entry, returncode, stderr, exe):
    """Record an outcome atomically (a temporary directory renamed into place); a failure to write the cache
    (read-only home, a full disk, a concurrent writer of the same key) only loses the saving."""
    try:
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        tmp = tempfile.mkdtemp(dir=os.path.dirname(entry), prefix=".tmp-")
        if exe:
            shutil.copy2(exe, os.path.join(tmp, "exe"))
        with open(os.path.join(tmp, "meta.json"), "w") as f:
            json.dump({"returncode": returncode, "stderr": stderr}, f)
        try:
            os.rename(tmp, entry)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError:
        pass
