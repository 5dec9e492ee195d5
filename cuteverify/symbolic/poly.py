"""A small exact polynomial representation for the cheap decisions (docs/model.md section 5.3).

Most questions the algebra asks are about polynomials with rational coefficients in a few positive integer
symbols (``M/8 - 1``, ``128*q - M``). sympy answers them, but slowly (``together``, ``expand`` and its
assumption system cost milliseconds per question); here the same expressions become dictionaries
``{monomial: Fraction}`` (a monomial is a sorted tuple of ``(atom, exponent)``) and the decisions are plain
arithmetic on them. Anything that is not such a polynomial (floor, Mod, a symbol in a denominator) gives
``None`` and the caller falls back to sympy.

An atom is a symbol or ``b**e`` with an integer base ``b >= 1`` and a non-negative integer exponent (the
re-parametrisation ``M = 2**e`` of a pow2 symbol); each atom carries the least value it can take (1 for a
positive symbol and for ``b**e``, 0 for a non-negative one). Every decision here is a sufficient test:

- ``p >= 0`` for every admissible assignment when, after shifting each atom by its least value
  (``x = lo + y`` with ``y >= 0``), every coefficient is ``>= 0``; ``p > 0`` when in addition the constant
  term is ``> 0``. Sound because a polynomial with non-negative coefficients is non-negative at
  non-negative arguments. Atoms are treated as independent variables, which only weakens the test.
- ``p == 0`` when the polynomial is identically zero.
- ``c*m | p`` (``c`` a rational, ``m`` a monomial, ``c*m`` an integer) when every term of ``p`` is a
  multiple of ``m`` whose coefficient is an integer multiple of ``c``: then ``p / (c*m)`` is an integer
  polynomial in integer atoms.
"""
from __future__ import annotations

from fractions import Fraction

from .lazy import sympy

_ONE = ()


def _atom_lo(e):
    """The least value of an atom (None: not an atom we bound)."""
    if e.is_Symbol:
        if e.is_integer is not True:
            return None
        if e.is_positive is True:
            return 1
        if e.is_nonnegative is True:
            return 0
        return None
    if e.is_Pow and e.base.is_Integer and int(e.base) >= 1 and e.exp.is_integer is True \
            and e.exp.is_nonnegative is True:
        return 1
    return None


_cache: dict = {}
_LO: dict = {}  # atom -> least value


def to_poly(e):
    """``{monomial: Fraction}`` for an int or a sympy polynomial in bounded atoms, or None."""
    if type(e) is int:
        return {_ONE: Fraction(e)} if e else {}
    try:
        hit = _cache.get(e, _MISS)
    except TypeError:
        return None
    if hit is not _MISS:
        return hit
    p = _build(e)
    if len(_cache) > 100000:
        _cache.clear()
    _cache[e] = p
    return p


_MISS = object()


def _build(e):
    """The polynomial of ``e``, or None (not a polynomial in bounded atoms)."""
    if type(e) is int:
        return {_ONE: Fraction(e)} if e else {}
    if not isinstance(e, sympy.Basic):
        return None
    if e.is_Rational:
        return {_ONE: Fraction(int(e.p), int(e.q))} if e != 0 else {}
    lo = _atom_lo(e)
    if lo is not None:
        _LO[e] = lo
        return {((e, 1),): Fraction(1)}
    if e.is_Add:
        out: dict = {}
        for t in e.args:
            p = _build(t)
            if p is None:
                return None
            _addto(out, p)
        return out
    if e.is_Mul:
        out = {_ONE: Fraction(1)}
        for t in e.args:
            p = _build(t)
            if p is None:
                return None
            out = mul(out, p)
        return out
    if e.is_Pow and e.exp.is_Integer and int(e.exp) >= 0:
        base = _build(e.base)
        if base is None:
            return None
        out = {_ONE: Fraction(1)}
        for _ in range(int(e.exp)):
            out = mul(out, base)
        return out
    return None


def _addto(out, p, scale=1):
    for m, c in p.items():
        v = out.get(m, 0) + c * scale
        if v:
            out[m] = v
        else:
            out.pop(m, None)


def add(p, q, scale=1):
    out = dict(p)
    _addto(out, q, scale)
    return out


def _mono_mul(m1, m2):
    if not m1:
        return m2
    if not m2:
        return m1
    d = dict(m1)
    for a, k in m2:
        d[a] = d.get(a, 0) + k
    return tuple(sorted(d.items(), key=lambda x: _key(x[0])))


def _key(atom):
    return str(atom)


def mul(p, q):
    out: dict = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            m = _mono_mul(m1, m2)
            v = out.get(m, 0) + c1 * c2
            if v:
                out[m] = v
            else:
                out.pop(m, None)
    return out


def subs(p, mapping):
    """``p`` with atoms replaced by polynomials (``mapping``: atom -> polynomial)."""
    out: dict = {}
    for m, c in p.items():
        term = {_ONE: c}
        for a, k in m:
            r = mapping.get(a)
            if r is None:
                term = mul(term, {((a, k),): Fraction(1)})
            else:
                for _ in range(k):
                    term = mul(term, r)
        _addto(out, term)
    return out


def atoms(p):
    out = set()
    for m in p:
        for a, _ in m:
            out.add(a)
    return out


def shifted(p):
    """``p`` with every atom ``x`` replaced by ``lo + x`` (its least value ``lo``): the coefficients of the
    result speak for every admissible assignment (the new atoms range over the non-negative integers)."""
    mapping = {}
    for a in atoms(p):
        lo = _LO.get(a)
        if lo is None:
            return None
        if lo:
            mapping[a] = {_ONE: Fraction(lo), ((a, 1),): Fraction(1)}
    return subs(p, mapping) if mapping else p


def sign(p):
    """``(nonneg, pos, nonpos, neg)``, each True only when it holds for every admissible assignment."""
    s = shifted(p)
    if s is None:
        return (False, False, False, False)
    if not s:
        return (True, False, True, False)
    const = s.get(_ONE, 0)
    nonneg = all(c >= 0 for c in s.values())
    nonpos = all(c <= 0 for c in s.values())
    return (nonneg, nonneg and const > 0, nonpos, nonpos and const < 0)


def divides(a, b):
    """True when ``a | b`` for every assignment by the monomial test of the module docstring, else None."""
    if not b:
        return True
    if len(a) != 1:
        return None
    (m, c), = a.items()
    if c == 0:
        return None
    md = dict(m)
    for mb, cb in b.items():
        if (cb / c).denominator != 1:
            return None
        db = dict(mb)
        if any(db.get(x, 0) < k for x, k in md.items()):
            return None
    return True


def ratio(d, f):
    """The constant ``lam`` with ``d == lam*f`` (both nonzero polynomials), or None."""
    if not f or len(d) != len(f):
        return None
    lam = None
    for m, c in d.items():
        cf = f.get(m)
        if cf is None:
            return None
        q = c / cf
        if lam is None:
            lam = q
        elif q != lam:
            return None
    return lam


def nonzero_monomial(m):
    """A monomial whose atoms are all at least 1 is never 0."""
    return all(_LO.get(a, 0) >= 1 for a, _ in m)


def evaluate(p, values):
    """The value at an assignment ``{symbol name: int}`` as a Fraction, or None if an atom is left open."""
    total = Fraction(0)
    for m, c in p.items():
        t = c
        for a, k in m:
            v = _atom_value(a, values)
            if v is None:
                return None
            t *= v ** k
        total += t
    return total


def _atom_value(a, values):
    if a.is_Symbol:
        v = values.get(a.name)
        # an assignment names the positive integer symbols of the expressions (``expr.symbol``); a symbol
        # of another kind with the same name is not the one assigned
        return None if v is None or not _canonical(a) else int(v)
    e = _atom_value(a.exp, values) if a.exp.is_Symbol else None
    return None if e is None else int(a.base) ** e


_CANON: dict = {}


def _canonical(a):
    ok = _CANON.get(a)
    if ok is None:
        ok = _CANON[a] = a == sympy.Symbol(a.name, integer=True, positive=True)
    return ok


_compiled: dict = {}
_NOT_INT = object()


def int_at(e, values):
    """The value of the sympy expression ``e`` at a full assignment ``{name: int}`` by integer arithmetic:
    an int, ``NOT_INT`` where it is a fraction there, or None where this path does not apply (no polynomial
    in the canonical symbols, or a symbol left open: the caller substitutes with sympy)."""
    c = _compiled.get(e, _MISS)
    if c is _MISS:
        c = _compile(e)
        if len(_compiled) > 100000:
            _compiled.clear()
        _compiled[e] = c
    if c is None:
        return None
    den, terms = c
    total = 0
    for coef, mono in terms:
        t = coef
        for name, k in mono:
            v = values.get(name)
            if v is None:
                return None
            t *= v ** k if k != 1 else v
        total += t
    if den == 1:
        return total
    q, r = divmod(total, den)
    return _NOT_INT if r else q


NOT_INT = _NOT_INT


def _compile(e):
    p = to_poly(e)
    if p is None:
        return None
    den = 1
    for c in p.values():
        den = den * c.denominator // _gcd(den, c.denominator)
    terms = []
    for m, c in p.items():
        mono = []
        for a, k in m:
            if not a.is_Symbol or not _canonical(a):
                return None
            mono.append((a.name, k))
        terms.append((int(c * den), tuple(mono)))
    return den, terms


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a
