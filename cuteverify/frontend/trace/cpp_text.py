"""Source-text helpers of ``trace cpp`` (:mod:`.cpp_capture`, :mod:`.cpp_flow`): comments and literals blanked
with offsets kept, bracket matching, top-level argument splitting.

Admissibility: C++ source text; raw string literals and digraphs are not recognised (a bracket inside a raw
string is counted). Post-condition: :func:`blank` keeps every offset and newline of its input.
"""
from __future__ import annotations

import re

__all__ = ["blank", "match_close", "split_args", "launch_template_args"]

_CLOSE = {"(": ")", "[": "]", "{": "}", "<": ">"}


def blank(text: str) -> str:
    """``text`` with comments, string / char literals and the arms no preprocessor configuration compiles
    (``#if 0``, the ``#else`` of ``#if 1``: :func:`_dead_arms`) replaced by spaces (newlines kept): same offsets."""
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
    # the arms the preprocessor drops whatever is defined (`#if 0`, the `#else` of `#if 1`) are no code: a
    # relation written there is not the kernel's (review)
    for a, b in _dead_arms("".join(out)):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)


_PP = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)$", re.M)


def _dead_arms(s: str) -> list:
    """The (start, end) spans of ``s`` (comments blanked) inside an ``#if 0`` arm or after the ``#if 1`` arm
    of its conditional (``#elif`` / ``#else`` arms): text no preprocessor configuration compiles. A condition
    other than the literal 0 or 1 decides nothing here."""
    spans, stack = [], []  # per open conditional: [state, start]; state dead | taken | rest (dead to #endif) | ?
    for m in _PP.finditer(s):
        d, arg = m.group(1), m.group(2).strip()
        if d in ("if", "ifdef", "ifndef"):
            c = arg if d == "if" else ""
            stack.append(["dead" if c == "0" else "taken" if c == "1" else "?", m.end()])
            continue
        if not stack:
            continue
        top = stack[-1]
        if top[0] == "dead":
            spans.append((top[1], m.start()))
        if d == "endif":
            if top[0] == "rest":
                spans.append((top[1], m.start()))
            stack.pop()
        elif top[0] == "taken":
            top[:] = ["rest", m.end()]
        elif top[0] == "dead":
            top[:] = ["taken" if d == "else" or arg == "1" else "dead" if arg == "0" else "?", m.end()]
    return spans


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


def launch_template_args(s: str, name: str, launched: str, before: int, fallback: bool = True) -> list | None:
    """The template argument texts (whitespace-normalised) the launch at offset ``before`` of the blanked source
    ``s`` instantiates the kernel ``name`` with. Definition: those written in ``launched`` when it has any
    (``gemm_device<...><<<``); else those of the first ``name<...>`` after the last ``BASE =`` before the launch,
    ``BASE`` the launched variable (``auto k = &f<...>``, ``void const* k = reinterpret_cast<...>(&f<...>)``);
    else, with ``fallback``, those of the last ``name<...>`` before the launch. Admissibility: ``s`` is
    :func:`blank` of the source. Post-condition: None when no such list closes."""
    if "<" in launched:
        lt = launched.find("<")
        gt = match_close(launched, lt, "<", ">")
        return [" ".join(launched[a:b].split()) for a, b in split_args(launched, lt + 1, gt - 1)] if gt > 0 else None
    base = launched.split("::")[-1].strip()
    found = None
    assign = None
    for m in re.finditer(rf"\b{re.escape(base)}\s*=", s[:before]):
        assign = m.end()
    if assign is not None and base != name:
        found = re.compile(rf"\b{re.escape(name)}\s*<").search(s, assign, before)
    if found is None and fallback:
        for m in re.finditer(rf"\b{re.escape(name)}\s*<", s[:before]):
            found = m
    if found is None:
        return None
    gt = match_close(s, found.end() - 1, "<", ">")
    return [" ".join(s[a:b].split()) for a, b in split_args(s, found.end(), gt - 1)] if gt > 0 else None
