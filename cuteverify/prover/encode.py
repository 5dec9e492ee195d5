"""Layouts as data the decision procedures read, and as Z3 terms.

``Form``: the flat leaves of a layout, split by stride domain. Integer strides stay one list; coordinate
strides (``ScaledBasis``) are grouped by their coordinate (a canonical path: ``E<1,0>`` and ``E<1>`` denote
the same coordinate, as ``ArithTuple`` addition identifies them); a swizzled layout keeps its swizzle and
offset around an integer inner form.

Z3 encodings use ``Int`` for integer and coordinate strides and ``BitVec`` for swizzles, never both in
one query. Z3 is imported lazily; every query gets a fresh solver with a deterministic ``rlimit``.
"""
from __future__ import annotations

import sympy

from ..core.strides import F2, ScaledBasis
from ..core.tuples import flatten
from ..symbolic.smt import condition_to_z3, to_z3

RLIMIT = 20_000_000
TIMEOUT_MS = 20_000


class Unsupported(Exception):
    """The layout uses something this prover does not model (the query answers unknown with the text)."""


def canon_path(path):
    path = tuple(path)
    while path and path[-1] == 0:
        path = path[:-1]
    return path


def norm_value(v, prefix=()):
    """A layout value as ``{canonical path: int}`` without zero entries (ints are the path ``()``)."""
    out = {}
    if isinstance(v, tuple):
        for i, x in enumerate(v):
            for k, y in norm_value(x, prefix + (i,)).items():
                out[k] = out.get(k, 0) + y
        return {k: y for k, y in out.items() if y != 0}
    if isinstance(v, ScaledBasis):
        return norm_value(v.as_tuple(), prefix)
    if v != 0:
        out[canon_path(prefix)] = v
    return out


def is_symbolic(x):
    return isinstance(x, sympy.Basic) and not x.is_Integer


def as_int(x):
    if type(x) is int:
        return x
    if isinstance(x, sympy.Basic) and x.is_Integer:
        return int(x)
    if isinstance(x, F2):
        return x  # an F2 stride is not an integer stride: never unwrapped silently
    return x


class Form:
    """``kind``: 'int' (strides ints/expressions), 'coord' (strides ``(path, value)`` or None for 0),
    'f2' (the ints ``v`` of F2 strides ``^v``, 0 for integer-0 strides), 'mixed' (F2 values and non-zero
    integer strides, as ints: only ``layout``'s own evaluation is meaningful), 'swizzle' (int inner form with
    ``swizzle`` and ``offset``)."""

    __slots__ = ("kind", "shapes", "strides", "swizzle", "offset", "layout")

    def __init__(self, kind, shapes, strides, swizzle=None, offset=0, layout=None):
        self.kind, self.shapes, self.strides = kind, shapes, strides
        self.swizzle, self.offset, self.layout = swizzle, offset, layout

    @property
    def concrete(self):
        vals = list(self.shapes) + [self.offset]
        if self.kind == "coord":
            vals += [s[1] for s in self.strides if s is not None]
        else:
            vals += list(self.strides)
        return all(type(as_int(v)) is int for v in vals)

    def paths(self):
        return sorted({s[0] for s in self.strides if s is not None})

    def component(self, path, restricted=False):
        """Integer strides of one coordinate: other modes get stride 0 (or, restricted, are listed in the
        returned ignore set)."""
        strides, ignore = [], set()
        for k, s in enumerate(self.strides):
            if s is not None and s[0] == path:
                strides.append(s[1])
            else:
                strides.append(0)
                if restricted and not (s is None):
                    ignore.add(k)
        return strides, ignore


F2_KINDS = ("f2", "mixed")


def decompose(layout) -> Form:
    """The layout as a ``Form``, its kind saying which stride domain every leaf stride lies in: ``int``
    (integers or integer expressions), ``coord`` (``E<i>`` coordinate strides; integer 0 allowed), ``f2``
    (F2 strides ``^v`` with non-negative integer ``v``; integer 0 allowed: ``x + 0 == x ^ 0``), ``mixed``
    (F2 and non-zero integer strides: the value depends on the order and nesting in which the evaluator
    folds the modes, so only the evaluator itself decides it), ``swizzle`` (a swizzle over an ``int``
    inner form). Anything else raises ``Unsupported`` (the query answers unknown)."""
    if hasattr(layout, "outer"):
        inner = layout.inner
        if not hasattr(inner, "bits"):
            raise Unsupported("composed layouts whose inner function is a layout (not a swizzle) are not modelled")
        f = decompose(layout.outer)
        if f.kind != "int":
            raise Unsupported(f"a swizzle over {f.kind} strides is not modelled")
        return Form("swizzle", f.shapes, f.strides, inner, as_int(layout.offset), layout)
    shapes = [as_int(s) for s in flatten(layout.shape)]
    raw = list(flatten(layout.stride))
    if any(isinstance(d, F2) for d in raw):
        return _decompose_f2(shapes, raw, layout)
    if any(isinstance(d, ScaledBasis) for d in raw):
        strides = []
        for d in raw:
            if isinstance(d, ScaledBasis):
                v = as_int(d.value)
                if isinstance(v, F2):
                    raise Unsupported(f"coordinate stride {d} with an F2 value is not modelled")
                strides.append(None if (type(v) is int and v == 0) else (canon_path(d.path), v))
            elif type(as_int(d)) is int and as_int(d) == 0:
                strides.append(None)
            else:
                raise Unsupported(f"a layout mixing integer stride {d} with coordinate strides is not modelled")
        return Form("coord", shapes, strides, layout=layout)
    return Form("int", shapes, [as_int(d) for d in raw], layout=layout)


def _decompose_f2(shapes, raw, layout):
    strides, mixed = [], False
    for d in raw:
        if isinstance(d, ScaledBasis):
            raise Unsupported("a layout mixing F2 and coordinate strides is not modelled")
        if isinstance(d, F2):
            v = as_int(d.value)
            if type(v) is not int or v < 0:
                raise Unsupported(f"F2 stride {d}: only non-negative integer F2 strides are modelled")
            strides.append(v)
            continue
        v = as_int(d)
        if type(v) is not int:
            raise Unsupported(f"a layout mixing F2 strides with the symbolic integer stride {d} is not modelled")
        mixed = mixed or v != 0
        strides.append(v)
    return Form("mixed" if mixed else "f2", shapes, strides, layout=layout)


# --- Z3 --------------------------------------------------------------------------------------------------

def solver(rlimit=RLIMIT, timeout_ms=TIMEOUT_MS):
    import z3
    s = z3.Solver()
    s.set("rlimit", rlimit)
    s.set("timeout", timeout_ms)
    return s


class SymEnv:
    """Symbols and rational expressions -> Z3 Ints. A non-integer expression ``p/q`` becomes a fresh Int
    ``v`` with ``q*v == p`` (so it is an integer wherever it is used)."""

    def __init__(self):
        self.env = {}
        self.side = []
        self._memo = {}
        self._n = 0

    def term(self, e):
        import z3
        e = as_int(e)
        if type(e) is int:
            return z3.IntVal(e)
        key = sympy.srepr(e)
        t = self._memo.get(key)
        if t is not None:
            return t
        _check_divisions(e)
        num, den = sympy.together(e).as_numer_denom()
        if den.is_Integer and int(den) != 1:
            v = z3.Int(f"_q{self._n}")
            self._n += 1
            self.side.append(int(den) * v == to_z3(sympy.expand(num), self.env))
            t = v
        else:
            t = to_z3(sympy.expand(e), self.env)
        self._memo[key] = t
        return t

    def symbol_vars(self):
        return {k: v for k, v in self.env.items() if not k.startswith("_")}


def _check_divisions(e):
    """Z3's integer ``div``/``mod`` agree with Python's ``//``/``%`` (sympy's floor/Mod) only for a positive
    divisor; anything else is not translated (a silent mismatch could prove a false claim)."""
    for node in sympy.preorder_traversal(e):
        if isinstance(node, sympy.Mod) and node.args[1].is_positive is not True:
            raise Unsupported(f"{node}: a remainder by a divisor not known to be positive is not modelled")
        if isinstance(node, sympy.floor):
            den = node.args[0].as_numer_denom()[1]
            if den.is_positive is not True:
                raise Unsupported(f"{node}: a floor division by a divisor not known to be positive is not "
                                  "modelled")


def facts(env: SymEnv, assumptions, conditions=()):
    """Z3 facts for the symbols: positivity, the assumptions (pow2 relaxed to positivity, which is sound for
    proofs; models are checked against the full assumptions afterwards) and extra conditions."""
    import z3
    out = []
    if assumptions is not None:
        for c in assumptions.conditions:
            out.append(condition_to_z3(c.kind, c.a, c.b, env.env))
        for name, vals in assumptions.finite.items():
            v = env.env.get(name)
            if v is None:  # (a Z3 term has no truth value: no ``or`` here)
                v = env.env[name] = z3.Int(name)
            out.append(z3.Or(*[v == x for x in vals]))
    for c in conditions:
        out.append(condition_to_z3(c.kind, c.a, c.b, env.env))
    out += [v > 0 for k, v in env.env.items() if not k.startswith("_")]
    return out


def pow2_constraint(env: SymEnv, assumptions, max_exp=62):
    """A finite disjunction that makes pow2 symbols powers of two (for finding models only)."""
    import z3
    out = []
    if assumptions is not None:
        for name in assumptions.pow2:
            v = env.env.get(name)
            if v is not None:
                out.append(z3.Or(*[v == (1 << k) for k in range(max_exp + 1)]))
    return out


def coords(prefix, shapes, env: SymEnv):
    """Digit variables ``0 <= c_k < s_k`` and the index ``sum c_k * prefix_k`` (Int)."""
    import z3
    cs, cons = [], []
    idx = z3.IntVal(0)
    p = z3.IntVal(1)
    for k, s in enumerate(shapes):
        c = z3.Int(f"{prefix}{k}")
        st = env.term(s)
        cons += [c >= 0, c < st]
        cs.append(c)
        idx = idx + c * p
        p = p * st
    return cs, idx, cons, p


def lin(cs, strides, env: SymEnv):
    import z3
    out = z3.IntVal(0)
    for c, d in zip(cs, strides):
        d = as_int(d)
        if type(d) is int and d == 0:
            continue
        out = out + c * env.term(d)
    return out


def model_int(model, var):
    import z3
    v = model.eval(var, model_completion=True)
    return v.as_long() if z3.is_int_value(v) or z3.is_bv_value(v) else None


__all__ = ["Form", "decompose", "norm_value", "canon_path", "Unsupported", "solver", "SymEnv", "facts", "coords",
           "lin", "pow2_constraint", "model_int", "as_int", "is_symbolic", "RLIMIT"]
