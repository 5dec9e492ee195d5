"""Assumptions about symbols (docs/model.md section 5.2): divisibility, bounds, relations, finite sets,
powers of two; their re-parametrisations and the one enumerator of finite assignments."""
from __future__ import annotations

import itertools
import keyword
import math
import re

from ..errors import ContradictoryAssumptions, ParseError
from . import poly, smt
from .conditions import Condition
from .expr import int_or_none, parse_expr, symbol
from .lazy import sympy


class Assumptions:
    """Facts about symbols, shared by the layouts of one problem.

    Text forms (one fact per string): ``M % 128 == 0`` or ``128 | M`` (divisibility), ``K >= 64``,
    ``K > 0``, ``M <= 4096``, ``M == 2*N`` (any relation between linear forms), ``N in {8,16,...,256}``
    (a finite set; ``a,b,...,z`` is an arithmetic progression), ``pow2(k)`` (a power of two).
    """

    def __init__(self, facts=()):
        # each item a Condition, or a "simple" fact (kind, a, b) of one symbol name and one int not yet built
        # as sympy terms (see ``conditions``)
        self._facts: list = []
        self.finite: dict[str, tuple[int, ...]] = {}
        self.pow2: set[str] = set()
        self.texts: list[str] = []
        for f in facts:
            self.add(f)

    @property
    def conditions(self) -> list:
        """The facts as :class:`Condition` objects over sympy symbols (built on first use: a simple fact such
        as ``S >= 1`` is kept as text until a question needs its terms, so that concrete work never imports
        sympy)."""
        facts = self._facts
        if any(type(f) is tuple for f in facts):
            facts[:] = [Condition(f[0], _term(f[1]), _term(f[2])) if type(f) is tuple else f for f in facts]
        return facts

    @conditions.setter
    def conditions(self, value) -> None:
        self._facts = list(value)

    def add(self, fact: str) -> "Assumptions":
        if isinstance(fact, Condition):
            self._facts.append(fact)
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
            if self._simple("divides", m.group(1), m.group(2)):
                return self
            a, b = parse_expr(m.group(1), text), parse_expr(m.group(2), text)
            self._facts.append(Condition("divides", a, b))
            return self
        m = re.fullmatch(r"(.+?)\s*%\s*(.+?)\s*==\s*0", text)
        if m:
            if self._simple("divides", m.group(2), m.group(1)):
                return self
            a, b = parse_expr(m.group(2), text), parse_expr(m.group(1), text)
            self._facts.append(Condition("divides", a, b))
            return self
        for op, kind, swap in (("<=", "le", False), (">=", "le", True), ("==", "eq", False), ("!=", "ne", False),
                               ("<", "lt", False), (">", "lt", True)):
            if op in text:
                lhs, rhs = text.split(op, 1)
                if self._simple(kind, rhs, lhs) if swap else self._simple(kind, lhs, rhs):
                    return self
                a, b = parse_expr(lhs, text), parse_expr(rhs, text)
                if swap:
                    a, b = b, a
                self._facts.append(Condition(kind, a, b))
                return self
        raise ParseError(text, 1, "an assumption such as 'M % 128 == 0', 'K >= 64', 'N in {8,16,...,256}', 'pow2(k)'",
                         source="assumption")

    def _simple(self, kind: str, a: str, b: str) -> bool:
        """Record ``a KIND b`` unbuilt when one side is a symbol name and the other an integer literal (and,
        for ``divides``, the integer divides the symbol): what ``parse_expr`` would build from them is then
        known without sympy (``_term``). False (nothing recorded) for anything else."""
        x, y = _simple_term(a), _simple_term(b)
        if x is None or y is None or (type(x) is int) == (type(y) is int):
            return False
        if kind == "divides" and type(x) is not int:
            return False
        self._facts.append((kind, x, y))
        return True

    def _simple_only(self) -> bool:
        return all(type(f) is tuple for f in self._facts)

    def check_consistent(self) -> None:
        """Raise ``ContradictoryAssumptions`` if the facts contradict each other (no assignment satisfies
        them). The answer is remembered for the facts as they stand (every query of a problem asks it, and a
        contradiction must never reach a decision: anything follows from it)."""
        key = self.key()
        if getattr(self, "_consistent_for", None) == key:
            return
        if self._simple_only() and _simple_satisfiable(self):
            self._consistent_for = key  # decided exactly by integer arithmetic (``_simple_satisfiable``)
            return
        if any(not v for v in self.finite.values()):
            raise ContradictoryAssumptions(f"the assumptions contradict each other: {'; '.join(self.texts)}")
        for name in sorted(self.pow2):
            # a pow2 symbol whose own facts no power of two meets (``M % 3 == 0``, ``5 <= M <= 7``)
            facts = _pow2_contradiction(self, name)
            if facts:
                raise ContradictoryAssumptions(f"no power of two satisfies pow2({name}) and {'; '.join(facts)}")
        if smt.satisfiable(self) is False:
            raise ContradictoryAssumptions(f"the assumptions contradict each other: {'; '.join(self.texts)}")
        self._consistent_for = key

    def names(self) -> set[str]:
        out = set(self.finite) | set(self.pow2)
        for c in self._facts:
            if type(c) is tuple:
                out |= {x for x in c[1:] if type(x) is str}
            else:
                out |= {s.name for s in c.symbols()}
        return out

    def violated(self, values: dict):
        """The first fact a (partial) assignment breaks, as text, or ``None`` (facts over symbols it leaves
        open are not judged)."""
        for name, vals in self.finite.items():
            if name in values and values[name] not in vals:
                return f"{name} in {{{','.join(map(str, vals))}}}"
        for name in sorted(self.pow2):
            v = values.get(name)
            if v is not None and (type(v) is not int or v <= 0 or v & (v - 1)):
                return f"pow2({name})"
        for c in self.conditions:
            if {s.name for s in c.symbols()} <= set(values) and c.holds(values) is False:
                return str(c)
        return None

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
        return bool(self._facts or self.finite or self.pow2)

    def __repr__(self):
        return f"Assumptions({self.texts!r})"

    def key(self):
        """The facts' content as a hashable value (decisions are cached by it). Remembered against a stamp of
        the fact lists, which ``add`` and ``merged`` only ever extend or replace."""
        stamp = (len(self.texts), len(self._facts), id(self._facts), id(self.finite), len(self.finite),
                 tuple(sorted(self.pow2)))
        got = getattr(self, "_key", None)
        if got is not None and got[0] == stamp:
            return got[1]
        k = (tuple(sorted({_fact_text(c) for c in self._facts})), tuple(sorted(self.finite.items())),
             tuple(sorted(self.pow2)))
        self._key = (stamp, k)
        return k

    def poly_substitutions(self) -> list[dict]:
        """``substitutions`` as maps atom -> polynomial (``symbolic.poly``); a map whose expressions are no
        polynomials is left out (the sympy path still tries it)."""
        stamp = self.key()
        got = getattr(self, "_poly_subs", None)
        if got is not None and got[0] == stamp:
            return got[1]
        out = []
        for sub in self.substitutions():
            m = {}
            for s, e in sub.items():
                p = poly.to_poly(e)
                if p is None:
                    break
                m[s] = p
            else:
                out.append(m)
        self._poly_subs = (stamp, out)
        return out

    def poly_facts(self) -> list:
        """``[(kind, f)]`` for every comparison fact ``a REL b`` between polynomials (``symbolic.poly``):
        ``f = b - a`` with ``f == 0`` (eq), ``!= 0`` (ne), ``> 0`` (lt), ``>= 0`` (le)."""
        stamp = self.key()
        got = getattr(self, "_poly_facts", None)
        if got is not None and got[0] == stamp:
            return got[1]
        out = []
        for c in self.conditions:
            if c.kind in ("eq", "ne", "lt", "le"):
                pa, pb = poly.to_poly(c.a), poly.to_poly(c.b)
                if pa is not None and pb is not None:
                    f = poly.add(pb, pa, -1)
                    if f:
                        out.append((c.kind, f))
        self._poly_facts = (stamp, out)
        return out

    # -- re-parametrisations used by the cheap decisions --
    def substitutions(self) -> list[dict]:
        """Maps symbol -> expression in fresh symbols, each implied by the facts (sound to prove with)."""
        subs = []
        div: dict = {}
        low: dict = {}
        for c in self.conditions:
            if c.kind == "divides" and isinstance(c.b, sympy.Symbol) and type(int_or_none(c.a)) is int:
                div[c.b] = sympy.ilcm(div.get(c.b, 1), int_or_none(c.a))
            if c.kind == "le" and isinstance(c.b, sympy.Symbol) and type(int_or_none(c.a)) is int:
                low[c.b] = max(low.get(c.b, 1), int_or_none(c.a))
            if c.kind == "lt" and isinstance(c.b, sympy.Symbol) and type(int_or_none(c.a)) is int:
                low[c.b] = max(low.get(c.b, 1), int_or_none(c.a) + 1)
        for name, vals in self.finite.items():
            # a finite set's least value is a lower bound (a symbol in {8,16,...} is at least 8)
            if vals and min(vals) > 1:
                s = symbol(name)
                low[s] = max(low.get(s, 1), min(vals))
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




_INT_LITERAL = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _simple_term(text: str):
    """An integer literal as an int, a symbol name as a str (what ``parse_expr`` reads as an int or one
    ``symbol``), None for any other text (Python keywords included: ``parse_expr`` refuses or reads them
    otherwise)."""
    t = text.strip()
    if _INT_LITERAL.fullmatch(t):
        return int(t)
    if _NAME.fullmatch(t) and not keyword.iskeyword(t) and not keyword.issoftkeyword(t):
        return t
    return None


def _term(x):
    return symbol(x) if type(x) is str else x


_REL = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "divides": "|"}


def _fact_text(f) -> str:
    """``str(Condition)`` of a fact, built or not (a symbol prints as its name, an int in decimal)."""
    return f"{f[1]} {_REL[f[0]]} {f[2]}" if type(f) is tuple else str(f)


def _simple_satisfiable(asm: "Assumptions") -> bool:
    """True when some assignment of positive integers satisfies every fact of ``asm``, all of them simple
    (one symbol against an integer), finite sets and pow2; False when it cannot tell here (the general
    check then decides, and words a contradiction). Exact: the facts are independent per symbol, and each
    symbol's are a range, excluded values, a divisor, a finite set and pow2, searched by arithmetic."""
    lo: dict = {}
    hi: dict = {}
    excl: dict = {}
    div: dict = {}
    names = set(asm.finite) | set(asm.pow2)
    for kind, a, b in asm._facts:
        n, c = (a, b) if type(a) is str else (b, a)
        names.add(n)
        if kind == "divides":
            if c == 0:
                return False
            div[n] = math.lcm(div.get(n, 1), abs(c))
        elif kind == "ne":
            excl.setdefault(n, set()).add(c)
        else:
            low = high = None
            if kind == "eq":
                low = high = c
            elif type(a) is str:  # n <= c, n < c
                high = c - (kind == "lt")
            else:                 # c <= n, c < n
                low = c + (kind == "lt")
            if low is not None:
                lo[n] = max(lo.get(n, 1), low)
            if high is not None:
                hi[n] = min(hi[n], high) if n in hi else high
    for n in names:
        if not _one_satisfiable(max(lo.get(n, 1), 1), hi.get(n), excl.get(n, set()), div.get(n, 1),
                                asm.finite.get(n), n in asm.pow2):
            return False
    return True


def _one_satisfiable(lo: int, hi, excl: set, d: int, fin, pow2: bool) -> bool:
    """Is there an integer ``v`` with ``lo <= v`` (``lo >= 1``), ``v <= hi`` (None: no bound), ``v`` not in
    ``excl``, ``d | v``, ``v`` in ``fin`` (None: any) and, with ``pow2``, a power of two?"""
    def ok(v):
        return lo <= v and (hi is None or v <= hi) and v not in excl and v % d == 0 \
            and (not pow2 or v & (v - 1) == 0)
    if fin is not None:
        return any(ok(v) for v in fin)
    if pow2:
        if hi is None:  # 2**e for every large e: d must be a power of two; finitely many values are excluded
            return d & (d - 1) == 0
        return any(ok(1 << e) for e in range(hi.bit_length() + 1))
    v = -(-lo // d) * d  # the least multiple of d from lo; each excluded value skips at most one step
    for _ in range(len(excl) + 1):
        if hi is not None and v > hi:
            return False
        if v not in excl:
            return True
        v += d
    return False


#: exponents tried by ``_pow2_contradiction``; past it every univariate fact it reads has a constant truth value
_POW2_SCAN = 256


def _pow2_contradiction(asm: "Assumptions", name: str):
    """The texts of the facts about ``name`` alone that no power of two satisfies together, or None.

    Decided exactly for the facts it reads: ``d | c*name**k`` (true for ``2**e`` with ``e >= v2(d)`` when
    ``d``'s odd part divides ``c``, never otherwise) and comparisons of polynomials in ``name`` with integer
    coefficients below ``2**64`` (the sign of such a polynomial is constant once ``name`` passes its
    roots, below ``2**66``). Exponents ``0.._POW2_SCAN`` are tried; past them every such fact keeps the value it
    has at the last one, so none satisfying all of them there means none at all. A fact it cannot read (two
    symbols, a general divisibility) makes it give up (None): the Z3 check still runs."""
    s = symbol(name)
    mine, texts = [], []
    for c in asm.conditions:
        syms = c.symbols()
        if s not in syms:
            continue
        if syms != {s}:
            return None
        pa, pb = poly.to_poly(c.a), poly.to_poly(c.b)
        if pa is None or pb is None:
            return None
        for p in (pa, pb):
            if any(abs(v) >= (1 << 64) or v.denominator != 1 for v in p.values()):
                return None
        if c.kind == "divides" and not (len(pa) == 1 and () in pa and len(pb) == 1 and () not in pb):
            return None
        mine.append(c)
        texts.append(str(c))
    fin = asm.finite.get(name)
    if fin is not None:
        texts.append(f"{name} in {{{','.join(map(str, fin))}}}")
    if not texts:
        return None
    for e in range(_POW2_SCAN + 1):
        v = 1 << e
        if (fin is None or v in fin) and all(c.holds({name: v}) is True for c in mine):
            return None
    return texts


#: A bounded symbol is enumerated as a finite set when its range has at most this many values.
BOUNDED_LIMIT = 256


def bounds(assumptions: "Assumptions", name: str):
    """``(lo, hi)``: the integer bounds the facts put directly on the symbol ``name`` (``K <= 16``,
    ``K > 2``, ``K == 8``); ``lo`` is at least 1 (symbols are positive), ``hi`` is None when unbounded."""
    lo, hi = 1, None
    for c in assumptions.conditions:
        a, b = int_or_none(c.a), int_or_none(c.b)
        sa = isinstance(c.a, sympy.Symbol) and c.a.name == name
        sb = isinstance(c.b, sympy.Symbol) and c.b.name == name
        if c.kind in ("le", "lt"):
            k = 1 if c.kind == "lt" else 0
            if sb and a is not None:
                lo = max(lo, a + k)
            if sa and b is not None:
                hi = b - k if hi is None else min(hi, b - k)
        elif c.kind == "eq" and (sa and b is not None or sb and a is not None):
            v = b if sa else a
            lo, hi = max(lo, v), v if hi is None else min(hi, v)
    return lo, hi


def domain(assumptions: "Assumptions", name: str, limit: int = 4096):
    """The finite set of values ``name`` can take, or None: its finite set, or (a bounded symbol is a finite
    set) ``lo..hi`` from its bounds when there are at most ``limit`` of them, less the values that break its
    pow2 or integer-divisibility facts. A bounded pow2 symbol is the powers of two in ``lo..hi`` (``pow2(n),
    32 <= n <= 512`` is {32, 64, 128, 256, 512}), however wide the range, at most ``limit`` of them. A
    superset of the admissible values: callers still check ``holds``."""
    pool = assumptions.finite.get(name)
    if pool is not None:
        return pool
    lo, hi = bounds(assumptions, name)
    pow2 = name in assumptions.pow2
    if hi is None or (not pow2 and hi - lo + 1 > limit):
        return None
    divs = [int_or_none(c.a) for c in assumptions.conditions if c.kind == "divides" and int_or_none(c.a) is not None
            and isinstance(c.b, sympy.Symbol) and c.b.name == name and int_or_none(c.a) > 0]
    if pow2:
        # the powers of two in lo..hi: hi.bit_length() of them at most, never the whole range
        cands = [1 << e for e in range(max(hi, 0).bit_length()) if lo <= 1 << e <= hi]
        if len(cands) > limit:
            return None
        return tuple(v for v in cands if all(v % d == 0 for d in divs))
    return tuple(v for v in range(lo, hi + 1) if all(v % d == 0 for d in divs))


def bounded_names(assumptions: "Assumptions", names) -> list[str]:
    """The names among ``names`` that are finite only through their bounds (to say which were enumerated)."""
    return [n for n in names if n not in assumptions.finite and domain(assumptions, n) is not None]


def linked_names(assumptions: "Assumptions", names) -> list[str]:
    """``names`` and every symbol a chain of facts ties to them (``n == 2*m`` ties ``m`` to ``n``), sorted:
    the symbols whose facts decide which values of ``names`` are admissible."""
    out = set(names)
    conds = [{s.name for s in c.symbols()} for c in assumptions.conditions]
    grew = True
    while grew:
        grew = False
        for syms in conds:
            if syms & out and not syms <= out:
                out |= syms
                grew = True
    return sorted(out)


def finite_assignments(names, assumptions: "Assumptions", limit: int, exact: bool = False):
    """Every assignment of ``names`` (each in a finite set of ``assumptions``, or bounded: ``domain``) that
    satisfies them, or ``None`` when a name has no finite domain or there are more than ``limit`` candidates.

    The symbols facts tie to ``names`` (:func:`linked_names`) are enumerated with them when they have
    finite domains too, and the admissible assignments projected onto ``names``: then every fact filters
    the candidates and the result is exactly the admissible values of ``names``. When a tied symbol has no
    finite domain (or the product passes ``limit``) the facts over it are not judged and the result is a
    superset (sound for "for every admissible assignment" questions); ``exact=True`` answers None instead
    (an existential question, a counterexample, needs every value it returns to be admissible)."""
    names = list(names)
    linked = linked_names(assumptions, names)
    if len(linked) > len(names):
        full = _enumerate(linked, assumptions, limit)
        if full is not None:
            out, seen = [], set()
            for values in full:
                key = tuple(values[n] for n in names)
                if key not in seen:
                    seen.add(key)
                    out.append({n: values[n] for n in names})
            return out
        if exact:
            return None
    return _enumerate(names, assumptions, limit)


def _enumerate(names, assumptions, limit):
    pools = []
    total = 1
    for n in names:
        pool = domain(assumptions, n, min(limit, BOUNDED_LIMIT))
        if pool is None:
            return None
        pools.append(pool)
        total *= len(pool)
        if total > limit:
            return None
    out = []
    for combo in itertools.product(*pools):
        values = dict(zip(names, combo))
        if assumptions.holds(values):
            out.append(values)
    return out


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


