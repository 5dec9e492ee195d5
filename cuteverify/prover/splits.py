"""Case splits of a symbolic claim (docs/model.md section 9, issue 19), each case proved by the structural
rules under the claim's hypotheses and the case's condition, and the instantiation of layouts at an
assignment that the splits and the pipeline's concrete stages use.

A claim is proved by a split only when every case is: the cases cover every admissible assignment (a case
whose layouts do not exist, an instantiation the layouts' own facts refuse, holds vacuously).
"""
from __future__ import annotations

from ..core.layout import Layout
from ..core.strides import ScaledBasis
from ..core.swizzle import ComposedLayout
from ..core.tuples import flatten
from ..errors import CuteVerifyError
from ..symbolic import Assumptions, bounded_names, decide, domain, finite_assignments, symbol, to_int
from ..symbolic.conditions import Condition
from ..symbolic.lazy import sympy
from . import tables
from .verdict import Verdict


def structural_under(q, layouts, extra, hyp):
    """The method name of a structural proof of query ``q`` under ``hyp``, or None; a step that had to
    record an obligation (assume what it could not decide) is no proof."""
    with decide.context(hyp) as recorded:
        before = len(recorded)
        try:
            m = q.structural(layouts, extra)
        except (CuteVerifyError, TypeError, ValueError, ZeroDivisionError):
            m = None
        if len(recorded) != before:
            m = None
    return m


def substitute(L, values):
    """The layout ``L`` (plain or composed, the outer function included) with the symbols of ``values``
    replaced by their values; admissible for every layout the prover handles; the result is a layout of the
    same kind, concrete where ``values`` covers every symbol."""
    if hasattr(L, "outer"):
        off = L.offset
        if isinstance(off, sympy.Basic):
            off = to_int(off, values)
            if off is None:
                off = L.offset
        # a layout as the outer function (CuTe's general composed layout) has symbols of its own
        inner = substitute(L.inner, values) if isinstance(L.inner, Layout) and L.inner.free_symbols() else L.inner
        return ComposedLayout(inner, off, substitute(L.outer, values))
    fast = _subs_plain(L, values)
    return fast if fast is not None else L.subs(values)


def _subs_plain(L, values):
    """``L.subs(values)`` for a full assignment by the exact polynomial evaluation of ``to_int`` (no sympy
    substitution per entry), or None where ``Layout.subs`` must run: an entry that is no integer there, a
    negative extent, a broken assumption or obligation (its errors), or a printed-form obligation (its
    re-canonicalization of kept unit modes)."""
    names = set(values)
    if L.assumptions is not None and L.assumptions.violated(values) is not None:
        return None
    for o in L.obligations:
        cond = getattr(o, "condition", None)
        if getattr(o, "canonical", False) or not hasattr(cond, "symbols"):
            return None
        if not {x.name for x in cond.symbols()} <= names or cond.holds(values) is not True:
            return None

    open_ = []

    def sub(x):
        if type(x) is int:
            return x
        if type(x) is tuple:
            return tuple(sub(e) for e in x)
        if hasattr(x, "path"):
            return ScaledBasis(sub(x.value), x.path)
        if isinstance(x, sympy.Basic):
            v = to_int(x, values)
            if v is None:
                open_.append(x)
            return v
        return x

    shape, stride = sub(L.shape), sub(L.stride)
    if open_ or any(x < 0 for x in flatten(shape)):
        return None
    return Layout(shape, stride, assumptions=L.assumptions, notes=L.notes)


def stage_partial(c):
    """Stage 3b: a case split over the symbols with finite domains (finite sets, bounds) when others have
    none: each assignment of the finite ones is substituted and the rest proved structurally under the
    hypotheses and that assignment; a proof only when every case is proved. An assignment where an
    obligation of the layouts is false is no case of the claim (the layouts do not exist there)."""
    fin = [n for n in c.names if domain(c.hyp, n) is not None]
    if not fin or len(fin) == len(c.names):
        return None
    cases = finite_assignments(fin, c.hyp, tables.PARTIAL_LIMIT)
    if not cases:
        return None
    methods = set()
    for values in cases:
        try:
            ls = [substitute(L, values) for L in c.layouts]
        except CuteVerifyError:
            continue
        hyp = c.hyp.merged(Assumptions([Condition("eq", symbol(k), v) for k, v in values.items()]))
        m = structural_under(c.q, ls, _subs_extra_partial(c.extra, values), hyp)
        if not m:
            return None
        methods.add(m)
    if not methods:
        return None
    bounded = bounded_names(c.hyp, fin)
    how = f" (bounded, so finite: {', '.join(bounded)})" if bounded else ""
    return Verdict("proved", method=f"case split over {', '.join(fin)}{how}, {len(cases)} cases: "
                   + ", ".join(sorted(methods)))


def _subs_extra_partial(extra, values):
    """The query's extra arguments with some symbols substituted (the others stay symbolic)."""
    m = {sympy.Symbol(k, integer=True, positive=True): v for k, v in values.items()}

    def sub(v):
        if isinstance(v, dict):
            return {k: sub(x) for k, x in v.items()}
        if type(v) is tuple:
            return tuple(sub(x) for x in v)
        if isinstance(v, sympy.Basic):
            r = v.subs(m)
            return int(r) if r.is_Integer else r
        return v

    return None if extra is None else sub(extra)


def stage_unit_split(c):
    """Stage 3c: a size symbol ``X`` (a whole shape entry) not known to exceed 1 is split into ``X == 1``
    (substituted: its mode vanishes, and the order of the others may change) and ``X >= 2``; proved when
    both cases are. ``(K,M/4,N):(N,2,1)`` is onto its range for every ``N``: by the chain ``1, 2, N`` where
    ``N >= 2``, by ``K:1`` then ``2`` where ``N == 1``. Valid for every query whose structural rule is
    (the cases cover the positive integers)."""
    sizes = []
    for L in c.layouts:
        outer = L.outer if hasattr(L, "outer") else L
        for x in flatten(outer.shape):
            if isinstance(x, sympy.Symbol) and x.name in c.names and x.name not in sizes:
                sizes.append(x.name)
    with decide.context(c.hyp):
        open_ = [n for n in sizes if decide.le(2, symbol(n)) is None]  # known either way: no split
    for name in open_[:tables.UNIT_SPLITS]:
        X = symbol(name)
        at_least_2 = c.hyp.merged(Assumptions([Condition("le", 2, X)]))
        m2 = structural_under(c.q, c.layouts, c.extra, at_least_2)
        if not m2:
            continue
        try:
            ls = [substitute(L, {name: 1}) for L in c.layouts]
        except CuteVerifyError:
            ls = None  # the layouts do not exist at X == 1: that case holds vacuously
        if ls is not None:
            one = c.hyp.merged(Assumptions([Condition("eq", X, 1)]))
            m1 = structural_under(c.q, ls, _subs_extra_partial(c.extra, {name: 1}), one)
            if not m1:
                continue
        else:
            m1 = "no layout"
        return Verdict("proved", method=f"case split {name} == 1 ({m1}) / {name} >= 2 ({m2})")
    return None
