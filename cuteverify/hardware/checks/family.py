"""Whole spec families proved at once (issue 19): a TV layout whose family parameters stay symbols (``N`` in
``((4,8,4),(2,2,N/8)):(...)``) against the spec's PTX formula, for every parameter value the assumptions allow,
by one Z3 query through the one bridge (``symbolic.smt``). Used by the self-check (the spec's own layout) and
by ``agrees`` (a user's symbolic layout); where no proof goes through, the callers instantiate each value.
"""
from __future__ import annotations

import ast

from ...core.layout import Layout, leaves, size
from ...core.tuples import product
from ...errors import CuteVerifyError, NotLinear
from ...prover.queries import is_bijective
from ...symbolic import Assumptions, Condition, decide, parse_expr, smt, symbol
from ...symbolic.lazy import sympy
from ..library import formula as _fm
from ..library.spec import Spec, operand_formulas, operand_tile
from ..library.ptx_tables import spec_int_layout

__all__ = ["clear_cache", "family_facts", "symbolic_tv_agreement", "values_text"]

# Memoised proofs, keyed by everything a proof reads.
_PROVED: dict = {}


def clear_cache() -> None:
    _PROVED.clear()


def values_text(vals) -> str:
    """A parameter set as text: ``8..256 step 8`` for a progression, else ``{8,16,32}``."""
    vals = sorted(vals)
    if len(vals) > 3 and vals == list(range(vals[0], vals[-1] + 1, vals[1] - vals[0])):
        return f"{vals[0]}..{vals[-1]} step {vals[1] - vals[0]}"
    return "{" + ",".join(map(str, vals)) + "}"


def family_facts(spec: Spec, names) -> Assumptions | None:
    """The family's parameter set for ``names`` as assumptions: an arithmetic progression ``lo, lo+s, .., hi``
    is ``lo <= P <= hi`` and ``s | P - lo``, any other list a finite set. None for a family whose ``constraint``
    ties parameters together (not translated: instances are checked)."""
    if spec.data.get("constraint") is not None:
        return None
    facts = []
    for k in sorted(names):
        vals = sorted(spec.params[k])
        if not vals or any(type(v) is not int for v in vals):
            return None
        step = vals[1] - vals[0] if len(vals) > 1 else 1
        P = symbol(k)
        if len(vals) > 2 and step > 0 and vals == list(range(vals[0], vals[-1] + 1, step)):
            facts += [Condition("le", vals[0], P), Condition("le", P, vals[-1])]
            if step > 1:
                facts.append(Condition("divides", step, P - vals[0]))
        else:
            facts.append(f"{k} in {{{','.join(map(str, vals))}}}")
    return Assumptions(facts)


def symbolic_tv_agreement(spec: Spec, operand: str, layout, asm, coverage: bool = True) -> bool:
    """One proof, for every parameter value ``asm`` allows, that the symbolic TV ``layout`` (its family
    parameters as symbols) equals the spec's formula at every (thread, value) and, with ``coverage``, covers
    the tile as the spec declares. True: proved (Z3 found no (parameters, thread, value) where they differ);
    False: not proved here (a formula outside the translated vocabulary, a non-linear query Z3 gives up on,
    or a real disagreement), so the caller instantiates. Never False for True: every term is an exact
    encoding of the Python integer semantics of the formula (``//``, ``%``, ``>>``, ``&`` by floor division).
    Valid for mma specs with plain integer-stride layouts (no swizzle)."""
    if spec.kind != "mma" or type(layout) is not Layout or type(layout.shape) is not tuple or len(layout.shape) != 2:
        return False
    fs, node = operand_formulas(spec, operand), spec.data["operands"][operand]
    # everything the proof reads: specs that share an operand (the wgmma accumulator) prove it once
    mnk = [str(x) for x in spec.data["shape_mnk"]]
    tile = operand_tile(operand, *mnk)
    key = ("family", str(layout), fs["row"].key, fs["col"].key, tile, spec.threads,
           spec.data["thr_id"], node.get("broadcast"), node.get("multiplicity"), node.get("values"),
           tuple(asm.texts), tuple(sorted(asm.finite.items())), coverage)
    if key not in _PROVED:
        try:
            _PROVED[key] = _symbolic_tv(spec, operand, layout, asm, coverage)
        except (CuteVerifyError, KeyError, TypeError, ValueError, ZeroDivisionError):
            _PROVED[key] = False
    return _PROVED[key]


# Z3's budget for one family proof: a proof that needs more is left to the instances (they decide it exactly).
_RLIMIT = 4 * smt.DECISION


def _symbolic_tv(spec, operand, layout, asm, coverage):
    tr = _Terms()
    m, n, k = (parse_expr(str(x)) for x in spec.data["shape_mnk"])
    if operand not in ("A", "B", "C", "D"):  # e.g. sparse metadata: its tile is not (rows, cols) of the product
        return False
    R, C, order = operand_tile(operand, m, n, k)
    (ts, td), (vs, vd) = (leaves(layout[j]) for j in (0, 1))
    nthr, nval = product(ts), product(vs)
    node = spec.data["operands"][operand]
    mult = 1 if node.get("broadcast") == "all" else int(node.get("multiplicity", 1))
    per_thread = node.get("values")
    want_vals = parse_expr(str(per_thread)) if per_thread is not None else \
        (R * C * (spec.threads if mult == 1 and node.get("broadcast") == "all" else mult)) / spec.threads
    with decide.context(asm):
        if decide.eq(nthr, spec.threads) is not True or decide.eq(nval, want_vals) is not True:
            return False
        if coverage and not _covers(layout, node, R * C, mult, asm):
            return False
    t, tval = tr.digits(ts, td)
    i, val = tr.digits(vs, vd)
    tid = _thr_id(tr, spec, t)
    lane, warp = tr.mod(tid, 32), tr.div(tid, 32)
    env = {"thread": t, "tid": tid, "lane": lane, "warp": warp, "i": i}
    env.update({p: symbol(p) for p in spec.params})
    fs = operand_formulas(spec, operand)
    with decide.context(asm):  # parameter-only quotients fold exactly where the facts make them exact
        r, c = tr.term(fs["row"].tree, env), tr.term(fs["col"].tree, env)
    idx = {"col": r + R * c, "row_b": c + C * r}.get(order, r * C + c)
    # the one bridge, denominators cleared (``M/2*q <= a`` is ``M*q <= 2*a``)
    goals = [("le", 0, r), ("lt", r, R), ("le", 0, c), ("lt", c, C), ("eq", tval + val, idx)]
    return smt.entails([(cd.kind, cd.a, cd.b) for cd in tr.side], asm, goals, _RLIMIT)


def _thr_id(tr, spec, t):
    """The physical thread ``ThrID(t)`` of the logical thread term ``t`` (``0 <= t < threads``): ThrID's
    colex digits of ``t``, each an exact quotient/remainder term, times ThrID's strides (SM70's
    ``(4,2):(1,16)`` sends logical thread 4 to lane 16). The identity (``128:1``, ``2:1``, ``1:0``) is ``t``
    itself. ThrID is a plain integer layout without parameters (anything else: no family proof)."""
    thr = spec_int_layout(spec, "thr_id", {})
    if thr.size != spec.threads or thr.swizzle is not None or thr.base:
        raise NotLinear("ThrID does not have the atom's threads")
    if thr.values() == list(range(thr.size)):
        return t
    lay = spec.thr_id()
    if type(lay) is not Layout:
        raise NotLinear("ThrID is not a plain layout")
    shapes, strides = leaves(lay)
    if any(type(x) is not int for x in tuple(shapes) + tuple(strides)):
        raise NotLinear("ThrID is not a plain integer layout")
    tid, pre = 0, 1
    for sh, st in zip(shapes, strides):
        if sh != 1:
            tid += tr.mod(tr.div(t, pre), sh) * st
        pre *= sh
    return tid


def _covers(layout, node, n, mult, asm) -> bool:
    """The operand covers its ``n``-element tile: a bijection onto it, or the declared uniform broadcast
    (``broadcast: all``: zero thread strides, the value mode a bijection onto the tile)."""
    if node.get("broadcast") == "all":
        if any(decide.is_zero(d) is not True for d in leaves(layout[0])[1]):
            return False
        target = layout[1]
    elif mult == 1:
        target = layout
    else:
        return False
    if decide.eq(size(target), n) is not True:
        return False
    return is_bijective(Layout(target.shape, target.stride, assumptions=asm)).status == "proved"


class _Terms:
    """Formula trees as sympy polynomials over fresh integer unknowns ("_q3", skipped by smt's positivity),
    with the side conditions that pin each unknown: ``a // b`` is the ``q`` with ``b*q <= a < b*q + b``
    (``b`` a positive integer or family parameter), so every term equals Python's value exactly."""

    def __init__(self):
        self.side: list = []
        self.count = 0

    def fresh(self):
        self.count += 1
        return sympy.Symbol(f"_q{self.count}", integer=True)

    def digits(self, shapes, strides):
        """Coordinates of one mode: (its index term, its value term) over one unknown per leaf in
        ``[0, shape)``."""
        index, value, pre = 0, 0, 1
        for sh, st in zip(shapes, strides):
            d = self.fresh()
            num, den = (sh, 1) if type(sh) is int else sympy.fraction(sympy.together(sh))
            self.side += [Condition("le", 0, d), Condition("lt", d * den, num)]
            index, value, pre = index + d * pre, value + d * st, pre * sh
        return index, value

    def div(self, a, b):
        if type(b) is int and b == 1:
            return a
        if type(b) is not int:
            den = sympy.fraction(sympy.together(b))[1]
            if not (den.is_Integer and int(den) > 0):  # M/2 is fine: the side conditions are cleared by 2
                raise NotLinear("a divisor with a denominator")
        if _params_only(a) and _params_only(b) and decide.divides(b, a) is True:
            return a / b  # M // 2 under 2 | M: the exact quotient, so ``i % (M//2)`` has a parameter divisor
        q = self.fresh()
        self.side += [Condition("le", b * q, a), Condition("lt", a, b * q + b)]
        return q

    def mod(self, a, b):
        return a - b * self.div(a, b)

    def term(self, node, env):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            x = self.term(node.operand, env)
            return -x if isinstance(node.op, ast.USub) else x
        if not isinstance(node, ast.BinOp):
            raise NotLinear(type(node).__name__)
        a, b = self.term(node.left, env), self.term(node.right, env)
        op = type(node.op)
        if op is ast.Add:
            return a + b
        if op is ast.Sub:
            return a - b
        if op is ast.Mult:
            return a * b
        if op in (ast.FloorDiv, ast.Mod):
            if not (type(b) is int and b > 0 or _positive_param(b)):
                raise NotLinear("divisor")
            return self.div(a, b) if op is ast.FloorDiv else self.mod(a, b)
        if op in (ast.RShift, ast.LShift) and type(b) is int and b >= 0:
            return self.div(a, 1 << b) if op is ast.RShift else a * (1 << b)
        if op is ast.BitAnd and (type(a) is int) != (type(b) is int):
            x, mask = (a, b) if type(b) is int else (b, a)
            if mask < 0:
                raise NotLinear("mask")
            if mask & (mask + 1) == 0:
                return self.mod(x, mask + 1)
            total, bit = 0, 0
            while mask >> bit:
                if (mask >> bit) & 1:
                    total += self.mod(self.div(x, 1 << bit), 2) * (1 << bit)
                bit += 1
            return total
        if type(a) is int and type(b) is int:
            return _fm.compile_formula(_fm.Formula("<const>", node, frozenset()), ())()
        raise NotLinear(op.__name__)


def _params_only(x) -> bool:
    """A term over family parameters only (no thread/value digits or quotient unknowns ``_q``)."""
    if type(x) is int:
        return True
    return isinstance(x, sympy.Basic) and all(not s.name.startswith("_") for s in x.free_symbols)


def _positive_param(b) -> bool:
    return hasattr(b, "free_symbols") and bool(b.free_symbols) and \
        all(not s.name.startswith("_") for s in b.free_symbols) and b.is_positive is True
