"""The cheap symbolic decisions behind the decision interface (docs/model.md section 5.3).

A decision is ``True`` only when it holds for every assignment that satisfies the assumptions, ``False``
only when it fails for every such assignment, and ``None`` otherwise. Methods, cheapest first: sympy's sign
and zero facts on polynomials; re-parametrising symbols by what the assumptions imply (``128 | M`` gives
``M = 128*m``, ``K >= 64`` gives ``K = 64 + k``); exhaustive evaluation over finite sets; a small Z3 query.
"""
from __future__ import annotations

from . import smt
from .assumptions import Assumptions, finite_assignments
from .conditions import Condition
from .lazy import sympy


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
    names = sorted({s.name for s in (a.free_symbols | b.free_symbols)})
    if not names:
        return None
    cases = finite_assignments(names, assumptions, 4096)
    if not cases:
        return None
    cond = Condition(kind, a, b)
    seen = {bool(cond.holds(values)) for values in cases}
    return seen.pop() if len(seen) == 1 else None
