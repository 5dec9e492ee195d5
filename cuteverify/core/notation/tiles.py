"""The one reader of tile extents and of permutation tiles, shared by the CLI, manifests and the Python API, so
that the same text means the same object in all three.

Extents (a tile's shape): ``128x64``, ``128*64``, ``128,64``, ``(128,64)``, ``[128, 64]`` (YAML), or a tuple /
list of ints. Permutation tiles (CuTe's ``permutation_mnk`` / a tiler): ``(32,32,16)``, ``(32,(8,2,2):(1,16,8),16)``,
``(_,64,_)``, C++'s ``Tile<_32,(8,2,2):(1,16,8),_16>``, CuTe DSL's printed tile ``[32:1;(8,2,2):(1,16,8);16:1]``,
or a tuple / list of entries (None, an int, a layout or its text).
"""
from __future__ import annotations

import re

from ...errors import ParseError
from ..layout import Layout
from .parse import parse, parse_tuple
from .scan import matching, split_top, unbalanced
from ..tuples import flatten

__all__ = ["read_extents", "read_permutation"]

_TIMES = re.compile(r"\s*\d+\s*(?:[xX*]\s*\d+\s*)+")
_BLANK = ("_", "X", "None")


def _bad(what: str, text, expected: str):
    raise ParseError(str(text), 1, expected, what)


def read_extents(value, what: str = "tile", *, symbols: bool = False, rank: int | None = None) -> tuple:
    """A tile's extents as a tuple.

    Admissible: ``AxB[xC...]`` / ``A*B`` (positive integers), ``A,B`` and ``(A,B)`` (CuTe's tuple text; with
    ``symbols`` an entry may be a symbol or a nested tuple, as a shape), a list or tuple of positive ints, or one
    positive int. With ``rank`` the tuple must have that many modes. Anything else raises :class:`ParseError`
    (an input error) naming ``what``. Post-condition: every integer entry is > 0."""
    if isinstance(value, bool):
        _bad(what, value, "extents such as 128x64, (128,64) or [128, 64]")
    if isinstance(value, int):
        out = (value,)
    elif isinstance(value, (tuple, list)):
        out = tuple(value)
        if any(isinstance(x, list) for x in out):
            out = tuple(tuple(x) if isinstance(x, list) else x for x in out)
    elif isinstance(value, str):
        text = value.strip()
        if _TIMES.fullmatch(text):
            out = tuple(int(p) for p in re.split(r"[xX*]", text))
        else:
            if not text:
                _bad(what, value, "extents such as 128x64, (128,64) or 128,64")
            _balanced(text, what)
            body = text if text.startswith("(") and matching(text, 0) == len(text) - 1 else f"({text})"
            try:
                out = parse_tuple(body, what)
            except ParseError:
                if body is text:
                    raise  # a column into the user's own text
                _bad(what, value, "extents such as 128x64, (128,64) or 128,64")
            out = out if isinstance(out, tuple) else (out,)
    else:
        _bad(what, value, "extents such as 128x64, (128,64) or [128, 64]")
    for x in flatten(out):
        is_int = type(x) is int
        if not is_int and not (symbols and hasattr(x, "free_symbols")):
            _bad(what, value, "positive integer extents" + (" or symbols" if symbols else ""))
        if (is_int or getattr(x, "is_number", False)) and not (int(x) == x and x > 0):
            _bad(what, value, f"positive extents (got {x})")
    if not symbols and any(isinstance(x, tuple) for x in out):
        _bad(what, value, "flat extents such as 128x64")
    if rank is not None and len(out) != rank:
        _bad(what, value, f"{rank} extents, got {len(out)}")
    return out


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


def read_permutation(value, what: str = "permutation", max_rank: int = 3) -> tuple | None:
    """A permutation tile (CuTe's ``permutation_mnk``) as a tuple of at most ``max_rank`` entries, each None
    (``_``), a positive int ``n`` (``n:1``) or a Layout; None stays None (no permutation).

    Admissible text: ``(e0,e1,e2)``, ``Tile<e0,e1,e2>``, ``[e0;e1;e2]`` (CuTe DSL's printed tile), or one entry;
    a tuple / list of entries. Raises :class:`ParseError` (an input error) naming ``what`` otherwise."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        items = [_entry(x, what, value) for x in value]
    elif isinstance(value, (str, int, Layout)) or hasattr(value, "free_symbols"):
        if not isinstance(value, str):
            items = [_entry(value, what, value)]
        else:
            items = [_entry(p, what, value) for p in _split_permutation(value, what)]
    else:
        _bad(what, value, "a permutation tile such as (32,32,16) or Tile<32,32,16>")
    if len(items) > max_rank:
        _bad(what, value, f"at most {max_rank} entries (M, N, K), got {len(items)}")
    return tuple(items)


def _split_permutation(text: str, what: str) -> list:
    s = text.strip()
    if not s:
        _bad(what, text, "a permutation tile such as (32,32,16)")
    _balanced(s, what)
    if s.startswith("Tile<") and s.endswith(">") and matching(s, 4, "<") == len(s) - 1:
        s = s[5:-1]
    elif s.startswith("[") and s.endswith("]") and matching(s, 0, "[") == len(s) - 1:
        return [p for p, _ in split_top(s[1:-1], ";")]
    elif s.startswith("(") and matching(s, 0) == len(s) - 1:
        s = s[1:-1]
    return [p for p, _ in split_top(s)]
