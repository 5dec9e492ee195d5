"""CuTe IR's type texts (the MLIR dialect of CUTLASS's ``cutlass_compiler/cute_ir``) read into cuteverify values.

Accepted, with what each gives:

* ``!cute.layout<"(2,3):(1,2)">``: a ``Layout``; ``"():()"`` is the rank-0 layout (size 1, value 0 at 0);
* ``!cute.composed_layout<"S<3,4,3> o 0 o (6,8):(8,1)">``: a ``ComposedLayout`` (the outer function as
  cuteverify's layout text reads it);
* ``!cute.shape<"(2,4)">``, ``!cute.stride<"(1,2@0)">``, ``!cute.int_tuple<"(1,2)">``: an HTuple;
* ``!cute.coord<"(0,_,1)">``: an HTuple with ``None`` for ``_`` (cuteverify's slice marker, as in
  ``slice_layout``);
* ``!cute.tile<"[(3):(1);_;4:1]">``: a tiler, the tuple of its entries, ``;`` separating them: a layout,
  an integer or shape (read as a compact tile), ``_`` (``None``: the mode is kept) or a nested ``[...]``;
* ``!cute.swizzle<"S<3,4,3>">``: a ``Swizzle``.

Entries are written as cuteverify reads CuTe text (docs/model.md section 2.5): ``?`` is a dynamic value,
``?{div=8}`` / ``?{i64 div=8}`` add ``8 | ?`` to the layout's assumptions, ``v@i`` is a coordinate stride.
Admissibility: the wrapper ``!cute.<kind><"...">`` with a known kind and one quoted string, and a body that
is valid for that kind; anything else is a ``ParseError`` naming the column in the whole text.

The layout and tuple readers are passed in (``core.parse`` calls :func:`read` with its own), so that this
module needs no import of ``core.parse``: ``core.parse`` imports it.
"""
from __future__ import annotations

import re

from ...errors import ParseError
from ..layout import Layout
from .scan import matching, split_top, unbalanced
from ..swizzle import Swizzle

PREFIX = "!cute."
KINDS = ("layout", "composed_layout", "shape", "stride", "int_tuple", "coord", "tile", "swizzle")
_WRAPPER = re.compile(r"\s*!cute\.(?P<kind>\w+)\s*<\s*")
_SWIZZLE = re.compile(r"\s*S\s*<\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*>\s*")
_EMPTY = re.compile(r"\s*\(\s*\)\s*:\s*\(\s*\)\s*")
# the words CuTe IR's texts have: the composition operator ``o``, a swizzle ``S<..>``, ``?{i64 div=8}``, ``_``
_WORD = re.compile(r"[A-Za-z_]\w*")
_WORDS = {"o", "S", "i32", "i64", "div", "_"}


def is_cute_ir(text) -> bool:
    """Does ``text`` start with ``!cute.`` (a CuTe IR type text)?"""
    return isinstance(text, str) and text.lstrip().startswith(PREFIX)


def unwrap(text: str, source: str = "layout"):
    """``(kind, body, offset)`` of ``!cute.<kind><"body">``: ``offset`` is the index of ``body`` in ``text``."""
    m = _WRAPPER.match(text)
    if not m:
        raise ParseError(text, 1, "a CuTe IR type such as !cute.layout<\"(2,3):(1,2)\">", source)
    kind = m.group("kind")
    if kind not in KINDS:
        raise ParseError(text, m.start("kind") + 1, "a CuTe IR type kind: " + ", ".join(KINDS), source)
    i = m.end()
    if i >= len(text) or text[i] != '"':
        raise ParseError(text, i + 1, f"a quoted string: !cute.{kind}<\"...\">", source)
    j = text.find('"', i + 1)
    if j < 0:
        raise ParseError(text, len(text) + 1, "the closing '\"' of the string", source)
    k = j + 1
    while k < len(text) and text[k].isspace():
        k += 1
    if k >= len(text) or text[k] != ">":
        raise ParseError(text, k + 1, "'>' after the string", source)
    if text[k + 1:].strip():
        raise ParseError(text, k + 2 + len(text[k + 1:]) - len(text[k + 1:].lstrip()), "end of the type", source)
    return kind, text[i + 1:j], i + 1


def read(text: str, layout_reader, tuple_reader, *, source: str = "layout"):
    """The value of a CuTe IR type text (see the module docstring). ``layout_reader(body)`` reads a layout
    or composed layout, ``tuple_reader(body)`` an HTuple; their ``ParseError`` is re-raised at the column of
    ``text``. Post-condition: a layout read here is the function cuteverify reads from its body alone."""
    kind, body, off = unwrap(text, source)

    def at(fn, piece, start):
        try:
            return fn(piece)
        except ParseError as e:
            raise ParseError(text, start + e.column, e.expected, source) from None

    if not body.strip():
        raise ParseError(text, off + 1, f"a {kind.replace('_', ' ')} inside the quotes", source)
    for w in _WORD.finditer(body):
        if w.group() not in _WORDS or w.group() == "_" and kind not in ("coord", "tile"):
            # cuteverify's own text takes named symbols; CuTe IR's has none, so a word is a typo here
            raise ParseError(text, off + w.start() + 1, "integers, ? (a dynamic value, ?{div=N}), v@i strides"
                             + (" and _" if kind in ("coord", "tile") else "") + " (CuTe IR's texts name no "
                             "symbols)", source)
    if kind in ("layout", "composed_layout"):
        if kind == "layout" and _EMPTY.fullmatch(body):
            return Layout._make((), ())
        value = at(layout_reader, body, off)
        if kind == "composed_layout" and not hasattr(value, "outer"):
            raise ParseError(text, off + 1, "a composed layout 'A o offset o B' (this is a plain layout: "
                             "write !cute.layout)", source)
        if kind == "layout" and hasattr(value, "outer"):
            raise ParseError(text, off + 1, "a plain layout (this is a composed one: write !cute.composed_layout)",
                             source)
        return value
    if kind == "swizzle":
        m = _SWIZZLE.fullmatch(body)
        if not m:
            raise ParseError(text, off + 1, "a swizzle S<bits,base,shift>", source)
        return Swizzle(*(int(g) for g in m.groups()))
    if kind == "tile":
        return _tile(text, body, off, layout_reader, tuple_reader, at, source)
    value = _tuple(text, body, off, tuple_reader, at, source, underscore=(kind == "coord"))
    if kind == "stride":
        leaves = list(_leaves(value))
        if any(hasattr(x, "path") for x in leaves) and any(type(x) is int and x != 0 for x in leaves):
            # the rule of a layout's strides (docs/model.md section 2.3), for a stride written alone
            raise ParseError(text, off + 1, "integer strides or coordinate (v@i) strides, not both (zeros may "
                             "join either)", source)
    return value


def _leaves(x):
    if type(x) is tuple:
        for y in x:
            yield from _leaves(y)
    else:
        yield x


def _balanced(text, body, off, source, brackets):
    bad = unbalanced(body, brackets)
    if bad is not None:
        raise ParseError(text, off + bad[0] + 1, bad[1], source)


def _tuple(text, body, off, tuple_reader, at, source, underscore):
    """An HTuple; in a coordinate, ``_`` is ``None``."""
    _balanced(text, body, off, source, "(")
    if body.replace(" ", "") == "()":
        return ()  # the empty tuple (a rank-0 profile or coordinate)
    if not underscore or "_" not in body:
        return at(tuple_reader, body, off)
    s = body.strip()
    lead = off + len(body) - len(body.lstrip())
    if s == "_":
        return None
    if s.startswith("(") and matching(s, 0) == len(s) - 1:
        return tuple(_tuple(text, piece, lead + 1 + p, tuple_reader, at, source, True)
                     for piece, p in split_top(s, ",", "(", 1, len(s) - 1))
    return at(tuple_reader, body, off)


def _tile(text, body, off, layout_reader, tuple_reader, at, source):
    """``[e0;e1;...]``: the tuple of the entries (a layout, an integer or shape, ``_`` or a nested tile)."""
    _balanced(text, body, off, source, "([")
    s = body.strip()
    lead = off + len(body) - len(body.lstrip())
    if not (s.startswith("[") and matching(s, 0, "([") == len(s) - 1):
        raise ParseError(text, lead + 1, "a tile [A;B;...] (entries: layouts, shapes, _ or nested [...])", source)
    out = []
    for piece, p in split_top(s, ";", "([", 1, len(s) - 1):
        e = piece.strip()
        start = lead + p + len(piece) - len(piece.lstrip())
        if not e:
            raise ParseError(text, start + 1, "a tile entry (a layout, a shape, _ or [...])", source)
        if e == "_":
            out.append(None)
        elif e.startswith("["):
            out.append(_tile(text, piece, lead + p, layout_reader, tuple_reader, at, source))
        elif ":" in e:
            out.append(at(layout_reader, piece, lead + p))
        else:
            out.append(at(tuple_reader, piece, lead + p))
    return tuple(out)
