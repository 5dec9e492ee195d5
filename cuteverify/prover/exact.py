"""Exact decision procedures for concrete layouts, per stride domain (docs/model.md section 9).

Valid for concrete forms only. ``int``: enumeration (small sizes), sorted strides, exhaustive collision /
preimage search, interval chains (``intlin``), common refinement for equality; Z3 only when a search runs
out of budget. ``coord``: the coordinates are independent, so each coordinate's integer procedure decides
it. ``composed`` (a general composed layout): its value table, or the form it reduces to (``composed``).
``swizzle`` (over an int form): a swizzle is an involution of the integers, so a swizzled layout is
injective exactly when its inner layout is, and (offset 0, codomain a multiple of the swizzle's block)
onto ``[0, n)`` exactly when the inner layout is; F2 rank when it is GF(2)-linear. ``f2`` and ``mixed``:
the procedures of ``f2`` only. Each answer is a ``Verdict`` whose counterexample is in index terms.
"""
from __future__ import annotations

from dataclasses import replace

from ..core.bitlinear import bit_affine, echelon, in_span, index_bits, max_below
from . import composed
from . import f2 as xor
from . import intlin, tables, z3query
from .forms import F2_KINDS, Form, components
from .intlin import BUDGET, Flat
from .structural import refine_compare
from .tables import collision, differ, missed, proved, refuted, unknown
from .verdict import Verdict


def component_flat(f: Form, path, restricted=False):
    strides, ignore = f.component(path, restricted)
    return Flat(f.shapes, strides, ignore=ignore)


def coord_extents(f: Form):
    out = {}
    for p in f.paths():
        lo, hi = component_flat(f, p, True).value_range()
        out[p] = hi + 1
    return out


def coord_sizes(f: Form):
    out = {}
    for p in f.paths():
        n = 1
        for k, s in enumerate(f.shapes):
            st = f.strides[k]
            if st is not None and st[0] == p:
                n *= s
        out[p] = n
    return out


def _inj_flat(flat: Flat, layout=None):
    """Injectivity of one concrete integer layout (valid for integer strides only, any signs): its value
    table when ``layout`` (whose ``values()`` is that table, up to a bijection) is given and small, then
    sorted strides, the exhaustive collision search, and Z3 when the search runs out of budget."""
    if layout is not None and flat.size <= tables.ENUM_LIMIT:
        c = intlin.enumerate_collision(layout.values())
        return proved("enumeration") if c is None else refuted("enumeration", collision(c))
    z = intlin.zero_stride_collision(flat)
    if z is not None:
        return refuted("sorted-strides", collision(z))
    if intlin.sorted_strides_injective(flat):
        return proved("sorted-strides")
    c = intlin.find_collision(flat)
    if c is None:
        return proved("collision-search")
    if c is not BUDGET:
        return refuted("collision-search", collision(c))
    return z3query.z3_collision_concrete(flat)


def injective(f: Form) -> Verdict:
    """Injectivity of a concrete form of any kind, dispatched on its stride domain (module docstring)."""
    f = composed.effective(f)
    if f.kind == "composed":
        return composed.injective(f)
    if f.kind in F2_KINDS:
        return xor.f2_form_injective(f)
    if f.kind == "int":
        return _inj_flat(Flat(f.shapes, f.strides), f.layout)
    if f.kind == "swizzle":
        m = xor.f2_injective(f)
        if m is not None:
            return m
        r = _inj_flat(Flat(f.shapes, f.strides), f.layout.outer)
        return replace(r, method="swizzle-bijection + " + r.method)
    # coordinate strides: the coordinates are independent, each must be injective on its own modes
    flat_all = Flat(f.shapes, [0] * len(f.shapes))
    for k, s in enumerate(f.shapes):
        if s > 1 and f.strides[k] is None:
            return refuted("sorted-strides", collision((0, flat_all.prefix[k])))
    methods = []
    for p in f.paths():
        r = _inj_flat(component_flat(f, p, True))
        if r.status != "proved":
            return r
        methods.append(r.method)
    return proved("per-coordinate " + "/".join(sorted(set(methods)) or ["trivial"]))


def surjective(f: Form, n, L) -> Verdict:
    """``[0, n)`` (a coord form: the box ``n``) inside the image of concrete form ``f`` of layout ``L``."""
    f = composed.effective(f)
    if f.kind == "composed":
        return composed.surjective(f, n)
    L = f.layout if f.layout is not None else L  # a reduced composed layout: the same function
    if f.kind in F2_KINDS:
        return xor.f2_form_surjective(f, n)
    if f.kind == "int":
        flat = Flat(f.shapes, f.strides)
        m = intlin.surjective_onto(flat, n)
        if m is BUDGET and flat.size <= tables.ENUM_SURJ_LIMIT:
            m = tables.enum_missed(f.layout.values(), n)
            meth = "enumeration"
        else:
            meth = "interval-chain"
        if m is BUDGET:
            return unknown(method=meth, reason="image is not an interval chain and too large to enumerate")
        return proved(meth) if m is None else refuted(meth, missed(m))
    if f.kind == "coord":
        for p, ext in sorted(n.items()):
            if p not in f.paths():
                if ext > 1:
                    return refuted("interval-chain", missed({p: 1}))
                continue
            m = intlin.surjective_onto(component_flat(f, p, True), ext)
            if m is BUDGET:
                return unknown(method="interval-chain", reason=f"coordinate {p}: image is not an interval chain")
            if m is not None:
                return refuted("interval-chain", missed({p: m}))
        return proved("per-coordinate interval-chain")
    # swizzle
    r = surjective_bits(L, n)
    if r is not None:
        return r
    r = xor.f2_surjective(f, n)
    if r is not None:
        return r
    sw = f.swizzle
    flat = Flat(f.shapes, f.strides)
    if f.offset == 0 and n % sw.size() == 0:
        m = intlin.surjective_onto(flat, n)
        if m is not BUDGET:
            return proved("swizzle-bijection + interval-chain") if m is None else \
                refuted("swizzle-bijection + interval-chain", missed(sw(m)))
    if flat.size <= tables.ENUM_SURJ_LIMIT:
        m = tables.enum_missed(L.values(), n)
        if m is not BUDGET:
            return proved("enumeration") if m is None else refuted("enumeration", missed(m))
    return unknown(method="swizzle", reason="swizzled layout not aligned to its swizzle block and too large to "
                                          "enumerate")


def equal(fa: Form, fb: Form, A, B) -> Verdict:
    """Pointwise equality of two concrete forms of the same size. Common refinement only for int and coord
    forms; swizzles and F2 strides by their own procedures; a composed form by its value table, or as the
    layout it reduces to."""
    fa, fb = composed.effective(fa), composed.effective(fb)
    if fa.kind == "composed" or fb.kind == "composed":
        return tables.equal_enum(A, B)
    A, B = fa.layout if fa.layout is not None else A, fb.layout if fb.layout is not None else B
    if fa.kind in F2_KINDS or fb.kind in F2_KINDS:
        return xor.f2_form_equal(fa, fb)
    size = Flat(fa.shapes, [0] * len(fa.shapes)).size
    if fa.kind == "swizzle" or fb.kind == "swizzle":
        r = equal_bits(A, B)
        if r is not None:
            return r
        if size <= tables.EQUAL_ENUM_LIMIT:
            return tables.equal_enum(A, B)
        return z3query.z3_equal_bv(fa, fb)
    ca, cb = components(fa), components(fb)
    zero = [0] * len(fa.shapes)
    zerob = [0] * len(fb.shapes)
    first = None
    for p in sorted(set(ca) | set(cb)):
        r = refine_compare(fa.shapes, ca.get(p, zero), fb.shapes, cb.get(p, zerob))
        if r is None:
            first = None
            break
        if r[0] == "differ":
            return refuted("common-refinement", differ(r[1]))
        first = "ok"
    else:
        return proved("common-refinement")
    if size <= tables.EQUAL_ENUM_LIMIT:
        return tables.equal_enum(A, B)
    return z3query.z3_equal(fa, fb, None)


def cube_affine(L):
    """``L`` as an F2-affine map whose index bits range over its whole domain (``size(L) == 2**n``, so the
    image is exactly ``const ^ span(cols)``), or None."""
    n = index_bits(L)
    sz = 1
    for s in L.outer.leaves[0] if hasattr(L, "outer") else L.leaves[0]:
        sz *= s
    return bit_affine(L, n) if sz == 1 << n else None


def surjective_bits(L, n):
    """``[0, n)`` inside the image of a layout that is F2-affine on a power-of-two domain, independent of the
    size, or None where it is not. The image is the coset ``const ^ V`` (``V`` the columns' span): it holds 0
    iff ``const`` is in ``V`` (then it is ``V``; else 0 is missed), and ``V`` holds ``[0, n)`` iff it holds
    every ``2**j < n`` (each ``v < n`` is a XOR of such powers; they lie in ``[0, n)``)."""
    f = cube_affine(L)
    if f is None or type(n) is not int:
        return None
    if n <= 0:
        return proved("trivial")
    basis = echelon(f.cols)
    if not in_span(f.const, basis):
        return refuted("f2-bits", missed(0))
    j = 0
    while (1 << j) < n:
        if not in_span(1 << j, basis):
            return refuted("f2-bits", missed(1 << j))
        j += 1
    return proved("f2-bits")


def largest_value(L):
    """The largest value of a layout that is F2-affine in its index bits (``bitlinear.max_below`` over its
    domain ``[0, size)``), or None."""
    f = bit_affine(L)
    if f is None:
        return None
    sz = 1
    for s in L.outer.leaves[0] if hasattr(L, "outer") else L.leaves[0]:
        sz *= s
    return max_below(f, sz)


def equal_bits(A, B):
    """Equality of two concrete layouts of the same size that are F2-affine in their index bits
    (``core.bitlinear``: swizzles over power-of-two strides with disjoint bits, plain layouts of that kind),
    independent of the size; None where either is not. Exact: the domain ``[0, size)`` holds 0 and every
    ``2**j`` with ``j < n``, and an affine map that vanishes there has zero constant and zero columns, so the
    two maps agree on the domain iff their constants and columns do; the first difference is the witness
    (index 0 for the constants, ``2**j`` for column ``j``)."""
    n = index_bits(A)
    fa, fb = bit_affine(A, n), bit_affine(B, n)
    if fa is None or fb is None:
        return None
    if fa.const != fb.const:
        return refuted("f2-bits", differ(0))
    for j, (x, y) in enumerate(zip(fa.cols, fb.cols)):
        if x != y:
            return refuted("f2-bits", differ(1 << j))
    return proved("f2-bits")


__all__ = ["equal_bits", "surjective_bits", "largest_value", "injective", "surjective", "equal", "component_flat", "coord_extents", "coord_sizes"]
