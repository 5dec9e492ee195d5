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
  ``add_offset``s, sliced (a dynamic coordinate's mode is appended: every stage is checked) or reshaped). A
  tensor reached through ``partition_S/D`` (one thread's part, or a view ``cute.copy`` builds of it) is claimed
  as the partitioned tensor, moved by the offsets added after the partition: over all threads the parts make up
  that tensor. A TMEM tensor nothing reads as addresses is a ``doc.note`` (no copy, MMA or ``ptrtoint``
  uses it: FA4's ``tP`` only gives ``make_fragment_A`` its shape, the host's accumulator fakes their layouts).

A construct the walk cannot place (a dynamic offset, a column count that is not a constant, a TMEM pointer of
another origin) is reported with ``doc.unknown``, never skipped.
"""
from __future__ import annotations

import json
import re

from ...analysis.smem_placement import Field
from ...core.layout import Layout, make_layout, size
from ...errors import CuteVerifyError
from .mlir import Module
from .types import memref

__all__ = ["emit"]

_INT_TUPLE = re.compile(r'^-?\d+$')
_PASS = ("cute.get_iter", "cute.recast_iter")
# ops whose result starts at their first operand's iterator (they reshape, never move, a tensor)
_SAME_ITERATOR = frozenset({"cute.get_iter", "cute.recast_iter", "cute.group_modes", "cute.flat_divide",
                            "cute.logical_divide", "cute.zipped_divide", "cute.tiled_divide", "cute.composition"})


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


def _coord(text: str):
    """A printed coordinate (``((_,_),0,0,?)``) as a tree of int, ``"_"`` and ``"?"``."""
    toks = re.findall(r"\(|\)|_|\?(?:\{[^}]*\})?|-?\d+", text)
    pos = 0

    def node():
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t == "(":
            out = []
            while toks[pos] != ")":
                out.append(node())
            pos += 1
            return tuple(out)
        return "?" if t.startswith("?") else t if t == "_" else int(t)
    return node()


def _slice_offset(layout, coord, bits: int, extras: list) -> int:
    """The bits a slice at ``coord`` moves the base by (``_`` kept, an integer fixed); a dynamic entry's mode goes
    to ``extras`` (its values are the offsets the base may take)."""
    if isinstance(coord, tuple):
        return sum(_slice_offset(layout[i], c, bits, extras) for i, c in enumerate(coord))
    if coord == "_":
        return 0
    if coord == "?":
        extras.append((layout, bits))
        return 0
    return int(layout(coord)) * bits


def _tmem_base(module: Module, value: str, func: str):
    """Where the TMEM tensor ``value`` lies: ``(bits from the allocation's base, extra modes [(layout, bits)],
    None, covering)``, or ``(None, None, why, None)``. The walk goes back through ``add_offset`` (static),
    ``recast_iter``, ``get_iter``, ``make_view``, reshapes, ``slice`` (a dynamic coordinate: its mode becomes an
    extra mode) and ``make_fragment`` (an accumulator is placed at the base; an A/B fragment of a TMEM tensor at
    that tensor's base) to ``retrieve_tmem_ptr``. Through ``partition_S/D`` of a tensor ``X``: one thread's part
    (and any slice of it) lies inside ``X``, so the claim is made on ``X`` moved by the ``add_offset``s applied
    after the partition (``covering``: ``X``'s MemRef; None when the claim is on ``value`` itself). Over all
    threads the parts make up ``X`` (the copy covers its tile: the copy claims check it), so this is the tensor
    the kernel's threads touch together."""
    bits_off, extras, moved, covering = 0, [], 0, None
    while True:
        op = module.producer(value, func)
        if op is None:
            return None, None, f"{value} is a block argument", None
        if op.name == "cute_nvgpu.arch.sm100.retrieve_tmem_ptr":
            return bits_off, extras, None, covering
        if op.name == "cute.mma.make_fragment":
            src = next((v for v, t in zip(op.operands, op.in_types) if t.name == "cute.memref"), None)
            if src is None:  # the accumulator: the DSL places it at the allocation's base
                return bits_off, extras, None, covering
            value = src
        elif op.name in _SAME_ITERATOR:
            value = op.operands[0]
        elif op.name in ("cute.tiled.copy.partition_S", "cute.tiled.copy.partition_D"):
            value, src = next(((v, t) for v, t in zip(op.operands, op.in_types) if t.name == "cute.memref"),
                              (None, None))
            if value is None:
                return None, None, f"{op.name} at {op.loc} partitions no tensor", None
            covering, bits_off, extras, moved = memref(src), moved, [], 0
        elif op.name == "cute.make_view":
            value = next((v for v, t in zip(op.operands, op.in_types) if t.name == "cute.ptr"), None)
            if value is None:
                return None, None, f"{op.name} at {op.loc} has no pointer operand", None
        elif op.name == "cute.add_offset":
            k = _static_int(module, op.operands[1], func)
            ptr = memref(op.in_types[0])
            if k is None or ptr is None:
                return None, None, f"{op.name} at {op.loc} moves it by a dynamic amount", None
            bits_off += k * ptr.bits
            moved += k * ptr.bits
            value = op.operands[0]
        elif op.name == "cute.slice" and len(op.in_types) > 1 and op.in_types[1].name == "cute.coord":
            src = memref(op.in_types[0])
            try:
                bits_off += _slice_offset(src.layout, _coord(op.in_types[1].args[0]), src.bits, extras)
            except (CuteVerifyError, IndexError, TypeError, ValueError) as e:
                return None, None, f"{op.name} at {op.loc}: its coordinate is not placed ({e})", None
            value = op.operands[0]
        else:
            return None, None, f"it comes from {op.name} at {op.loc}", None


def _with_extras(t, bits_off: int, extras: list):
    """The TMEM tensor ``t``'s layout with each extra mode appended (strides in ``t``'s elements) and its
    element offset, or None when an offset is not whole elements."""
    layout = t.layout
    if bits_off % t.bits or any(b * d % t.bits for L, b in extras for d in _leaves(L.stride)):
        return None
    modes = [Layout(L.shape, _scale(L.stride, b, t.bits)) for L, b in extras]
    return (make_layout(layout, *modes) if modes else layout), bits_off // t.bits


def _leaves(x):
    return [y for e in x for y in _leaves(e)] if isinstance(x, tuple) else [x]


def _scale(x, num: int, den: int):
    return tuple(_scale(e, num, den) for e in x) if isinstance(x, tuple) else x * num // den


def _accessed(view, users) -> bool:
    """Whether something reads the TMEM tensor ``view`` (or a tensor sliced or reshaped from it) as addresses:
    a copy, an MMA, another ``cute_nvgpu`` op, or its iterator turned into an integer (``cute.ptrtoint``: FA4
    issues its MMAs by inline assembly). A tensor only handed to ``make_fragment`` (its shape) or whose iterator
    only starts other tensors (checked where they are built) is a carrier, not an access."""
    todo, seen = [view], set()
    while todo:
        op = todo.pop()
        for r in op.results:
            for u in users.get(r.split("#", 1)[0], ()):
                if u.index in seen or u.name in ("cute.mma.make_fragment", "cute.get_layout", "cute.make_view",
                                                 "cute.add_offset"):
                    continue
                seen.add(u.index)
                if "copy" in u.name or "gemm" in u.name or u.name.startswith("cute_nvgpu.") or \
                        u.name == "cute.ptrtoint":
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
        bits_off, extras, why, covering = _tmem_base(module, op.results[0], func)
        if bits_off is None:
            doc.unknown("tmem tensor", op.loc, f"its base is not placed in the allocation: {why}")
            continue
        if not _accessed(op, users):
            doc.note("tmem tensor", op.loc, "no copy, MMA or address computation reads it by its layout (it "
                                            "gives make_fragment a shape, or its iterator starts other tensors)")
            continue
        t = covering or t
        if len(allocs) != 1:
            doc.unknown("tmem tensor", op.loc, f"{len(allocs)} tcgen05.alloc ops in its kernel: the allocation "
                                               f"it lies in is not known")
            continue
        placed = _with_extras(t, bits_off, extras)
        if placed is None:
            doc.unknown("tmem tensor", op.loc, f"its offset of {bits_off} bits is not whole {t.elem} elements")
            continue
        name = doc.layout(_assigned(op.loc, "tmem"), str(placed[0]), op.loc)
        doc.claim({"tmem_view": {"layout": name, "elem_bits": t.bits, "offset": placed[1],
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
