"""The cheap symbolic decisions behind the decision interface (docs/model.md section 5.3).

A decision is ``True`` only when it holds for every assignment that satisfies the assumptions, ``False``
only when it fails for every such assignment, and ``None`` otherwise. Methods, cheapest first: sign and zero
tests on polynomials (exact arithmetic, ``symbolic.poly``; sympy only for what is no polynomial);
re-parametrising symbols by what the assumptions imply (``128 | M`` gives ``M = 128*m``, ``K >= 64`` gives
``K = 64 + k``, ``K in {8,16}`` gives ``K = 8 + k``); the facts themselves up to a constant factor; a few
small admissible assignments (true at one and false at another: undecided, no Z3 query); exhaustive
evaluation over finite sets; a small Z3 query (``smt.DECISION`` rlimit). Answers are cached per question
and content of the facts.
"""
from __future__ import annotations

import itertools

from . import poly, smt
from .assumptions import Assumptions, finite_assignments
from .conditions import Condition
from .lazy import sympy


def decide(kind: str, a, b, assumptions: Assumptions | None):
    if not isinstance(a, sympy.Basic):
        a = sympy.sympify(a)
    if not isinstance(b, sympy.Basic):
        b = sympy.sympify(b)
    # one decision per (question, facts): the pipeline and the algebra build fresh Assumptions objects with
    # the same facts for every stage and case, so the key is the facts' content, not the object
    key = (kind, a, b, assumptions.key() if assumptions else None)
    hit = _cache.get(key, _MISSING)
    if hit is not _MISSING:
        return hit
    r = _decide(kind, a, b, assumptions)
    if len(_cache) > 50000:
        _cache.clear()
    _cache[key] = r
    return r


_cache: dict = {}
_MISSING = object()


def _decide(kind, a, b, assumptions):
    pa, pb = poly.to_poly(a), poly.to_poly(b)
    if pa is not None and pb is not None:
        # exact polynomial arithmetic first: it decides most questions in microseconds where sympy takes
        # milliseconds; the same re-parametrisations as the sympy path, as polynomial substitutions
        r = _poly_direct(kind, pa, pb)
        if r is not None:
            return r
        if assumptions:
            r = _poly_subs_direct(kind, pa, pb, assumptions)
            if r is not None:
                return r
            r = _stated(kind, pa, pb, assumptions)
            if r is not None:
                return r
    seen = _sampled(kind, a, b, pa, pb, assumptions) if assumptions else set()
    if seen == {True, False}:
        return None  # true at one admissible assignment, false at another: nothing decides it
    if pa is None or pb is None or kind == "divides":
        # not polynomials, or divisibility of polynomials: sympy's exact division (``cancel``) decides what
        # the monomial test cannot (``2*q + 4 | (2*q + 4)**2``); sign and zero questions on polynomials
        # skip it (it would repeat the tests above)
        r = _direct(kind, a, b)
        if r is not None:
            return r
        if assumptions:
            # each substitution parametrises a superset of the valid assignments, so a definite answer over
            # it is a definite answer over them
            for sub in assumptions.substitutions():
                r = _direct(kind, a.subs(sub), b.subs(sub))
                if r is not None:
                    return r
    if assumptions:
        r = _finite(kind, a, b, assumptions)
        if r is not None:
            return r
        return smt.decide(kind, a, b, assumptions, skip=seen)
    return None


#: small values tried for each symbol before Z3 is asked (plus multiples of the facts' constants)
_SAMPLE_VALUES = (1, 2, 3, 4, 5, 8, 16, 64)


def _sampled(kind, a, b, pa, pb, assumptions: Assumptions):
    """The answers of the condition at a few small assignments that satisfy every fact (each symbol of the
    question and of the facts assigned): ``{True, False}`` means the question is undecided, and one answer
    seen means Z3 need not look for an assignment with that answer. Polynomials only (evaluated exactly)."""
    if pa is None or pb is None:
        return set()
    names = sorted({s.name for s in (a.free_symbols | b.free_symbols)} | assumptions.names())
    if len(names) > 3 or any(n.startswith("_") for n in names):
        return set()
    consts = set()
    for c in assumptions.conditions:
        for x in (c.a, c.b):
            if type(x) is int or getattr(x, "is_Integer", False):
                if 0 < int(x) <= 4096:
                    consts |= {int(x), 2 * int(x), 3 * int(x)}
    pools = []
    for n in names:
        fin = assumptions.finite.get(n)
        vals = list(fin[:6]) if fin is not None else sorted(set(_SAMPLE_VALUES) | consts)
        pools.append([v for v in vals if assumptions.violated({n: v}) is None][:10])
    seen = set()
    cond = Condition(kind, a, b)
    for combo in itertools.islice(itertools.product(*pools), 200):
        values = dict(zip(names, combo))
        if not assumptions.holds(values):
            continue
        h = cond.holds(values)
        if h is not None:
            seen.add(h)
            if len(seen) == 2:
                break
    return seen


def _poly_subs_direct(kind, pa, pb, assumptions):
    for sub in assumptions.poly_substitutions():
        r = _poly_direct(kind, poly.subs(pa, sub), poly.subs(pb, sub))
        if r is not None:
            return r
    return None


def _stated(kind, pa, pb, assumptions):
    """The question is a fact, or a fact's negation, up to a constant factor (``M/128 == 1`` under
    ``M != 128``; ``128 < M`` under ``M != 128`` once ``128 <= M`` is decided). A fact ``fa REL fb`` is read
    as ``f = fb - fa`` with ``f == 0`` / ``!= 0`` / ``> 0`` / ``>= 0``; ``d = lam*f`` with a constant ``lam``
    carries the sign fact to ``d``."""
    if kind == "divides":  # a sign fact says nothing about divisibility (8 < M does not make 8 | M)
        return None
    d = poly.add(pb, pa, -1)  # eq: zero iff b - a is; lt / le: b - a > 0 / >= 0
    if not d:
        return None
    nonzero = False
    for fkind, f in assumptions.poly_facts():
        lam = poly.ratio(d, f)
        if lam is None:
            continue
        if fkind == "eq":
            return kind != "lt"  # d == 0: eq and le hold, lt does not
        if fkind in ("ne", "lt"):
            nonzero = True  # f != 0, so d != 0
            if kind == "eq":
                return False
        if fkind == "lt":  # f > 0: d > 0 or d < 0 by the sign of lam
            return lam > 0
        if fkind == "le":  # f >= 0: d >= 0 (lam > 0) or d <= 0 (lam < 0); nothing about d != 0
            if lam < 0 and kind == "lt":
                return False
            if lam > 0 and kind == "le":
                return True
    if nonzero and kind == "lt":  # a <= b and a != b
        return True if _poly_direct("le", pa, pb) is True or \
            _poly_subs_direct("le", pa, pb, assumptions) is True else None
    if nonzero and kind == "le":  # b <= a and a != b: a <= b never holds
        return False if _poly_direct("le", pb, pa) is True or \
            _poly_subs_direct("le", pb, pa, assumptions) is True else None
    return None


def _poly_direct(kind, pa, pb):
    """The tests of ``symbolic.poly`` on two polynomials: True / False for every assignment, or None."""
    if kind == "divides":
        if not pa:
            return True if not pb else None
        if len(pa) == 1 and () in pa and (not pb or (len(pb) == 1 and () in pb)):
            ca, cb = pa[()], pb.get((), 0)
            if ca.denominator == 1 and cb.denominator == 1:
                return cb.numerator % ca.numerator == 0
            return None
        if pa == pb:
            return True
        r = poly.divides(pa, pb)
        if r is None and poly.sign(pb)[1] and poly.sign(poly.add(pa, pb, -1))[1]:
            return False  # 0 < b < a: no multiple of a
        if r is None and len(pa) == 1 and len(pb) == 1:
            (ma, ca), = pa.items()
            (mb, cb), = pb.items()
            if ma == mb and (cb / ca).denominator != 1 and poly.nonzero_monomial(ma):
                return False  # b == (cb/ca) * a with a != 0: never an integer multiple
        return r
    if kind in ("eq", "ne"):
        d = poly.add(pa, pb, -1)
        if not d:
            r = True
        else:
            _, pos, _, neg = poly.sign(d)
            r = False if (pos or neg) else None
        return r if r is None or kind == "eq" else not r
    d = poly.add(pb, pa, -1)
    nonneg, pos, nonpos, neg = poly.sign(d)
    if kind == "lt":
        return True if pos else False if nonpos else None
    if kind == "le":
        return True if nonneg else False if neg else None
    raise ValueError(kind)


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
    seen = {cond.holds(values) for values in cases}
    # None: a side is no integer there (``M/3`` at M = 1), which ``holds`` does not evaluate; never read
    # as False
    return seen.pop() if len(seen) == 1 and None not in seen else None
