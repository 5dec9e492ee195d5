"""General composed layouts (issue 26 part 3): CuTe's ``ComposedLayout<A, offset, B>`` with any layout as the
outer function ``A``, ``c -> A(offset + B(c))``, A read on its extended domain as CuTe reads it.

Parse/print round trips, evaluation against an evaluator written here (it reads the printed text and shares
no code with cuteverify), the algebra's post-conditions, CuTe IR's cases (NVIDIA/cutlass,
``cutlass_compiler/cute_ir/test``, each with its file) and the prover's verdicts.
"""
import random

import pytest

import cuteverify as cv
from cuteverify.errors import NotAdmissibleError, ParseError
from cuteverify.prover import tables
from cuteverify.prover.forms import reduce_composed

from strategies import ev, parse_plain, rand_layout, size_of

P = cv.parse
IR = "cutlass_compiler/cute_ir/test/"


# --- an independent evaluator of printed composed layouts ---------------------------------------------------
# ``F0 o off0 o F1 o off1 o ... o L``: each F a plain layout or ``S<B,M,S>``, each offset an integer

def _swizzle(text):
    b, m, s = (int(x) for x in text[2:-1].split(","))

    def f(x):
        y = ((1 << b) - 1) << (m + max(s, 0))
        return x ^ ((x & y) >> s) if s >= 0 else x ^ ((x & y) << -s)
    return f


def _fn(text):
    if text.startswith("S<"):
        return _swizzle(text)
    lay = parse_plain(text)
    assert lay is not None, text
    return lambda x: ev(lay, x)


def composed_ev(text, i):
    parts = text.split(" o ")
    v = ev(parse_plain(parts[-1]), i)
    for k in range(len(parts) - 3, -1, -2):
        v = _fn(parts[k])(int(parts[k + 1]) + v)
    return v


def composed_size(text):
    return size_of(parse_plain(text.split(" o ")[-1]))


def composed_values(text):
    return [composed_ev(text, i) for i in range(composed_size(text))]


def any_ev(text, i):
    return composed_ev(text, i) if " o " in text else ev(parse_plain(text), i)


# --- parse and print ------------------------------------------------------------------------------------------

ROUND_TRIP = [
    "(2,3):(3,1) o 2 o (3,4):(4,1)",  # issue 26's example (CuTe IR blocked_product.mlir)
    "(4,5):(1,4) o 2 o (2,3):(1,2)",  # IR Dialect/Cute/Types/composed_layout.mlir @layout_a
    "(4,5):(1,4) o (0,0) o (2,3):(1@0,1@1)",  # ... @tuple_offset
    "((2,3),4):((1@0@0,1@1@0),1@1) o ((0,0),0) o ((2,3),4):((1@0@0,1@1@0),1@1)",  # ... @hierarchical_basis_uniform
    "((8,8,1,1),(64,3,3,3)):((1@0@1,1@1@1,1@2@1,1@2),(1@0,1@0@3,1@1@3,1@2@3)) o (0,(0,0,0,0)) o "
    "(64,(64,3,3,3)):(1@0,(1@0@1,1@1@1,1@2@1,1@3@1))",  # ... @complex_fixture
    "(6,2):(1,3) o (2,1) o (2,3):(1@1,2@0)",  # IR SizeIndex/layout_eval.mlir
    "(20):(3) o 2 o (20):(3)",
    "(4,5):(1,4) o 2 o S<3,4,3> o 0 o (8,8):(8,1)",  # chains, printed as CuTe prints them
    "S<3,4,3> o 0 o (64,64):(64,1) o 1 o (8,8):(8,1)",
    "(8,8):(^1,^9) o 0 o 64:1",  # an F2 outer function
    "(M,8):(1,M) o 0 o (4,2):(1,4)",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_round_trip(text):
    L = P(text)
    assert str(L) == text
    assert str(P(str(L))) == text


def test_cpp_print_and_dynamic_offsets():
    assert str(P("(_4,_5):(_1,_4) o _2 o (_2,_3):(_1,_2)")) == "(4,5):(1,4) o 2 o (2,3):(1,2)"
    L = P("(?):(?) o ? o (5,4):(4,1)")  # IR blocked_product.mlir, dynamic outer function and offset
    assert len(L.free_symbols()) == 3
    assert P("(4,5):(1,4) o (2) o 6:1").offset == 2  # a rank-1 offset is its integer


@pytest.mark.parametrize("text, where", [
    ("(4,5):(1,4) o 2 o (2,3):(1@0,1@1)", 15),  # an integer offset cannot be added to coordinates
    ("(4,5):(1,4) o (1,0) o (2,3):(1,2)", 15),  # nor a coordinate to integers
    ("S<3,4,3> o (0,0) o (2,3):(1@0,1@1)", 12),  # a swizzle reads integers
    ("(4,5):(1,4) o 1@0 o 4:1", 15),
    ("(4,5):(1,4) o 2 o", 18),
])
def test_bad_composed_text_is_a_parse_error(text, where):
    with pytest.raises(ParseError) as e:
        P(text)
    assert e.value.column == where


# --- evaluation -----------------------------------------------------------------------------------------------

def _random_composed(rng, chain=1):
    text = str(rand_layout(rng, max_size=256))
    for _ in range(chain):
        outer = str(rand_layout(rng, max_size=64)) if rng.random() < 0.8 else \
            f"S<{rng.randint(1, 2)},{rng.randint(0, 2)},{rng.randint(2, 3)}>"
        text = f"{outer} o {rng.randint(0, 5)} o {text}"
    return text


def test_evaluation_against_an_independent_evaluator():
    rng = random.Random(26)
    for k in range(300):
        text = _random_composed(rng, chain=1 + k % 3)
        L = P(text)
        assert str(L) == text
        want = composed_values(text)
        assert [int(v) for v in L.values()] == want, text
        assert [int(L(i)) for i in range(len(want))] == want, text


@pytest.mark.differential
def test_cute_ir_layout_eval():
    # IR Conversion/CuteExpandOps/SizeIndex/layout_eval.mlir: (20):(3) o 2 o (20):(3) at (4) is 42
    assert P("(20):(3) o 2 o (20):(3)")(4) == 42
    # ... and with coordinate values: (6,2):(1,3) o (2,1) o (2,3):(1@1,2@0) at 3 is 10
    L = P("(6,2):(1,3) o (2,1) o (2,3):(1@1,2@0)")
    assert L(3) == 10
    # B(i0, i1) = (2*i1, i0), plus (2,1), read by A = x + 3*y
    assert L.values() == [(2 + 2 * (i // 2)) + 3 * (1 + i % 2) for i in range(6)]


def test_outer_function_read_on_its_extended_domain():
    # A = (2,3):(3,1) has 6 values; B + 2 reaches 13, which CuTe reads as the coordinate (1, 6)
    L = P("(2,3):(3,1) o 2 o (3,4):(4,1)")
    assert L(11) == 1 * 3 + 6 * 1 == composed_ev(str(L), 11)


# --- the algebra: CuTe IR's cases ------------------------------------------------------------------------------

@pytest.mark.differential
def test_cute_ir_blocked_product():
    # IR Dialect/Cute/TilingPartitioningProducts/blocked_product.mlir @CG_TEST_blocked_product_composed
    R = cv.blocked_product("(2,3):(3,1) o 2 o (3,4):(4,1)", "(2,5):(1,2)")
    assert str(R) == "(2,3):(3,1) o 2 o ((3,2),(4,5)):((4,12),(1,24))"


@pytest.mark.differential
def test_cute_ir_coalesce():
    # IR Dialect/Cute/LayoutAlgebra/coalesce.mlir @composed_layout_no_profile and
    # Transforms/CuteFoldStatic/fold_layout_algebra.mlir @fold_coalesce_composed_layout
    text = "(4,5):(1,4) o 2 o (4,5):(1,4)"
    R = cv.coalesce(text)
    assert str(R) == "(4,5):(1,4) o 2 o 20:1"
    assert composed_values(str(R)) == composed_values(text)


@pytest.mark.differential
@pytest.mark.parametrize("rhs, want", [
    ("(2,3):(1,2)", "(4,5):(1,4) o 2 o (2,3):(1,2)"),  # LayoutAlgebra/composition.mlir @composed_layout_layout
    ((2, 3), "(4,5):(1,4) o 2 o (2,3):(1,2)"),  # ... @composed_layout_shape
    ("<(2,3):(1,2)>", "(4,5):(1,4) o 2 o ((2,3)):((1,2))"),  # ... @composed_layout_tile
])
def test_cute_ir_composition(rhs, want):
    assert str(cv.composition(P("(4,5):(1,4) o 2 o (2,3):(1,2)"), rhs)) == want


@pytest.mark.differential
def test_cute_ir_recast():
    # IR Transforms/CuteFoldStatic/fold_layout_algebra.mlir @fold_recast_layout_composed_layout:
    # recast_layout<32, 16> (new bits, old bits) is upcast by 2
    text = "(4,5):(1,4) o 2 o (8,4):(1,8)"
    U = cv.recast(text, 16, 32)
    assert str(U) == str(cv.upcast(text, 2)) == "(2,5):(1,2) o 1 o (4,4):(1,4)"
    # post-condition: each unit of 2 elements, along B's stride-1 mode, is one element of U
    for i in range(32):
        j = (i % 8) // 2 + 4 * (i // 8)
        assert composed_ev(text, i) == 2 * composed_ev(str(U), j) + i % 2
    D = cv.downcast(text, 2)
    assert str(D) == "(8,5):(1,8) o 4 o (16,4):(1,16)"
    for i in range(64):
        j = (i % 16) // 2 + 8 * (i // 16)
        assert composed_ev(str(D), i) == 2 * composed_ev(text, j) + i % 2


def test_recast_refuses_a_split_unit():
    # A = (2,3):(3,1) does not keep two consecutive indices together: no layout reads it in pairs
    with pytest.raises(NotAdmissibleError, match="units"):
        cv.upcast("(2,3):(3,1) o 2 o (3,4):(4,1)", 2)
    with pytest.raises(NotAdmissibleError, match="multiple of 2"):
        cv.upcast("(4,5):(1,4) o 1 o (8,4):(1,8)", 2)


@pytest.mark.differential
def test_cute_ir_slice():
    # IR Transforms/CuteFoldStatic/fold_layout_algebra.mlir @fold_slice_composed_layout: CuTe IR prints the
    # rank-1 result (3):(4), cuteverify 3:4 (DSL's form, the same function)
    text = "(4,5):(1,4) o 2 o (4,3):(1,4)"
    sub, off = cv.slice_and_offset(P(text), (0, None))
    assert str(sub) == "(4,5):(1,4) o 2 o 3:4" and off == 0
    sub, off = cv.slice_and_offset(P(text), (None, 1))
    for r in range(4):
        assert composed_ev(text, r + 4 * 1) == composed_ev(str(sub), r) + off


# --- the algebra: post-conditions on random general composed layouts ------------------------------------------

def _cases(n, seed):
    rng = random.Random(seed)
    return [(_random_composed(rng), rng) for _ in range(n)]


def test_post_coalesce_filter_and_slices():
    for text, rng in _cases(150, 1):
        L = P(text)
        R = cv.coalesce(L)
        assert composed_values(str(R)) == composed_values(text)
        fl = cv.filter(L)
        assert set(composed_values(str(fl))) == set(composed_values(text))
        shape = L.shape if type(L.shape) is tuple else (L.shape,)
        if len(shape) > 1:
            crd = tuple(None if k == 0 else 0 for k in range(len(shape)))
            sub, off = cv.slice_and_offset(L, crd if type(L.shape) is tuple else crd[0])
            n0 = size_of((shape[0], shape[0]))
            for r in range(n0):
                assert L(r) == sub(r) + off


def test_post_composition_divides_products():
    for text, rng in _cases(150, 2):
        L = P(text)
        n = composed_size(text)
        T = f"{rng.choice([d for d in (1, 2, 3, 4, 6) if n % d == 0])}:1"
        try:
            R = cv.composition(L, P(T))
        except NotAdmissibleError:
            continue
        for c in range(composed_size(str(R))):
            assert composed_ev(str(R), c) == composed_ev(text, ev(parse_plain(T), c)), (text, T)
        try:
            D = cv.logical_divide(L, T)
        except NotAdmissibleError:
            continue
        # a permutation of L's domain whose first tile is L o T
        assert sorted(composed_values(str(D))) == sorted(composed_values(text))
        for c in range(composed_size(str(R))):
            assert composed_ev(str(D), c) == composed_ev(text, ev(parse_plain(T), c))


def test_post_products_keep_the_outer_function():
    for text, rng in _cases(100, 3):
        L = P(text)
        try:
            B = cv.blocked_product(L, "(2,3):(1,2)")
        except NotAdmissibleError:
            continue
        # CuTe: A o off o (L's inner layout x T); the first block is L itself
        assert B.inner == L.inner and B.offset == L.offset
        assert composed_size(str(B)) == 6 * composed_size(text)
        if type(L.shape) is tuple and len(L.shape) == 2:
            sub, off = cv.slice_and_offset(B, ((None, 0), (None, 0)))
            assert [sub(i) + off for i in range(composed_size(text))] == composed_values(text)


def test_composition_of_a_layout_with_a_general_composed_layout():
    # CuTe: A o (F o 0 o L) is (A o F) o L (a plain layout); offset 0 is required
    text = "(4,3):(3,1) o 0 o (3,4):(4,1)"
    R = cv.composition(P("12:2"), P(text))
    assert " o " not in str(R)
    assert [ev(parse_plain(str(R)), i) for i in range(12)] == [2 * v for v in composed_values(text)]
    with pytest.raises(NotAdmissibleError, match="offset 0"):
        cv.composition(P("12:2"), P("(4,3):(3,1) o 1 o (3,4):(4,1)"))


@pytest.mark.parametrize("text", ["(6,2):(2,1) o 0 o (3,4):(4,1)", "(4,3):(3,1) o 0 o (12):(1)",
                                  "(12):(1) o 0 o (3,4):(4,1)", "(2,3):(0,1) o 0 o 6:1",
                                  "(4,5):(1,4) o 2 o (2,3):(1,2)"])
def test_inverses_post_conditions(text):
    n = composed_size(text)
    vals = composed_values(text)
    try:
        R = cv.right_inverse(text)
    except NotAdmissibleError as e:
        assert "is not a right inverse" in str(e)
    else:
        for i in range(composed_size(str(R))):
            j = any_ev(str(R), i)
            assert 0 <= j < n and vals[j] == i
    Linv = cv.left_inverse(text)
    for i in range(n):
        assert vals[any_ev(str(Linv), vals[i])] == vals[i]


def test_right_inverse_with_an_offset_is_refused_naming_it():
    with pytest.raises(NotAdmissibleError, match="not a right inverse"):
        cv.right_inverse("(4,5):(1,4) o 2 o (2,3):(1,2)")


def test_refusals_name_the_composed_case():
    with pytest.raises(NotAdmissibleError, match="composed"):
        cv.complement("(4,5):(1,4) o 2 o (2,3):(1,2)", 24)
    with pytest.raises(NotAdmissibleError, match="swizzled layouts only"):
        cv.max_common_vector("(4,5):(1,4) o 0 o (2,3):(1,2)", "6:1")


def test_swizzle_chain_keeps_swizzle_semantics():
    text = "(8,8):(8,1) o 0 o S<3,0,3> o 0 o (64):(1)"
    assert composed_values(text) == P(text).values()
    T = cv.tile_to_shape(text, (128,))  # a chain: the algebra acts on the innermost layout, as CuTe's
    assert str(T) == "(8,8):(8,1) o 0 o S<3,0,3> o 0 o ((64,2)):((1,64))"
    assert T.values()[:64] == composed_values(text)


# --- the prover ------------------------------------------------------------------------------------------------

def test_non_injective_outer_function_is_refuted_with_a_witness():
    text = "(2,3):(0,1) o 0 o 6:1"  # A repeats every value twice
    v = cv.is_injective(text)
    assert v.status == "refuted"
    i, j = v.counterexample.coords
    assert i != j and composed_ev(text, i) == composed_ev(text, j)
    text = "(2,3):(3,1) o 2 o (3,4):(4,1)"  # injective A, but B + 2 leaves A's domain: CuTe reads it extended
    v = cv.is_injective(text)
    i, j = v.counterexample.coords
    assert v.status == "refuted" and composed_ev(text, i) == composed_ev(text, j)


def test_verdicts_agree_with_the_value_table():
    rng = random.Random(7)
    for _ in range(120):
        text = _random_composed(rng, chain=rng.randint(1, 2))
        vals = composed_values(text)
        inj = len(set(vals)) == len(vals)
        bij = sorted(vals) == list(range(len(vals)))
        v = cv.is_injective(text)
        assert v.status == ("proved" if inj else "refuted"), text
        assert cv.is_bijective(text).status == ("proved" if bij else "refuted"), text


def test_equal_relates_composed_and_plain_layouts():
    assert cv.are_equal("(4,5):(1,4) o 2 o (2,3):(1,2)", "(2,3):(1,2) o 2 o 6:1").status == "proved"
    v = cv.are_equal("(2,3):(3,1) o 0 o (6):(1)", "(2,3):(2,1)")
    assert v.status == "refuted"
    i = v.counterexample.coords[0]
    assert composed_ev("(2,3):(3,1) o 0 o 6:1", i) != ev(((2, 3), (2, 1)), i)
    assert cv.are_equal("(2,3):(3,1) o 0 o (6):(1)", "(2,3):(3,1)").status == "proved"


def test_past_the_enumeration_budget_a_reducible_layout_is_decided(monkeypatch):
    monkeypatch.setattr(tables, "COMPOSED_ENUM_LIMIT", 4)
    # offset 0: A o B is one layout, composition's post-condition makes it the same function
    assert cv.is_bijective("(4,3):(3,1) o 0 o (12):(1)").status == "proved"
    v = cv.is_injective("(2,3):(0,1) o 0 o 6:1")
    assert v.status == "refuted"
    # no reduction (a carry in A o B, or an offset): unknown, never a guess
    assert cv.is_bijective("(6,2):(2,1) o 0 o (3,4):(4,1)").status == "unknown"
    assert cv.is_injective("(2,3):(0,1) o 1 o 6:1").status == "unknown"


def test_symbolic_composed_layouts():
    # structural rules apply where A o 0 o B reduces to one layout without obligations
    v = cv.is_bijective("(M,8):(1,M) o 0 o (M,8):(8,1)")
    assert v.status == "proved" and "symbolic" in v.method
    # a broadcasting outer function: refuted at a sampled value, the witness re-checked
    v = cv.is_injective("(M,8):(0,M) o 0 o (M,8):(1,M)")
    assert v.status == "refuted" and v.counterexample.assignment
    # finite symbols: every assignment, through the outer function's symbols too
    assert cv.is_bijective("(M,8):(1,M) o 0 o S<1,0,1> o 0 o (M,8):(1,M)",
                           assume=["M in {2,4}"]).status == "proved"
    # an offset: nothing structural holds; not proved
    assert cv.is_injective("(M,8):(1,M) o 3 o (M,8):(1,M)").status != "proved"


def test_reduction_is_the_same_function():
    """The prover's reduction past the budget (``A o 0 o B`` as ``composition(A, B)``) must be the function
    the composed layout is, at every index: checked against the independent evaluator."""
    rng = random.Random(11)
    reduced = 0
    for _ in range(400):
        text = _random_composed(rng, chain=rng.randint(1, 2))
        parts = text.split(" o ")
        text = " o ".join(p if k % 2 == 0 else "0" for k, p in enumerate(parts))
        R = reduce_composed(P(text))
        if R is None:
            continue
        reduced += 1
        assert [int(v) for v in R.values()] == composed_values(text), (text, str(R))
    assert reduced > 100


def test_composition_of_a_swizzle_object_and_bad_first_arguments():
    """``composition(Swizzle, L)`` is CuTe's ``Sw o 0 o L`` (as the text ``why`` suggests reads); a first
    argument that is no layout is an input error naming it, never an AttributeError (issue 27's review)."""
    L = cv.parse("(8,64):(64,1)")
    C = cv.composition(cv.Swizzle(3, 3, 3), L)
    assert C == cv.parse("S<3,3,3> o 0 o (8,64):(64,1)")
    for i in range(64 * 8):  # the swizzle on the layout's value, evaluated by hand
        v = (i // 8) * 1 + (i % 8) * 64
        assert C(i) == v ^ (((v >> 6) & 7) << 3)  # Swizzle<3,3,3>: bits 6..8 XORed into bits 3..5
    assert cv.coalesce((4, 8)) == cv.coalesce(cv.parse("(4,8)"))
    for bad in (object(), None, 2.5):
        with pytest.raises(cv.ParseError, match="layout"):
            cv.coalesce(bad)
        with pytest.raises(cv.ParseError, match="layout"):
            cv.left_inverse(bad)
