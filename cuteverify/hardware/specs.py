"""The spec library's public names in one module (``cv.specs``), for callers written before the package was
split: loading (:mod:`.library`, :mod:`.loader`), the :class:`Spec` and :class:`Library` (:mod:`.spec`), the
self-check (:mod:`.selfcheck`), agreement (:mod:`.agree`) and dtypes (:mod:`.dtypes`). New code imports from
``cuteverify.hardware``.
"""
from __future__ import annotations

from ..errors import FormulaError, SpecError, SpecInconsistent, UnknownSpec
from .checks.agree import agrees
from .library.dtypes import dtype_bits
from .library.catalog import default_library, get, load, load_file, names, reload, resolve
from .library.loader import ENV_VAR, SEARCH_PATH
from .checks.selfcheck import self_check
from .library.spec import Library, Spec

__all__ = [
    "SpecError", "SpecInconsistent", "UnknownSpec", "FormulaError", "Spec", "Library", "SEARCH_PATH", "ENV_VAR",
    "load", "load_file", "get", "names", "self_check", "agrees", "resolve", "dtype_bits", "default_library",
    "reload",
]
