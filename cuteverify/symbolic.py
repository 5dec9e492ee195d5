"""Symbols, assumptions and the cheap symbolic decisions behind ``cuteverify.decide``.

Shapes and strides may be sympy expressions over integer symbols (positive by default). A decision is
``True`` only when it holds for every assignment that satisfies the assumptions, ``False`` only when it
fails for every such assignment, and ``None`` otherwise. Methods, cheapest first: sympy's own sign and
zero facts; re-parametrising symbols by what the assumptions imply (``128 | M`` gives ``M = 128*m``,
``K >= 64`` gives ``K = 64 + k``); exhaustive evaluation over finite sets (``N in {8,...,256}``).
"""
from __future__ import annotations

import ast
import itertools
import re
from functools import lru_cache

import sympy

from .errors import CuteVerifyError, ParseError

_SYMBOLS: dict[str, sympy.Symbol] = {}


def symbol(name: str) -> sympy.Symbol:
    """The integer, positive sympy symbol for ``name`` (one object per name)."""
    s = _SYMBOLS.get(name)
    if s is None:
        s = _SYMBOLS[name] = sympy.Symbol(name, integer=True, positive=True)
    return s


def normalize(x):
    """Ints stay ints; sympy integers become ints; other expressions are expanded-simplified."""
    if type(x) is int:
        return x
    if isinstance(x, sympy.Basic):
        if x.is_Integer:
            return int(x)
        return sympy.factor_terms(sympy.expand(x)) if x.is_Add else x
    return x


def is_symbolic(x) -> bool:
    return isinstance(x, sympy.Basic) and not x.is_Integer


def to_int(x, values: dict):
    """Substitute a full assignment ``{name: int}``; an int, or None if symbols remain."""
    if type(x) is int:
        return x
    if not isinstance(x, sympy.Basic):
        return None
    r = x.subs({symbol(k): v for k, v in values.items()})
    if r.is_Integer:
        return int(r)
    if r.is_Rational:
        return None
    return None


class Assumptions:
    """Facts about symbols, shared by the layouts of one problem.

    Text forms (one fact per string): ``M % 128 == 0`` or ``128 | M`` (divisibility), ``K >= 64``,
    ``K > 0``, ``M <= 4096``, ``M == 2*N`` (any relation between linear forms), ``N in {8,16,...,256}``
    (a finite set; ``a,b,...,z`` is an arithmetic progression), ``pow2(k)`` (a power of two).
    """

    def __init__(self, facts=()):
        from .decide import Condition
        self.conditions: list[Condition] = []
        self.finite: dict[str, tuple[int, ...]] = {}
        self.pow2: set[str] = set()
        self.texts: list[str] = []
        for f in facts:
            self.add(f)

    def add(self, fact: str) -> "Assumptions":
        from .decide import Condition
        if isinstance(fact, Condition):
            self.conditions.append(fact)
            self.texts.append(str(fact))
            return self
        text = fact.strip()
        self.texts.append(text)
        m = re.fullmatch(r"([A-Za-z_]\w*)\s+in\s+\{(.*)\}", text)
        if m:
            vals = _parse_set(m.group(2), text)
            prev = self.finite.get(m.group(1))
            # two finite sets for one symbol: it lies in both
            self.finite[m.group(1)] = vals if prev is None else tuple(v for v in prev if v in vals)
            symbol(m.group(1))
            return self
        m = re.fullmatch(r"pow2\(\s*([A-Za-z_]\w*)\s*\)", text)
        if m:
            self.pow2.add(m.group(1))
            symbol(m.group(1))
            return self
        m = re.fullmatch(r"(.+?)\s*\|\s*(.+)", text)
        if m and "==" not in text and "<" not in text and ">" not in text:
            a, b = parse_expr(m.group(1), text), parse_expr(m.group(2), text)
            self.conditions.append(Condition("divides", a, b))
            return self
        m = re.fullmatch(r"(.+?)\s*%\s*(.+?)\s*==\s*0", text)
        if m:
            a, b = parse_expr(m.group(2), text), parse_expr(m.group(1), text)
            self.conditions.append(Condition("divides", a, b))
            return self
        for op, kind, swap in (("<=", "le", False), (">=", "le", True), ("==", "eq", False), ("!=", "ne", False),
                               ("<", "lt", False), (">", "lt", True)):
            if op in text:
                lhs, rhs = text.split(op, 1)
                a, b = parse_expr(lhs, text), parse_expr(rhs, text)
                if swap:
                    a, b = b, a
                self.conditions.append(Condition(kind, a, b))
                return self
        raise ParseError(text, 1, "an assumption such as 'M % 128 == 0', 'K >= 64', 'N in {8,16,...,256}', 'pow2(k)'",
                         source="assumption")

    def check_consistent(self) -> None:
        """Raise ``ValueError`` if the facts contradict each other (no assignment satisfies them)."""
        from . import smt
        if smt.satisfiable(self) is False:
            raise ContradictoryAssumptions(f"the assumptions contradict each other: {'; '.join(self.texts)}")

    def names(self) -> set[str]:
        out = set(self.finite) | set(self.pow2)
        for c in self.conditions:
            out |= {s.name for s in c.symbols()}
        return out

    def holds(self, values: dict) -> bool:
        """Does a full assignment satisfy every fact?"""
        for name, vals in self.finite.items():
            if name in values and values[name] not in vals:
                return False
        for name in self.pow2:
            v = values.get(name)
            if v is not None and (v <= 0 or v & (v - 1)):
                return False
        for c in self.conditions:
            h = c.holds(values)
            if h is False:
                return False
        return True

    def merged(self, other: "Assumptions | None") -> "Assumptions":
        if other is None or other is self:
            return self
        out = Assumptions()
        for src in (self, other):
            out.conditions += [c for c in src.conditions if str(c) not in map(str, out.conditions)]
            for name, vals in src.finite.items():
                prev = out.finite.get(name)
                out.finite[name] = vals if prev is None else tuple(v for v in prev if v in vals)
            out.pow2 |= src.pow2
            out.texts += [t for t in src.texts if t not in out.texts]
        return out

    def __bool__(self):
        return bool(self.conditions or self.finite or self.pow2)

    def __repr__(self):
        return f"Assumptions({self.texts!r})"

    # -- re-parametrisations used by the cheap decisions --
    def substitutions(self) -> list[dict]:
        """Maps symbol -> expression in fresh symbols, each implied by the facts (sound to prove with)."""
        subs = []
        div: dict = {}
        low: dict = {}
        for c in self.conditions:
            if c.kind == "divides" and isinstance(c.b, sympy.Symbol) and type(_int(c.a)) is int:
                div[c.b] = sympy.ilcm(div.get(c.b, 1), _int(c.a))
            if c.kind == "le" and isinstance(c.b, sympy.Symbol) and type(_int(c.a)) is int:
                low[c.b] = max(low.get(c.b, 1), _int(c.a))
            if c.kind == "lt" and isinstance(c.b, sympy.Symbol) and type(_int(c.a)) is int:
                low[c.b] = max(low.get(c.b, 1), _int(c.a) + 1)
        for name in self.pow2:
            s = symbol(name)
            e = sympy.Symbol(f"_{name}_log", integer=True, nonnegative=True)
            subs.append({s: 2 ** e})
        if div:
            m = {}
            for s, d in div.items():
                q = sympy.Symbol(f"_{s.name}_q", integer=True, positive=True)
                lo = low.get(s)
                if lo is not None and lo > d:
                    # 128 | M and M >= 256: M = 128*(q) with q >= 2, i.e. 128*(q' + 2)
                    k = -(-lo // d)
                    q = sympy.Symbol(f"_{s.name}_q{k}", integer=True, nonnegative=True) + k
                m[s] = d * q
            subs.append(m)
        if low:
            m = {}
            for s, lo in low.items():
                r = sympy.Symbol(f"_{s.name}_r", integer=True, nonnegative=True)
                m[s] = lo + r
            subs.append(m)
        return subs


class ContradictoryAssumptions(CuteVerifyError, ValueError):
    """No assignment of the symbols satisfies the assumptions."""


def _int(x):
    if type(x) is int:
        return x
    if isinstance(x, sympy.Basic) and x.is_Integer:
        return int(x)
    return None


def _parse_set(body: str, text: str) -> tuple[int, ...]:
    parts = [p.strip() for p in body.split(",")]
    if "..." in parts:
        i = parts.index("...")
        if i < 2 or i != len(parts) - 2:
            raise ParseError(text, text.find("...") + 1, "'a, b, ..., z' with two terms before '...' and one after",
                             source="assumption")
        a, b, z = int(parts[0]), int(parts[1]), int(parts[-1])
        step = b - a
        if step <= 0 or (z - a) % step:
            raise ParseError(text, text.find("...") + 1, "an increasing progression that reaches its last term",
                             source="assumption")
        return tuple(range(a, z + 1, step))
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise ParseError(text, text.find("{") + 2, "integers separated by commas", source="assumption") from None


_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Add, ast.Sub, ast.Mult,
            ast.FloorDiv, ast.Div, ast.Pow, ast.USub, ast.UAdd, ast.Mod, ast.Load)


def parse_expr(text: str, context: str | None = None, offset: int = 0):
    """An integer expression over symbols: ints, names, + - * / // % ** and parentheses."""
    src = text.strip()
    ctx = context if context is not None else text
    col = offset + (ctx.find(src) if ctx.find(src) >= 0 else 0) + 1
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as e:
        raise ParseError(ctx, col + max((e.offset or 1) - 1, 0), "an integer expression", source="expression") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            c = col + getattr(node, "col_offset", 0)
            raise ParseError(ctx, c, "integers, names, + - * / % ** and parentheses", source="expression")
        if isinstance(node, ast.Constant) and (type(node.value) is not int):
            raise ParseError(ctx, col + node.col_offset, "an integer (no floats or strings)", source="expression")
    try:
        value = _build(tree.body)
    except ZeroDivisionError:
        raise ParseError(ctx, col, "no division or modulo by zero", source="expression") from None
    if isinstance(value, sympy.Basic) and value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise ParseError(ctx, col, "no division or modulo by zero", source="expression")
    return normalize(value)


def _build(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return symbol(node.id)
    if isinstance(node, ast.UnaryOp):
        v = _build(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    a, b = _build(node.left), _build(node.right)
    op = node.op
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        return a * b
    if isinstance(op, ast.Pow):
        return a ** b
    if isinstance(op, ast.Mod):
        return sympy.Mod(a, b) if not (type(a) is int and type(b) is int) else a % b
    if type(a) is int and type(b) is int:
        if isinstance(op, ast.FloorDiv) or a % b == 0:
            return a // b
        return sympy.Rational(a, b)
    if isinstance(op, ast.FloorDiv):
        return sympy.floor(a / b)
    return sympy.sympify(a) / b


# --- decisions ---------------------------------------------------------------------------------------

def decide(kind: str, a, b, assumptions: Assumptions | None):
    a, b = sympy.sympify(a), sympy.sympify(b)
    key = (kind, a, b, id(assumptions) if assumptions else 0)
    return _decide_cached(key, assumptions)


_cache: dict = {}


def _decide_cached(key, assumptions):
    hit = _cache.get(key, _MISSING)
    if hit is not _MISSING and (assumptions is None or hit[1] is assumptions):
        return hit[0]
    kind, a, b, _ = key
    r = _decide(kind, a, b, assumptions)
    if len(_cache) > 50000:
        _cache.clear()
    _cache[key] = (r, assumptions)
    return r


_MISSING = object()


def _decide(kind, a, b, assumptions):
    r = _direct(kind, a, b)
    if r is not None:
        return r
    if assumptions:
        # each substitution parametrises a superset of the valid assignments, so a definite answer over it
        # is a definite answer over them
        for sub in assumptions.substitutions():
            r = _direct(kind, a.subs(sub), b.subs(sub))
            if r is not None:
                return r
        r = _finite(kind, a, b, assumptions)
        if r is not None:
            return r
        from . import smt
        return smt.decide(kind, a, b, assumptions)
    return None


def _numerator(expr):
    """``expr`` as a polynomial with the same sign: the numerator over a denominator known positive, or None.

    sympy's sign facts are sound for polynomials in positive integer symbols but not for rational
    expressions (it calls ``16/(M*N) - 1`` positive), so every sign question is asked of a polynomial."""
    e = sympy.together(sympy.expand(expr))
    num, den = e.as_numer_denom()
    if den.is_Number:
        if den > 0:
            return sympy.expand(num)
        return sympy.expand(-num)
    den = sympy.expand(den)
    if den.is_polynomial() and den.is_positive is True:
        return sympy.expand(num)
    return None


def _direct(kind, a, b):
    if kind in ("eq", "ne"):
        num = _numerator(a - b)
        if num is None:
            return None
        r = True if num == 0 else num.is_zero
        if r is None or kind == "eq":
            return r
        return not r
    if kind in ("lt", "le"):
        num = _numerator(b - a)
        if num is None:
            return None
        if kind == "lt":
            if num.is_positive:
                return True
            if num.is_nonpositive:
                return False
            return None
        if num.is_nonnegative:
            return True
        if num.is_negative:
            return False
        return None
    if kind == "divides":
        if b == 0:
            return True
        if a == 0:
            return False if b.is_zero is False else None
        if a.is_Integer and b.is_Integer:
            return int(b) % int(a) == 0
        q = sympy.cancel(b / a)
        if q.is_Number:
            return q.is_Integer
        # an integer polynomial in integer symbols is an integer (sympy's is_integer on rational
        # expressions is not trusted, like its sign facts)
        qn, qd = sympy.together(q).as_numer_denom()
        if qd == 1 and _integer_polynomial(qn):
            return True
        if a.is_Integer and b.free_symbols:
            try:
                p = sympy.Poly(sympy.expand(b), *sorted(b.free_symbols, key=str))
            except sympy.PolynomialError:
                return None
            coeffs = p.coeffs()
            if all(c.is_Integer for c in coeffs) and all(int(c) % int(a) == 0 for c in coeffs):
                return True
        return None
    raise ValueError(kind)


def _integer_polynomial(e) -> bool:
    syms = sorted(e.free_symbols, key=str)
    if not syms:
        return bool(e.is_Integer)
    try:
        poly = sympy.Poly(sympy.expand(e), *syms)
    except sympy.PolynomialError:
        return False
    return all(c.is_Integer for c in poly.coeffs())


def _finite(kind, a, b, assumptions: Assumptions):
    free = {s.name for s in (a.free_symbols | b.free_symbols)}
    if not free or not free <= set(assumptions.finite):
        return None
    names = sorted(free)
    pools = [assumptions.finite[n] for n in names]
    total = 1
    for p in pools:
        total *= len(p)
    if total > 4096:
        return None
    from .decide import Condition
    cond = Condition(kind, a, b)
    seen = set()
    for combo in itertools.product(*pools):
        values = dict(zip(names, combo))
        if not assumptions.holds(values):
            continue
        seen.add(bool(cond.holds(values)))
        if len(seen) == 2:
            return None
    if len(seen) == 1:
        return seen.pop()
    return None


def integrality_obligations(layout) -> list:
    """Entries such as ``N/8`` must be integers for the layout to exist: one obligation ``8 | N`` each."""
    from .decide import Condition
    from .errors import Obligation
    from .notation import format_layout
    from .tuples import flatten
    outer = layout.outer if hasattr(layout, "outer") else layout
    out = []
    for x in list(flatten(outer.shape)) + [getattr(d, "value", d) for d in flatten(outer.stride)]:
        if isinstance(x, sympy.Basic) and not x.is_Integer:
            num, den = sympy.together(x).as_numer_denom()
            if den.is_Integer and int(den) == 1:
                continue
            cond = Condition("divides", int(den) if den.is_Integer else den,
                             sympy.expand(num) if den.is_Integer else num)
            ob = Obligation(cond, f"the entry {format_value_short(x)} of {format_layout(outer)} must be an integer")
            if ob not in out:
                out.append(ob)
    return out


def format_value_short(x):
    from .notation import format_value
    return format_value(x)
