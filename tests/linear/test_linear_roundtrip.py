"""CuTe -> linear -> CuTe round trips (issue 20): on every power-of-two layout the spec library holds and on
random plain, F2, E<i> and swizzled layouts. Every check evaluates both sides in full with the tests' own
evaluators (numpy, from the shape, the strides and the Swizzle<B,M,S> formula; XOR of bases for the linear
layouts), independent of cuteverify.linear's code."""
import collections
import os
import random

import numpy as np
import pytest

from cuteverify.core.layout import Layout, size
from cuteverify.core.notation.parse import parse
from cuteverify.core.strides import F2, ScaledBasis
from cuteverify.core.swizzle import ComposedLayout, Swizzle
from cuteverify.core.tuples import flatten
from cuteverify.errors import CuteVerifyError
from cuteverify.hardware.library.catalog import default_library
from cuteverify.linear import LinearLayout, from_linear_layout, to_linear_layout

# -- the tests' evaluators --------------------------------------------------------------------------------

def _sw(b, m, s, x):
    if b == 0:
        return x
    mask = ((1 << b) - 1) << (m + max(s, 0))
    return x ^ ((x & mask) >> s) if s >= 0 else x ^ ((x & mask) << -s)


FULL = os.environ.get("CV_LINEAR_FULL") == "1"  # evaluate every point of every layout, however large
FULL_UP_TO = 1 << 15  # larger layouts: a random sample and every power-of-two index (CV_LINEAR_FULL=1: all)


def points(n, seed=0):
    """The indices a check evaluates: all of ``[0, n)`` up to ``FULL_UP_TO`` (or with ``FULL``), else every
    power of two, every sum of two of them, and 4096 random indices."""
    if FULL or n <= FULL_UP_TO:
        return np.arange(n, dtype=np.int64)
    k = n.bit_length() - 1
    pw = [1 << i for i in range(k)]
    rng = np.random.default_rng(seed)
    extra = [a | b for a in pw for b in pw] + [0, n - 1]
    return np.unique(np.concatenate([np.array(extra, dtype=np.int64), rng.integers(0, n, 4096)]))


def cute_values(L, idx):
    """``{coordinate index: array}`` of ``L``'s values at the indices ``idx`` (colexicographic), by numpy from
    the leaves: integer strides add, F2 strides XOR (each leaf ``c * d`` an integer), ``v@i`` adds into
    coordinate ``i``; a composed layout applies its inner function to ``offset + outer``."""
    if isinstance(L, ComposedLayout):
        outer = cute_values(L.outer, idx)
        assert {k for k, v in outer.items() if v.any()} <= {0}
        x = outer[0] + L.offset
        if isinstance(L.inner, Swizzle):
            return {0: _sw(L.inner.bits, L.inner.base, L.inner.shift, x)}
        return cute_values(L.inner, x)
    fs, fd = flatten(L.shape), flatten(L.stride)
    n = len(idx)
    out = collections.defaultdict(lambda: np.zeros(n, dtype=np.int64))
    out[0]
    for s, d in zip(fs, fd):
        c = idx % s
        idx = idx // s
        if isinstance(d, F2):
            out[0] = out[0] ^ (c * d.value)
        elif isinstance(d, ScaledBasis):
            out[d.path[0]] = out[d.path[0]] + c * d.value
        else:
            out[0] = out[0] + c * d
    return dict(out)


def ll_values(ll, order, sizes, idx):
    """The linear layout's values (one array per out dim) at the indices ``idx`` of the index space whose
    colexicographic digits have sizes ``sizes``, digit ``k`` feeding in dim ``order[k]`` (several digits may
    feed one in dim: the later ones its higher bits)."""
    n = len(idx)
    feed = collections.defaultdict(lambda: np.zeros(n, dtype=np.int64))
    shift = collections.Counter()
    for name, s in zip(order, sizes):
        feed[name] = feed[name] | ((idx % s) << shift[name])
        shift[name] += s.bit_length() - 1
        idx = idx // s
    outs = [np.zeros(n, dtype=np.int64) for _ in ll.out_dims]
    for name, bs in ll.bases.items():
        x = feed[name]
        for i, b in enumerate(bs):
            on = ((x >> i) & 1).astype(bool)
            for k, v in enumerate(b):
                if v:
                    outs[k][on] ^= v
    return outs


def _mode_sizes(L):
    shape = L.shape
    modes = shape if isinstance(shape, tuple) else (shape,)
    out = []
    for m in modes:
        t = 1
        for x in flatten(m):
            t *= x
        out.append(t)
    return out


def _same(a, b):
    ka = {k for k, v in a.items() if v.any()}
    kb = {k for k, v in b.items() if v.any()}
    return ka == kb and all(np.array_equal(a[k], b[k]) for k in ka)


def check_default(L):
    """to_linear_layout(L) evaluates as L; from_linear_layout of it evaluates as L."""
    ll = to_linear_layout(L)
    sizes = _mode_sizes(L)
    idx = points(size(L))
    got = ll_values(ll, ll.in_dim_names, sizes, idx)
    want = cute_values(L, idx)
    if len(ll.out_dims) == 1:
        assert np.array_equal(got[0], want[0]), L
    else:
        assert _same({k: v for k, v in enumerate(got)}, want), L
    back = from_linear_layout(ll, form="plain")
    assert size(back) == size(L) and _same(cute_values(back, idx), want), (L, back)
    return ll


def check_tv(L, tile):
    """The TV form: register = value bits, lane = thread bits 0-4, warp = the rest; (dim0, dim1) = (e % M,
    e // M); back to CuTe the same element index."""
    M = tile[0]
    ll = to_linear_layout(L, tile=tile)
    T, V = _mode_sizes(L)
    lanes = min(T, 32)
    idx = points(T * V, 1)
    got = ll_values(ll, ["lane", "warp", "register"], [lanes, T // lanes, V], idx)
    want = cute_values(L, idx)
    e = want[0] + M * want.get(1, 0) if len(want) > 1 else want[0]
    assert np.array_equal(got[0], e % M) and np.array_equal(got[1], e // M), L
    back = from_linear_layout(ll)
    assert _mode_sizes(back)[0] == T and np.array_equal(cute_values(back, idx)[0], e), (L, back)


def check_shared(L):
    """The shared form is the inverse: ll(offset = L(m, n)) == (m, n); back to CuTe the same layout."""
    ll = to_linear_layout(L, shared=True)
    M, N = _mode_sizes(L)
    idx = np.arange(M * N, dtype=np.int64)
    off = cute_values(L, idx)[0]
    assert sorted(off.tolist()) == list(range(M * N))
    inv = ll_values(ll, ["offset"], [M * N], idx)
    assert np.array_equal(inv[0][off], idx % M) and np.array_equal(inv[1][off], idx // M), L
    back = from_linear_layout(ll)
    assert np.array_equal(cute_values(back, idx)[0], off), (L, back)


def _disjoint_pow2(L):
    """The tests' own admissibility rule for a plain layout with integer strides: power-of-two leaves, and the
    non-zero bases ``d << j`` pairwise disjoint."""
    seen = 0
    for s, d in zip(flatten(L.shape), flatten(L.stride)):
        if s & (s - 1):
            return False
        for j in range(s.bit_length() - 1):
            v = d << j
            if v & seen:
                return False
            seen |= v
    return True


# -- the spec library -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def library_layouts():
    lib = default_library()
    out = {}
    for name in lib:
        s = lib.peek(name)  # the layouts as written; the spec's self-check is other tests' business
        if s.kind not in ("mma", "copy", "smem_atom"):
            continue
        for p in s.instances():
            for op in s.operands:
                rows, cols, order = s.tile(op, **p)
                tile = (cols, rows) if order.startswith("row") else (rows, cols)
                out[(s.layout_text(op, **p), None if s.kind == "smem_atom" else tile)] = s.kind
    return out


def test_every_pow2_layout_of_the_spec_library_round_trips(library_layouts):
    counts = collections.Counter()
    for (text, tile), kind in library_layouts.items():
        L = parse(text)
        pow2 = all(s & (s - 1) == 0 for s in flatten(L.shape))
        try:
            check_default(L)
        except CuteVerifyError as e:
            assert not pow2 and "not a power of two" in str(e), (text, e)
            counts["refused"] += 1
            with pytest.raises(CuteVerifyError, match="not a power of two"):
                to_linear_layout(L, tile=tile) if tile else to_linear_layout(L, shared=True)
            continue
        counts["default"] += 1
        if kind == "smem_atom":
            check_shared(L)
            counts["shared"] += 1
        else:
            check_tv(L, tile)
            counts["tv"] += 1
    # the library has both kinds; every pow2 one is converted (a refusal above is only for a non-pow2 shape)
    assert counts["tv"] > 100 and counts["shared"] >= 20 and counts["refused"] > 0


# -- random layouts ---------------------------------------------------------------------------------------

def _rand_plain(rng, domain="int"):
    rank = rng.randint(1, 3)
    shape, stride = [], []
    for _ in range(rank):
        k = rng.randint(1, 2)
        s = tuple(rng.choice([1, 2, 4, 8]) for _ in range(k))
        d = tuple(rng.choice([0, 1, 2, 3, 4, 8, 16, 32, 64, 6, 12]) for _ in range(k))
        if domain == "F2":
            d = tuple(F2(x) if x else 0 for x in d)
        shape.append(s if k > 1 else s[0])
        stride.append(d if k > 1 else d[0])
    return Layout(tuple(shape), tuple(stride))


def _is_linear(L):
    """Brute force: ``L(x) == XOR of L(2**i) over the set bits of x`` at every index."""
    v = cute_values(L, np.arange(size(L), dtype=np.int64))
    ok = True
    for arr in v.values():
        n = len(arr)
        for x in range(n):
            acc = 0
            for i in range(n.bit_length() - 1):
                if x >> i & 1:
                    acc ^= int(arr[1 << i])
            ok &= acc == int(arr[x])
    return ok


@pytest.mark.parametrize("domain", ["int", "F2"])
def test_random_plain_layouts_convert_iff_linear(domain):
    rng = random.Random(23 if domain == "int" else 29)
    seen = collections.Counter()
    for _ in range(300):
        L = _rand_plain(rng, domain)
        try:
            check_default(L)
            seen["converted"] += 1
            assert _is_linear(L), L
            if domain == "int":
                assert _disjoint_pow2(L)
        except CuteVerifyError as e:
            seen["refused"] += 1
            assert not _is_linear(L), (L, e)
            assert "overlap" in str(e) or "not a power of two" in str(e), e
    assert seen["converted"] > 50 and seen["refused"] > 50


def test_random_coordinate_layouts():
    rng = random.Random(31)
    done = 0
    for _ in range(200):
        shape = tuple(rng.choice([1, 2, 4, 8]) for _ in range(rng.randint(1, 3)))
        stride = tuple(ScaledBasis(rng.choice([1, 2, 4, 8]), (rng.randint(0, 1),)) for _ in shape)
        L = Layout(shape, stride)
        try:
            ll = check_default(L)
        except CuteVerifyError as e:
            assert "overlap" in str(e) and not _is_linear(L)
            continue
        done += 1
        assert [n for n, _ in ll.out_dims][:1] == ["dim0"]
    assert done > 50


def test_random_swizzled_layouts_round_trip_in_every_form():
    rng = random.Random(37)
    done = 0
    for _ in range(150):
        m, n = rng.choice([8, 16, 32, 64]), rng.choice([4, 8, 16, 64])
        plain = Layout((m, n), (1, m)) if rng.random() < 0.5 else Layout((m, n), (n, 1))
        b = rng.randint(0, 3)
        sw = Swizzle(b, rng.randint(0, 3), rng.choice([3, 4]) if b <= 3 else 4)
        L = ComposedLayout(sw, 0, plain)
        if max(cute_values(L, np.arange(m * n))[0]) >= m * n:
            continue
        check_default(L)
        check_shared(L)
        done += 1
        assert isinstance(from_linear_layout(to_linear_layout(L, shared=True)), (Layout, ComposedLayout))
    assert done > 50


def test_swizzle_factoring_recovers_the_swizzle():
    for text in ["S<3,3,3> o 0 o (8,64):(64,1)", "S<2,4,3> o 0 o (8,64):(64,1)", "S<3,4,3> o 0 o (128,8):(1,128)"]:
        back = from_linear_layout(to_linear_layout(text, shared=True))
        assert isinstance(back, ComposedLayout) and isinstance(back.inner, Swizzle)
        idx = np.arange(size(back))
        assert np.array_equal(cute_values(back, idx)[0], cute_values(parse(text), idx)[0])


def test_nested_composition_and_inner_layouts():
    # a swizzled layout composed again with a swizzle (CuTe nests them) and an inner plain layout
    L = parse("S<1,0,2> o 0 o S<1,5,2> o 0 o (64,2):(1,64)")
    check_default(L)
    inner = ComposedLayout(Layout((4, 4), (4, 1)), 0, Layout((2, 8), (8, 1)))
    check_default(inner)


def test_refusals_name_the_reason():
    cases = {
        "(3,4):(1,3)": "mode 0 has shape 3, not a power of two",
        "(4,2):(1,2)": "bases 2 (mode 0 bit 1) and 2 (mode 1 bit 0) overlap: the sum carries",
        "(4,2):(^3,^16)": "overlap: the F2 mode's integer multiple carries",
        "(4,2):(-1,4)": "negative stride",
        "S<1,2,3> o 4 o (8,8):(8,1)": "affine, not linear",
        "(M,4):(1,M)": "symbolic",
    }
    for text, msg in cases.items():
        with pytest.raises(CuteVerifyError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            to_linear_layout(parse(text))
    with pytest.raises(CuteVerifyError, match="past the 8x8 tile"):
        to_linear_layout("(32,4):(1,32)", tile=(8, 8))
    with pytest.raises(CuteVerifyError, match="not injective"):
        to_linear_layout("(4,4):(1,0)", shared=True)
    with pytest.raises(CuteVerifyError, match="not a bijection"):
        from_linear_layout(LinearLayout({"offset": [(1, 0)]}, {"dim0": 2, "dim1": 2}))


def test_from_linear_layout_f2_fallback_and_tv_names():
    # a non-swizzle F2 map (offset bit 0 -> (1, 1)) is written with F2 strides and evaluates the same
    ll = LinearLayout({"register": [(1, 1), (2, 0)], "lane": [(0, 2), (0, 1)]}, {"dim0": 4, "dim1": 4})
    back = from_linear_layout(ll)
    assert any(isinstance(d, F2) for d in flatten(back.stride))
    idx = np.arange(16)
    vals = cute_values(back, idx)[0]
    want = ll_values(ll, ["lane", "register"], [4, 4], idx)
    assert np.array_equal(vals, want[0] + 4 * want[1])


def test_from_linear_layout_bad_input():
    with pytest.raises(CuteVerifyError, match="no input"):
        from_linear_layout(LinearLayout.empty())
    with pytest.raises(CuteVerifyError, match="unknown form"):
        from_linear_layout(LinearLayout.identity_1d(4, "i", "o"), form="bad")
    with pytest.raises(CuteVerifyError, match="expected a LinearLayout"):
        from_linear_layout("(4,4):(1,4)")
    with pytest.raises(CuteVerifyError, match="nested coordinate stride"):
        to_linear_layout("(4,4):(1@0,1@0@1)")
    with pytest.raises(CuteVerifyError, match="two top-level modes"):
        to_linear_layout("(4,4,4):(1,4,16)", tile=(4, 16))


def _rand_bijective(rng, nbits):
    while True:
        cols = [rng.randrange(1 << nbits) for _ in range(nbits)]
        ok = True
        span = {0}
        for c in cols:
            if c in span:
                ok = False
                break
            span |= {x ^ c for x in span}
        if ok:
            return cols


def test_random_linear_layouts_round_trip_through_cute():
    """linear -> CuTe -> linear is the same function, on random shared (bijective), TV and plain layouts; the
    CuTe side evaluated by the tests' numpy evaluator against the XOR of bases."""
    rng = random.Random(47)
    kinds = collections.Counter()
    for _ in range(150):
        mb, nb = rng.randint(0, 4), rng.randint(0, 4)
        M, N = 1 << mb, 1 << nb
        cols = _rand_bijective(rng, mb + nb)
        sh = LinearLayout([("offset", [(c & (M - 1), c >> mb) for c in cols])], {"dim0": M, "dim1": N})
        back = from_linear_layout(sh)
        kinds[type(back).__name__ + ("/F2" if any(isinstance(d, F2) for d in flatten(
            back.outer.stride if isinstance(back, ComposedLayout) else back.stride)) else "")] += 1
        idx = np.arange(M * N, dtype=np.int64)
        off = cute_values(back, idx)[0]
        inv = ll_values(sh, ["offset"], [M * N], off)
        assert np.array_equal(inv[0], idx % M) and np.array_equal(inv[1], idx // M), (sh, back)
        assert to_linear_layout(back, shared=True) == sh

        regs, lanes, warps = rng.randint(0, 3), rng.randint(0, 5), rng.randint(0, 2)
        tv = LinearLayout([(n, [(rng.randrange(M), rng.randrange(N)) for _ in range(k)])
                           for n, k in (("register", regs), ("lane", lanes), ("warp", warps))],
                          {"dim0": M, "dim1": N})
        back = from_linear_layout(tv)
        T, V = 1 << (lanes + warps), 1 << regs
        idx = np.arange(T * V, dtype=np.int64)
        got = cute_values(back, idx)[0]
        want = ll_values(tv, ["lane", "warp", "register"], [1 << lanes, 1 << warps, V], idx)
        assert np.array_equal(got, want[0] + M * want[1]), (tv, back)
        if lanes == 5 or warps == 0:  # the thread split is lane = bits 0-4
            assert to_linear_layout(back, tile=(M, N)) == tv
    assert kinds["Layout"] and kinds["ComposedLayout"] and kinds["Layout/F2"], kinds


def test_forced_forms_never_drop_an_input():
    ll = LinearLayout({"register": [(1,)], "lane": [(2,)], "foo": [(4,)]}, {"dim0": 8})
    with pytest.raises(CuteVerifyError, match="neither register nor a thread dim"):
        from_linear_layout(ll, form="tv")
    sh = LinearLayout({"offset": [(1,), (2,)], "block": [(0,)]}, {"dim0": 4})
    with pytest.raises(CuteVerifyError, match="block must have size 1"):
        from_linear_layout(sh, form="shared")
    assert from_linear_layout(ll).shape == (2, 2, 2)  # auto: the plain form, one mode per in dim
