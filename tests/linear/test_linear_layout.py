"""LinearLayout: Triton's semantics (facts from triton-lang/triton include/triton/Tools/LinearLayout.h), checked
with the tests' own XOR-of-bases evaluator and by enumeration."""
import itertools
import random

import pytest

from cuteverify.errors import CuteVerifyError
from cuteverify.linear import LinearLayout, equal_function, same_ownership

LL = LinearLayout


def ev(ll, point):
    """The tests' evaluator: XOR of the bases of the set bits (bases read from the public ``bases``)."""
    n = len(ll.out_dims)
    out = [0] * n
    for dim, bs in ll.bases.items():
        x = point.get(dim, 0)
        for i, b in enumerate(bs):
            if x >> i & 1:
                out = [o ^ v for o, v in zip(out, b)]
    return tuple(out)


def points(ll):
    names = [n for n, _ in ll.in_dims]
    for vals in itertools.product(*(range(s) for _, s in ll.in_dims)):
        yield dict(zip(names, vals))


def rand_ll(rng, ins=("a", "b"), outs=("x", "y"), max_bits=3):
    osz = {o: 1 << rng.randint(0, 3) for o in outs}
    bases = {i: [tuple(rng.randrange(osz[o]) for o in outs) for _ in range(rng.randint(0, max_bits))] for i in ins}
    return LL(bases, osz)


def test_header_swizzle_example_table():
    # the 4x4 example of the header: L(t, w) = (t, w ^ t), bases L(1,0)=(1,1), L(2,0)=(2,2), L(0,1)=(0,1), ...
    ll = LL({"t": [(1, 1), (2, 2)], "w": [(0, 1), (0, 2)]}, {"x": 4, "y": 4})
    table = {(0, 3): (0, 3), (3, 0): (3, 3), (3, 3): (3, 0), (1, 2): (1, 3), (2, 1): (2, 3)}
    for (t, w), want in table.items():
        assert ll.apply(t=t, w=w) == want == ll({"t": t, "w": w})
    assert ll.apply(t=0) == (0, 0)


def test_header_1d_transpose_example():
    ll = LL({"x": [(4,), (8,), (1,), (2,)]}, {"y": 16})
    assert [ll(x=x)[0] for x in range(16)] == [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]
    assert ll.is_injective() and ll.is_surjective()


def test_constructors():
    assert LL.identity_1d(8, "i", "o").bases == {"i": [(1,), (2,), (4,)]}
    assert LL.zeros_1d(8, "i", "o").bases == {"i": [(0,)] * 3}
    assert LL.zeros_1d(8, "i", "o").out_dims == [("o", 1)]
    s = LL.strided_1d(4, 2, "i", "o")
    assert [s(i=x) for x in range(4)] == [(0,), (2,), (4,), (6,)] and s.out_dims == [("o", 8)]
    assert LL.empty().in_dims == [] and LL.empty().out_dims == []
    with pytest.raises(CuteVerifyError, match="not a power of two"):
        LL.identity_1d(6, "i", "o")


def test_operator_mul_documented_examples():
    i4, i2, i8 = (LL.identity_1d(n, "i", "o") for n in (4, 2, 8))
    assert i4 * i2 == i8
    m = i4 * LL.zeros_1d(2, "i", "o")
    assert [m(i=x) for x in range(8)] == [(x % 4,) for x in range(8)]
    m = LL.zeros_1d(2, "i", "o") * i4
    assert [m(i=x) for x in range(8)] == [(x // 2,) for x in range(8)]
    m = LL.identity_1d(4, "i", "o1") * LL.identity_1d(8, "i", "o2")
    assert m.out_dims == [("o1", 4), ("o2", 8)]
    assert all(m(i=x) == (x % 4, x // 4) for x in range(32))
    m = LL.identity_1d(4, "i1", "o1") * LL.identity_1d(8, "i2", "o2")
    assert m.in_dims == [("i1", 4), ("i2", 8)] and m.out_dims == [("o1", 4), ("o2", 8)]
    assert all(m(i1=a, i2=b) == (a, b) for a in range(4) for b in range(8))
    assert m * LL.empty() == m == LL.empty() * m


def test_operator_mul_associative_and_order_error():
    rng = random.Random(5)
    for _ in range(30):
        a, b, c = (rand_ll(rng) for _ in range(3))
        assert (a * b) * c == a * (b * c)
    ab = LL({"a": [], "b": []}, {"x": 1})
    ba = LL({"b": [], "a": []}, {"x": 1})
    with pytest.raises(CuteVerifyError, match="different orders"):
        ab * ba


def test_compose_invert_invert_and_compose_by_enumeration():
    rng = random.Random(7)
    done = 0
    for _ in range(300):
        a = rand_ll(rng, ins=("r", "l"), outs=("x", "y"))
        b = rand_ll(rng, ins=("x", "y"), outs=("m",))
        if all(s <= b.in_dim_size(n) for n, s in a.out_dims):
            c = a.compose(b)
            for p in points(a):
                va = dict(zip(a.out_dim_names, ev(a, p)))
                assert ev(c, p) == ev(b, va)
        sq = rand_ll(rng, ins=("r", "l"), outs=("x", "y"))
        if sq.is_invertible():
            inv = sq.invert()
            for p in points(sq):
                back = dict(zip(inv.out_dim_names, ev(inv, dict(zip(sq.out_dim_names, ev(sq, p))))))
                assert back == {n: p.get(n, 0) for n in sq.in_dim_names}
            done += 1
        outer = rand_ll(rng, ins=("o1", "o2"), outs=("x", "y"))
        if outer.is_surjective():
            a2 = LL(a.bases, outer.out_dims) if all(
                v < s for bs in a.bases.values() for b in bs for v, (_, s) in zip(b, outer.out_dims)) else None
            if a2 is None:
                continue
            c = a2.invert_and_compose(outer)
            for p in points(a2):
                assert ev(outer, dict(zip(c.out_dim_names, ev(c, p)))) == ev(a2, p)
            pi = outer.pseudo_invert()
            for y in points(pi):
                assert ev(outer, dict(zip(pi.out_dim_names, ev(pi, y)))) == tuple(y[n] for n in outer.out_dim_names)
    assert done > 10
    with pytest.raises(CuteVerifyError, match="not invertible"):
        LL.zeros_1d(2, "i", "o").invert()
    with pytest.raises(CuteVerifyError, match="not in the image"):
        LL({"i": [(1,)]}, {"o": 2}).invert_and_compose(LL({"j": [(0,)]}, {"o": 2}))


def test_reshape_transpose_flatten_sublayout():
    rng = random.Random(11)
    for _ in range(60):
        a = rand_ll(rng, ins=("p", "q", "r"), outs=("x", "y"))
        f = a.flatten_ins().flatten_outs()
        sizes = [s for _, s in a.in_dims]
        osz = [s for _, s in a.out_dims]
        for p in points(a):
            flat_in = p["p"] + sizes[0] * (p["q"] + sizes[1] * p["r"])
            v = ev(a, p)
            assert ev(f, {"p": flat_in}) == (v[0] + osz[0] * v[1],)
        t = a.transpose_ins(["r", "p", "q"]).transpose_outs(["y", "x"])
        assert t.in_dim_names == ["r", "p", "q"]
        assert all(ev(t, p) == ev(a, p)[::-1] for p in points(a))
        s = a.sublayout(["p", "r"], ["y"])
        assert s.in_dim_names == ["p", "r"] and s.out_dims == [("y", osz[1])]
        assert all(ev(s, p) == (ev(a, dict(p, q=0))[1],) for p in points(s))
        total = a.total_in_size()
        if total >= 2:
            r = a.reshape_ins([("u", 2), ("v", total // 2)])
            assert equal_function(r.reshape_ins([("p", total)]), a.flatten_ins())
            assert r.in_bases("u") == a.flatten_ins().in_bases("p")[:1]


def test_free_variable_masks_by_enumeration():
    rng = random.Random(13)
    for _ in range(80):
        a = rand_ll(rng, ins=("r", "l"), outs=("x",), max_bits=4)
        masks = a.get_free_variable_masks()
        # a bit is free iff its basis is a XOR of bases of earlier bits (in dim order): brute force spans
        earlier = {(0,)}
        for n, bs in a.bases.items():
            m = 0
            for i, b in enumerate(bs):
                if b in earlier:
                    m |= 1 << i
                earlier |= {tuple(x ^ y for x, y in zip(e, b)) for e in earlier}
            assert masks[n] == m
        assert a.is_injective() == all(m == 0 for m in masks.values())
        image = {ev(a, p) for p in points(a)}
        assert len(image) == 1 << a.rank()
        assert a.is_surjective() == (len(image) == a.total_out_size())


def test_printed_form_is_tritons():
    ll = LL({"register": [(0, 1), (8, 0)], "lane": [(1, 0)], "warp": []}, {"dim0": 16, "dim1": 8})
    assert str(ll) == (" - register=1 -> (0, 1)\n   register=2 -> (8, 0)\n - lane=1 -> (1, 0)\n"
                       " - warp is a size 1 dimension\nwhere out dims are: [dim0 (size 16), dim1 (size 8)]")
    assert str(LL.empty()) == "(empty layout)"
    assert eval(repr(ll), {"LinearLayout": LL}) == ll
    assert hash(ll) == hash(LL(list(ll.bases.items()), ll.out_dims))


@pytest.mark.parametrize("bases,outs,msg", [
    ({"i": [(1, 0)]}, {"o": 2}, "has 2 values, but there are 1 out dims"),
    ({"i": [(4,)]}, {"o": 4}, "not in \\[0, 4\\)"),
    ({"i": [(-1,)]}, {"o": 4}, "not in \\[0, 4\\)"),
    ({"i": [(1,)]}, {"o": 6}, "size 6, not a power of two"),
    ({"i": [(1,)]}, [("o", 2), ("o", 2)], "given twice"),
    ("junk", {"o": 2}, "pairs"),
])
def test_bad_input_is_named(bases, outs, msg):
    with pytest.raises(CuteVerifyError, match=msg):
        LL(bases, outs)


def test_apply_bad_input():
    ll = LL.identity_1d(4, "i", "o")
    with pytest.raises(CuteVerifyError, match="no in dim 'j'"):
        ll(j=1)
    with pytest.raises(CuteVerifyError, match="not in \\[0, 4\\)"):
        ll(i=4)


def test_equal_function_by_enumeration():
    rng = random.Random(17)
    diff = 0
    for _ in range(200):
        a = rand_ll(rng, ins=("r", "l"), outs=("x", "y"))
        b = LL(a.bases, a.out_dims)
        if rng.random() < 0.5:  # perturb one basis
            bs = a.bases
            n = rng.choice(["r", "l"])
            if bs[n]:
                i = rng.randrange(len(bs[n]))
                bs[n][i] = tuple(rng.randrange(s) for _, s in a.out_dims)
                b = LL(bs, a.out_dims)
        same = all(ev(a, p) == ev(b, p) for p in points(a))
        r = equal_function(a, b.transpose_ins(["l", "r"]).transpose_outs(["y", "x"]))
        assert bool(r) == same
        if not same:
            diff += 1
            p = r.witness["input"]
            assert ev(a, p) != ev(b, p)
    assert diff > 20
    assert not equal_function(LL.identity_1d(4, "i", "o"), LL.identity_1d(8, "i", "o"))


def _owned(ll, thread_dims):
    out = {}
    for p in points(ll):
        t = tuple(p[n] for n in ll.in_dim_names if n in thread_dims)
        out.setdefault(t, set()).add(ev(ll, p))
    return out


def test_same_ownership_by_enumeration():
    rng = random.Random(19)
    yes = no = 0
    for _ in range(400):
        a = rand_ll(rng, ins=("register", "lane"), outs=("dim0", "dim1"))
        if rng.random() < 0.5:
            # same ownership by construction: permute, duplicate or broadcast the registers, add an element of
            # the value span to a thread basis
            regs = list(a.bases["register"])
            rng.shuffle(regs)
            if regs and rng.random() < 0.5:
                regs.append(tuple(x ^ y for x, y in zip(regs[0], regs[-1])))
            if rng.random() < 0.3:
                regs.append((0, 0))
            lanes = [tuple(x ^ y for x, y in zip(l, regs[0])) if regs and rng.random() < 0.5 else l
                     for l in a.bases["lane"]]
            b = LL({"register": regs, "lane": lanes}, a.out_dims)
        else:
            def rnd(sizes=tuple(s for _, s in a.out_dims)):
                return tuple(rng.randrange(s) for s in sizes)
            b = LL({"register": [rnd() for _ in range(rng.randint(0, 3))], "lane": [rnd() for _ in a.bases["lane"]]},
                   a.out_dims)
        want = _owned(a, ("lane",)) == _owned(b, ("lane",))
        r = same_ownership(a, b, thread_dims=("lane",))
        assert bool(r) == want, (a, b, r)
        if want:
            yes += 1
        else:
            no += 1
            w = r.witness
            t = tuple(w["thread"].get("lane", 0) for _ in [0])
            e = tuple(w["element"][n] for n in ("dim0", "dim1"))
            held, other = (a, b) if w["held_by"] == "first" else (b, a)
            assert e in _owned(held, ("lane",))[t] and e not in _owned(other, ("lane",))[t]
    assert yes > 50 and no > 50


def test_same_ownership_refuses_unknown_dims():
    a = LL({"register": [(1,)], "foo": [(2,)]}, {"dim0": 4})
    with pytest.raises(CuteVerifyError, match="neither a thread dim"):
        same_ownership(a, a)


def test_inferred_sizes_concat_resize_and_zero_bases():
    # the header's example: L(in1=1) = (1, 0), L(in1=2) = (5, 1), L(in1=4) = (2, 2) infers out sizes 8 and 4
    ll = LL.with_inferred_sizes({"in1": [(1, 0), (5, 1), (2, 2)]}, ["out1", "out2"], require_surjective=False)
    assert ll.out_dims == [("out1", 8), ("out2", 4)]
    with pytest.raises(CuteVerifyError, match="not surjective"):
        LL.with_inferred_sizes({"in1": [(1, 0), (5, 1), (2, 2)]}, ["out1", "out2"])
    a, b = LL.identity_1d(4, "i", "o"), LL.zeros_1d(2, "j", "o", 4)
    c = a.concat_ins(b)
    assert all(ev(c, p) == ev(a, {"i": p["i"]}) for p in points(c))
    d = a.concat_outs(LL.strided_1d(4, 2, "i", "p"))
    assert all(ev(d, {"i": x}) == (x, 2 * x) for x in range(4))
    r = a.resize_in_dim("i", 16)
    assert all(ev(r, {"i": x}) == (x % 4,) for x in range(16))
    assert r.remove_zero_bases_along_dim("i") == a
    with pytest.raises(CuteVerifyError):
        a.concat_ins(a)


def test_num_consecutive_in_out():
    rng = random.Random(41)
    for _ in range(100):
        a = rand_ll(rng, ins=("register", "lane"), outs=("x", "y"), max_bits=3)
        # brute force: the largest V (power of two) with L(a*V + v) == L(a*V) + (v, 0, ...) for all a, v < V
        best = 1
        size = a.in_dim_size("register")
        for V in (1 << k for k in range(size.bit_length())):
            if V > size:
                break
            ok = all(ev(a, dict(p, register=(p["register"] // V) * V + v)) ==
                     tuple(x + (v if k == 0 else 0) for k, x in enumerate(ev(a, dict(p, register=(p["register"] // V) * V))))
                     for p in points(a) for v in range(V))
            if ok:
                best = V
        assert a.num_consecutive_in_out() <= best  # Triton's count is a safe under-estimate
    ll = LL({"register": [(1, 0), (2, 0), (0, 1)], "lane": [(4, 0)]}, {"x": 8, "y": 2})
    assert ll.num_consecutive_in_out() == 4
    ll = LL({"register": [(1, 0), (2, 0), (0, 1)], "lane": [(2, 1)]}, {"x": 8, "y": 2})
    assert ll.num_consecutive_in_out() == 2


def test_invert_and_compose_follows_tritons_choice():
    # Triton's broadcasting heuristic (LinearLayout.cpp): an in dim equal in both layouts maps to itself
    src = LL({"register": [(1, 0)], "lane": [(2, 0), (0, 1)], "warp": [(0, 0), (0, 0)]}, {"dim0": 4, "dim1": 2})
    dst = LL({"register": [(2, 0)], "lane": [(1, 0), (0, 1)], "warp": [(0, 0), (0, 0)]}, {"dim0": 4, "dim1": 2})
    c = src.invert_and_compose(dst)
    assert c.in_bases("warp") == ((0, 0, 1), (0, 0, 2)) and c.out_dim_names == ["register", "lane", "warp"]
    assert c.in_bases("register") == ((0, 1, 0),) and c.in_bases("lane") == ((1, 0, 0), (0, 2, 0))
    # least squares of minimal norm: a free (broadcast) column of the outer layout is never used
    outer = LL({"offset": [(0,), (1,), (2,)]}, {"dim0": 4})
    c = LL.identity_1d(4, "d", "dim0").invert_and_compose(outer)
    assert [c(d=x) for x in range(4)] == [(0,), (2,), (4,), (6,)]
    rng = random.Random(43)
    for _ in range(100):
        a = rand_ll(rng, ins=("register", "lane"), outs=("x",), max_bits=4)
        o = LL({"register": a.bases["register"], "warp": [tuple(rng.randrange(s) for _, s in a.out_dims)
                                                         for _ in range(3)], "lane": a.bases["lane"]}, a.out_dims)
        if not all(x < s for b in a.in_bases("lane") for x, (_, s) in zip(b, o.out_dims)) or not o.is_surjective():
            continue
        c = a.invert_and_compose(o)
        for p in points(a):
            assert ev(o, dict(zip(c.out_dim_names, ev(c, p)))) == ev(a, p)
        # the shared dims (same bases) map identically
        assert c.sublayout(["register"], ["register"]).in_bases("register") == \
            tuple((1 << i,) for i in range(a.num_bits("register")))
