"""Swizzles and composed layouts (ALGEBRA.md section 4).

``Swizzle<B,M,S>(x) = x ^ ((x & (((1<<B)-1) << (M+S))) >> S)``: the B bits starting at bit M+S are XORed
into the B bits starting at bit M (for negative S the shift goes the other way). A shared-memory layout
is ``ComposedLayout(Sw, offset, L)``: ``x -> Sw(offset + L(x))``, printed ``S<3,3,3> o 0 o (8,64):(64,1)``.
"""
from __future__ import annotations

from ..errors import NotAdmissibleError
from ..symbolic.expr import format_value
from .layout import cosize


class Swizzle:
    __slots__ = ("bits", "base", "shift")

    def __init__(self, bits: int, base: int, shift: int):
        for name, v in (("B", bits), ("M", base), ("S", shift)):
            if type(v) is not int:
                raise NotAdmissibleError("Swizzle", f"{name} must be an integer, got {v!r}")
        if bits < 0 or base < 0:
            raise NotAdmissibleError("Swizzle", f"B and M must be non-negative (B={bits}, M={base})")
        if abs(shift) < bits:
            raise NotAdmissibleError("Swizzle", f"|S| >= B is required so the XORed bit ranges do not overlap "
                                                f"(B={bits}, S={shift})")
        self.bits, self.base, self.shift = bits, base, shift

    @property
    def yyy_mask(self) -> int:
        """The source bits (the higher range for S > 0)."""
        return ((1 << self.bits) - 1) << (self.base + max(self.shift, 0))

    @property
    def zzz_mask(self) -> int:
        """The destination bits."""
        return ((1 << self.bits) - 1) << (self.base - min(self.shift, 0))

    def __call__(self, x):
        if self.shift >= 0:
            return x ^ ((x & self.yyy_mask) >> self.shift)
        return x ^ ((x & self.yyy_mask) << -self.shift)

    def size(self) -> int:
        """The swizzle is a bijection of each aligned block of this many elements."""
        return 1 << (self.bits + self.base + abs(self.shift))

    def __eq__(self, other):
        return isinstance(other, Swizzle) and (self.bits, self.base, self.shift) == (other.bits, other.base, other.shift)

    def __hash__(self):
        return hash(("S", self.bits, self.base, self.shift))

    def __str__(self):
        return f"S<{self.bits},{self.base},{self.shift}>"

    __repr__ = __str__


class ComposedLayout:
    """``inner o offset o outer``: ``x -> inner(offset + outer(x))``; ``inner`` a Swizzle or a Layout."""

    __slots__ = ("inner", "offset", "outer")

    def __init__(self, inner, offset, outer):
        self.inner, self.offset, self.outer = inner, offset, outer

    @property
    def shape(self):
        return self.outer.shape

    @property
    def obligations(self):
        return self.outer.obligations

    @property
    def assumptions(self):
        return self.outer.assumptions

    @property
    def is_concrete(self):
        return self.outer.is_concrete

    def __call__(self, *coord):
        return self.inner(self.offset + self.outer(*coord))

    def values(self):
        f, o = self.inner, self.offset
        return [f(o + v) for v in self.outer.values()]

    def cosize(self):
        return max(self.values()) + 1 if self.is_concrete else cosize(self.outer)

    def __len__(self):
        return len(self.outer)

    def __getitem__(self, key):
        return ComposedLayout(self.inner, self.offset, self.outer[key])

    def with_outer(self, outer):
        return ComposedLayout(self.inner, self.offset, outer)

    def __eq__(self, other):
        return (isinstance(other, ComposedLayout) and self.inner == other.inner and self.offset == other.offset
                and self.outer == other.outer)

    def __hash__(self):
        return hash((self.inner, self.offset, self.outer))

    def __str__(self):
        return f"{self.inner} o {format_value(self.offset)} o {self.outer}"

    def __repr__(self):
        return f"ComposedLayout({self})"

    def subs(self, values=None, **kw):
        return ComposedLayout(self.inner, self.offset, self.outer.subs(values, **kw))

    def free_symbols(self):
        return self.outer.free_symbols()


def make_swizzle_layout(sw: Swizzle, layout, offset=0) -> ComposedLayout:
    return ComposedLayout(sw, offset, layout)
