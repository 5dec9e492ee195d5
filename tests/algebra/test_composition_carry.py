"""Composition over a right layout whose leaves overlap (issue 25): CuTe composes leaf by leaf, and the result
is ``A o B`` exactly when the leaves, added, never carry from one mode of the coalesced left layout into the
next. The expected layouts are CuTe C++'s answers (the committed corpus, or g++ on the CUTLASS headers);
values are checked with the evaluator of tests/oracles/strategies.py, independent of cuteverify."""
import re

import pytest

import cuteverify as cv
from strategies import ev, flat, holds, parse_plain, values

P = cv.parse


def _lay(L):
    return parse_plain(str(L))


@pytest.mark.parametrize("a,b,cpp", [
    # the leaves 2:8, 4:8 overlap ([8,16) and [8,32)) but only reach A's last mode: no carry
    ("(2,(4,4)):(4,(1,8))", "((4,2),(4,2)):((0,8),(8,32))", "((4,2),(4,2)):((0,8),(8,32))"),
    # 2:6 lies inside A's first mode (6 < 16), 6 does not divide 16: CuTe's ceil rule, no divisibility needed
    ("(16,8):(8,1)", "(6,2):(1,6)", "(6,2):(8,48)"),
    ("(8,2):(1,1)", "(2,4):(1,1)", "(2,4):(1,1)"),
    ("(4,2):(0,1)", "(16,4):(4,2)", "(16,(2,2)):(1,(0,1))"),
    # a stride-0 mode of A hides its digit: 6:3 steps through 8:0 without dividing it, and CuTe is right
    ("(8,6):(0,16)", "6:3", "(3,2):(0,16)"),
])
def test_overlapping_leaves_compose_as_cute(a, b, cpp):
    R = cv.composition(P(a), P(b))
    assert str(R) == cpp
    assert holds("composition", [a, b], _lay(R)) is True


@pytest.mark.parametrize("a,b", [
    ("(5,4):(1,10)", "(3,2):(1,3)"),      # 2 + 3 >= 5: B(2,1) = 5 carries into A's second mode
    ("(4,8):(1,5)", "(2,2):(2,3)"),       # 2 + 3 >= 4
    ("(3,5):(1,16)", "(2,2):(1,2)"),      # raked_product(4:3, ...)'s complement o B
])
def test_a_carry_is_refused_with_a_coordinate_where_the_leaves_disagree(a, b):
    with pytest.raises(cv.NotAdmissibleError, match="carry") as e:
        cv.composition(P(a), P(b))
    m = re.search(r"leaf coordinates \(([\d,]*)\) A\(B\(c\)\) = (-?\d+) but the leaves composed one by one give "
                  r"(-?\d+)", str(e.value))
    assert m, str(e.value)
    A, B = parse_plain(a), parse_plain(b)
    c = [int(x) for x in m.group(1).split(",")]
    vals = [x * d for x, d in zip(c, flat(B[1]))]
    whole, parts = ev(A, sum(vals)), sum(ev(A, v) for v in vals)
    assert (whole, parts) == (int(m.group(2)), int(m.group(3))) and whole != parts


def test_cute_ceil_rule_past_one_mode_is_refused():
    # C++ takes ceil(6/4) = 2 elements of the mode 6:1 and gives (2,2):(4,100); but A(B(2)) = A(8) = 102
    A, B = parse_plain("(6,4):(1,100)"), parse_plain("4:4")
    assert ev(A, ev(B, 2)) == 102 and ev(parse_plain("(2,2):(4,100)"), 2) == 100
    with pytest.raises(cv.NotAdmissibleError, match="stride divisibility"):
        cv.composition(P("(6,4):(1,100)"), P("4:4"))


def test_blocked_product_repeats_mode_by_mode_as_cute():
    # g++ on the CUTLASS headers: blocked_product(Layout<_4,_3>, Layout<Shape<_2,_2>,Stride<_2,_1>>) is
    # ((_4,_2),(_1,_2)):((_3,_2),(_0,_1)), raked_product ((_2,_4),(_2,_1)):((_2,_3),(_1,_0)); the complement
    # (3,2):(1,12) o (2,2):(2,1) carries (2 + 1 >= 3), so the copies of the block overlap, as in C++
    Rb = cv.blocked_product(P("4:3"), P("(2,2):(2,1)"))
    Rr = cv.raked_product(P("4:3"), P("(2,2):(2,1)"))
    assert str(Rb) == "((4,2),(1,2)):((3,2),(0,1))"
    assert Rr.values() == values(parse_plain("((2,4),(2,1)):((2,3),(1,0))"))  # printed coalesced, as CuTe DSL
    assert holds("blocked_product", ["4:3", "(2,2):(2,1)"], _lay(Rb)) is True
    assert any("one by one" in n.text for n in Rb.notes)
    # logical_product's post-condition is (A, complement o B) as one function: no layout of B's shape is it
    with pytest.raises(cv.NotAdmissibleError, match="carry"):
        cv.logical_product(P("4:3"), P("(2,2):(2,1)"))
