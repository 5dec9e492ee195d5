"""Soundness of the layout algebra on every layout kind: F2 strides, swizzled (composed) layouts, coordinate
(``E<i>``) strides, negative strides. Expected printed forms marked "CuTe C++" were printed by CUTLASS's
headers (host g++ 12, -std=c++17). Every randomized sweep checks results against ``ev`` below, a
brute-force evaluator that reads only the raw fields of a value (shape, stride, swizzle bits, offset) and
shares no code with the library; refusals must be ``CuteVerifyError``s.
"""
from __future__ import annotations

import itertools
import random

import pytest

import cuteverify as cv
from cuteverify.core.strides import F2, ScaledBasis
from cuteverify.errors import CuteVerifyError, NotAdmissibleError

P = cv.parse


# --- the independent evaluator -----------------------------------------------------------------------------

def _flat(t):
    if type(t) is tuple:
        return [x for e in t for x in _flat(e)]
    return [t]


def _prod(t):
    out = 1
    for x in _flat(t):
        out *= x
    return out


def _tdiv(a, b):
    """C++ integer division (truncation): CuTe evaluates layouts at negative indices with it."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _digits(i, shapes):
    """Colexicographic digits of index ``i`` (the last one unreduced), C++ semantics for negative ``i``."""
    out = []
    for s in shapes[:-1]:
        out.append(i - s * _tdiv(i, s))
        i = _tdiv(i, s)
    out.append(i)
    return out


def _vec(d):
    """A stride as a vector: ('int', v), ('F2', v) or ('E', {path: v})."""
    if isinstance(d, F2):
        return "F2", d.value
    if isinstance(d, ScaledBasis):
        return "E", {tuple(d.path): d.value}
    assert type(d) is int, d
    return "int", d


def ev_plain(layout, i):
    shapes = _flat(layout.shape)
    strides = _flat(layout.stride)
    kinds = {_vec(d)[0] for d in strides if not (type(d) is int and d == 0)}
    assert len(kinds) <= 1, f"mixed stride domains in {layout}"
    kind = kinds.pop() if kinds else "int"
    ds = _digits(i, shapes)
    if kind == "int":
        return sum(c * d for c, d in zip(ds, strides))
    if kind == "F2":
        acc = 0
        for c, d in zip(ds, strides):
            acc ^= c * (d.value if isinstance(d, F2) else d)
        return acc
    acc = {}
    for c, d in zip(ds, strides):
        if isinstance(d, ScaledBasis):
            p = _norm_path(d.path)
            acc[p] = acc.get(p, 0) + c * d.value
    return {p: v for p, v in acc.items() if v}


def _norm_path(p):
    p = tuple(p)
    # E<1,0> and E<1> name the same coordinate (docs/model.md 2.3): trailing zeros of the path are dropped
    while len(p) > 1 and p[-1] == 0:
        p = p[:-1]
    return p


def ev_swizzle(sw, x):
    b, m, s = sw.bits, sw.base, sw.shift
    if b == 0:
        return x
    src = ((1 << b) - 1) << (m + max(s, 0))
    return x ^ ((x & src) >> s) if s >= 0 else x ^ ((x & src) << -s)


def ev(obj, i):
    """The value of a layout or composed layout at integral index ``i`` (raw fields only)."""
    if isinstance(obj, cv.ComposedLayout):
        inner = obj.outer
        y = obj.offset + ev(inner, i)
        if isinstance(obj.inner, cv.Swizzle):
            return ev_swizzle(obj.inner, y)
        return ev(obj.inner, y)
    return ev_plain(obj, i)


def ev_size(obj):
    return _prod(obj.shape)


def well_formed(obj):
    """A Layout with congruent int shape/stride of one domain, or a ComposedLayout of well-formed parts."""
    if isinstance(obj, cv.ComposedLayout):
        assert isinstance(obj.inner, (cv.Swizzle, cv.Layout)), obj
        if isinstance(obj.inner, cv.Layout):
            well_formed(obj.inner)
        assert type(obj.offset) is int, obj
        well_formed(obj.outer)
        return True
    assert type(obj) is cv.Layout, repr(obj)

    def cong(a, b):
        if type(a) is tuple:
            assert type(b) is tuple and len(a) == len(b), (a, b)
            for x, y in zip(a, b):
                cong(x, y)
        else:
            assert type(a) is int and a >= 0, a
            assert type(b) in (int, F2, ScaledBasis), b

    cong(obj.shape, obj.stride)
    kinds = {_vec(d)[0] for d in _flat(obj.stride) if not (type(d) is int and d == 0)}
    assert len(kinds) <= 1, obj
    return True


def refuses(fn):
    """Run ``fn``; a refusal must be a CuteVerifyError (returns it), anything else fails the test."""
    try:
        return fn()
    except CuteVerifyError as e:
        return e


# --- composed (swizzled) layouts -----------------------------------------------------------------------------

def test_composition_with_swizzled_right_operand_cpp():
    r = cv.composition(P("(8,8):(8,1)"), P("S<2,0,-3> o 0 o (8,8):(8,1)"))
    assert str(r) == "S<2,0,3> o 0 o (8,8):(1,8)"  # CuTe C++
    r = cv.composition(P("16:2"), P("S<2,0,2> o 0 o 16:1"))
    assert str(r) == "S<2,1,2> o 0 o 16:2"  # CuTe C++
    # both swizzled: CuTe nests them
    r = cv.composition(P("S<2,0,3> o 0 o (8,8):(8,1)"), P("S<2,0,-3> o 0 o (8,8):(8,1)"))
    assert str(r) == "S<2,0,3> o 0 o S<2,0,3> o 0 o (8,8):(1,8)"  # CuTe C++
    for a, b in [("(8,8):(8,1)", "S<2,0,-3> o 0 o (8,8):(8,1)"), ("16:2", "S<2,0,2> o 0 o 16:1"),
                 ("S<2,0,3> o 0 o (8,8):(8,1)", "S<2,0,-3> o 0 o (8,8):(8,1)")]:
        A, B, R = P(a), P(b), cv.composition(P(a), P(b))
        well_formed(R)
        assert all(ev(R, i) == ev(A, ev(B, i)) for i in range(ev_size(B)))


def test_composition_swizzle_not_representable_is_refused():
    # CuTe C++ rejects it too (make_swizzle's static_assert): A maps Y, Z to 14 and 13
    e = refuses(lambda: cv.composition(P("(4,4):(4,1)"), P("S<3,0,3> o 0 o 16:1")))
    assert isinstance(e, NotAdmissibleError) and "bit masks" in str(e)
    e = refuses(lambda: cv.composition(P("8:1"), P("S<1,0,1> o 2 o 4:1")))
    assert isinstance(e, NotAdmissibleError) and "offset 0" in str(e)


def test_swizzled_slices_cpp():
    sw = P("S<3,0,3> o 0 o (8,8):(8,1)")
    # CuTe C++ (static coordinates): ((_2,_4)):((_-1,_2)) + _9, ((_2,_2,_2)):((_-1,_2,_-4)) + _45,
    # ((_4,_2)):((_7,_36)) + _3 (CuTe's slice keeps one more level of parentheses)
    for crd, form, off in [((1, None), "(2,4):(-1,2)", 9), ((5, None), "(2,2,2):(-1,2,-4)", 45),
                           ((None, 3), "(4,2):(7,36)", 3)]:
        sub, o = cv.slice_and_offset(sw, crd)
        assert (str(sub), o) == (form, off)
        assert str(sw[crd]) == form
    # CuTe's argument order is accepted too
    assert cv.slice_and_offset((1, None), sw)[1] == 9
    sA = cv.tile_to_shape(P("S<3,3,3> o 0 o (8,64):(64,1)"), (128, 64, 3))
    assert str(sA) == "S<3,3,3> o 0 o ((8,16),(64,1),(1,3)):((64,512),(1,0),(0,8192))"  # CuTe C++
    sub, o = cv.slice_and_offset(sA, (None, None, 1))
    assert (str(sub), o) == ("S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))", 8192)  # CuTe C++
    sub, o = cv.slice_and_offset(sA, (3, None, 1))
    assert (str(sub), o) == ("((8,4,2),1):((1,-8,32),0)", 8408)  # CuTe C++: (((_8,_4,_2),_1)):(((...)))
    sub, o = cv.slice_and_offset(sA, (None, 5, 2))
    assert (str(sub), o) == ("(8,16):(72,512)", 16389)  # CuTe C++


def test_swizzled_cosize_is_the_outer_layouts():
    assert cv.cosize(P("S<3,0,3> o 0 o (8,8):(8,1)")) == 64  # CuTe C++
    assert cv.cosize(P("S<3,0,3> o 5 o 4:1")) == 4  # cosize(layout_b)


def test_concatenating_swizzled_layouts():
    r = cv.make_layout(P("S<1,0,1> o 0 o 4:1"), P("S<1,0,1> o 0 o 2:4"))
    assert str(r) == "S<1,0,1> o 0 o (4,2):(1,4)"
    e = refuses(lambda: cv.make_layout(P("S<1,0,1> o 0 o 4:1"), P("2:4")))
    assert isinstance(e, NotAdmissibleError)
    e = refuses(lambda: cv.Layout(P("S<1,0,1> o 0 o 4:1"), 1))
    assert isinstance(e, NotAdmissibleError)


def test_swizzled_recast_cpp():
    assert str(cv.upcast(P("S<3,4,3> o 0 o (8,64):(64,1)"), 2)) == "S<3,3,3> o 0 o (8,32):(32,1)"
    assert str(cv.downcast(P("S<3,1,3> o 0 o (8,64):(64,1)"), 2)) == "S<3,2,3> o 0 o (8,128):(128,1)"
    assert isinstance(refuses(lambda: cv.upcast(P("S<3,0,3> o 0 o (8,64):(64,1)"), 2)), NotAdmissibleError)


def _rand_pow2_layout(r, max_modes=3, max_bits=6):
    k = r.randint(1, max_modes)
    bits = list(range(max_bits))
    r.shuffle(bits)
    shapes, strides, used = [], [], 0
    for _ in range(k):
        w = r.choice([1, 1, 2, 3])
        start = r.randrange(max_bits)
        if r.random() < 0.2:
            shapes.append(r.choice([3, 5, 6]))
            strides.append(r.choice([1, 3, 8, 12]))
            continue
        shapes.append(1 << w)
        strides.append(1 << start)
    return cv.Layout(tuple(shapes) if k > 1 else shapes[0], tuple(strides) if k > 1 else strides[0])


def _rand_swizzle(r):
    b = r.randint(0, 3)
    s = r.choice([1, -1]) * r.randint(max(b, 1), 4)
    return cv.Swizzle(b, r.randint(0, 3), s)


def _rand_crd(r, shape):
    if type(shape) is tuple:
        return tuple(_rand_crd(r, s) for s in shape)
    return None if r.random() < 0.5 else r.randrange(shape)


def _completions(crd, shape):
    """Every full coordinate extending ``crd``, paired with the index of its free part."""
    free = []

    def walk(c, s):
        if type(s) is tuple:
            for ci, si in zip(c if type(c) is tuple else (None,) * len(s), s):
                walk(ci, si)
        elif c is None:
            free.append(s)

    walk(crd, shape)

    def fill(c, s, it):
        if type(s) is tuple:
            return tuple(fill(ci, si, it) for ci, si in zip(c if type(c) is tuple else (None,) * len(s), s))
        return next(it) if c is None else c

    for k, digits in enumerate(itertools.product(*[range(f) for f in free[::-1]])):
        yield k, fill(crd, shape, iter(digits[::-1]))


def _ev_crd(obj, crd):
    """Value at a full hierarchical coordinate, via the index it names (colexicographic)."""
    def idx(c, s):
        if type(s) is tuple:
            total, mult = 0, 1
            for ci, si in zip(c, s):
                total += idx(ci, si) * mult
                mult *= _prod(si)
            return total
        return c

    return ev(obj, idx(crd, obj.shape))


def test_swizzled_slicing_sweep():
    r = random.Random(7)
    decayed = kept = 0
    for _ in range(400):
        sw = _rand_swizzle(r)
        L = _rand_pow2_layout(r)
        if type(L.shape) is not tuple:
            L = cv.make_layout(L, cv.Layout(r.choice([2, 4]), r.choice([1, 8, 16])))
        off = r.choice([0, 0, 0, 1, 8, 24])
        S = cv.ComposedLayout(sw, off, L)
        crd = _rand_crd(r, L.shape)
        res = refuses(lambda: cv.slice_and_offset(S, crd))
        assert not isinstance(res, CuteVerifyError), (S, crd, res)
        sub, o = res
        if sub is None:
            assert o == _ev_crd(S, crd)
            continue
        well_formed(sub)
        decayed += isinstance(sub, cv.Layout)
        kept += isinstance(sub, cv.ComposedLayout)
        for k, full in _completions(crd, L.shape):
            assert ev(sub, k) + o == _ev_crd(S, full), (S, crd, sub, o, full)
        assert cv.slice_layout(S, crd) == sub and S[crd] == sub
    assert decayed > 50 and kept > 50


def test_swizzled_slice_offsets_cpp():
    """``L[crd]`` is CuTe's ``slice``: the sublayout without the offset ``slice_and_offset`` hands out."""
    for text, crd, form, off in [
            # CuTe C++ ((_2,_2)):((_34,_64)); C++'s own offset is 0 (it XORs 2 ^ 2 where 2 + 2 carries)
            ("S<1,1,4> o 2 o (2,4):(2,32)", (1, None), "(2,2):(34,64)", 4),
            # CuTe C++ (_8,_4):(_1,_4): the free modes overlap, CuTe composes mode by mode
            ("S<2,2,4> o 0 o ((8,4),2,2):((1,4),8,4)", ((None, None), 1, 0), "(8,4):(1,4)", 8),
            # CuTe C++ (_6):(_2) is wrong (values 38 36 42 40 46 44): it splits 36 at bits 4 and 2
            ("S<2,0,4> o 0 o (8,6):(12,2)", (3, None), "(2,3):(-2,4)", 38),
            # CuTe C++ Sw<1,3,2> o _12 o (_16):(_8) is wrong: the offset carries into the swizzle's bits
            ("S<1,3,2> o 4 o ((8,16)):((4,8))", ((3, None),), "S<1,3,2> o 16 o 16:8", 0)]:
        S = P(text)
        sub, o = cv.slice_and_offset(S, crd)
        assert (str(sub), o) == (form, off)
        assert S[crd] == sub
        for k, full in _completions(crd, S.shape):
            assert ev(sub, k) + o == _ev_crd(S, full)


def test_swizzled_slice_offsets_sweep():
    """Arbitrary (not power-of-2) strides and offsets, where the offsets' bits carry into the swizzle's."""
    r = random.Random(11)
    for _ in range(300):
        sw = _rand_swizzle(r)
        rank = r.randint(2, 3)
        L = cv.Layout(tuple(r.randint(1, 6) for _ in range(rank)), tuple(r.randint(0, 40) for _ in range(rank)))
        S = cv.ComposedLayout(sw, r.randint(0, 40), L)
        crd = _rand_crd(r, L.shape)
        sub, o = cv.slice_and_offset(S, crd)
        if sub is None:
            assert o == _ev_crd(S, crd)
            continue
        well_formed(sub)
        for k, full in _completions(crd, L.shape):
            assert ev(sub, k) + o == _ev_crd(S, full), (S, crd, sub, o, full)
        assert S[crd] == sub


def test_swizzled_right_operand_sweep():
    r = random.Random(11)
    done = 0
    for _ in range(300):
        A = _rand_pow2_layout(r, max_bits=5)
        B = cv.ComposedLayout(_rand_swizzle(r), 0, _rand_pow2_layout(r, max_bits=4))
        res = refuses(lambda: cv.composition(A, B))
        if isinstance(res, CuteVerifyError):
            continue
        done += 1
        well_formed(res)
        assert [ev(res, i) for i in range(ev_size(B))] == [ev(A, ev(B, i)) for i in range(ev_size(B))], (A, B, res)
    assert done > 60


def test_operations_on_swizzled_layouts_sweep():
    """Every operation on a composed layout returns a well-formed value with its post-condition, or a
    CuteVerifyError."""
    r = random.Random(5)
    ops = 0
    for _ in range(200):
        S = cv.ComposedLayout(_rand_swizzle(r), r.choice([0, 0, 4]), _rand_pow2_layout(r))
        n = ev_size(S)
        c = refuses(lambda: cv.coalesce(S))
        if not isinstance(c, CuteVerifyError):
            well_formed(c)
            assert [ev(c, i) for i in range(n)] == [ev(S, i) for i in range(n)]
            ops += 1
        for B in (P("2:1"), P("(2,2):(2,1)"), P("4:2")):
            c = refuses(lambda: cv.composition(S, B))
            if not isinstance(c, CuteVerifyError):
                well_formed(c)
                assert all(ev(c, i) == ev(S, ev(B, i)) for i in range(ev_size(B)))
                ops += 1
            d = refuses(lambda: cv.logical_divide(S, B))
            if not isinstance(d, CuteVerifyError):
                well_formed(d)
                plain = cv.logical_divide(S.outer, B)
                m = ev_size(plain)
                assert ev_size(d) == m
                assert [ev(d, i) for i in range(m)] == [ev_swizzle(S.inner, S.offset + ev(plain, i)) for i in range(m)]
                ops += 1
        for f in (cv.cosize, cv.size, lambda x: cv.tile_to_shape(x, tuple(2 * s for s in x.shape) if
                                                                   type(x.shape) is tuple else 2 * x.shape),
                  lambda x: cv.upcast(x, 2), lambda x: cv.downcast(x, 2), cv.filter,
                  lambda x: cv.complement(x, 64), lambda x: cv.right_inverse(x), lambda x: cv.left_inverse(x),
                  lambda x: cv.max_common_vector(x, P("32:1")), lambda x: x[0]):
            got = refuses(lambda: f(S))
            if not isinstance(got, (CuteVerifyError, int)):
                well_formed(got)
    assert ops > 300


# --- F2 strides ---------------------------------------------------------------------------------------------

def test_f2_coalesce_and_composition_regressions():
    # (3,8):(^4,^12) is not 24:^4 (c=4: 4*4 = 16 but 1*4 XOR 1*12 = 8)
    L = P("(3,8):(^4,^12)")
    c = cv.coalesce(L)
    assert [ev(c, i) for i in range(24)] == [ev(L, i) for i in range(24)]
    assert str(cv.coalesce(P("(4,4):(^1,^4)"))) == "16:^1"
    assert str(cv.coalesce(P("(2,2):(^5,^10)"))) == "4:^5"  # 0,5,10,15 either way
    assert str(cv.coalesce(P("(2,3):(^5,^10)"))) == "(2,3):(^5,^10)"  # c1=2: 20 meets 5
    # 8:^8 o (3,2):(1,3) would be (3,2):(^8,^24), which is not the function (c=(2,1): 16^24 = 8, not 40)
    e = refuses(lambda: cv.composition(P("8:^8"), P("(3,2):(1,3)")))
    assert isinstance(e, NotAdmissibleError)
    r = cv.composition(P("(4,(4,3)):(^1,(^5,^16))"), P("(2,8):(1,2)"))
    assert str(r) == "(2,(2,4)):(^1,(^2,^5))"
    e = refuses(lambda: cv.Layout((2, 2), (F2(1), 2)))
    assert isinstance(e, NotAdmissibleError)


def _rand_f2_layout(r):
    k = r.randint(1, 3)
    shapes = [r.choice([2, 2, 3, 4, 4, 8]) for _ in range(k)]
    strides = []
    for _ in range(k):
        strides.append(F2(r.choice([0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32])))
    if r.random() < 0.4:
        # a chain: the next stride is size*stride, which merges only sometimes
        for i in range(1, k):
            strides[i] = F2(shapes[i - 1] * strides[i - 1].value)
    return cv.Layout(tuple(shapes) if k > 1 else shapes[0], tuple(strides) if k > 1 else strides[0])


def _rand_int_layout(r, max_modes=3):
    k = r.randint(1, max_modes)
    shapes = [r.choice([1, 2, 2, 3, 4, 4, 8]) for _ in range(k)]
    strides = [r.choice([0, 1, 1, 2, 3, 4, 6, 8, 16]) for _ in range(k)]
    return cv.Layout(tuple(shapes) if k > 1 else shapes[0], tuple(strides) if k > 1 else strides[0])


def test_f2_sweep():
    r = random.Random(3)
    merged = composed = refused = 0
    for _ in range(500):
        A = _rand_f2_layout(r)
        n = ev_size(A)
        c = cv.coalesce(A)
        well_formed(c)
        assert [ev(c, i) for i in range(n)] == [ev(A, i) for i in range(n)], (A, c)
        merged += len(_flat(c.shape)) < len(_flat(A.shape))
        f = cv.filter(A)
        well_formed(f)
        assert sorted(set(ev(f, i) for i in range(ev_size(f)))) == sorted(set(ev(A, i) for i in range(n)))
        B = _rand_int_layout(r) if r.random() < 0.8 else _rand_f2_layout(r)
        R = refuses(lambda: cv.composition(A, B))
        if isinstance(R, CuteVerifyError):
            refused += 1
            continue
        composed += 1
        well_formed(R)
        m = ev_size(B)
        assert [ev(R, i) for i in range(m)] == [ev(A, ev(B, i)) for i in range(m)], (A, B, R)
    assert merged > 50 and composed > 150 and refused > 20


# --- coordinate strides -------------------------------------------------------------------------------------

def test_coordinate_right_operand_cpp():
    assert str(cv.composition(P("(4,4):(4,1)"), P("(4,4):(1@1,1@0)"))) == "(4,4):(1,4)"  # CuTe C++
    A = P("(4,(2,3)):(6,(3,1))")
    assert str(cv.composition(A, P("(2,4):(1@1@1,1@0)"))) == "(2,4):(1,6)"  # CuTe C++
    assert str(cv.composition(A, P("(2,3):(1@1,1@0)"))) == "(2,3):(3,6)"  # CuTe C++
    assert str(cv.composition(A, P("(2,4):(1@0@1,2@0)"))) == "(2,4):(3,12)"  # CuTe C++


def test_products_by_a_coordinate_layout_cpp():
    # cosize of coordinate strides is CuTe's size(coshape(L)), the product of the coordinates' extents
    assert cv.cosize(P("(4,2):(1@0,1@1)")) == 8 and cv.cosize(P("(4,2,3):(2@1,0,1@0)")) == 21
    B = P("(4,2):(1@0,1@1)")
    assert str(cv.blocked_product(P("8:2"), B)) == "((8,4),(1,2)):((2,1),(0,16))"  # CuTe C++
    R = cv.logical_product(P("8:2"), B)
    assert str(R) == "(8,(4,2)):(2,(1,16))"  # CuTe C++
    assert str(R[0]) == "8:2" and ev_size(R) == 64
    e = refuses(lambda: cv.cosize(P("(4,2):(1@0,0)")))
    assert not isinstance(e, CuteVerifyError) and e == 4


def _sub_at(layout, path):
    shape, stride = layout.shape, layout.stride
    for i in path:
        if type(shape) is not tuple:
            break
        shape, stride = shape[i], stride[i]
    return cv.Layout(shape, stride)


def test_coordinate_right_operand_sweep():
    r = random.Random(17)
    done = 0
    for _ in range(300):
        s = (r.choice([2, 4, 3]), (r.choice([2, 4]), r.choice([2, 3])))
        d = (r.choice([1, 6, 8, 12]), (r.choice([1, 2, 3]), r.choice([4, 8, 24])))
        A = cv.Layout(s, d)
        k = r.randint(1, 2)
        paths = [r.choice([(0,), (1,), (1, 0), (1, 1)]) for _ in range(k)]
        bs = tuple(r.choice([1, 2, 3, 4]) for _ in range(k))
        bd = tuple(ScaledBasis(r.choice([1, 1, 2]), p) for p in paths)
        B = cv.Layout(bs if k > 1 else bs[0], bd if k > 1 else bd[0])
        R = refuses(lambda: cv.composition(A, B))
        if isinstance(R, CuteVerifyError):
            continue
        done += 1
        well_formed(R)
        for i in range(ev_size(B)):
            digits = _digits(i, list(bs))
            at: dict = {}
            for j in range(k):
                at[bd[j].path] = at.get(bd[j].path, 0) + digits[j] * bd[j].value
            want = sum(ev(_sub_at(A, p), x) for p, x in at.items())
            assert ev(R, i) == want, (A, B, R, i)
    assert done > 150


# --- negative strides ---------------------------------------------------------------------------------------

def test_negative_strides_cpp():
    assert cv.cosize(P("4:-1")) == 4 and cv.cosize(P("(4,2):(-3,4)")) == 14  # CuTe C++
    for a, b, want in [("(4):(1)", "(4):(-1)", "(4):(-1)"), ("(4):(-1)", "(4):(-1)", "(4):(1)"),
                       ("(4,4):(-1,1)", "(2,4,2):(1,2,8)", "(2,(2,2),2):(-1,(-2,1),2)"),
                       ("(1,(2,4)):(0,(-1,512))", "2:-1", "2:1"),
                       ("(1,(2,4)):(0,(-1,512))", "4:-1", "(2,2):(1,-512)")]:  # CUTLASS composition.cpp
        R = cv.composition(P(a), P(b))
        assert str(R) == want
        assert all(ev(R, i) == ev(P(a), ev(P(b), i)) for i in range(ev_size(R)))


def test_negative_strides_sweep():
    r = random.Random(23)
    done = 0
    for _ in range(400):
        A = _rand_int_layout(r)
        A = cv.Layout(A.shape, tuple(-x if r.random() < 0.3 else x for x in A.stride)
                      if type(A.stride) is tuple else A.stride)
        B = _rand_int_layout(r, 2)
        sign = r.choice([1, -1, 0])
        flip = (lambda x: -x) if sign < 0 else (lambda x: x if sign else (-x if r.random() < 0.5 else x))
        B = cv.Layout(B.shape, tuple(flip(x) for x in B.stride) if type(B.stride) is tuple else flip(B.stride))
        R = refuses(lambda: cv.composition(A, B))
        if isinstance(R, CuteVerifyError):
            continue
        done += 1
        well_formed(R)
        assert [ev(R, i) for i in range(ev_size(B))] == [ev(A, ev(B, i)) for i in range(ev_size(B))], (A, B, R)
    assert done > 150
