"""A small, safe integer formula language for hardware specs.

The YAML spec library (``specs/*.yaml``) describes, next to each CuTe layout taken from CUTLASS, an
independent formula taken from the PTX ISA, e.g. ``row: "groupID + 8*((i>>1)&1)"``.  This module turns such
text into fast Python callables without ever handing untrusted text to ``eval``:

* the text is parsed with :mod:`ast` (``mode="eval"``) and every node is checked against a whitelist:
  int literals, names, ``+ - * // % >> << & | ^ ~`` (and unary ``+``/``-``), parentheses, comparisons,
  ``a if c else b``, ``and``/``or``/``not`` over comparisons, and calls to ``min``/``max`` only;
* names must be declared variables or *helpers* (named sub-formulas such as ``groupID = lane >> 2``); helpers
  are inlined into the tree, so a compiled formula is one flat expression;
* the checked tree is compiled once into a Python function (``compile`` of the checked tree, evaluated with
  empty builtins), so evaluating it costs one Python call.  :func:`table` compiles several formulas into a
  single list comprehension over all (outer, inner) argument pairs, which is what the spec self-check uses
  to evaluate every (thread, value) pair of the library in a fraction of a second.

Errors raise :class:`FormulaError`, whose message names the formula text and the offending token.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from ...errors import FormulaError

__all__ = ["FormulaError", "Formula", "parse", "compile_formula", "table", "resolve_helpers"]


_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
    ast.RShift: ">>", ast.LShift: "<<", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
}
_UNARYOPS = {ast.Invert: "~", ast.USub: "-", ast.UAdd: "+", ast.Not: "not"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_CALLS = {"min": min, "max": max}
# Python operator spelled as the user would have typed it, for error messages.
_BAD_TOKENS = {
    ast.Div: "/", ast.Pow: "**", ast.MatMult: "@", ast.Attribute: ".", ast.Subscript: "[",
    ast.Lambda: "lambda", ast.List: "[", ast.Tuple: ",", ast.Dict: "{", ast.Set: "{",
    ast.Starred: "*", ast.NamedExpr: ":=", ast.JoinedStr: "f-string", ast.Is: "is",
    ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}


def _token(node: ast.AST) -> str:
    for cls, tok in _BAD_TOKENS.items():
        if isinstance(node, cls):
            return tok
    if isinstance(node, ast.BinOp):
        return _token(node.op)
    if isinstance(node, ast.Constant):
        return repr(node.value)
    if isinstance(node, ast.Call):
        try:
            return ast.unparse(node.func)
        except Exception:  # pragma: no cover - defensive
            return "call"
    return type(node).__name__


def _col(node: ast.AST) -> int | None:
    c = getattr(node, "col_offset", None)
    return None if c is None else c + 1


@dataclass(frozen=True)
class Formula:
    """A checked formula: its text, the checked expression tree (helpers inlined) and its free names."""

    text: str
    tree: ast.expr = field(repr=False, compare=False)
    names: frozenset

    @functools.cached_property
    def key(self) -> str:
        """A hashable structural key (helpers inlined): equal keys evaluate identically."""
        return ast.dump(self.tree)

    def compile(self, variables: Sequence[str]) -> Callable[..., int]:
        """A Python function of ``variables`` (positional, in that order) evaluating this formula."""
        return compile_formula(self, variables)

    def __call__(self, **env: int) -> int:
        """Evaluate once with keyword variables (slow path, for messages and tests)."""
        return self.compile(sorted(env))(*(env[k] for k in sorted(env)))


def _check(node: ast.AST, text: str, allowed: frozenset, helpers: Mapping[str, "Formula"]) -> ast.expr:
    """Validate ``node`` and return a fresh tree with helpers inlined."""
    if isinstance(node, ast.Expression):
        return _check(node.body, text, allowed, helpers)
    if isinstance(node, ast.Constant):
        if type(node.value) is int:  # bool is excluded on purpose
            return ast.Constant(node.value)
        raise FormulaError(text, "only integer literals are allowed", _token(node), _col(node))
    if isinstance(node, ast.Name):
        if node.id in helpers:
            return helpers[node.id].tree
        if node.id in allowed:
            return ast.Name(node.id, ast.Load())
        raise FormulaError(text, "unknown name", node.id, _col(node))
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _BINOPS:
            raise FormulaError(text, "operator not allowed (use // for integer division)",
                               _token(node.op), _col(node))
        return ast.BinOp(_check(node.left, text, allowed, helpers), node.op,
                         _check(node.right, text, allowed, helpers))
    if isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARYOPS:
            raise FormulaError(text, "unary operator not allowed", _token(node.op), _col(node))
        return ast.UnaryOp(node.op, _check(node.operand, text, allowed, helpers))
    if isinstance(node, ast.Compare):
        for op in node.ops:
            if type(op) not in _CMPOPS:
                raise FormulaError(text, "comparison not allowed", _token(op), _col(node))
        return ast.Compare(_check(node.left, text, allowed, helpers), list(node.ops),
                           [_check(c, text, allowed, helpers) for c in node.comparators])
    if isinstance(node, ast.BoolOp):
        return ast.BoolOp(node.op, [_check(v, text, allowed, helpers) for v in node.values])
    if isinstance(node, ast.IfExp):
        return ast.IfExp(_check(node.test, text, allowed, helpers), _check(node.body, text, allowed, helpers),
                         _check(node.orelse, text, allowed, helpers))
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _CALLS:
            raise FormulaError(text, "only min(...) and max(...) may be called", _token(node), _col(node))
        if node.keywords or len(node.args) < 2:
            raise FormulaError(text, f"{node.func.id} takes two or more positional arguments",
                               node.func.id, _col(node))
        return ast.Call(ast.Name(node.func.id, ast.Load()),
                        [_check(a, text, allowed, helpers) for a in node.args], [])
    raise FormulaError(text, "syntax not allowed in formulas", _token(node), _col(node))


def _free_names(tree: ast.AST) -> frozenset:
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in _CALLS)


def parse(text, variables: Iterable[str], helpers: Mapping[str, Formula] | None = None) -> Formula:
    """Parse and check ``text`` (a str, or an int which is taken literally).

    ``variables`` are the names the caller will bind; ``helpers`` are already-parsed named formulas that are
    inlined where their name appears.  Raises :class:`FormulaError` for anything outside the language.
    """
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise FormulaError(repr(text), "a formula must be a string or an integer")
    src = str(text)
    helpers = dict(helpers or {})
    try:
        root = ast.parse(src.strip(), mode="eval")
    except SyntaxError as e:
        bad = None
        if e.text and e.offset:
            bad = e.text[max(e.offset - 1, 0):][:8].strip() or None
        raise FormulaError(src, f"syntax error: {e.msg}", bad, e.offset) from None
    tree = _check(root, src, frozenset(variables), helpers)
    ast.fix_missing_locations(tree)
    return Formula(src, tree, _free_names(tree))


def resolve_helpers(defs: Mapping[str, object], variables: Iterable[str],
                    base: Mapping[str, Formula] | None = None) -> dict:
    """Parse a mapping of helper definitions in order; each may use the variables and earlier helpers."""
    out: dict = dict(base or {})
    variables = frozenset(variables)
    for name, text in defs.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise FormulaError(str(name), "helper names must be identifiers")
        if name in variables or name in _CALLS:
            raise FormulaError(str(name), "helper name shadows a variable or builtin", name)
        out[name] = parse(text, variables, out)
    return out


_SAFE_GLOBALS = {"__builtins__": {}, "min": min, "max": max}


def _lambda_source(args: Sequence[str], exprs: Sequence[ast.expr]) -> ast.Expression:
    body = exprs[0] if len(exprs) == 1 else ast.Tuple(list(exprs), ast.Load())
    lam = ast.Lambda(
        ast.arguments(posonlyargs=[], args=[ast.arg(a) for a in args], vararg=None, kwonlyargs=[],
                      kw_defaults=[], kwarg=None, defaults=[]),
        body)
    expr = ast.Expression(lam)
    ast.fix_missing_locations(expr)
    return expr


def compile_formula(f: Formula, variables: Sequence[str]) -> Callable[..., int]:
    """Compile a checked formula into ``lambda *variables: value``."""
    missing = f.names - set(variables)
    if missing:
        raise FormulaError(f.text, "unbound name", sorted(missing)[0])
    code = compile(_lambda_source(list(variables), [f.tree]), f"<formula {f.text}>", "eval")
    return eval(code, dict(_SAFE_GLOBALS))  # noqa: S307 - tree was whitelisted by _check


def table(formulas: Sequence[Formula], outer: Sequence[str], inner: Sequence[str],
          constants: Sequence[str] = ()) -> Callable:
    """Compile formulas into ``fn(outer_rows, inner_rows, *constants) -> list``.

    The result lists, for every ``o`` in ``outer_rows`` (tuples binding ``outer`` names) and, nested inside,
    every ``v`` in ``inner_rows`` (tuples binding ``inner`` names), the value of the single formula, or the
    tuple of values when several are given.  One comprehension, no per-element function call.
    """
    bound = set(outer) | set(inner) | set(constants)
    for f in formulas:
        missing = f.names - bound
        if missing:
            raise FormulaError(f.text, "unbound name", sorted(missing)[0])
    body = formulas[0].tree if len(formulas) == 1 else ast.Tuple([f.tree for f in formulas], ast.Load())

    def target(names):  # rows are always tuples, even of one name
        return ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())

    comp = ast.ListComp(body, [
        ast.comprehension(target(list(outer)), ast.Name("_outer", ast.Load()), [], 0),
        ast.comprehension(target(list(inner)), ast.Name("_inner", ast.Load()), [], 0),
    ])
    lam = _lambda_source(["_outer", "_inner", *constants], [comp])
    code = compile(lam, "<formula table>", "eval")
    return eval(code, dict(_SAFE_GLOBALS))  # noqa: S307 - trees were whitelisted by _check
