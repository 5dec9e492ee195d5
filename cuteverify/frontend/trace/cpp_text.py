"""Source-text helpers of ``trace cpp`` (:mod:`.cpp_capture`, :mod:`.cpp_flow`): comments and literals blanked
with offsets kept, bracket matching, top-level argument splitting.

Admissibility: C++ source text; raw string literals and digraphs are not recognised (a bracket inside a raw
string is counted). Post-condition: :func:`blank` keeps every offset and newline of its input.
"""
from __future__ import annotations

__all__ = ["blank", "match_close", "split_args"]

_CLOSE = {"(": ")", "[": "]", "{": "}", "<": ">"}


def blank(text: str) -> str:
    """``text`` with comments and string / char literals replaced by spaces (newlines kept): same offsets."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def split_args(s: str, start: int, end: int) -> list:
    """Top-level comma positions of ``s[start:end]`` as (begin, end) spans; ``<`` opens a bracket only right
    after an identifier (a template argument list), as CuTe's ``Copy_Atom<Op, T>{}`` needs."""
    spans, stack, b = [], [], start
    for i in range(start, end):
        c = s[i]
        if c in "([{" or (c == "<" and i > start and (s[i - 1].isalnum() or s[i - 1] == "_")):
            stack.append(_CLOSE[c])
        elif stack and c == stack[-1]:
            stack.pop()
        elif c == "," and not stack:
            spans.append((b, i))
            b = i + 1
    spans.append((b, end))
    return [sp for sp in spans if s[sp[0]:sp[1]].strip()]


def match_close(s: str, i: int, open_: str, close: str) -> int:
    """Index just past the bracket closing the one at ``i``, or -1."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == open_:
            depth += 1
        elif s[j] == close:
            depth -= 1
            if depth == 0:
                return j + 1
    return -1
