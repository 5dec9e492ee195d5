"""Plain and swizzled layouts as F2-affine maps of the index's bits (docs/model.md sections 4 and 9).

A concrete layout ``L`` with integer strides is *bit-linear on ``n`` bits* when, for every integer index ``x``
in ``[0, 2**n)``, ``L(x) == XOR_j bit_j(x) * cols[j]`` for fixed columns ``cols``. Sufficient condition (the
one checked here): every flat mode but the last has a power-of-two size (so its digit is a slice of ``x``'s
bits, and the last mode's digit is ``x`` shifted down, as CuTe's extended domain reads it); every stride is 0
or a power of two; the columns ``d_k << j`` of the digit bits are pairwise bit-disjoint. Then ``L(x)`` is an
integer sum of disjoint columns, and for non-negative integers ``a + b == a ^ b`` when ``a & b == 0``.
A swizzle is F2-linear (``x ^ ((x & Y) >> S)``), so ``Sw o off o L`` is bit-affine with columns ``Sw(c)`` and
constant ``Sw(off)`` when, in addition, ``off`` is a non-negative integer sharing no bit with any column
(``off + v == off ^ v``).

Valid for: concrete plain layouts with integer strides and concrete ``Swizzle o int o Layout``; anything
else answers None (the caller keeps its enumeration). No F2 or coordinate strides.
"""
from __future__ import annotations

from .layout import Layout



class BitAffine:
    """``x -> const ^ XOR_j bit_j(x) * cols[j]`` for ``x`` in ``[0, 2**len(cols))``."""

    __slots__ = ("cols", "const")

    def __init__(self, cols, const):
        self.cols, self.const = list(cols), const

    def __call__(self, x: int) -> int:
        out, j = self.const, 0
        while x:
            if x & 1:
                out ^= self.cols[j]
            x >>= 1
            j += 1
        return out

    def reach(self) -> int:
        """A mask covering every value: the OR of the columns and the constant."""
        m = self.const
        for c in self.cols:
            m |= c
        return m


def _leaves(L: Layout):
    """The flat leaves without size-1 ones, except the last: past the size, the last leaf takes the rest of
    the index (``(4,1):(1,7)`` maps 5 to 8), whatever its size."""
    lv = L.int_leaves
    if lv is None:
        return None
    if not lv[0]:
        return [(1, 0)]
    out = [(s, d) for s, d in zip(lv[0][:-1], lv[1][:-1]) if s != 1]
    return out + [(lv[0][-1], lv[1][-1])]


def plain_bits(L: Layout, n: int):
    """The columns of plain ``L`` on ``n`` index bits when it is bit-linear there (module docstring), else
    None. Post-condition: ``L(x) == XOR of cols[j] over the set bits j of x`` for every ``x < 2**n``."""
    if type(L) is not Layout:
        return None
    modes = _leaves(L)
    if modes is None:
        return None
    cols, used, pos = [], 0, 0
    for k, (s, d) in enumerate(modes):
        last = k == len(modes) - 1
        if s < 1 or (not last and s & (s - 1)):
            return None
        if d < 0 or (d & (d - 1)):
            return None
        nb = max(0, n - pos) if last else s.bit_length() - 1
        for j in range(nb):
            if pos >= n:
                break
            c = d << j
            if c & used:
                return None
            used |= c
            cols.append(c)
            pos += 1
    return cols if len(cols) == n else None


def index_bits(L) -> int:
    """The number of bits of the indices of ``L``'s domain ``[0, size)``."""
    n = 1
    for s in getattr(L, "outer", L).leaves[0]:
        n *= s
    return max(0, (n - 1).bit_length())


def bit_affine(L, n: int | None = None):
    """``L`` as a ``BitAffine`` on ``n`` index bits (default: its domain's), or None where the structure of
    the module docstring does not hold. Admissible: any object; only concrete plain integer layouts and
    ``Swizzle o int o Layout`` ever answer. Post-condition: ``result(x) == L(x)`` for every ``x < 2**n``
    (for the default ``n``: for every index of ``L``'s domain)."""
    try:
        if n is None:
            n = index_bits(L)
    except TypeError:
        return None
    if type(L) is Layout:
        cols = plain_bits(L, n)
        return None if cols is None else BitAffine(cols, 0)
    # a swizzled layout (core.swizzle's ComposedLayout with a Swizzle inner; read by its attributes, as
    # core.swizzle imports this module)
    if type(getattr(L, "outer", None)) is not Layout or not hasattr(getattr(L, "inner", None), "yyy_mask"):
        return None
    off = L.offset
    if type(off) is not int or off < 0:
        return None
    cols = plain_bits(L.outer, n)
    if cols is None:
        return None
    used = 0
    for c in cols:
        used |= c
    if off & used:
        return None
    sw = L.inner
    return BitAffine([sw(c) for c in cols], sw(off))


def echelon(cols) -> dict:
    """``{pivot bit: vector}``: a basis of the F2 span of ``cols`` whose vectors have distinct highest bits
    (their pivots). Gaussian elimination on ints."""
    basis = {}
    for v in cols:
        while v:
            p = v.bit_length() - 1
            if p in basis:
                v ^= basis[p]
            else:
                basis[p] = v
                break
    return basis


def rank(cols) -> int:
    """The F2 rank of ``cols``."""
    return len(echelon(cols))


def in_span(v: int, basis: dict) -> bool:
    """``v`` is a XOR of vectors of the ``echelon`` basis."""
    while v:
        p = v.bit_length() - 1
        if p not in basis:
            return False
        v ^= basis[p]
    return True


def max_value(f: BitAffine) -> int:
    """The largest ``const ^ x`` over ``x`` in the span of the columns: from the highest pivot down, a basis
    vector is taken when it raises the value (its pivot decides, the lower bits cannot outweigh it)."""
    m = f.const
    basis = echelon(f.cols)
    for p in sorted(basis, reverse=True):
        if not m >> p & 1:
            m ^= basis[p]
    return m


def max_below(f: BitAffine, n: int) -> int:
    """The largest ``f(x)`` over ``x`` in ``[0, n)`` (``n >= 1``, ``n <= 2**len(f.cols)``): ``[0, n)`` is the
    union of the aligned blocks ``[p, p + 2**k)``, one per set bit ``k`` of ``n`` (``p`` the bits of ``n``
    above ``k``); on a block ``f(p ^ y) == f(p) ^ lin(y)`` for ``y < 2**k``, a coset whose maximum
    ``max_value`` gives."""
    best, k = None, n.bit_length()
    while k > 0:
        k -= 1
        if n >> k & 1:
            p = (n >> (k + 1)) << (k + 1)
            m = max_value(BitAffine(f.cols[:k], f(p)))
            best = m if best is None else max(best, m)
    return best


__all__ = ["BitAffine", "bit_affine", "plain_bits", "index_bits", "echelon", "rank", "in_span", "max_value", "max_below"]
