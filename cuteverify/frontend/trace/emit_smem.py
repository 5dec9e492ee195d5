"""Shared-memory placement and tensor memory of a traced kernel as manifest claims (docs/model.md section 10.4).

From each smem ``cute.memref.alloca`` (a struct with ``smem.struct_fields = ["name:bytes:offset", ...]``, or a
buffer of its own: ``smem.allocate_tensor`` allocates separately, NOTES.md pitfall 9) the data flow is followed
through the ops the DSL builds views with: ``cute.get_iter`` (the allocation's or a view's pointer),
``cute.add_offset`` by a static ``!cute.int_tuple`` (elements of the pointer's type), ``cute.recast_iter``
(another element type, possibly with a pointer swizzle) and ``cute.make_view`` (a tensor: pointer + layout).
Claims, each ``at`` the op that built the object:

* ``smem_struct`` (the alloca): its fields pairwise disjoint inside the allocation (size-0 fields ignored);
* ``smem_view`` (the ``make_view``): the view's element-domain layout (``MemRef.element_layout``: the pointer's
  byte swizzle folded in) at its byte offset stays in the field holding that offset (the whole allocation when
  there is no struct);
* ``smem_swizzle_base`` (the ``make_view`` of a tensor with a pointer swizzle): its base is a multiple of the
  swizzle's period, given the allocation's guaranteed alignment (unknown where the alignment is below the period
  and the compiler's placement decides);
* ``injective`` (the ``make_view``): the view's element-domain layout, so no two elements share an address;
* ``tmem_alloc`` (each ``cute_nvgpu.arch.sm100.alloc_tmem`` with a constant column count) and ``tmem_view`` (each
  ``cute.make_view`` of a TMEM pointer from ``retrieve_tmem_ptr`` or an MMA accumulator fragment, moved by static
  ``add_offset``s).

A construct the walk cannot place (a dynamic offset, a column count that is not a constant, a TMEM pointer of
another origin) is reported with ``doc.unknown``, never skipped.
"""
from __future__ import annotations

import json
import re

from ...analysis.smem_placement import Field
from ...core.layout import size
from ...errors import CuteVerifyError
from .mlir import Module
from .types import memref

__all__ = ["emit"]

_INT_TUPLE = re.compile(r'^-?\d+$')
_PASS = ("cute.get_iter", "cute.recast_iter")


def _static_int(module: Module, value: str, func: str):
    """The integer a ``!cute.int_tuple<"N">`` value holds, else None."""
    t = module.type_of(value, func)
    if t is None or t.name != "cute.int_tuple" or not t.args or not isinstance(t.args[0], str):
        return None
    s = t.args[0].strip()
    return int(s) if _INT_TUPLE.match(s) else None


def _assigned(loc, default: str) -> str:
    m = re.match(r"^\s*([A-Za-z_][\w.]*)\s*=", loc.text or "")
    return m.group(1).rsplit(".", 1)[-1] if m else default


def _fields(op):
    raw = op.attrs.get("smem.struct_fields")
    if raw is None:
        return None
    return [Field.read(s) for s in json.loads(raw)]


def _field_of(fields, offset: int):
    """The field whose bytes hold ``offset`` (a sized one first, then a size-0 one at it, then the nearest one
    before it: the claim then says how far the view leaves it)."""
    sized = [f for f in fields if f.bytes > 0 and f.offset <= offset < f.end]
    if sized:
        return sized[0]
    at = [f for f in fields if f.offset == offset]
    if at:
        return at[0]
    before = [f for f in fields if f.offset <= offset]
    return max(before, key=lambda f: (f.offset, f.bytes)) if before else None


def _modelled_bases(ops) -> dict:
    """alloca index -> the byte where the DSL 4.8.1 allocator puts it, as observed in the PTX it emits (the
    dynamic smem base is 1024-aligned; allocations follow in partition order, then text order, each rounded up
    to its alignment). A model: it is only said in an unknown's reason, never used to prove."""
    allocs = []
    for op in ops:
        m = memref(op.out_types[0]) if op.name == "cute.memref.alloca" and op.out_types else None
        if m is not None and m.space == "smem" and m.layout_text is not None:
            part = re.match(r"\s*(\d+)", str(op.attrs.get("smem.partition_id", "1")))
            allocs.append((int(part.group(1)) if part else 1, op.index, m.align, size(m.layout) * m.bits // 8))
    out, cursor = {}, 0
    for _, index, align, nbytes in sorted(allocs):
        cursor = -(-cursor // align) * align
        out[index] = cursor
        cursor += nbytes
    return out


def _emit_smem(module: Module, doc, func: str, ops) -> None:
    place = {}  # value -> (alloca op, byte offset or None)
    bases = _modelled_bases(ops)
    for op in ops:
        if op.name == "cute.memref.alloca":
            m = memref(op.out_types[0]) if op.out_types else None
            if m is None or m.space != "smem":
                continue
            place[op.results[0]] = (op, 0)
            total = size(m.layout) * m.bits // 8 if m.layout_text is not None else None
            fields = _fields(op)
            if fields:
                doc.claim({"smem_struct": {"fields": [str(f) for f in fields], "bytes": total}}, op.loc)
            continue
        src = next((place[v] for v in op.operands[:1] if v in place), None)
        if src is None:
            continue
        alloca, off = src
        if op.name in _PASS:
            place[op.results[0]] = src
        elif op.name == "cute.add_offset":
            k = _static_int(module, op.operands[1], func) if len(op.operands) > 1 else None
            ptr = memref(op.in_types[0])
            bits = k * ptr.bits if k is not None and ptr is not None else None
            place[op.results[0]] = (alloca, off + bits // 8 if off is not None and bits is not None and
                                    bits % 8 == 0 else None)
        elif op.name == "cute.make_view":
            place[op.results[0]] = src
            _emit_view(doc, alloca, off, op, bases.get(alloca.index))


def _emit_view(doc, alloca, off, op, base) -> None:
    view = memref(op.out_types[0])
    if view is None or view.space != "smem" or view.layout_text is None:
        return
    if off is None:
        doc.unknown("smem view", op.loc, "its offset in the allocation is not static")
        return
    try:
        el = view.element_layout()
    except CuteVerifyError as e:
        doc.unknown("smem view", op.loc, str(e))
        return
    alloc = memref(alloca.out_types[0])
    fields = _fields(alloca)
    total = size(alloc.layout) * alloc.bits // 8
    field = _field_of(fields, off) if fields else Field(_assigned(alloca.loc, "smem"), total, 0)
    if field is None:
        doc.unknown("smem view", op.loc, f"no struct field of {alloca.loc} holds byte {off}")
        return
    name = doc.layout(_assigned(op.loc, "smem"), str(el), op.loc)
    doc.claim({"smem_view": {"layout": name, "elem_bits": view.bits, "offset": off, "field": str(field)}}, op.loc)
    doc.claim({"injective": name}, op.loc)
    if view.swizzle is not None and view.swizzle.bits:
        body = {"swizzle": str(view.swizzle), "offset": off, "align": alloc.align}
        if base is not None and alloc.align < view.swizzle_period:
            body["placed"] = base + off
        doc.claim({"smem_swizzle_base": body}, op.loc)


def _tmem_base(module: Module, value: str, func: str):
    """``(element offset in the pointer's elements, None)`` from the allocation's base, or ``(None, why)``."""
    bits_off = 0
    while True:
        op = module.producer(value, func)
        if op is None:
            return None, f"{value} is a block argument"
        if op.name in ("cute_nvgpu.arch.sm100.retrieve_tmem_ptr",):
            break
        if op.name == "cute.get_iter":
            src = module.producer(op.operands[0], func)
            if src is not None and src.name == "cute.mma.make_fragment":
                break  # an accumulator fragment: the DSL places it at the base (offset 0) of the allocation
            if src is not None and src.name == "cute.make_view":
                value = next((v for v, t in zip(src.operands, src.in_types) if t.name == "cute.ptr"), None)
                if value is not None:
                    continue
            return None, f"it is the iterator of a tensor built by {src.name if src else 'a block argument'}" + \
                (f" at {src.loc}" if src else "")
        if op.name == "cute.recast_iter":
            value = op.operands[0]
            continue
        if op.name == "cute.add_offset":
            k = _static_int(module, op.operands[1], func)
            ptr = memref(op.in_types[0])
            if k is None or ptr is None:
                return None, f"{op.name} at {op.loc} moves it by a dynamic amount"
            bits_off += k * ptr.bits
            value = op.operands[0]
            continue
        return None, f"it comes from {op.name} at {op.loc}"
    return bits_off, None


def _accessed(view, users) -> bool:
    """Whether a copy or an MMA reads the TMEM tensor ``view`` (or a tensor derived from it) by its layout; a
    tensor only handed to ``make_fragment`` or read for its iterator is a carrier of shape, not of addresses."""
    todo, seen = [view], set()
    while todo:
        op = todo.pop()
        for r in op.results:
            for u in users.get(r.split("#", 1)[0], ()):
                if u.index in seen or u.name in ("cute.mma.make_fragment", "cute.get_iter", "cute.get_layout"):
                    continue
                seen.add(u.index)
                if "copy" in u.name or "gemm" in u.name or u.name.startswith("cute_nvgpu."):
                    return True
                if any((m := memref(t)) is not None and m.space == "tmem" for t in u.out_types):
                    todo.append(u)
    return False


def _emit_tmem(module: Module, doc, func: str, ops) -> None:
    allocs = []
    for op in ops:
        if op.name == "cute_nvgpu.arch.sm100.alloc_tmem":
            c = module.producer(op.operands[0], func) if op.operands else None
            val = str(c.props.get("value", "")) if c is not None and c.name == "arith.constant" else ""
            m = re.match(r"^\s*(\d+)\s*:", val)
            if m is None:
                doc.unknown("tcgen05.alloc", op.loc, "its column count is not a constant")
                continue
            allocs.append((op, int(m.group(1))))
    for i, (op, n) in enumerate(allocs):
        others = [c for j, (_, c) in enumerate(allocs) if j != i]
        body = {"columns": n}
        if others:
            body["others"] = others
        if "is_two_cta" in op.props:
            body["two_cta"] = True
        doc.claim({"tmem_alloc": body}, op.loc)
    users: dict = {}
    for op in ops:
        for v in op.operands:
            users.setdefault(v.split("#", 1)[0], []).append(op)
    for op in ops:
        if op.name != "cute.make_view":
            continue
        t = memref(op.out_types[0]) if op.out_types else None
        if t is None or t.space != "tmem":
            continue
        if not _accessed(op, users):
            doc.unknown("tmem tensor", op.loc, "no claim: no copy or MMA reads it through its layout (only its "
                                               "iterator or shape is used, e.g. by make_fragment)")
            continue
        ptr = next((v for v, ty in zip(op.operands, op.in_types) if ty.name == "cute.ptr"), None)
        bits_off, why = _tmem_base(module, ptr, func) if ptr is not None else (None, "no pointer operand")
        if bits_off is None:
            doc.unknown("tmem tensor", op.loc, f"its base is not placed in the allocation: {why}")
            continue
        if len(allocs) != 1:
            doc.unknown("tmem tensor", op.loc, f"{len(allocs)} tcgen05.alloc ops in its kernel: the allocation "
                                               f"it lies in is not known")
            continue
        if bits_off % t.bits:
            doc.unknown("tmem tensor", op.loc, f"its offset of {bits_off} bits is not whole {t.elem} elements")
            continue
        name = doc.layout(_assigned(op.loc, "tmem"), t.layout_text, op.loc)
        doc.claim({"tmem_view": {"layout": name, "elem_bits": t.bits, "offset": bits_off // t.bits,
                                 "columns": allocs[0][1]}}, op.loc)


def emit(module: Module, doc) -> None:
    """Add the shared-memory placement and TMEM claims of every function of ``module`` to ``doc`` (module
    docstring); constructs that cannot be placed go to ``doc.unknown``."""
    by_func: dict = {}
    for op in module.ops:
        by_func.setdefault(op.func, []).append(op)
    for func, ops in by_func.items():
        _emit_smem(module, doc, func, ops)
        _emit_tmem(module, doc, func, ops)
