"""The spec library: spec files read into a :class:`~cuteverify.hardware.spec.Library`, self-checked, and the
default library of a process (the shipped files plus the search path); name resolution with short names.
"""
from __future__ import annotations

import re

from ..errors import FormulaError, SpecError
from . import formula as _fm
from . import tables
from .dtypes import dtype_bits
from .loader import line_of, read_spec_document, spec_sources
from .selfcheck import self_check
from .spec import TV_VARS, Library, Spec, operand_formulas

__all__ = ["load_file", "load", "default_library", "reload", "get", "names", "resolve"]


def load_file(text: str, file: str) -> list:
    """Parse one spec file's text into :class:`Spec` objects (schema + formulas; no self-check).

    Raises :class:`SpecError` (kind ``input``) naming ``file`` and the line for anything malformed."""
    doc = read_spec_document(text, file)
    try:
        helpers = _fm.resolve_helpers(doc.get("helpers") or {}, TV_VARS)
    except FormulaError as e:
        key = next((k for k, v in doc["helpers"].items() if str(v) == e.text), None)
        raise SpecError(f"helpers: {e}", file, line_of(doc["helpers"], key)) from None
    specs = []
    for name, data in doc["specs"].items():
        spec = Spec(name, data, file, line_of(doc["specs"], name), helpers)
        for op in spec.operands:
            if spec.kind != "swizzle" or op == "swizzle":
                operand_formulas(spec, op)
        specs.append(spec)
    return specs


def load(paths=None, *, shipped: bool | None = None, check: bool = True) -> Library:
    """Load spec files and return a :class:`Library`.

    ``paths=None`` loads the shipped library plus :data:`SEARCH_PATH` and ``$CUTEVERIFY_SPEC_PATH``
    (directories of ``*.yaml``, or files).  With explicit ``paths`` only those are read unless
    ``shipped=True``.  ``check`` runs :func:`self_check` on every spec.  Raises :class:`SpecError` for a file
    that cannot be read or is malformed (kind ``input``), :class:`SpecInconsistent` for a spec whose self-check
    fails (kind ``refuted``).
    """
    specs: dict = {}
    files = []
    for src in spec_sources(paths, shipped):
        name = str(src)
        try:
            text = src.read_text()
        except OSError as e:
            raise SpecError(f"cannot read spec file: {e}", name) from None
        files.append(name)
        for spec in load_file(text, name):
            if spec.name in specs:
                other = specs[spec.name]
                raise SpecError(f"duplicate spec name (also at {other.file}:{other.line})", name, spec.line,
                                spec.name)
            specs[spec.name] = spec
    if check:
        for spec in specs.values():
            self_check(spec)
    return Library(specs, files)


_DEFAULT: list = []


def default_library() -> Library:
    """The shipped + search-path library, loaded and self-checked once per process."""
    if not _DEFAULT:
        _DEFAULT.append(load())
    return _DEFAULT[0]


def reload() -> Library:
    """Forget the cached default library (after changing the search path) and load it again."""
    _DEFAULT.clear()
    tables.clear_caches()
    return default_library()


def get(name: str) -> Spec:
    """The spec called ``name`` (or one of its aliases) from the default library."""
    return default_library().get(name)


def names(filter=None) -> list:
    """Names in the default library; see :meth:`Library.names` for ``filter``."""
    return default_library().names(filter)


_SMEM_SHORT = re.compile(r"^(?:GMMA[_:]+)?(?:Layout_)?(K|MN)_(INTER|SW32|SW64|SW128)(?:_Atom)?$", re.I)
_TMA_SHORT = re.compile(r"^(?:TMA_|CU_TENSOR_MAP_)?(?:SWIZZLE_|SW)?(NONE|32B?|64B?|128B?)$", re.I)


def resolve(name: str, dtype=None, library: Library | None = None) -> Spec:
    """The spec for a name, an alias, or a short name plus a dtype.

    Short names: ``GMMA_K_SW128`` / ``GMMA_MN_INTER`` / ``K_SW64`` ... with ``dtype`` pick the
    ``GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`` entry of that element width; ``TMA_SW128`` /
    ``SWIZZLE_64B`` / ``SW32`` / ``TMA_NONE`` name the ``CU_TENSOR_MAP_SWIZZLE_*`` modes.  A full smem-atom
    name with a ``dtype`` of another width is refused (:class:`SpecError`); an unknown name raises
    :class:`~cuteverify.errors.UnknownSpec` with suggestions.
    """
    lib = library or default_library()
    if name in lib:
        spec = lib[name]
        if dtype is not None and spec.kind == "smem_atom" and dtype_bits(dtype) != spec.data["element_bits"]:
            raise SpecError(f"dtype {dtype!r} is {dtype_bits(dtype)}-bit but the atom is for "
                            f"{spec.data['element_bits']}-bit elements", spec.file, spec.line, spec.name)
        return spec
    m = _SMEM_SHORT.match(name.strip())
    if m:
        if dtype is None:
            raise SpecError(f"{name}: a short smem-atom name needs dtype= (e.g. dtype='bf16')")
        major, sw, eb = m.group(1).upper(), m.group(2).upper(), dtype_bits(dtype)
        for s in lib.values():
            d = s.data
            if s.kind == "smem_atom" and d["major"] == major and d["swizzle"] == sw and d["element_bits"] == eb:
                return s
        raise SpecError(f"{name}: no GMMA::Layout_{major}_{sw}_Atom for {eb}-bit elements")
    m = _TMA_SHORT.match(name.strip())
    if m:
        span = m.group(1).upper().rstrip("B")
        full = "CU_TENSOR_MAP_SWIZZLE_" + ("NONE" if span == "NONE" else span + "B")
        if full in lib:
            return lib[full]
    return lib.get(name)  # UnknownSpec with suggestions
