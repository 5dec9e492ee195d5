"""Spec files: where they are, and their text read into a checked YAML document (docs/model.md section 6).

A spec file is YAML validated against ``schema.json`` (JSON Schema 2020-12). Every mapping of the document
remembers its line and the line of each key (:class:`_Map`), so every later error, from the schema here to a
formula or a self-check failure in the other modules, names the file and the line of the offending key.
Duplicate keys are refused (plain YAML would keep the last one silently).
"""
from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Iterable

import yaml

from ...errors import SpecError

__all__ = ["ENV_VAR", "SEARCH_PATH", "read_spec_document", "spec_sources", "shipped_dir"]

ENV_VAR = "CUTEVERIFY_SPEC_PATH"
#: Extra directories (or files) searched by :func:`cuteverify.hardware.load` after the shipped library; append
#: to extend.
SEARCH_PATH: list = []


# ------------------------------------------------------------------------------ YAML with line numbers

class _Map(dict):
    """A dict that remembers the line of its mapping (``line``) and of each key (``key_lines``)."""

    line: int | None = None
    key_lines: dict

    def line_of(self, key) -> int | None:
        return getattr(self, "key_lines", {}).get(key, self.line)


class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when available
    """SafeLoader whose mappings are :class:`_Map` objects and which refuses duplicate keys."""


def _construct_map(loader: _LineLoader, node: yaml.MappingNode):
    data = _Map()
    data.line = node.start_mark.line + 1
    data.key_lines = {}
    yield data
    seen: dict = {}
    for knode, _ in node.value:
        if knode.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(knode, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                f"duplicate key {key!r} (first at line {seen[key]})", knode.start_mark)
        seen[key] = knode.start_mark.line + 1
    value = loader.construct_mapping(node, deep=True)  # flattens `<<:` merges
    data.update(value)
    for knode, _ in node.value:
        data.key_lines[loader.construct_object(knode, deep=True)] = knode.start_mark.line + 1
    data.key_lines.update(seen)


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)


def line_of(node, key, default=None) -> int | None:
    """The line of ``key`` in a loaded mapping (or of the mapping itself); ``default`` for plain dicts."""
    return node.line_of(key) if isinstance(node, _Map) else default


def _read_yaml(text: str, file: str):
    try:
        return yaml.load(text, Loader=_LineLoader)  # noqa: S506 - SafeLoader subclass
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else None
        raise SpecError(f"YAML error: {e.problem or e.context}", file, line) from None
    except yaml.YAMLError as e:  # pragma: no cover - defensive
        raise SpecError(f"YAML error: {e}", file) from None


# --------------------------------------------------------------------------------------------- schema

@functools.lru_cache(maxsize=1)
def _schema_validator():
    import jsonschema  # loaded on the first file read: `import cuteverify` must stay cheap

    schema = json.loads(shipped_dir().joinpath("schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)  # the schema itself is checked against its meta-schema in tests/hardware/test_specs.py


def _line_at(doc, path) -> int | None:
    """Deepest known line along a JSON path into the loaded document."""
    line = getattr(doc, "line", None)
    node = doc
    for key in path:
        if isinstance(node, _Map):
            line = node.line_of(key) or line
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
            line = getattr(node, "line", line)
        else:
            break
    return line


def _validate_schema(doc, file: str):
    errors = sorted(_schema_validator().iter_errors(doc), key=lambda e: (len(e.path), list(map(str, e.path))))
    if not errors:
        return
    import jsonschema  # see _schema_validator

    err = jsonschema.exceptions.best_match(errors)
    path = list(err.absolute_path)
    spec = path[1] if len(path) > 1 and path[0] == "specs" else None
    loc = "/".join(map(str, path)) or "<top>"
    raise SpecError(f"schema: at {loc}: {err.message}", file, _line_at(doc, path), spec)


def read_spec_document(text: str, file: str, validate: bool = True) -> _Map:
    """One spec file's text as a schema-valid document (a :class:`_Map` remembering lines).

    Post-condition: the document satisfies ``schema.json`` (with ``validate=False``, for the shipped files
    only, the caller relies on their validation by ``spec check`` and the test suite: validating ~400 specs
    costs seconds at every start). Raises :class:`SpecError` (kind ``input``) naming ``file`` and the line for
    a YAML error, a duplicate key, an empty file or a schema violation."""
    doc = _read_yaml(text, file)
    if doc is None:
        raise SpecError("empty spec file", file, 1)
    if validate:
        _validate_schema(doc, file)
    return doc


# ------------------------------------------------------------------------------------------ where

def shipped_dir():
    """The directory of the shipped spec files (the ``cuteverify.spec_data`` package, or ``specs/`` of a
    development checkout)."""
    try:
        from importlib.resources import files

        d = files("cuteverify.spec_data")
        if d.joinpath("schema.json").is_file():
            return d
    except (ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parents[2] / "specs"  # development checkout: <root>/cuteverify/hardware/


def _expand(paths: Iterable) -> list:
    out = []
    for p in paths:
        if hasattr(p, "iterdir") and p.is_dir():
            out.extend(sorted((q for q in p.iterdir() if q.name.endswith((".yaml", ".yml"))),
                              key=lambda q: q.name))
        elif hasattr(p, "read_text"):
            out.append(p)
        else:
            out.append(Path(p))
            if Path(p).is_dir():
                out.pop()
                out.extend(sorted(Path(p).glob("*.y*ml")))
    return out


def _user_paths() -> list:
    env = [x for x in os.environ.get(ENV_VAR, "").split(os.pathsep) if x]
    return [*SEARCH_PATH, *env]


def spec_sources(paths=None, shipped: bool | None = None) -> list:
    """The spec files to read, in order: the shipped ones when ``shipped`` (default: when ``paths`` is None),
    then ``paths`` (a file or directory, or a list of them), or :data:`SEARCH_PATH` and ``$CUTEVERIFY_SPEC_PATH``
    when ``paths`` is None. Directories contribute their ``*.yaml`` / ``*.yml`` files sorted by name."""
    if shipped is None:
        shipped = paths is None
    sources = _expand([shipped_dir()]) if shipped else []
    if paths is None:
        paths = _user_paths()
    elif isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    sources.extend(_expand(paths))
    return sources
