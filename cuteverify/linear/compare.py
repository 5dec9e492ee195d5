"""Equality questions on linear layouts, decided exactly by F2 rank computations (docs/model.md section 11).

Both answers are a :class:`Comparison`: ``equal``, a ``reason`` in words and, when not equal, a ``witness``
(an input, or a thread and an element, at which the two layouts differ). No enumeration: the cost is a few
eliminations on matrices of at most (in bits) x (out bits).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import NotAdmissibleError
from . import f2
from .layout import LinearLayout


@dataclass(frozen=True)
class Comparison:
    """The answer of :func:`equal_function` / :func:`same_ownership`; truthy iff ``equal``."""

    equal: bool
    reason: str
    witness: dict | None = field(default=None)

    def __bool__(self):
        return self.equal


def _dims(a: LinearLayout, b: LinearLayout, where: str):
    """The in dims (name -> size) both layouts share after treating an absent dim as size 1; a size mismatch
    is reported as the reason string. Out dims: union in a's order then b's new ones, width the larger."""
    ia, ib = dict(a.in_dims), dict(b.in_dims)
    for n in list(ia) + [n for n in ib if n not in ia]:
        sa, sb = ia.get(n, 1), ib.get(n, 1)
        if sa != sb:
            return None, None, f"in dim {n!r} has size {sa} in the first layout and {sb} in the second"
    ins = dict(ia)
    for n, s in ib.items():
        ins.setdefault(n, s)
    outs = dict(a.out_dims)
    for n, s in b.out_dims:
        outs[n] = max(outs.get(n, 1), s)
    return ins, outs, None


def _vectors(lay: LinearLayout, ins, outs):
    """``{in_dim: [flat output int per bit]}`` of ``lay`` over the common out dims ``outs`` (an absent out dim
    reads 0, an absent in dim has no bits)."""
    common = LinearLayout({}, outs)
    names = list(outs)
    idx = {n: lay.out_dim_index(n) for n in names if lay.has_out_dim(n)}
    res = {}
    for n in ins:
        if not lay.has_in_dim(n):
            res[n] = []
            continue
        res[n] = [common.flat_basis(tuple(b[idx[o]] if o in idx else 0 for o in names)) for b in lay.in_bases(n)]
    return res, common


def _both_linear(a, b, what):
    for lay, which in ((a, "first"), (b, "second")):
        if not isinstance(lay, LinearLayout):
            raise NotAdmissibleError(what, f"the {which} argument must be a LinearLayout, got {lay!r}")


def equal_function(a: LinearLayout, b: LinearLayout) -> Comparison:
    """Same function after matching dims by name: the same in dims with the same sizes (an absent dim counts
    as size 1) and, at every input, the same value in every out dim (an absent out dim reads 0; dim order and
    out sizes do not matter). A linear function is fixed by its bases, so this compares bases; the witness is
    the first input ``{in_dim: 2**i}`` whose values differ, with both values."""
    _both_linear(a, b, "equal_function")
    ins, outs, why = _dims(a, b, "equal_function")
    if why is not None:
        return Comparison(False, why)
    va, common = _vectors(a, ins, outs)
    vb, _ = _vectors(b, ins, outs)
    for n in ins:
        for i, (x, y) in enumerate(zip(va[n], vb[n])):
            if x != y:
                w = {"input": {n: 1 << i}, "first": dict(zip(outs, common.unflatten_out(x))),
                     "second": dict(zip(outs, common.unflatten_out(y)))}
                return Comparison(False, f"at {n}={1 << i} the first layout gives {w['first']} and the second "
                                         f"{w['second']}", w)
    return Comparison(True, "the same bases in every in dim")


def same_ownership(a: LinearLayout, b: LinearLayout, thread_dims=("lane", "warp", "block"),
                   value_dims=("register",)) -> Comparison:
    """For every thread ``t`` (a value of the ``thread_dims``), the two layouts put the same SET of elements in
    ``t`` (the ``value_dims`` may be permuted, repeated or broadcast differently).

    Argument over F2. With ``V_a`` the span of ``a``'s value bases, ``a``'s elements in thread ``t`` are the
    coset ``a(t, 0) + V_a`` (linearity: ``a(t, r) = a(t, 0) ^ a(0, r)``, and ``{a(0, r)}`` is all of ``V_a``,
    however many registers map to the same element or to 0). Two cosets ``x + V_a`` and ``y + V_b`` are equal
    iff ``V_a = V_b`` and ``x ^ y`` is in ``V_a``. ``t = 0`` gives ``V_a = V_b`` (compared as echelon bases),
    and ``t -> a(t, 0) ^ b(t, 0)`` is linear, so it lies in ``V`` for every ``t`` iff it does on each thread
    basis. Both layouts must have the same thread dims and sizes (absent = size 1); every in dim must be a
    thread or a value dim (NotAdmissibleError otherwise). Sets, not multisets: register multiplicities may
    differ. Witness: a thread (``{dim: value}``), an element (``{out dim: value}``) and which layout holds it
    there while the other does not."""
    _both_linear(a, b, "same_ownership")
    thread_dims, value_dims = tuple(thread_dims), tuple(value_dims)
    for lay, which in ((a, "first"), (b, "second")):
        for n in lay.in_dim_names:
            if n not in thread_dims and n not in value_dims:
                raise NotAdmissibleError("same_ownership", f"in dim {n!r} of the {which} layout is neither a "
                                         f"thread dim {list(thread_dims)} nor a value dim {list(value_dims)}")
    ta = {n: s for n, s in a.in_dims if n in thread_dims}
    tb = {n: s for n, s in b.in_dims if n in thread_dims}
    for n in list(ta) + [n for n in tb if n not in ta]:
        if ta.get(n, 1) != tb.get(n, 1):
            return Comparison(False, f"thread dim {n!r} has size {ta.get(n, 1)} in the first layout and "
                                     f"{tb.get(n, 1)} in the second")
    outs = dict(a.out_dims)
    for n, s in b.out_dims:
        outs[n] = max(outs.get(n, 1), s)
    ins = dict(a.in_dims)
    ins.update(b.in_dims)
    va, common = _vectors(a, ins, outs)
    vb, _ = _vectors(b, ins, outs)
    onames = list(outs)

    def elem(v):
        return dict(zip(onames, common.unflatten_out(v)))

    vals_a = [v for n in value_dims if n in va for v in va[n]]
    vals_b = [v for n in value_dims if n in vb for v in vb[n]]
    ea, eb = f2.echelon(vals_a), f2.echelon(vals_b)
    zero = {n: 0 for n in ta}
    if ea != eb:
        for v in vals_a:
            if f2.reduce(v, eb):
                return Comparison(False, f"thread {zero} holds {elem(v)} in the first layout, not in the second",
                                  {"thread": zero, "element": elem(v), "held_by": "first"})
        for v in vals_b:
            if f2.reduce(v, ea):
                return Comparison(False, f"thread {zero} holds {elem(v)} in the second layout, not in the first",
                                  {"thread": zero, "element": elem(v), "held_by": "second"})
    for n in ta:
        for i, (x, y) in enumerate(zip(va[n], vb[n])):
            if f2.reduce(x ^ y, ea):
                t = dict(zero, **{n: 1 << i})
                return Comparison(False, f"thread {t} holds {elem(x)} in the first layout, not in the second",
                                  {"thread": t, "element": elem(x), "held_by": "first"})
    return Comparison(True, f"the value bases span the same {len(ea)}-dimensional space and every thread "
                            "basis differs by an element of it")
