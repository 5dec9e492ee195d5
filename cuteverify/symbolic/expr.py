"""Symbolic integer expressions (docs/model.md section 5): symbols, normal form, parsing, printing.

Shapes and strides may be sympy expressions over positive integer symbols. sympy is loaded on first use
(``lazy.sympy``) so that concrete work and the CLI's start-up never pay for it.
"""
from __future__ import annotations

import ast

from ..errors import ParseError
from . import poly
from .cute_print import cute_text
from .lazy import sympy

_SYMBOLS: dict = {}


def symbol(name: str) :
    """The integer, positive sympy symbol for ``name`` (one object per name)."""
    s = _SYMBOLS.get(name)
    if s is None:
        s = _SYMBOLS[name] = sympy.Symbol(name, integer=True, positive=True)
    return s


def normalize(x):
    """Ints stay ints; sympy integers become ints; other expressions are expanded-simplified."""
    if type(x) is int:
        return x
    if isinstance(x, sympy.Basic):
        if x.is_Integer:
            return int(x)
        return sympy.factor_terms(sympy.expand(x)) if x.is_Add else x
    return x


def is_symbolic(x) -> bool:
    return isinstance(x, sympy.Basic) and not x.is_Integer


def to_int(x, values: dict):
    """Substitute a full assignment ``{name: int}``; an int, or None if symbols remain."""
    if type(x) is int:
        return x
    if not isinstance(x, sympy.Basic):
        return None
    v = poly.int_at(x, values)  # plain integer arithmetic on the polynomial: no sympy substitution
    if v is not None:
        return None if v is poly.NOT_INT else v
    r = x.subs({symbol(k): v for k, v in values.items()})
    if r.is_Integer:
        return int(r)
    if r.is_Rational:
        return None
    return None


def int_or_none(x):
    """``x`` as a Python int when it is an int or a sympy Integer, else None (a symbolic expression)."""
    if type(x) is int:
        return x
    if isinstance(x, sympy.Basic) and x.is_Integer:
        return int(x)
    return None


_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Add, ast.Sub, ast.Mult,
            ast.FloorDiv, ast.Div, ast.Pow, ast.USub, ast.UAdd, ast.Mod, ast.Load)


def parse_expr(text: str, context: str | None = None, offset: int = 0):
    """An integer expression over symbols: ints, names, + - * / // % ** and parentheses."""
    src = text.strip()
    ctx = context if context is not None else text
    col = offset + (ctx.find(src) if ctx.find(src) >= 0 else 0) + 1
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as e:
        raise ParseError(ctx, col + max((e.offset or 1) - 1, 0), "an integer expression", source="expression") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            c = col + getattr(node, "col_offset", 0)
            raise ParseError(ctx, c, "integers, names, + - * / % ** and parentheses", source="expression")
        if isinstance(node, ast.Constant) and (type(node.value) is not int):
            raise ParseError(ctx, col + node.col_offset, "an integer (no floats or strings)", source="expression")
    try:
        value = _build(tree.body)
    except ZeroDivisionError:
        raise ParseError(ctx, col, "no division or modulo by zero", source="expression") from None
    if isinstance(value, sympy.Basic) and value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise ParseError(ctx, col, "no division or modulo by zero", source="expression")
    return normalize(value)


def _build(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return symbol(node.id)
    if isinstance(node, ast.UnaryOp):
        v = _build(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    a, b = _build(node.left), _build(node.right)
    op = node.op
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        return a * b
    if isinstance(op, ast.Pow):
        return a ** b
    if isinstance(op, ast.Mod):
        return sympy.Mod(a, b) if not (type(a) is int and type(b) is int) else a % b
    if type(a) is int and type(b) is int:
        if isinstance(op, ast.FloorDiv) or a % b == 0:
            return a // b
        return sympy.Rational(a, b)
    if isinstance(op, ast.FloorDiv):
        return sympy.floor(a / b)
    return sympy.sympify(a) / b




def format_value(x) -> str:
    """CuTe DSL's text of a shape or stride entry: ints, tuples, coordinate strides (``v@j@i``: innermost
    index first, as CuTe prints ``v * E<i,j>``), F2 strides and sympy expressions (``cute_print``: no spaces,
    ``%`` / ``//`` / ``min`` ..., never sympy's function names)."""
    if type(x) is int:
        return str(x)
    if type(x) is tuple:
        return "(" + ",".join(format_value(e) for e in x) + ")"
    path = getattr(x, "path", None)
    if path is not None:
        return format_value(x.value) + "".join(f"@{i}" for i in reversed(path))
    if is_symbolic(x) or (_loaded() and isinstance(x, sympy.Basic)):
        return cute_text(x)  # CuTe DSL's integer notation: never sympy's Mod / floor / Piecewise
    return str(x)


def _loaded() -> bool:
    import sys
    return type(sys.modules.get("sympy")).__name__ == "module" and hasattr(sys.modules["sympy"], "Basic")
