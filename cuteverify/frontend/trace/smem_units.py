"""The unit of a captured composed layout's swizzle, decided from provenance (NOTES.md pitfall 12, docs/model.md
section 10.4).

A ``!cute.composed_layout<"Sw o 0 o L">`` prints the same whatever its swizzle acts on, and the DSL builds both
kinds: the sm90/sm100 smem atom helpers (``make_smem_layout_a/b/epi``) return ``S<3,4,3> o 0 o (8,64):(64,1)`` for
f16 where ``S`` is the hardware's byte pattern and ``L`` counts elements (C++ marks it with ``smem_ptr_flag`` in the
offset slot; the DSL prints ``0``), while Ampere's hand-built ``S<3,3,4> o 0 o (8,128):(128,1)`` acts on element
offsets. Reading one as the other is silently wrong, so the unit is read off what the kernel does with the layout:

* ``pointer``: the swizzle goes onto a pointer (``cute.composed_get_inner`` of the layout, or of one derived from
  it, feeds a ``cute.recast_iter`` whose smem pointer carries that swizzle: ``smem.allocate_tensor(...,
  swizzle=layout.inner)``); a pointer swizzle acts on byte addresses, ``L`` on elements;
* ``elements``: the layout (or one derived from it) is a tensor's layout (``cute.make_view`` with it: the printed
  tensor type holds the composed layout), so ``Sw`` acts on the element offsets ``L`` returns;
* ``recast``: ``cute.recast_layout`` reads it with ``old_type_bits = w``: ``Sw`` and ``L`` both count ``w``-bit
  elements (QuACK builds byte-domain layouts this way, then recasts them);
* with no such use in the layout's data flow (a layout only handed to a TMA atom or a kernel launch), the module's
  other uses of the same swizzle decide: only on pointers -> ``pointer``, only inside tensor layouts -> ``elements``.

Derived layouts are followed through every op that takes a composed layout and returns one with the same swizzle
(``tile_to_shape``, ``coalesce``, ``slice``, ``select``, ``static``, ...), backwards to the root and forwards from it.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

from ...core.swizzle import ComposedLayout, Swizzle
from ...errors import Unsupported
from .mlir import Module
from .types import layout_of, memref

__all__ = ["SwizzleUnit", "swizzle_unit", "element_domain_layout"]


@dataclass(frozen=True)
class SwizzleUnit:
    """What a composed layout's swizzle acts on: ``kind`` ``pointer`` (bytes; ``L`` counts the tensor's
    elements), ``elements`` (the tensor's elements) or ``recast`` (``bits``-bit elements, both parts); ``why``
    names the op (``file:line``) or the module evidence that decided it."""

    kind: str
    bits: int | None
    why: str


def _swizzle_text(t) -> str | None:
    if t is None or t.name != "cute.composed_layout" or not t.args or not isinstance(t.args[0], str):
        return None
    return t.args[0].split(" o ", 1)[0].strip()


# the ops that use each value, per module read (modules are compared by identity)
_USERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_SWIZZLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _users(module: Module) -> dict:
    users = _USERS.get(module)
    if users is None:
        users = _USERS[module] = {}
        for op in module.ops:
            for v in op.operands:
                users.setdefault((op.func, v.split("#", 1)[0]), []).append(op)
    return users


def _family(module: Module, value: str, func: str, sw: str) -> list:
    """The composed-layout values of ``func`` derived from the same root as ``value`` with the same swizzle."""
    root = value
    while True:  # back to the root: the producer's composed operand with the same swizzle
        op = module.producer(root, func)
        nxt = None if op is None else next((v for v, t in zip(op.operands, op.in_types) if _swizzle_text(t) == sw),
                                           None)
        if nxt is None:
            break
        root = nxt
    out, todo, users = [], [root], _users(module)
    while todo:
        v = todo.pop()
        if v in out:
            continue
        out.append(v)
        for op in users.get((func, v.split("#", 1)[0]), ()):
            todo += [r for r, t in zip(op.results, op.out_types) if _swizzle_text(t) == sw]
    return out


def _flow_evidence(module: Module, family, func: str, sw: str) -> list:
    users, found = _users(module), []
    for v in family:
        for op in users.get((func, v.split("#", 1)[0]), ()):
            where = f"{op.name} at {op.loc}"
            if op.name == "cute.make_view":
                found.append(("elements", None, where))
            elif op.name == "cute.recast_layout":
                bits = int(str(op.props.get("old_type_bits", "0")).split(":")[0])
                found.append(("recast", bits, where))
            elif op.name == "cute.composed_get_inner":
                for u in users.get((func, op.results[0].split("#", 1)[0]), ()):
                    p = memref(u.out_types[0]) if u.out_types else None
                    if u.name == "cute.recast_iter" and p is not None and p.swizzle is not None and \
                            str(p.swizzle) == sw:
                        found.append(("pointer", 8, f"{u.name} at {u.loc}"))
    return found


def _swizzle_uses(module: Module) -> tuple:
    """The swizzles on smem pointers and those inside smem tensors' layouts, over the whole module."""
    hit = _SWIZZLES.get(module)
    if hit is None:
        on_ptr, in_layout = set(), set()
        for op in module.ops:
            for t in op.out_types:
                m = memref(t) if t.name in ("cute.memref", "cute.ptr") else None
                if m is None or m.space != "smem":
                    continue
                if m.swizzle is not None:
                    on_ptr.add(str(m.swizzle))
                if m.layout_text is not None and " o " in m.layout_text:
                    in_layout.add(m.layout_text.split(" o ", 1)[0].strip())
        hit = _SWIZZLES[module] = (on_ptr, in_layout)
    return hit


def _module_evidence(module: Module, sw: str) -> list:
    ptrs, layouts = _swizzle_uses(module)
    on_ptr, in_layout = sw in ptrs, sw in layouts
    if on_ptr and not in_layout:
        return [("pointer", 8, f"{sw} is a pointer swizzle elsewhere in the capture and never a tensor layout's")]
    if in_layout and not on_ptr:
        return [("elements", None, f"{sw} is a tensor layout's swizzle elsewhere in the capture, never a "
                                   f"pointer's")]
    return []


def swizzle_unit(module: Module, value: str, func: str) -> SwizzleUnit:
    """What the swizzle of the composed layout ``value`` (of function ``func``) acts on, from the kernel's own
    use of it (module docstring). Admissible: a value of ``!cute.composed_layout`` type with a swizzle inner.
    Raises ``Unsupported`` naming the value when its uses disagree or nothing decides."""
    t = module.type_of(value, func)
    sw = _swizzle_text(t)
    if sw is None or not sw.startswith("S<"):
        raise Unsupported(f"{value} is not a swizzle composed layout ({t})")
    found = _flow_evidence(module, _family(module, value, func, sw), func, sw)
    if not found:
        found = _module_evidence(module, sw)
    kinds = {(k, b) for k, b, _ in found}
    if len(kinds) != 1:
        what = "; ".join(sorted({f"{k} ({w})" for k, _, w in found})) or "no op that uses it"
        raise Unsupported(f"{t}: the unit of its swizzle {sw} is not decided by the capture: {what}")
    kind, bits = kinds.pop()
    return SwizzleUnit(kind, bits, found[0][2])


def element_domain_layout(module: Module, value: str, func: str, elem_bits: int, layout=None, consumer=None):
    """The element-domain form of the composed layout ``value``, for a tensor of ``elem_bits``-bit elements:
    the function from coordinates to element offsets that the kernel's addresses follow (for a period-aligned
    base). ``pointer``: ``S<B,M-k,S> o 0 o L`` with ``2^k`` bytes per element (as ``MemRef.element_layout``);
    ``elements``: the layout itself; ``recast`` of ``w``-bit units: the layout itself when ``w == elem_bits``.
    Raises ``Unsupported`` otherwise (M < k, elements that are not a power-of-two number of bytes, a layout in
    other units than the tensor's, or an undecided unit). Post-condition (``pointer``): ``b * result(c) ==
    Sw(b * L(c))`` for ``b``-byte elements. ``layout``: the layout as the consuming op's signature printed it
    (default: the value's defining type; the two agree in a capture). ``consumer``: the unit the op that reads
    the layout fixes (a DSL TMA atom reads a byte swizzle), used when the kernel's other uses leave it open; a
    use that decides another unit is still refused."""
    try:
        unit = swizzle_unit(module, value, func)
    except Unsupported:
        if consumer is None:
            raise
        unit = SwizzleUnit(consumer, None, "the op that reads it fixes the unit")
    if consumer is not None and unit.kind != consumer:
        raise Unsupported(f"{value}: its swizzle acts on {unit.kind} ({unit.why}), but the op reading it takes a "
                          f"{consumer} swizzle")
    layout = layout if layout is not None else layout_of(module.type_of(value, func))
    if not isinstance(layout, ComposedLayout) or not isinstance(layout.inner, Swizzle):
        raise Unsupported(f"{value}: {layout} is not a swizzle composed layout")
    if unit.kind == "elements":
        return layout
    if unit.kind == "recast":
        if unit.bits != elem_bits:
            raise Unsupported(f"{layout} counts {unit.bits}-bit elements ({unit.why}), not the tensor's "
                              f"{elem_bits}-bit ones")
        return layout
    nbytes, rem = divmod(elem_bits, 8)
    k = nbytes.bit_length() - 1
    sw = layout.inner
    if rem or nbytes != 1 << k or sw.base < k:
        raise Unsupported(f"{layout}: the byte swizzle {sw} has no element-domain form for {elem_bits}-bit "
                          f"elements")
    return ComposedLayout(Swizzle(sw.bits, sw.base - k, sw.shift), layout.offset, layout.outer)
