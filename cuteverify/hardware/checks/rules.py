"""Named hardware rules decided for every value of the symbolic sizes (docs/model.md sections 5 and 6).

A *rule* is a named requirement (``box_dims``: every box dimension is in 1..256) made of clauses, each a
``Condition`` with the sentence that explains a violation. :func:`check_rules` decides every clause under
the assumptions and answers the prover's :class:`~cuteverify.prover.verdict.Verdict`:

* *proved*: the decision interface (``symbolic.decide``) says the clause holds for every assignment that
  satisfies the assumptions (or Z3 finds no violating assignment for a polynomial clause);
* *refuted*: an assignment that satisfies the assumptions and violates the clause, re-evaluated before it
  is reported, the smallest one in the lexicographic order of the symbol names (so a missing bound such as
  ``M <= 2**32`` is answered with ``M = 4294967297``);
* *unknown*: neither, with the reason.

The descriptor checks (``hardware.tma``) build their rules here; a rule marked ``enforced=False`` is
documentation the driver does not enforce: its result is reported but does not decide the verdict.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ...errors import Untranslatable, Unsupported
from ...prover.verdict import RuleViolation, Verdict
from ...symbolic import decide
from ...symbolic import smt
from ...symbolic.assumptions import finite_assignments
from ...symbolic.conditions import Condition
from ...symbolic.expr import format_value, to_int

__all__ = ["Rule", "RuleVerdict", "check_rules", "value_at"]

METHOD = "hardware rules"
_FINITE_LIMIT = 4096


class Rule:
    """A named requirement: ``clauses`` is a list of ``(condition, explain)`` where ``condition`` is a
    ``Condition`` or a plain bool and ``explain(values)`` the sentence saying how it fails at an assignment
    (``values``: symbol name -> int). ``source`` says where the rule comes from (driver documentation,
    driver behaviour on silicon, CUTLASS)."""

    __slots__ = ("name", "text", "clauses", "enforced", "source")

    def __init__(self, name, text, clauses, enforced=True, source="cuda.h: cuTensorMapEncodeTiled"):
        self.name, self.text, self.clauses = name, text, list(clauses)
        self.enforced, self.source = enforced, source


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class RuleVerdict(Verdict):
    """A Verdict over several rules: ``rules`` holds one Verdict per rule (its ``claim`` is the rule's
    name and text); ``warnings`` the refutations of rules the driver does not enforce."""

    rules: tuple = ()
    warnings: tuple = ()
    fields: dict = field(default_factory=dict)

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "rules", tuple(self.rules))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        object.__setattr__(self, "fields", dict(self.fields or {}))

    def rule(self, name):
        for r in self.rules:
            if r.claim.split(":", 1)[0] == name:
                return r
        raise KeyError(name)

    def to_json(self):
        d = super().to_json()
        d["rules"] = [dict(r.to_json(), name=r.claim.split(":", 1)[0]) for r in self.rules]
        d["warnings"] = list(self.warnings)
        d["fields"] = {k: _plain(v) for k, v in self.fields.items()}
        return d

    def __str__(self):
        lines = [super().__str__()]
        for r in self.rules:
            mark = {"proved": "ok", "refuted": "FAIL", "unknown": "??"}[r.status]
            line = f"  [{mark:4}] {r.claim}"
            if r.counterexample is not None:
                line += f"\n         {r.counterexample}"
            elif r.reason and r.status != "proved":
                line += f"\n         {r.reason}"
            lines.append(line)
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)


def _plain(v):
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if v is None or type(v) in (int, str, bool):
        return v
    return format_value(v)


def value_at(expr, values):
    """``expr`` (int or sympy) at a full assignment; the expression's text if symbols remain."""
    v = to_int(expr, values or {})
    return v if v is not None else format_value(expr)


# --------------------------------------------------------------------------------------------- decisions

def _ask(cond: Condition):
    """The decision interface's answer for one condition (True / False / None)."""
    a, b = cond.a, cond.b
    if cond.kind == "ne":
        r = decide.eq(a, b)
        return None if r is None else not r
    return {"eq": decide.eq, "lt": decide.lt, "le": decide.le, "divides": decide.divides}[cond.kind](a, b)


def _violation(cond: Condition, assumptions):
    """``(assignment, exact)``: the lexicographically smallest assignment (sorted symbol names) satisfying
    the assumptions and violating ``cond``; ``({}, True)`` when none exists and that is certain;
    ``(None, reason)`` when the search cannot tell."""
    names = sorted(s.name for s in cond.symbols())
    pool = finite_assignments(names, assumptions, _FINITE_LIMIT, exact=True) if assumptions is not None else None
    if pool is not None:
        for values in sorted(pool, key=lambda v: tuple(v[n] for n in names)):
            if cond.holds(values) is False:
                return values, True
        return {}, True
    try:
        r, values = smt.least_violation(cond.kind, cond.a, cond.b, assumptions, names)
    except (Untranslatable, Unsupported) as e:
        return None, f"not translatable to Z3: {e}"
    if r == "unsat":
        pow2 = assumptions is not None and bool(assumptions.pow2 & set(names))
        # a pow2 symbol is modelled up to 2**62 only: no violation there is not a proof
        return ({}, True) if not pow2 else (None, "no violation with powers of two up to 2**62")
    if r != "sat":
        return None, f"Z3: {r.removeprefix('unknown: ')}"
    return values, True


def _enumerated(names, pool) -> str:
    """How an enumeration covered ``names``: ``enumeration of n in {32,64,128,256,512}``."""
    parts = []
    for n in names:
        vals = sorted({v[n] for v in pool})
        if len(vals) <= 8:
            parts.append(f"{n} in {{{','.join(map(str, vals))}}}")
        else:
            parts.append(f"{n} in {{{','.join(map(str, vals[:3]))},...,{vals[-1]}}} ({len(vals)} values)")
    return "enumeration of " + ", ".join(parts)


def _by_enumeration(cond, names, assumptions):
    """``(status, assignment, how)`` when the clause's symbols (and every symbol the facts tie to them) have
    finite domains: every admissible assignment evaluated, the smallest violating one reported; None when
    they have none, none is admissible, or a side is no integer at one of them (the other methods decide)."""
    pool = finite_assignments(names, assumptions, _FINITE_LIMIT, exact=True)
    if not pool:
        return None
    order = sorted(pool, key=lambda v: tuple(v[n] for n in names))
    results = [cond.holds(values) for values in order]
    if None in results:
        return None
    how = _enumerated(names, pool)
    for values, h in zip(order, results):
        if h is False:
            return "refuted", values, how
    return "proved", None, how


def decide_clause(cond, assumptions):
    """``(status, assignment, reason)`` for one clause: ``proved`` / ``refuted`` (with the assignment,
    re-checked) / ``unknown`` (with the reason). A clause over symbols with finite domains (finite sets,
    bounds, bounded pow2 symbols: ``pow2(n), 32 <= n <= 512`` is {32,...,512}) is decided by evaluating it
    at every admissible assignment; ``reason`` then says which values were enumerated."""
    if isinstance(cond, bool):
        return ("proved", None, "") if cond else ("refuted", {}, "")
    if not cond.symbols():
        return ("proved", None, "") if cond.holds({}) else ("refuted", {}, "")
    if assumptions is not None:
        got = _by_enumeration(cond, sorted(s.name for s in cond.symbols()), assumptions)
        if got is not None:
            return got
    with decide.context(assumptions):
        answer = _ask(cond)
    if answer is True:
        return "proved", None, ""
    values, why = _violation(cond, assumptions)
    if values is None:
        return "unknown", None, why
    if not values:
        if answer is False:
            return "unknown", None, "refuted for every value, but no assignment satisfies the assumptions"
        return "proved", None, "no assignment satisfying the assumptions violates it (Z3)"
    ok = (assumptions is None or assumptions.holds(values)) and cond.holds(values) is False
    if not ok:
        return "unknown", None, f"the violating assignment {values} did not re-check"
    return "refuted", values, ""


def _assignment_text(values):
    return ", ".join(f"{k} = {v}" for k, v in sorted(values.items()))


def check_rule(rule: Rule, assumptions) -> Verdict:
    """One rule's Verdict: refuted with the smallest violating assignment over all its clauses (a rule such as
    "every stride below 2**40" has one clause per stride; any of them may break first), else its first
    unknown clause, else proved. The method
    names the enumerations that decided clauses (``hardware rules (enumeration of n in {32,...})``)."""
    t0 = time.perf_counter()
    claim = f"{rule.name}: {rule.text}"
    unknown = None
    hows = []
    best = None  # (values, note, how) of the smallest violating assignment over every clause
    for cond, explain in rule.clauses:
        status, values, reason = decide_clause(cond, assumptions)
        if reason.startswith("enumeration of ") and reason not in hows:
            hows.append(reason)
        if status == "refuted":
            names = {s.name for s in cond.symbols()} if not isinstance(cond, bool) else set()
            values = {k: v for k, v in values.items() if k in names} or values
            if best is None or _order_key(values, best[0]) < _order_key(best[0], values):
                asg = _assignment_text(values)
                best = (values, (f"{asg}: " if asg else "") + explain(values),
                        reason if reason.startswith("enumeration of ") else None)
        if status == "unknown" and unknown is None:
            unknown = f"{cond}: {reason}"
    if best is not None:
        values, note, how = best
        cex = RuleViolation(assignment=values, note=note, detail={"rule": rule.name})
        return Verdict("refuted", claim=claim, method=_method([how] if how else []), counterexample=cex,
                       reason=note, elapsed=time.perf_counter() - t0)
    if unknown is not None:
        return Verdict("unknown", claim=claim, method=_method(hows), reason=unknown,
                       elapsed=time.perf_counter() - t0)
    return Verdict("proved", claim=claim, method=_method(hows), elapsed=time.perf_counter() - t0)


def _order_key(values: dict, other: dict) -> tuple:
    """Two clauses' witnesses compared in the order the clauses' own search uses (values of the sorted symbol
    names, lexicographically); a symbol one witness leaves free counts as its smallest value, 0."""
    return tuple(values.get(n, 0) for n in sorted(set(values) | set(other)))


def _method(hows) -> str:
    return f"{METHOD} ({'; '.join(hows)})" if hows else METHOD


def check_rules(rules, assumptions, claim: str, fields=None) -> RuleVerdict:
    """Every rule decided; the verdict is refuted if an enforced rule is, else unknown if one is, else
    proved. The counterexample is the smallest violating assignment over the refuted rules (each rule's own
    is the smallest over its clauses), the first rule's on a tie."""
    t0 = time.perf_counter()
    results = [check_rule(r, assumptions) for r in rules]
    enforced = [(r, v) for r, v in zip(rules, results) if r.enforced]
    warnings = [f"{r.name} ({r.source}, not enforced by the driver): {v.counterexample}"
                for r, v in zip(rules, results) if not r.enforced and v.refuted]
    refuted = [v for _, v in enforced if v.refuted]
    unknown = [v for _, v in enforced if v.status == "unknown"]
    if refuted:
        # the smallest violating assignment over every broken rule (the first rule's on a tie)
        cex = refuted[0].counterexample
        for v in refuted[1:]:
            a, b = v.counterexample.assignment or {}, cex.assignment or {}
            if _order_key(a, b) < _order_key(b, a):
                cex = v.counterexample
        status = "refuted"
        # each broken rule's witness is on its own FAIL line and the first is the counterexample: the reason
        # names the rules, it does not repeat the witnesses
        reason = "broken: " + ", ".join(v.claim.split(":", 1)[0] for v in refuted)
    elif unknown:
        status, cex = "unknown", None
        reason = "; ".join(f"{v.claim.split(':', 1)[0]}: {v.reason}" for v in unknown)
    else:
        status, cex, reason = "proved", None, None
    hows = []
    for v in results:
        how = v.method[len(METHOD) + 2:-1] if v.method != METHOD else None
        if how and how not in hows:
            hows.append(how)
    return RuleVerdict(status, rules=results, warnings=warnings, fields=fields, claim=claim, method=_method(hows),
                       counterexample=cex, reason=reason, elapsed=time.perf_counter() - t0)
