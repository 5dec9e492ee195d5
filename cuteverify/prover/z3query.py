"""Z3 encodings of the prover's queries (docs/model.md section 9): collisions, differences and, for
bit-level layouts, bit-vector versions. Solvers and facts come from the one bridge, ``symbolic.smt``, under its
``QUERY`` budget (``SYMBOLIC_QUERY`` for symbolic layouts).

Valid for: Int encodings of ``int`` and ``coord`` forms (symbolic or concrete); bit-vector encodings of
concrete ``int``, ``f2`` and ``swizzle`` forms (never ``mixed``: its value is the evaluator's fold order).
"""
from __future__ import annotations

from ..core.tuples import product
from ..errors import Unsupported
from ..symbolic import smt
from ..symbolic.smt import SymEnv, any_of, digits, facts, linear, model_int, pow2_constraint, pow2_relaxed
from . import tables
from .forms import F2_KINDS, Form, as_int, components
from .intlin import Flat
from .tables import collision, differ, proved, refuted, unknown
from .verdict import Counterexample, Differ, Verdict


def solver(symbolic=False):
    """A solver for one prover query: the ``QUERY`` budget of ``symbolic.smt`` (``SYMBOLIC_QUERY`` for a
    query nonlinear in the symbols of a symbolic claim)."""
    return smt.solver(smt.SYMBOLIC_QUERY if symbolic else smt.QUERY, smt.QUERY_TIMEOUT_MS)


def z3_collision_concrete(flat: Flat) -> Verdict:
    r, diff = smt.linear_collision(list(flat.active()))
    if r == "unsat":
        return proved("z3")
    if r == "sat":
        x = [0] * len(flat.shapes)
        y = [0] * len(flat.shapes)
        for k, dv in diff.items():
            if dv > 0:
                x[k] = dv
            else:
                y[k] = -dv
        return refuted("z3", collision((flat.index(x), flat.index(y))))
    return unknown(method="z3", reason=r)


def _model_assignment(m, env: SymEnv):
    return {k: model_int(m, v) for k, v in env.symbol_vars().items()}


def _solve_with_pow2(s, env, hyp):
    """``unsat`` only when no assignment satisfying the relaxed facts (pow2 symbols: positive, 1 or even)
    has a witness, so a proof holds for every power of two. A model that is not a power of two is retried
    with the pow2 symbols restricted to 2^0..2^POW2_MODEL_EXP: that can only find a real model (``sat``); its ``unsat``
    says nothing about larger powers and is reported as unknown."""
    if hyp is not None and hyp.pow2:
        s.add(*pow2_relaxed(env, hyp.pow2))
    r = smt.check(s)
    if r == "sat" and hyp is not None and hyp.pow2:
        values = _model_assignment(s.model(), env)
        if not hyp.holds(values):
            s.add(*pow2_constraint(env, hyp, max_exp=tables.POW2_MODEL_EXP))
            r = smt.check(s)
            if r == "unsat":
                r = (f"unknown: no witness with the pow2 symbols in 2^0..2^{tables.POW2_MODEL_EXP}; larger powers of two "
                     "not decided")
    return r


def z3_injective(f: Form, hyp) -> Verdict:
    if f.kind in F2_KINDS:
        raise Unsupported("symbolic layouts with F2 strides are decided only where their symbols are enumerated")
    env = SymEnv()
    s = solver(symbolic=True)
    xs, _, cx, _ = digits("x", f.shapes, env)
    ys, _, cy, _ = digits("y", f.shapes, env)
    s.add(*cx, *cy)
    if f.kind == "coord":
        for p in f.paths():
            comp = f.component(p)[0]
            s.add(linear(xs, comp, env) == linear(ys, comp, env))
    else:
        s.add(linear(xs, f.strides, env) == linear(ys, f.strides, env))
    s.add(any_of([a != b for a, b in zip(xs, ys)]))
    s.add(*env.side)
    s.add(*facts(env, hyp))
    return _answer(s, env, hyp, "z3", "collision", " (nonlinear in the symbols)")


def _answer(s, env, hyp, method, witness, why=""):
    """The verdict of a query whose goal is unsatisfiable exactly when the property holds: unsat proves it,
    a model refutes it (its assignment of the symbols is the witness, re-checked by the pipeline), anything
    else is unknown."""
    r = _solve_with_pow2(s, env, hyp)
    if r == "unsat":
        return proved(method)
    if r == "sat":
        return refuted(method, Counterexample.of(witness, assignment=_model_assignment(s.model(), env)))
    return unknown(method=method, reason=f"Z3 answered {r}{why}")


def z3_in_range(f: Form, n, hyp) -> Verdict:
    """Every value of an int form (a swizzle form: of its inner form) lies in ``[0, n)``: proved when no
    index reaches a value below 0 or at least ``n``. Valid for int and swizzle forms with integer strides."""
    if f.kind not in ("int", "swizzle"):
        raise Unsupported(f"no range encoding of a {f.kind} form")
    env = SymEnv()
    s = solver(symbolic=True)
    xs, _, cx, _ = digits("x", f.shapes, env)
    s.add(*cx)
    v = linear(xs, f.strides, env)
    s.add(any_of([v < 0, v >= env.term(n)]))
    s.add(*env.side)
    s.add(*facts(env, hyp))
    return _answer(s, env, hyp, "z3-range", "out-of-range")


def z3_onto(f: Form, n, hyp) -> Verdict:
    """``[0, n)`` is the image of an int or swizzle form of size ``n``: proved as injective (Z3) + every value
    in ``[0, n)`` (an injective map of ``n`` points into ``[0, n)`` is onto it); a swizzle keeps ``[0, n)``
    when its changed bits lie below ``n``'s alignment (the caller checks that). The size is the caller's to
    prove equal to ``n``. Never a refutation: a failed part is unknown."""
    v = z3_injective(f, hyp)
    if v.status != "proved":
        return unknown(f"injectivity (Z3) {v.status}: {v.reason or v.status}", "z3")
    r = z3_in_range(f, n, hyp)
    if r.status != "proved":
        return unknown("injective (Z3) but the values were not proved inside [0, size)", "z3")
    return proved("z3 (injective + values inside [0, size))")


def z3_equal(fa: Form, fb: Form, hyp) -> Verdict:
    if fa.kind in F2_KINDS or fb.kind in F2_KINDS:
        raise Unsupported("symbolic layouts with F2 strides are decided only where their symbols are enumerated")
    if fa.kind == "swizzle" or fb.kind == "swizzle":
        if fa.concrete and fb.concrete:
            return z3_equal_bv(fa, fb)
        raise Unsupported("symbolic swizzled layouts are compared only when their symbols range over finite sets")
    env = SymEnv()
    s = solver(symbolic=not (fa.concrete and fb.concrete))
    xs, ix, cx, _ = digits("x", fa.shapes, env)
    ys, iy, cy, _ = digits("y", fb.shapes, env)
    s.add(*cx, *cy, ix == iy)
    ca, cb = components(fa), components(fb)
    diffs = []
    for p in set(ca) | set(cb):
        diffs.append(linear(xs, ca.get(p, [0] * len(xs)), env) != linear(ys, cb.get(p, [0] * len(ys)), env))
    s.add(any_of(diffs))
    s.add(*env.side)
    s.add(*facts(env, hyp))
    r = _solve_with_pow2(s, env, hyp)
    if r == "unsat":
        return proved("z3")
    if r == "sat":
        m = s.model()
        if fa.concrete and fb.concrete:
            flat = Flat(fa.shapes, fa.strides if fa.kind != "coord" else [0] * len(fa.shapes))
            return refuted("z3", differ(flat.index([model_int(m, x) for x in xs])))
        return refuted("z3", Differ(assignment=_model_assignment(m, env)))
    return unknown(method="z3", reason=f"Z3 answered {r}")


def _bv_value(f: Form, x, width):
    """The form's value at index ``x`` as a bit-vector of ``width`` bits (wide enough that no term wraps).
    Valid for int forms (terms added), f2 forms (terms XORed) and swizzles over int forms; never mixed."""
    if f.kind not in ("int", "f2", "swizzle"):
        raise Unsupported(f"no bit-vector encoding of a {f.kind} form")
    sw = (f.swizzle.yyy_mask, f.swizzle.shift) if f.kind == "swizzle" else None
    return smt.bv_form_value(x, width, f.kind, f.shapes, f.strides, as_int(f.offset) if f.kind == "swizzle" else 0,
                             sw)


def _bv_width(forms):
    """Bits enough for the index and every intermediate value of these concrete forms (two's complement for
    negative integer strides, three spare bits)."""
    size = product(tuple(forms[0].shapes))
    bound = size
    for f in forms:
        if f.kind == "f2":
            bound = max([bound] + [(s - 1) * d for s, d in zip(f.shapes, f.strides)])
            continue
        lo, hi = Flat(f.shapes, f.strides, const=as_int(f.offset) if f.kind == "swizzle" else 0).value_range()
        bound = max(bound, abs(lo), abs(hi))
        if f.kind == "swizzle":
            bound = max(bound, f.swizzle.yyy_mask, f.swizzle.zzz_mask)
    return bound.bit_length() + 3


def z3_collision_bv(f: Form) -> Verdict:
    """Two distinct indices with the same value, as a bit-vector query (concrete f2 or int forms)."""
    size = product(tuple(f.shapes))
    width = _bv_width([f])
    x, y = smt.bv_var("x", width), smt.bv_var("y", width)
    s = solver()
    s.add(smt.bv_below(x, size, width), smt.bv_below(y, size, width), x != y)
    s.add(_bv_value(f, x, width) == _bv_value(f, y, width))
    r = smt.check(s)
    if r == "unsat":
        return proved("z3-bitvector")
    if r == "sat":
        m = s.model()
        return refuted("z3-bitvector", collision((model_int(m, x), model_int(m, y))))
    return unknown(method="z3-bitvector", reason=r)


def z3_equal_bv(fa: Form, fb: Form) -> Verdict:
    if fa.kind not in ("int", "f2", "swizzle") or fb.kind not in ("int", "f2", "swizzle"):
        raise Unsupported(f"no bit-vector comparison of {fa.kind} and {fb.kind} forms")
    size = product(tuple(fa.shapes))
    width = _bv_width([fa, fb])
    x = smt.bv_var("x", width)
    s = solver()
    s.add(smt.bv_below(x, size, width))
    s.add(_bv_value(fa, x, width) != _bv_value(fb, x, width))
    r = smt.check(s)
    if r == "unsat":
        return proved("z3-bitvector")
    if r == "sat":
        return refuted("z3-bitvector", differ(model_int(s.model(), x)))
    return unknown(method="z3-bitvector", reason=r)


__all__ = ["solver", "z3_collision_concrete", "z3_injective", "z3_in_range", "z3_onto", "z3_equal", "z3_collision_bv", "z3_equal_bv"]
