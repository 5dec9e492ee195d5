"""The prover's queries: injective, surjective, bijective, equal, complement-disjoint (docs/model.md section 9).

Each query is a ``pipeline.Query``: its concrete exact procedure (``exact``), its re-check of a refutation
(``recheck``), its structural rule for symbolic layouts (``structural``) and its Z3 encoding (``z3query``);
``pipeline.run`` runs the stages. Every answer is a ``Verdict``; a refutation's ``Counterexample`` is
re-checked on the concrete layouts before it is reported.
"""
from __future__ import annotations

import time
from dataclasses import replace

from ..algebra import complement
from ..algebra import filter as _filter
from ..algebra.coord import is_coordinate
from ..core.layout import Layout, cosize, make_layout
from ..core.notation.interop import as_layout
from ..core.notation.parse import as_assumptions, check_assumption_names
from ..core.strides import F2
from ..core.tuples import flatten, product
from ..errors import ContradictoryAssumptions, CuteVerifyError, NotAdmissibleError, Unsupported
from ..symbolic import decide, parse_expr
from ..symbolic.lazy import sympy
from . import composed, exact, recheck, structural, z3query
from . import f2 as xor
from .forms import F2_KINDS, decompose
from .intlin import Flat
from .pipeline import INTERNAL, Query, assumptions_of, obligations_of, run
from .tables import unknown
from .verdict import Mismatch, OutOfRange, Overlap, Verdict


class Injective(Query):
    """Distinct indices of ``[0, size)`` map to distinct values (every form kind)."""
    name = "injective"

    def concrete(self, ls, extra):
        return exact.injective(decompose(ls[0]))

    def recheck(self, ls, extra, cex):
        return recheck.collision(ls[0], cex)

    def structural(self, ls, extra):
        return structural.sym_injective(decompose(ls[0]))

    def z3(self, ls, extra, hyp):
        return z3query.z3_injective(decompose(ls[0]), hyp)


class Surjective(Query):
    """Every value of the codomain is reached: ``[0, n)``, or for coordinate layouts a box."""
    name = "surjective"

    def _codomain(self, L, f, extra):
        n = (extra or {}).get("codomain")
        f = composed.effective(f)
        if f.kind == "composed":
            return product(n) if type(n) is tuple else n if n is not None else composed.codomain(f)
        if f.kind == "coord":
            return exact.coord_extents(f) if n is None else structural.coord_codomain(n)
        if type(n) is tuple:
            n = product(n)
        if n is not None:
            return n
        # the default: one past the largest value (cosize for non-negative integer strides)
        if f.kind in F2_KINDS:
            return xor.f2_form_codomain(f)
        if f.kind == "int":
            return Flat(f.shapes, f.strides).value_range()[1] + 1
        m = exact.largest_value(L)  # on the index bits, where the swizzled layout is F2-affine
        if m is not None:
            return m + 1
        if Flat(f.shapes, f.strides).size <= (1 << 20):  # a swizzle's largest value: from its table
            return max(L.values()) + 1
        raise Unsupported("a large swizzled layout needs an explicit codomain")

    def concrete(self, ls, extra):
        L = ls[0]
        f = decompose(L)
        return exact.surjective(f, self._codomain(L, f, extra), L)

    def recheck(self, ls, extra, cex):
        L = ls[0]
        return recheck.missed(L, cex, self._codomain(L, decompose(L), extra))

    def structural(self, ls, extra):
        return structural.sym_surjective(decompose(ls[0]), (extra or {}).get("codomain"))

    def z3(self, ls, extra, hyp):
        """Int forms only: the codomain (the default: one past the largest value, for non-negative strides)
        must have the layout's size; then injective + inside ``[0, n)`` is onto."""
        f = decompose(ls[0])
        n = (extra or {}).get("codomain")
        if f.kind != "int" or type(n) is tuple:
            return unknown("no Z3 encoding of surjectivity for this layout")
        size = product(ls[0].shape)
        with decide.context(hyp):
            if n is None:
                if not all(decide.le(0, d) is True for d in f.strides):
                    return unknown("no Z3 encoding of surjectivity with strides not known to be non-negative")
                n = 1 + sum((s - 1) * d for s, d in zip(f.shapes, f.strides))
            same = decide.eq(size, n)
        if same is not True:
            return unknown("surjectivity by Z3 needs size == codomain, which was not proved")
        v = _z3_onto(f, n, hyp)
        return v if v is not None else unknown("Z3 did not prove the layout injective inside [0, codomain)", "z3")


def _both(m1, v: Verdict) -> Verdict:
    """A proof of two parts names both methods (once, when they are the same)."""
    if v.status == "proved":
        return replace(v, method=m1 if m1 == v.method else f"{m1} + {v.method}")
    return v


class Bijective(Query):
    """A bijection onto ``[0, size)`` (coordinate layouts: onto the box of each coordinate's size)."""
    name = "bijective"

    def concrete(self, ls, extra):
        L = ls[0]
        f = composed.effective(decompose(L))
        v = exact.injective(f)
        if v.status != "proved":
            return v
        n = exact.coord_sizes(f) if f.kind == "coord" else recheck.size(L)
        if f.kind == "int":
            # an integer value outside [0, size): the extreme digits of the strides' signs reach it
            flat = Flat(f.shapes, f.strides)
            lo, hi = flat.value_range()
            if lo < 0 or hi >= n:
                want_max = hi >= n
                digits = [(s - 1) if ((d > 0) == want_max and d != 0) else 0 for s, d in zip(f.shapes, f.strides)]
                return Verdict("refuted", method=v.method + " + value-range",
                               counterexample=OutOfRange(coords=(flat.index(digits),)))
        return _both(v.method, exact.surjective(f, n, L))

    def recheck(self, ls, extra, cex):
        L = ls[0]
        if cex.kind == "collision":
            return recheck.collision(L, cex)
        if cex.kind == "out-of-range":
            return recheck.out_of_range(L, cex, recheck.size(L))
        f = decompose(L)
        return recheck.missed(L, cex, exact.coord_sizes(f) if f.kind == "coord" else recheck.size(L))

    def structural(self, ls, extra):
        f = decompose(ls[0])
        m1 = structural.sym_injective(f)
        if not m1:
            return None
        if f.kind == "coord":
            m2 = structural.sym_surjective(f, None, sizes=True)
        else:
            m2 = structural.sym_surjective(f, product(ls[0].shape))
        return m2 and (m1 if m1 == m2 else f"{m1} + {m2}")

    def z3(self, ls, extra, hyp):
        f = decompose(ls[0])
        if f.kind in ("int", "swizzle"):
            v = _z3_onto(f, product(ls[0].shape), hyp)
            if v is not None:
                return v
        v = z3query.z3_injective(f, hyp)
        if v.status == "proved":
            return unknown("injective (Z3) but surjectivity onto [0, size) was not proved", "z3")
        return v


def _z3_onto(f, n, hyp):
    """The Z3 proof that ``[0, n)`` is the image of an int or swizzle form (``z3query.z3_onto``), or None.
    A swizzle form needs offset 0 and its block dividing ``n`` (``structural.swizzle_block``), decided
    under the hypotheses."""
    if f.kind == "swizzle":
        with decide.context(hyp):
            if decide.is_zero(f.offset) is not True or \
                    decide.divides(structural.swizzle_block(f.swizzle), n) is not True:
                return None
    v = z3query.z3_onto(f, n, hyp)
    return v if v.status == "proved" else None


class Equal(Query):
    """The same function on ``[0, size)``; different sizes are different functions."""
    name = "equal"

    def concrete(self, ls, extra):
        A, B = ls
        na, nb = recheck.size(A), recheck.size(B)
        if na != nb:
            # different domains: not the same function (the size is part of a layout)
            return Verdict("refuted", method="sizes", counterexample=Mismatch(
                values=(na, nb), note=f"the sizes differ ({na} != {nb})"))
        return exact.equal(decompose(A), decompose(B), A, B)

    def recheck(self, ls, extra, cex):
        if cex.kind == "mismatch":
            return recheck.size(ls[0]) != recheck.size(ls[1])
        return recheck.differ(ls[0], ls[1], cex)

    def structural(self, ls, extra):
        A, B = ls
        if decide.eq(product(A.shape), product(B.shape)) is not True:
            return None
        return structural.sym_equal(decompose(A), decompose(B))

    def z3(self, ls, extra, hyp):
        # the Z3 encoding compares the layouts on their common domain only: it proves equality only once
        # the sizes are known to be equal
        A, B = ls
        with decide.context(assumptions_of(ls)):
            same = decide.eq(product(A.shape), product(B.shape))
        if same is not True:
            return unknown("the sizes are not proved equal, and equality needs equal sizes", "z3")
        return z3query.z3_equal(decompose(A), decompose(B), hyp)


class Disjoint(Query):
    """``complement_disjoint``: ls = (A, R, (A, R)); images of A and R meet only at 0 and (A, R) covers
    ``[0, cotarget)``, proved as: (A, R) is injective and onto ``[0, cotarget)``."""
    name = "disjoint"

    def concrete(self, ls, extra):
        A, Rc, AR = ls
        f = decompose(AR)
        v = exact.injective(f)
        if v.status == "refuted":
            return self._overlap(A, Rc, v)
        if v.status != "proved":
            return v
        r = exact.surjective(f, extra["cotarget"], AR)
        if r.status == "refuted":
            note = "(A, complement) does not cover [0, cotarget)"
            r = replace(r, counterexample=replace(r.counterexample, note=note))
        return _both(v.method, r)

    @staticmethod
    def _overlap(A, Rc, v):
        """(A, R) collides: look for a non-zero value both images share, directly."""
        if recheck.size(A) * recheck.size(Rc) > (1 << 22):
            return unknown("(A, complement) is not injective; no shared value searched", v.method)
        ia = {}
        for i, x in enumerate(recheck.int_values(A)):
            ia.setdefault(x, i)
        for j, x in enumerate(recheck.int_values(Rc)):
            if x != 0 and x in ia:
                return Verdict("refuted", method="enumeration",
                               counterexample=Overlap(coords=(ia[x], j), value=x))
        return unknown("images meet only at 0 but (A, complement) is not injective", "enumeration")

    def recheck(self, ls, extra, cex):
        A, Rc, AR = ls
        if cex.kind == "overlap":
            i, j = cex.coords
            va, vr = A(i), Rc(j)
            ok = va == vr and va != 0 and 0 <= i < recheck.size(A) and 0 <= j < recheck.size(Rc)
            return replace(cex, values=(va, vr)) if ok else False
        return recheck.missed(AR, cex, extra["cotarget"])

    def structural(self, ls, extra):
        f = decompose(ls[2])
        m1 = structural.sym_injective(f)
        if not m1:
            return None
        m2 = structural.sym_surjective(f, extra["cotarget"])
        return m2 and (m1 if m1 == m2 else f"{m1} + {m2}")

    def z3(self, ls, extra, hyp):
        f = decompose(ls[2])
        if f.kind == "int":
            # (A, R) of the cotarget's size, injective with every value inside [0, cotarget): onto it
            with decide.context(hyp):
                same = decide.eq(product(ls[2].shape), extra["cotarget"])
            if same is True:
                v = _z3_onto(f, extra["cotarget"], hyp)
                if v is not None:
                    return v
        v = z3query.z3_injective(f, hyp)
        if v.status == "proved":
            return unknown("disjoint (Z3) but covering [0, cotarget) was not proved", "z3")
        if v.status == "refuted":
            return unknown("(A, complement) collides; no shared value searched symbolically", "z3")
        return v


# --- public API ---------------------------------------------------------------------------------------------

def _per_piece(query, pw, claim, **kw) -> Verdict:
    """A claim about a ``decide.Piecewise`` result: proved where it is proved for every piece (each under its
    own case and obligations), refuted by a piece's refutation (its assignment satisfies that case), else
    unknown with the first piece that is not proved."""
    t0 = time.perf_counter()
    methods, first_unknown, obligations = [], None, []
    for piece in pw:
        v0 = piece.value
        case = " and ".join(map(str, piece.conditions))
        if not isinstance(v0, (Layout,)):
            return Verdict("unknown", claim=claim, method="case split", reason=f"where {case}: {v0}",
                           elapsed=time.perf_counter() - t0)
        L = Layout(v0.shape, v0.stride, obligations=tuple(v0.obligations) + tuple(
            o for o in piece.obligations if o not in v0.obligations), assumptions=piece.assumptions)
        v = query(L, **kw)
        if v.status == "refuted":
            return replace(v, method=f"case {case}: {v.method}")
        if v.status == "unknown" and first_unknown is None:
            first_unknown = (case, v)
        methods.append(f"{case}: {v.method}")
        # a piece proved where its obligations hold: all pieces' obligations together are a sound (if
        # stronger) condition for the whole
        obligations += [o for o in v.obligations if o not in obligations]
    if first_unknown is not None:
        case, v = first_unknown
        return Verdict("unknown", claim=claim, method="case split", reason=f"where {case}: {v.reason}",
                       elapsed=time.perf_counter() - t0)
    return Verdict("proved", claim=claim, method="case split (" + "; ".join(methods) + ")",
                   obligations=obligations, elapsed=time.perf_counter() - t0)


def is_injective(layout, *, assume=None) -> Verdict:
    """Distinct coordinates of ``[0, size)`` map to distinct values (a ``decide.Piecewise``: per piece)."""
    if isinstance(layout, decide.Piecewise):
        return _per_piece(is_injective, layout, f"injective({layout})")
    L = as_layout(layout, assume=assume)
    return run(f"injective({L})", [L], Injective())


def is_surjective(layout, codomain=None, *, assume=None) -> Verdict:
    """Every value of ``[0, codomain)`` is reached (default: ``[0, cosize)``). For coordinate layouts the
    codomain is a box: a shape (one extent per coordinate) or, by default, each coordinate's ``max + 1``.
    A ``decide.Piecewise`` is decided per piece."""
    if isinstance(layout, decide.Piecewise):
        return _per_piece(is_surjective, layout, f"surjective({layout})", codomain=codomain)
    L = as_layout(layout, assume=assume)
    cd = codomain
    if isinstance(cd, str):
        cd = parse_expr(cd)
    for c in (cd if isinstance(cd, tuple) else (cd,)):
        if type(c) is int and c <= 0:
            raise NotAdmissibleError("surjective", f"the codomain must be a positive size, got {c}")
    extra = {"codomain": cd}
    return run(f"surjective({L}" + (f", {cd})" if cd is not None else ")"), [L], Surjective(), extra,
                  extra_exprs=[cd])


def is_bijective(layout, *, assume=None) -> Verdict:
    """A bijection onto ``[0, size)`` (coordinate layouts: onto the box of each coordinate's size); a
    ``decide.Piecewise`` per piece."""
    if isinstance(layout, decide.Piecewise):
        return _per_piece(is_bijective, layout, f"bijective({layout})")
    L = as_layout(layout, assume=assume)
    return run(f"bijective({L})", [L], Bijective())


def are_equal(a, b, *, assume=None) -> Verdict:
    """The same function on ``[0, size)``; layouts of different sizes are refuted (the sizes are the
    witness). A ``decide.Piecewise`` side is decided per piece; with two piecewise sides, per pair of pieces,
    where a pair whose cases exclude each other holds vacuously (its domain is empty)."""
    if isinstance(a, decide.Piecewise):
        return _per_piece(lambda L: _equal_in_case(L, b, assume), a, f"{a} == {b}")
    if isinstance(b, decide.Piecewise):
        return _per_piece(lambda L: _equal_in_case(a, L, assume), b, f"{a} == {b}")
    A, B = as_layout(a, "layout A", assume=assume), as_layout(b, "layout B", assume=assume)
    return run(f"{A} == {B}", [A, B], Equal())


def _equal_in_case(a, b, assume) -> Verdict:
    """``are_equal`` inside one piece's case; the user's own facts were found consistent when they were read,
    so a contradiction here comes from two cases that exclude each other: no assignment reaches the pair."""
    try:
        return are_equal(a, b, assume=assume)
    except ContradictoryAssumptions:
        if isinstance(a, decide.Piecewise) or isinstance(b, decide.Piecewise) or assume is not None:
            raise
        return Verdict("proved", claim=f"{a} == {b}", method="empty case (the two cases exclude each other)")


def complement_disjoint(a, cotarget=None, *, assume=None) -> Verdict:
    """``R = complement(A, cotarget)``: ``image(A)`` and ``image(R)`` meet only at 0 and ``(A, R)`` covers
    ``[0, cotarget)`` (proved via: ``(A, R)`` injective and onto ``[0, cotarget)``)."""
    if isinstance(cotarget, str):
        cotarget = parse_expr(cotarget)
    if assume is not None and isinstance(a, str) and not hasattr(assume, "conditions"):
        # the cotarget may carry symbols of its own: check the names against both, then share
        assume = as_assumptions(assume)
        text, a = a, as_layout(a, assume=assume)
        check_assumption_names(assume, {s.name for s in a.free_symbols()} |
                               {s.name for s in getattr(cotarget, "free_symbols", ())}, text)
    A = as_layout(a, assume=assume)
    if cotarget is None:
        cotarget = cosize(A)
    claim = f"disjoint({A}, {cotarget})"
    t0 = time.perf_counter()
    if is_coordinate(A.outer if hasattr(A, "outer") else A):
        # the query's codomain is [0, cotarget) of the integers; a coordinate complement's post-condition is
        # per axis (algebra.complement._complement_coord), not this claim
        return Verdict("unknown", claim=claim, method="algebra", reason="disjoint is decided for integer "
                       "codomains; A has coordinate (E<i>) strides", obligations=obligations_of([A]),
                       elapsed=time.perf_counter() - t0)
    try:
        Rc = complement(A, cotarget)
        # image(filter(A)) == image(A): broadcast (stride-0) modes do not make the images overlap. Not with F2
        # strides: filter may drop A's last F2 mode (size 1) and so change the stride domain of (A, R)
        AR = make_layout(A if _has_f2(A) else _filter(A), Rc)
    except CuteVerifyError as e:  # no complement, or (A, R) mixes stride domains: no claim to decide
        return Verdict("unknown", claim=claim, method="algebra", reason=str(e),
                       obligations=obligations_of([A]), elapsed=time.perf_counter() - t0)
    AR = Layout(AR.shape, AR.stride, obligations=AR.obligations, assumptions=Rc.assumptions or A.assumptions)
    Rc = Layout(Rc.shape, Rc.stride, obligations=Rc.obligations, assumptions=Rc.assumptions or A.assumptions)
    v = run(claim, [A, Rc, AR], Disjoint(), {"cotarget": cotarget},
            extra_exprs=[cotarget] if isinstance(cotarget, sympy.Basic) else ())
    return replace(v, elapsed=time.perf_counter() - t0)


def _has_f2(L):
    outer = L.outer if hasattr(L, "outer") else L
    return any(isinstance(d, F2) for d in flatten(outer.stride))


__all__ = ["is_injective", "is_surjective", "is_bijective", "are_equal", "complement_disjoint", "INTERNAL"]
