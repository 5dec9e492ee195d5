"""The one bracket scanner of the project's text forms (docs/model.md section 2.5): layouts, tilers
``<A, B>``, claims, loop nests and highlight lists all split and match brackets through these functions.

``brackets`` names the opening characters that nest (each with its partner in ``PAIRS``); text inside a
nested pair is never split. The scanner does not judge balance errors itself: ``unbalanced`` reports the
first one so that each parser can raise its own ``ParseError`` with the column.
"""
from __future__ import annotations

import re

PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
ROUND = "("
ALL = "([{<"


def split_top(text: str, sep: str = ",", brackets: str = ROUND, start: int = 0, end: int | None = None):
    """``text[start:end]`` cut at every ``sep`` (one or more characters) outside brackets: a list of
    ``(piece, offset)`` with ``offset`` the index of the piece in ``text``."""
    end = len(text) if end is None else end
    closers = {PAIRS[b] for b in brackets}
    out, depth, piece, i = [], 0, start, start
    while i < end:
        c = text[i]
        if c in brackets:
            depth += 1
        elif c in closers:
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            out.append((text[piece:i], piece))
            i += len(sep)
            piece = i
            continue
        i += 1
    out.append((text[piece:end], piece))
    return out


def has_top(text: str, sep: str = ",", brackets: str = ROUND) -> bool:
    """Does ``sep`` occur in ``text`` outside brackets?"""
    return len(split_top(text, sep, brackets)) > 1


def matching(text: str, start: int, brackets: str = ROUND) -> int:
    """The index of the bracket that closes the one at ``text[start]``, or -1 if it is never closed."""
    closers = {PAIRS[b] for b in brackets}
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in brackets:
            depth += 1
        elif c in closers:
            depth -= 1
            if depth == 0:
                return i
    return -1


def unbalanced(text: str, brackets: str = ROUND):
    """The first balance error as ``(index, expected)``, or ``None``: a closer without an opener, a closer of
    the wrong kind, or an opener never closed (index ``len(text)``)."""
    stack = []
    closers = {PAIRS[b]: b for b in brackets}
    for i, c in enumerate(text):
        if c in brackets:
            stack.append((c, i))
        elif c in closers:
            if not stack:
                return i, f"no '{c}' without a matching '{closers[c]}'"
            o, _ = stack.pop()
            if PAIRS[o] != c:
                return i, f"'{PAIRS[o]}' to close the '{o}'"
    if stack:
        o, j = stack[-1]
        return len(text), f"a closing '{PAIRS[o]}' for the '{o}' at column {j + 1}"
    return None


# MLIR texts quote strings that hold brackets and commas (``<"(8,8):(1,8)">``) and write ``->`` in function
# types; one regular expression visits only the characters that matter, so a 3 MB capture scans at C speed.
_QUOTED_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|->|[()\[\]{}<>]|,')


def split_quoted(text: str, sep: str = ",", start: int = 0, end: int | None = None):
    """``text[start:end]`` cut at every top-level ``sep`` (``","`` or ``"->"``) as :func:`split_top` does with
    every bracket kind nesting, except that double-quoted strings (backslash escapes) are opaque and ``->`` is
    no bracket: a list of ``(piece, offset)``."""
    end = len(text) if end is None else end
    out, depth, piece = [], 0, start
    for m in _QUOTED_TOKENS.finditer(text, start, end):
        t = m.group()
        if t[0] == '"':
            continue
        if t in "([{<":
            depth += 1
        elif t in ")]}>":
            depth -= 1
        elif depth == 0 and t == sep:
            out.append((text[piece:m.start()], piece))
            piece = m.end()
    out.append((text[piece:end], piece))
    return out


def matching_quoted(text: str, start: int) -> int:
    """The index of the bracket closing the one at ``text[start]`` (every kind nesting, strings opaque, ``->``
    no bracket), or -1 if it is never closed."""
    depth = 0
    for m in _QUOTED_TOKENS.finditer(text, start):
        t = m.group()
        if t[0] == '"' or t == "->" or t == ",":
            continue
        depth += 1 if t in "([{<" else -1
        if depth == 0:
            return m.start()
    return -1
