"""More differential tests against CuTe DSL: the rest of the algebra's surface.

Same rules as ``test_dsl_differential.py``: generated concrete cases go through CuTe DSL (batched, see
``tests/oracles/dsl_oracle.py``) and through cuteverify. Where both answer they must print identically. Where CuTe DSL
raises (or dies) and cuteverify answers, cuteverify's answer is checked against the operation's post-condition
by enumeration. Where cuteverify refuses (NotAdmissibleError) there is nothing to compare.

All families are evaluated in ONE oracle run (one DSL start-up), cached for the module.

Covered: coalesce with a profile, filter, composition with tilers (tuples of layouts/ints/None and plain shapes),
the four divides with tilers, logical_product with a tuple tiler, upcast/downcast, max_common_layout/vector,
tile_to_shape with and without an order, make_layout of shapes, size/cosize, swizzled (composed) layouts through
composition/logical_divide/tile_to_shape, identity (coordinate) layouts through composition/logical_divide, and
samples of the hypothesis strategies of ``tests/oracles/strategies.py`` through composition/complement.

CuTe DSL conventions these tests pinned down (and cuteverify now follows):
* an int ``n`` in a tiler or a shape tiler is ``make_layout(n)``: ``n:1``, but ``1`` is ``1:0``;
* composition with a tuple tiler drops the modes of A past the tiler (``(8,3):(1,24) o <2>`` is ``(2):(1)``);
  the divides and products keep them;
* zipped/tiled/flat divides reject a ``None`` (keep) tiler mode;
* ``tile_to_shape`` returns the blocked product uncoalesced (``(2,2):(2,1)`` to ``(2,2)`` is
  ``((2,1),(2,1)):((2,0),(1,0))``), and a block of the target's rank is not re-wrapped;
* a right layout with one moving mode whose rest lies inside one mode of A needs no divisibility (CuTe's
  ``min(ceil(s / r), n)``): ``(3,9):(36,6) o 2:1`` is ``2:36``, ``(16,3):(1,48) o 2:9`` is ``2:9``;
* ``make_identity_layout(6)`` is ``6:1``; for nested shapes every leaf gets its own hierarchical basis,
  printed innermost index first (``((2,6),2):((1@0@0,1@1@0),1@1)``).
"""
from __future__ import annotations

import functools
import random
from collections import Counter

import pytest

import cuteverify as cv
import dsl_oracle
from strategies import rand_layout, rand_shape as _rand_shape
from cuteverify.core.tuples import flatten, product, unflatten

pytestmark = pytest.mark.skipif(not dsl_oracle.available(), reason="CuTe DSL (nvidia-cutlass-dsl) is not installed")

N = 400  # cases per family
MIN_WIDE = {"wide_composition": 220, "wide_coalesce": 380, "wide_right_inverse": 380, "wide_logical_divide": 340,
            "wide_complement": 250}


# --------------------------------------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------------------------------------

def _divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def _rand_tile(rng, n):
    """A tiler item for a mode of size ``n``: None, an int, or a small layout (mostly dividing ``n``)."""
    x = rng.random()
    if x < 0.1:
        return None
    d = rng.choice(_divisors(n)) if rng.random() < 0.85 else rng.choice([2, 3, 4])
    if x < 0.4:
        return d
    fs = [f for f in _divisors(d) if 1 < f < d]
    if fs and rng.random() < 0.5:
        a = rng.choice(fs)
        b = d // a
        return cv.Layout((a, b), rng.choice([(1, a), (b, 1), (1, 2 * a)]))
    return cv.Layout(d, rng.choice([1, 1, 1, 2, 3]) if d > 1 else rng.choice([0, 1]))


def _rand_tiler(rng, A, shape_only=False):
    modes = A.shape if type(A.shape) is tuple else (A.shape,)
    k = rng.randint(1, len(modes))
    if shape_only:
        return tuple(rng.choice(_divisors(product(modes[i]))) for i in range(k))
    return Tiler(_rand_tile(rng, product(modes[i])) for i in range(k))


def _rand_swizzle(rng):
    b = rng.choice([1, 2, 3])
    return cv.Swizzle(b, rng.choice([0, 1, 2, 3, 4]), rng.choice([b, 3, 4]))


# --------------------------------------------------------------------------------------------------------
# encodings for the oracle
# --------------------------------------------------------------------------------------------------------

class Shape(tuple):
    """A plain shape used as a tiler (``(2,4)`` means ``<2:1,4:1>``); passed to DSL as an int tuple."""


class Tiler(tuple):
    """A tuple tiler (layouts, ints, None per mode); passed to DSL as a Python tuple of those."""


def enc(x):
    if isinstance(x, cv.ComposedLayout):
        sw = x.inner
        return ("composed", ("swizzle", sw.bits, sw.base, sw.shift), x.offset, enc(x.outer))
    if isinstance(x, cv.Layout):
        if getattr(x, "_identity_of", None) is not None:
            return ("identity", x._identity_of)
        return (x.shape, x.stride)
    if isinstance(x, Shape):
        return ("shape", tuple(x))
    if isinstance(x, Tiler):
        return ("tiler", [None if t is None else t if type(t) is int else enc(t) for t in x])
    return x


class _IdLayout(cv.Layout):
    __slots__ = ("_identity_of",)


def identity_layout(shape):
    base = cv.make_identity_layout(shape, hierarchical=True)
    L = _IdLayout(base.shape, base.stride)
    object.__setattr__(L, "_identity_of", shape)  # a test-only tag on a test-only subclass: layouts are immutable
    return L


def _ours_arg(x):
    return tuple(x) if isinstance(x, (Shape, Tiler)) else x


# --------------------------------------------------------------------------------------------------------
# post-conditions (used where DSL raises and we answer)
# --------------------------------------------------------------------------------------------------------

def _norm(v):
    """A canonical value for comparing layout outputs (ints, coordinates)."""
    if hasattr(v, "as_tuple"):
        v = v.as_tuple()
    if isinstance(v, tuple):
        t = [_norm(x) for x in v]
        while t and t[-1] == 0:
            t.pop()
        return tuple(t) if t else 0
    return v


def _vals(L, n=None):
    n = cv.size(L) if n is None else n
    return [_norm(L(i)) for i in range(n)]


def _as_layout(t):
    if isinstance(t, (cv.Layout, cv.ComposedLayout)):
        return t
    return cv.Layout(t, 0 if t == 1 else 1) if type(t) is int else cv.Layout(tuple(t))


def _tiled_modes(A, t):
    modes = [A[i] for i in range(len(A))]
    return [(modes[i], None if i >= len(t) else t[i]) for i in range(len(modes))]


def post_composition(R, A, B):
    if type(B) is tuple or isinstance(B, (Shape, Tiler)):
        t = tuple(B)
        for i, item in enumerate(t):
            a = A[i]
            b = a if item is None else None
            if b is None:
                b = _as_layout(item)
                assert _vals(R[i]) == [_norm(a(b(j))) for j in range(cv.size(b))]
            else:
                assert _vals(R[i]) == _vals(a)
        return
    assert cv.size(R) == cv.size(B)
    assert _vals(R) == [_norm(A(B(j))) for j in range(cv.size(B))]


def post_permutes(R, A, B=None):
    """Divides: the result re-indexes A (same multiset of values, same size)."""
    assert cv.size(R) == cv.size(A)
    assert Counter(map(repr, _vals(R))) == Counter(map(repr, _vals(A)))


def post_product(R, A, B):
    if isinstance(B, tuple):
        for i, item in enumerate(B):
            if item is not None:
                post_product(R[i], A[i], _as_layout(item))
        return
    assert cv.size(R) == cv.size(A) * cv.size(B)
    assert _vals(R[0]) == _vals(A)


def post_same_function(R, A, *_):
    assert cv.size(R) == cv.size(A) and _vals(R) == _vals(A)


def post_filter(R, A):
    assert set(_vals(R)) == set(_vals(A))


def post_tile_to_shape(R, block, target, order=None):
    assert cv.size(R) == product(target)
    inner = block.outer if isinstance(block, cv.ComposedLayout) else block
    Rin = R.outer if isinstance(R, cv.ComposedLayout) else R
    # the first block is the block itself
    first = cv.Layout(tuple(m.shape[0] for m in Rin), tuple(m.stride[0] for m in Rin))
    assert _vals(first) == _vals(inner) or sorted(_vals(first)) == sorted(_vals(inner))


def post_max_common(R, A, B):
    n = R if type(R) is int else cv.size(R)
    for i in range(n):
        assert A(i) == B(i) == i if type(R) is int else A(R(i)) == B(R(i)) == i


def post_complement(R, A, M):
    va, vr = set(A.values()), R.values()
    assert vr == sorted(vr)
    assert not (va & set(vr)) - {0}


# --------------------------------------------------------------------------------------------------------
# families
# --------------------------------------------------------------------------------------------------------

def _gen(seed, n, make):
    rng = random.Random(seed)
    return [make(rng) for _ in range(n)]


def _fam_coalesce_profile(rng):
    while True:
        L = rand_layout(rng, 0.3)
        if type(L.shape) is tuple:
            break
    k = rng.randint(1, len(L.shape))
    prof = tuple(rng.choice([1, 1, (1, 1)]) if type(L.shape[i]) is tuple else 1 for i in range(k))
    return (L, prof)


def _fam_max_common(rng):
    A = rand_layout(rng, 0.8)
    if rng.random() < 0.5:
        fs = list(flatten(A.shape))
        order = list(range(len(fs)))
        rng.shuffle(order)
        st, cur = [0] * len(fs), 1
        for i in order:
            st[i] = cur
            cur *= fs[i]
        return (A, cv.Layout(A.shape, unflatten(st, A.shape)))
    return (A, rand_layout(rng, 0.8))


def _fam_tile_to_shape(with_order, swizzled=False):
    def make(rng):
        A = rand_layout(rng, 0.9, 64)
        modes = A.shape if type(A.shape) is tuple else (A.shape,)
        r = len(modes) + (1 if rng.random() < 0.15 else 0)
        tgt = []
        for i in range(r):
            m = (product(modes[i]) if i < len(modes) else 1) * rng.choice([1, 1, 2, 3, 4])
            if rng.random() < 0.2 and m % 2 == 0 and m > 2:
                m = (2, m // 2)
            tgt.append(m)
        if rng.random() < 0.1:
            tgt[0] = 5
        blk = cv.ComposedLayout(_rand_swizzle(rng), 0, A) if swizzled else A
        if with_order:
            o = list(range(r))
            rng.shuffle(o)
            return (blk, tuple(tgt), tuple(o))
        return (blk, tuple(tgt))
    return make


def _fam_rhs(left, max_tile=16, tiler_p=0.5):
    """(left(rng), a layout or a tiler of it)."""
    def make(rng):
        A = left(rng)
        inner = A.outer if isinstance(A, cv.ComposedLayout) else A
        if rng.random() < tiler_p:
            return (A, _rand_tiler(rng, inner))
        return (A, rand_layout(rng, 0.85, max_tile))
    return make


def _wide_layout(rng, max_size=2048):
    """A wider distribution than ``rand_layout``: ranks up to 5, depth 3, many size-1 modes, leaf sizes with
    factors 5/6/7/9/12, compact, padded, non-compact and large strides."""
    leaves = [1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16]

    def node(d, top):
        k = rng.randint(1, 5 if top else 3)
        out = [node(d - 1, False) if d > 0 and rng.random() < 0.3 else rng.choice(leaves) for _ in range(k)]
        return tuple(out) if k > 1 or rng.random() < 0.2 else out[0]

    while True:
        s = node(3, True)
        if product(s) <= max_size:
            break
    flat = list(flatten(s))
    kind = rng.choice(["compact", "padded", "noncompact", "big", "small"])
    if kind in ("compact", "padded"):
        order = list(range(len(flat)))
        rng.shuffle(order)
        st, cur = [0] * len(flat), 1
        for i in order:
            st[i] = cur
            cur *= flat[i] * (rng.choice([1, 1, 2, 3, 5]) if kind == "padded" else 1)
    elif kind == "noncompact":
        st = [rng.choice([1, 2, 3, 5, 6, 7, 9, 10, 12, 24, 36, 100]) for _ in flat]
    elif kind == "big":
        st = [rng.choice([0, 1, 16, 32, 64, 96, 128, 256, 384, 1024, 4096]) for _ in flat]
    else:
        st = [rng.choice([0, 0, 1, 2, 3, 4, 5, 6, 8, 16]) for _ in flat]
    return cv.Layout(s, unflatten(st, s))


def _fam_wide_composition(rng):
    """Wide left layouts with a one-mode right layout (which may lie inside one mode of A without dividing
    it: ``(3,9):(36,6) o 2:1 = 2:36``), or a wide right layout."""
    A = _wide_layout(rng)
    if rng.random() < 0.6:
        n = rng.choice([2, 3, 4, 5, 6, 7, 8, 9, 12])
        extra = rng.choice([(), (), ((1, rng.choice([0, 3, 7])),)])
        modes = [(n, rng.choice([1, 1, 2, 3, 5, 9, 10, 16]))] + list(extra)
        rng.shuffle(modes)
        if len(modes) == 1:
            return (A, cv.Layout(*modes[0]))
        return (A, cv.Layout(tuple(m[0] for m in modes), tuple(m[1] for m in modes)))
    return (A, _wide_layout(rng, 256))


def _swizzled(rng):
    return cv.ComposedLayout(_rand_swizzle(rng), 0, rand_layout(rng, 0.9))


def _identity(rng):
    return identity_layout(_rand_shape(rng))


def _hypothesis_samples(n):
    """Layouts drawn from tests/oracles/strategies.py (derandomized), for composition and complement."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    import strategies as S
    comp, compl = [], []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(S.layouts(max_size=1024), S.layouts(max_rank=3, max_size=256), S.injective_layouts(),
           st.sampled_from([1, 2, 3]), st.integers(0, 2))
    def collect(a, b, inj, k, extra):
        comp.append((a, b))
        comp.append((inj, b))
        compl.append((inj, cv.cosize(inj) * k + extra))
        compl.append((a, cv.cosize(a) * k))

    collect()
    return comp, compl


FAMILIES = {}


def _fam(name, op, items, post, ours=None, min_compared=50):
    FAMILIES[name] = (op, items, post, ours, min_compared)


def _build():
    _fam("coalesce_profile", "coalesce_profile", _gen(101, N, _fam_coalesce_profile), post_same_function,
         ours=cv.coalesce, min_compared=300)
    _fam("filter", "filter", _gen(102, N, lambda r: (rand_layout(r, 0.3),)), post_filter, min_compared=300)
    for op in ("size", "cosize"):
        _fam(op, op, _gen(103, N, lambda r: (rand_layout(r, 0.5),)), None, min_compared=300)
    _fam("make_layout_shape", "make_layout_shape", _gen(104, N, lambda r: (_rand_shape(r),)), None,
         ours=cv.make_layout, min_compared=300)
    for op, seed in (("upcast", 105), ("downcast", 106)):
        _fam(op, op, _gen(seed, N, lambda r: (rand_layout(r, 0.6), r.choice([1, 2, 3, 4, 8]))), None,
             min_compared=300)
    for op, seed in (("max_common_layout", 107), ("max_common_vector", 108)):
        _fam(op, op, _gen(seed, N, _fam_max_common), post_max_common, min_compared=250)
    # composition / divides with tilers (tuples of layouts, ints, None) and with plain shapes
    tiler = lambda so: (lambda r: (lambda A: (A, _rand_tiler(r, A, so)))(rand_layout(r, 0.8)))  # noqa: E731
    shape_tiler = lambda r: (lambda A: (A, Shape(_rand_tiler(r, A, True))))(rand_layout(r, 0.8))  # noqa: E731
    _fam("composition_tiler", "composition", _gen(110, N, tiler(False)), post_composition, min_compared=300)
    _fam("composition_shape", "composition", _gen(111, N, shape_tiler), post_composition, min_compared=300)
    for k, op in enumerate(("logical_divide", "zipped_divide", "tiled_divide", "flat_divide")):
        _fam(f"{op}_tiler", op, _gen(120 + k, N, tiler(False)), post_permutes, min_compared=250)
        _fam(f"{op}_shape", op, _gen(130 + k, N, shape_tiler), post_permutes, min_compared=300)
    _fam("logical_product_tiler", "logical_product",
         _gen(140, N, lambda r: (lambda A: (A, _rand_tiler(r, A)))(rand_layout(r, 0.8, 256))), post_product,
         min_compared=300)
    _fam("tile_to_shape", "tile_to_shape", _gen(150, N, _fam_tile_to_shape(False)), post_tile_to_shape,
         min_compared=250)
    _fam("tile_to_shape_order", "tile_to_shape", _gen(151, N, _fam_tile_to_shape(True)), post_tile_to_shape,
         min_compared=250)
    # swizzled (composed) layouts
    _fam("composed_composition", "composition", _gen(160, N, _fam_rhs(_swizzled, 256)), post_composition,
         min_compared=250)
    _fam("composed_logical_divide", "logical_divide", _gen(161, N, _fam_rhs(_swizzled, 16)), post_permutes,
         min_compared=250)
    _fam("composed_tile_to_shape", "tile_to_shape", _gen(162, N, _fam_tile_to_shape(True, swizzled=True)),
         post_tile_to_shape, min_compared=250)
    # identity (coordinate) layouts
    _fam("identity_composition", "composition", _gen(170, N, _fam_rhs(_identity, 256)), post_composition,
         min_compared=250)
    _fam("identity_logical_divide", "logical_divide", _gen(171, N, _fam_rhs(_identity, 16)), post_permutes,
         min_compared=200)
    # a wider distribution (ranks up to 5, depth 3, size-1 modes, factors 5/7/9/12, large/non-compact strides)
    _fam("wide_composition", "composition", _gen(180, N, _fam_wide_composition), post_composition,
         min_compared=MIN_WIDE["wide_composition"])
    _fam("wide_coalesce", "coalesce", _gen(181, N, lambda r: (_wide_layout(r),)), post_same_function,
         min_compared=MIN_WIDE["wide_coalesce"])
    _fam("wide_right_inverse", "right_inverse", _gen(182, N, lambda r: (_wide_layout(r),)), None,
         min_compared=MIN_WIDE["wide_right_inverse"])
    _fam("wide_logical_divide", "logical_divide",
         _gen(183, N, lambda r: (lambda A: (A, _rand_tiler(r, A)))(_wide_layout(r))), None,
         min_compared=MIN_WIDE["wide_logical_divide"])
    _fam("wide_complement", "complement",
         _gen(184, N, lambda r: (lambda A: (A, cv.cosize(A) * r.choice([1, 2, 3]) + r.choice([0, 0, 1, 5])))(
             _wide_layout(r, 512))), post_complement, min_compared=MIN_WIDE["wide_complement"])
    # hypothesis-strategy layouts (a different distribution: strides from a fixed menu, depth 3, rank 4)
    comp, compl = _hypothesis_samples(N // 2)
    _fam("strategies_composition", "composition", comp, post_composition, min_compared=100)
    _fam("strategies_complement", "complement", compl, post_complement, min_compared=150)


_build()


@functools.lru_cache(maxsize=None)
def _dsl_results():
    cases, spans = [], {}
    for name, (op, items, _, _, _) in FAMILIES.items():
        lo = len(cases)
        cases += [(op, tuple(enc(a) for a in args)) for args in items]
        spans[name] = (lo, len(cases))
    res = dsl_oracle.run_cases(cases)
    return {name: res[lo:hi] for name, (lo, hi) in spans.items()}


def _ours(op, fn, args):
    fn = fn or getattr(cv, op)
    try:
        return fn(*[_ours_arg(a) for a in args])
    except cv.NotAdmissibleError:
        return None


@pytest.mark.parametrize("name", list(FAMILIES))
def test_family(name):
    op, items, post, ours_fn, min_compared = FAMILIES[name]
    dsl = _dsl_results()[name]
    compared, post_checked, mismatches = 0, 0, []
    for args, d in zip(items, dsl):
        ours = _ours(op, ours_fn, args)
        if ours is None:
            continue
        if isinstance(d, dsl_oracle.DslError):
            if post is not None:
                try:
                    post(ours, *[_ours_arg(a) for a in args])
                except AssertionError:
                    mismatches.append((op, [str(a) for a in args], str(ours), "post-condition failed", d))
                post_checked += 1
            continue
        compared += 1
        if str(ours) != d:
            mismatches.append((op, [str(a) for a in args], str(ours), d))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
    assert compared >= min_compared, f"only {compared} cases compared"
