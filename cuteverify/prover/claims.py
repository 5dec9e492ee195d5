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
from dataclasses import replace

from ..algebra.expr import evaluate
from ..core.notation.interop import as_layout
from ..core.notation.parse import as_assumptions, parse_tuple
from ..core.notation.scan import ALL, split_top
from ..core.tuples import product
from ..errors import ContradictoryAssumptions, CuteVerifyError, ParseError
from ..symbolic import parse_expr
from . import queries as q
from .verdict import Verdict

PREDICATES = ("injective", "surjective", "bijective", "disjoint", "equal")
_NAME = re.compile(r"\s*([A-Za-z_]\w*)\s*\(")


def _split_top(text, sep):
    """Split at ``sep`` outside brackets (the one scanner, ``core.scan``)."""
    return [piece for piece, _ in split_top(text, sep, ALL)]


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
            return as_layout(v, assume=self.assumptions)
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
    except (ParseError, ContradictoryAssumptions):  # input errors, never a verdict
        raise
    except CuteVerifyError as e:
        return Verdict("unknown", claim=text, method="algebra", reason=f"{type(e).__name__}: {e}",
                       elapsed=time.perf_counter() - t0)
    except (TypeError, ValueError, ArithmeticError, AttributeError, KeyError) as e:
        return Verdict("unknown", claim=text, method="algebra",
                       reason=f"the algebra failed on this claim ({type(e).__name__}: {e})",
                       elapsed=time.perf_counter() - t0)
    return replace(v, claim=text, elapsed=time.perf_counter() - t0)

