"""Typed views of the CuTe IR types a capture prints (docs/model.md section 10.1): tensors and pointers with their
memory space, guaranteed alignment and pointer swizzle, and the layouts inside.

Two swizzles, two units (the reason this module exists): the swizzle of a ``!cute.memref<f16, smem, align<1024>,
S<3,4,3>, "L">`` or ``!cute.ptr<..., S<3,4,3>>`` acts on the pointer, that is on **byte** addresses: the byte
address of coordinate ``c`` is ``Sw(base + b * L(c))`` for elements of ``b`` bytes. With ``b = 2^k`` and the base
aligned to the swizzle's period, that is ``b * Sw'(L(c))`` where ``Sw' = S<B, M-k, S>`` acts on element offsets
(the ``M`` low bits kept by ``Sw`` are ``k`` byte bits plus ``M-k`` element bits). :meth:`MemRef.element_layout`
returns that element-domain layout ``Sw' o 0 o L``; when ``M < k`` the byte swizzle moves bits inside one
element and there is no element-domain form: :class:`Unsupported` names the tensor.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...core.notation.parse import parse, read_swizzle
from ...core.swizzle import ComposedLayout, Swizzle
from ...errors import CaptureError, Unsupported
from ...hardware.library.dtypes import dtype_bits
from .mlir import Bare, TypeExpr

__all__ = ["MemRef", "memref", "layout_of", "elem_bits", "SPACES"]

SPACES = ("gmem", "smem", "rmem", "tmem")
_INT = re.compile(r"^[iu](\d+)$")
# MLIR spellings of the element types the DSL prints, with their width in bits
_FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "tf32": 32, "f8E4M3FN": 8, "f8E5M2": 8,
               "f8E8M0FNU": 8, "f6E2M3FN": 6, "f6E3M2FN": 6, "f4E2M1FN": 4}


def elem_bits(name: str) -> int:
    """Width in bits of a DSL element type name (``f16``, ``bf16``, ``i8``, ``i128``, ``f8E4M3FN``)."""
    m = _INT.match(name)
    if m:
        return int(m.group(1))
    if name in _FLOAT_BITS:
        return _FLOAT_BITS[name]
    return dtype_bits(name)


@dataclass(frozen=True)
class MemRef:
    """A tensor (``!cute.memref``) or pointer (``!cute.ptr``, ``layout_text`` None): element type, memory space,
    guaranteed byte alignment of its base, the pointer's byte-address swizzle (None when absent) and the CuTe
    text of its layout, as printed (elements, before the pointer's swizzle)."""

    elem: str
    space: str
    align: int
    swizzle: Swizzle | None
    layout_text: str | None
    type_text: str = ""

    @property
    def bits(self) -> int:
        """Element width in bits."""
        return elem_bits(self.elem)

    @property
    def layout(self):
        """The printed layout, parsed (``?{div=8}`` extents become symbols with their divisibility facts)."""
        if self.layout_text is None:
            raise CaptureError(f"{self.type_text} is a pointer: it has no layout")
        return _parse(self.layout_text)

    def element_layout(self):
        """The element-domain layout (module docstring): the printed layout when the pointer has no swizzle,
        ``S<B,M-k,S> o 0 o L`` for a ``2^k``-byte element with pointer swizzle ``S<B,M,S>``. Post-condition:
        ``bytes * element_layout(c) == Sw(bytes * L(c))`` for a base aligned to the swizzle's period."""
        L = self.layout
        if self.swizzle is None or self.swizzle.bits == 0:
            return L
        nbytes, rem = divmod(self.bits, 8)
        k = nbytes.bit_length() - 1
        if rem or nbytes != 1 << k:
            raise Unsupported(f"{self.type_text}: a swizzled tensor of {self.bits}-bit elements has no "
                              f"element-domain layout (its elements are not a power-of-two number of bytes)")
        sw = self.swizzle
        if sw.base < k:
            raise Unsupported(f"{self.type_text}: the pointer swizzle {sw} keeps only {sw.base} low byte bits, "
                              f"fewer than the {k} bits of one {self.elem} element, so it moves bits inside "
                              f"an element and has no element-domain form")
        return ComposedLayout(Swizzle(sw.bits, sw.base - k, sw.shift), 0, L)

    @property
    def swizzle_period(self) -> int:
        """Bytes after which the pointer swizzle's pattern repeats (``2^(B+M+S)``; 1 without a swizzle)."""
        sw = self.swizzle
        return 1 if sw is None or sw.bits == 0 else 1 << (sw.bits + sw.base + sw.shift)


def memref(t: TypeExpr) -> MemRef | None:
    """The :class:`MemRef` view of a ``cute.memref`` / ``cute.ptr`` type, None for any other type.
    Admissible: ``<elem, space, [align<N>,] [S<B,M,S>,] ["layout"]>``; another argument is a CaptureError."""
    if t is None or t.name not in ("cute.memref", "cute.ptr"):
        return None
    elem = space = layout = None
    align, sw = 1, None
    for a in t.args:
        if isinstance(a, TypeExpr) and a.name == "align":
            align = int(a.args[0])
        elif isinstance(a, TypeExpr) and a.name == "S":
            sw = read_swizzle(a.text)
        elif isinstance(a, Bare) and elem is None:
            elem = str(a)
        elif isinstance(a, Bare) and space is None:
            space = str(a)
        elif isinstance(a, str) and not isinstance(a, Bare) and layout is None:
            layout = a
        else:
            raise CaptureError(f"{t.text}: unexpected argument {a!r} of a tensor type")
    if elem is None or space is None:
        raise CaptureError(f"{t.text}: a tensor type needs an element type and a memory space")
    return MemRef(elem, space, align, sw, layout if t.name == "cute.memref" else None, t.text)


def layout_of(t: TypeExpr):
    """The layout a type holds: ``!cute.layout<"..">`` / ``!cute.composed_layout<"..">`` parsed, a tensor's
    printed layout (:attr:`MemRef.layout`), else None."""
    if t is None:
        return None
    if t.name in ("cute.layout", "cute.composed_layout") and t.args and isinstance(t.args[0], str):
        return _parse(t.args[0])
    m = memref(t)
    return m.layout if m is not None and m.layout_text is not None else None


_CACHE: dict = {}


def _parse(text: str):
    # captures repeat the same few hundred texts thousands of times; layouts are immutable, so share them
    hit = _CACHE.get(text)
    if hit is None:
        hit = _CACHE[text] = parse(text, source="captured layout")
    return hit
