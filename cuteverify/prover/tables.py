"""Value tables of concrete layouts and the size budgets that bound every enumeration of the prover.

The budgets live here, in one place, so a test (or a caller) can turn enumeration off and exercise the
structural procedures: every module reads them as ``tables.ENUM_LIMIT`` at call time.
"""
from __future__ import annotations

from .forms import F2_KINDS, Form, norm_value
from .intlin import BUDGET
from .verdict import Collision, Differ, Missed, Verdict

ENUM_LIMIT = 1 << 12        # injectivity and f2 procedures: enumerate up to this size
ENUM_SURJ_LIMIT = 1 << 20   # surjectivity: enumerate the image up to this size
EQUAL_ENUM_LIMIT = 1 << 16  # equality: compare the value tables up to this size
COMPOSED_ENUM_LIMIT = 1 << 16  # general composed layouts (a layout as outer function): enumerate up to this size
MISSED_LIMIT = 1 << 22      # a codomain this large is not scanned for a missed value
FINITE_LIMIT = 1024         # symbolic claims: all assignments of finite sets up to this many
FINITE_STRUCTURAL_FIRST = 16  # symbolic claims: more finite assignments than this: a structural proof first
SAMPLE_LIMIT = 300          # symbolic claims: small assignments tried for a refutation
FIRST_SAMPLES = 5           # symbolic claims: of those, tried before the structural rules
UNIT_SPLITS = 2             # symbolic claims: size symbols split into X == 1 / X >= 2, at most this many
PARTIAL_LIMIT = 16          # symbolic claims: cases of the finite symbols proved one by one (the rest symbolic)
POW2_MODEL_EXP = 128        # pow2 symbols range over 2^0..2^128 when Z3 looks for a model


def proved(method):
    return Verdict("proved", method=method)


def refuted(method, counterexample):
    return Verdict("refuted", method=method, counterexample=counterexample)


def unknown(reason, method=""):
    return Verdict("unknown", method=method, reason=reason)


def collision(pair):
    return Collision(coords=tuple(pair))


def missed(value):
    return Missed(value=value)


def differ(index):
    return Differ(coords=(index,))


def value_table(f: Form):
    """``[f(0), ..., f(size-1)]`` as ints for an f2 or mixed form, by the layout's own evaluation: ``values()``
    for an f2 form (XOR is associative, so the flat fold is the function), the evaluator index by index for a
    mixed form (its value depends on how the evaluator nests and orders integer sums and XORs)."""
    L = f.layout
    if f.kind == "mixed":
        n = 1
        for s in f.shapes:
            n *= s
        return [int(L(i)) for i in range(n)]
    return [int(v) for v in L.values()]


def int_table(f: Form):
    """The values of a concrete non-coordinate form as ints (an F2 value is an integer; F2 objects hash
    unlike the ints they equal, so sets and dicts of values need ints)."""
    return value_table(f) if f.kind in F2_KINDS else [int(v) for v in f.layout.values()]


def enum_missed(values, n):
    if n > MISSED_LIMIT:
        return BUDGET
    s = set(values)
    for v in range(n):
        if v not in s:
            return v
    return None


def equal_enum(A, B):
    """Pointwise comparison of two concrete layouts' values (coordinates compared as canonical paths)."""
    for i, (x, y) in enumerate(zip(A.values(), B.values())):
        if x != y and norm_value(x) != norm_value(y):
            return refuted("enumeration", differ(i))
    return proved("enumeration")
