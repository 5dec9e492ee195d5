"""Assumptions about symbols (docs/model.md section 5.2): divisibility, bounds, relations, finite sets,
powers of two; their re-parametrisations and the one enumerator of finite assignments."""
from __future__ import annotations

import itertools
import re

from ..errors import ContradictoryAssumptions, ParseError
from . import smt
from .conditions import Condition
from .expr import _int, parse_expr, symbol
from .lazy import sympy


class Assumptions:
    """Facts about symbols, shared by the layouts of one problem.

    Text forms (one fact per string): ``M % 128 == 0`` or ``128 | M`` (divisibility), ``K >= 64``,
    ``K > 0``, ``M <= 4096``, ``M == 2*N`` (any relation between linear forms), ``N in {8,16,...,256}``
    (a finite set; ``a,b,...,z`` is an arithmetic progression), ``pow2(k)`` (a power of two).
    """

    def __init__(self, facts=()):
        self.conditions: list[Condition] = []
        self.finite: dict[str, tuple[int, ...]] = {}
        self.pow2: set[str] = set()
        self.texts: list[str] = []
        for f in facts:
            self.add(f)

    def add(self, fact: str) -> "Assumptions":
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




def finite_assignments(names, assumptions: "Assumptions", limit: int):
    """Every assignment of ``names`` (each in a finite set of ``assumptions``) that satisfies them, or
    ``None`` when a name has no finite set or there are more than ``limit`` candidates."""
    pools = []
    total = 1
    for n in names:
        pool = assumptions.finite.get(n)
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


