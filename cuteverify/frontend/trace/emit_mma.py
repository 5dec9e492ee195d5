"""The tiled MMAs of a capture as manifest entries and claims (docs/model.md section 10.4).

For each distinct tiled MMA type (at the op that built it, ``cute.make_tiled_mma``, else the first op that uses
it) :func:`emit` adds the entry ``make_tiled_mma(...)`` (:func:`.atoms_mma.tiled_mma_expr`) and the claims:

* ``agrees: {tiled_mma, operand: A | B | C}``: the tiled MMA is the hardware's, atom by atom;
* ``covers: {tiled_mma, operand: A | B | C}``: every element of each operand's tile held exactly once (up to
  the threads that broadcast it: A over N, B over M, wgmma's warpgroup over a shared-memory operand);
* for each ``cute.tiled.mma.partition`` of a tensor whose layout is plain and static (a shared-memory tensor,
  a static coordinate tensor): ``equal: [X.get_slice(0).partition_<op>(T).layout, R]``, cuteverify's partition
  of the tensor ``T`` the op partitioned against the result layout ``R`` the DSL printed (a differential on the
  kernel itself; the thread index is dynamic in most kernels, and a plain layout's partition is the same
  layout at every thread, only its offset moves, so thread 0's is compared); a partition of a swizzled or
  dynamic tensor is a note saying so (and, over shared memory, naming the ops that access it unchecked);
* for each ``cute.mma.make_fragment`` that builds a wgmma / UMMA descriptor view
  (``-> !cute_nvgpu.smem_desc_view``): ``operand: {tiled_mma, operand, smem, dtype}``, the descriptor of the
  operand's declared major reads the shared-memory tensor the fragment comes from. That tensor follows the data
  flow: the tensor a ``cute.tiled.mma.partition`` partitioned when the fragment's input is that partition
  (``make_fragment_A(partition_A(sA))``: an ``(MN, K, stages)`` tile), else the input itself (SM100's
  ``make_fragment_A(sA)`` of an MMA-partitioned tile). Its layout is taken in the element domain
  (:meth:`.types.MemRef.element_layout`: the pointer's byte swizzle ``S<B,M,S>`` is ``S<B,M-log2(bytes),S>`` on
  element offsets); a tensor whose layout text is itself a composed layout is not checked (the unit of that
  swizzle is not in the text). The claim reads the layout from a base aligned to the swizzle's period; the
  tensor's guaranteed alignment against that period is the shared-memory checks' claim. With it, ``equal`` of
  the descriptor view the DSL printed and the one the fragment's tensor implies (mode 0 ``1:0``, every other
  stride in 16-byte descriptor steps);

Each claim is ``at`` the op's source line. A tiled MMA the mapping cannot name, and a tensor whose layout has no
element-domain form, is recorded with :meth:`Doc.unknown` with the reason (never skipped silently); the ops that
use an unmapped tiled MMA are covered by that one record.
"""
from __future__ import annotations

import re

from ...core.layout import Layout
from ...core.notation.parse import parse
from ...errors import CaptureError, CuteVerifyError
from .atoms_mma import MMA_TYPE, operand_name, tiled_mma_expr
from .document import Doc
from .mlir import Module, Op, TypeExpr
from .types import memref

__all__ = ["emit", "tiled_mmas", "partition_source"]

PARTITION = "cute.tiled.mma.partition"
FRAGMENT = "cute.mma.make_fragment"
MAKE = "cute.make_tiled_mma"
DESC_VIEW = "cute_nvgpu.smem_desc_view"
_ASSIGNED = re.compile(r"^\s*(?:self\.)?([A-Za-z_]\w*)\s*(?:,[^=]*)?=(?!=)")


def tiled_mmas(module: Module) -> dict:
    """``{type text: (TypeExpr, Op)}`` for each distinct tiled MMA type of ``module``, in text order, with the
    op that built it (``cute.make_tiled_mma``) or, when the capture has none (a kernel argument), the first op
    that uses it."""
    out: dict = {}
    for op in module.ops:
        for t in op.out_types + op.in_types:
            if t.name != MMA_TYPE:
                continue
            made = op.name == MAKE and t in op.out_types
            if t.text not in out or (made and out[t.text][1].name != MAKE):
                out[t.text] = (t, op)
    return out


def _hint(op: Op, default: str) -> str:
    m = _ASSIGNED.match(op.loc.text or "")
    return m.group(1) if m else default


def _static_layout_text(t: TypeExpr):
    """The CuTe text of a tensor's plain, static layout (a memref without a composed layout, a coordinate
    tensor), else None: what an ``equal`` claim can state exactly."""
    if t.name == "cute.coord_tensor" and len(t.args) == 2 and isinstance(t.args[1], str):
        text = t.args[1]
    else:
        m = memref(t)
        text = m.layout_text if m is not None else None
    if text is None or "?" in text or " o " in text:
        return None
    return text


def partition_source(module: Module, op: Op):
    """The ``cute.tiled.mma.partition`` op that produced ``op``'s tensor operand (operand 1), else None."""
    if len(op.operands) < 2:
        return None
    p = module.producer(op.operands[1], op.func)
    return p if p is not None and p.name == PARTITION else None


def emit(module: Module, doc: Doc) -> None:
    """Add the entries and claims of every tiled MMA of ``module`` to ``doc`` (module docstring)."""
    names = {}
    for text, (t, op) in tiled_mmas(module).items():
        try:
            expr = tiled_mma_expr(t)
        except CaptureError as e:
            doc.unknown(f"tiled MMA {t.text}", op.loc, f"not mapped to a cuteverify tiled MMA: {e}")
            continue
        name = doc.layout(_hint(op, "tiled_mma"), expr, op.loc)
        names[text] = name
        for kind in ("agrees", "covers"):
            for operand in ("A", "B", "C"):
                doc.claim({kind: {"tiled_mma": name, "operand": operand}}, op.loc)
    for op in module.of(PARTITION, FRAGMENT):
        if not op.in_types or op.in_types[0].name != MMA_TYPE or op.in_types[0].text not in names:
            continue
        name = names[op.in_types[0].text]
        try:
            operand = operand_name(op.props.get("operand_id", ""))
        except CaptureError as e:
            doc.unknown(f"{op.name}", op.loc, str(e))
            continue
        if op.name == PARTITION:
            _partition_claim(module, doc, op, name, operand)
        elif op.out_types and op.out_types[0].name == DESC_VIEW:
            _operand_claim(module, doc, op, name, operand)


def _partition_claim(module: Module, doc: Doc, op: Op, name: str, operand: str) -> None:
    if len(op.in_types) < 2 or not op.out_types:
        return
    src, dst = _static_layout_text(op.in_types[1]), _static_layout_text(op.out_types[0])
    if src is None or dst is None:
        # dynamic extents or a swizzled layout: the DSL prints thread-dependent strides, nothing exact. Said, not
        # skipped: over shared memory, what reads or writes through it other than make_fragment (an epilogue's
        # autovec_copy) is an access no claim covers, and the row says so
        what = f"partition_{operand} of {op.in_types[1].text} by {name}"
        m = memref(op.in_types[1])
        res = op.results[0] if op.results else None
        users = {u.name for u in module.ops if u.func == op.func and res in u.operands}
        users -= {FRAGMENT, "cute.get_iter", "cute.get_layout", "cute.get_shape"}
        why = ("a swizzled or dynamic layout: the DSL prints the thread's partition with strides unrelated to the "
               "input's, so it is not compared with cuteverify's")
        if m is not None and m.space == "smem" and users:
            why += f"; the shared-memory accesses through it ({', '.join(sorted(users))}) are not checked"
        doc.note(what, op.loc, why)
        return
    hint = _hint(op, "part")
    src_op = module.producer(op.operands[1], op.func) if len(op.operands) > 1 else None
    t = doc.layout(_hint(src_op, f"{hint}_src") if src_op is not None else f"{hint}_src", src)
    r = doc.layout(hint, dst, op.loc)
    doc.claim({"equal": [f"{name}.get_slice(0).partition_{operand}({t}).layout", r]}, op.loc,
              name=f"cuteverify's partition_{operand} equals the DSL's ({op.loc.text or op.name})")


def _operand_claim(module: Module, doc: Doc, op: Op, name: str, operand: str) -> None:
    if operand not in ("A", "B"):
        doc.unknown(f"{op.name} (operand {operand})", op.loc, "a descriptor view of an operand other than A or B")
        return
    part = partition_source(module, op)
    if len(op.in_types) < 2 or (part is not None and len(part.in_types) < 2):
        doc.unknown(op.name, op.loc, "a descriptor view without the tensor it views")
        return
    tensor = part.in_types[1] if part is not None else op.in_types[1]
    m = memref(tensor)
    if m is None or m.space != "smem" or m.layout_text is None:
        doc.unknown(f"{op.name} of {tensor.text}", op.loc, "the descriptor view's tensor is no shared-memory "
                    "tensor with a layout")
        return
    if " o " in m.layout_text:
        # a composed layout's swizzle may be in bytes (the DSL's sm90/sm100 smem atoms) or in elements
        # (hand-built ones): the text cannot tell (NOTES.md pitfall 12), and a guess could prove wrongly
        doc.unknown(f"{op.name} of {tensor.text}", op.loc, "the descriptor reads a tensor whose layout is a "
                    "composed layout: the unit of its swizzle (bytes or elements) is not in the text")
        return
    try:
        layout = m.element_layout()
    except CuteVerifyError as e:
        doc.unknown(f"{op.name} of {tensor.text}", op.loc, str(e))
        return
    value = part.operands[1] if part is not None else op.operands[1]
    src_op = module.producer(value, op.func)
    smem = doc.layout(f"{_hint(src_op, 'smem') if src_op is not None else 'smem'}_elem", str(layout))
    doc.claim({"operand": {"tiled_mma": name, "operand": operand, "smem": smem, "dtype": m.elem}}, op.loc)
    _view_claim(doc, op)


def _desc_steps(x, num: int):
    """Element strides ``x`` (nested) as descriptor address steps: ``x * num / 16`` (16-byte units); None when a
    step is not whole."""
    if isinstance(x, tuple):
        out = tuple(_desc_steps(v, num) for v in x)
        return None if any(v is None for v in out) else out
    return None if not isinstance(x, int) or (x * num) % 16 else x * num // 16


def _view_claim(doc: Doc, op: Op) -> None:
    """``equal`` of the descriptor view the DSL printed and the one the fragment's tensor implies: mode 0 (the
    MMA atom's tile, one descriptor) is ``1:0``, every other mode steps the descriptor's start address by its
    element stride in 16-byte units (the k-blocks and stages a kernel iterates over). A swizzled, dynamic or
    non-16-byte-aligned step is a note (no exact view to state)."""
    t, view = op.in_types[1], op.out_types[0]
    m = memref(t)
    text = view.args[1] if len(view.args) > 1 and isinstance(view.args[1], str) else None
    steps = None
    if m is not None and m.layout_text is not None and text is not None and " o " not in m.layout_text \
            and "?" not in m.layout_text:
        try:
            lay = parse(m.layout_text, source="captured layout")
        except CuteVerifyError:
            lay = None
        if lay is not None and isinstance(lay.shape, tuple) and len(lay.shape) > 1:
            steps = _desc_steps(tuple(lay.stride[1:]), m.bits // 8 if m.bits % 8 == 0 else 0)
    if steps is None:
        doc.note(f"descriptor view {view.text}", op.loc, "its tensor's layout is swizzled, dynamic or steps by "
                 "less than 16 bytes: no exact view to compare the DSL's with")
        return
    expected = str(Layout((1,) + tuple(lay.shape[1:]), (0,) + steps))
    got = doc.layout(f"{_hint(op, 'frag')}_desc_dsl", text, op.loc)
    doc.claim({"equal": [got, expected]}, op.loc, name=f"the DSL's descriptor view of {op.loc.text or op.name} "
              f"steps by its tensor's strides in 16-byte units ({expected})")
