"""Loop-nest text and its data (paper section 1.2): ``Loop``, ``LoopNest``, exact trip counts and the parser.

``parse_loop_nest(text)`` reads a perfectly nested, rectangular, affine loop nest, Python style
(``for n in range(3,43,2): for m in range(4,23,5): A[p*m+q*n]``) or C style
(``for (int n = 3; n < 43; n += 2) for (int m = 4; m <= 22; m += 5) A[p*m + q*n] = e(m,n);``), bounds and
strides possibly symbolic. Signs of symbolic steps are asked of the decision interface
(``symbolic.decide``), never of sympy's own sign facts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...core.notation.scan import split_top, unbalanced
from ...errors import LoopNestError, ParseError
from ...symbolic import decide, normalize, parse_expr, symbol
from ...symbolic.lazy import sympy

__all__ = ["Loop", "LoopNest", "parse_loop_nest", "coerce_nest", "trip_count", "sign"]


_SRC = "loop nest"


# --------------------------------------------------------------------------------------------------------
# data

@dataclass(frozen=True)
class Loop:
    """``for var in range(start, stop, step)``: ``stop`` is exclusive, ``step`` nonzero (may be negative)."""
    var: str
    start: object
    stop: object
    step: object = 1

    def trip(self):
        return trip_count(self.start, self.stop, self.step)


@dataclass(frozen=True)
class LoopNest:
    """Loops outermost first, the subscript expression of the access ``array[index]``."""
    loops: tuple
    index: object
    array: str = "A"


# --------------------------------------------------------------------------------------------------------
# trip counts

def trip_count(start, stop, step):
    """Exact number of iterations of ``range(start, stop, step)``: ``ceil((stop-start)/step)`` clamped at 0.

    Symbolic bounds give a sympy expression (not clamped: the caller records that it must be >= 0)."""
    start, stop, step = normalize(start), normalize(stop), normalize(step)
    if type(start) is int and type(stop) is int and type(step) is int:
        if step == 0:
            raise LoopNestError("loop step must be nonzero")
        return max(0, -((start - stop) // step))
    if sign(step) == 0:
        raise LoopNestError("loop step must be nonzero")
    if sign(step) is None:
        raise LoopNestError(f"the sign of the loop step {step} is not known")
    n = sympy.ceiling(sympy.sympify(stop - start) / step)
    return normalize(sympy.simplify(n))


def sign(x):
    """``1``, ``0`` or ``-1`` for the sign of ``x``, ``None`` when the decision interface cannot tell.

    Asked through ``symbolic.decide`` under the current context's assumptions (sympy's own sign facts are not
    trusted on rational expressions; docs/model.md section 5)."""
    if type(x) is int:
        return (x > 0) - (x < 0)
    if decide.eq(x, 0) is True:
        return 0
    if decide.lt(0, x) is True:
        return 1
    if decide.lt(x, 0) is True:
        return -1
    return None


# --------------------------------------------------------------------------------------------------------
# parsing

_TYPES = r"(?:(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long\s+long|long|short|size_t|ssize_t|ptrdiff_t|auto|"\
         r"int\d+_t|uint\d+_t|index_t)\s+)?"
_WS = re.compile(r"(?:\s|[{};]|//[^\n]*|/\*.*?\*/)*", re.S)
_NAME = r"[A-Za-z_]\w*"


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def err(self, pos, expected):
        raise ParseError(self.text, pos + 1, expected, source=_SRC)

    def skip(self):
        self.pos = _WS.match(self.text, self.pos).end()

    def skip_ws(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def match(self, pattern):
        m = re.compile(pattern).match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return m

    def balanced(self, open_ch, close_ch):
        """At ``open_ch``: return (inner text, inner start) and move past the matching ``close_ch``."""
        depth = 0
        start = self.pos
        for i in range(self.pos, len(self.text)):
            ch = self.text[i]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    if ch != close_ch:
                        self.err(i, f"'{close_ch}'")
                    self.pos = i + 1
                    return self.text[start + 1:i], start + 1
        self.err(len(self.text), f"a closing '{close_ch}' for the '{open_ch}' at column {start + 1}")

    def expr(self, src, at):
        """Parse the expression ``src`` that starts at index ``at`` of the text (errors point into the text)."""
        stripped = src.strip()
        if not stripped:
            self.err(at, "an integer expression")
        real_at = at + (len(src) - len(src.lstrip()))
        found = self.text.find(stripped)
        return parse_expr(stripped, self.text, real_at - (found if found >= 0 else 0))


def _split_top(s: str, sep: str):
    """Pieces of ``s`` cut at ``sep`` outside brackets, and where each starts (the one scanner, ``core.scan``)."""
    cut = split_top(s, sep, "([{")
    return [p for p, _ in cut], [o for _, o in cut]


def parse_loop_nest(text: str) -> LoopNest:
    """Parse loop-nest text (Python ``range`` loops or C ``for`` loops, possibly mixed, any layout of lines)."""
    if not isinstance(text, str):
        raise TypeError(f"loop nest text must be a string, got {type(text).__name__}")
    p = _Parser(text)
    loops: list[Loop] = []
    p.skip()
    while p.match(r"for\b"):
        at = p.pos - 3
        p.skip_ws()
        if p.pos < len(p.text) and p.text[p.pos] == "(":
            loops.append(_c_header(p, at))
        else:
            loops.append(_py_header(p, at))
        p.skip()
    if not loops:
        p.err(p.pos, "a loop header: 'for VAR in range(...):' or 'for (int VAR = ...; ...; ...)'")
    # the access: NAME[...] or (NAME + offset)[...]
    access_at = p.pos
    base_offset = 0
    m = p.match(r"(" + _NAME + r")\s*\[")
    if m:
        array = m.group(1)
        p.pos -= 1
    elif p.pos < len(p.text) and p.text[p.pos] == "(":
        inner, inner_at = p.balanced("(", ")")
        mm = re.fullmatch(r"\s*(" + _NAME + r")\s*(?:([+-])(.*))?", inner, re.S)
        if not mm:
            p.err(inner_at, "an accessor 'NAME' or 'NAME + offset'")
        array = mm.group(1)
        if mm.group(2):
            off_at = inner_at + mm.start(3)
            base_offset = p.expr(mm.group(3), off_at)
            if mm.group(2) == "-":
                base_offset = -base_offset
        p.skip_ws()
        if p.pos >= len(p.text) or p.text[p.pos] != "[":
            p.err(p.pos, "'[' after the accessor")
    else:
        p.err(access_at, "an array access such as A[...] (the loop body)")
    idx_text, idx_at = p.balanced("[", "]")
    if "[" in idx_text:
        p.err(idx_at + idx_text.index("["), "a single affine subscript (no nested indexing)")
    parts, _ = _split_top(idx_text, ",")
    if len(parts) > 1:
        p.err(idx_at + len(parts[0]), "a single linear subscript (multi-dimensional subscripts are not supported; "
                                      "linearise them, e.g. A[m + ld*n])")
    index = p.expr(idx_text, idx_at)
    p.skip_ws()
    if p.pos < len(p.text) and p.text[p.pos] == "[":
        p.err(p.pos, "a single subscript (A[i][j] is not supported; write A[i*ld + j])")
    rest = p.text[p.pos:]
    mfor = re.search(r"\bfor\b", rest)
    if mfor:
        p.err(p.pos + mfor.start(), "a perfectly nested loop nest (no loop after the body's first access)")
    _check_rest(p)
    index = normalize(index + base_offset) if base_offset else index
    return _check_nest(LoopNest(tuple(loops), index, array), text)


# what may follow the access: an assignment to it (``= e(m)``, ``+= 1``) up to the end of the statement
_ASSIGN = re.compile(r"\s*(?:<<|>>|[-+*/%&|^])?=(?!=)")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _check_rest(p: _Parser):
    """The text after the access is the rest of its statement, never ignored: nothing (separators, closing
    braces and comments aside) or an assignment whose brackets balance; else a ParseError at the column."""
    start = p.pos
    p.skip()
    if p.pos >= len(p.text):
        return
    p.pos = start
    m = _ASSIGN.match(p.text, start)
    if m is None:
        p.skip()
        p.err(p.pos, "the end of the loop body after the access (or an assignment to it, '= ...')")
    tail = _COMMENT.sub(lambda c: " " * len(c.group()), p.text[m.end():])
    bad = unbalanced(tail, "([")
    if bad is not None:
        p.err(m.end() + bad[0], bad[1])


def _py_header(p: _Parser, at: int) -> Loop:
    m = p.match(r"\s*(" + _NAME + r")\s+in\s+range\s*")
    if not m or p.pos >= len(p.text) or p.text[p.pos] != "(":
        p.err(at, "'for VAR in range(start, stop, step):'")
    var = m.group(1)
    args, args_at = p.balanced("(", ")")
    parts, starts = _split_top(args, ",")
    if len(parts) > 3 or not args.strip():
        p.err(args_at, "range(stop), range(start, stop) or range(start, stop, step)")
    vals = [p.expr(s, args_at + st) for s, st in zip(parts, starts)]
    if len(vals) == 1:
        vals = [0, vals[0], 1]
    elif len(vals) == 2:
        vals.append(1)
    if not p.match(r"\s*:"):
        p.err(p.pos, "':' after the range(...)")
    return Loop(var, *vals)


def _c_header(p: _Parser, at: int) -> Loop:
    inner, inner_at = p.balanced("(", ")")
    parts, starts = _split_top(inner, ";")
    if len(parts) != 3:
        p.err(inner_at, "'for (init; condition; increment)' with three parts")
    (init, cond, inc), (si, sc, sn) = parts, starts
    m = re.fullmatch(r"\s*" + _TYPES + r"(" + _NAME + r")\s*=(.*)", init, re.S)
    if not m:
        p.err(inner_at + si, "an initialisation 'int VAR = start'")
    var = m.group(1)
    start = p.expr(m.group(2), inner_at + si + m.start(2))
    m = re.fullmatch(r"\s*(" + _NAME + r")\s*(<=|<|>=|>|!=)(.*)", cond, re.S)
    if not m or m.group(1) != var:
        p.err(inner_at + sc, f"a condition '{var} < stop' or '{var} <= stop' (or > / >= for a decreasing loop)")
    op = m.group(2)
    bound = p.expr(m.group(3), inner_at + sc + m.start(3))
    v = re.escape(var)
    inc_s = inc.strip()
    step = None
    if re.fullmatch(rf"(\+\+\s*{v}|{v}\s*\+\+)", inc_s):
        step = 1
    elif re.fullmatch(rf"(--\s*{v}|{v}\s*--)", inc_s):
        step = -1
    else:
        mm = re.fullmatch(rf"{v}\s*([+-])=(.*)", inc_s, re.S) or \
            re.fullmatch(rf"{v}\s*=\s*{v}\s*([+-])(.*)", inc_s, re.S)
        if mm:
            off = inner_at + sn + (len(inc) - len(inc.lstrip())) + mm.start(2)
            step = p.expr(mm.group(2), off)
            if mm.group(1) == "-":
                step = normalize(-step)
    if step is None:
        p.err(inner_at + sn, f"an increment '++{var}', '{var} += step' or '{var} -= step'")
    sg = sign(step)
    if sg == 0:
        p.err(inner_at + sn, "a nonzero step")
    if sg is None:
        p.err(inner_at + sn, "a step of known sign")
    if op in ("<", "<=") and sg < 0 or op in (">", ">=") and sg > 0:
        p.err(inner_at + sc, f"a condition that agrees with the step direction ('{op}' with step {step} "
                             "would not terminate)")
    if op == "!=":
        p.err(inner_at + sc, "'<', '<=', '>' or '>=' (a '!=' bound is exact only for reachable stops)")
    if op == "<=":
        bound = normalize(bound + 1)
    elif op == ">=":
        bound = normalize(bound - 1)
    return Loop(var, start, bound, step)


def _check_nest(nest: LoopNest, text: str | None = None) -> LoopNest:
    names = [lp.var for lp in nest.loops]
    seen = set()
    for lp in nest.loops:
        if lp.var in seen:
            _fail(text, f"loop variable '{lp.var}' is used by two loops")
        seen.add(lp.var)
    vars_ = {symbol(n) for n in names}
    for lp in nest.loops:
        for what, e in (("start", lp.start), ("stop", lp.stop), ("step", lp.step)):
            fs = getattr(sympy.sympify(e), "free_symbols", set()) & vars_
            if fs:
                _fail(text, f"the {what} of loop '{lp.var}' depends on loop variable(s) "
                            f"{', '.join(sorted(s.name for s in fs))}: only rectangular nests have a layout")
        if sign(lp.step) == 0:
            _fail(text, f"loop '{lp.var}' has step 0")
        if sign(lp.step) is None:
            _fail(text, f"the sign of the step of loop '{lp.var}' ({lp.step}) is not known")
    return nest


def _fail(text, message):
    raise LoopNestError(message)


def coerce_nest(x) -> LoopNest:
    """A checked ``LoopNest`` from loop text, a ``LoopNest``, a ``LoopLayout`` (its nest), ``{'loops': [...],
    'index': ..., 'array': ...}`` or ``(loops, index[, array])``; loops are ``(var, stop)``, ``(var, start, stop)``
    or ``(var, start, stop, step)``, outermost first."""
    if isinstance(x, LoopNest):
        return _check_nest(x)
    if isinstance(getattr(x, "nest", None), LoopNest):  # a LoopLayout (defined above this module)
        return x.nest
    if isinstance(x, str):
        return parse_loop_nest(x)
    if isinstance(x, dict):
        loops = x.get("loops")
        index = x.get("index")
        array = x.get("array", "A")
    elif isinstance(x, (tuple, list)) and len(x) in (2, 3):
        loops, index = x[0], x[1]
        array = x[2] if len(x) == 3 else "A"
    else:
        raise TypeError("loop_layout takes loop text, a LoopNest, {'loops': [...], 'index': ...} or (loops, index)")
    out = []
    for lp in loops:
        if isinstance(lp, Loop):
            out.append(lp)
            continue
        lp = tuple(lp)
        if len(lp) == 2:
            lp = (lp[0], 0, lp[1], 1)
        elif len(lp) == 3:
            lp = (lp[0], lp[1], lp[2], 1)
        if len(lp) != 4:
            raise LoopNestError(f"a loop is (var, stop), (var, start, stop) or (var, start, stop, step), got {lp!r}")
        out.append(Loop(lp[0], *(_num(v) for v in lp[1:])))
    return _check_nest(LoopNest(tuple(out), _num(index), array))


def _num(v):
    if isinstance(v, str):
        return parse_expr(v)
    return normalize(v)

