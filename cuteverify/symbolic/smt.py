"""The one bridge from symbolic terms to Z3 (docs/model.md section 5.4): translation, facts, solvers and the
one resource-limit policy.

Translates polynomial sympy terms and the assumptions into Z3 integer arithmetic. Every solver comes from
``solver(budget)`` with a deterministic ``rlimit``: ``QUESTION`` for the algebra's cheap yes/no questions
(``decide``: is the condition or its negation impossible?), ``DECISION`` for a set of facts,
``SYMBOLIC_QUERY`` for the prover's queries about symbolic layouts and ``QUERY`` for those about concrete
ones (collisions, preimages, differences: larger formulas, asked once per claim).
"""
from __future__ import annotations

import itertools

from ..errors import Unsupported, Untranslatable
from .lazy import sympy, z3

# Budgets in Z3's deterministic resource units (about 1-3 million a second on the bench machine): one
# question the algebra asks (``decide``) is answered within 200 thousand in every benchmark case (bench/
# symbolic.py --random), so ``QUESTION`` = 500 thousand bounds an undecidable one to a fraction of a second;
# ``DECISION`` is the budget of a whole set of facts (``satisfiable``) and the base other layers scale
# (hardware/family.py); a symbolic claim's query (nonlinear in the symbols) gets 1.5 million, which keeps
# a claim Z3 cannot settle under 2 s; a concrete layout's query (linear or bit-vector) keeps the large one.
QUESTION = 500_000
DECISION = 2_000_000
SYMBOLIC_QUERY = 1_500_000
QUERY = 20_000_000
QUERY_TIMEOUT_MS = 20_000  # a wall-clock backstop only: the rlimit is what makes answers reproducible


def solver(rlimit=QUERY, timeout_ms=None):
    """A fresh Z3 solver under ``rlimit`` (one of the budgets above) and, where given, a timeout."""
    s = z3.Solver()
    s.set("rlimit", rlimit)
    if timeout_ms is not None:
        s.set("timeout", timeout_ms)
    return s


def check(s) -> str:
    """``"sat"``, ``"unsat"`` or ``"unknown: <Z3's reason>"``."""
    r = s.check()
    if r == z3.sat:
        return "sat"
    if r == z3.unsat:
        return "unsat"
    return "unknown: " + str(s.reason_unknown())


def model_int(model, var):
    """The model's value of an Int or BitVec variable as an int (None if it is not a number)."""
    v = model.eval(var, model_completion=True)
    return v.as_long() if z3.is_int_value(v) or z3.is_bv_value(v) else None


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


def _cleared(kind, a, b):
    """``a`` and ``b`` times the least common multiple ``L`` of their denominators, so that both are
    polynomials Z3's integer arithmetic reads (``M/128 != 1`` becomes ``M != 128``). Exact for every kind:
    ``a == b``, ``a | b`` (``b = k*a`` iff ``L*b = k*(L*a)``) need ``L != 0``, ``<`` and ``<=`` need ``L > 0``,
    so a denominator not known to be positive is left alone (``to_z3`` then refuses the term)."""
    a, b = sympy.sympify(a), sympy.sympify(b)
    if a.is_Integer and b.is_Integer:
        return a, b
    dens = [sympy.together(e).as_numer_denom()[1] for e in (a, b)]
    if all(d == 1 for d in dens):
        return a, b
    lcm = sympy.lcm(dens[0], dens[1])
    if not (lcm.is_Integer and lcm > 0) and not (lcm.is_polynomial() and lcm.is_positive is True):
        return a, b
    return sympy.cancel(sympy.expand(a * lcm)), sympy.cancel(sympy.expand(b * lcm))


def condition_to_z3(kind, a, b, env):
    a, b = _cleared(kind, a, b)
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


def decide(kind, a, b, assumptions, skip=()):
    """True when the facts imply the condition, False when they exclude it, else None. ``skip``: answers
    already seen at an admissible assignment (``{True}``: the condition can hold, so it is not excluded;
    ``{False}``: it can fail), whose Z3 query is not asked."""
    try:
        env: dict = {}
        goal = condition_to_z3(kind, a, b, env)
        facts = assumption_constraints(assumptions, env)
        facts += positivity(env)
        if assumptions is not None:
            # a power of two is 1 or even: a superset of its values, so "no assignment" stays a proof
            facts += [z3.Or(env[n] == 1, env[n] % 2 == 0) for n in sorted(assumptions.pow2 & set(env))]
    except Untranslatable:
        return None

    def unsat(extra):
        s = solver(QUESTION)
        s.add(*facts)
        s.add(extra)
        return s.check() == z3.unsat

    if False not in skip and unsat(z3.Not(goal)):
        return True
    if True not in skip and unsat(goal):
        return False
    return None


#: pow2 symbols range over 2^0..2^POW2_EXP when satisfiability looks for a model
POW2_EXP = 128

_sat_cache: dict = {}


def satisfiable(assumptions):
    """Is there an assignment (positive symbols) satisfying every fact? ``None`` if Z3 cannot tell.

    A pow2 symbol is first relaxed to "1 or even" (no model then: no power of two either, False); a model is
    then looked for with the pow2 symbols among 2^0..2^POW2_EXP (found: True). Where only the relaxation has
    one, the answer is None here (``Assumptions.check_consistent`` decides the univariate cases exactly).
    Remembered per content of the facts (``Assumptions.key``)."""
    key = assumptions.key()
    hit = _sat_cache.get(key, _MISS)
    if hit is not _MISS:
        return hit
    r = _satisfiable(assumptions)
    if len(_sat_cache) > 20000:
        _sat_cache.clear()
    _sat_cache[key] = r
    return r


_MISS = object()


def _witness(assumptions, limit=400):
    """An assignment of small values satisfying every fact (each one evaluated to True), or None: a
    satisfiable set of facts usually has one, and finding it costs no Z3 query."""
    names = set(assumptions.finite) | set(assumptions.pow2)
    consts = set()
    for c in assumptions.conditions:
        names |= {x.name for x in c.symbols()}
        for x in (c.a, c.b):
            if type(x) is int or getattr(x, "is_Integer", False):
                if 0 < int(x) <= 1 << 20:
                    consts |= {int(x), int(x) + 1, 2 * int(x)}
    if not names or len(names) > 4 or any(n.startswith("_") for n in names):
        return None
    pools = []
    for n in sorted(names):
        fin = assumptions.finite.get(n)
        vals = list(fin[:8]) if fin is not None else sorted({1, 2, 3, 4, 8, 16, 64, 256} | consts)
        if n in assumptions.pow2:
            vals = [v for v in vals if v > 0 and not v & (v - 1)]
        pools.append(vals[:12])
    for k, combo in enumerate(itertools.product(*pools)):
        if k >= limit:
            return None
        values = dict(zip(sorted(names), combo))
        if all(c.holds(values) is True for c in assumptions.conditions):
            return values
    return None


def _satisfiable(assumptions):
    if _witness(assumptions) is not None:
        return True
    try:
        env: dict = {}
        facts = assumption_constraints(assumptions, env)
        for name in assumptions.pow2:
            env.setdefault(name, z3.Int(name))
        facts += positivity(env)
    except Untranslatable:
        return None
    s = solver(DECISION)
    s.add(*facts)
    for name in assumptions.pow2:
        v = env[name]
        s.add(z3.Or(v == 1, v % 2 == 0))
    r = s.check()
    if r != z3.sat or not assumptions.pow2:
        return True if r == z3.sat else False if r == z3.unsat else None
    s.add(*[z3.Or(*[env[n] == (1 << k) for k in range(POW2_EXP + 1)]) for n in assumptions.pow2])
    return True if s.check() == z3.sat else None


# --- the prover's terms ---------------------------------------------------------------------------------

def _as_int(e):
    if type(e) is int:
        return e
    if isinstance(e, sympy.Basic) and e.is_Integer:
        return int(e)
    return e


class SymEnv:
    """Symbols and rational expressions -> Z3 Ints. A non-integer expression ``p/q`` becomes a fresh Int
    ``v`` with ``q*v == p`` (so it is an integer wherever it is used); those side conditions are ``side``."""

    def __init__(self):
        self.env = {}
        self.side = []
        self._memo = {}
        self._n = 0

    def term(self, e):
        e = _as_int(e)
        if type(e) is int:
            return z3.IntVal(e)
        key = sympy.srepr(e)
        t = self._memo.get(key)
        if t is not None:
            return t
        check_divisions(e)
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


def check_divisions(e):
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
    out = []
    if assumptions is not None:
        for name in assumptions.pow2:
            v = env.env.get(name)
            if v is not None:
                out.append(z3.Or(*[v == (1 << k) for k in range(max_exp + 1)]))
    return out


def pow2_relaxed(env: SymEnv, pow2_names):
    """``v == 1 or v even`` for each pow2 symbol that has a variable in ``env``: a superset of the powers of
    two, so that no model under it is a proof for every power of two."""
    return [z3.Or(env.env[n] == 1, env.env[n] % 2 == 0) for n in sorted(pow2_names) if n in env.env]


def any_of(terms):
    """The disjunction of Z3 conditions (False for none)."""
    return z3.Or(*terms)


# --- encodings of the prover's queries (prover/z3query.py) ----------------------------------------------

def digits(prefix: str, shapes, env: SymEnv):
    """Mixed-radix digit variables of an index over ``shapes`` (ints or symbolic extents): returns
    ``(digits, index, constraints, size)`` where ``digits[k]`` is the Int ``{prefix}{k}``, ``constraints`` say
    ``0 <= digits[k] < shapes[k]`` and ``index = sum digits[k] * prod(shapes[:k])`` (colexicographic)."""
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


def linear(cs, strides, env: SymEnv):
    """``sum cs[k] * strides[k]`` as a Z3 Int term (strides: ints or symbolic expressions; zeros skipped)."""
    out = z3.IntVal(0)
    for c, d in zip(cs, strides):
        d = _as_int(d)
        if type(d) is int and d == 0:
            continue
        out = out + c * env.term(d)
    return out


def linear_collision(active, rlimit=QUERY, timeout_ms=QUERY_TIMEOUT_MS):
    """Is there a nonzero digit difference ``e`` with ``-shape_k < e_k < shape_k`` and ``sum e_k * stride_k ==
    0``? ``active``: ``(k, shape, stride)`` triples of concrete ints (the modes that move). Returns ``(answer,
    difference)``: ``answer`` as ``check`` gives it; ``difference`` ``{k: e_k}`` for ``"sat"``, else None. No
    difference (``unsat``) means the linear map on the box is injective."""
    s = solver(rlimit, timeout_ms)
    ds = []
    for k, sh, d in active:
        v = z3.Int(f"d{k}")
        s.add(v > -sh, v < sh)
        ds.append((k, v, d))
    s.add(z3.Sum([v * d for _, v, d in ds]) == 0 if ds else z3.BoolVal(False))
    s.add(z3.Or(*[v != 0 for _, v, _ in ds]) if ds else z3.BoolVal(False))
    r = check(s)
    if r != "sat":
        return r, None
    m = s.model()
    return r, {k: model_int(m, v) for k, v, _ in ds}


def bv_var(name: str, width: int):
    """A bit-vector variable of ``width`` bits."""
    return z3.BitVec(name, width)


def bv_below(x, n: int, width: int):
    """``x < n`` on unsigned bit-vectors of ``width`` bits."""
    return z3.ULT(x, z3.BitVecVal(n, width))


def bv_form_value(x, width: int, kind: str, shapes, strides, offset=0, swizzle=None):
    """The value at bit-vector index ``x`` of a concrete layout form, on ``width`` bits (the caller picks a
    width where no term wraps). ``kind``: ``"int"`` (digit * stride terms added), ``"f2"`` (XORed) or
    ``"swizzle"`` (an int form plus ``offset``, then ``swizzle = (yyy_mask, shift)`` applied as CuTe's
    ``Swizzle``: ``v ^ ((v & yyy_mask) >> shift)``, a left shift for a negative ``shift``). Digits are
    colexicographic over ``shapes``."""
    v = z3.BitVecVal(offset if kind == "swizzle" else 0, width)
    rest = x
    n = len(shapes)
    for k, (s, d) in enumerate(zip(shapes, strides)):
        if k == n - 1:
            digit = rest
        else:
            digit = z3.URem(rest, z3.BitVecVal(s, width))
            rest = z3.UDiv(rest, z3.BitVecVal(s, width))
        if d != 0 and s != 1:
            term = digit * z3.BitVecVal(d, width)
            v = (v ^ term) if kind == "f2" else (v + term)
    if kind == "swizzle":
        mask, shift = swizzle
        m = z3.BitVecVal(mask, width)
        if shift >= 0:
            v = v ^ z3.LShR(v & m, shift)
        else:
            v = v ^ ((v & m) << (-shift))
    return v


# --- questions other layers ask -------------------------------------------------------------------------

def entails(premises, assumptions, goals, rlimit=DECISION) -> bool:
    """True when the ``premises`` (``(kind, a, b)`` conditions), the assumptions and the positivity of every
    symbol imply every ``(kind, a, b)`` of ``goals``: Z3 answers unsat for the facts and the negation of their
    conjunction within ``rlimit``. False means "not shown" (a model or no answer), never "refuted".
    Denominators are cleared as ``condition_to_z3`` does; an untranslatable term raises ``Untranslatable``."""
    z: dict = {}
    s = solver(rlimit)
    s.add(*[condition_to_z3(k, a, b, z) for k, a, b in premises])
    s.add(*assumption_constraints(assumptions, z))
    s.add(*positivity(z))
    s.add(z3.Or(*[z3.Not(condition_to_z3(k, a, b, z)) for k, a, b in goals]))
    return check(s) == "unsat"


def least_violation(kind, a, b, assumptions, names, rlimit=QUERY):
    """The assignment of ``names`` (symbols, minimised in this order) that satisfies the assumptions (pow2
    symbols as powers of two up to 2**62) and violates the condition ``(kind, a, b)``. Returns ``(answer,
    values)``: ``("sat", {name: value})``, ``("unsat", None)`` when no such assignment exists within the
    modelled range, else ``("unknown: <reason>", None)``. Raises ``Untranslatable`` / ``Unsupported`` for terms
    outside the translation."""
    env = SymEnv()
    goal = condition_to_z3(kind, a, b, env.env)
    fs = facts(env, assumptions) + env.side + pow2_constraint(env, assumptions)
    opt = z3.Optimize()
    opt.set("rlimit", rlimit)
    opt.add(*fs)
    opt.add(z3.Not(goal))
    for n in names:
        opt.minimize(env.env[n])
    r = opt.check()
    if r == z3.unsat:
        return "unsat", None
    if r != z3.sat:
        return "unknown: " + str(opt.reason_unknown()), None
    m = opt.model()
    return "sat", {k: model_int(m, v) for k, v in env.symbol_vars().items()}
