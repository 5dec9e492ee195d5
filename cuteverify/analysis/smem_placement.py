"""Where a kernel's buffers sit: shared-memory struct fields, tensor views inside them, the base of a swizzled
tensor against its swizzle's period, and tensor-memory (TMEM) allocations (docs/model.md section 10.4).

Definitions (bytes throughout for shared memory, 32-bit columns for TMEM):

* a struct field is ``(name, bytes, offset)``: the byte range ``[offset, offset + bytes)`` of its allocation
  (the DSL's ``smem.struct_fields``); a field of 0 bytes occupies nothing (the DSL gives absent members size 0
  and lets them share an offset with the next field);
* a view is a tensor built at byte ``offset`` of an allocation with the element-domain layout ``L`` (element
  offsets, a pointer swizzle already folded in) of ``b``-bit elements; its footprint is the bytes
  ``[offset + b*min(L)/8, offset + b*(max(L)+1)/8)``, computed from every value of ``L`` (exact, also when a
  swizzle moves the last element);
* a swizzled view's base is *period-aligned* when ``base = alloc_base + offset`` is a multiple of the pointer
  swizzle's period ``2^(B+M+S)``: only then is the element-domain layout the map from coordinates to byte offsets
  from the base that bank-conflict and TMA results assume. The swizzle acts on absolute addresses: CuTe's
  swizzled pointer does, and so does the hardware (a SWIZZLE_128B TMA load into a 128- but not 1024-aligned
  destination puts each byte at the absolute-address swizzle, measured on the H200:
  ``probes/tma_swizzle_base.cu``; wgmma descriptors likewise, ``specs/evidence/sm90``), so the kernel's agents
  agree at any base, while the relative layout changes;
* TMEM addresses are ``lane << 16 | column`` in 32-bit units (CuTe ``TMEM::DP``: a lane is ``1 << 16`` columns of
  ``uint32_t``, ``2^16 * 32/b`` elements of ``b`` bits); one CTA has 128 lanes x 512 columns, and
  ``tcgen05.alloc`` takes a power of two of columns in ``[32, 512]`` (cute/arch/tmem_allocator_sm100.hpp).

Admissibility: concrete layouts with integer strides (a symbolic one gives unknown, never a guess). Every
procedure returns a :class:`~cuteverify.prover.Verdict`; a refutation carries a typed counterexample naming the
field, element or column.
"""
from __future__ import annotations

from ..core.arrays import layout_array
from ..core.layout import Layout
from ..core.swizzle import ComposedLayout, Swizzle
from ..prover.verdict import Counterexample, Verdict

__all__ = ["Field", "fields_disjoint", "view_in_field", "swizzle_base", "tmem_alloc", "tmem_view", "footprint",
           "TMEM_COLUMNS", "TMEM_LANES"]

TMEM_COLUMNS = 512
TMEM_LANES = 128
_METHOD = "placement arithmetic"


class Field(tuple):
    """A struct field ``(name, bytes, offset)``; reads ``"name:bytes:offset"`` (the DSL's attribute text)."""

    def __new__(cls, name, nbytes, offset):
        return super().__new__(cls, (str(name), int(nbytes), int(offset)))

    @classmethod
    def read(cls, text: str) -> "Field":
        name, nbytes, offset = str(text).rsplit(":", 2)
        return cls(name, nbytes, offset)

    name = property(lambda self: self[0])
    bytes = property(lambda self: self[1])
    offset = property(lambda self: self[2])
    end = property(lambda self: self[2] + self[1])

    def __str__(self):
        return f"{self.name}:{self.bytes}:{self.offset}"


def _values(layout):
    """Every value of a concrete layout (numpy int64), None when it is not concrete."""
    if isinstance(layout, ComposedLayout):
        return layout.values_array() if type(layout.inner) is Swizzle else None
    return layout_array(layout) if type(layout) is Layout else None


def footprint(layout):
    """``(min, max)`` over every value of the concrete ``layout`` (elements), None when not concrete."""
    a = _values(layout)
    if a is None:
        return None
    return (int(a.min()), int(a.max())) if a.size else (0, -1)


def fields_disjoint(fields, total: int | None = None) -> Verdict:
    """Proved when the non-empty fields are pairwise disjoint byte ranges inside ``[0, total)`` (``total``: the
    allocation's bytes, None to skip that bound). Refuted with an :class:`Overlap` naming both fields and a byte
    they share, or an out-of-range field."""
    fs = [f if isinstance(f, Field) else Field.read(f) for f in fields]
    what = f"struct fields {', '.join(map(str, fs))} pairwise disjoint" + \
        (f" inside {total} bytes" if total is not None else "")
    live = sorted((f for f in fs if f.bytes > 0), key=lambda f: (f.offset, f.end))
    for f in live:
        if f.offset < 0 or (total is not None and f.end > total):
            cex = Counterexample.of("out-of-range", note=f"field {f} ends at byte {f.end}, past the "
                                    f"{total}-byte allocation" if f.offset >= 0 else f"field {f} starts before 0")
            return Verdict("refuted", what, _METHOD, cex, str(cex))
    for a, b in zip(live, live[1:]):
        if b.offset < a.end:
            cex = Counterexample.of("overlap", value=b.offset, coords=(a.name, b.name),
                                    note=f"byte {b.offset} is in field {a} and in field {b}")
            return Verdict("refuted", what, _METHOD, cex, f"byte {b.offset} is in field {a} and in field {b}")
    return Verdict("proved", what, _METHOD)


def view_in_field(layout, elem_bits: int, offset: int, field) -> Verdict:
    """Proved when every byte the view (element-domain ``layout`` of ``elem_bits``-bit elements at byte
    ``offset`` of the allocation) touches lies in ``field`` (a :class:`Field` or its text). Refuted with an
    :class:`OutOfRange` naming the coordinate whose element leaves the field; unknown for a layout that is not
    concrete."""
    f = field if isinstance(field, Field) else Field.read(field)
    what = f"view {layout} ({elem_bits}-bit elements) at byte {offset} inside field {f}"
    a = _values(layout)
    if a is None:
        return Verdict("unknown", what, _METHOD, reason=f"{layout} is not a concrete layout: its footprint is "
                                                        f"not computed")
    if not a.size:
        return Verdict("proved", what, _METHOD)
    lo = offset * 8 + int(a.min()) * elem_bits
    hi = offset * 8 + (int(a.max()) + 1) * elem_bits
    if lo >= f.offset * 8 and hi <= f.end * 8:
        return Verdict("proved", what, _METHOD, reason=f"bytes [{lo // 8}, {-(-hi // 8)}) of the allocation")
    c = int(a.argmax()) if hi > f.end * 8 else int(a.argmin())
    v = int(a[c])
    byte = (offset * 8 + v * elem_bits) // 8
    note = (f"coordinate {c} maps to element {v}, byte {byte} of the allocation, outside field {f} "
            f"(bytes [{f.offset}, {f.end}))")
    cex = Counterexample.of("out-of-range", coords=(c,), values=(v,), note=note)
    return Verdict("refuted", what, _METHOD, cex, note)


def swizzle_base(offset: int, align: int, swizzle, placed: int | None = None) -> Verdict:
    """Whether a view at byte ``offset`` of an allocation whose base is guaranteed ``align``-byte aligned starts
    at a multiple of the pointer ``swizzle``'s period (module docstring). Proved when ``align`` and ``offset`` are
    both multiples of the period; refuted when ``align`` is a multiple of the period and ``offset`` is not (the
    base is then never period-aligned: a :class:`Misaligned` counterexample with the residue); unknown when the
    alignment guaranteed is below the period (the placement is the compiler's: the element-domain layout, and
    bank-conflict and TMA results proved on it, then hold only at the bases that are period-aligned). ``placed``:
    the byte where a model of the compiler's allocator puts the base (``emit_smem``), said in the reason of an
    unknown and never used to decide."""
    sw = swizzle if isinstance(swizzle, Swizzle) or swizzle is None else None
    if sw is None and swizzle is not None:
        raise TypeError("swizzle_base takes a Swizzle or None")
    period = 1 if sw is None or sw.bits == 0 else 1 << (sw.bits + sw.base + sw.shift)
    what = f"base of the {sw} tensor at byte {offset} (allocation align<{align}>) a multiple of its " \
           f"{period}-byte period"
    if period == 1:
        return Verdict("proved", what, _METHOD, reason="no swizzle")
    if align % period == 0:
        if offset % period == 0:
            return Verdict("proved", what, _METHOD)
        note = (f"the base is {offset % period} mod {period} at every placement (allocation align<{align}>, "
                f"offset {offset}): {sw} on absolute addresses is not the swizzle the layout assumes there")
        cex = Counterexample.of("misaligned", coords=(0,), values=(offset,), note=note)
        return Verdict("refuted", what, _METHOD, cex, note)
    return Verdict("unknown", what, _METHOD,
                   reason=f"the allocation guarantees align<{align}> only, below the {period}-byte period of {sw}: "
                          f"its element-domain layout (and bank-conflict and TMA results proved on it) holds at "
                          f"bases that are multiples of {period}; the compiler's placement decides (the pointer "
                          f"and the hardware swizzle absolute addresses alike, so the data is consistent at any "
                          f"base)"
                          + (f" (modelled placement: byte {placed}, {placed % period} mod {period})"
                             if placed is not None else ""))


def tmem_alloc(columns: int, others=()) -> Verdict:
    """Proved when ``columns`` is a power of two in ``[32, 512]`` and, with the CTA's ``others`` allocations,
    at most 512 columns are allocated. Refuted with a :class:`RuleViolation` naming the rule."""
    others = tuple(int(c) for c in others)
    what = f"tcgen05.alloc of {columns} columns" + (f" (with {', '.join(map(str, others))} more)" if others else "")
    if columns < 32 or columns > TMEM_COLUMNS or columns & (columns - 1):
        note = f"{columns} columns: an allocation is a power of two in [32, {TMEM_COLUMNS}]"
        return Verdict("refuted", what, _METHOD, Counterexample.of("rule", note=note, detail={"rule": "columns"}),
                       note)
    total = columns + sum(others)
    if total > TMEM_COLUMNS:
        note = f"{total} columns allocated in one CTA, more than the {TMEM_COLUMNS} of its tensor memory"
        return Verdict("refuted", what, _METHOD, Counterexample.of("rule", note=note, detail={"rule": "capacity"}),
                       note)
    return Verdict("proved", what, _METHOD)


def tmem_view(layout, elem_bits: int, offset: int, columns: int) -> Verdict:
    """Proved when every element of the TMEM tensor (``layout`` in ``elem_bits``-bit element units, at element
    ``offset`` from the allocation's base address) lies in lanes ``[0, 128)`` and columns ``[0, columns)``.
    Refuted with an :class:`OutOfRange` naming the coordinate, its lane and column; unknown for a layout that is
    not concrete or elements wider than a column."""
    what = f"TMEM tensor {layout} ({elem_bits}-bit) at offset {offset} inside {columns} allocated columns"
    a = _values(layout)
    if a is None or 32 % elem_bits:
        return Verdict("unknown", what, _METHOD, reason=f"{layout} is not a concrete layout of elements dividing "
                                                        f"a 32-bit column")
    per = 32 // elem_bits  # elements per 32-bit cell: the DSL's layouts count lanes as 2^16 * per elements
    addr = (a + offset) // per
    lane, col = addr >> 16, addr & 0xFFFF
    bad = (lane < 0) | (lane >= TMEM_LANES) | (col >= columns) | (a + offset < 0)
    if not bad.any():
        return Verdict("proved", what, _METHOD, reason=f"columns [{int(col.min())}, {int(col.max()) + 1}), "
                                                        f"lanes [{int(lane.min())}, {int(lane.max()) + 1})")
    c = int(bad.argmax())
    note = (f"coordinate {c} maps to element {int(a[c]) + offset}: lane {int(lane[c])}, column {int(col[c])}, "
            f"outside {TMEM_LANES} lanes x {columns} allocated columns")
    cex = Counterexample.of("out-of-range", coords=(c,), values=(int(a[c]) + offset,), note=note)
    return Verdict("refuted", what, _METHOD, cex, note)
