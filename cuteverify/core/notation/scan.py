"""The one bracket scanner of the project's text forms (docs/model.md section 2.5): layouts, tilers
``<A, B>``, claims, loop nests and highlight lists all split and match brackets through these functions.

``brackets`` names the opening characters that nest (each with its partner in ``PAIRS``); text inside a
nested pair is never split. The scanner does not judge balance errors itself: ``unbalanced`` reports the
first one so that each parser can raise its own ``ParseError`` with the column.
"""
from __future__ import annotations

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
