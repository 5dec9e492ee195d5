"""The spec library's self-check result, remembered across processes (issue 30).

Definition: an entry records that one exact set of spec files (their names and bytes, with ``schema.json``)
loaded, validated and self-checked without a failure under one exact checker: the key is the SHA-256 of the
checker's own source (every ``.py`` file of the ``cuteverify`` package, and the Python version), the schema's
bytes and each spec file's name and bytes. Any changed byte of a spec file, the schema or the checker gives
another key, so a result is never trusted across versions of the checker or of the YAML.

There is one cache file (``spec-check.json`` in the cache directory): it holds the entries of the last few
distinct source sets (the shipped library alone, and with a user's directory), newest first. Only a success
is stored (a failure is re-derived, so that its message names the file and line), or, by a lazy load that
found no entry, the files' name index alone (``"self_checked": False``: the files parsed, nothing checked).
A corrupt, unreadable or foreign file is ignored (treated as a miss) and rewritten by the next success; an
unwritable directory is ignored.

Where: ``$CUTEVERIFY_CACHE_DIR``, else ``$XDG_CACHE_HOME/cuteverify``, else ``~/.cache/cuteverify``;
``CUTEVERIFY_NO_CACHE=1`` turns it off (the same directory and switch as the manifest cache), and
``CUTEVERIFY_NO_SPEC_CACHE=1`` this cache alone (the test suite sets it: a test that monkeypatches the checker
runs a checker whose source hash does not say so).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path

__all__ = ["cache_dir", "checker_hash", "sources_key", "lookup", "store", "FILE_NAME"]

FILE_NAME = "spec-check.json"
_FORMAT = 1          # the entry layout; bumped when it changes
_KEEP = 4            # distinct source sets remembered


def cache_dir(switches=("CUTEVERIFY_NO_CACHE", "CUTEVERIFY_NO_SPEC_CACHE")):
    """The project's one cache directory (``$CUTEVERIFY_CACHE_DIR``, else ``$XDG_CACHE_HOME/cuteverify``, else
    ``~/.cache/cuteverify``), or None when one of the environment ``switches`` turns caching off."""
    for var in switches:
        if os.environ.get(var, "").strip() not in ("", "0"):
            return None
    d = os.environ.get("CUTEVERIFY_CACHE_DIR")
    if d:
        return Path(d)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cuteverify"


@functools.lru_cache(maxsize=1)
def checker_hash() -> str:
    """SHA-256 of the checker: every ``.py`` file of the package (sorted by path relative to it) and the
    Python version. Post-condition: any edit of any module gives another value."""
    root = Path(__file__).resolve().parents[2]  # the package: cuteverify/hardware/checks/cache.py
    h = hashlib.sha256(f"cuteverify-checker {_FORMAT} {sys.version_info[:2]}\0".encode())
    for p in sorted(root.rglob("*.py")):
        h.update(str(p.relative_to(root)).encode() + b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def sources_key(files, schema: bytes) -> str:
    """The key of a load: ``files`` is a list of ``(name, bytes)`` in load order (names as given; only the
    base name enters the key, so one library checked from two checkouts shares its entry)."""
    h = hashlib.sha256(checker_hash().encode() + b"\0" + hashlib.sha256(schema).digest())
    for name, data in files:
        h.update(os.path.basename(str(name)).encode("utf-8", "surrogatepass") + b"\0")
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def _path():
    d = cache_dir()
    return None if d is None else d / FILE_NAME


def _entries(path) -> list:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    if not isinstance(data, dict) or data.get("format") != _FORMAT or not isinstance(data.get("entries"), list):
        return []
    return [e for e in data["entries"] if isinstance(e, dict) and isinstance(e.get("key"), str)
            and isinstance(e.get("result"), dict)]


def lookup(key: str):
    """The stored result for ``key`` (a dict), or None: no cache, no entry, or a corrupt file."""
    path = _path()
    if path is None:
        return None
    for e in _entries(path):
        if e["key"] == key:
            return e["result"]
    return None


def store(key: str, result: dict) -> None:
    """Remember ``result`` (JSON-serialisable) for ``key``; written atomically, errors ignored."""
    path = _path()
    if path is None:
        return
    entries = [e for e in _entries(path) if e["key"] != key]
    entries.insert(0, {"key": key, "result": result})
    text = json.dumps({"format": _FORMAT, "entries": entries[:_KEEP]})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{FILE_NAME}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
