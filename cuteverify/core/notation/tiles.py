"""The one reader of tile extents, of permutation tiles and of slice coordinates, shared by the CLI, manifests and
the Python API, so that the same text means the same object in all three.

Extents (a tile's shape): ``128x64``, ``128*64``, ``128,64``, ``(128,64)``, ``[128, 64]`` (YAML), or a tuple /
list of ints. Permutation tiles (CuTe's ``permutation_mnk`` / a tiler): ``(32,32,16)``, ``(32,(8,2,2):(1,16,8),16)``,
``(_,64,_)``, C++'s ``Tile<_32,(8,2,2):(1,16,8),_16>``, CuTe DSL's printed tile ``[32:1;(8,2,2):(1,16,8);16:1]``,
or a tuple / list of entries (None, an int, a layout or its text). Slice coordinates (``L[None, 0]``,
``L[(None,None,0)]``, ``L[_,_,1]``): CuTe's ``_`` / Python's ``None`` keeps a mode.
"""
from __future__ import annotations

import re

from ...errors import ParseError
from ..layout import Layout
from .parse import parse, parse_tuple
from .scan import matching, split_top, unbalanced
from ..tuples import flatten
from ...symbolic import parse_expr

__all__ = ["read_extents", "read_permutation", "read_slice", "read_tiler", "slice_postfix", "tile_text", "tiler_pieces"]

_TIMES_X = re.compile(r"\s*\d+\s*(?:[xX]\s*\d+\s*)+")  # 128x64 where ``*`` multiplies (expressions, tilers)
_TIMES_TEXT = re.compile(r"[\d\sxX*]+")  # text of digits and x / * only: extents 128x64, each checked
_SEP = re.compile(r"[xX*]")
_BLANK = ("_", "X", "None")


def _bad(what: str, text, expected: str):
    raise ParseError(str(text), 1, expected, what)


def read_extents(value, what: str = "tile", *, symbols: bool = False, rank: int | None = None,
                 positive: bool = True) -> tuple:
    """A tile's extents as a tuple.

    Admissible: ``AxB[xC...]`` / ``A*B`` (positive integers), ``A,B`` and ``(A,B)`` (CuTe's tuple text; with
    ``symbols`` an entry may be a symbol or a nested tuple, as a shape), a list or tuple of positive ints, or one
    positive int. With ``rank`` the tuple must have that many modes; with ``positive`` False an entry may be any
    integer (a TMA descriptor's strides and im2col corners: their rules judge the values). Anything else raises
    :class:`ParseError` (an input error) naming ``what``. Post-condition: every integer entry is > 0 (with
    ``positive``)."""
    if isinstance(value, bool):
        _bad(what, value, "extents such as 128x64, (128,64) or [128, 64]")
    if isinstance(value, int):
        out = (value,)
    elif isinstance(value, (tuple, list)):
        out = tuple(value)
        if any(isinstance(x, list) for x in out):
            out = tuple(tuple(x) if isinstance(x, list) else x for x in out)
    elif isinstance(value, str):
        out = _extents_text(value, what)
    else:
        _bad(what, value, "extents such as 128x64, (128,64) or [128, 64]")
    for x in flatten(out):
        is_int = type(x) is int
        if not is_int and not (symbols and hasattr(x, "free_symbols")):
            _bad(what, value, ("positive integer extents" if positive else "integers") + (" or symbols" if symbols
                                                                                          else ""))
        if (is_int or getattr(x, "is_number", False)) and not (int(x) == x and (x > 0 or not positive)):
            _bad(what, value, f"positive extents (got {x})")
    if not symbols and any(isinstance(x, tuple) for x in out):
        _bad(what, value, "flat extents such as 128x64")
    if rank is not None and len(out) != rank:
        _bad(what, value, f"{rank} extents, got {len(out)}")
    return out


def _extents_text(value: str, what: str) -> tuple:
    """The text forms of :func:`read_extents`; a ParseError's column points into ``value``."""
    if _TIMES_TEXT.fullmatch(value) and _SEP.search(value):  # 128x64: each extent a positive integer
        out, pos = [], 0
        for piece in _SEP.split(value):
            k = piece.strip()
            if not k.isdigit() or int(k) == 0:
                col = pos + len(piece) - len(piece.lstrip()) + 1
                raise ParseError(value, col, "positive integer extents such as 128x64", what)
            out.append(int(k))
            pos += len(piece) + 1
        return tuple(out)
    text = value.strip()
    lead = len(value) - len(value.lstrip())
    if not text:
        _bad(what, value, "extents such as 128x64, (128,64) or 128,64")
    _balanced(value, what)
    if text[0] == "[" and matching(text, 0, "[") == len(text) - 1 and ";" not in text:  # [128, 64]
        text = "(" + text[1:-1] + ")"
    wrapped = not (text.startswith("(") and matching(text, 0) == len(text) - 1)
    try:
        out = parse_tuple(f"({text})" if wrapped else text, what)
    except ParseError as e:  # the column in the user's text
        col = min(max(1, lead + e.column - (1 if wrapped else 0)), len(value) + 1)
        raise ParseError(value, col, e.expected, what) from None
    return out if isinstance(out, tuple) else (out,)


def _balanced(text: str, what: str):
    bad = unbalanced(text, "([<")
    if bad is not None:
        raise ParseError(text, bad[0] + 1, f"{bad[1]} (unbalanced brackets)", what)


def _entry(item, what: str, text):
    """One permutation entry: None (``_``), a positive int, or a layout of integers."""
    if item is None:
        return None
    if isinstance(item, bool):
        _bad(what, text, "`_`, a positive extent or a layout")
    if isinstance(item, int):
        if item <= 0:
            _bad(what, text, f"a positive extent (got {item})")
        return item
    if isinstance(item, str):
        p = item.strip()
        if p in _BLANK:
            return None
        if p.isdigit():
            return _entry(int(p), what, text)
        if not p:
            _bad(what, text, "an entry between the separators")
        item = parse(p, source=what)
    if not isinstance(item, Layout) and not (hasattr(item, "shape") and hasattr(item, "free_symbols")):
        _bad(what, text, "`_`, a positive extent or a layout")
    fs = item.free_symbols()
    if fs:  # CuTe's permutation tiles are static: a symbol here is no tile
        _bad(what, text, f"a tile of integers, not the symbols {sorted(str(s) for s in fs)}")
    if isinstance(item, Layout) and type(item.shape) is int and item.stride == 1:  # _32 and 32:1: the extent 32
        return item.shape
    return item


def read_permutation(value, what: str = "permutation", max_rank: int | None = 3) -> tuple | None:
    """A permutation tile (CuTe's ``permutation_mnk``) as a tuple of at most ``max_rank`` entries, each None
    (``_``), a positive int ``n`` (``n:1``) or a Layout; None stays None (no permutation).

    Admissible text: ``(e0,e1,e2)``, ``Tile<e0,e1,e2>``, ``<e0,e1,e2>``, ``[e0;e1;e2]`` (CuTe DSL's printed tile),
    extents ``32x32x16``, or one entry; a tuple / list of entries. ``max_rank`` None: any number of entries (a
    tiler of ``local_tile`` / ``make_tiled_copy``). Raises :class:`ParseError` (an input error) naming ``what``
    otherwise."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        items = [_entry(x, what, value) for x in value]
    elif isinstance(value, (str, int, Layout)) or hasattr(value, "free_symbols"):
        if not isinstance(value, str):
            items = [_entry(value, what, value)]
        elif _TIMES_X.fullmatch(value):
            items = list(read_extents(value, what))
        else:
            items = [_entry(p, what, value) for p in _split_permutation(value, what)]
    else:
        _bad(what, value, "a permutation tile such as (32,32,16) or Tile<32,32,16>")
    if max_rank is not None and len(items) > max_rank:
        _bad(what, value, f"at most {max_rank} entries (M, N, K), got {len(items)}")
    return tuple(items)


def read_tiler(value, what: str = "tiler"):
    """A tiler of the divides, ``local_tile`` and ``make_tiled_copy``, one reading for all of them: a list, text in
    tiler brackets (``<a,b>``, ``Tile<a,b>``, ``[a;b]``) or a parenthesised tuple without strides at the top
    (``(4,8)``, ``(16,_64)``, ``(32,(8,2):(1,8))``: CuTe's Shape, as the tuple ``(4, 8)`` and the expression
    language read it) is by mode, as :func:`read_permutation` reads it (any number of entries); other text is one
    layout tiler (``(16,64):(1,16)``, ``16``, ``1:1``), since a layout tiler and a tuple of modes divide
    differently. Anything else is returned as it is (a Layout, a tuple, an int: the operation reads those).
    Raises :class:`ParseError` naming ``what`` for malformed text."""
    if isinstance(value, list):
        return read_permutation(value, what, max_rank=None)
    if not isinstance(value, str):
        return value
    s = value.strip()
    by_mode = tiler_pieces(s) is not None or (s.startswith("(") and matching(s, 0) == len(s) - 1
                                               and len(split_top(s[1:-1])) > 1)
    if not by_mode:
        try:
            return parse(s)
        except ParseError:
            pass  # not one layout: a tuple of entries, read by mode below
    return read_permutation(value, what, max_rank=None)


def _split_permutation(text: str, what: str) -> list:
    s = text.strip()
    if not s:
        _bad(what, text, "a permutation tile such as (32,32,16)")
    _balanced(s, what)
    pieces = tiler_pieces(s)
    if pieces is not None:
        return [p for p, _ in pieces]
    if s.startswith("(") and matching(s, 0) == len(s) - 1:
        s = s[1:-1]
    return [p for p, _ in split_top(s)]


def tiler_pieces(text: str, start: int = 0, end: int | None = None):
    """The entries of a bracketed tiler spanning ``text[start:end]`` (blanks around it allowed): C++'s
    ``Tile<a,b,c>``, the algebra's ``<a, b>``, CuTe DSL's printed ``[a;b;c]`` or a list ``[a, b]``, as
    ``(piece, offset)`` with ``offset`` the index of the piece in ``text``; None when the span is no such tiler (a tuple ``(a,b,c)`` is
    read by the caller: it is also a shape). The one grammar of tiler brackets."""
    end = len(text) if end is None else end
    a, b = start, end
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if text.startswith("Tile<", a) and text[b - 1] == ">" and matching(text, a + 4, "<") == b - 1:
        return split_top(text, ",", "(<", a + 5, b - 1)
    if a < b and text[a] == "<" and text[b - 1] == ">" and matching(text, a, "(<") == b - 1:
        return split_top(text, ",", "(<", a + 1, b - 1)
    if a < b and text[a] == "[" and text[b - 1] == "]" and matching(text, a, "[") == b - 1:
        pieces = split_top(text, ";", "([<", a + 1, b - 1)  # CuTe DSL's [a;b]; a list [a, b] too
        return pieces if len(pieces) > 1 else split_top(text, ",", "([<", a + 1, b - 1)
    return None


def tile_text(text: str, what: str = "tile", max_rank: int = 3):
    """A tile in a text form no layout print has, read, or None when ``text`` is none: extents ``128x64``
    (:func:`read_extents`), a bracketed tiler ``Tile<...>`` / ``<...>`` / ``[a;b;c]`` (:func:`read_permutation`,
    at most ``max_rank`` entries).
    Expression readers (manifest arguments, the algebra verb) try it first, then read the text as a layout."""
    s = text.strip()
    if _TIMES_X.fullmatch(s):
        return read_extents(s, what)
    if tiler_pieces(s) is not None:
        return read_permutation(s, what, max_rank)
    return None


_BRACKETS = "([{<"


def slice_postfix(text: str, start: int = 0, end: int | None = None):
    """Where ``text[start:end]`` ends in a slice ``BASE[...]``: ``(open, close)``, the indices of its last
    top-level ``[`` and of the ``]`` that closes it at the end of the span, when a base stands before it; else
    None (a leading ``[a;b]`` is a tile, ``smem_ptr[16b](...)`` inside a layout is no postfix)."""
    end = len(text) if end is None else end
    while end > start and text[end - 1].isspace():
        end -= 1
    if end <= start or text[end - 1] != "]":
        return None
    depth, last = 0, None
    for i in range(start, end):
        c = text[i]
        if c in _BRACKETS:
            if depth == 0 and c == "[":
                last = i
            depth += 1
        elif c in ")]}>":
            depth -= 1
    if last is None or depth != 0 or matching(text, last, _BRACKETS) != end - 1 or not text[start:last].strip():
        return None
    return last, end - 1


def read_slice(text: str, what: str = "slice", start: int = 0, end: int | None = None, leaf=None):
    """The coordinate written between a slice's brackets, ``text[start:end]``: ``None, 0`` and ``(None, 0)`` are
    the tuple ``(None, 0)`` (Python's ``L[a, b]`` is ``L[(a, b)]``), ``_`` / ``None`` / ``X`` is None (CuTe's
    ``_``: the mode is kept), ``(a)`` is ``a`` and ``(a,)`` a 1-tuple, an entry is an integer (``_3`` too) or,
    through ``leaf(a, b)`` (a callable reading ``text[a:b]``; default an integer expression over symbols), any
    other value. A single integer stays an int (a mode number, CuTe's ``get<i>``).

    Admissible: balanced brackets, no empty entry. Raises :class:`ParseError` with the column in ``text``
    naming ``what`` otherwise. Post-condition: ``L[read_slice(t)]`` is what Python's ``L[t]`` would index."""
    end = len(text) if end is None else end
    bad = unbalanced(text[start:end], _BRACKETS)
    if bad is not None:
        raise ParseError(text, start + bad[0] + 1, f"{bad[1]} (unbalanced brackets)", what)
    pieces = split_top(text, ",", _BRACKETS, start, end)
    trailing = len(pieces) > 1 and not pieces[-1][0].strip()
    if trailing:
        pieces = pieces[:-1]
    items = [_slice_entry(text, what, off, off + len(p), leaf) for p, off in pieces]
    return tuple(items) if len(items) > 1 or trailing else items[0]


def _slice_entry(text, what, a, b, leaf):
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    s = text[a:b]
    if not s:
        raise ParseError(text, a + 1, "a slice entry: _ (keep the mode), an integer or a coordinate", what)
    if s in _BLANK:
        return None
    if re.fullmatch(r"_?-?\d+", s):
        return int(s.lstrip("_"))
    if s[0] == "(" and matching(text, a, _BRACKETS) == b - 1:
        return read_slice(text, what, a + 1, b - 1, leaf)
    if leaf is not None:
        return leaf(a, b)
    try:
        return parse_expr(s)
    except ParseError as e:
        raise ParseError(text, a + e.column, e.expected, what) from None
