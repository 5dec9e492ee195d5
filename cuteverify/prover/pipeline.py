"""The query pipeline every prover query runs (docs/model.md section 9).

Stages, in order; the first that answers gives the verdict:

reading
    text and objects become layouts (``core.notation.interop.as_layout``), under the caller's assumptions.
concrete layouts
    ``Query.concrete``: the exact procedures (``exact``, ``f2``), Z3 only where they run out of budget;
    a refutation is re-checked (``recheck_refutation``).
symbolic layouts
    1. ``discharge``: obligations carried by the layouts (and the implicit "every shape entry is an
       integer") are discharged from the assumptions where possible, the rest become hypotheses listed on
       the verdict;
    2. ``stage_finite``: all symbols in small finite sets: every admissible assignment is decided concretely;
    3. ``stage_structural``: structural proofs under the hypotheses (``structural``), every step decided by
       ``cuteverify.decide``; then the case splits of ``splits`` (finite symbols substituted one assignment
       at a time; a size symbol split into ``X == 1`` and ``X >= 2``), each case proved structurally;
    4. ``stage_samples``: small admissible assignments are tried concretely (refutations with an assignment;
       the first ``tables.FIRST_SAMPLES`` of them already before stage 3, ``stage_first_samples``);
    5. ``stage_z3``: Z3 (integer arithmetic, nonlinear in the symbols) under the ``QUERY`` budget;
    6. otherwise unknown, with the reason.

A refutation is always re-checked on concrete layouts (symbols substituted) before it is returned; a
witness that does not re-check turns the verdict into unknown ("internal: counterexample did not re-check").
A procedure that raises gives unknown, never a verdict.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import replace

from ..core.layout import Layout
from ..core.notation.parse import integrality_obligations
from ..core.tuples import flatten
from ..errors import CuteVerifyError, Unsupported
from ..symbolic import Assumptions, bounded_names, decide, domain, finite_assignments, to_int
from ..symbolic.conditions import Condition
from ..symbolic.lazy import sympy
from . import tables
from .forms import as_int
from .splits import substitute, stage_partial, stage_unit_split, structural_under
from .tables import unknown
from .verdict import Counterexample, Verdict

INTERNAL = "internal: counterexample did not re-check"


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


def assumptions_of(layouts):
    """The merged assumptions the layouts carry (None when none carries any)."""
    asm = None
    for L in layouts:
        a = getattr(L, "assumptions", None)
        if a is not None:
            asm = a if asm is None else asm.merged(a)
    return asm


def obligations_of(layouts):
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


def _concrete_ok(L):
    """Substituted layout is well formed: integer shapes >= 1, integer strides (every layout of a composed
    one, and an integer or coordinate offset)."""
    if hasattr(L, "outer"):
        off = L.offset if isinstance(L.offset, tuple) else (L.offset,)
        return all(type(as_int(x)) is int for x in flatten(off)) and _concrete_ok(L.outer) and \
            (not isinstance(L.inner, Layout) or _concrete_ok(L.inner))
    outer = L
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


class Query:
    """One kind of question; every method answers a ``Verdict`` (no claim text; ``run`` fills it in).
    ``concrete(layouts, extra)``: the exact answer for concrete layouts; ``recheck(layouts, extra, cex)`` ->
    True / False / None (could not tell): the refutation holds on the concrete layouts;
    ``structural(layouts, extra)`` -> a method name or None (inside a decision context);
    ``z3(layouts, extra, hyp)``: refutations carry a Counterexample with an assignment."""

    name = "query"

    def concrete(self, ls, extra) -> Verdict:
        raise NotImplementedError

    def recheck(self, ls, extra, cex):
        """Does ``cex`` refute the claim on the concrete layouts ``ls``? ``True``, or the witness with the
        values the layouts' evaluation gave (a new Counterexample: witnesses are frozen); ``False``; ``None``
        when it cannot tell."""
        raise NotImplementedError

    def structural(self, ls, extra):
        return None

    def z3(self, ls, extra, hyp) -> Verdict:
        return unknown("no Z3 encoding for this query")


def run(claim, layouts, q: Query, extra=None, extra_exprs=()) -> Verdict:
    """The verdict of query ``q`` about ``layouts`` (the stages of the module docstring)."""
    t0 = time.perf_counter()
    asm = assumptions_of(layouts)
    if asm is not None:  # the one check every query makes: from contradictory assumptions anything follows
        asm.check_consistent()
    try:
        return _run(claim, layouts, q, extra, extra_exprs, t0)
    except Unsupported as e:
        return _finish(claim, unknown(str(e)), obligations_of(layouts), (), t0)
    except CuteVerifyError as e:
        return _finish(claim, unknown(f"{type(e).__name__}: {e}"), obligations_of(layouts), (), t0)
    except Exception as e:  # noqa: BLE001 (Z3 exceptions, a crash deep in sympy, ...)
        # never a verdict from a crashed procedure
        return _finish(claim, unknown(f"internal: the decision procedure failed ({type(e).__name__}: {e})"),
                       obligations_of(layouts), (), t0)


def _finish(claim, v: Verdict, obligations, discharged, t0):
    return replace(v, claim=claim, obligations=tuple(obligations), discharged=tuple(discharged),
                   elapsed=time.perf_counter() - t0)


def recheck_refutation(q, ls, extra, v: Verdict) -> Verdict:
    """A refutation stands only when ``q.recheck`` confirms its witness on the concrete layouts."""
    if v.status != "refuted":
        return v
    try:
        ok = q.recheck(ls, extra, v.counterexample)
    except Exception as e:  # noqa: BLE001 (a re-check that crashes is a failed re-check)
        ok = False
        v = replace(v, reason=f"{INTERNAL} ({type(e).__name__}: {e})")
    if isinstance(ok, Counterexample):  # confirmed, with the values the evaluation gave
        return replace(v, counterexample=ok)
    if ok is True:
        return v
    if ok is None:
        return unknown(f"refutation found ({v.counterexample}) but it could not be re-checked exactly", v.method)
    return unknown(INTERNAL + f" ({v.counterexample})", v.method)


def _run(claim, layouts, q, extra, extra_exprs, t0):
    free = _free(layouts, extra_exprs)
    if not free:
        v = recheck_refutation(q, layouts, extra, q.concrete(layouts, extra))
        return _finish(claim, v, obligations_of(layouts), (), t0)
    c = SymbolicClaim(layouts, q, extra, free)
    v = c.discharge()
    if v is not None:
        return _finish(claim, v, c.obligations, (), t0)
    for stage in (stage_finite, stage_first_samples, stage_structural, stage_partial, stage_unit_split,
                  stage_samples, stage_z3):
        v = stage(c)
        if v is not None:
            return _finish(claim, v, c.hyps, c.discharged, t0)
    return _finish(claim, unknown("no stage decided the claim"), c.hyps, c.discharged, t0)


class SymbolicClaim:
    """A query about symbolic layouts: the layouts, their assumptions, obligations (discharged or kept as
    hypotheses) and the concrete decision at one assignment of the symbols."""

    def __init__(self, layouts, q, extra, free):
        self.layouts, self.q, self.extra = layouts, q, extra
        self.asm = assumptions_of(layouts)
        obligations = obligations_of(layouts)
        self.obligations = obligations + [o for o in _implicit_obligations(layouts) if o not in obligations]
        self.names = sorted(s.name for s in free)
        self.discharged, self.hyps, self.hyp = [], [], None
        self.structural_tried = False

    def discharge(self):
        """Stage 1: decide each obligation under the assumptions; an undecided one becomes a hypothesis.
        A verdict (unknown) when one never holds: then the layouts do not exist."""
        with decide.context(self.asm):
            for o in self.obligations:
                c = o.condition
                try:
                    ans = _decide_condition(c) if isinstance(c, Condition) else None
                except Exception:  # noqa: BLE001 (an undecidable question is left as a hypothesis)
                    ans = None
                if ans is True:
                    self.discharged.append(o)
                elif ans is False:
                    return unknown(f"obligation {o} never holds under the assumptions: the layouts do not exist")
                else:
                    self.hyps.append(o)
        self.hyp = _hypotheses(self.asm, [o.condition for o in self.hyps if isinstance(o, Condition) or
                                          isinstance(o.condition, Condition)])
        return None

    def admissible(self, values):
        """(layouts, extra, certain) at an assignment, None where it is excluded. ``certain``: every
        assumption and obligation evaluates to True; a fact over a symbol the assignment does not fix
        (``M == 2*K`` with only ``M`` assigned) leaves the assignment possible but not certain, so it may
        take part in a proof over a superset of the admissible assignments, never in a refutation."""
        hyp = self.hyp
        if not hyp.holds(values):
            return None
        certain = all(c.holds(values) is True for c in hyp.conditions)
        for o in self.obligations:
            if isinstance(o.condition, Condition):
                h = o.condition.holds(values)
                if h is False:
                    return None
                certain = certain and h is True
            else:
                certain = False
        ls = [substitute(L, values) for L in self.layouts]
        if not all(_concrete_ok(L) for L in ls):
            return None
        ex = _subs_extra(self.extra, values)
        if ex is _BAD:
            return None
        return ls, ex, certain

    def concrete_at(self, values):
        """The concrete verdict at an admissible assignment (None where it is not admissible); a refutation is
        re-checked and carries the assignment."""
        got = self.admissible(values)
        if got is None:
            return None
        ls, ex, certain = got
        v = recheck_refutation(self.q, ls, ex, self.q.concrete(ls, ex))
        if v.status == "refuted":
            if not certain:
                return unknown(f"a counterexample at {values} whose admissibility depends on symbols the "
                               "assignment does not fix", v.method)
            return replace(v, counterexample=replace(v.counterexample, assignment=dict(values)))
        return v


def stage_finite(c: SymbolicClaim):
    """Stage 2: every symbol in a finite set of at most ``FINITE_LIMIT`` assignments: decide each (more than
    ``FINITE_STRUCTURAL_FIRST`` of them: the first samples and the structural rules are tried first)."""
    asm = c.asm
    if asm is None or not all(domain(c.hyp, n) is not None for n in c.names):
        return None
    # symbols that only the assumptions mention (``M == 2*K``, ``K in {...}``) are enumerated too, so
    # every assignment is decided as admissible or not
    mentioned = {x.name for cond in c.hyp.conditions for x in cond.symbols()}
    linked = {n for n in mentioned if domain(c.hyp, n) is not None}
    names = sorted(set(c.names) | linked)
    assignments = finite_assignments(names, c.hyp, tables.FINITE_LIMIT)
    if assignments is None:
        return None
    if len(assignments) > tables.FINITE_STRUCTURAL_FIRST:
        # many cases: a refutation among the smallest, or one structural proof, is cheaper than each case
        v = stage_first_samples(c) or stage_structural(c)
        if v is not None:
            return v
    bounded = bounded_names(c.hyp, names)
    how = f" (bounded, so finite: {', '.join(bounded)})" if bounded else ""
    methods, count, unknowns = set(), 0, []
    for values in assignments:
        v = c.concrete_at(values)
        if v is None:
            continue
        count += 1
        if v.status == "refuted":
            return replace(v, method=f"enumeration of assignments{how} + {v.method}")
        if v.status == "unknown":
            unknowns.append((values, v.reason))
        else:
            methods.add(v.method)
    if unknowns:
        values, why = unknowns[0]
        return unknown(f"undecided at {values}: {why}")
    if count == 0:
        return unknown("no assignment satisfies the assumptions and obligations")
    return Verdict("proved", method=f"all {count} assignments{how}: " + ", ".join(sorted(methods)))


def stage_structural(c: SymbolicClaim):
    """Stage 3: a structural proof under the hypotheses; a step that had to assume something it could not
    decide is no proof under the listed hypotheses. Tried once per claim (stage 2 may have tried it)."""
    if c.structural_tried:
        return None
    c.structural_tried = True
    m = structural_under(c.q, c.layouts, c.extra, c.hyp)
    return Verdict("proved", method=m) if m else None


def stage_samples(c: SymbolicClaim, limit=None):
    """Stage 4: small assignments, for a refutation only (the first ``limit`` of them, where given)."""
    for k, values in enumerate(_samples(c.names, c.asm)):
        if limit is not None and k >= limit:
            break
        v = c.concrete_at(values)
        if v is not None and v.status == "refuted":
            return replace(v, method=f"sampled assignment + {v.method}")
    return None


def stage_first_samples(c: SymbolicClaim):
    """Stage 2b: the first few assignments of stage 4 before any structural work: a false claim is
    usually refuted by one of its smallest assignments, at the cost of a few concrete checks, where the
    structural rules would first spend their decisions failing."""
    return stage_samples(c, tables.FIRST_SAMPLES)


def stage_z3(c: SymbolicClaim):
    """Stage 5: the query's Z3 encoding; a model is a refutation only once it re-checks concretely."""
    try:
        v = c.q.z3(c.layouts, c.extra, c.hyp)
    except Unsupported as e:
        v = unknown(str(e))
    except Exception as e:  # noqa: BLE001 (untranslatable terms and the like)
        v = unknown(f"Z3 encoding failed: {type(e).__name__}: {e}")
    if v.status != "refuted":
        return v
    values = v.counterexample.assignment
    v2 = c.concrete_at(values)
    if v2 is None:
        return unknown(INTERNAL + f" (model {values} is not admissible)", "z3")
    if v2.status == "refuted":
        return replace(v2, method="z3 model + " + v2.method)
    return unknown(INTERNAL + f" (at {values} the concrete check says {v2.status})", "z3")


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
        # odd values past 8 too: a swizzle's partial last block breaks bijectivity first at such sizes
        vals = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 16, 32, 64}
        if asm is not None:
            for c in asm.conditions:
                syms = {s.name for s in c.symbols()}
                if n in syms:
                    for x in (c.a, c.b):
                        xi = as_int(x)
                        if type(xi) is int and xi > 0:
                            vals |= {xi, xi + 1, 2 * xi, 3 * xi, 4 * xi}
        if asm is not None:
            # the facts about this symbol alone (``32 | K``, ``pow2(M)``, ``M <= 8``) filter its pool, so the
            # sample budget goes to assignments that can be admissible (holds is False only where one fails)
            kept = [v for v in sorted(vals) if asm.holds({n: v})]
            vals = kept or vals
        pools.append(sorted(vals)[:18])
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
            if count > tables.SAMPLE_LIMIT:
                return
            yield dict(zip(names, combo))


__all__ = ["Query", "run", "recheck_refutation", "INTERNAL"]
