"""Changes of element width: ``upcast``, ``downcast``, ``recast`` (ALGEBRA.md section 3)."""
from __future__ import annotations

from ..core.layout import Layout, leaves
from ..core.swizzle import ComposedLayout, Swizzle
from ..core.tuples import flatten, unflatten
from ..errors import NotAdmissibleError
from ._op import operation


def _ceil_div(a, b):
    return -(-a // b)


def _up(s, d, n):
    if type(d) is not int or type(s) is not int:
        raise NotAdmissibleError("upcast", "symbolic or coordinate strides are not supported")
    if d == 0:
        return s, 0
    ad = abs(d)
    sign = 1 if d > 0 else -1
    return _ceil_div(s, _ceil_div(n, ad)), sign * _ceil_div(ad, n)


@operation
def upcast(layout, n: int):
    """Re-read a layout of small elements in units of ``n`` of them: per leaf,
    ``shape' = ceil(s / ceil(n/|d|))``, ``stride' = sign(d)*ceil(|d|/n)`` (stride 0 stays). Used to turn
    bit-addressed copy atoms into element units (``upcast<sizeof_bits<T>>``).
    A swizzled layout ``Sw o off o L`` becomes ``upcast(Sw) o off/n o upcast(L)`` (CuTe's
    ``layout_composed.hpp``), ``upcast(S<B,M,S>) = S<B,M-log2(n),S>``; admissible for ``n`` a power of two
    with ``n <= 2^M`` (a wider unit would split the swizzle's bits: CuTe then drops bits of the swizzle) and
    ``n | off``."""
    _check_factor("upcast", n)
    if hasattr(layout, "outer"):
        return _recast_composed(layout, n, True)
    return _leafwise(layout, lambda s, d: _up(s, d, n))


@operation
def downcast(layout, n: int):
    """Re-read a layout in units ``n`` times smaller: the stride-1 leaf grows ``n``-fold in shape, every
    other stride is scaled by ``n``. A swizzled layout becomes ``S<B,M+log2(n),S> o off*n o downcast(L)``
    (CuTe's ``layout_composed.hpp``), ``n`` a power of two."""
    _check_factor("downcast", n)
    if hasattr(layout, "outer"):
        return _recast_composed(layout, n, False)
    return _leafwise(layout, lambda s, d: (s * n, 1) if (type(d) is int and d == 1) else (s, d * n))


def _recast_composed(layout, n, up):
    op = "upcast" if up else "downcast"
    sw, off = layout.inner, layout.offset
    if not isinstance(sw, Swizzle):
        return _recast_general(layout, n, up)
    if n & (n - 1):
        raise NotAdmissibleError(op, f"a swizzled layout recasts only by a power of two, not {n}", str(layout))
    k = n.bit_length() - 1
    outer = (upcast if up else downcast)(layout.outer, n)
    if not up:
        return ComposedLayout(Swizzle(sw.bits, sw.base + k, sw.shift), off * n, outer)
    if sw.bits and sw.base < k:
        raise NotAdmissibleError(op, f"the unit ({n} elements) must not be wider than the swizzle's base "
                                 f"(2^{sw.base}): the swizzle would split a unit", str(layout))
    if type(off) is not int or off % n:
        raise NotAdmissibleError(op, f"the offset {off} must be a multiple of {n}", str(layout))
    return ComposedLayout(Swizzle(sw.bits, sw.base - k if sw.bits else 0, sw.shift if sw.bits else 0), off // n,
                          outer)


# A general composed layout's recast is checked value by value up to this many elements.
_CHECK_LIMIT = 1 << 16


def _recast_general(layout, n, up):
    """CuTe's recast of a general composed layout ``A o off o B`` (``layout_composed.hpp``): each part
    recast, ``upcast(A) o off/n o upcast(B)`` (``downcast``: ``off*n``).

    Admissibility: concrete layouts with an integer offset (``n | off`` for upcast); a plain layout ``B``
    (``A`` a plain layout); the result must be the same function in the new units, checked value by value
    (up to ``_CHECK_LIMIT`` elements): with ``k`` the coordinate along B's unit-stride leaf, upcast needs
    ``L(c) == n*U(c with k//n) + k%n`` for every ``c`` (a unit of ``n`` elements is contiguous in ``L`` and
    lies along that leaf), downcast ``D(c) == n*L(c with k//n) + k%n``; a layout without a unit-stride leaf
    recasts only where no leaf is split (every moving stride a multiple of ``n`` for upcast).
    Post-condition: the relation above holds at every element (so ``U`` reads the same memory in units of
    ``n`` elements, ``D`` in ``n``-ths of one)."""
    op = "upcast" if up else "downcast"
    off, inner, outer = layout.offset, layout.inner, layout.outer
    if type(off) is not int or not isinstance(outer, Layout) or not layout.is_concrete:
        raise NotAdmissibleError(op, "a composed layout whose outer function is a layout recasts only when it is "
                                 "concrete with an integer offset and a plain inner layout (checked value by "
                                 "value)", str(layout))
    if up and off % n:
        raise NotAdmissibleError(op, f"the offset {off} must be a multiple of {n}", str(layout))
    f = upcast if up else downcast
    result = ComposedLayout(f(inner, n), off // n if up else off * n, f(outer, n))
    small, big = (layout, result) if up else (result, layout)
    if not _unit_view(small, big, n, result.outer if not up else outer):
        raise NotAdmissibleError(op, f"CuTe's {result} does not read {layout} in units {'of ' + str(n) if up else str(n) + ' times smaller'}: "
                                 "a unit of elements is not contiguous along one leaf of the inner layout (or the "
                                 f"outer function splits it), or the layout has more than {_CHECK_LIMIT} elements",
                                 str(layout))
    return result


def _unit_view(small, big, n, b):
    """``small(c) == n*big(c') + r`` at every element of ``small``, where ``b`` (small's inner layout) has its
    unit-stride leaf's coordinate ``k`` read as ``k//n`` in ``big`` (remainder ``r``) and every other leaf
    as it is; without a unit-stride leaf ``r == 0`` and the coordinates agree."""
    shapes, strides = leaves(b)
    unit = next((i for i, d in enumerate(strides) if d in (1, -1) and shapes[i] > 1), None)
    if unit is not None and shapes[unit] % n:
        return False
    total = 1
    for s in shapes:
        total *= s
    if total > _CHECK_LIMIT:
        return False
    big_shapes = [s // n if i == unit else s for i, s in enumerate(shapes)]
    for idx in range(total):
        digits, rest = [], idx
        for s in shapes:
            digits.append(rest % s)
            rest //= s
        r = digits[unit] % n if unit is not None else 0
        j, step = 0, 1
        for i, (k, s) in enumerate(zip(digits, big_shapes)):
            j += (k // n if i == unit else k) * step
            step *= s
        if small(idx) != n * big(j) + (r if strides[unit if unit is not None else 0] > 0 else -r):
            return False
    return True


def recast(layout, old_bits: int, new_bits: int):
    """View a layout of ``old_bits``-wide elements as ``new_bits``-wide ones.

    Admissibility: both widths positive integers, one a multiple of the other."""
    for name, bits in (("old_bits", old_bits), ("new_bits", new_bits)):
        if type(bits) is not int or bits <= 0:
            raise NotAdmissibleError("recast", f"{name} must be a positive integer (got {bits!r})")
    if new_bits > old_bits:
        if new_bits % old_bits:
            raise NotAdmissibleError("recast", f"{new_bits} bits is not a multiple of {old_bits} bits")
        return upcast(layout, new_bits // old_bits)
    if old_bits % new_bits:
        raise NotAdmissibleError("recast", f"{old_bits} bits is not a multiple of {new_bits} bits")
    return downcast(layout, old_bits // new_bits) if old_bits != new_bits else layout


def _check_factor(op, n):
    if type(n) is not int or n <= 0:
        raise NotAdmissibleError(op, f"the factor must be a positive integer, got {n!r}")


def _leafwise(layout, f):
    """Apply ``f(s, d) -> (s', d')`` to every leaf, keeping the profile."""
    pairs = [f(s, d) for s, d in zip(*leaves(layout))]
    return Layout._make(unflatten([p[0] for p in pairs], layout.shape), unflatten([p[1] for p in pairs], layout.shape))


__all__ = ["upcast", "downcast", "recast"]
