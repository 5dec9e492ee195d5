"""The one way cuteverify runs g++ (the CuTe C++ oracles of the tests, `trace cpp`'s host-only captures): find the
toolchain, compile with a cache keyed by content.

Definitions:
  * ``toolchain()``: ``(g++ path, include flags)`` for the CUTLASS headers of the nvidia-cutlass wheel (or
    ``$CUTLASS_INCLUDE``) and the CUDA / libcu++ headers CuTe pulls in (:func:`cuda_includes`: ``$CUDA_HOME``,
    ``$CUDA_PATH``, then the header wheels the test extras install, then ``/usr/local/cuda*``), or None when any
    is missing.
  * ``run_cpp`` (tests/oracles/cpp_oracle/gxx.py) compiles with :func:`compile_cpp` and runs the program: what
    every test uses.
  * ``compile_cpp(source, src_path, out_path, ...)``: the compile step alone, for the batch harness
    (``harness.run_cases``: a precompiled header, one binary run several times) and ``run_cpp``.
  * ``planning()``: a context in which ``compile_cpp`` only says whether its result is cached (``Planned``):
    ``cpp_batch`` builds ahead, in parallel, only the captures whose compile is not.

The cache key is the SHA-256 of everything that decides the result: the compiler's identity (``g++
--version``), the header version (the CUTLASS ``version.h`` and the CUDA ``cuda.h`` / libcu++ version files found
under the ``-I`` directories, with the directories' paths), the flags, the source text, any extra inputs the
caller names (``deps``: a precompiled header's text) and the mode (object or syntax only). A hit hands back
the recorded exit code and diagnostics (with the source's path substituted) and a copy of the recorded output
file; a miss runs g++ and records the outcome, failures included (g++ is deterministic on identical inputs;
the oracles classify compile errors). The program itself always runs (its output is not cached).

Admissibility: editing a header in place without changing its version file is not seen; set
``CUTEVERIFY_TEST_CACHE=0`` (no cache) or point it at a fresh directory. Where it lives: ``$CUTEVERIFY_TEST_CACHE``,
else ``$XDG_CACHE_HOME/cuteverify-tests``, else ``~/.cache/cuteverify-tests``. CI starts from a fresh clone and
a fresh home, so the cache mainly saves repeated local runs; in one run it saves the compiles that repeat (the
same program built by two tests) and carries the C++ trace tests' units that tests/frontend/trace/conftest.py
builds ahead in parallel to the tests that capture them. Nothing is evicted: an entry is one program's diagnostics and executable.

Post-condition: the caller sees what an uncached g++ run would have produced for the same inputs.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import glob
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile

from ...errors import CaptureError, Planned

_SRC = "@CUTEVERIFY_SRC@"
_VERSION_FILES = ("cutlass/version.h", "cuda.h", "cuda/version", "cuda/std/version", "cuda/std/__cccl/version.h")

# The flags of every oracle program: C++17 as CUTLASS needs, no optimisation (compile time dominates), no
# warnings, plain diagnostics that the oracles parse (error classes, the line a case starts on).
CXXFLAGS = ["-std=c++17", "-O0", "-w", "-fno-diagnostics-color", "-ftemplate-backtrace-limit=0"]




def cxxflags(std: str | None = None) -> list:
    """:data:`CXXFLAGS` with its ``-std=`` replaced by ``-std=STD`` when ``std`` is given (``c++20``, ``gnu++17``:
    what a compilation database's entry says); the flags themselves otherwise."""
    return [f"-std={std}" if std and f.startswith("-std=") else f for f in CXXFLAGS]


# ---------------------------------------------------------------------------------------------- toolchain

def cutlass_include():
    """The CUTLASS include directory: ``$CUTLASS_INCLUDE``, else the nvidia-cutlass wheel's; None if absent."""
    env = os.environ.get("CUTLASS_INCLUDE")
    if env and os.path.isdir(env):
        return env
    spec = importlib.util.find_spec("cutlass_library")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        p = os.path.join(loc, "source", "include")
        if os.path.isfile(os.path.join(p, "cute", "layout.hpp")):
            return p
    return None


# The registry wheels that carry CUDA's headers, per CUDA major (newest first): the runtime API, its crt/
# headers, libcu++ (CCCL). The test extras of pyproject.toml install the CUDA 13 set.
CUDA_WHEELS = (("nvidia-cuda-runtime", "nvidia-cuda-crt", "nvidia-cuda-cccl"),
               ("nvidia-cuda-runtime-cu12", "nvidia-cuda-nvcc-cu12", "nvidia-cuda-cccl-cu12"))
# what CuTe's headers include from CUDA's: each must be found under one of the include directories
_CUDA_MARKERS = ("cuda_runtime_api.h", "crt/host_defines.h", "cuda/std/version")


def _root_includes(root: str):
    """The include directories of one CUDA installation (``ROOT/include`` and, CUDA >= 13, ``ROOT/include/cccl``
    first), or None when any marker header is missing there."""
    inc = os.path.join(root, "include")
    out = ([os.path.join(inc, "cccl")] if os.path.isdir(os.path.join(inc, "cccl")) else []) + [inc]
    ok = all(any(os.path.isfile(os.path.join(d, m)) for d in out) for m in _CUDA_MARKERS)
    return out if ok else None


def _wheel_includes(names):
    """The include directories of one set of CUDA header wheels installed for this interpreter (found through
    their installed files' records, ``importlib.metadata``), or None unless every marker header is in one."""
    found = {}
    for name in names:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        for f in dist.files or ():
            p = f.as_posix()
            for m in _CUDA_MARKERS:
                if m not in found and p.endswith("/" + m):
                    d = str(dist.locate_file(p[: -len(m) - 1]))
                    if os.path.isfile(os.path.join(d, m)):
                        found[m] = d
    if len(found) < len(_CUDA_MARKERS):
        return None
    dirs = [found["cuda/std/version"]] + [found[m] for m in _CUDA_MARKERS[:2]]  # libcu++ first, as in a toolkit
    return list(dict.fromkeys(os.path.realpath(d) for d in dirs))


@functools.lru_cache(maxsize=None)
def _cuda_includes(home: str, path: str):
    for r in (home, path):
        if r and _root_includes(r):
            return tuple(_root_includes(r))
    for names in CUDA_WHEELS:
        got = _wheel_includes(names)
        if got:
            return tuple(got)
    for r in sorted(glob.glob("/usr/local/cuda*"), reverse=True):
        if _root_includes(r):
            return tuple(_root_includes(r))
    return None


def cuda_includes():
    """The include directories of CUDA's headers that CuTe's pull in (<cuda_runtime_api.h>, its <crt/...>, libcu++
    <cuda/std/...>), all from one installation, or None when none has them all.

    Order (the first complete one wins; nothing is mixed across installations): ``$CUDA_HOME``, then
    ``$CUDA_PATH`` (a toolkit root: ``ROOT/include``, with ``ROOT/include/cccl`` first when it exists); then the
    header wheels installed for this interpreter (:data:`CUDA_WHEELS`, CUDA 13's ``nvidia-cuda-runtime`` /
    ``nvidia-cuda-crt`` / ``nvidia-cuda-cccl`` before CUDA 12's ``-cu12`` set; located with
    ``importlib.metadata``), which is what ``pip install -e ".[test]"`` provides on any machine; then
    ``/usr/local/cuda*``, newest name first. A variable naming a directory without those headers is passed over.
    Post-condition: every marker header is under one of the returned directories."""
    got = _cuda_includes(os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""))
    return list(got) if got else None


def compiler():
    """The g++ to run (``$CXX``, else ``g++`` on the PATH), or None."""
    return shutil.which(os.environ.get("CXX", "g++"))


def toolchain():
    """(g++ path, include flags) or None when the oracle cannot run here."""
    gxx, cut, cud = compiler(), cutlass_include(), cuda_includes()
    if not (gxx and cut and cud):
        return None
    return gxx, ["-I" + cut] + ["-I" + p for p in cud]


# ---------------------------------------------------------------------------------------------- the cache

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


def _store(entry, returncode, stderr, out):
    """Record an outcome atomically (a temporary directory renamed into place); a failure to write the cache
    (read-only home, a full disk, a concurrent writer of the same key) only loses the saving."""
    try:
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        tmp = tempfile.mkdtemp(dir=os.path.dirname(entry), prefix=".tmp-")
        if out:
            shutil.copy2(out, os.path.join(tmp, "exe"))
        with open(os.path.join(tmp, "meta.json"), "w") as f:
            json.dump({"returncode": returncode, "stderr": stderr}, f)
        try:
            os.rename(tmp, entry)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------- planning

_PLANNING = contextvars.ContextVar("cuteverify_cpp_planning", default=False)


@contextlib.contextmanager
def planning():
    """Within this context (this thread or task), :func:`compile_cpp` writes and runs nothing: it raises
    :class:`Planned` saying whether its result is cached. A caller learns whether a procedure that compiles
    (``cpp_capture.capture``) would find its compile in the cache, with the procedure's own arguments."""
    token = _PLANNING.set(True)
    try:
        yield
    finally:
        _PLANNING.reset(token)


# ---------------------------------------------------------------------------------------------- compile, run

@dataclasses.dataclass(frozen=True)
class Compiled:
    returncode: int
    stderr: str
    out: str | None  # the output file's path (when one was asked for and g++ succeeded)
    cached: bool


def compile_cpp(source, src_path, out_path=None, *, flags=CXXFLAGS, includes=None, deps=(), cwd=None,
                timeout=600, before=None, cache=True) -> Compiled:
    """Compile ``source`` (written to ``src_path``) with ``g++ *flags *includes``.

    ``out_path``: the output file (``-o``: an executable, or a precompiled header when ``flags`` say
    ``-x c++-header``); None for a syntax-only or diagnostics-only run (``flags`` carry ``-fsyntax-only``).
    ``includes``: include flags, None for the toolchain's (then the toolchain must exist: CaptureError
    otherwise). ``deps``: texts of other inputs the result depends on (a precompiled header's source).
    ``before``: called once, only when g++ really runs (to build that precompiled header). ``cache``: False
    for outputs not worth keeping (a precompiled header). ``timeout``: a hang guard in wall seconds."""
    if includes is None:
        tc = toolchain()
        if tc is None:
            raise CaptureError("g++, the CUTLASS headers or the CUDA (libcu++) headers are missing")
        gxx, includes = tc
    else:
        gxx = compiler()
        if gxx is None:
            raise CaptureError("g++ is missing")
    args = [*flags, *includes]
    mode = "file" + ("+out" if out_path else "")
    root = cache_dir() if cache else None
    entry = None
    if root:
        key = _key(gxx, args, source, deps, mode)
        entry = os.path.join(root, key[:2], key)
    if _PLANNING.get():
        raise Planned(bool(entry and os.path.isfile(os.path.join(entry, "meta.json"))))
    with open(src_path, "w") as f:
        f.write(source)
    if entry and os.path.isfile(os.path.join(entry, "meta.json")):
        with open(os.path.join(entry, "meta.json")) as f:
            meta = json.load(f)
        out = None
        if out_path and meta["returncode"] == 0:
            shutil.copy2(os.path.join(entry, "exe"), out_path)
            out = str(out_path)
        return Compiled(meta["returncode"], meta["stderr"].replace(_SRC, str(src_path)), out, True)
    if before is not None:
        before()
    cmd = [gxx, *args, str(src_path)] + (["-o", str(out_path)] if out_path else [])
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=timeout)
    out = str(out_path) if out_path and r.returncode == 0 else None
    if entry:
        _store(entry, r.returncode, r.stderr.replace(str(src_path), _SRC), out)
    return Compiled(r.returncode, r.stderr, out, False)
