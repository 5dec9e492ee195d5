"""Regressions from an adversarial review of the coordinate (E<i>) algebra (docs/model.md section 3.4).

1. Composition with a coordinate layout whose trailing size-1 mode chains on its axis
   (``(2,1):(1@0,2@0) o 3:1``) was refused: the size-1 mode that carries the extended domain was kept beside
   the mode it extends, as the integer path (and CuTe's ``coalesce_x``) does not.
2. Products of a layout whose strides on some or all axes are ``0@i`` raised IndexError: the coprofile left
   out the axes of zero strides. A stride ``0@i`` names axis ``i`` (CuTe's coprofile is the profile of the sum
   of the strides); such an axis has image {0}, and its complement is the whole axis.

Facts: CuTe DSL 4.8.1, printed inside ``@cute.jit`` (layouts built with ``cute.E``). Post-conditions are
checked with the reader and evaluator of tests/algebra/test_coord_algebra.py, which share no code with cuteverify.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

import cuteverify as cv

from test_coord_algebra import coord_add, ev, flat, injective, key, norm, read, size_of, values


def axes_of(stride):
    """The coprofile's axes (normalized paths) of a printed stride, zero-valued bases included."""
    return {norm(d[2]) for d in flat(stride) if type(d) is tuple}


def as_key(v):
    return key(v) if type(v) is dict else (() if v == 0 else ("int", v))


def post_compose(A, B, R):
    """``R(c) == A(B(c))`` for ``c < size(B)``, A read on its extended domain (last leaf unbounded)."""
    Ar, Br, Rr = read(str(A)), read(str(B)), read(str(R))
    assert size_of(Rr[0]) == size_of(Br[0])
    for c in range(size_of(Br[0])):
        assert as_key(ev(Rr, c)) == as_key(ev(Ar, ev(Br, c))), (A, B, R, c)


def post_any_product(A, B, R):
    """R's values are ``size(B)`` translates of A's values (as a multiset), the translates on A's axes and, for
    an injective B, with pairwise disjoint images (copies of A do not overlap). A's strides are non-negative,
    so the colexicographically smallest value not yet accounted for is the next translate."""
    Ar, Br, Rr = read(str(A)), read(str(B)), read(str(R))
    assert size_of(Rr[0]) == size_of(Ar[0]) * size_of(Br[0]), (A, B, R)
    av = [v if type(v) is dict else {} for v in values(Ar)]
    rest = Counter(key(v if type(v) is dict else {}) for v in values(Rr))
    byk = {key(v if type(v) is dict else {}): (v if type(v) is dict else {}) for v in values(Rr)}
    offsets = []
    while rest:
        k = min(k for k in rest if rest[k])
        c = byk[k]
        offsets.append(c)
        for a in av:
            t = key(coord_add(a, c))
            assert rest[t] > 0, (A, B, R, c, a)
            rest[t] -= 1
            if rest[t] == 0:
                del rest[t]
    assert len(offsets) == size_of(Br[0]), (A, B, R)
    axes = axes_of(Ar[1])
    assert all(set(c) <= axes for c in offsets), (A, B, R, offsets)
    if injective(values(Br)):
        images = [{key(coord_add(a, c)) for a in av} for c in offsets]
        assert sum(map(len, images)) == len(set().union(*images)), (A, B, R)


# --- 1. composition with a trailing size-1 mode ------------------------------------------------------------

COMPOSE_DSL = [  # (A, B, CuTe DSL 4.8.1's composition, its logical_divide)
    ("(2,1):(1@0,2@0)", "3:1", "3:1@0", "(3,1):(1@0,0)"),
    ("((2,1),1):((1@0,2@0),2@0)", "3:1", "3:1@0", "(3,1):(1@0,0)"),
    ("(4,1):(1@1,4@1)", "(2,3):(1,2)", "(2,3):(1@1,2@1)", None),
]


@pytest.mark.parametrize("A,B,comp,div", COMPOSE_DSL)
def test_trailing_unit_mode_composes(A, B, comp, div):
    R = cv.composition(A, B)
    assert str(R) == comp
    post_compose(A, B, R)
    if div is not None:
        assert str(cv.logical_divide(A, B)) == div


@pytest.mark.parametrize("A", ["(2,1):(1@0,0)", "(2,1):(1@0,2@1)", "(2,1,1):(1@0,2@0,4@0)"])
def test_trailing_unit_mode_that_does_not_chain_is_refused(A):
    # its stride is A's value past the size (CuTe's extended domain), so 3:1@0 would be wrong at index 2;
    # CuTe DSL refuses these too (as the integer (2,1):(1,0) is refused)
    with pytest.raises(cv.NotAdmissibleError, match="shape divisibility"):
        cv.composition(A, "3:1")


def test_random_single_axis_compositions_match_the_integer_path():
    """A one-axis coordinate layout is the integer layout with the same values: the two paths agree on
    admissibility and on the values, size-1 modes anywhere."""
    rng = random.Random(2611)
    done = 0
    for _ in range(300):
        n = rng.randint(1, 4)
        shapes = [rng.choice([1, 1, 2, 3, 4]) for _ in range(n)]
        strides, cur = [], 1
        for s in shapes:
            v = rng.choice([cur, cur, cur * 2, rng.randint(0, 6)])
            strides.append(v)
            cur = max(cur, v * max(s, 1))
        ax = rng.choice(["@0", "@1", "@0@1"])
        ints = f"({','.join(map(str, shapes))}):({','.join(map(str, strides))})"
        coord = f"({','.join(map(str, shapes))}):({','.join(f'{v}{ax}' for v in strides)})"
        B = rng.choice(["3:1", "2:1", "4:1", "2:2", "(2,2):(1,2)", "6:1", "(3,2):(2,1)"])
        try:
            want = cv.composition(ints, B)
        except cv.NotAdmissibleError:
            with pytest.raises(cv.NotAdmissibleError):
                cv.composition(coord, B)
            continue
        R = cv.composition(coord, B)
        post_compose(coord, B, R)
        post_compose(ints, B, want)
        done += 1
    assert done > 150


# --- 2. products of layouts with 0@i strides ---------------------------------------------------------------

PRODUCT_DSL = [  # (op, A, B, CuTe DSL 4.8.1) -- one axis: cuteverify gives the same
    ("logical_product", "(2):(0@0)", "2:2", "((2),2):((0@0),2@0)"),
    ("logical_product", "(2):(0@0)", "4:1", "((2),4):((0@0),1@0)"),
    ("logical_product", "(2):(0@0)", "(2,3):(1,2)", "((2),(2,3)):((0@0),(1@0,2@0))"),
    ("zipped_product", "(2):(0@0)", "3:2", "((2),3):((0@0),2@0)"),
    ("blocked_product", "(2):(0@0)", "(2,3):(1,2)", "((2,2),(1,3)):((0@0,1@0),(0,2@0))"),
    ("raked_product", "(2):(0@0)", "(2,3):(1,2)", "((2,2),3):((1@0,0@0),2@0)"),
    ("raked_product", "(2):(0@0)", "4:1", "((4,2)):((1@0,0@0))"),
]

# Several axes: CuTe DSL stacks the copies along the first axis, cuteverify (CuTe IR's rule) along the last
# axis of the coprofile, here an axis of image {0}; both satisfy the post-condition.
PRODUCT_DSL_DIFFERS = [  # (op, A, B, CuTe DSL 4.8.1, cuteverify)
    ("blocked_product", "(2,2):(0@0,0@1)", "4:1", "((2,4),(2,1)):((0@0,1@0),(0@1,0))",
     "((2,4),(2,1)):((0@0,1@1),(0@1,0))"),
    ("logical_product", "(2,3):(1@0,0@1)", "4:1", "((2,3),4):((1@0,0@1),2@0)", "((2,3),4):((1@0,0@1),1@1)"),
]


@pytest.mark.parametrize("op,A,B,dsl", PRODUCT_DSL)
def test_zero_axis_products_match_dsl(op, A, B, dsl):
    R = getattr(cv, op)(A, B)
    assert str(R) == dsl
    post_any_product(A, B, R)


@pytest.mark.parametrize("op,A,B,dsl,ours", PRODUCT_DSL_DIFFERS)
def test_zero_axis_products_where_dsl_differs(op, A, B, dsl, ours):
    R = getattr(cv, op)(A, B)
    assert str(R) == ours
    post_any_product(A, B, R)
    post_any_product(A, B, cv.parse(dsl))  # the evaluator accepts DSL's answer too


def test_zero_axes_in_the_coprofile_match_dsl_inverses():
    # CuTe DSL 4.8.1: the axes of 0@i strides are axes of the codomain
    assert str(cv.right_inverse("(2,3):(1@0,0@2)")) == "(2,1,1):(1,0,0)"
    assert str(cv.left_inverse("(2,3):(1@0,0@2)")) == "(2,1,1):(1,0,0)"
    assert str(cv.right_inverse("(2):(0@0)")) == "(1):(0)"
    assert str(cv.complement("(2,2):(0@0,0@1)")) == "(1,1):(1@0,1@1)"  # DSL: the same with cotarget (1,1)


def _rand_zero_layout(rng):
    """A coordinate layout on 1-3 axes with stride-0 coordinate modes (some axes, or all, of image {0})."""
    n = rng.choice([1, 2, 2, 3])
    modes = []
    for a in range(n):
        path = rng.choice([f"@{a}", f"@{a}", f"@0@{a}"]) if a == n - 1 else f"@{a}"
        cur = 1
        for _ in range(rng.randint(1, 2)):
            s = rng.choice([1, 2, 3])
            v = 0 if rng.random() < 0.6 else cur
            modes.append((s, f"{v}{path}"))
            cur *= s if v else 1
    if rng.random() < 0.2:
        modes.append((2, "0"))
    rng.shuffle(modes)
    return f"({','.join(str(s) for s, _ in modes)}):({','.join(d for _, d in modes)})"


PRODUCTS = ["logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product",
            "raked_product"]


def test_random_products_with_zero_coordinate_strides():
    rng = random.Random(2612)
    done = 0
    for k in range(600):
        A = _rand_zero_layout(rng)
        s0, s1 = rng.choice([2, 3, 4]), rng.choice([1, 2, 3])
        B = rng.choice([f"{s0}:1", f"{s0}:2", f"({s0},{s1}):(1,{s0})", f"({s0},{s1}):({s1},1)", f"{s0}:0"])
        op = PRODUCTS[k % len(PRODUCTS)]
        try:
            R = getattr(cv, op)(A, B)
        except cv.NotAdmissibleError:
            continue
        post_any_product(A, B, R)
        if op == "logical_product":
            assert str(R[0]) == str(cv.parse(A))
        done += 1
    assert done > 500
