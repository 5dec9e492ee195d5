"""Swizzles and composed layouts (ALGEBRA.md section 4).

``Swizzle<B,M,S>(x) = x ^ ((x & (((1<<B)-1) << (M+S))) >> S)``: the B bits starting at bit M+S are XORed
into the B bits starting at bit M (for negative S the shift goes the other way). A shared-memory layout
is ``ComposedLayout(Sw, offset, L)``: ``x -> Sw(offset + L(x))``, printed ``S<3,3,3> o 0 o (8,64):(64,1)``.
CuTe's general ``ComposedLayout<A, offset, B>`` has any layout as its outer function ``A`` (``inner`` here):
``(2,3):(3,1) o 2 o (3,4):(4,1)`` maps ``c -> A(2 + B(c))``, ``A`` read on its extended domain as CuTe reads
it; with coordinate values (``E<i>`` strides in ``B``) the offset is a coordinate, ``(0,0)``. The offset is
added as an integer to the integer an F2 value ``B(c)`` is (its bits), as CuTe's ComposedLayout adds it.
"""
from __future__ import annotations

import numpy as np

from ..errors import NotAdmissibleError
from ..symbolic import normalize, symbol
from ..symbolic.expr import format_value
from .arrays import layout_array, swizzle_array
from .bitlinear import bit_affine, index_bits
from .notation.format import format_tuple
from .kernels import coalesce_flat_ints, compose_ints
from .layout import Layout, cosize, size, slice_and_offset
from .strides import F2, ArithTuple, ScaledBasis
from .tuples import flatten

# Values a swizzled slice is checked on before a decayed (CuTe) form is returned; past this the exact generic
# form ``Sw o (off + D) o sliced`` is returned instead.
_CHECK_LIMIT = 1 << 18
_set = object.__setattr__  # Swizzle and ComposedLayout refuse attribute assignment; their constructors use this

class Swizzle:
    __slots__ = ("bits", "base", "shift", "_y")

    def __init__(self, bits: int, base: int, shift: int):
        for name, v in (("B", bits), ("M", base), ("S", shift)):
            if type(v) is not int:
                raise NotAdmissibleError("Swizzle", f"{name} must be an integer, got {v!r}")
        if bits < 0 or base < 0:
            raise NotAdmissibleError("Swizzle", f"B and M must be non-negative (B={bits}, M={base})")
        if abs(shift) < bits:
            raise NotAdmissibleError("Swizzle", f"|S| >= B is required so the XORed bit ranges do not overlap "
                                                f"(B={bits}, S={shift})")
        _set(self, "bits", bits)
        _set(self, "base", base)
        _set(self, "shift", shift)
        _set(self, "_y", ((1 << bits) - 1) << (base + max(shift, 0)))  # yyy_mask, read on every evaluation

    def __setattr__(self, name, value):
        raise AttributeError(f"a Swizzle is immutable: cannot set {name!r}")

    def __reduce__(self):
        return (Swizzle, (self.bits, self.base, self.shift))

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
            return x ^ ((x & self._y) >> self.shift)
        return x ^ ((x & self._y) << -self.shift)

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
    """``inner o offset o outer``: ``x -> inner(offset + outer(x))`` (CuTe's ``ComposedLayout<A, offset, B>``,
    ``A = inner``, ``B = outer``, the names CuTe's IR uses); ``inner`` a Swizzle or a Layout (any stride domain,
    read on its extended domain as CuTe reads it), ``outer`` a Layout or (as CuTe nests them) a ComposedLayout.
    A composed ``inner`` is re-associated to the right, ``(A o a o B) o b o C == A o a o (B o b o C)`` (the same
    function; CuTe prints both alike). The domain side is ``outer``: shape, size, rank and cosize are
    ``outer``'s (CUTLASS's ``layout_composed.hpp``); there is no stride.
    The offset is an integer (or integer expression), or, where ``outer`` produces coordinates (``E<i>``
    strides) and ``inner`` is a Layout that reads them, a coordinate such as ``(0,0)`` (held as an
    ``ArithTuple``). Admissibility: a swizzle takes integer offsets only; a coordinate offset needs a Layout
    ``inner``; a non-zero integer offset cannot be added to coordinate values; the coordinates ``outer``
    produces (its ``E<i>`` paths) and a coordinate offset must be coordinates of ``inner``'s shape
    (NotAdmissibleError)."""

    __slots__ = ("inner", "offset", "outer")

    def __init__(self, inner, offset, outer):
        if isinstance(inner, ComposedLayout):
            inner, offset, outer = inner.inner, inner.offset, ComposedLayout(inner.outer, offset, outer)
        if not isinstance(inner, (Swizzle, Layout)):
            raise NotAdmissibleError("ComposedLayout", f"the inner function must be a Swizzle or a Layout, got {inner!r}")
        if not isinstance(outer, (Layout, ComposedLayout)):
            raise NotAdmissibleError("ComposedLayout", f"the outer layout must be a layout, got {outer!r}")
        if isinstance(offset, (Layout, ComposedLayout, Swizzle, ScaledBasis)):
            raise NotAdmissibleError("ComposedLayout", f"the offset must be an integer or a coordinate, got {offset!r}")
        if isinstance(offset, (tuple, list)):
            offset = _as_arith(offset)
            if isinstance(inner, Swizzle):
                raise NotAdmissibleError("ComposedLayout", f"a swizzle reads integers: the offset must be an "
                                         f"integer, got the coordinate {_offset_text(offset)}")
            if isinstance(outer, Layout) and not _coordinate_valued(outer) and \
                    any(x != 0 for x in _flat_offset(offset)):
                raise NotAdmissibleError("ComposedLayout", f"the coordinate offset {_offset_text(offset)} cannot be "
                                         f"added to the integer values of {outer}")
        elif isinstance(outer, Layout) and _coordinate_valued(outer) and not (type(offset) is int and offset == 0):
            raise NotAdmissibleError("ComposedLayout", f"the integer offset {format_value(offset)} cannot be added "
                                     f"to the coordinate values of {outer} (write the offset as a coordinate)")
        if isinstance(inner, Swizzle) and isinstance(outer, Layout) and any(
                isinstance(x, ScaledBasis) for x in flatten(outer.stride)):
            raise NotAdmissibleError("ComposedLayout", "a swizzle acts on integers, not on the coordinates of an "
                                     "outer layout with coordinate (E<i>) strides", str(outer))
        if isinstance(inner, Layout) and isinstance(outer, Layout):
            _check_readable(inner, offset, outer)
        _set(self, "inner", inner)
        _set(self, "offset", offset)
        _set(self, "outer", outer)

    def __setattr__(self, name, value):
        raise AttributeError(f"a ComposedLayout is immutable: cannot set {name!r}")

    def __reduce__(self):
        return (ComposedLayout, (self.inner, self.offset, self.outer))

    @property
    def shape(self):
        return self.outer.shape

    @property
    def obligations(self):
        if isinstance(self.inner, Layout) and self.inner.obligations:
            out = list(self.inner.obligations)
            return tuple(out + [o for o in self.outer.obligations if o not in out])
        return self.outer.obligations

    @property
    def notes(self):
        return self.outer.notes

    @property
    def assumptions(self):
        return self.outer.assumptions

    @property
    def is_concrete(self):
        if isinstance(self.inner, Layout) and self.inner.free_symbols():
            return False
        return self.outer.is_concrete and all(type(x) is int for x in _flat_offset(self.offset))

    def __call__(self, *coord):
        v = self.outer(*coord)
        if type(v) is int and type(self.offset) is int and type(self.inner) is Swizzle:
            return self.inner(self.offset + v)  # the common smem case: no F2 value, no coordinate
        return self._apply(self._feed(v))

    def _feed(self, v):
        """``offset + v``, integer addition: an F2 value ``v`` is the integer its bits are (docs/model.md
        section 4; ``F2.__add__`` would XOR the offset in)."""
        if isinstance(v, F2):
            v = v.value
        return self.offset + v

    def _apply(self, x):
        """``inner(x)``: a coordinate (``ArithTuple``) is handed to a Layout as the plain tuple it reads.
        Admissibility: a negative integer index reaches a Layout ``inner`` only where its strides are
        integers (CuTe reads it as ``A(-x) == -A(x)``, which is undefined for coordinate or F2 values), and
        a coordinate with a negative entry reaches no F2 ``inner``; otherwise NotAdmissibleError."""
        f = self.inner
        if isinstance(x, ArithTuple):
            if not isinstance(f, Layout):
                raise NotAdmissibleError("ComposedLayout", f"{f} reads integers, got the coordinate {x}")
            x = _as_coord(x, f.shape)
            if any(type(e) is int and e < 0 for e in _flat_offset(x)) and _stride_kinds(f) & {"f2"}:
                raise NotAdmissibleError("ComposedLayout", f"the coordinate {_offset_text(x)} with a negative "
                                         f"entry reaches the outer function {f}, whose F2 strides have no "
                                         f"negative multiples", str(self))
        elif type(x) is int and x < 0 and isinstance(f, Layout) and _stride_kinds(f) & {"f2", "coord"}:
            raise NotAdmissibleError("ComposedLayout", f"the negative index {x} reaches the outer function {f}, "
                                     f"whose strides are {' and '.join(_KIND_NAMES[k] for k in sorted(_stride_kinds(f) - {'int'}))} "
                                     f"values: CuTe's extension A(-x) == -A(x) is defined for integer strides "
                                     f"only", str(self))
        return f(x)

    def values(self):
        a = self.values_array()
        if a is not None:
            return a.tolist()
        return [self._apply(self._feed(v)) for v in self.outer.values()]

    def values_array(self):
        """``[self(0), ..., self(size-1)]`` as an int64 numpy array for a concrete ``Swizzle o int o Layout``
        with integer strides (batch evaluation), else None (``values`` then evaluates in Python)."""
        sw = self.inner
        if type(sw) is not Swizzle or type(self.offset) is not int or type(self.outer) is not Layout or \
                (sw.yyy_mask | sw.zzz_mask) >> 60:
            return None
        a = layout_array(self.outer)
        if a is None or (a.size and max(abs(int(a.min())), abs(int(a.max()))) + abs(self.offset) >= 1 << 61):
            return None
        return swizzle_array(self.inner, a + self.offset)

    def cosize(self):
        """CUTLASS's ``cosize(ComposedLayout)``: the cosize of the outer (domain-side) layout. Admissible for a
        swizzle ``inner`` only (as CuTe IR): behind a layout ``inner`` that number bounds nothing the function
        reaches (``(2,3):(10,1) o 0 o 6:1`` reaches 12, C++ answers 6), so it is refused there."""
        if isinstance(self.inner, Layout):
            raise NotAdmissibleError("cosize", f"the outer function {self.inner} is a layout, not a swizzle: "
                                     f"C++'s cosize(layout_b) bounds nothing it reaches (CuTe IR refuses it too)",
                                     str(self))
        return cosize(self.outer)

    def __len__(self):
        return len(self.outer)

    def __getitem__(self, key):
        """``L[i]`` is ``inner o offset o outer[i]`` (CuTe's ``get<I>``); a tuple key slices like CuTe's
        ``slice(crd, L)``: ``L[crd]`` is the ``sub`` of ``slice_and_offset(crd)``, the offset returned beside it
        dropped, so ``L(c) == L[crd](rest) + off`` with that method's ``off`` (0 for the forms that keep the
        offset inside the composed layout); the size-1 layout ``1:0`` when no mode is free."""
        if type(key) is tuple:
            sub, _ = self.slice_and_offset(key)
            return sub if sub is not None else Layout._make(1, 0)
        if key is None:
            return self
        return ComposedLayout(self.inner, self.offset, self.outer[key])

    def slice_and_offset(self, crd):
        """CuTe's ``slice_and_offset(crd, L)``: ``(sub, off)`` with ``self(c) == sub(rest) + off`` for every
        coordinate ``c`` that completes ``crd`` (``None`` marks the free modes, ``rest`` is their coordinate);
        ``sub`` is None when no mode is free (then ``off == self(crd)``).

        Definition (docs/model.md section 4). With the fixed modes contributing ``D`` to the outer layout:
        a coordinate with no fixed mode reshapes, ``(inner o offset o sliced, 0)``; otherwise, for a
        swizzle, CuTe's ``swizzle_layout.hpp`` construction: when the free modes reach at most one bit of
        each swizzled pair the slice decays to a plain layout and the whole offset is handed out beside it
        (``off == self(crd with 0 in the free modes)``); when they reach both bits of a pair it stays
        ``Sw o only o sliced`` and only the part of ``D`` that passes the swizzle unchanged is handed out.
        CuTe's construction assumes the offsets' bits do not interact by carries and does not check it;
        here each candidate is checked: on the index bits where both are F2-affine (``core.bitlinear``, any
        size), else value by value (numpy; up to ``_CHECK_LIMIT`` values), its offset taken from
        the values: CuTe's candidate first, then the same construction on the carried sum ``offset + D``.
        Where none holds (or the check cannot be run) the exact form of ``layout_composed.hpp`` is returned:
        ``(inner o (offset + D) o sliced, 0)``.
        Admissibility: a coordinate congruent with the outer layout's shape (ValueError otherwise).
        Post-condition: ``self(c) == sub(rest) + off`` for every completion ``c`` of ``crd``; ``self[crd]``
        is ``sub`` (CuTe's ``slice``: the offset is dropped, CuTe hands it to the pointer).
        """
        if crd is None:
            return self, 0
        sliced, d = slice_and_offset(self.outer, crd)
        if sliced is None:
            return None, self._apply(self._feed(d))
        if all(c is None for c in _leaves(crd)):
            return ComposedLayout(self.inner, self.offset, sliced), 0
        if isinstance(d, F2) or "f2" in _stride_kinds(sliced):
            d = _f2_slice_offset(d, sliced, self)
        generic = (ComposedLayout(self.inner, self.offset + d, sliced), 0)
        sw = self.inner
        if not (isinstance(sw, Swizzle) and type(d) is int and type(self.offset) is int and
                type(sliced) is Layout and sliced.int_leaves is not None):
            return generic
        target = generic[0]
        want = None
        for only, anti in _offset_splits(sw, self.offset, d):
            sub = _swizzle_slice(sw, only, anti, sliced)
            if sub is None:
                continue
            off = _slice_offset_by_bits(target, sub)
            if off is not None:
                return sub, off
            if size(sliced) > _CHECK_LIMIT:
                continue
            if want is None:
                want = _table(target)
            got = _table(sub)
            off = int(want[0] - got[0])
            if _all_equal(want, got, off):
                return sub, off
        return generic

    def with_outer(self, outer):
        return ComposedLayout(self.inner, self.offset, outer)

    def __eq__(self, other):
        return (isinstance(other, ComposedLayout) and self.inner == other.inner and self.offset == other.offset
                and self.outer == other.outer)

    def __hash__(self):
        return hash((self.inner, self.offset, self.outer))

    def __str__(self):
        return f"{self.inner} o {_offset_text(self.offset)} o {self.outer}"

    def __repr__(self):
        return f"ComposedLayout({self})"

    def subs(self, values=None, **kw):
        """Instantiate symbols in the outer layout, the offset and a Layout ``inner`` (``Layout.subs``'s rules)."""
        values = dict(values or {}, **kw)
        inner = self.inner.subs(values) if isinstance(self.inner, Layout) and self.inner.free_symbols() else \
            self.inner
        outer = self.outer.subs(values)
        m = {symbol(getattr(k, "name", k)): v for k, v in values.items()}

        def sub(x):
            if isinstance(x, tuple):
                return ArithTuple(sub(e) for e in x)
            return normalize(x.subs(m)) if hasattr(x, "subs") else x

        return ComposedLayout(inner, sub(self.offset), outer)

    def free_symbols(self):
        out = set(self.outer.free_symbols())
        if isinstance(self.inner, Layout):
            out |= self.inner.free_symbols()
        for x in _flat_offset(self.offset):
            out |= set(getattr(x, "free_symbols", ()))
        return out


_KIND_NAMES = {"coord": "coordinate (E<i>)", "f2": "F2"}


def _stride_kinds(layout):
    """The stride domains of ``layout``'s leaves: a subset of {"int", "f2", "coord"}."""
    return {"f2" if isinstance(d, F2) else "coord" if isinstance(d, ScaledBasis) else "int"
            for d in layout.leaves[1]}


def _f2_slice_offset(d, sliced, where):
    """The integer ``D`` with ``int(d XOR sliced(r)) == D + int(sliced(r))`` for every ``r``: the fixed
    modes' F2 value ``d`` as an integer, exact where its bits meet none of the free modes' values (then XOR
    is +). Checked value by value on concrete layouts of at most ``_CHECK_LIMIT`` elements; otherwise
    NotAdmissibleError (no offset of a composed layout describes the slice)."""
    dv = d.value if isinstance(d, F2) else d
    n = size(sliced)
    vals = sliced.values() if type(dv) is int and type(n) is int and n <= _CHECK_LIMIT else None
    if vals is not None:
        vals = [v.value if isinstance(v, F2) else v for v in vals]
    if vals is None or any(type(v) is not int for v in vals):
        raise NotAdmissibleError("slice", "slicing an F2-valued inner layout behind a composed layout needs "
                                 f"concrete layouts of at most {_CHECK_LIMIT} elements (the fixed modes' value "
                                 "is checked to share no bit with the free modes')", str(where))
    bits = 0
    for v in vals:
        bits |= v
    if dv & bits or dv < 0:
        raise NotAdmissibleError("slice", f"the fixed modes' F2 value ^{dv} shares bits with the free modes' "
                                 f"values (mask {bits}): off + (B XOR D) is no offset of a composed layout",
                                 str(where))
    return dv


def _slice_offset_by_bits(target, sub):
    """``off`` with ``target(r) == sub(r) + off`` for every index ``r``, proved on the index bits, independent
    of the size (``core.bitlinear``): both F2-affine, ``off = target(0) - sub(0)`` non-negative and sharing
    no bit with ``sub``'s values (so ``+ off`` is ``^ off``, and ``sub + off`` is affine too); then equal iff
    the columns are (``prover.exact.equal_bits``'s argument). None where that does not apply or they differ
    (the caller checks value by value)."""
    n = index_bits(target)
    ft, fs = bit_affine(target, n), bit_affine(sub, n)
    if ft is None or fs is None:
        return None
    off = ft.const - fs.const
    if off < 0 or off & fs.reach() or ft.const != fs.const ^ off or ft.cols != fs.cols:
        return None
    return off


def _table(L):
    """The values of a concrete swizzled or plain integer layout: a numpy array where it has one, else a list."""
    a = L.values_array() if isinstance(L, ComposedLayout) else layout_array(L)
    return a if a is not None else L.values()


def _all_equal(want, got, off):
    """``want[i] == got[i] + off`` for every ``i``."""
    if isinstance(want, np.ndarray) and isinstance(got, np.ndarray):
        return bool(np.array_equal(want, got + off))
    return all(w == g + off for w, g in zip(want, got))


def _as_arith(t):
    return ArithTuple(_as_arith(e) if isinstance(e, (tuple, list)) else e for e in t)


def _flat_offset(off):
    if isinstance(off, tuple):
        return [x for e in off for x in _flat_offset(e)]
    return [off]


def _offset_text(off):
    return format_tuple(_plain_tuple(off)) if isinstance(off, tuple) else format_value(off)


def _plain_tuple(t):
    return tuple(_plain_tuple(e) if isinstance(e, tuple) else e for e in t)


def _as_coord(x, shape):
    """A coordinate value as the (nested) plain tuple ``shape`` reads: ``ArithTuple`` addition drops trailing
    zero entries, so the missing ones are 0 (CuTe's coordinates are zero-extended)."""
    if not isinstance(x, tuple):
        return x
    if type(shape) is not tuple:
        if all(e == 0 for e in _flat_offset(x)[1:]):
            return _as_coord(x[0], shape) if len(x) else 0
        raise NotAdmissibleError("ComposedLayout", f"the coordinate {_offset_text(x)} has more modes than the "
                                 f"shape {format_tuple(shape)} of the outer function")
    if len(x) > len(shape) and any(e != 0 for e in _flat_offset(x[len(shape):])):
        raise NotAdmissibleError("ComposedLayout", f"the coordinate {_offset_text(x)} has more modes than the "
                                 f"shape {format_tuple(shape)} of the outer function")
    return tuple(_as_coord(x[i], shape[i]) if i < len(x) else 0 for i in range(len(shape)))


def _check_readable(inner, offset, outer):
    """Each coordinate ``outer`` produces (each ``E<i>`` stride's path) and a coordinate offset must be a
    coordinate of ``inner``'s shape (CuTe reads it there): a path into a mode ``inner`` does not have, or below
    one of its integer modes (``E<0,1>`` for a shape ``(4,5)``), is refused here, not at evaluation."""
    for d in flatten(outer.stride):
        if isinstance(d, ScaledBasis):
            try:
                _as_coord(ScaledBasis(1, d.path).as_tuple(), inner.shape)
            except NotAdmissibleError:
                raise NotAdmissibleError("ComposedLayout", f"the coordinate stride E<{','.join(map(str, d.path))}> "
                                         f"of {outer} names no mode of the shape {format_tuple(inner.shape)} of "
                                         f"the outer function {inner}") from None
    if isinstance(offset, tuple) and all(type(x) is int for x in _flat_offset(offset)):
        _as_coord(offset, inner.shape)


def _coordinate_valued(layout):
    return any(isinstance(d, ScaledBasis) for d in layout.leaves[1])


def _leaves(crd):
    if type(crd) is tuple:
        out = []
        for c in crd:
            out += _leaves(c)
        return out
    return [crd]


def _offset_splits(sw, offset, d):
    """The candidate splits ``(only, anti)`` of the slice's offset: the part that meets the swizzle (its Y/Z
    bits, accumulated into the layout's offset) and the part that passes it. CuTe's (``only = offset ^
    (D & YZ)``, ``anti = D & ~YZ``) first, then the same split of the carried sum ``offset + D``."""
    yz = sw.yyy_mask | sw.zzz_mask
    out = [(offset ^ (d & yz), d & ~yz)]
    t = offset + d
    if (t & yz, t & ~yz) != out[0]:
        out.append((t & yz, t & ~yz))
    return out


def _swizzle_slice(sw, only, anti, sliced):
    """CuTe's sublayout for slicing a swizzle whose free modes are ``sliced`` at the offset split ``(only,
    anti)``: plain when the free modes reach at most one bit of each swizzled pair (composed mode by mode,
    as CuTe's composition distributes over the right operand's modes), ``sw o only o sliced`` otherwise;
    None when the mode-by-mode composition is not admissible. The caller checks it by values."""
    yz = sw.yyy_mask | sw.zzz_mask
    if sw.bits == 0:
        return sliced
    n = size(sliced)
    active = sliced(n - 1) & yz if n > 0 else 0
    if active & ~sw(active):
        # the free modes reach both bits of a swizzled pair: no plain layout describes the slice
        return ComposedLayout(sw, only, sliced)
    la, lb = _swizzle_bits_layout(sw, only).int_leaves, sliced.int_leaves
    if min(lb[1]) < 0:
        return None
    shapes, strides = coalesce_flat_ints(la[0], la[1], True)
    if type(shapes) is not tuple:
        shapes, strides = (shapes,), (strides,)
    try:
        s, d = compose_ints(shapes, strides, sliced.shape, sliced.stride)
    except NotAdmissibleError:
        return None
    return Layout._make(s, d)


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
