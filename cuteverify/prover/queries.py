"""The prover's queries: injective, surjective, bijective, equal, complement-disjoint.

Every query runs the same pipeline (``_query``):

concrete layouts
    exact decision procedures (``fastpath``), Z3 only where they run out of budget.
symbolic layouts
    1. obligations carried by the layouts (and the implicit "every shape entry is an integer") are
       discharged from the assumptions where possible, the rest become hypotheses listed on the verdict;
    2. all symbols in small finite sets: every admissible assignment is decided concretely;
    3. structural proofs under the hypotheses (sorted strides, interval chains, common refinement), every
       step decided by ``cuteverify.decide``;
    4. small admissible assignments are tried concretely (refutations with a symbol assignment);
    5. Z3 (integer arithmetic, nonlinear in the symbols) under ``rlimit``;
    6. otherwise unknown, with the reason.

A refutation is always re-checked on concrete layouts (symbols substituted) before it is returned; a
witness that does not re-check turns the verdict into unknown ("internal: counterexample did not re-check").
"""
from __future__ import annotations

import itertools
import time

import sympy

from ..algebra import complement
from ..algebra import filter as _filter
from ..core.interop import to_layout
from ..core.layout import Layout, cosize, idx2crd, make_layout
from ..core.parse import (
    as_assumptions,
    check_assumption_names,
    integrality_obligations,
    parse,
)
from ..core.strides import F2
from ..core.swizzle import ComposedLayout
from ..core.tuples import flatten, product
from ..errors import CuteVerifyError, NotAdmissibleError
from ..symbolic import Assumptions, decide, parse_expr, to_int
from ..symbolic.conditions import Condition
from . import fastpath as fp
from .encode import F2_KINDS, Unsupported, as_int, decompose, norm_value
from .verdict import Counterexample, Verdict

INTERNAL = "internal: counterexample did not re-check"
FINITE_LIMIT = 1024
SAMPLE_LIMIT = 300


class R:
    """A procedure's answer before it becomes a Verdict."""
    __slots__ = ("status", "method", "cex", "reason")

    def __init__(self, status, method="", cex=None, reason=None):
        self.status, self.method, self.cex, self.reason = status, method, cex, reason


def _as_layout(x, assume=None):
    if isinstance(x, str):
        return parse(x, assume=assume)
    if isinstance(x, (Layout,)) or hasattr(x, "outer"):
        if assume is not None and getattr(x, "assumptions", None) is None:
            asm = as_assumptions(assume)
            x = Layout(x.shape, x.stride, obligations=x.obligations, assumptions=asm) if isinstance(x, Layout) \
                else type(x)(x.inner, x.offset, Layout(x.outer.shape, x.outer.stride,
                                                       obligations=x.outer.obligations, assumptions=asm))
        return x
    if type(x) is tuple or type(x) is int:
        return Layout(x)
    try:
        return _as_layout(to_layout(x), assume)
    except (TypeError, ValueError):
        raise TypeError(f"expected a layout or layout text, got {x!r}") from None


def _free(layouts, extra=()):
    out = set()
    for L in layouts:
        out |= {s for s in L.free_symbols()}
        out |= set(getattr(getattr(L, "offset", 0), "free_symbols", ()))  # a swizzled layout's offset
    for e in extra:
        out |= _expr_symbols(e)
    return out


def _expr_symbols(e):
    if isinstance(e, dict):
        e = tuple(e.values())
    if isinstance(e, (tuple, list)):
        out = set()
        for x in e:
            out |= _expr_symbols(x)
        return out
    return set(getattr(e, "free_symbols", ()))


def _assumptions_of(layouts):
    asm = None
    for L in layouts:
        a = getattr(L, "assumptions", None)
        if a is not None:
            asm = a if asm is None else asm.merged(a)
    return asm


def _obligations_of(layouts):
    """The obligations a claim about these layouts must assume. Canonical-form obligations are included:
    a layout is the same function on ``[0, size)`` either way, but not on its extended domain, which
    composition reads (``1:1`` and ``1:0`` differ at 1)."""
    out = []
    for L in layouts:
        for o in getattr(L, "obligations", ()):
            if o not in out:
                out.append(o)
    return out


def _implicit_obligations(layouts):
    """Shape entries such as ``N/8`` must be (positive) integers for the layout to exist."""
    out = []
    for L in layouts:
        for ob in integrality_obligations(L):
            if ob not in out:
                out.append(ob)
    return out


def _hypotheses(asm, conditions):
    hyp = Assumptions()
    if asm is not None:
        hyp = hyp.merged(asm) if asm else hyp
        hyp.conditions = list(asm.conditions)
        hyp.finite = dict(asm.finite)
        hyp.pow2 = set(asm.pow2)
        hyp.texts = list(asm.texts)
    for c in conditions:
        hyp.conditions.append(c)
        hyp.texts.append(str(c))
    return hyp


def _subs(L, values):
    if hasattr(L, "outer"):
        off = L.offset
        if isinstance(off, sympy.Basic):
            off = to_int(off, values)
            if off is None:
                off = L.offset
        return ComposedLayout(L.inner, off, L.outer.subs(values))
    return L.subs(values)


def _concrete_ok(L):
    """Substituted layout is well formed: integer shapes >= 1, integer strides."""
    outer = L.outer if hasattr(L, "outer") else L
    for s in flatten(outer.shape):
        if type(s) is not int or s < 1:
            return False
    for d in flatten(outer.stride):
        v = getattr(d, "value", d)
        if type(as_int(v)) is not int:
            return False
    if hasattr(L, "outer") and type(as_int(L.offset)) is not int:
        return False
    return True


def _natural(L, idx):
    try:
        return idx2crd(idx, L.shape)
    except Exception:  # pragma: no cover - display only
        return idx


def _finish(claim, r: R, obligations, discharged, t0):
    return Verdict(r.status, claim=claim, method=r.method, counterexample=r.cex, reason=r.reason,
                   obligations=obligations, discharged=discharged, elapsed=time.perf_counter() - t0)


# --- the pipeline --------------------------------------------------------------------------------------------

class Query:
    """One kind of question. ``concrete(layouts, extra)`` -> R, ``recheck(layouts, extra, cex)`` -> bool,
    ``structural(layouts, extra)`` -> method name or None (inside a decision context),
    ``z3(layouts, extra, hyp)`` -> R (refutations carry a Counterexample with an assignment)."""

    name = "query"

    def concrete(self, ls, extra):
        raise NotImplementedError

    def recheck(self, ls, extra, cex):
        raise NotImplementedError

    def structural(self, ls, extra):
        return None

    def z3(self, ls, extra, hyp):
        return R("unknown", reason="no Z3 encoding for this query")


def _query(claim, layouts, q: Query, extra=None, extra_exprs=()):
    t0 = time.perf_counter()
    try:
        return _query_inner(claim, layouts, q, extra, extra_exprs, t0)
    except Unsupported as e:
        return _finish(claim, R("unknown", reason=str(e)), _obligations_of(layouts), (), t0)
    except CuteVerifyError as e:
        return _finish(claim, R("unknown", reason=f"{type(e).__name__}: {e}"), _obligations_of(layouts), (), t0)
    except Exception as e:  # noqa: BLE001 (Z3 exceptions, a crash deep in sympy, ...)
        # never a verdict from a crashed procedure
        return _finish(claim, R("unknown", reason=f"internal: the decision procedure failed "
                                                   f"({type(e).__name__}: {e})"), _obligations_of(layouts), (), t0)


def _recheck_concrete(q, ls, extra, r):
    if r.status != "refuted":
        return r
    try:
        ok = q.recheck(ls, extra, r.cex)
    except Exception as e:  # a re-check that crashes is a failed re-check
        ok = False
        r.reason = f"{INTERNAL} ({type(e).__name__}: {e})"
    if ok is True:
        return r
    if ok is None:
        return R("unknown", r.method, reason=f"refutation found ({r.cex}) but it could not be re-checked exactly")
    return R("unknown", r.method, reason=INTERNAL + f" ({r.cex})")


def _query_inner(claim, layouts, q, extra, extra_exprs, t0):
    free = _free(layouts, extra_exprs)
    obligations = _obligations_of(layouts)
    if not free:
        r = q.concrete(layouts, extra)
        r = _recheck_concrete(q, layouts, extra, r)
        return _finish(claim, r, obligations, (), t0)

    asm = _assumptions_of(layouts)
    obligations = obligations + [o for o in _implicit_obligations(layouts) if o not in obligations]
    discharged, hyps = [], []
    with decide.context(asm):
        for o in obligations:
            c = o.condition
            try:
                ans = _decide_condition(c) if isinstance(c, Condition) else None
            except Exception:  # noqa: BLE001 (an undecidable question is left as a hypothesis)
                ans = None
            if ans is True:
                discharged.append(o)
            elif ans is False:
                return _finish(claim, R("unknown", reason=f"obligation {o} never holds under the assumptions: "
                                                            "the layouts do not exist"), obligations, (), t0)
            else:
                hyps.append(o)
    hyp = _hypotheses(asm, [o.condition for o in hyps if isinstance(o, Condition) or
                            isinstance(o.condition, Condition)])
    names = sorted(s.name for s in free)

    def admissible(values):
        """(layouts, extra, certain) at an assignment, None where it is excluded. ``certain``: every
        assumption and obligation evaluates to True; a fact over a symbol the assignment does not fix
        (``M == 2*K`` with only ``M`` assigned) leaves the assignment possible but not certain, so it may
        take part in a proof over a superset of the admissible assignments, never in a refutation."""
        if not hyp.holds(values):
            return None
        certain = all(c.holds(values) is True for c in hyp.conditions)
        for o in obligations:
            if isinstance(o.condition, Condition):
                h = o.condition.holds(values)
                if h is False:
                    return None
                certain = certain and h is True
            else:
                certain = False
        ls = [_subs(L, values) for L in layouts]
        if not all(_concrete_ok(L) for L in ls):
            return None
        ex = _subs_extra(extra, values)
        if ex is _BAD:
            return None
        return ls, ex, certain

    def concrete_at(values):
        got = admissible(values)
        if got is None:
            return None
        ls, ex, certain = got
        r = q.concrete(ls, ex)
        if r.status == "refuted":
            r = _recheck_concrete(q, ls, ex, r)
            if r.status == "refuted":
                if not certain:
                    return R("unknown", r.method, reason=f"a counterexample at {values} whose admissibility "
                                                         "depends on symbols the assignment does not fix")
                r.cex.assignment = dict(values)
        return r

    # 2. finite sets
    if asm is not None and all(n in asm.finite for n in names):
        # symbols that only the assumptions mention (``M == 2*K``, ``K in {...}``) are enumerated too, so
        # every assignment is decided as admissible or not
        linked = {x.name for c in hyp.conditions for x in c.symbols()} & set(asm.finite)
        enum_names = sorted(set(names) | linked)
        pools = [asm.finite[n] for n in enum_names]
        total = 1
        for p in pools:
            total *= len(p)
        if total <= FINITE_LIMIT:
            methods, count, unknowns = set(), 0, []
            for combo in itertools.product(*pools):
                values = dict(zip(enum_names, combo))
                r = concrete_at(values)
                if r is None:
                    continue
                count += 1
                if r.status == "refuted":
                    r.method = f"enumeration of assignments + {r.method}"
                    return _finish(claim, r, hyps, discharged, t0)
                if r.status == "unknown":
                    unknowns.append((values, r.reason))
                else:
                    methods.add(r.method)
            if unknowns:
                v, why = unknowns[0]
                return _finish(claim, R("unknown", reason=f"undecided at {v}: {why}"), hyps, discharged, t0)
            if count == 0:
                return _finish(claim, R("unknown", reason="no assignment satisfies the assumptions and obligations"),
                               hyps, discharged, t0)
            return _finish(claim, R("proved", f"all {count} assignments: " + ", ".join(sorted(methods))),
                           hyps, discharged, t0)

    # 3. structural proof under the hypotheses
    with decide.context(hyp) as recorded:
        before = len(recorded)
        try:
            m = q.structural(layouts, extra)
        except (CuteVerifyError, TypeError, ValueError, ZeroDivisionError):
            m = None
        if len(recorded) != before:
            m = None  # a step assumed something it could not decide: not a proof under the listed hypotheses
    if m:
        return _finish(claim, R("proved", m), hyps, discharged, t0)

    # 4. small assignments
    for values in _samples(names, asm):
        r = concrete_at(values)
        if r is not None and r.status == "refuted":
            r.method = f"sampled assignment + {r.method}"
            return _finish(claim, r, hyps, discharged, t0)

    # 5. Z3
    try:
        r = q.z3(layouts, extra, hyp)
    except Unsupported as e:
        r = R("unknown", reason=str(e))
    except Exception as e:  # untranslatable terms and the like
        r = R("unknown", reason=f"Z3 encoding failed: {type(e).__name__}: {e}")
    if r.status == "refuted":
        values = r.cex.assignment
        r2 = concrete_at(values)
        if r2 is None:
            r = R("unknown", "z3", reason=INTERNAL + f" (model {values} is not admissible)")
        elif r2.status == "refuted":
            r2.method = "z3 model + " + r2.method
            r = r2
        else:
            r = R("unknown", "z3", reason=INTERNAL + f" (at {values} the concrete check says {r2.status})")
    return _finish(claim, r, hyps, discharged, t0)


def _decide_condition(c: Condition):
    return {"eq": decide.eq, "lt": decide.lt, "le": decide.le, "divides": decide.divides,
            "ne": lambda a, b: (lambda r: None if r is None else not r)(decide.eq(a, b))}[c.kind](c.a, c.b)


_BAD = object()


def _subs_extra(extra, values):
    """Substitute an assignment into the query's extra arguments (codomain / cotarget: expressions, tuples
    or dicts of them); ``_BAD`` where one is not an integer there."""

    def sub(v):
        if isinstance(v, dict):
            out = {}
            for k, x in v.items():
                x = sub(x)
                if x is _BAD:
                    return _BAD
                out[k] = x
            return out
        if type(v) is tuple:
            out = tuple(sub(x) for x in v)
            return _BAD if any(x is _BAD for x in out) else out
        if isinstance(v, sympy.Basic):
            x = to_int(v, values)
            return _BAD if x is None else x
        return v

    if extra is None:
        return None
    return sub(extra)


def _samples(names, asm):
    pools = []
    for n in names:
        if asm is not None and n in asm.finite:
            pools.append(list(asm.finite[n])[:12])
            continue
        vals = {1, 2, 3, 4, 5, 6, 8, 12, 16, 32, 64}
        if asm is not None:
            for c in asm.conditions:
                syms = {s.name for s in c.symbols()}
                if n in syms:
                    for x in (c.a, c.b):
                        xi = as_int(x)
                        if type(xi) is int and xi > 0:
                            vals |= {xi, xi + 1, 2 * xi, 3 * xi, 4 * xi}
        pools.append(sorted(vals)[:14])
    count = 0
    # breadth first by the largest position used, so every symbol gets small values first
    depth = max((len(p) for p in pools), default=0)
    seen = set()
    for lvl in range(depth):
        sub = [p[:lvl + 1] for p in pools]
        for combo in itertools.product(*sub):
            if combo in seen:
                continue
            seen.add(combo)
            count += 1
            if count > SAMPLE_LIMIT:
                return
            yield dict(zip(names, combo))


# --- concrete helpers ----------------------------------------------------------------------------------------

def _value(L, idx):
    return norm_value(L(idx))


def _size(L):
    p = 1
    for s in flatten(L.shape):
        p *= s
    return p


def _has_f2(L):
    outer = L.outer if hasattr(L, "outer") else L
    return any(isinstance(d, F2) for d in flatten(outer.stride))


def _int_values(L):
    """The values of a concrete integer-valued layout as ints, by the layout's evaluation (F2 values hash
    unlike the ints they equal, so sets and dicts of them need ints)."""
    f = decompose(L)
    if f.kind in F2_KINDS:
        return fp.value_table(f)
    return [int(v) for v in L.values()]


def _recheck_collision(L, cex):
    i, j = cex.coords
    n = _size(L)
    if i == j or not (0 <= i < n and 0 <= j < n):
        return False
    vi, vj = L(i), L(j)
    cex.values = (vi, vj)
    cex.natural = (_natural(L, i), _natural(L, j))
    return norm_value(vi) == norm_value(vj)


def _recheck_out_of_range(L, cex, n):
    i = cex.coords[0]
    if not (0 <= i < _size(L)):
        return False
    v = L(i)
    cex.values = (v,)
    cex.natural = (_natural(L, i),)
    nv = norm_value(v)
    if isinstance(n, dict):
        return any(not (0 <= nv.get(p, 0) < ext) for p, ext in n.items()) or any(p not in n for p in nv)
    return type(v) is int and not (0 <= v < n)


def _recheck_missed(L, cex, n):
    """The value is in the codomain and no coordinate reaches it (an exact preimage search)."""
    v = cex.value
    f = decompose(L)
    if f.kind in F2_KINDS:
        if type(v) is not int or not (0 <= v < n):
            return False
        got = fp.f2_form_reaches(f, v)
        return None if got is None else not got
    if f.kind == "coord":
        if not isinstance(v, dict) or not all(0 <= v.get(p, 0) < ext for p, ext in n.items()):
            return False
        if any(p not in n for p in v):
            return False
        for p in set(n) | set(v):
            flat = fp.component_flat(f, p, restricted=True)
            got = fp.intlin.find_preimage(flat, v.get(p, 0))
            if got is fp.BUDGET:
                return None
            if got is None:
                return True
            # a preimage exists for this component; the other components decide
        return False
    if type(v) is not int or not (0 <= v < n):
        return False
    if _size(L) <= fp.ENUM_LIMIT:
        return v not in set(L.values())
    flat = fp.intlin.Flat(f.shapes, f.strides)
    target = v
    if f.kind == "swizzle":
        target = f.swizzle(v) - f.offset
    got = fp.intlin.find_preimage(flat, target)
    if got is fp.BUDGET:
        return None
    if got is not None:
        return False
    return True


def _recheck_differ(A, B, cex):
    i = cex.coords[0]
    if not (0 <= i < _size(A)) or _size(A) != _size(B):
        return False
    va, vb = A(i), B(i)
    cex.values = (va, vb)
    cex.natural = (_natural(A, i),)
    return norm_value(va) != norm_value(vb)


# --- injective -------------------------------------------------------------------------------------------------

class Injective(Query):
    name = "injective"

    def concrete(self, ls, extra):
        L = ls[0]
        r = fp.injective(decompose(L))
        if r.status == "refuted":
            i, j = r.cex
            r.cex = Counterexample("collision", coords=(i, j))
        return r

    def recheck(self, ls, extra, cex):
        return _recheck_collision(ls[0], cex)

    def structural(self, ls, extra):
        return fp.sym_injective(decompose(ls[0]))

    def z3(self, ls, extra, hyp):
        return fp.z3_injective(decompose(ls[0]), hyp)


class Surjective(Query):
    name = "surjective"

    def _codomain(self, L, f, extra):
        n = (extra or {}).get("codomain")
        if f.kind == "coord":
            if n is None:
                return fp.coord_extents(f)
            return fp.coord_codomain(n)
        if type(n) is tuple:
            n = product(n)
        if n is None and f.kind in F2_KINDS:
            n = fp.f2_form_codomain(f)
        if n is None:
            # cosize for non-negative strides; in general one past the largest value
            if f.kind == "int":
                n = fp.intlin.Flat(f.shapes, f.strides).value_range()[1] + 1
            elif fp.intlin.Flat(f.shapes, f.strides).size <= fp.ENUM_SURJ_LIMIT or \
                    fp.intlin.Flat(f.shapes, f.strides).size <= (1 << 20):
                n = max(L.values()) + 1
            else:
                raise Unsupported("a large swizzled layout needs an explicit codomain")
        return n

    def concrete(self, ls, extra):
        L = ls[0]
        f = decompose(L)
        n = self._codomain(L, f, extra)
        r = fp.surjective(f, n, L)
        if r.status == "refuted":
            r.cex = Counterexample("missed", value=r.cex)
        return r

    def recheck(self, ls, extra, cex):
        L = ls[0]
        return _recheck_missed(L, cex, self._codomain(L, decompose(L), extra))

    def structural(self, ls, extra):
        L = ls[0]
        f = decompose(L)
        n = (extra or {}).get("codomain")
        return fp.sym_surjective(f, n)


class Bijective(Query):
    name = "bijective"

    def concrete(self, ls, extra):
        L = ls[0]
        f = decompose(L)
        r = fp.injective(f)
        if r.status == "refuted":
            i, j = r.cex
            r.cex = Counterexample("collision", coords=(i, j))
            return r
        if r.status == "unknown":
            return r
        m1 = r.method
        n = fp.coord_sizes(f) if f.kind == "coord" else _size(L)
        if f.kind in ("int", "swizzle"):
            flat = fp.intlin.Flat(f.shapes, f.strides, const=f.offset if f.kind == "swizzle" else 0)
            lo, hi = flat.value_range()
            if f.kind == "int" and (lo < 0 or hi >= n):
                want_max = hi >= n
                digits = [(s - 1) if ((d > 0) == want_max and d != 0) else 0 for s, d in zip(f.shapes, f.strides)]
                return R("refuted", m1 + " + value-range",
                         Counterexample("out-of-range", coords=(flat.index(digits),)))
        r = fp.surjective(f, n, L)
        if r.status == "refuted":
            r.cex = Counterexample("missed", value=r.cex)
        if r.status == "proved":
            r.method = m1 if m1 == r.method else f"{m1} + {r.method}"
        return r

    def recheck(self, ls, extra, cex):
        L = ls[0]
        if cex.kind == "collision":
            return _recheck_collision(L, cex)
        f = decompose(L)
        if cex.kind == "out-of-range":
            return _recheck_out_of_range(L, cex, _size(L))
        n = fp.coord_sizes(f) if f.kind == "coord" else _size(L)
        return _recheck_missed(L, cex, n)

    def structural(self, ls, extra):
        f = decompose(ls[0])
        m1 = fp.sym_injective(f)
        if not m1:
            return None
        if f.kind == "coord":
            m2 = fp.sym_surjective(f, None, sizes=True)
        else:
            m2 = fp.sym_surjective(f, product(ls[0].shape))
        return m2 and (m1 if m1 == m2 else f"{m1} + {m2}")

    def z3(self, ls, extra, hyp):
        r = fp.z3_injective(decompose(ls[0]), hyp)
        if r.status == "proved":
            return R("unknown", "z3", reason="injective (Z3) but surjectivity onto [0, size) was not proved")
        return r


class Equal(Query):
    name = "equal"

    def concrete(self, ls, extra):
        A, B = ls
        if _size(A) != _size(B):
            # different domains: not the same function (the size is part of a layout)
            return R("refuted", "sizes", cex=Counterexample("mismatch", values=(_size(A), _size(B)),
                                                           note=f"the sizes differ ({_size(A)} != {_size(B)})"))
        r = fp.equal(decompose(A), decompose(B), A, B)
        if r.status == "refuted":
            r.cex = Counterexample("differ", coords=(r.cex,))
        return r

    def recheck(self, ls, extra, cex):
        if cex.kind == "mismatch":
            return _size(ls[0]) != _size(ls[1])
        return _recheck_differ(ls[0], ls[1], cex)

    def structural(self, ls, extra):
        A, B = ls
        if decide.eq(product(A.shape), product(B.shape)) is not True:
            return None
        return fp.sym_equal(decompose(A), decompose(B))

    def z3(self, ls, extra, hyp):
        # the Z3 encoding compares the layouts on their common domain only: it proves equality only once
        # the sizes are known to be equal
        A, B = ls
        with decide.context(_assumptions_of(ls)):
            same = decide.eq(product(A.shape), product(B.shape))
        if same is not True:
            return R("unknown", "z3", reason="the sizes are not proved equal, and equality needs equal sizes")
        return fp.z3_equal(decompose(A), decompose(B), hyp)


class Disjoint(Query):
    """``complement_disjoint``: ls = (A, R, (A, R)); images of A and R meet only at 0 and (A, R) covers
    ``[0, cotarget)``."""
    name = "disjoint"

    def concrete(self, ls, extra):
        A, Rc, AR = ls
        n = extra["cotarget"]
        f = decompose(AR)
        r = fp.injective(f)
        if r.status == "refuted":
            # the concatenation collides; look for a shared non-zero value directly
            if _size(A) * _size(Rc) <= (1 << 22):
                ia = {}
                for i, v in enumerate(_int_values(A)):
                    ia.setdefault(v, i)
                for j, v in enumerate(_int_values(Rc)):
                    if v != 0 and v in ia:
                        return R("refuted", "enumeration", Counterexample("overlap", coords=(ia[v], j), value=v))
                r = R("unknown", "enumeration", reason="images meet only at 0 but (A, complement) is not injective")
            else:
                r = R("unknown", r.method, reason="(A, complement) is not injective; no shared value searched")
            return r
        if r.status != "proved":
            return r
        m1 = r.method
        r = fp.surjective(f, n, AR)
        if r.status == "refuted":
            r.cex = Counterexample("missed", value=r.cex, note="(A, complement) does not cover [0, cotarget)")
        if r.status == "proved":
            r.method = m1 if m1 == r.method else f"{m1} + {r.method}"
        return r

    def recheck(self, ls, extra, cex):
        A, Rc, AR = ls
        if cex.kind == "overlap":
            i, j = cex.coords
            va, vr = A(i), Rc(j)
            cex.values = (va, vr)
            return va == vr and va != 0 and 0 <= i < _size(A) and 0 <= j < _size(Rc)
        return _recheck_missed(AR, cex, extra["cotarget"])

    def structural(self, ls, extra):
        A, Rc, AR = ls
        f = decompose(AR)
        m1 = fp.sym_injective(f)
        if not m1:
            return None
        m2 = fp.sym_surjective(f, extra["cotarget"])
        return m2 and (m1 if m1 == m2 else f"{m1} + {m2}")

    def z3(self, ls, extra, hyp):
        r = fp.z3_injective(decompose(ls[2]), hyp)
        if r.status == "proved":
            return R("unknown", "z3", reason="disjoint (Z3) but covering [0, cotarget) was not proved")
        if r.status == "refuted":
            return R("unknown", "z3", reason="(A, complement) collides; no shared value searched symbolically")
        return r


# --- public API ---------------------------------------------------------------------------------------------

def is_injective(layout, *, assume=None) -> Verdict:
    """Distinct coordinates of ``[0, size)`` map to distinct values."""
    L = _as_layout(layout, assume)
    return _query(f"injective({L})", [L], Injective())


def is_surjective(layout, codomain=None, *, assume=None) -> Verdict:
    """Every value of ``[0, codomain)`` is reached (default: ``[0, cosize)``). For coordinate layouts the
    codomain is a box: a shape (one extent per coordinate) or, by default, each coordinate's ``max + 1``."""
    L = _as_layout(layout, assume)
    cd = codomain
    if isinstance(cd, str):
        cd = parse_expr(cd)
    for c in (cd if isinstance(cd, tuple) else (cd,)):
        if type(c) is int and c <= 0:
            raise NotAdmissibleError("surjective", f"the codomain must be a positive size, got {c}")
    extra = {"codomain": cd}
    return _query(f"surjective({L}" + (f", {cd})" if cd is not None else ")"), [L], Surjective(), extra,
                  extra_exprs=[cd])


def is_bijective(layout, *, assume=None) -> Verdict:
    """A bijection onto ``[0, size)`` (coordinate layouts: onto the box of each coordinate's size)."""
    L = _as_layout(layout, assume)
    return _query(f"bijective({L})", [L], Bijective())


def are_equal(a, b, *, assume=None) -> Verdict:
    """The same function on ``[0, size)``; layouts of different sizes are refuted (the sizes are the
    witness)."""
    A, B = _as_layout(a, assume), _as_layout(b, assume)
    return _query(f"{A} == {B}", [A, B], Equal())


def complement_disjoint(a, cotarget=None, *, assume=None) -> Verdict:
    """``R = complement(A, cotarget)``: ``image(A)`` and ``image(R)`` meet only at 0 and ``(A, R)`` covers
    ``[0, cotarget)`` (proved via: ``(A, R)`` injective and onto ``[0, cotarget)``)."""
    if isinstance(cotarget, str):
        cotarget = parse_expr(cotarget)
    if assume is not None and isinstance(a, str) and not hasattr(assume, "conditions"):
        # the cotarget may carry symbols of its own: check the names against both, then share
        assume = as_assumptions(assume)
        L0 = parse(a, assume=assume)
        check_assumption_names(assume, {s.name for s in L0.free_symbols()} |
                               {s.name for s in getattr(cotarget, "free_symbols", ())}, a)
    A = _as_layout(a, assume)
    if cotarget is None:
        cotarget = cosize(A)
    claim = f"disjoint({A}, {cotarget})"
    t0 = time.perf_counter()
    try:
        Rc = complement(A, cotarget)
    except CuteVerifyError as e:
        return Verdict("unknown", claim=claim, method="algebra", reason=str(e),
                       obligations=_obligations_of([A]), elapsed=time.perf_counter() - t0)
    # image(filter(A)) == image(A): broadcast (stride-0) modes do not make the images overlap. Not with F2
    # strides: an F2 term turns the evaluator's sums into XORs, also the sum of A's and R's values in (A, R),
    # and filter may drop the last F2 mode (size 1) and so change the function (A, R) is
    AR = make_layout(A if _has_f2(A) else _filter(A), Rc)
    AR = Layout(AR.shape, AR.stride, obligations=AR.obligations, assumptions=Rc.assumptions or A.assumptions)
    Rc = Layout(Rc.shape, Rc.stride, obligations=Rc.obligations, assumptions=Rc.assumptions or A.assumptions)
    v = _query(claim, [A, Rc, AR], Disjoint(), {"cotarget": cotarget},
               extra_exprs=[cotarget] if isinstance(cotarget, sympy.Basic) else ())
    v.elapsed = time.perf_counter() - t0
    return v


__all__ = ["is_injective", "is_surjective", "is_bijective", "are_equal", "complement_disjoint"]
