"""Exact procedures for layouts whose values combine by XOR (docs/model.md sections 2.3 and 9).

Valid for: ``f2`` and ``mixed`` forms (F2 strides ``^v``: ``x -> XOR_k digit_k(x) * v_k``, the digit times
``v`` an integer product, core/strides.py ``F2``), and the F2 rank of a swizzle over an int form (a swizzle
is GF(2)-linear). No integer rule (sorted strides, interval chains, common refinement) applies to an F2
term; these procedures are the only ones an f2 or mixed form reaches.

GF(2) linear algebra when the form is linear in the bits of the index (power-of-two mode sizes, no carries),
else the value table (small sizes), else a Z3 bit-vector query (f2 forms), else unknown.
"""
from __future__ import annotations

from ..core.tuples import product
from ..errors import Unsupported
from . import tables, z3query
from .forms import Form
from .tables import (
    collision,
    differ,
    int_table,
    missed,
    proved,
    refuted,
    unknown,
    value_table,
)
from .verdict import Verdict


def _f2_columns(f: Form):
    """Images of the index bits when the layout is F2-linear (power-of-two shapes and strides with
    disjoint bit ranges, offset 0), else None."""
    if f.kind != "swizzle" or f.offset != 0:
        return None
    cols, used = [], 0
    for s, d in zip(f.shapes, f.strides):
        if s & (s - 1) or s < 1:
            return None
        k = s.bit_length() - 1
        if d == 0:
            cols += [0] * k
            continue
        if d < 0 or d & (d - 1):
            return None
        e = d.bit_length() - 1
        rng = ((1 << k) - 1) << e
        if rng & used:
            return None
        used |= rng
        cols += [f.swizzle(1 << (e + j)) for j in range(k)]
    return cols


def _f2_basis(cols):
    basis = {}
    kernel = None
    for i, col in enumerate(cols):
        v, c = col, 1 << i
        while v:
            p = v.bit_length() - 1
            if p in basis:
                v ^= basis[p][0]
                c ^= basis[p][1]
            else:
                basis[p] = (v, c)
                break
        if v == 0 and kernel is None:
            kernel = c
    return basis, kernel


def _f2_in_span(basis, v):
    while v:
        p = v.bit_length() - 1
        if p not in basis:
            return False
        v ^= basis[p][0]
    return True


def f2_injective(f: Form):
    cols = _f2_columns(f)
    if cols is None:
        return None
    basis, kernel = _f2_basis(cols)
    if kernel is None:
        return proved("f2-rank")
    return refuted("f2-rank", collision((kernel, 0)))


def f2_surjective(f: Form, n):
    cols = _f2_columns(f)
    if cols is None or n < 1 or n & (n - 1):
        return None
    basis, _ = _f2_basis(cols)
    for j in range(n.bit_length() - 1):
        if not _f2_in_span(basis, 1 << j):
            # the image is a subspace: 2^j is not in it
            return refuted("f2-rank", missed(1 << j))
    return proved("f2-rank")


def xor_columns(f: Form):
    """The images of the index bits when the form is GF(2)-linear in them, else None. Valid for ``f2`` and
    ``int`` forms with concrete strides. Index bits split into digit bits only when every mode's size is a
    power of two. An f2 mode ``c -> c*v`` is linear iff the shifted copies ``v << j`` (j < log2 size) are
    pairwise disjoint (otherwise ``(2^i + 2^j) v`` carries); an int form is linear iff all shifted copies of
    all its strides are pairwise disjoint (then the integer sum of the terms has no carries and is their XOR)."""
    if f.kind not in ("f2", "int"):
        return None
    cols, used = [], 0
    for s, v in zip(f.shapes, f.strides):
        if type(s) is not int or type(v) is not int or s < 1 or s & (s - 1) or v < 0:
            return None
        mode = 0
        for j in range(s.bit_length() - 1):
            c = v << j
            if c & mode:
                return None
            mode |= c
            cols.append(c)
        if f.kind == "int":
            if mode & used:
                return None
            used |= mode
    return cols


def _span_max(basis):
    m = 0
    for p in sorted(basis, reverse=True):
        m = max(m, m ^ basis[p][0])
    return m


def f2_form_injective(f: Form) -> Verdict:
    """Injectivity of an f2 or mixed form: GF(2) rank when it is linear, else the value table (small
    sizes), else (f2 only) a Z3 bit-vector collision query, else unknown."""
    cols = xor_columns(f) if f.kind == "f2" else None
    if cols is not None:
        _, kernel = _f2_basis(cols)
        return proved("f2-rank") if kernel is None else refuted("f2-rank", collision((kernel, 0)))
    size = product(tuple(f.shapes))
    if size <= tables.ENUM_LIMIT:
        seen = {}
        for i, v in enumerate(value_table(f)):
            if v in seen:
                return refuted("enumeration", collision((seen[v], i)))
            seen[v] = i
        return proved("enumeration")
    if f.kind == "f2":
        return z3query.z3_collision_bv(f)
    return unknown(method="", reason="a large layout mixing F2 and integer strides: only enumeration decides it")


def f2_form_codomain(f: Form):
    """One past the largest value of an f2 or mixed form (the default codomain)."""
    cols = xor_columns(f) if f.kind == "f2" else None
    if cols is not None:
        return _span_max(_f2_basis(cols)[0]) + 1
    if product(tuple(f.shapes)) <= tables.ENUM_SURJ_LIMIT:
        return max(value_table(f)) + 1
    raise Unsupported("a large layout with F2 strides that is not GF(2)-linear needs an explicit codomain")


def f2_form_surjective(f: Form, n) -> Verdict:
    """``[0, n)`` inside the image of an f2 or mixed form. Linear: the image is the span, which contains
    ``[0, n)`` iff it contains every ``2^j < n`` (they lie in ``[0, n)``, and they span ``[0, 2^ceil(log2 n))``).
    Else the value table (sizes up to tables.ENUM_SURJ_LIMIT), else unknown."""
    if n <= 0:
        return proved("trivial")
    cols = xor_columns(f) if f.kind == "f2" else None
    if cols is not None:
        basis, _ = _f2_basis(cols)
        j = 0
        while (1 << j) < n:
            if not _f2_in_span(basis, 1 << j):
                return refuted("f2-rank", missed(1 << j))
            j += 1
        return proved("f2-rank")
    if product(tuple(f.shapes)) <= tables.ENUM_SURJ_LIMIT:
        m = tables.enum_missed(value_table(f), n)
        if m is not tables.BUDGET:
            return proved("enumeration") if m is None else refuted("enumeration", missed(m))
    return unknown(method="", reason="a large layout with F2 strides that is not GF(2)-linear")


def f2_form_reaches(f: Form, v):
    """Is ``v`` a value of the f2 or mixed form? None when only a table too large to build would say."""
    cols = xor_columns(f) if f.kind == "f2" else None
    if cols is not None:
        return _f2_in_span(_f2_basis(cols)[0], v)
    if product(tuple(f.shapes)) <= (1 << 22):
        return v in set(value_table(f))
    return None


def f2_form_equal(fa: Form, fb: Form) -> Verdict:
    """Equality where one side has F2 strides (the other: any concrete form). Both GF(2)-linear on the
    same index bits: equal iff the columns are. Else the value tables (sizes up to 2^16), else a Z3
    bit-vector query when both are f2 or int forms, else unknown."""
    ca, cb = xor_columns(fa), xor_columns(fb)
    if ca is not None and cb is not None and len(ca) == len(cb):
        for j, (x, y) in enumerate(zip(ca, cb)):
            if x != y:
                return refuted("f2-columns", differ(1 << j))
        return proved("f2-columns")
    size = product(tuple(fa.shapes))
    if size <= tables.EQUAL_ENUM_LIMIT:
        if fa.kind == "coord" or fb.kind == "coord":
            return tables.equal_enum(fa.layout, fb.layout)
        for i, (x, y) in enumerate(zip(int_table(fa), int_table(fb))):
            if x != y:
                return refuted("enumeration", differ(i))
        return proved("enumeration")
    if fa.kind in ("f2", "int", "swizzle") and fb.kind in ("f2", "int", "swizzle"):
        return z3query.z3_equal_bv(fa, fb)
    return unknown(method="", reason="a large layout mixing F2 and integer or coordinate strides")


__all__ = ["f2_injective", "f2_surjective", "xor_columns", "f2_form_injective", "f2_form_surjective",
           "f2_form_codomain", "f2_form_reaches", "f2_form_equal"]
