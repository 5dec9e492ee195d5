"""Read a CuTe DSL capture: the traced MLIR module printed in generic form with locations (docs/model.md section
10.4; ``get_asm(enable_debug_info=True, print_generic_op_form=True)`` of nvidia-cutlass-dsl 4.8.1).

The text, as that printer writes it, one construct per line:

* ``// cuteverify-capture: {json}``: the capture's header (``trace capture`` writes it: DSL version, arch);
* ``!name = TYPE``: a type alias, used by ops as ``!name``; ``#name = ATTR``: an attribute alias, among them
  the locations ``#locN = loc("file":line:col)`` and ``#locN = loc("first source line"(#locM))``;
* ``%r = "dialect.op"(%a, %b#1) <{props}> {attrs} : (TYPES) -> TYPES loc(LOC)``: an op (``%r:2 = ...`` defines
  ``%r#0`` and ``%r#1``); an op with regions ends its line with ``({`` and its ``: TYPES loc(...)`` come on
  the line ``}) ...`` that closes them; ``^bb0(%arg4: TYPE loc(...), ...):`` names a block's arguments.

:func:`read` returns a :class:`Module` of :class:`Op`, each with its value names, raw property and attribute
texts, operand and result types (:class:`TypeExpr`, aliases resolved) and :class:`Loc`; values are scoped by
the top-level function that holds them. Admissibility: a line that is none of the above is a ``CaptureError``
naming its line number, and so are a ``#locN`` that no alias defines and a text without ops (a truncated
capture: the printer writes the location aliases after the module); a construct inside a type that the grammar below does not know is kept as a
:class:`Bare` token, so that the mapping layer can name it (nothing is dropped).

Type grammar (``TypeExpr``): ``!dialect.name<args>`` / ``#dialect.name<args>`` / ``name<args>`` (``align<16>``,
``S<3,4,3>``, ``vector<4xf16>``) / ``!alias`` / a bare word (``f16``, ``i32``); ``args`` split at top-level commas,
each a ``KeyVal`` (``key = value``), a quoted string (``str``), a ``<"...">`` group (the string inside), a
parenthesised tuple (``tuple``), a nested TypeExpr, or a Bare token (``64x256x16``, ``128 b``, ``32 DP``).
"""
from __future__ import annotations

import functools
import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...core.notation.scan import matching_quoted, split_quoted
from ...errors import CaptureError

__all__ = ["Bare", "KeyVal", "Loc", "Module", "Op", "TypeExpr", "read", "read_file", "parse_type"]

HEADER = "// cuteverify-capture:"
FUNCTION_OPS = frozenset({"func.func", "cuda.kernel", "gpu.func", "llvm.func"})


class Bare(str):
    """An unquoted token of a type's arguments (``f16``, ``smem``, ``64x256x16``, ``128 b``)."""


@dataclass(frozen=True)
class KeyVal:
    """A ``key = value`` argument (``ab_major = (k, k)``, ``tma_gbasis = <"(64,128):(1@1,1@0)">``)."""

    key: str
    value: object


@dataclass(frozen=True)
class TypeExpr:
    """A printed type or attribute: ``name`` (``cute.memref``, ``cute_nvgpu.sm90.mma``, ``#cute_nvgpu.tiled_tma_
    load``, ``align``, ``f16``), ``args`` (module docstring) and ``text`` (as printed, aliases resolved)."""

    name: str
    args: tuple = ()
    text: str = ""

    def get(self, key, default=None):
        """The value of the argument ``key = value``, else ``default``."""
        for a in self.args:
            if isinstance(a, KeyVal) and a.key == key:
                return a.value
        return default

    @property
    def positional(self) -> tuple:
        """The arguments that are not ``key = value``."""
        return tuple(a for a in self.args if not isinstance(a, KeyVal))

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Loc:
    """Where an op was built: the user's ``file``, ``line``, ``col`` (None when the trace had no line info) and
    ``text``, the first line of the statement's source as the DSL recorded it. Prints as ``file:line``."""

    file: str | None = None
    line: int | None = None
    col: int | None = None
    text: str | None = None

    def __str__(self) -> str:
        if self.file is None:
            return "<unknown location>"
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def describe(self) -> str:
        """``file:line: source text`` (the text only when the trace recorded it)."""
        return f"{self}: {self.text}" if self.text else str(self)


@dataclass(frozen=True, eq=False)
class Op:
    """One op of the module (module docstring): ``index`` is its position in the text, ``func`` the top-level
    function (``func.func`` / ``cuda.kernel`` sym_name) that holds it, ``line`` its line in the capture."""

    index: int
    name: str
    results: tuple
    operands: tuple
    props: dict
    attrs: dict
    in_types: tuple
    out_types: tuple
    loc: Loc
    func: str
    line: int


@dataclass(eq=False)
class Module:
    """A capture read by :func:`read`: its ``ops`` in text order, ``header`` (the capture's metadata, {} when the
    file has none), ``path`` and the value table (values scoped by their top-level function)."""

    ops: list
    header: dict
    path: str | None = None
    _values: dict = field(default_factory=dict, repr=False)

    def producer(self, value: str, func: str) -> Op | None:
        """The op that defines ``value`` in function ``func`` (None for a block argument)."""
        hit = self._values.get((func, _base(value)))
        return hit[0] if hit else None

    def type_of(self, value: str, func: str):
        """The type of ``value`` in ``func`` (``%r#1`` is the second result of ``%r``), None when unknown."""
        hit = self._values.get((func, value)) or self._values.get((func, _base(value)))
        return hit[1] if hit else None

    def of(self, *names: str) -> list:
        """The ops whose name is one of ``names``, in text order."""
        return [op for op in self.ops if op.name in names]

    @property
    def functions(self) -> list:
        """The top-level functions' names, in text order."""
        return list(dict.fromkeys(op.func for op in self.ops))


def _base(value: str) -> str:
    return value.split("#", 1)[0]


_ALIAS = re.compile(r"^([!#][\w.$-]+)\s*=\s*(.*)$")
_OP = re.compile(r'^\s*(?:(%[\w$.-]+)(?::(\d+))?\s*=\s*)?"([\w.$-]+)"\(([^)]*)\)(.*)$')
_CLOSE = re.compile(r"^\s*\}\)(.*)$")
_BLOCK = re.compile(r"^\s*\^[\w$.-]+(?:\((.*)\))?:\s*$")
_FILE_LOC = re.compile(r'^"((?:[^"\\]|\\.)*)":(\d+):(\d+)$')
_NAME_LOC = re.compile(r'^"((?:[^"\\]|\\.)*)"\((.*)\)$')
_ARG = re.compile(r"^\s*(%[\w$.-]+)\s*:\s*(.*)$")
_WORD = re.compile(r"^[!#]?[\w.$-]+")


def read_file(path) -> Module:
    """:func:`read` of the file at ``path`` (``.mlir``, or ``.mlir.gz`` gzip-compressed)."""
    p = Path(path)
    try:
        raw = gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile) as e:
        raise CaptureError(f"cannot read the capture {path}: {e}") from None
    return read(text, str(path))


def read(text: str, path: str | None = None) -> Module:
    """The :class:`Module` printed in ``text`` (module docstring: grammar and admissibility)."""
    where = path or "<capture>"
    header, type_alias, loc_alias = {}, {}, {}
    lines = text.splitlines()
    body = []
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s:
            continue
        if s.startswith(HEADER):
            try:
                header.update(json.loads(s[len(HEADER):]))
            except ValueError:
                raise CaptureError(f"{where}:{n}: the capture header is not JSON") from None
            continue
        if s.startswith("//"):
            continue
        m = _ALIAS.match(s) if s[0] in "!#" else None
        if m:
            (type_alias if s[0] == "!" else loc_alias)[m.group(1)] = m.group(2)
            continue
        body.append((n, line))
    types = _TypeReader(type_alias, where)
    locs = _LocReader(loc_alias)
    ops, values, stack, funcs = [], {}, [], []
    for n, line in body:
        m = _OP.match(line)
        if m:
            res, count, name, operands, rest = m.groups()
            results = () if res is None else (
                (res,) if count is None else tuple(f"{res}#{i}" for i in range(int(count))))
            props, attrs, sig, loc, opens = _split_tail(rest, where, n)
            func = funcs[-1] if funcs else ""
            if name in FUNCTION_OPS:
                sym = props.get("sym_name") or attrs.get("sym_name")
                func = _unquote(sym) if sym else f"<function at line {n}>"
            pending = dict(index=len(ops), name=name, results=results,
                           operands=tuple(x.strip() for x in operands.split(",") if x.strip()),
                           props=props, attrs=attrs, func=func, line=n)
            if opens:
                stack.append(pending)
                funcs.append(func)
                ops.append(None)  # the op's place in text order; its types come with the closing line
                continue
            ops.append(_finish(pending, sig, loc, types, locs, values, where, n))
            continue
        m = _CLOSE.match(line)
        if m:
            if not stack:
                raise CaptureError(f"{where}:{n}: '}})' closes no region")
            _, attrs, sig, loc, _ = _split_tail(m.group(1), where, n)
            pending = stack.pop()
            funcs.pop()
            pending["attrs"] = {**pending["attrs"], **attrs}
            ops[pending["index"]] = _finish(pending, sig, loc, types, locs, values, where, n)
            continue
        m = _BLOCK.match(line)
        if m:
            func = funcs[-1] if funcs else ""
            for piece, _ in split_quoted(m.group(1) or ""):
                a = _ARG.match(piece)
                if a:
                    t = a.group(2)
                    at = t.rfind(" loc(")
                    values[(func, a.group(1))] = (None, types.read(t[:at] if at >= 0 else t))
            continue
        if line.strip() in ("}, {", "}", "{"):
            continue
        raise CaptureError(f"{where}:{n}: not an op, alias or block of a generic MLIR module: {line.strip()[:80]}")
    if stack:
        raise CaptureError(f"{where}: the region opened at line {stack[-1]['line']} is never closed")
    if not any(op is not None for op in ops):
        raise CaptureError(f"{where}: no operation: an empty or truncated capture")
    return Module([op for op in ops if op is not None], header, path, values)


def _finish(pending, sig, loc, types, locs, values, where, n) -> Op:
    ins, outs = _signature(sig, types, where, n)
    try:
        where_from = locs.read(loc)
    except CaptureError as e:
        raise CaptureError(f"{where}:{n}: {e}") from None
    op = Op(in_types=ins, out_types=outs, loc=where_from, **pending)
    for v, t in zip(op.results, outs):
        values[(op.func, v)] = (op, t)
    if op.results:
        values.setdefault((op.func, _base(op.results[0])), (op, outs[0] if outs else None))
    return op


def _split_tail(rest: str, where, n):
    """``<{props}> {attrs} : SIG loc(LOC)`` (any part absent) -> (props, attrs, SIG, LOC, opens a region)."""
    s = rest.strip()
    props, attrs = {}, {}
    if s.startswith("["):  # successors
        s = s[matching_quoted(s, 0) + 1:].strip()
    if s.startswith("<{"):
        j = matching_quoted(s, 0)
        props = _attr_dict(s[2:j - 1])
        s = s[j + 1:].strip()
    if s.endswith("({"):
        return props, attrs, "", "", True
    if s.startswith("{"):
        j = matching_quoted(s, 0)
        attrs = _attr_dict(s[1:j])
        s = s[j + 1:].strip()
    at = s.rfind(" loc(")
    if at < 0 and s.startswith("loc("):
        at = 0
    loc = s[at:].strip()[4:-1] if at >= 0 else ""
    sig = s[:at].strip() if at >= 0 else s
    if sig.startswith(":"):
        sig = sig[1:].strip()
    elif sig:
        raise CaptureError(f"{where}:{n}: expected ': (types) -> types' after the op, got {sig[:60]!r}")
    return props, attrs, sig, loc, False


def _attr_dict(text: str) -> dict:
    out = {}
    for piece, _ in split_quoted(text):
        key, eq, value = piece.partition("=")
        out[key.strip()] = value.strip() if eq else ""
    return out


def _signature(sig: str, types, where, n):
    if not sig:
        return (), ()
    parts = split_quoted(sig, "->")
    if len(parts) != 2:
        raise CaptureError(f"{where}:{n}: expected a function type '(types) -> types', got {sig[:60]!r}")
    return _type_list(parts[0][0], types), _type_list(parts[1][0], types)


def _type_list(text: str, types) -> tuple:
    s = text.strip()
    if s.startswith("(") and matching_quoted(s, 0) == len(s) - 1:
        s = s[1:-1]
    return tuple(types.read(p) for p, _ in split_quoted(s) if p.strip())


class _TypeReader:
    """Type texts -> :class:`TypeExpr`, aliases substituted, each distinct text read once."""

    def __init__(self, aliases: dict, where: str):
        self.aliases = aliases
        self.where = where
        self.read = functools.lru_cache(maxsize=None)(self._read)

    def _read(self, text: str):
        s = text.strip()
        seen = set()
        while s in self.aliases and s not in seen:
            seen.add(s)
            s = self.aliases[s].strip()
        return self._expr(s)

    def _expr(self, s: str):
        m = _WORD.match(s)
        if m and m.group() in self.aliases:
            return self.read(m.group())
        if m and len(s) > m.end() and s[m.end()] == "<" and matching_quoted(s, m.end()) == len(s) - 1:
            name = m.group().lstrip("!")
            return TypeExpr(name, tuple(self._arg(p) for p in _pieces(s, m.end() + 1, len(s) - 1)), s)
        if m and m.end() == len(s):
            return TypeExpr(m.group().lstrip("!"), (), s)
        return TypeExpr(s, (), s)

    def _arg(self, piece: str):
        s = piece.strip()
        if s.startswith('"') and s.endswith('"'):
            return _unquote(s)
        if s.startswith('<"') and s.endswith('">'):
            return _unquote(s[1:-1])
        if s.startswith("(") and matching_quoted(s, 0) == len(s) - 1:
            return tuple(self._arg(p) for p, _ in split_quoted(s, ",", 1, len(s) - 1) if p.strip())
        key, eq, value = s.partition("=")
        if eq and re.fullmatch(r"\s*[A-Za-z_][\w.]*\s*", key) and not value.startswith("="):
            return KeyVal(key.strip(), self._arg(value))
        m = _WORD.match(s)
        if m and (m.end() == len(s) or s[m.end()] == "<") and (s[0] in "!#" or m.end() < len(s)):
            return self._expr(s)
        if m and m.group() in self.aliases:
            return self.read(s)
        return Bare(s)


def _pieces(s: str, start: int, end: int):
    """The comma-separated arguments of ``s[start:end]``; the 4.8.1 printer writes some ``key = <"..">`` pairs
    one after the other without a comma (``g_stride = <"()"> tma_gbasis = <"...">``): those are cut apart."""
    for piece, _ in split_quoted(s, ",", start, end):
        p = piece.strip()
        while True:
            m = re.match(r'[A-Za-z_]\w*\s*=\s*<', p)
            if not m:
                break
            j = matching_quoted(p, m.end() - 1)
            if j < 0 or not p[j + 1:].strip():
                break
            yield p[:j + 1]
            p = p[j + 1:].strip()
        if p:
            yield p


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s[1:-1])


class _LocReader:
    """Location texts (``#locN``, ``"file":l:c``, ``"text"(#locM)``, ``unknown``) -> :class:`Loc`."""

    def __init__(self, aliases: dict):
        self.aliases = aliases
        self.read = functools.lru_cache(maxsize=None)(self._read)

    def _read(self, text: str, depth: int = 0) -> Loc:
        s = text.strip()
        if depth > 64:
            return Loc()
        if s.startswith("#"):
            if s not in self.aliases:  # the printer defines every alias it uses, after the module
                raise CaptureError(f"location {s} is never defined (a truncated capture?)")
            body = self.aliases[s]
            return self._read(body[4:-1] if body.startswith("loc(") else body, depth + 1)
        m = _FILE_LOC.match(s)
        if m:
            return Loc(_unquote(f'"{m.group(1)}"'), int(m.group(2)), int(m.group(3)))
        m = _NAME_LOC.match(s)
        if m:
            inner = self._read(m.group(2), depth + 1)
            return Loc(inner.file, inner.line, inner.col, _unquote(f'"{m.group(1)}"'))
        for prefix in ("callsite(", "fused[", "fused<"):
            if s.startswith(prefix):  # the first file location inside
                f = re.search(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)', s)
                return Loc(f.group(1), int(f.group(2)), int(f.group(3))) if f else Loc()
        return Loc()


def parse_type(text: str, aliases: dict | None = None) -> TypeExpr:
    """One type text read as the module reader reads it (``aliases``: ``!name -> text``)."""
    return _TypeReader(aliases or {}, "<type>").read(text)
