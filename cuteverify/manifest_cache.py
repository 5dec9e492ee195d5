"""The spec library of ``cuteverify check``, cached across processes.

Why: the default library is ~400 specs whose self-check (every CUTLASS layout proved against its PTX formula)
takes tens of CPU seconds, while a manifest uses a handful of them; a check of 30 claims must start in well
under a second. What is cached: the parsed library (``hardware.library.load(check=False)``), written only
after every spec of it passed ``self_check`` in the process that wrote it. The key is a SHA-256 of the Python
version, the installed z3 and sympy (path, size, modification time), the text of every spec source the default
library reads (shipped files, ``SEARCH_PATH``, ``$CUTEVERIFY_SPEC_PATH``) and the path, size and modification time of every module of the
``cuteverify`` package (hashing their text would cost a fifth of a second per run; an edit changes the
modification time): any change to a spec or to the code that parses or checks it is a new key, so a cached
library is always one that this code self-checked from these files.

The same directory remembers manifests that passed the JSON schema (``valid-<sha256 of schema and text>``):
a manifest is validated once, not on every run (importing jsonschema alone costs about 0.3 s). Only valid
texts are remembered; a changed text or schema is validated again.

Where: ``$CUTEVERIFY_CACHE_DIR``, else ``$XDG_CACHE_HOME/cuteverify``, else ``~/.cache/cuteverify``;
``CUTEVERIFY_NO_CACHE=1`` turns it off. An unreadable, corrupt or unwritable cache is ignored (the library is
then loaded and self-checked as without it). Nothing here prints.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
import tempfile
from pathlib import Path

from .hardware import library as _library
from .hardware.loader import spec_sources
from .hardware.selfcheck import self_check

__all__ = ["cache_dir", "cache_key", "default_library", "known_valid", "remember_valid"]

_PACKAGE = Path(__file__).resolve().parent


def cache_dir():
    """The cache directory, or None when caching is off."""
    if os.environ.get("CUTEVERIFY_NO_CACHE", "").strip() not in ("", "0"):
        return None
    d = os.environ.get("CUTEVERIFY_CACHE_DIR")
    if d:
        return Path(d)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cuteverify"


def _installed(module: str) -> str:
    """Where ``module`` is installed and when: a reinstall or upgrade changes it (cheaper than
    ``importlib.metadata``, which costs a tenth of a second to import)."""
    try:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
        st = os.stat(origin) if origin else None
        return f"{origin}:{st.st_size}:{st.st_mtime_ns}" if st else "none"
    except (ImportError, ValueError, OSError):
        return "none"


def cache_key() -> str:
    """SHA-256 over everything the default library's content and self-check depend on (module docstring)."""
    h = hashlib.sha256()
    h.update(sys.version.encode())
    for module in ("z3", "sympy"):
        h.update(f"\0{module}={_installed(module)}".encode())
    for src in spec_sources(None, None):
        h.update(b"\0spec\0" + str(src).encode() + b"\0" + src.read_bytes())
    for path in sorted(_PACKAGE.rglob("*.py")):
        if "__pycache__" not in path.parts:
            st = path.stat()
            h.update(f"\0py\0{path.relative_to(_PACKAGE)}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    return h.hexdigest()


def _marker(schema_text: str, text: str):
    d = cache_dir()
    if d is None:
        return None
    h = hashlib.sha256(b"manifest-schema\0" + schema_text.encode() + b"\0" + text.encode("utf-8", "surrogatepass"))
    return d / f"valid-{h.hexdigest()}"


def known_valid(schema_text: str, text: str) -> bool:
    """Did this manifest text pass this schema before (in any process)?"""
    m = _marker(schema_text, text)
    return m is not None and m.exists()


def remember_valid(schema_text: str, text: str) -> None:
    """Record that this manifest text passed this schema (ignored when the cache cannot be written)."""
    m = _marker(schema_text, text)
    if m is None:
        return
    try:
        m.parent.mkdir(parents=True, exist_ok=True)
        m.touch()
    except OSError:
        pass


def default_library():
    """The process's default spec library: the one already loaded, else the cached one for this key, else
    loaded, self-checked (``SpecInconsistent`` propagates, nothing is written) and then cached."""
    if _library._DEFAULT:
        return _library._DEFAULT[0]
    d = cache_dir()
    try:
        path = d / f"library-{cache_key()}.pickle" if d is not None else None
    except OSError:  # a spec source that cannot be read: the loader reports it
        path = None
    if path is not None:
        try:
            with open(path, "rb") as f:
                lib = pickle.load(f)
            if isinstance(lib, _library.Library):
                return _library.install_default(lib)
        except Exception:  # noqa: BLE001 - no cache, a stale format, a corrupt file: load as without a cache
            pass
    lib = _library.load(check=False)
    blob = pickle.dumps(lib, protocol=pickle.HIGHEST_PROTOCOL)  # before the self-check fills its caches
    for spec in lib.values():
        self_check(spec)
    _library.install_default(lib)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".library-")
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the whole new one
            for old in path.parent.glob("library-*.pickle"):  # libraries of older code or specs
                if old != path:
                    old.unlink(missing_ok=True)
        except OSError:
            pass
    return lib
