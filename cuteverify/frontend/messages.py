"""How front ends word an error for the person who caused it (docs/model.md section 8): the message of a
``CuteVerifyError`` without places that are not theirs. A spec lookup that fails (a missing family parameter,
a value out of range, an unknown dtype) is about the user's arguments: it names the spec, never the path of
the spec file shipped inside the installed package. Light on purpose (the CLI's start-up imports it).
"""
from __future__ import annotations

import functools
import os

from ..errors import SpecError

__all__ = ["user_text", "shipped_spec_dirs"]


@functools.lru_cache(maxsize=1)
def shipped_spec_dirs() -> tuple:
    """The directories of the spec files that come with cuteverify (installed ``spec_data``, the checkout's
    ``specs/``)."""
    out = []
    try:
        from importlib.resources import files
        out.append(os.path.realpath(str(files("cuteverify.spec_data"))))
    except (ModuleNotFoundError, TypeError):
        pass
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    out.append(os.path.join(here, "specs"))
    return tuple(out)


def _shipped(path) -> bool:
    p = os.path.realpath(str(path))
    return any(p == d or p.startswith(d + os.sep) for d in shipped_spec_dirs())


def user_text(error: BaseException) -> str:
    """``str(error)``, except that a spec error located in a shipped spec file is told as ``spec NAME:
    reason`` (the user named the spec; the file is cuteverify's), and one without a file as its reason."""
    if isinstance(error, SpecError) and (not error.file or _shipped(error.file)):
        return f"spec {error.spec}: {error.reason}" if error.spec else error.reason
    return str(error)
