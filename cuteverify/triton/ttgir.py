"""A TTGIR file's layouts (docs/model.md section 12): its alias lines (``#blocked = #ttg.blocked<...>``) and
its tensor types (``tensor<128x64xf16, #blocked>``, ``!ttg.memdesc<64x64xf16, #shared, #smem>``) with shape,
element type and layout, read with :mod:`.attrs`'s reader and the project's one bracket scanner
(:mod:`cuteverify.core.notation.scan`). Errors are ParseErrors naming the file's line and the column.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.notation.scan import ALL, matching, split_top, unbalanced
from ..errors import ParseError
from .attrs import AttrReader

__all__ = ["TensorType", "TtgirModule", "parse_module", "parse_tensor_type"]


@dataclass(frozen=True)
class TensorType:
    """A ``tensor<...>`` or ``!ttg.memdesc<...>`` type: ``shape`` (ints), ``dtype`` (MLIR's name, ``f16``),
    ``layout`` (a record above, or None when the type names none), ``kind`` (``tensor`` / ``memdesc``),
    ``line`` (1-based, in a module) and ``text`` (as written)."""

    shape: tuple
    dtype: str
    layout: object
    kind: str = "tensor"
    line: int = 0
    text: str = ""



_TYPE_HEAD = re.compile(r"(?<![\w.!])(tensor|!ttg\.memdesc|!triton_gpu\.memdesc)<")
_DIMS = re.compile(r"[0-9?]+x")


def _tensor_at(text: str, m, source: str, aliases, line: int = 0) -> TensorType:
    start = m.end() - 1
    close = matching(text, start, ALL)
    if close < 0:
        bad = unbalanced(text[start:], ALL)
        raise ParseError(text, start + (bad[0] if bad else 0) + 1, bad[1] if bad else "a closing '>'", source)
    pieces = split_top(text, ",", ALL, start + 1, close)
    head, hoff = pieces[0]
    h = head.strip()
    hpos = hoff + len(head) - len(head.lstrip())
    dims = []
    i = 0
    while True:
        d = _DIMS.match(h, i)
        if not d:
            break
        k = d.group(0)[:-1]
        if k == "?" or not k.isdigit() or int(k) == 0 or len(k) > 9:
            raise ParseError(text, hpos + i + 1, "a static positive extent (no '?')", source)
        dims.append(int(k))
        i = d.end()
    dtype = h[i:].strip()
    if not dims or not re.fullmatch(r"[A-Za-z]\w*", dtype):
        raise ParseError(text, hpos + i + 1, "extents and an element type such as 128x64xf16", source)
    layout = None
    if len(pieces) > 1:
        lt, loff = pieces[1]
        layout = AttrReader(text, source, aliases).attr(loff, loff + len(lt))
    kind = "tensor" if m.group(1) == "tensor" else "memdesc"
    return TensorType(tuple(dims), dtype, layout, kind, line, text[m.start():close + 1])


def parse_tensor_type(text: str, aliases=None, source: str = "tensor type") -> TensorType:
    """``tensor<128x64xf16, #blocked>`` or ``!ttg.memdesc<64x64xf16, #shared, #smem>``."""
    t = str(text)
    m = _TYPE_HEAD.match(t, len(t) - len(t.lstrip()))
    if not m:
        raise ParseError(t, 1, "a tensor type such as tensor<128x64xf16, #blocked>", source)
    out = _tensor_at(t, m, source, aliases)
    end = t.find(out.text) + len(out.text)
    if t[end:].strip():
        raise ParseError(t, end + 1 + len(t[end:]) - len(t[end:].lstrip()), "the end of the tensor type", source)
    return out


_ALIAS_LINE = re.compile(r"^\s*#([A-Za-z_][\w$.-]*)\s*=\s*(#.*?)\s*$")


class TtgirModule:
    """A TTGIR text's alias lines and tensor types. ``attr(name)`` reads the alias ``#name`` (aliases are read
    when first used, so an unmodelled one elsewhere in the file is no error); ``tensors`` lists every
    ``tensor<...>`` / ``memdesc<...>`` type whose layout is modelled, ``skipped`` the others as
    ``(line, text, reason)``."""

    def __init__(self, text: str, source: str = "<ttgir>"):
        self.source = source
        self._raw, self._done, self._busy = {}, {}, set()
        self.tensors, self.skipped = [], []
        lines = str(text).splitlines()
        for no, line in enumerate(lines, 1):
            m = _ALIAS_LINE.match(line)
            if m:
                if m.group(1) in self._raw:
                    raise ParseError(line, m.start(1), f"each alias defined once (#{m.group(1)} is defined "
                                     f"again)", f"{source}:{no}")
                self._raw[m.group(1)] = (no, line, m.start(2))
        self.aliases = {n: (lambda n=n: self.attr(n)) for n in self._raw}
        for no, line in enumerate(lines, 1):
            if _ALIAS_LINE.match(line):
                continue
            for m in _TYPE_HEAD.finditer(line):
                try:
                    self.tensors.append(_tensor_at(line, m, f"{source}:{no}", self.aliases, no))
                except ParseError as e:
                    self.skipped.append((no, line.strip(), str(e).splitlines()[0]))

    def names(self) -> list:
        return list(self._raw)

    def attr(self, name: str):
        name = name.lstrip("#")
        if name in self._done:
            return self._done[name]
        if name not in self._raw:
            known = ", ".join("#" + n for n in self._raw) or "none"
            raise ParseError(name, 1, f"an alias the module defines ({known})", self.source)
        if name in self._busy:
            no, line, at = self._raw[name]
            raise ParseError(line, at + 1, f"an alias that does not refer to itself (#{name})",
                             f"{self.source}:{no}")
        self._busy.add(name)
        try:
            no, line, at = self._raw[name]
            self._done[name] = AttrReader(line, f"{self.source}:{no}", self.aliases).attr(at, len(line))
        finally:
            self._busy.discard(name)
        return self._done[name]


def parse_module(text: str, source: str = "<ttgir>") -> TtgirModule:
    """A TTGIR module's aliases and tensor types (see :class:`TtgirModule`)."""
    return TtgirModule(text, source)
