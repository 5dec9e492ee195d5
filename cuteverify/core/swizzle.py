"""Swizzles and composed layouts (ALGEBRA.md section 4).

``Swizzle<B,M,S>(x) = x ^ ((x & (((1<<B)-1) << (M+S))) >> S)``: the B bits starting at bit M+S are XORed
into the B bits starting at bit M (for negative S the shift goes the other way). A shared-memory layout
is ``ComposedLayout(Sw, offset, L)``: ``x -> Sw(offset + L(x))``, printed ``S<3,3,3> o 0 o (8,64):(64,1)``.
"""
from __future__ import annotations

from ..errors import NotAdmissibleError
from ..symbolic.expr import format_value
from .kernels import composition_ints
from .layout import Layout, cosize, size, slice_and_offset

# Values a swizzled slice is checked on before a decayed (CuTe) form is returned; past this the exact generic
# form ``Sw o (off + D) o sliced`` is returned instead.
_CHECK_LIMIT = 1 << 18

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

    @staticmethod
    def from_masks(y: int, z: int, where: str = "swizzle") -> "Swizzle":
        """CuTe's ``make_swizzle<Y, Z>``: the swizzle whose source bits are ``y`` and destination bits ``z``.
        Admissible when both masks have the same number of bits and together form one swizzle's code
        (``B`` contiguous bits each, ``|S| >= B`` apart); otherwise NotAdmissibleError."""
        if type(y) is not int or type(z) is not int or y < 0 or z < 0:
            raise NotAdmissibleError(where, f"the swizzle's bit masks must be non-negative integers (Y={y}, Z={z})")
        b = bin(y).count("1")
        if b != bin(z).count("1"):
            raise NotAdmissibleError(where, f"the bit masks Y={y} and Z={z} must have the same number of bits")
        if b == 0:
            return Swizzle(0, 0, 0)
        ty, tz = (y & -y).bit_length() - 1, (z & -z).bit_length() - 1
        shift = ty - tz
        if abs(shift) < b:
            raise NotAdmissibleError(where, f"the bit masks Y={y} and Z={z} overlap (|S| = {abs(shift)} < B = {b})")
        sw = Swizzle(b, min(ty, tz), shift)
        if sw.yyy_mask | sw.zzz_mask != y | z:
            raise NotAdmissibleError(where, f"the bit masks Y={y} and Z={z} are not two contiguous ranges of "
                                            f"{b} bits (not a Swizzle<B,M,S>)")
        return sw

    def __hash__(self):
        return hash(("S", self.bits, self.base, self.shift))

    def __str__(self):
        return f"S<{self.bits},{self.base},{self.shift}>"

    __repr__ = __str__


class ComposedLayout:
    """``inner o offset o outer``: ``x -> inner(offset + outer(x))``; ``inner`` a Swizzle or a Layout, ``outer``
    a Layout or (as CuTe nests them, e.g. a swizzled layout composed with a swizzled layout) a ComposedLayout.
    The domain side is ``outer``: shape, size, rank and cosize are ``outer``'s (CUTLASS's
    ``layout_composed.hpp``); there is no stride."""

    __slots__ = ("inner", "offset", "outer")

    def __init__(self, inner, offset, outer):
        if not isinstance(inner, (Swizzle, Layout)):
            raise NotAdmissibleError("ComposedLayout", f"the inner function must be a Swizzle or a Layout, got {inner!r}")
        if not isinstance(outer, (Layout, ComposedLayout)):
            raise NotAdmissibleError("ComposedLayout", f"the outer layout must be a layout, got {outer!r}")
        if isinstance(offset, (tuple, Layout, ComposedLayout, Swizzle)):
            raise NotAdmissibleError("ComposedLayout", f"the offset must be an integer, got {offset!r}")
        self.inner, self.offset, self.outer = inner, offset, outer

    @property
    def shape(self):
        return self.outer.shape

    @property
    def obligations(self):
        return self.outer.obligations

    @property
    def notes(self):
        return self.outer.notes

    @property
    def assumptions(self):
        return self.outer.assumptions

    @property
    def is_concrete(self):
        return self.outer.is_concrete and type(self.offset) is int

    def __call__(self, *coord):
        return self.inner(self.offset + self.outer(*coord))

    def values(self):
        f, o = self.inner, self.offset
        return [f(o + v) for v in self.outer.values()]

    def cosize(self):
        """CUTLASS's ``cosize(ComposedLayout)``: the cosize of the outer (domain-side) layout."""
        return cosize(self.outer)

    def __len__(self):
        return len(self.outer)

    def __getitem__(self, key):
        """``L[i]`` is ``inner o offset o outer[i]`` (CuTe's ``get<I>``); a tuple key slices like CuTe's
        ``slice``: the sliced layout without the offset ``slice_and_offset`` returns beside it."""
        if type(key) is tuple:
            sub, _ = self.slice_and_offset(key)
            return sub if sub is not None else Layout._make(1, 0)
        if key is None:
            return self
        return ComposedLayout(self.inner, self.offset, self.outer[key])

    def slice_and_offset(self, crd):
        """``(sub, off)`` with ``self(c) == sub(rest) + off`` for every coordinate ``c`` that extends ``crd``
        (``None`` marks the free modes; ``rest`` their coordinate).

        For a swizzle it follows CuTe's ``swizzle_layout.hpp``: the fixed modes' offset ``D`` splits into the
        swizzle's Y/Z bits (folded into the layout's offset) and the rest (returned beside it); when the free
        modes reach at most one bit of each swizzled pair the slice decays to a plain layout. Those forms
        hold where the offsets' bits do not interact by carries; they are checked value by value, and where
        the check fails (or cannot be run) the exact generic form of ``layout_composed.hpp``,
        ``inner o (offset + D) o sliced`` with offset 0, is returned.
        Post-condition: ``self(c) == sub(rest) + off`` for every completion ``c`` of ``crd``.
        """
        if crd is None:
            return self, 0
        sliced, d = slice_and_offset(self.outer, crd)
        if sliced is None:
            return None, self.inner(self.offset + d)
        generic = (ComposedLayout(self.inner, self.offset + d, sliced), 0)
        if all(c is None for c in _leaves(crd)):
            return ComposedLayout(self.inner, self.offset, sliced), 0
        sw = self.inner
        if not (isinstance(sw, Swizzle) and type(d) is int and type(self.offset) is int and
                isinstance(sliced, Layout) and sliced.is_concrete and size(sliced) <= _CHECK_LIMIT):
            return generic
        cand = _swizzle_slice(sw, self.offset, d, sliced)
        if cand is None:
            return generic
        sub, off = cand
        want = [sw(self.offset + d + v) for v in sliced.values()]
        got = [off + v for v in sub.values()]
        return cand if got == want else generic

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


def _leaves(crd):
    if type(crd) is tuple:
        out = []
        for c in crd:
            out += _leaves(c)
        return out
    return [crd]


def _swizzle_slice(sw, offset, d, sliced):
    """CuTe's candidate for slicing ``sw o offset o L`` where the fixed modes contribute ``d`` and the free
    ones are ``sliced``; None when its composition is not admissible here."""
    yz = sw.yyy_mask | sw.zzz_mask
    only = offset ^ (d & yz)          # the Y/Z bits of the fixed part meet the swizzle
    anti = d & ~yz                    # the others pass through it unchanged
    n = size(sliced)
    active = sliced(n - 1) & yz if n > 0 else 0
    if sw.bits == 0:
        return sliced, only + anti
    if active & ~sw(active):
        # the free modes reach both bits of a swizzled pair: no plain layout describes the slice
        return ComposedLayout(sw, only, sliced), anti
    # the slice decays to a plain layout through a composition (CuTe's swizzle_layout.hpp), of plain ints
    bits = _swizzle_bits_layout(sw, only)
    la, lb = bits.int_leaves, sliced.int_leaves if type(sliced) is Layout else None
    if la is None or lb is None or min(lb[1]) < 0:
        return None
    try:
        return composition_ints(la, sliced, lb), sw(only) + anti
    except NotAdmissibleError:
        return None


def _swizzle_bits_layout(sw, only):
    """The plain layout that ``x -> sw(only + x) - sw(only)`` is on inputs that touch at most one bit of
    each swizzled pair (CuTe's decay layout): a Z bit adds ``Z`` or, when ``only`` holds its Y partner,
    subtracts it; a Y bit adds ``Y + Z`` or, when ``only`` holds its Z partner, ``Y - Z``."""
    b, m, s = sw.bits, sw.base, abs(sw.shift)
    z = sw.zzz_mask & -sw.zzz_mask
    y = sw.yyy_mask & -sw.yyy_mask

    def strides(z_side):
        if z_side:
            return tuple(-(z << i) if only & (y << i) else (z << i) for i in range(b))
        return tuple(((y - z) << i) if only & (z << i) else ((y + z) << i) for i in range(b))

    lo, hi = strides(z < y), strides(z > y)
    shape = (1 << m, (2,) * b, 1 << (s - b), (2,) * b, 1)
    stride = (1, lo, 1 << (m + b), hi, 1 << (m + b + s))  # the last mode: bits above the swizzle pass
    return Layout(shape, stride)


def make_swizzle_layout(sw: Swizzle, layout, offset=0) -> ComposedLayout:
    return ComposedLayout(sw, offset, layout)
