"""Decisions about general composed layouts, ``A o off o B`` with a layout ``A`` (CuTe's
``ComposedLayout<LayoutA, Offset, LayoutB>``) and chains of them (docs/model.md section 4).

Valid for the 'composed' form kind (``forms.decompose`` makes it for concrete general composed layouts).
Up to ``tables.COMPOSED_ENUM_LIMIT`` elements a claim is decided from the value table (exact whatever A's
stride domain: integer, F2 or ``E<i>``, since the layout's own evaluation is the function); past it, a
layout with offset 0 whose functions compose into one layout is decided as that layout
(``forms.reduce_composed``: equal at every index, so every verdict and witness carries over); otherwise the
query answers unknown (``Unsupported``). No structural rule reads a composed form directly: a symbolic
composed layout reaches the structural rules only through ``reduce_composed``.
"""
from __future__ import annotations

from ..core.strides import F2
from ..errors import Unsupported
from . import intlin, tables
from .forms import Form, decompose, norm_value, reduce_composed
from .tables import collision, missed, proved, refuted


def size(f: Form) -> int:
    n = 1
    for s in f.shapes:
        n *= s
    return n


def effective(f: Form) -> Form:
    """``f`` itself unless it is a composed form past the enumeration budget; then the form of the layout it
    reduces to. ``Unsupported`` where there is none."""
    if f.kind != "composed" or size(f) <= tables.COMPOSED_ENUM_LIMIT:
        return f
    r = reduce_composed(f.layout)
    if r is None:
        raise Unsupported(f"the composed layout {f.layout} has {size(f)} elements, more than the "
                          f"{tables.COMPOSED_ENUM_LIMIT} enumerated, and it does not reduce to one layout "
                          "(offset 0 and an admissible composition of its functions)")
    return decompose(r)


def _key(v):
    """A hashable value that two equal values share: F2 values as the ints they are, coordinates by their
    canonical paths (``ArithTuple`` nesting and trailing zeros do not matter)."""
    if isinstance(v, F2):
        return int(v)
    if isinstance(v, tuple) or hasattr(v, "path"):
        return frozenset(norm_value(v).items())
    return v


def int_table(f: Form) -> list:
    """The values of a composed form as ints; coordinate values have no integer codomain (``Unsupported``)."""
    out = []
    for v in f.layout.values():
        k = _key(v)
        if type(k) is not int:
            raise Unsupported(f"{f.layout} maps to coordinates: it has no integer codomain [0, n)")
        out.append(k)
    return out


def injective(f: Form):
    """No two indices of ``[0, size)`` share a value: the exhaustive search of the value table."""
    c = intlin.enumerate_collision([_key(v) for v in f.layout.values()])
    return proved("enumeration") if c is None else refuted("enumeration", collision(c))


def surjective(f: Form, n):
    """Every value of ``[0, n)`` is reached (integer values only)."""
    m = tables.enum_missed(int_table(f), n)
    if m is intlin.BUDGET:
        raise Unsupported(f"a codomain of {n} values is more than the {tables.MISSED_LIMIT} scanned")
    return proved("enumeration") if m is None else refuted("enumeration", missed(m))


def codomain(f: Form) -> int:
    """The default codomain: one past the largest value."""
    return max(int_table(f)) + 1


def missed_value(f: Form, v, n):
    """The re-check of a missed value: ``v`` in ``[0, n)`` and outside the value table (exhaustive)."""
    return type(v) is int and 0 <= v < n and v not in set(int_table(f))


__all__ = ["effective", "injective", "surjective", "codomain", "int_table", "missed_value", "size"]
