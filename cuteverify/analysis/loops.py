"""Canonical loops (paper section 1.2): an affine loop nest <-> accessor + ``Shape:Stride``.

``loop_layout(text)`` parses a perfectly nested, rectangular, affine loop nest, Python style
(``for n in range(3,43,2): for m in range(4,23,5): A[p*m+q*n]``) or C style
(``for (int n = 3; n < 43; n += 2) for (int m = 4; m <= 22; m += 5) A[p*m + q*n] = e(m,n);``), bounds and
strides possibly symbolic, and returns the canonical form: the accessor offset (``4*p + 3*q``) and the layout
``(4,20):(5*p,2*q)`` whose mode 0 is the innermost loop. ``to_loop_nest(layout, offset)`` prints the canonical
nest back; ``check_no_repeat`` proves that the nest touches no element twice or shows two colliding iterations.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy

from ..algebra.coalesce import coalesce
from ..core.format import format_tuple
from ..core.layout import Layout
from ..core.parse import parse
from ..core.tuples import flatten
from ..errors import CuteVerifyError, ParseError
from ..symbolic import decide, normalize, parse_expr, symbol
from ..symbolic.conditions import Obligation

__all__ = ["LoopNestError", "Loop", "LoopNest", "LoopLayout", "NoRepeat", "parse_loop_nest", "loop_layout", "to_loop_nest",
           "check_no_repeat", "trip_count", "ENUMERATION_LIMIT"]

class LoopNestError(CuteVerifyError, ValueError):
    """A loop nest that parses but has no canonical layout (not rectangular, not affine, step 0, ...)."""


#: Largest iteration space enumerated exactly by ``check_no_repeat``.
ENUMERATION_LIMIT = 1 << 22

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


@dataclass
class LoopLayout:
    """The canonical form of a loop nest: ``(array + offset)[layout(i0, i1, ...)]``.

    ``layout`` has one mode per loop, mode 0 the innermost loop; ``offset`` is a sympy expression (or int);
    ``coalesced`` is ``cv.coalesce(layout)``, a single mode when the nest walks a 1-D progression.
    """
    nest: LoopNest
    offset: object
    layout: Layout
    coalesced: Layout
    obligations: tuple = field(default_factory=tuple)

    @property
    def array(self) -> str:
        return self.nest.array

    @property
    def loops(self) -> tuple:
        return self.nest.loops

    @property
    def shape(self):
        return self.layout.shape

    @property
    def stride(self):
        return self.layout.stride

    @property
    def accessor(self) -> str:
        """``A + 4*p + 3*q`` (just ``A`` for a zero offset)."""
        return _accessor(self.array, self.offset, parens=False)

    @property
    def is_concrete(self) -> bool:
        return self.layout.is_concrete and type(self.offset) is int

    @property
    def one_loop(self) -> bool:
        """Does the nest coalesce into a single strided loop?"""
        return type(self.coalesced.shape) is not tuple

    def canonical(self, body: str = "g") -> str:
        """The canonical loop nest (C-like text, as in the paper)."""
        return to_loop_nest(self.layout, self.offset, self.array, body=body)

    def one_d(self, body: str = "f") -> str:
        """The nest as one loop over a 1-D coordinate ``k``: the coalesced single loop when it exists, else
        the paper's ``(A + off)[d0*(k%N0) + d1*(k/N0)]`` form."""
        return to_loop_nest(self.coalesced if self.one_loop else self.layout, self.offset, self.array,
                            body=body, one_d=True)

    def coords_of(self, canonical) -> dict:
        """Loop-variable values ``{var: value}`` (outermost first) of a canonical coordinate (mode 0 innermost)."""
        loops = self.loops
        n = len(loops)
        out = {}
        for depth, lp in enumerate(loops):
            c = canonical[n - 1 - depth]
            out[lp.var] = normalize(lp.start + lp.step * c)
        return out

    def offsets(self) -> list:
        """The offsets the nest touches, in loop order (concrete nests only)."""
        if not self.is_concrete:
            raise ValueError("offsets() needs concrete strides and offset; substitute the symbols first")
        return [self.offset + v for v in self.layout.values()]

    def check_no_repeat(self, **kw) -> "NoRepeat":
        return check_no_repeat(self, **kw)

    def __str__(self):
        return (f"Accessor: {self.accessor}\n   Shape: {format_tuple(self.layout.shape)}\n"
                f"  Stride: {format_tuple(self.layout.stride)}")


@dataclass
class NoRepeat:
    """``verdict``: ``"proved"`` (no element touched twice), ``"refuted"`` (``witness`` holds two iterations,
    as ``{var: value}`` dicts in the loops' own variables, that touch ``offset``) or ``"unknown"``."""
    verdict: str
    method: str
    reason: str = ""
    witness: tuple | None = None
    offset: object = None
    assignment: dict = field(default_factory=dict)

    @property
    def proved(self) -> bool:
        return self.verdict == "proved"

    @property
    def refuted(self) -> bool:
        return self.verdict == "refuted"

    def __str__(self):
        s = f"{self.verdict} ({self.method})"
        if self.witness is not None:
            a, b = self.witness
            s += f": iterations {_fmt_iter(a)} and {_fmt_iter(b)} both touch offset {self.offset}"
            if self.assignment:
                s += " with " + ", ".join(f"{k}={v}" for k, v in sorted(self.assignment.items()))
        elif self.reason:
            s += f": {self.reason}"
        return s


def _fmt_iter(it):
    if isinstance(it, dict):
        return "(" + ", ".join(f"{k}={v}" for k, v in it.items()) + ")"
    return str(it)


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
    if _sign(step) == 0:
        raise LoopNestError("loop step must be nonzero")
    if _sign(step) is None:
        raise LoopNestError(f"the sign of the loop step {step} is not known")
    n = sympy.ceiling(sympy.sympify(stop - start) / step)
    return normalize(sympy.simplify(n))


def _sign(x):
    if type(x) is int:
        return (x > 0) - (x < 0)
    x = sympy.sympify(x)
    if x.is_zero:
        return 0
    if x.is_positive:
        return 1
    if x.is_negative:
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
    parts, depth, cur, starts, begin = [], 0, [], [], 0
    for i, ch in enumerate(s):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            starts.append(begin)
            cur, begin = [], i + 1
            continue
        cur.append(ch)
    parts.append("".join(cur))
    starts.append(begin)
    return parts, starts


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
    index = normalize(index + base_offset) if base_offset else index
    return _check_nest(LoopNest(tuple(loops), index, array), text)


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
    sg = _sign(step)
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
        if _sign(lp.step) == 0:
            _fail(text, f"loop '{lp.var}' has step 0")
        if _sign(lp.step) is None:
            _fail(text, f"the sign of the step of loop '{lp.var}' ({lp.step}) is not known")
    return nest


def _fail(text, message):
    raise LoopNestError(message)


def _coerce_nest(x) -> LoopNest:
    if isinstance(x, LoopNest):
        return _check_nest(x)
    if isinstance(x, LoopLayout):
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


# --------------------------------------------------------------------------------------------------------
# canonical form

def loop_layout(nest) -> LoopLayout:
    """Canonical form of a loop nest: accessor offset and ``Shape:Stride`` (mode 0 = innermost loop).

    ``nest`` is loop text, a ``LoopNest``, ``{'loops': [(var, start, stop, step), ...], 'index': expr,
    'array': 'A'}`` or ``(loops, index)``, loops outermost first with exclusive ``stop``.
    """
    nest = _coerce_nest(nest)
    index = sympy.expand(sympy.sympify(nest.index))
    vars_ = [symbol(lp.var) for lp in nest.loops]
    coeffs = []
    linear = sympy.Integer(0)
    for v in vars_:
        c = sympy.expand(sympy.diff(index, v))
        bad = c.free_symbols & set(vars_) or c.has(sympy.Derivative)
        if bad:
            raise LoopNestError(f"the subscript {index} is not affine in the loop variables "
                             f"(its coefficient of {v} is {c})")
        if c.is_integer is False:
            raise LoopNestError(f"the subscript {index} has a non-integer coefficient {c} for loop variable {v}")
        coeffs.append(c)
        linear += c * v
    rest = sympy.expand(index - linear)
    if rest.free_symbols & set(vars_):
        raise LoopNestError(f"the subscript {index} is not affine in the loop variables")
    offset = normalize(sympy.expand(index.subs({v: lp.start for v, lp in zip(vars_, nest.loops)})))
    shapes, strides, obligations = [], [], []
    for lp, c in zip(reversed(nest.loops), reversed(coeffs)):
        n = trip_count(lp.start, lp.stop, lp.step)
        if type(n) is not int and not sympy.sympify(n).is_nonnegative:
            obligations.append(Obligation(sympy.sympify(n) >= 0,
                                          f"loop '{lp.var}' runs a nonnegative number of times"))
        shapes.append(n)
        strides.append(normalize(sympy.expand(c * lp.step)))
    shape = shapes[0] if len(shapes) == 1 else tuple(shapes)
    stride = strides[0] if len(strides) == 1 else tuple(strides)
    layout = Layout(shape, stride, obligations=obligations)
    try:
        co = coalesce(layout)
    except Exception:  # a symbolic merge the decider cannot settle: keep the nest as it is
        co = layout
    return LoopLayout(nest, offset, layout, co, tuple(obligations))


def _accessor(array, offset, parens=True):
    if offset == 0:
        return array
    s = str(offset)
    s = f"{array} - {s[1:]}" if s.startswith("-") and _is_term(s[1:]) else f"{array} + {s}"
    return f"({s})" if parens else s


def _is_term(s):
    return not any(ch in s for ch in "+-")


def _term(stride, var):
    if stride == 0:
        return None
    if stride == 1:
        return var
    if stride == -1:
        return "-" + var
    s = str(stride)
    if isinstance(stride, sympy.Basic) and stride.is_Add:
        s = f"({s})"
    return f"{s}*{var}"


def _join(terms):
    terms = [t for t in terms if t is not None]
    if not terms:
        return "0"
    out = terms[0]
    for t in terms[1:]:
        out += f" - {t[1:]}" if t.startswith("-") else f" + {t}"
    return out


def to_loop_nest(layout, offset=0, array: str = "A", *, body: str = "g", one_d: bool = False,
                 names=None, indent: str = "  ") -> str:
    """Print the canonical loop nest of ``(array + offset)[layout]`` (C-like text as in the paper).

    Modes are flattened, mode 0 is the innermost loop. ``one_d`` prints one loop over a 1-D coordinate ``k``
    with the colexicographic split ``k % N0, (k / N0) % N1, ...`` (the paper's ``f(k)`` form).
    """
    if not isinstance(layout, Layout):
        layout = parse(str(layout))
    offset = normalize(offset) if not isinstance(offset, str) else parse_expr(offset)
    shapes = [s for s in flatten(layout.shape)]
    strides = [d for d in flatten(layout.stride)]
    acc = _accessor(array, offset)
    used = {s.name for s in _syms(shapes + strides + [offset])} | {array}
    if one_d:
        k = _fresh("k", used)
        if len(shapes) == 1:
            idx = [k]
        else:
            idx = []
            prefix = 1
            for r, n in enumerate(shapes):
                e = k if prefix == 1 else f"({k}/{_p(prefix)})"
                if r < len(shapes) - 1:
                    e = f"{e}%{_p(n)}" if prefix == 1 else f"{e}%{_p(n)}"
                    e = f"({e})"
                idx.append(e)
                prefix = normalize(prefix * n)
        total = normalize(sympy.Mul(*[sympy.sympify(s) for s in shapes])) if shapes else 1
        sub = _join([_term(d, i) for d, i in zip(strides, idx)])
        return f"for (int {k} = 0; {k} < {total}; ++{k})\n{indent}{acc}[{sub}] = {body}({k});"
    if names is None:
        if len(shapes) <= 3:
            names = ["i", "j", "k"][:len(shapes)]
        else:
            names = [f"i{r}" for r in range(len(shapes))]
        if any(nm in used for nm in names):
            names = [_fresh(f"i{r}", used) for r in range(len(shapes))]
    lines = []
    for depth, r in enumerate(reversed(range(len(shapes)))):
        i = names[r]
        lines.append(f"{indent * depth}for (int {i} = 0; {i} < {shapes[r]}; ++{i})")
    sub = _join([_term(d, i) for d, i in zip(strides, names)])
    lines.append(f"{indent * len(shapes)}{acc}[{sub}] = {body}({','.join(names)});")
    return "\n".join(lines)


def _p(x):
    s = str(x)
    return f"({s})" if isinstance(x, sympy.Basic) and (x.is_Add or x.is_Mul) else s


def _syms(xs):
    out = set()
    for x in xs:
        out |= set(getattr(x, "free_symbols", ()))
    return out


def _fresh(base, used):
    name, k = base, 0
    while name in used:
        k += 1
        name = f"{base}_{k}"
    return name


# --------------------------------------------------------------------------------------------------------
# no repeated element

def check_no_repeat(x, *, limit: int = ENUMERATION_LIMIT, use_prover: bool = True) -> NoRepeat:
    """Does the nest (text, ``LoopNest``, ``LoopLayout`` or ``Layout``) touch any element twice?

    Exact for concrete strides: a stride-0 loop refutes at once; a stride chain (sorted ``|d_k|`` each past the
    span of the smaller ones) proves; otherwise enumeration up to ``limit`` iterations, then the prover
    (``cuteverify.prover.is_injective``) when it is there, else ``unknown``. Symbolic strides: the chain test
    under the layout's assumptions, then the prover, else ``unknown``. A refutation names the two iterations in
    the loops' own variables.
    """
    if isinstance(x, Layout):
        ll = None
        layout = x
    else:
        ll = x if isinstance(x, LoopLayout) else loop_layout(x)
        layout = ll.layout
    shapes = list(flatten(layout.shape))
    strides = list(flatten(layout.stride))

    def wit(ca, cb, off):
        if ll is not None:
            return NoRepeat("refuted", method, witness=(ll.coords_of(ca), ll.coords_of(cb)),
                            offset=normalize(ll.offset + off))
        return NoRepeat("refuted", method, witness=(tuple(ca), tuple(cb)), offset=off)

    # empty or single iteration
    sizes_known = all(type(s) is int for s in shapes)
    if sizes_known and (any(s == 0 for s in shapes) or all(s <= 1 for s in shapes)):
        return NoRepeat("proved", "trivial", "at most one iteration")
    # a loop with stride 0 and more than one iteration
    method = "stride"
    for r, (s, d) in enumerate(zip(shapes, strides)):
        if _is_zero(d) and _ge2(s, layout):
            ca = [0] * len(shapes)
            cb = list(ca)
            cb[r] = 1
            res = wit(ca, cb, 0)
            res.reason = f"loop mode {r} has stride 0"
            return res
    # sufficient: a chain of strides
    method = "stride chain"
    if _chain(shapes, strides, layout):
        return NoRepeat("proved", method, "each loop's stride exceeds the span of the faster ones")
    concrete = sizes_known and all(type(d) is int for d in strides)
    if concrete:
        total = 1
        for s in shapes:
            total *= s
        if total <= limit:
            method = "enumeration"
            return _enumerate(shapes, strides, wit)
    if use_prover:
        r = _prover(layout, ll, shapes)
        if r is not None:
            return r
    if concrete:
        return NoRepeat("unknown", "enumeration", f"{total} iterations exceed the enumeration limit {limit} "
                                                  "and the prover is not available")
    return NoRepeat("unknown", "symbolic", "the strides are symbolic and the stride-chain test does not settle it"
                                           + ("" if use_prover else "") + "; substitute values to decide")


def _is_zero(d):
    if type(d) is int:
        return d == 0
    return sympy.sympify(d).is_zero is True


def _ge2(s, layout):
    if type(s) is int:
        return s >= 2
    try:
        return decide.le(2, s) is True
    except Exception:
        return False


def _le(a, b, layout):
    if type(a) is int and type(b) is int:
        return a <= b
    try:
        r = decide.le(a, b)
        return r is True
    except Exception:
        d = sympy.expand(sympy.sympify(b) - sympy.sympify(a))
        return d.is_nonnegative is True


def _chain(shapes, strides, layout) -> bool:
    mags = []
    for d in strides:
        sg = _sign(d)
        if sg is None:
            return False
        mags.append(d if sg >= 0 else normalize(-d))
    n = len(shapes)

    def go(remaining, span):
        if not remaining:
            return True
        for r in remaining:
            if _le(normalize(span + 1), mags[r], layout):
                if go([x for x in remaining if x != r], normalize(span + (shapes[r] - 1) * mags[r])):
                    return True
            if all(type(x) is int for x in (span, mags[r])):
                continue
        return False

    if all(type(x) is int for x in shapes + mags):
        order = sorted(range(n), key=lambda r: mags[r])
        span = 0
        for r in order:
            if shapes[r] <= 1:
                continue
            if mags[r] < span + 1:
                return False
            span += (shapes[r] - 1) * mags[r]
        return True
    if n > 7:
        return False
    return go(list(range(n)), 0)


def _enumerate(shapes, strides, wit):
    import numpy as np
    big = max((abs(d) * s for s, d in zip(shapes, strides)), default=0) * max(len(shapes), 1)
    dtype = np.int64 if big < (1 << 62) else object
    off = np.zeros(1, dtype=dtype)
    for s, d in zip(shapes, strides):
        off = (off[None, :] + (np.arange(s, dtype=dtype) * d)[:, None]).reshape(-1) if s > 1 else off
    # off is colexicographic: index i = c0 + N0*c1 + ...
    order = np.argsort(off, kind="stable")
    so = off[order]
    dup = np.nonzero(so[1:] == so[:-1])[0]
    if len(dup) == 0:
        return NoRepeat("proved", "enumeration", f"{len(off)} iterations, {len(off)} distinct offsets")
    i, j = int(order[dup[0]]), int(order[dup[0] + 1])
    i, j = min(i, j), max(i, j)
    ci = _unravel(i, shapes)
    cj = _unravel(j, shapes)
    return wit(ci, cj, int(off[i]))


def _unravel(i, shapes):
    out = []
    for s in shapes:
        s = max(s, 1)
        out.append(i % s)
        i //= s
    return out


def _prover(layout, ll, shapes):
    try:
        from ..prover import is_injective  # lazy: the prover may not be there
    except Exception:
        return None
    try:
        v = is_injective(layout)
    except Exception as e:  # noqa: BLE001  (a prover failure is an unknown, not a crash)
        return NoRepeat("unknown", "prover", f"the prover failed: {type(e).__name__}: {e}")
    if v is True or v is False:
        return NoRepeat("proved" if v else "unknown", "prover",
                        "" if v else "the prover reports a collision but gave no witness")
    status = None
    for attr in ("status", "verdict", "result", "kind"):
        val = getattr(v, attr, None)
        if val is not None:
            status = str(getattr(val, "name", getattr(val, "value", val))).lower()
            break
    if status is None:
        for attr, name in (("proved", "proved"), ("refuted", "refuted")):
            if getattr(v, attr, False) is True:
                status = name
    if status and "prov" in status:
        return NoRepeat("proved", "prover", str(getattr(v, "reason", "") or ""))
    if status and ("refut" in status or "counter" in status or "false" in status):
        w = None
        for attr in ("witness", "counterexample", "cex"):
            w = getattr(v, attr, None)
            if w is not None:
                break
        pair = _witness_pair(w, shapes)
        assignment = dict(getattr(w, "assignment", None) or {})
        if pair is not None:
            # check the witness concretely before reporting it
            ca, cb = pair
            lay = layout.subs(assignment) if assignment else layout
            la, lb = _eval(lay, ca), _eval(lay, cb)
            if la is not None and la == lb and ca != cb:
                off = (ll.offset if ll else 0)
                if assignment and not isinstance(off, int):
                    off = normalize(sympy.sympify(off).subs({symbol(k): v for k, v in assignment.items()}))
                res = NoRepeat("refuted", "prover", witness=(ll.coords_of(ca), ll.coords_of(cb)) if ll else
                               (tuple(ca), tuple(cb)), offset=normalize(off + la), assignment=assignment)
                if ll and assignment:
                    # loop starts/steps may be symbolic too
                    sub = {symbol(k): v for k, v in assignment.items()}
                    res.witness = tuple({k: normalize(sympy.sympify(x).subs(sub)) for k, x in it.items()}
                                        for it in res.witness)
                if assignment:
                    res.reason = "for " + ", ".join(f"{k}={v}" for k, v in sorted(assignment.items()))
                return res
        return NoRepeat("unknown", "prover", f"the prover refuted injectivity but its witness could not be "
                                             f"read as two iterations: {v}")
    return NoRepeat("unknown", "prover", str(getattr(v, "reason", "") or v))


def _witness_pair(w, shapes):
    if w is None:
        return None
    cand = None
    for attr in ("coords", "coordinates", "inputs", "points", "args"):
        c = getattr(w, attr, None)
        if c is not None:
            cand = c
            break
    if cand is None and isinstance(w, (tuple, list)):
        cand = w
    if cand is None or len(cand) != 2:
        return None
    out = []
    for c in cand:
        if type(c) is int:
            out.append(_unravel(c, shapes))
        else:
            flat_c = list(flatten(c))
            if len(flat_c) == 1 and len(shapes) > 1:
                flat_c = _unravel(flat_c[0], shapes)
            if len(flat_c) != len(shapes):
                return None
            out.append([int(x) for x in flat_c])
    return out


def _eval(layout, c):
    try:
        total = 0
        for ci, d in zip(c, flatten(layout.stride)):
            total += ci * d
        return normalize(total)
    except Exception:
        return None
