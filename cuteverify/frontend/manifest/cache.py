"""What `cuteverify check` remembers across processes, and the spec library it uses.

The spec library is the process's default one (``hardware.library.default_library``): parsed once, each spec
self-checked the first time it is handed out, so a manifest pays only for the specs it names (about 400 specs
checked eagerly cost several CPU seconds; a check of 30 claims must start in well under a second).

A manifest that passed the JSON schema is remembered (``valid-<sha256 of schema and text>``), so it is
validated once, not on every run (importing jsonschema alone costs about 0.3 s). Only valid texts are
remembered; a changed text or schema is validated again. Where: ``$CUTEVERIFY_CACHE_DIR``, else
``$XDG_CACHE_HOME/cuteverify``, else ``~/.cache/cuteverify``; ``CUTEVERIFY_NO_CACHE=1`` turns it off. An
unreadable or unwritable directory is ignored. Nothing here prints.
"""
from __future__ import annotations

import hashlib

from ...hardware.library import catalog as _library
from ...hardware.checks.cache import cache_dir as _cache_dir

__all__ = ["cache_dir", "default_library", "known_valid", "remember_valid"]

def cache_dir():
    """The cache directory (the spec-check cache's: ``hardware.checkcache.cache_dir``), or None when
    ``CUTEVERIFY_NO_CACHE`` turns caching off."""
    return _cache_dir(("CUTEVERIFY_NO_CACHE",))


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
    """The process's default spec library (lazily self-checked; module docstring)."""
    return _library.default_library()
