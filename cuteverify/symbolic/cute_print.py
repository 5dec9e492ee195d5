"""Symbolic integer expressions printed in CuTe DSL's (Python's) integer notation, never with sympy's function
names: ``a % b`` (sympy ``Mod``), ``a // b`` (``floor(a/b)``: floor division, CuTe DSL's ``//``; C++'s ``/`` on
non-negative integers), ``ceil_div(a,b)`` (``ceiling(a/b)``, CuTe's ``ceil_div``), ``min(a,b)`` / ``max(a,b)``,
``abs(a)``, ``(x if c else y)`` (``Piecewise``), comparisons ``==`` ``!=`` ``<`` ``<=`` and ``and`` / ``or`` /
``not``. ``/`` stays exact division as the input notation reads it (``M/8`` is an entry that exists where
``8 | M``), so ``parse_expr`` reads every printed ``+ - * / // % **`` expression back to the same value.
Polynomials and rational entries print exactly as sympy's ``sstr`` does, without spaces.

sympy is loaded lazily (``lazy.sympy``): the printer class is built on first use.
"""
from __future__ import annotations

import functools

from .lazy import sympy

__all__ = ["cute_text"]

# spaces that belong to the text (around the keywords ``if`` / ``else`` / ``and`` ...): every other space of
# sympy's printer is dropped, as CuTe DSL prints ``M*(N-1)+3``
_SP = "\x01"
_REL = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def cute_text(expr) -> str:
    """``expr`` (a sympy expression, boolean or relational) in CuTe notation, without spaces except around
    the words of a conditional."""
    return _printer().doprint(expr).replace(" ", "").replace(_SP, " ")


@functools.lru_cache(maxsize=1)
def _printer():
    from sympy.printing.precedence import PRECEDENCE, precedence
    from sympy.printing.str import StrPrinter

    mul = PRECEDENCE["Mul"]

    def prec(item):
        # ``%`` and ``//`` bind as ``*`` does (left to right); a printed call or a parenthesised conditional is
        # an atom
        if isinstance(item, (sympy.Mod, sympy.floor)):
            return mul
        if isinstance(item, (sympy.ceiling, sympy.Min, sympy.Max, sympy.Abs, sympy.Piecewise)):
            return PRECEDENCE["Atom"]
        return precedence(item)

    class CutePrinter(StrPrinter):
        def parenthesize(self, item, level, strict=False):
            p = prec(item)
            if p < level or (not strict and p <= level):
                return f"({self._print(item)})"
            return self._print(item)

        def _left(self, a):  # the left operand of a left-associative ``*`` level operator
            return self.parenthesize(a, mul, strict=True)

        def _right(self, b):
            return self.parenthesize(b, mul)

        def _print_Mul(self, expr):
            # a product with a ``%`` or ``//`` factor: each such factor in parentheses (``8*(3%M)``, and
            # ``-(M//8)``: unary minus binds tighter than ``//``), where sympy's printer would judge a negative
            # product by the precedence of ``+``
            if not any(isinstance(f, (sympy.Mod, sympy.floor)) for f in expr.args):
                return super()._print_Mul(expr)
            c, rest = expr.as_coeff_Mul()
            factors = [self.parenthesize(f, mul) for f in rest.as_ordered_factors()]
            if abs(c.p) != 1:
                factors.insert(0, str(abs(c.p)))
            return ("-" if c < 0 else "") + "*".join(factors) + (f"/{c.q}" if c.q != 1 else "")

        def _print_Mod(self, expr):
            a, b = expr.args
            return f"{self._left(a)}%{self._right(b)}"

        def _print_floor(self, expr):
            num, den = sympy.fraction(sympy.together(expr.args[0]))
            if den == 1:
                return self._print(num)
            return f"{self._left(num)}//{self._right(den)}"

        def _print_ceiling(self, expr):
            num, den = sympy.fraction(sympy.together(expr.args[0]))
            if den == 1:
                return self._print(num)
            return f"ceil_div({self._print(num)},{self._print(den)})"

        def _call(self, name, args):
            return f"{name}({','.join(self._print(a) for a in args)})"

        def _print_Min(self, expr):
            return self._call("min", expr.args)

        def _print_Max(self, expr):
            return self._call("max", expr.args)

        def _print_Abs(self, expr):
            return self._call("abs", expr.args)

        def _print_Piecewise(self, expr):
            parts, last = [], None
            for e, c in expr.args:
                if c == sympy.true:
                    last = self._print(e)
                    break
                parts.append(f"{self._print(e)}{_SP}if{_SP}{self._print(c)}{_SP}else{_SP}")
            return "(" + "".join(parts) + (last if last is not None else "undefined") + ")"

        def _print_Relational(self, expr):
            op = _REL.get(expr.rel_op, expr.rel_op)
            return f"{self._print(expr.lhs)}{op}{self._print(expr.rhs)}"

        def _junction(self, expr, word):
            level = prec(expr)
            return f"{_SP}{word}{_SP}".join(self.parenthesize(a, level) for a in expr.args)

        def _print_And(self, expr):
            return self._junction(expr, "and")

        def _print_Or(self, expr):
            return self._junction(expr, "or")

        def _print_Not(self, expr):
            return f"not{_SP}" + self.parenthesize(expr.args[0], PRECEDENCE["Not"])

        def _print_BooleanTrue(self, expr):
            return "True"

        def _print_BooleanFalse(self, expr):
            return "False"

    return CutePrinter()
