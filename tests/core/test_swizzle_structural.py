"""Swizzled layouts decided by structure (core/bitlinear) agree with enumeration, and inverses meet their
post-conditions under an evaluator that shares no code with cuteverify.

The independent evaluator: a layout is flat (shape, stride) lists, index ``i`` split colexicographically into
digits (the last mode takes the remaining quotient, CuTe's extended domain); ``Swizzle<B,M,S>(x) = x ^ ((x &
(((1 << B) - 1) << (M + S))) >> S)`` for ``S >= 0`` (CuTe's swizzle.hpp: the B bits at M+S XORed into the
B bits at M), shifted the other way for ``S < 0``.
"""
from __future__ import annotations

import functools
import random

import pytest

from cuteverify.algebra.inverse import left_inverse, right_inverse
from cuteverify.core.layout import Layout
from cuteverify.core import bitlinear
from cuteverify.core import swizzle as swizzle_mod
from cuteverify.core.swizzle import ComposedLayout, Swizzle
from cuteverify.errors import CuteVerifyError
from cuteverify.prover import exact, tables
from cuteverify.prover.queries import are_equal


def ref_swizzle(b, m, s, x):
    if s >= 0:
        return x ^ ((x & (((1 << b) - 1) << (m + s))) >> s)
    return x ^ ((x & (((1 << b) - 1) << m)) << -s)


def ref_plain(shapes, strides, i):
    out = 0
    for k, (s, d) in enumerate(zip(shapes, strides)):
        if k == len(shapes) - 1:
            out += i * d
        else:
            out += (i % s) * d
            i //= s
    return out


def ref_flat(layout):
    """Flat shapes and strides read from the printed layout (no cuteverify evaluation)."""
    text = str(layout).replace(" ", "")
    sh, st = text.rsplit(":", 1)
    sh = sh.rsplit(" o ", 1)[-1].split("o")[-1]

    def ints(t):
        return [int(x) for x in t.replace("(", " ").replace(")", " ").replace(",", " ").split()]
    return ints(sh), ints(st)


@functools.lru_cache(maxsize=256)
def _ref_parts(text):
    if " o " in text:
        sw, off, rest = text.split(" o ")
        return tuple(int(x) for x in sw[2:-1].split(",")), int(off), ref_flat(rest)
    return None, 0, ref_flat(text)


def ref_eval(layout, i):
    """``layout(i)`` by the reference: ``Sw o off o L`` or a plain ``L``, read from the printed text."""
    sw, off, (shapes, strides) = _ref_parts(str(layout))
    v = off + ref_plain(shapes, strides, i)
    return v if sw is None else ref_swizzle(*sw, v)


def ref_size(layout):
    text = str(layout)
    shapes, _ = ref_flat(text.split(" o ")[-1])
    n = 1
    for s in shapes:
        n *= s
    return n


def random_swizzle(rng):
    b = rng.randint(0, 3)
    s = rng.choice([x for x in range(-6, 7) if abs(x) >= b] or [b])
    return Swizzle(b, rng.randint(0, 4), s)


def random_pow2_layout(rng, max_bits):
    """Power-of-two modes over a random permutation of bit positions (bit-disjoint strides), sometimes with a
    non-power-of-two last mode (stages), a zero stride, or an overlapping stride (no structure)."""
    nbits = rng.randint(1, max_bits)
    chunks, used = [], 0
    while used < nbits:
        k = rng.randint(1, min(3, nbits - used))
        chunks.append(k)
        used += k
    order = list(range(len(chunks)))
    rng.shuffle(order)
    at, where = 0, {}
    for c in order:  # the modes' bit ranges, in a random order with random gaps: disjoint
        at += rng.choice([0, 0, 0, 1])
        where[c] = at
        at += chunks[c]
    shapes = [1 << k for k in chunks]
    strides = [1 << where[c] for c in range(len(chunks))]
    pos = [at]
    if rng.random() < 0.2:
        shapes.append(3)
        strides.append(1 << (max(pos) + 3))
    if rng.random() < 0.1:
        strides[rng.randrange(len(strides))] = 0
    if rng.random() < 0.1:
        strides[rng.randrange(len(strides))] = rng.randint(1, 40)
    return Layout(tuple(shapes), tuple(strides))


def random_case(rng, max_bits=10):
    L = random_pow2_layout(rng, max_bits)
    off = 0 if rng.random() < 0.7 else rng.choice([1, 2, 1 << 12, rng.randint(0, 5000)])
    return ComposedLayout(random_swizzle(rng), off, L)


def _enum_equal(A, B):
    old = tables.EQUAL_ENUM_LIMIT
    return tables.equal_enum(A, B) if ref_size(A) <= old else None


def test_equal_structural_matches_enumeration():
    rng = random.Random(30)
    decided = 0
    for _ in range(320):
        A = random_case(rng)
        if rng.random() < 0.5:
            B = ComposedLayout(A.inner, A.offset, Layout(A.outer.shape, A.outer.stride))
            if rng.random() < 0.5:  # the same function written with the modes split or merged differently
                B = ComposedLayout(A.inner, A.offset, _resplit(A.outer, rng))
        else:
            B = ComposedLayout(random_swizzle(rng), A.offset, _perturb(A.outer, rng))
        if ref_size(A) != ref_size(B):
            continue
        r = exact.equal_bits(A, B)
        truth = all(ref_eval(A, i) == ref_eval(B, i) for i in range(ref_size(A)))
        if r is None:
            continue
        decided += 1
        assert (r.status == "proved") == truth, (A, B, r)
        if r.status == "refuted":
            i = r.counterexample.coords[0]
            assert ref_eval(A, i) != ref_eval(B, i)
        v = are_equal(A, B)
        assert v.status == ("proved" if truth else "refuted"), (A, B, v)
    assert decided > 150


def _resplit(L, rng):
    shapes, strides = [], []
    for s, d in zip(L.shape if type(L.shape) is tuple else (L.shape,),
                    L.stride if type(L.stride) is tuple else (L.stride,)):
        if s >= 4 and s & (s - 1) == 0 and rng.random() < 0.5:
            shapes += [2, s // 2]
            strides += [d, 2 * d]
        else:
            shapes.append(s)
            strides.append(d)
    return Layout(tuple(shapes), tuple(strides))


def _perturb(L, rng):
    strides = list(L.stride if type(L.stride) is tuple else (L.stride,))
    shapes = L.shape if type(L.shape) is tuple else (L.shape,)
    if rng.random() < 0.6:
        k = rng.randrange(len(strides))
        strides[k] = strides[k] * 2 if strides[k] else 1
    return Layout(tuple(shapes), tuple(strides))


@pytest.mark.parametrize("op", ["left_inverse", "right_inverse"])
def test_inverse_postconditions(op):
    rng = random.Random(300 + len(op))
    structural = 0
    for _ in range(200):
        L = random_case(rng, 10)
        L = ComposedLayout(L.inner, 0, L.outer)
        try:
            R = (left_inverse if op == "left_inverse" else right_inverse)(L)
        except CuteVerifyError:
            continue
        n = ref_size(L)
        if op == "left_inverse":
            for i in range(n):
                y = ref_eval(L, i)
                assert ref_eval(L, ref_eval(R, y)) == y, (L, R, i)
            if not R.notes:
                assert all(ref_eval(R, ref_eval(L, i)) == i for i in range(n)), (L, R)
        else:
            for i in range(ref_size(R)):
                j = ref_eval(R, i)
                assert 0 <= j < n and ref_eval(L, j) == i, (L, R, i)
        structural += 1
    assert structural > 70


def test_three_stage_smem_left_inverse_past_enumeration():
    # 3 stages of a 128x64 SW128 bf16 K-major tile, and 2^17 elements: past the enumeration cap of the
    # inverses' check (2^16), so only the structural check can accept CuTe's construction.
    for text_shape, stride in ((((8, 16), 64, 3), ((64, 512), 1, 8192)),
                               (((8, 32), 64, 64), ((64, 512), 1, 16384))):
        L = ComposedLayout(Swizzle(3, 3, 3), 0, Layout(text_shape, stride))
        R = left_inverse(L)
        rng = random.Random(7)
        n = ref_size(L)
        for i in [0, 1, n - 1] + [rng.randrange(n) for _ in range(3000)]:
            assert ref_eval(R, ref_eval(L, i)) == i


def test_values_match_reference():
    rng = random.Random(5)
    for _ in range(100):
        L = random_case(rng, 12)
        got = L.values()
        assert got == [ref_eval(L, i) for i in range(ref_size(L))]
        assert all(type(v) is int for v in got)
        assert [L(i) for i in range(min(64, len(got)))] == got[:64]


def test_large_equality_decided_without_enumeration():
    # 2^24 elements: past every enumeration budget; decided on the basis
    A = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((4096, 4096), (4096, 1)))
    B = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((4096, (64, 64)), (4096, (1, 64))))
    C = ComposedLayout(Swizzle(2, 4, 3), 0, Layout((4096, (64, 64)), (4096, (1, 64))))
    v = are_equal(A, B)
    assert v.status == "proved" and v.method == "f2-bits"
    w = are_equal(A, C)
    assert w.status == "refuted"
    i = w.counterexample.coords[0]
    assert ref_eval(A, i) != ref_eval(C, i)


def _colex(coords, shapes):
    i, mul = 0, 1
    for c, s in zip(coords, shapes):
        i += c * mul
        mul *= s
    return i


def test_slices_structural_match_enumeration(monkeypatch):
    rng = random.Random(11)
    cases = []
    for _ in range(150):
        L = random_case(rng, 10)
        shapes = list(L.outer.shape)
        if len(shapes) < 2:
            continue
        crd = tuple(None if rng.random() < 0.5 else rng.randrange(s) for s in shapes)
        if all(c is None for c in crd) or all(c is not None for c in crd):
            continue
        cases.append((L, shapes, crd, L.slice_and_offset(crd)))
    monkeypatch.setattr(swizzle_mod, "_slice_offset_by_bits", lambda target, sub: None)
    for L, shapes, crd, (sub, off) in cases:
        assert (sub, off) == L.slice_and_offset(crd), (L, crd)
        free = [s for s, c in zip(shapes, crd) if c is None]
        for _ in range(20):
            rest = [rng.randrange(s) for s in free]
            it = iter(rest)
            full = [next(it) if c is None else c for c in crd]
            assert ref_eval(L, _colex(full, shapes)) == ref_eval(sub, _colex(rest, free)) + off, (L, crd)
    assert len(cases) > 60


def test_surjective_and_largest_value_match_reference():
    rng = random.Random(17)
    decided = surj = 0
    for _ in range(250):
        L = random_case(rng, 10)
        vals = {ref_eval(L, i) for i in range(ref_size(L))}
        top = exact.largest_value(L)
        if top is None:
            continue
        decided += 1
        assert top == max(vals), L
        for n in (1, rng.randint(1, 2 * ref_size(L)), ref_size(L)):
            r = exact.surjective_bits(L, n)
            if r is None:  # not a power-of-two domain: the image is not a coset
                continue
            surj += 1
            truth = all(v in vals for v in range(n))
            assert (r.status == "proved") == truth, (L, n, r)
            if r.status == "refuted":
                assert r.counterexample.value < n and r.counterexample.value not in vals
    assert decided > 100 and surj > 100


def test_bit_affine_on_the_extended_domain():
    # bit_affine(L, n) claims L(x) for every x < 2**n, past the size too (the last leaf takes the rest)
    rng = random.Random(23)
    claimed = 0
    for _ in range(300):
        L = random_pow2_layout(rng, 6)
        if rng.random() < 0.3:  # a trailing size-1 leaf with a stride: it is what extends the domain
            L = Layout(tuple(L.shape) + (1,), tuple(L.stride) + (rng.choice([0, 3, 1 << 12]),))
        sw = random_swizzle(rng)
        for X in (L, ComposedLayout(sw, 0, L)):
            n = (ref_size(X) - 1).bit_length() + rng.randint(0, 2)
            f = bitlinear.bit_affine(X, n)
            if f is None:
                continue
            claimed += 1
            shapes, strides = ref_flat(str(L))
            for x in range(1 << n):
                v = ref_plain(shapes, strides, x)
                want = v if X is L else ref_swizzle(sw.bits, sw.base, sw.shift, v)
                assert f(x) == want, (X, n, x)
    assert claimed > 200


def test_max_below_matches_reference():
    rng = random.Random(41)
    claimed = 0
    for _ in range(200):
        L = random_case(rng, 9)
        n_bits = (ref_size(L) - 1).bit_length()
        f = bitlinear.bit_affine(L, n_bits)
        if f is None:
            continue
        claimed += 1
        for n in {1, ref_size(L), rng.randint(1, 1 << n_bits)}:
            assert bitlinear.max_below(f, n) == max(f(x) for x in range(n)), (L, n)
            assert f(n - 1) == ref_eval(L, n - 1) or n > ref_size(L)
    assert claimed > 100
