"""``as_layout``: the one "text or object -> layout" (core/notation/interop.py).

Each accepted form gives the layout ``parse`` gives for the same text, checked as a function by the
independent evaluator of ``tests/oracles/strategies.py`` (it reads printed layouts itself); bad input is a ParseError
naming the argument and the column; API functions across the packages take CuTe text wherever they take a
layout, and give what they give for the parsed layout.
"""
from __future__ import annotations

import pytest

import cuteverify as cv
from cuteverify.core.notation.interop import as_layout
from cuteverify.core.notation.parse import parse
from cuteverify.hardware.descriptors.smem_rules import infer_major
from strategies import parse_plain, values

PLAIN = "((2,2),(4,2)):((1,8),(2,16))"
SWIZZLED = "S<3,3,3> o 0 o (8,64):(64,1)"


def _same_function(L, text):
    """``L`` is the plain layout ``text`` denotes: the same values at every index (independent evaluator)."""
    ref = parse_plain(text)
    assert ref is not None, text
    assert L.values() == values(ref), (str(L), text)


@pytest.mark.parametrize("text,plain", [
    (PLAIN, PLAIN),
    ("((_2,_2),(_4,_2)):((_1,_8),(_2,_16))", PLAIN),  # CUTLASS C++ print
    ("(4,8)", "(4,8):(1,4)"),  # shape only: compact column-major
    ("(2,1,3)", "(2,1,3):(1,0,2)"),  # size-1 modes get stride 0, as CuTe's make_layout
    ('!cute.layout<"((2,2),(4,2)):((1,8),(2,16))">', PLAIN),  # CuTe IR's type text
    ("  ((2,2),(4,2)) : ((1,8),(2,16))  ", PLAIN),
])
def test_text_forms_are_parse(text, plain):
    L = as_layout(text)
    assert L == parse(text)
    _same_function(L, plain)


def test_swizzled_text_forms_are_parse():
    want = parse(SWIZZLED)
    for text in (SWIZZLED, "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
                 "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)",  # bytes of 16-bit elements
                 '!cute.composed_layout<"S<3,3,3> o 0 o (8,64):(64,1)">'):
        L = as_layout(text)
        assert L == want and str(L) == SWIZZLED, text
    # the swizzle as a function, evaluated without cuteverify: bits [6,9) xor-ed into bits [3,6)
    base = values(parse_plain("(8,64):(64,1)"))
    assert want.values() == [x ^ ((x >> 3) & 0b111000) for x in base]


def test_objects_and_shapes():
    L = parse(PLAIN)
    assert as_layout(L) is L
    C = parse(SWIZZLED)
    assert as_layout(C) is C
    assert as_layout((4, 8)) == parse("(4,8)") and as_layout([4, 8]) == parse("(4,8)")
    assert as_layout(8) == parse("8:1") and as_layout(1) == parse("1:0")
    assert as_layout(((2, 2), 4)) == parse("((2,2),4)")

    class DSLish:  # CuTe DSL's layout: .shape / .stride
        shape = ((2, 2), (4, 2))
        stride = ((1, 8), (2, 16))
    _same_function(as_layout(DSLish()), PLAIN)

    class Printed:  # an object known only by its printed CuTe text (dynamic DSL values)
        def __str__(self):
            return PLAIN
    assert as_layout(Printed()) == parse(PLAIN)

    class Sw:  # CuTe DSL's swizzle naming
        num_bits, num_base, num_shift = 3, 3, 3

    class DSLComposed:
        inner, offset, outer = Sw(), 0, parse("(8,64):(64,1)")
    assert as_layout(DSLComposed()) == C


def test_pycute_objects():
    pycute = pytest.importorskip("pycute")
    assert as_layout(pycute.Layout(((2, 2), (4, 2)), ((1, 8), (2, 16)))) == parse(PLAIN)
    c = pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((8, 64), (64, 1)))
    assert as_layout(c) == parse(SWIZZLED)


def test_assumptions():
    L = as_layout("(M,4):(1,M)", assume=["M >= 2"])
    assert L == parse("(M,4):(1,M)", ["M >= 2"]) and L.assumptions is not None
    bare = parse("(M,4):(1,M)")
    assert bare.assumptions is None
    given = as_layout(bare, assume=["M >= 2"])
    assert given.assumptions is not None and str(given) == str(bare)
    own = parse("(M,4):(1,M)", ["M >= 8"])
    assert as_layout(own, assume=["M >= 2"]) is own  # a layout's own assumptions are kept
    with pytest.raises(cv.ParseError, match="unknown name"):  # an assumption about no symbol of the text
        as_layout("(M,4):(1,M)", assume=["K >= 2"])


def test_tiler_text():
    t = as_layout("<3:3, _, (2,4):(1,8)>", tiler=True)
    assert t == (parse("3:3"), None, parse("(2,4):(1,8)"))
    with pytest.raises(cv.ParseError):  # without tiler=True, a tiler is no layout
        as_layout("<3:3, _>")


@pytest.mark.parametrize("text,column", [
    ("(4,8):(1,x", 11),  # the end of the text: the ')' is missing
    ("(4,8):(1,4))", 12),
    ("(4,8):(1,4) o", 14),
])
def test_bad_text_names_argument_and_column(text, column):
    with pytest.raises(cv.ParseError) as e:
        as_layout(text, "layout A")
    assert e.value.source == "layout A" and e.value.column == column, str(e.value)
    assert str(e.value).startswith(f"cannot parse layout A at column {column}")
    assert e.value.column == _parse_column(text)  # the same column the parser itself names


def _parse_column(text):
    with pytest.raises(cv.ParseError) as e:
        parse(text)
    return e.value.column


def test_bad_tiler_entry_column_is_in_the_whole_text():
    text = "<3:3, (2,4):(1,x>"
    with pytest.raises(cv.ParseError) as e:
        as_layout(text, "tiler B", tiler=True)
    assert e.value.source == "tiler B" and text[e.value.column - 1] == "x", str(e.value)


@pytest.mark.parametrize("bad", [None, True, object(), cv.Swizzle(3, 3, 3), (4, "a"),
                                 '!cute.shape<"(2,4)">'])
def test_unreadable_input_is_an_input_error(bad):
    with pytest.raises(cv.ParseError) as e:
        as_layout(bad, "layout B")
    assert e.value.source == "layout B" and e.value.kind == "input"


def test_shapes_false_refuses_shapes():
    with pytest.raises(cv.ParseError, match="got int"):
        as_layout(42, "CuTe layout", shapes=False)
    assert as_layout("42:1", shapes=False) == parse("42:1")


def test_one_function_object():
    assert cv.as_layout is as_layout
    from cuteverify.core import as_layout as core_as_layout
    assert core_as_layout is as_layout


# --- every API function that takes a layout takes its text: the same answer as for the parsed layout -----

TV = "((4,8),(2,2)):((32,1),(16,8))"


def _api():
    P = parse
    return [
        ("size", lambda x: cv.size(x), PLAIN),
        ("cosize", lambda x: cv.cosize(x), PLAIN),
        ("composition", lambda x: cv.composition(x, "(4,3):(3,1)"), "(6,2):(8,2)"),
        ("composition_rhs", lambda x: cv.composition(P("(6,2):(8,2)"), x), "(4,3):(3,1)"),
        ("logical_divide", lambda x: cv.logical_divide(x, "<3:3, (2,4):(1,8)>"), "(9,(4,8)):(59,(13,1))"),
        ("coalesce_mode", lambda x: cv.coalesce(x, mode=1), PLAIN),
        ("complement", lambda x: cv.complement(x, 64), "(2,4):(1,2)"),
        ("right_inverse", lambda x: cv.right_inverse(x), PLAIN),
        ("blocked_product", lambda x: cv.blocked_product(x, "(2,2):(1,2)"), "(4,8):(1,4)"),
        ("max_common_vector", lambda x: cv.max_common_vector(x, P(PLAIN)), PLAIN),
        ("is_bijective", lambda x: cv.is_bijective(x).status, PLAIN),
        ("are_equal", lambda x: cv.are_equal(x, P(PLAIN)).status, "(2,2,4,2):(1,8,2,16)"),
        ("complement_disjoint", lambda x: cv.complement_disjoint(x, 64).status, "(2,4):(1,2)"),
        ("prove_binding", lambda x: cv.prove("bijective(A)", A=x).status, PLAIN),
        ("local_tile", lambda x: cv.atoms.local_tile(x, (4, 8), (1, 2)), "(8,64):(64,1)"),
        ("local_tile_swizzled", lambda x: cv.atoms.local_tile(x, (4, 8), (1, 2)), SWIZZLED),
        ("make_layout_tv", lambda x: cv.make_layout_tv(x, "(1,8):(8,1)"), "(16,8):(8,1)"),
        ("bank_conflicts", lambda x: cv.banks.bank_conflicts(x, "(32,16):(16,1)").degree, SWIZZLED),
        ("bank_conflicts_access", lambda x: cv.banks.bank_conflicts(P(SWIZZLED), x).degree, "(32,16):(16,1)"),
        ("max_vector_width", lambda x: cv.banks.max_vector_width(x).width, TV),
        ("linear_form", lambda x: cv.linear_form(x), PLAIN),
        ("fold_modes", lambda x: cv.fold.fold_modes(x, [[0], [1]]), PLAIN),
        ("to_loop_nest", lambda x: cv.loops.to_loop_nest(x), PLAIN),
        ("to_linear_layout", lambda x: cv.to_linear_layout(x), "(4,8):(8,1)"),
        ("svg", lambda x: cv.draw.svg(x), SWIZZLED),
        ("infer_major", lambda x: infer_major(x), SWIZZLED),
        ("explain_smem_layout", lambda x: cv.explain_smem_layout(x, (8, 64), reads=["tma"]), SWIZZLED),
        ("tikz_tv", lambda x: cv.draw.tikz_tv(x, tile=(16, 8)), TV),
    ]


@pytest.mark.parametrize("name,fn,text", _api(), ids=[a[0] for a in _api()])
def test_api_takes_text(name, fn, text):
    assert str(fn(text)) == str(fn(parse(text)))


def test_api_text_errors_name_the_argument():
    with pytest.raises(cv.ParseError, match="cannot parse layout A at column"):
        cv.are_equal("(4,8):(1,", PLAIN)
    with pytest.raises(cv.ParseError, match="cannot parse smem layout"):
        cv.banks.bank_conflicts("(4,8):(1,", "(32,16):(16,1)")
