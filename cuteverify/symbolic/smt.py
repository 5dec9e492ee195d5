"""The bridge from symbolic terms to Z3 (docs/model.md section 5.4): translation and the one rlimit policy.

Translates polynomial sympy terms and the assumptions into Z3 integer arithmetic and asks, under a
deterministic resource limit, whether the condition or its negation is impossible.
"""
from __future__ import annotations

from ..errors import Untranslatable
from .lazy import sympy, z3

RLIMIT = 2_000_000


def to_z3(expr, env: dict):
    expr = sympy.sympify(expr)
    if expr.is_Integer:
        return z3.IntVal(int(expr))
    if expr.is_Symbol:
        v = env.get(expr.name)
        if v is None:
            v = env[expr.name] = z3.Int(expr.name)
        return v
    if expr.is_Add:
        terms = [to_z3(t, env) for t in expr.args]
        return sum(terms[1:], terms[0])
    if expr.is_Mul:
        terms = [to_z3(t, env) for t in expr.args]
        out = terms[0]
        for t in terms[1:]:
            out = out * t
        return out
    if expr.is_Pow and expr.exp.is_Integer and int(expr.exp) >= 0:
        base = to_z3(expr.base, env)
        out = z3.IntVal(1)
        for _ in range(int(expr.exp)):
            out = out * base
        return out
    if isinstance(expr, sympy.Mod):
        return to_z3(expr.args[0], env) % to_z3(expr.args[1], env)
    if isinstance(expr, sympy.floor) and expr.args[0].is_Mul:
        num, den = expr.args[0].as_numer_denom()
        return to_z3(num, env) / to_z3(den, env)
    raise Untranslatable(str(expr))


def condition_to_z3(kind, a, b, env):
    za, zb = to_z3(a, env), to_z3(b, env)
    if kind == "eq":
        return za == zb
    if kind == "ne":
        return za != zb
    if kind == "lt":
        return za < zb
    if kind == "le":
        return za <= zb
    if kind == "divides":
        return z3.If(za == 0, zb == 0, zb % za == 0)
    raise ValueError(kind)


def assumption_constraints(assumptions, env):
    """Z3 constraints for every symbol in ``env`` (positivity) and every fact of ``assumptions``."""
    out = []
    if assumptions is not None:
        for c in assumptions.conditions:
            out.append(condition_to_z3(c.kind, c.a, c.b, env))
        for name, vals in assumptions.finite.items():
            v = env[name] if name in env else env.setdefault(name, z3.Int(name))
            out.append(z3.Or(*[v == x for x in vals]))
    return out


def positivity(env):
    return [v > 0 for k, v in env.items() if not k.startswith("_")]


def decide(kind, a, b, assumptions):
    try:
        env: dict = {}
        goal = condition_to_z3(kind, a, b, env)
        facts = assumption_constraints(assumptions, env)
        facts += positivity(env)
        if assumptions is not None and assumptions.pow2 & set(env):
            return None  # powers of two are not polynomial: leave them to the prover
    except Untranslatable:
        return None

    def unsat(extra):
        s = z3.Solver()
        s.set("rlimit", RLIMIT)
        s.add(*facts)
        s.add(extra)
        return s.check() == z3.unsat

    if unsat(z3.Not(goal)):
        return True
    if unsat(goal):
        return False
    return None


def satisfiable(assumptions):
    """Is there an assignment (positive symbols) satisfying every fact? ``None`` if Z3 cannot tell."""
    try:
        env: dict = {}
        facts = assumption_constraints(assumptions, env)
        for name in assumptions.pow2:
            env.setdefault(name, z3.Int(name))
        facts += positivity(env)
    except Untranslatable:
        return None
    s = z3.Solver()
    s.set("rlimit", RLIMIT)
    s.add(*facts)
    r = s.check()
    return True if r == z3.sat else False if r == z3.unsat else None
