"""Claim text -> query. A small recursive-descent parser (CuTe layout text is not Python).

Grammar::

    claim     := predicate | term '==' term
    predicate := ('injective' | 'surjective' | 'bijective' | 'disjoint' | 'equal') '(' args ')'
    term      := op '(' args ')' | NAME (a binding) | layout text | integer | shape tuple
    op        := any name in cuteverify.algebra.__all__

``prove("composition(composition(A,B),C) == composition(A,composition(B,C))", A=..., B=..., C=...)``;
``prove("bijective((M,N):(1,M))", assume=["M >= 1"])``; bindings may be layouts or layout text.
"""
from __future__ import annotations

import re
import time

from ..algebra.expr import evaluate
from ..core.parse import as_assumptions, parse_tuple
from ..core.tuples import product
from ..errors import CuteVerifyError, ParseError
from ..hardware import specs
from ..symbolic import parse_expr
from . import queries as q
from .queries import INTERNAL, _as_layout
from .verdict import Counterexample, Verdict

PREDICATES = ("injective", "surjective", "bijective", "disjoint", "equal")
_NAME = re.compile(r"\s*([A-Za-z_]\w*)\s*\(")


def _split_top(text, sep):
    """Split at ``sep`` outside brackets."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _call(text):
    """``name(args)`` spanning the whole text -> (name, [arg texts]) or None."""
    m = _NAME.match(text)
    if not m or not text.rstrip().endswith(")"):
        return None
    body = text[m.end():text.rstrip().rfind(")")]
    depth = 0
    for ch in body:
        depth += ch in "([<{"
        depth -= ch in ")]>}"
        if depth < 0:
            return None
    if depth != 0:
        return None
    args = [a.strip() for a in _split_top(body, ",")] if body.strip() else []
    return m.group(1), args


class _Env:
    def __init__(self, bindings, assume):
        self.bindings = bindings
        self.assume = assume
        self.assumptions = as_assumptions(assume)
        # assumptions attached to bound layouts hold for the whole claim, also where a layout only feeds a
        # number (surjective(B, size(A)))
        for v in bindings.values():
            a = getattr(v, "assumptions", None)
            if a is not None:
                self.assumptions = a if self.assumptions is None else self.assumptions.merged(a)

    def term(self, text, full):
        """A layout expression: one grammar with the CLI's ``algebra`` verb (``cuteverify.expr``)."""
        t = text.strip()
        c = _call(t)
        if c is not None and c[0] in PREDICATES:
            raise ParseError(full, full.find(t) + 1, "a layout expression (predicates only at the top)", "claim")
        if re.fullmatch(r"[A-Za-z_]\w*", t) and t not in self.bindings:
            raise ParseError(full, max(full.find(t), 0) + 1, f"a layout, but the name {t} is not bound "
                             f"(bind it: {t}=... in Python, --let {t}=... on the command line)", "claim")
        bound = {k: (v if isinstance(v, str) else self._attach(v)) for k, v in self.bindings.items()}
        try:
            return evaluate(t, bound, assume=self.assumptions)
        except ParseError as e:
            raise ParseError(full, max(full.find(t), 0) + e.column, e.expected, "claim") from None

    def number(self, text, full):
        """A size: an integer, a bound int/expression, or an integer expression over symbols."""
        t = text.strip()
        if t in self.bindings and not hasattr(self.bindings[t], "shape") and not isinstance(self.bindings[t], str):
            return self.bindings[t]
        try:
            return parse_expr(t)
        except ParseError:
            pass
        try:
            return parse_tuple(t)  # a codomain box (a shape), not a layout
        except ParseError:
            pass
        v = self.term(t, full)
        if hasattr(v, "shape"):
            raise ParseError(full, max(full.find(t), 0) + 1, "a size (an integer, expression or shape tuple)",
                             "claim")
        return v

    def _attach(self, v):
        if self.assumptions is not None and getattr(v, "assumptions", None) is None and hasattr(v, "shape"):
            return _as_layout(v, self.assumptions)
        return v


def prove(claim: str, assume=None, **bindings) -> Verdict:
    """Prove or refute a claim about layouts (see the module docstring for the grammar)."""
    t0 = time.perf_counter()
    env = _Env(bindings, assume)
    text = claim.strip()
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            raise ParseError(text, i + 1, "no ')' without a matching '('", "claim")
    if depth:
        raise ParseError(text, len(text) + 1, f"{depth} more ')'", "claim")
    try:
        sides = _split_top(text, "==")
        if len(sides) == 2:
            a, b = env.term(sides[0], text), env.term(sides[1], text)
            v = q.are_equal(a, b)
        elif len(sides) == 1:
            c = _call(text)
            if c is None or c[0] not in PREDICATES:
                raise ParseError(text, 1, f"a predicate ({', '.join(PREDICATES)}) or 'lhs == rhs'", "claim")
            name, args = c
            vals = [env.term(x, text) for x in args[:1]] + [env.number(x, text) for x in args[1:2]] \
                if name in ("surjective", "disjoint") else [env.term(x, text) for x in args]
            if name == "disjoint" and len(vals) == 2 and type(vals[1]) is tuple:
                vals[1] = product(vals[1])
            if name == "injective" and len(vals) == 1:
                v = q.is_injective(vals[0])
            elif name == "surjective" and len(vals) in (1, 2):
                v = q.is_surjective(vals[0], vals[1] if len(vals) == 2 else None)
            elif name == "bijective" and len(vals) == 1:
                v = q.is_bijective(vals[0])
            elif name == "disjoint" and len(vals) in (1, 2):
                v = q.complement_disjoint(vals[0], vals[1] if len(vals) == 2 else None)
            elif name == "equal" and len(vals) == 2:
                v = q.are_equal(vals[0], vals[1])
            else:
                raise ParseError(text, 1, f"{name} with the right number of arguments", "claim")
        else:
            raise ParseError(text, 1, "at most one '=='", "claim")
    except ParseError:
        raise
    except CuteVerifyError as e:
        return Verdict("unknown", claim=text, method="algebra", reason=f"{type(e).__name__}: {e}",
                       elapsed=time.perf_counter() - t0)
    except (TypeError, ValueError, ArithmeticError, AttributeError, KeyError) as e:
        return Verdict("unknown", claim=text, method="algebra",
                       reason=f"the algebra failed on this claim ({type(e).__name__}: {e})",
                       elapsed=time.perf_counter() - t0)
    v.claim = text
    v.elapsed = time.perf_counter() - t0
    return v


def agrees(layout, spec_name, operand=None, **params) -> Verdict:
    """Does ``layout`` agree with the hardware spec ``spec_name`` (``cuteverify.specs.agrees``)?

    proved: equal at every (thread, value) / coordinate (exhaustive). refuted: a Counterexample of kind
    ``disagree`` naming the thread, the value index, the element the layout names and the element the
    hardware holds there (``(row, col)``, with the operand's axes), re-checked by evaluating the layout
    there; or of kind ``mismatch`` when the shapes cannot agree (the reason in its note). A spec error
    (unknown spec, missing parameter) is raised as ``SpecError``."""
    t0 = time.perf_counter()
    claim = f"agrees({layout}, {spec_name}" + (f", operand={operand}" if operand is not None else "") + \
        "".join(f", {k}={v}" for k, v in params.items()) + ")"
    r = specs.agrees(layout, spec_name, operand, **params)

    def done(status, **kw):
        return Verdict(status, claim=claim, method=getattr(r, "method", "spec enumeration") or "spec enumeration",
                       elapsed=time.perf_counter() - t0, **kw)

    if r.ok:
        return done("proved")
    c = r.counterexample
    if c is None:
        return done("refuted", counterexample=Counterexample("mismatch", note=r.reason or "the shapes differ"),
                    reason=r.reason)
    detail = {"operand": c.operand, "axes": tuple(c.axes), "user_index": c.user_index,
              "hardware_index": c.hardware_index}
    if c.coordinate is not None:
        cex = Counterexample("disagree", coords=tuple(c.coordinate), values=(c.user_index, c.hardware_index),
                             note=str(c), detail=detail)
    else:
        detail.update(thread=c.thread, value=c.value, value_index=c.value, user=c.user, hardware=c.hardware)
        if c.atom is not None:
            detail.update(atom=c.atom, group=c.group)
        cex = Counterexample("disagree", coords=(c.thread, c.value), values=(c.user, c.hardware), note=str(c),
                             detail=detail)
    try:
        ok = _recheck_agrees(layout, spec_name, params, c)
    except Exception as e:  # noqa: BLE001 (a re-check that crashes is a failed re-check)
        ok, why = False, f"{type(e).__name__}: {e}"
    else:
        why = "the layout does not give the reported element there"
    if not ok:
        return done("unknown", reason=f"{INTERNAL} ({cex}; {why})")
    return done("refuted", counterexample=cex)


def _recheck_agrees(layout, spec_name, params, c):
    """Evaluate the user's layout at the counterexample: it gives ``user_index`` there, which is not the
    hardware's."""
    if c.user_index == c.hardware_index and c.user == c.hardware:
        return False
    kw = dict(params)
    lib = kw.pop("library", None) or specs.default_library()
    spec = specs.resolve(spec_name, kw.pop("dtype", None), lib)
    for k in ("tile", "atom_layout"):
        kw.pop(k, None)
    lay = specs._user_int_layout(layout, spec, spec._params(kw))
    if c.coordinate is not None:
        return lay(*c.coordinate) == c.user_index
    if c.atom is None and c.thread is not None:
        return lay.tv_values([c.thread])[c.value] == c.user_index
    return True
