"""Linear algebra over F2 on bit-mask integers (docs/model.md section 11).

A vector over F2 is a non-negative Python ``int`` (bit ``k`` is coordinate ``k``); a matrix is a list of its
column vectors, so ``apply(cols, x)`` is the XOR of the columns ``cols[i]`` for the set bits ``i`` of ``x``.
Every routine is Gaussian elimination on plain ints: exact, no floating point, no sympy.

Valid for: F2 only (addition is XOR); no stride domain or layout kind enters here.
"""
from __future__ import annotations

from ..errors import NotAdmissibleError


def apply(cols, x: int) -> int:
    """``sum_i x_i * cols[i]`` over F2: the XOR of the columns picked by the set bits of ``x``."""
    out = 0
    i = 0
    while x:
        if x & 1:
            out ^= cols[i]
        x >>= 1
        i += 1
    return out


def _reducer(cols):
    """Elimination state for ``cols``: ``{pivot bit: (vector, combination mask)}`` with every vector's highest
    bit its pivot and no other vector holding that bit (reduced), plus the kernel masks met on the way
    (combinations of columns that XOR to 0)."""
    piv = {}
    kernel = []
    for i, c in enumerate(cols):
        v, m = c, 1 << i
        while v:
            h = v.bit_length() - 1
            if h not in piv:
                break
            pv, pm = piv[h]
            v ^= pv
            m ^= pm
        if v == 0:
            kernel.append(m)
            continue
        h = v.bit_length() - 1
        # keep the basis fully reduced: clear the new pivot bit from every other vector
        for k, (pv, pm) in list(piv.items()):
            if pv >> h & 1:
                piv[k] = (pv ^ v, pm ^ m)
        # and reduce the new vector by the lower pivots
        for k in sorted(piv):
            if k < h and v >> k & 1:
                pv, pm = piv[k]
                v ^= pv
                m ^= pm
        piv[h] = (v, m)
    return piv, kernel


def rank(cols) -> int:
    """The dimension of the span of ``cols``."""
    return len(_reducer(cols)[0])


def echelon(cols) -> list:
    """The reduced echelon basis of ``span(cols)``: one vector per pivot (its highest bit), no vector holding
    another's pivot bit, sorted by pivot. Two spans are equal iff their echelon bases are equal."""
    piv, _ = _reducer(cols)
    return [piv[k][0] for k in sorted(piv)]


def reduce(v: int, basis) -> int:
    """``v`` reduced by an echelon ``basis`` (from :func:`echelon`): 0 iff ``v`` is in the span."""
    for b in reversed(basis):
        if v >> (b.bit_length() - 1) & 1:
            v ^= b
    return v


def in_span(v: int, cols) -> bool:
    """True when ``v`` is a XOR of some of ``cols``."""
    return reduce(v, echelon(cols)) == 0


def solve(cols, v: int):
    """A mask ``x`` with ``apply(cols, x) == v``, or None when ``v`` is not in the span. With a non-trivial
    kernel the solution is one of many (the one using only pivot columns)."""
    piv, _ = _reducer(cols)
    x = 0
    while v:
        h = v.bit_length() - 1
        if h not in piv:
            return None
        pv, pm = piv[h]
        v ^= pv
        x ^= pm
    return x


def kernel(cols) -> list:
    """A basis of ``{x : apply(cols, x) == 0}`` (masks over the column indices), in echelon form."""
    return echelon(_reducer(cols)[1])


def inverse(cols, where: str = "inverse") -> list:
    """The columns of the inverse of the square invertible matrix ``cols`` (``n`` columns of ``n`` bits):
    ``apply(inv, apply(cols, x)) == x`` for every ``x < 2**n``. NotAdmissibleError when not square or
    singular."""
    n = len(cols)
    if any(c >> n for c in cols):
        raise NotAdmissibleError(where, f"the matrix is not square ({n} columns, a value has more than {n} bits)")
    piv, ker = _reducer(cols)
    if ker:
        raise NotAdmissibleError(where, f"the matrix is singular (rank {len(piv)} < {n})")
    out = []
    for j in range(n):
        x = solve(cols, 1 << j)
        out.append(x)
    return out


def is_power_of_two(n) -> bool:
    return type(n) is int and n > 0 and n & (n - 1) == 0


def log2(n: int) -> int:
    """``k`` with ``2**k == n`` (``n`` a power of two)."""
    return n.bit_length() - 1
