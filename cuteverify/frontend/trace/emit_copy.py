"""The tiled copies of a capture as manifest entries and claims (docs/model.md section 10.4).

:func:`emit` walks the traced ops and adds to a :class:`~.document.Doc`:

* one entry per tiled copy type (:func:`.atoms_copy.tiled_copy_expr`), named after the variable its builder
  (``cute.make_tiled_copy`` / ``cute_nvgpu.atom.make_tmem_copy``) assigns, with ``covers: {tiled_copy}``;
* for each ``cute.tiled.copy.partition_S`` / ``partition_D`` (operand 0 the copy, operand 1 the tensor it
  partitions, the result the thread's partition the DSL computed):

  - the partition differential: ``equal: [copy.get_slice(0).partition_S|D(L).layout, P]``, cuteverify's
    partition of the tensor's printed layout ``L`` against the DSL's printed result ``P`` (both are the layout
    of every thread's slice: the thread only moves the pointer), for tensors in memory and coordinate
    (identity) tensors alike; for a layout with an element swizzle, its layout under the swizzle, unless the
    DSL folded the swizzle into split modes with dynamic strides (then unknown). A tensor with dynamic extents (``?{div=8}``)
    is compared leaf by leaf (the DSL prints its dynamic leaves without their relation to the input's
    symbols, so no manifest text can share them): the ``equal`` is of the two layouts with every dynamic leaf
    written as :data:`DYNAMIC`, which holds when every static leaf is equal and every dynamic leaf is dynamic
    on both sides;
  - over a shared-memory tensor: ``banks`` and ``vector`` of the copy through the element-domain layout of
    that tensor (:meth:`~.types.MemRef.element_layout`: the pointer's byte swizzle moved to elements), on the
    side the op partitions, and ``injective`` of the thread's partition (no thread reads or writes one smem
    element twice in one copy); none when that side of the atom is registers (ldmatrix's destination,
    stmatrix's source: kernels partition an smem tensor there for its shape);
* for each ``cute.tiled.copy.retile`` of an MMA fragment (a ``cute.mma.make_fragment`` result, or an operand
  of a ``cute.gemm`` op: the data flow, never type equality): ``compatible: {copy, tiled_mma, operand}``, and
  when the copy's builder was ``make_tiled_copy_A/B/C`` (its source line), ``equal`` of its TV layout and tiler
  modes with cuteverify's ``make_tiled_copy_A/B/C(atom, mma)``; a copy of a sub-tile (built by
  ``make_tiled_copy_C_atom`` / ``_S`` / ``_D``) gets no ``compatible`` (the whole tile is not its relation), and
  one whose source line names no builder is unknown (which of the two it is cannot be read off the capture);
* for a copy built by ``make_tiled_copy_A/B/C/C_atom`` that no retile relates to an MMA: the same ``equal``
  claims against the builder applied to the only tiled MMA type of the builder's function (the claim's name
  says so), unknown when the function has several; for one built by ``make_tiled_copy_S/D(atom, other)``, the
  ``equal`` claims against that builder over the only other copy of the same tiler built in its function.

Every claim is ``at`` the op's location; a construct with no claim is ``doc.unknown`` with the reason.
"""
from __future__ import annotations

import re

from ...atoms import make_tiled_copy
from ...core.layout import Layout
from ...core.notation.parse import parse
from ...core.swizzle import ComposedLayout
from ...errors import CaptureError, CuteVerifyError
from .atoms_copy import ATOM_PREFIX, copy_atom_name, copy_dtype, tiled_copy_expr, tiled_copy_parts
from .atoms_mma import tiled_mma_expr
from .document import Doc
from .mlir import Bare, Module, Op
from .types import memref

__all__ = ["emit", "BUILDERS", "PARTITIONS"]

BUILDERS = ("cute.make_tiled_copy", "cute_nvgpu.atom.make_tmem_copy")
PARTITIONS = {"cute.tiled.copy.partition_S": ("S", "src"), "cute.tiled.copy.partition_D": ("D", "dst")}
RETILE = "cute.tiled.copy.retile"
GEMM = "cute.gemm"
MAKE_FRAGMENT = "cute.mma.make_fragment"
_FRAG_OPERAND = {0: "A", 1: "B", 2: "C"}
# cute.gemm(mma, D, A, B, C): the operand each value position holds
_GEMM_OPERAND = {1: "C", 2: "A", 3: "B", 4: "C"}
_BUILDER = re.compile(r"make_tiled_copy_(A|B|C_atom|C|S|D|tv)\b|make_tiled_copy\b|make_tmem_copy\b")
#: the value a dynamic leaf is written as when a mismatching partition is stated as an ``equal`` of two texts
DYNAMIC = 9973
_MATRIX = re.compile(r"_(LDSM|STSM)_")
# the side of an atom that is registers (a partition of an smem tensor on that side is no smem access)
_REGISTER_SIDE = {"ldsm": "dst", "stsm": "src", "tmem_load": "dst", "tmem_store": "src"}


def _hint(op: Op, fallback: str) -> str:
    text = (op.loc.text or "").strip()
    m = re.match(r"^(?:return\s+)?(?:self\.)?([A-Za-z_]\w*)\s*=(?!=)", text)
    return m.group(1) if m else fallback


def _mem_bytes(atom_name: str, elem_bits: int) -> int:
    """Bytes each thread moves contiguously on the memory side of one atom issue (what ``vector`` requires)."""
    if _MATRIX.search(atom_name):
        return 16  # ldmatrix / stmatrix: one 16-byte row per thread address
    m = re.search(r"<uint(\d+)_t>", atom_name)
    return int(m.group(1)) // 8 if m else max(1, elem_bits // 8)


class _Emitter:
    def __init__(self, module: Module, doc: Doc):
        self.m, self.doc = module, doc
        self.copies: dict = {}   # tiled copy type text -> entry name (None: not mapped)
        self.builder: dict = {}  # type text -> builder op
        self.objects: dict = {}  # type text -> cuteverify TiledCopy
        self.mmas: dict = {}     # tiled MMA type text -> entry name (None: not mapped)
        self.related: set = set()  # copies compared with their make_tiled_copy_A/B/C/C_atom
        self.func_mmas: dict = {}  # function -> {tiled MMA type text: type}

    # ------------------------------------------------------------------------------------------ entries
    def copy_entry(self, t, op: Op):
        key = t.text
        if key in self.copies:
            return self.copies[key]
        hint = _hint(op, "tiled_copy") if op.name in BUILDERS else "tiled_copy"
        try:
            expr = tiled_copy_expr(t)
            atom, tv, tiler = tiled_copy_parts(t)
            self.objects[key] = make_tiled_copy(copy_atom_name(atom), tv, tiler, copy_dtype(atom))
        except CuteVerifyError as e:
            self.doc.unknown(f"tiled copy {t.text}", op.loc, str(e))
            self.copies[key] = None
            return None
        name = self.doc.layout(hint, expr, op.loc)
        self.copies[key] = name
        self.builder.setdefault(key, op)
        self.doc.claim({"covers": {"tiled_copy": name}}, op.loc,
                       name=f"the tiled copy {name} covers its tile {tiler}: each element, equally often")
        return name

    def mma_entry(self, t, op: Op):
        if t.text in self.mmas:
            return self.mmas[t.text]
        try:
            name = self.doc.layout("tiled_mma", tiled_mma_expr(t), op.loc)
        except CuteVerifyError as e:
            self.doc.unknown(f"tiled MMA {t.text}", op.loc, str(e))
            name = None
        self.mmas[t.text] = name
        return name

    # --------------------------------------------------------------------------------------- partitions
    def partition(self, op: Op):
        letter, side = PARTITIONS[op.name]
        copy = self.copy_entry(op.in_types[0], op)
        if copy is None:
            return
        var = _hint(op, "part")
        t, r = op.in_types[1], op.out_types[0]
        if t.name == "cute.coord_tensor" and r.name == "cute.coord_tensor":
            # an identity tensor (predicates): no memory access, but the same partition, of coordinates
            self.differential(op, copy, letter, t.text, _coord_layout(t), _coord_layout(r), var)
            return
        src, out = memref(t), memref(r)
        if src is None or out is None or src.layout_text is None or out.layout_text is None:
            self.doc.unknown(f"partition_{letter} of {t.text} by {copy}", op.loc,
                             f"the partitioned value is a {t.name}, not a tensor: not mapped")
            return
        self.differential(op, copy, letter, src.type_text, src.layout_text, out.layout_text, var)
        if src.space == "smem":
            self.smem_claims(op, copy, side, src, out, var)

    def differential(self, op, copy, letter, what, src_text, out_text, var):
        """The partition differential (module docstring) of the tensor ``what`` whose layout prints as
        ``src_text`` and whose thread partition the DSL printed as ``out_text``."""
        tc = self.objects[op.in_types[0].text]
        try:
            layout = parse(src_text, source="captured layout")
            printed = parse(out_text, source="captured layout")
            plain = layout.outer if isinstance(layout, ComposedLayout) else layout
            mine = getattr(tc.get_slice(0), f"partition_{letter}")(plain).layout
        except CuteVerifyError as e:
            self.doc.unknown(f"partition_{letter} of {what} by {copy}", op.loc, f"cuteverify cannot partition it: {e}")
            return
        name = (f"cuteverify's partition_{letter} of {var}'s tensor by {copy} is the DSL's"
                + (" (the layout under its swizzle)" if plain is not layout else ""))
        if plain is not layout and "?" in out_text and "?" not in str(plain):
            self.doc.unknown(f"partition_{letter} of {what} by {copy}", op.loc,
                             "the DSL folds the layout's swizzle into the partition (modes split, with dynamic "
                             f"strides: {out_text}): no plain partition to compare with cuteverify's")
            return
        if "?" not in src_text and "?" not in out_text:
            lhs = self.doc.layout(f"{var}_in", str(plain), op.loc)
            a = self.doc.layout(f"{var}_cv", f"{copy}.get_slice(0).partition_{letter}({lhs}).layout", op.loc)
            b = self.doc.layout(f"{var}_dsl", out_text, op.loc, own=True)
            self.doc.claim({"equal": [a, b]}, op.loc, name=name)
            return
        # dynamic extents: the DSL's ?{div=N} leaves are fresh values, unrelated to the input's; compare the
        # static leaves and which leaves are dynamic, each dynamic leaf written as DYNAMIC on both sides
        a = self.doc.layout(f"{var}_cv", str(_concretise(mine)), op.loc)
        b = self.doc.layout(f"{var}_dsl", str(_concretise(printed)), op.loc, own=True)
        self.doc.claim({"equal": [a, b]}, op.loc, name=name + f" (dynamic leaves written as {DYNAMIC})")

    def smem_claims(self, op, copy, side, src, out, var):
        atom, _, _ = tiled_copy_parts(op.in_types[0])
        reg = _REGISTER_SIDE.get(atom.name[len(ATOM_PREFIX):])
        if reg == side:
            self.doc.note(f"partition_{side[0].upper()} of {src.type_text} by {copy}", op.loc,
                          f"the {side} side of {atom.name} is registers: this partition of a shared-memory "
                             "tensor is no smem access of the copy (kernels take it for its shape)")
            return
        try:
            smem, part = _element_text(src), _element_text(out)
        except CuteVerifyError as e:
            self.doc.unknown(f"shared-memory tensor {src.type_text}", op.loc, str(e))
            return
        nbytes = _mem_bytes(copy_atom_name(atom), src.bits)
        s = self.doc.layout(f"{var}_smem", smem, op.loc)
        body = {"copy": copy, "smem": s, "side": side, "dtype": src.elem}
        if src.swizzle is not None and src.swizzle.bits and src.align < src.swizzle_period:
            # the pointer swizzle acts on absolute addresses: decided at every base the alignment allows
            body["align"] = src.align
        self.doc.claim({"banks": dict(body)}, op.loc,
                       name=f"{copy} ({side}) through {var}'s smem tensor has no bank conflict beyond the minimum")
        # the vector's first byte is aligned only as far as the tensor's base is (an element's own size when
        # the type states no align<N>): the claim assumes no more
        base_align = min(max(src.align, max(src.bits // 8, 1)), 16)
        self.doc.claim({"vector": dict(body, require=nbytes, alignment=base_align)}, op.loc,
                       name=f"{copy} ({side}) moves {nbytes}-byte vectors through {var}'s smem tensor")
        if "?" in out.layout_text:
            self.doc.unknown(f"injective {var}", op.loc, "the thread's smem partition has dynamic strides the DSL "
                                                         "prints unrelated to each other: injectivity is undecidable")
            return
        p = self.doc.layout(var, part, op.loc)
        self.doc.claim({"injective": p}, op.loc, name=f"{var}: one thread's smem partition touches each element once")

    # -------------------------------------------------------------------------------------------- retile
    def retile(self, op: Op):
        copy = self.copy_entry(op.in_types[0], op)
        if copy is None:
            return
        found = self.fragment_of(op.operands[1], op.func)
        if found is None:
            self.doc.note(f"retile by {copy}", op.loc, "the retiled tensor is no MMA fragment in the data flow "
                                                       "(not a make_fragment result nor a cute.gemm operand): "
                                                       "registers to registers, nothing to compare")
            return
        mma_t, operand, via = found
        mma = self.mma_entry(mma_t, via)
        if mma is None:
            self.doc.unknown(f"{copy} retiling the {operand} fragment of {mma_t.text}", op.loc,
                             "that tiled MMA is not mapped (reported at the op that uses it)")
            return
        key = op.in_types[0].text
        bop = self.builder.get(key, op)
        m = _BUILDER.search(bop.loc.text or "") if bop.name == "cute.make_tiled_copy" else None
        built = m.group(1) if m and m.group(1) else None
        if built is None:
            # a sub-tile copy (C_atom / S / D) retiles a fragment too: `compatible` with the whole tile would be
            # refuted for a kernel that is right, so the builder must be known, not guessed
            self.doc.unknown(f"{copy} retiling the {operand} fragment of {mma}", op.loc,
                             "the copy's builder is not named in its source line: whether it moves the whole "
                             "fragment (make_tiled_copy_A/B/C) or a sub-tile (make_tiled_copy_C_atom/S/D) is "
                             "not known")
            return
        if built in ("C_atom", "S", "D"):
            self.doc.note(f"{copy} retiling the {operand} fragment of {mma}", op.loc,
                          f"the copy was built by make_tiled_copy_{built or '?'}: it moves a sub-tile of the "
                             f"fragment, so `compatible` (the whole {operand} tile) is not its relation")
            return
        self.doc.claim({"compatible": {"copy": copy, "tiled_mma": mma, "operand": operand}}, op.loc,
                       name=f"{copy} (built by make_tiled_copy_{built or '?'}) delivers {mma}'s {operand} fragment")
        if built == operand:
            self.builder_equal(key, copy, built, mma, "")

    def builder_equal(self, key, copy, built, mma, why):
        """``equal`` claims: the copy's TV layout and tiler modes are those of cuteverify's
        ``make_tiled_copy_<built>(its atom, mma)`` (claims at the builder's line)."""
        self.related.add(key)
        bop, tc = self.builder[key], self.objects[key]
        atom, _, _ = tiled_copy_parts(bop.out_types[0] if bop.name in BUILDERS else bop.in_types[0])
        ref = self.doc.layout(f"{copy}_ref", f"make_tiled_copy_{built}({copy_atom_name(atom)}, {mma}, "
                                             f"{copy_dtype(atom)})", bop.loc)
        head = f"{copy} is make_tiled_copy_{built}(atom, {mma}){why}"
        a = self.doc.layout(f"{copy}_tv", f"{copy}.layout_tv_tiled", bop.loc)
        b = self.doc.layout(f"{ref}_tv", f"{ref}.layout_tv_tiled", bop.loc)
        self.doc.claim({"equal": [a, b]}, bop.loc, name=f"{head}: the DSL's TV layout is cuteverify's")
        for i in range(len(tc.tiler_mn)):
            a = self.doc.layout(f"{copy}_tiler{i}", f"{copy}.tiler_mn[{i}]", bop.loc)
            b = self.doc.layout(f"{ref}_tiler{i}", f"{ref}.tiler_mn[{i}]", bop.loc)
            self.doc.claim({"equal": [a, b]}, bop.loc, name=f"{head}: tiler mode {i} is cuteverify's")

    def builders(self):
        """Copies built by ``make_tiled_copy_A/B/C/C_atom`` that no retile relates to an MMA: compared with the
        builder applied to the tiled MMA of the builder's function when it has exactly one (the builder's MMA
        argument is not in the data flow: the DSL computed the TV layout at trace time); else unknown."""
        for key, bop in self.builder.items():
            copy = self.copies.get(key)
            m = _BUILDER.search(bop.loc.text or "") if bop.name == "cute.make_tiled_copy" else None
            built = m.group(1) if m and m.group(1) else None
            if copy is None or key in self.related or built in (None, "tv"):
                continue
            if built in ("S", "D"):
                self.laid_out_like(key, copy, built, bop)
                continue
            mmas = self.func_mmas.get(bop.func, {})
            if len(mmas) != 1:
                self.doc.unknown(f"{copy} built by make_tiled_copy_{built}", bop.loc,
                                 f"its function has {len(mmas)} tiled MMA types and no data flow names the one "
                                 "it was built from")
                continue
            mma = self.mma_entry(next(iter(mmas.values())), bop)
            if mma is not None:
                self.builder_equal(key, copy, built, mma, " (the only tiled MMA of its function)")

    def laid_out_like(self, key, copy, built, bop):
        """A copy built by ``make_tiled_copy_S/D(atom, other)``: compared with cuteverify's builder over the only
        other tiled copy built in the same function with the same tiler (the DSL keeps the other's tiler; the
        argument is not in the data flow); unknown when there is not exactly one."""
        tiler = tiled_copy_parts(bop.out_types[0])[2]
        others = [k for k, o in self.builder.items() if k != key and o.func == bop.func and o.name in BUILDERS
                  and self.copies.get(k) is not None and tiled_copy_parts(o.out_types[0])[2] == tiler]
        if len(others) != 1:
            self.doc.unknown(f"{copy} built by make_tiled_copy_{built}", bop.loc,
                             f"it is laid out like another tiled copy, which the data flow does not name, and its "
                             f"function builds {len(others)} other copies of its tile {tiler}")
            return
        self.builder_equal(key, copy, built, self.copies[others[0]],
                           " (the only other copy of its tile built in its function)")

    def fragment_of(self, value, func):
        """``(tiled MMA type, operand, op)`` of the MMA fragment ``value`` is, by the data flow: the result of
        ``cute.mma.make_fragment`` (its ``operand_id``), or a value some ``cute.gemm`` takes as an operand."""
        prod = self.m.producer(value, func)
        if prod is not None and prod.name == MAKE_FRAGMENT:
            oid = str(prod.props.get("operand_id", "")).split(":")[0].strip()
            if oid.isdigit() and int(oid) in _FRAG_OPERAND:
                return prod.in_types[0], _FRAG_OPERAND[int(oid)], prod
        for g in self.gemms.get(func, ()):
            for i, v in enumerate(g.operands):
                if v == value and i in _GEMM_OPERAND:
                    return g.in_types[0], _GEMM_OPERAND[i], g
        return None

    def run(self):
        self.gemms: dict = {}
        for op in self.m.ops:
            for t in op.in_types + op.out_types:
                if t.name == "cute.tiled_mma":
                    self.func_mmas.setdefault(op.func, {})[t.text] = t
        for op in self.m.of(GEMM):
            if op.in_types and op.in_types[0].name == "cute.tiled_mma":
                self.gemms.setdefault(op.func, []).append(op)
        for op in self.m.ops:
            if op.name in BUILDERS and op.out_types:
                self.copy_entry(op.out_types[0], op)
        for op in self.m.ops:
            if op.name in PARTITIONS:
                self.partition(op)
            elif op.name == RETILE:
                self.retile(op)
            elif op.name not in BUILDERS:
                for t in op.in_types:
                    if t.name == "cute.tiled_copy":
                        self.copy_entry(t, op)
        self.builders()


def _element_text(mr) -> str:
    """The element-domain layout of a tensor (:meth:`~.types.MemRef.element_layout`) as text, its layout part as
    printed (``?{div=8}`` leaves kept, so the text parses back). A swizzle in the layout text under a pointer
    swizzle is refused (two swizzles are not composed here)."""
    el = mr.element_layout()
    if mr.swizzle is None or mr.swizzle.bits == 0:
        return mr.layout_text
    if isinstance(el.outer, ComposedLayout):
        raise CaptureError(f"{mr.type_text}: a swizzled layout under a pointer swizzle is not mapped")
    return f"{el.inner} o 0 o {mr.layout_text}"


def _coord_layout(t) -> str:
    """The layout text of ``!cute.coord_tensor<"base", "layout">``."""
    pos = [a for a in t.positional if isinstance(a, str) and not isinstance(a, Bare)]
    if len(pos) != 2:
        raise CaptureError(f"{t.text}: a coordinate tensor has a base and a layout")
    return pos[1]


def _concrete_leaves(t):
    if isinstance(t, tuple):
        return tuple(_concrete_leaves(x) for x in t)
    return DYNAMIC if "?" in str(t) else t


def _concretise(layout):
    """``layout`` with every dynamic leaf replaced by :data:`DYNAMIC` (a mismatch stays a mismatch)."""
    plain = layout.outer if isinstance(layout, ComposedLayout) else layout
    return Layout(_concrete_leaves(plain.shape), _concrete_leaves(plain.stride))


def emit(module: Module, doc: Doc) -> None:
    """Add the tiled copies of ``module`` and their claims to ``doc`` (module docstring)."""
    _Emitter(module, doc).run()
