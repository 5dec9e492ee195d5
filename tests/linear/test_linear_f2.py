"""F2 linear algebra on bit masks (cuteverify.linear.f2), checked against brute-force enumeration of spans."""
import random

import pytest

from cuteverify.errors import CuteVerifyError
from cuteverify.linear import f2


def _span(cols):
    """Every XOR of a subset of ``cols`` (brute force)."""
    out = {0}
    for c in cols:
        out |= {x ^ c for x in out}
    return out


def _xor(cols, x):
    v = 0
    for i, c in enumerate(cols):
        if x >> i & 1:
            v ^= c
    return v


def _cases(seed, n=120):
    rng = random.Random(seed)
    for _ in range(n):
        k, bits = rng.randint(0, 7), rng.randint(1, 7)
        cols = [rng.randrange(1 << bits) for _ in range(k)]
        if rng.random() < 0.3 and cols:  # force dependencies
            cols.append(cols[0] ^ cols[-1])
        yield cols, bits


def test_rank_echelon_span_agree_with_enumeration():
    for cols, bits in _cases(1):
        span = _span(cols)
        # the span of r independent columns has 2**r elements: the rank read off the enumerated span
        want = len(span).bit_length() - 1
        assert len(span) == 1 << want
        assert f2.rank(cols) == want, (cols, want)
        assert want <= min(len(cols), bits)
        basis = f2.echelon(cols)
        assert _span(basis) == span
        assert len({b.bit_length() for b in basis}) == len(basis)  # distinct pivots
        for v in range(1 << bits):
            assert f2.in_span(v, cols) == (v in span)
            assert (f2.reduce(v, basis) == 0) == (v in span)


def test_solve_and_kernel():
    for cols, bits in _cases(2):
        span = _span(cols)
        for v in range(1 << bits):
            x = f2.solve(cols, v)
            if v in span:
                assert x is not None and _xor(cols, x) == v
            else:
                assert x is None
        ker = f2.kernel(cols)
        want = {x for x in range(1 << len(cols)) if _xor(cols, x) == 0}
        assert _span(ker) == want
        assert f2.apply(cols, 5 % (1 << len(cols)) if cols else 0) == _xor(cols, 5 % (1 << len(cols)) if cols else 0)


def test_inverse_of_random_invertible_matrices():
    rng = random.Random(3)
    seen = 0
    while seen < 60:
        n = rng.randint(1, 6)
        cols = [rng.randrange(1 << n) for _ in range(n)]
        if f2.rank(cols) < n:
            with pytest.raises(CuteVerifyError, match="singular"):
                f2.inverse(cols)
            continue
        inv = f2.inverse(cols)
        for x in range(1 << n):
            assert _xor(inv, _xor(cols, x)) == x and _xor(cols, _xor(inv, x)) == x
        seen += 1


def test_inverse_refuses_non_square():
    with pytest.raises(CuteVerifyError, match="not square"):
        f2.inverse([1, 4])
