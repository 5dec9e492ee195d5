"""Layouts, coordinates and notation (paper sections 2.1-2.4)."""
import pytest
from hypothesis import given, settings

import cuteverify as cv
from strategies import layouts

P = cv.parse


def test_paper_evaluation_example():
    L = P("((2,2),(4,2)):((1,8),(2,16))")
    assert L(22) == L(2, 5) == L(((0, 1), (1, 1))) == 26


@pytest.mark.parametrize("text,values", [
    ("(4,8):(1,4)", list(range(32))),
    ("(4,8):(8,1)", [m * 8 + n for n in range(8) for m in range(4)]),
    ("(4,8):(1,5)", [m + 5 * n for n in range(8) for m in range(4)]),
])
def test_figure3_layouts(text, values):
    assert P(text).values() == values


def test_figure3_blocked_broadcast_and_interleave():
    L = P("((2,2),(2,4)):((0,2),(0,4))")
    assert (L(1, 0), L(2, 0), L(3, 0), L(0, 1), L(0, 2), L(3, 7)) == (0, 2, 2, 0, 4, 14)
    I = P("(4,(4,2)):(4,(1,16))")
    assert I(1, 5) == 4 + 1 + 16


def test_figure2_coordinates():
    S = ((2, 3), 2)
    assert [cv.idx2crd(i, S) for i in range(12)][7] == ((1, 0), 1)
    assert cv.idx2crd(7, (6, 2)) == (1, 1)
    assert all(cv.crd2idx(cv.idx2crd(i, S), S) == i for i in range(12))
    assert cv.crd2crd((1, 1), (6, 2), S) == ((1, 0), 1)


def test_extended_domain():
    L = P("(2,3):(1,2)")
    assert L(7) == 7  # the last mode is not reduced
    assert cv.idx2crd(7, (2, 3)) == (1, 3)


def test_coordinate_strides_figure4():
    L = P("(4,(4,2)):(1@1,(1@0,6@1))")
    assert tuple(L(1, (2, 1))) == (2, 7)
    assert str(cv.make_identity_layout((4, 8))) == "(4,8):(1@0,1@1)"
    assert tuple(cv.make_identity_layout((4, 8))(5)) == (1, 1)


@pytest.mark.parametrize("text", [
    "((2,2),(4,2)):((1,8),(2,16))", "(4,8):(1@0,1@1)", "S<3,3,3> o 0 o (8,64):(64,1)", "12:1", "(1,4):(0,1)",
    "(M,N):(1,M)", "(M,(8,K)):(1,(M,8*M))", "(3,(2,4)):(236,(26,1))",
])
def test_print_parse_roundtrip(text):
    assert str(P(text)) == text
    assert str(P(str(P(text)))) == text


def test_cpp_and_shape_forms():
    assert str(P("(_4,_8):(_1,_4)")) == "(4,8):(1,4)"
    assert str(P("(4,8)")) == "(4,8):(1,4)"
    assert str(P("(1,4)")) == "(1,4):(0,1)"
    assert str(P("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")) == "S<3,3,3> o 0 o (8,64):(64,1)"
    assert str(P("(4,8):(_1@0,_1@1)")) == "(4,8):(1@0,1@1)"


@pytest.mark.parametrize("text,col", [
    ("(4,8):(1,4", 11), ("(4,8):(1,(4,2))", 7), ("(4,8)x", 6), ("(4,,8):(1,4)", 4), ("(0,8):(1,4)", 1),
    ("S<3,3,3> 0 o (8,64):(64,1)", 10), ("", 1), ("(4,8):(1.5,4)", 9),
])
def test_parse_errors_name_the_column(text, col):
    with pytest.raises(cv.ParseError) as e:
        P(text)
    assert e.value.column == col, str(e.value)


def test_swizzle_definition():
    sw = cv.Swizzle(3, 3, 3)
    for x in range(1 << 9):
        yyy = (x >> 6) & 7
        assert sw(x) == x ^ (yyy << 3)
    assert sorted(sw(x) for x in range(512)) == list(range(512))
    S = P("S<3,3,3> o 0 o (8,64):(64,1)")
    assert S(1, 0) == sw(64)


@given(layouts())
@settings(max_examples=200, deadline=None)
def test_values_match_pointwise_evaluation(L):
    vals = L.values()
    assert len(vals) == cv.size(L)
    assert all(vals[i] == L(i) == L(cv.idx2crd(i, L.shape)) for i in range(0, len(vals), max(1, len(vals) // 50)))


def test_size_cosize_rank_depth_and_sublayouts():
    L = P("((2,2),(4,2)):((1,8),(2,16))")
    assert (cv.size(L), cv.cosize(L), cv.rank(L), cv.depth(L)) == (32, 1 + 1 + 8 + 6 + 16, 2, 2)
    assert str(L[1]) == "(4,2):(2,16)"
    assert str(L[None, 1]) == "(2,2):(1,8)"
    assert cv.is_congruent(L, P("((1,1),(1,1)):((0,0),(0,0))"))
    assert cv.is_weakly_congruent(P("(32,4):(1,32)"), P("((4,8),4):((1,4),32)"))
    assert cv.compatible((4, 8), ((2, 2), (4, 2)))
    assert not cv.compatible((2, (3, 5)), ((3, 2), 5))


def test_not_congruent_layout_is_refused():
    with pytest.raises(cv.NotAdmissibleError):
        cv.Layout((4, 8), (1, (2, 3)))


def test_f2_strides_figure4c():
    """Paper Figure 4(c): strides in (Z, XOR, *) combine by XOR."""
    L = P("(4,(4,3)):(^1,(^5,^16))")
    assert str(L) == "(4,(4,3)):(^1,(^5,^16))"
    assert all(int(L(m, (a, b))) == (m * 1) ^ (a * 5) ^ (b * 16) for m in range(4) for a in range(4) for b in range(3))
    assert len({int(v) for v in L.values()}) == 48
