"""Re-checks of refutations on concrete layouts: a witness is reported only once the layouts' own
evaluation confirms it (``True``, or the witness with the values that evaluation gave filled in), and a check
that cannot tell answers ``None`` (the verdict is unknown).

Valid for every form kind; each check evaluates the layout (``L(i)``, ``values()``) or, for a missed value of
a large layout, runs the exact preimage search of the value's stride domain.
"""
from __future__ import annotations

from dataclasses import replace

from ..core.layout import idx2crd
from ..core.tuples import flatten
from . import composed
from . import f2 as xor
from . import intlin, tables
from .exact import component_flat
from .forms import F2_KINDS, decompose, norm_value


def natural(L, idx):
    """The natural coordinate of index ``idx`` (display only)."""
    try:
        return idx2crd(idx, L.shape)
    except Exception:  # noqa: BLE001 (display only)
        return idx


def size(L):
    p = 1
    for s in flatten(L.shape):
        p *= s
    return p


def int_values(L):
    """The values of a concrete integer-valued layout as ints (F2 values hash unlike the ints they equal)."""
    f = decompose(L)
    if f.kind in F2_KINDS:
        return tables.value_table(f)
    return [int(v) for v in L.values()]


def collision(L, cex):
    i, j = cex.coords
    n = size(L)
    if i == j or not (0 <= i < n and 0 <= j < n):
        return False
    vi, vj = L(i), L(j)
    if norm_value(vi) != norm_value(vj):
        return False
    return replace(cex, values=(vi, vj), natural=(natural(L, i), natural(L, j)))


def out_of_range(L, cex, n):
    i = cex.coords[0]
    if not (0 <= i < size(L)):
        return False
    v = L(i)
    nv = norm_value(v)
    if isinstance(n, dict):
        out = any(not (0 <= nv.get(p, 0) < ext) for p, ext in n.items()) or any(p not in n for p in nv)
    else:
        out = type(v) is int and not (0 <= v < n)
    return replace(cex, values=(v,), natural=(natural(L, i),)) if out else False


def missed(L, cex, n):
    """The value is in the codomain and no coordinate reaches it (an exact preimage search)."""
    v = cex.value
    f = composed.effective(decompose(L))
    if f.kind == "composed":
        return composed.missed_value(f, v, n)
    L = f.layout if f.layout is not None else L  # a reduced composed layout: the same function
    if f.kind in F2_KINDS:
        if type(v) is not int or not (0 <= v < n):
            return False
        got = xor.f2_form_reaches(f, v)
        return None if got is None else not got
    if f.kind == "coord":
        if not isinstance(v, dict) or not all(0 <= v.get(p, 0) < ext for p, ext in n.items()):
            return False
        if any(p not in n for p in v):
            return False
        for p in set(n) | set(v):
            flat = component_flat(f, p, restricted=True)
            got = intlin.find_preimage(flat, v.get(p, 0))
            if got is intlin.BUDGET:
                return None
            if got is None:
                return True
            # a preimage exists for this component; the other components decide
        return False
    if type(v) is not int or not (0 <= v < n):
        return False
    if size(L) <= tables.ENUM_LIMIT:
        return v not in set(L.values())
    flat = intlin.Flat(f.shapes, f.strides)
    target = v
    if f.kind == "swizzle":
        target = f.swizzle(v) - f.offset
    got = intlin.find_preimage(flat, target)
    if got is intlin.BUDGET:
        return None
    if got is not None:
        return False
    return True


def differ(A, B, cex):
    i = cex.coords[0]
    if not (0 <= i < size(A)) or size(A) != size(B):
        return False
    va, vb = A(i), B(i)
    if norm_value(va) == norm_value(vb):
        return False
    return replace(cex, values=(va, vb), natural=(natural(A, i),))


__all__ = ["collision", "out_of_range", "missed", "differ", "natural", "size", "int_values"]
