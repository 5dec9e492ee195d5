"""CuTe IR's lit tests (NVIDIA/cutlass ``cutlass_compiler/cute_ir/test``), ported as a differential oracle.

Data: tests/algebra/cute_ir/cases.json (regenerate with tests/algebra/cute_ir/gen_cases.py from a snapshot of the repository).

Static cases (no ``?`` in any type; the layout-algebra files, the ``cute-fold-static`` files, and the functions
of the ``*_errors.mlir`` files without a diagnostic): cuteverify reads the operands through ``cv.parse`` of the
``!cute.<kind><"...">`` text, runs the operation under its CuTe name, and its result must be the same function
as the result CuTe IR states, both evaluated at every index by tests/algebra/cute_ir/ireval.py (which shares no code
with cuteverify; it parses the printed forms itself). Printed-form differences are not failures; they are
listed by ``python tests/algebra/test_cute_ir_corpus.py`` and explained in docs/model.md section 2.6.

Error cases (every ``expected-error`` of the ``*_errors.mlir`` files whose operation cuteverify has): cuteverify
must refuse with a ``CuteVerifyError`` (a ``ParseError`` naming the column, a ``NotAdmissibleError`` naming the
condition), or the case is in ``ACCEPTED``: CuTe IR refuses something cuteverify admits, the reason written
there, and the test checks cuteverify's result against the operation's post-condition.

Cases that fail today are strict xfails (``XFAIL``, empty since issue 26's parts 2-4 landed), so that fixing one
makes the list shrink.
"""
from __future__ import annotations

import collections
import json
import os
import re
import sys

import numpy as np
import pytest

import cuteverify as cv
from cuteverify.errors import CuteVerifyError, NotAdmissibleError, ParseError

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "cute_ir"))
import ireval as ev  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = json.load(open(os.path.join(HERE, "cute_ir", "cases.json")))


# =============================================================================================================
# The operations: CuTe IR op -> cuteverify call on the parsed operands
# =============================================================================================================

def _shape_of(x):
    """A complement cotarget: CuTe IR takes a shape, or a layout of which only the shape counts."""
    return x.shape if isinstance(x, cv.Layout) else x


def _recast(args, p):
    new_bits, old_bits = p  # recast_layout<new, old>
    return cv.recast(args[0], old_bits, new_bits)


OPS = {
    "composition": lambda a, p: cv.composition(a[0], a[1]),
    "complement": lambda a, p: cv.complement(a[0]) if len(a) == 1 else cv.complement(a[0], _shape_of(a[1])),
    "coalesce": lambda a, p: cv.coalesce(a[0]) if len(a) == 1 else cv.coalesce(a[0], a[1]),
    "left_inverse": lambda a, p: cv.left_inverse(a[0]),
    "right_inverse": lambda a, p: cv.right_inverse(a[0]),
    "recast_layout": _recast,
    "tile_to_shape": lambda a, p: cv.tile_to_shape(a[0], a[1], a[2] if len(a) > 2 else None),
    "slice": lambda a, p: cv.slice_layout(a[0], a[1]),
    **{name: (lambda f: lambda a, p: f(a[0], a[1]))(getattr(cv, name)) for name in (
        "logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product",
        "tiled_product", "flat_product", "blocked_product", "raked_product")},
    "size": lambda a, p: cv.size(a[0]) if isinstance(a[0], (cv.Layout, cv.ComposedLayout)) else _prod(a[0]),
    "cosize": lambda a, p: cv.cosize(a[0]),
    "layout_eval": lambda a, p: a[1](a[0]),
    "idx2crd": lambda a, p: cv.idx2crd(a[0], a[1]),
    "make_layout": lambda a, p: cv.make_layout(a[0], stride=a[1]),
    "make_identity_layout": lambda a, p: cv.make_identity_layout(a[0]),
    "get_shape": lambda a, p: a[0].shape,
    "get_stride": lambda a, p: a[0].stride,
    "composed_get_inner": lambda a, p: a[0].inner,
    "composed_get_outer": lambda a, p: a[0].outer,
    "composed_get_offset": lambda a, p: a[0].offset,
}
# The operand kinds cuteverify's functions take, per op (CuTe IR also slices, dices and flattens shapes, strides
# and coordinates, and types each operand by kind: a kind outside these is an IR typing error with no
# counterpart in cuteverify's API, which reads a shape as its compact layout)
L, C, LC = ("layout",), ("composed_layout",), ("layout", "composed_layout")
TILERS = ("layout", "shape", "tile")
SIGS = {
    "composition": (LC, TILERS), "complement": (L, ("shape", "layout")), "coalesce": (LC, ("coord",)),
    "left_inverse": (LC,), "right_inverse": (LC,), "recast_layout": (LC,),
    "tile_to_shape": (LC, ("shape",), ("int_tuple",)), "slice": (LC, ("coord",)),
    **dict.fromkeys(("logical_divide", "zipped_divide", "tiled_divide", "flat_divide"), (LC, TILERS)),
    **dict.fromkeys(("logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product",
                     "raked_product"), (LC, L)),
    "size": (("shape", "layout", "composed_layout"),), "cosize": (LC,), "layout_eval": (("coord",), LC),
    "idx2crd": (("int_tuple",), ("shape",)), "make_layout": (("shape",), ("stride",)),
    "make_identity_layout": (("shape",),), "get_shape": (L,), "get_stride": (L,),
    **dict.fromkeys(("composed_get_inner", "composed_get_outer", "composed_get_offset"), (C,)),
}
MIN_ARGS = {"complement": 1, "coalesce": 1, "tile_to_shape": 2}
NO_PARAMS = ("size", "cosize")  # the mode-index forms (``cute.size<1,0>``) have no counterpart in cv.size


def _prod(t):
    n = 1
    for x in ev.flat(t):
        n *= x
    return n


def mapped(case) -> bool:
    """Does cuteverify have this operation for these operand kinds?"""
    sig, ops = SIGS.get(case["op"]), case["operands"]
    if sig is None or not MIN_ARGS.get(case["op"], len(sig)) <= len(ops) <= len(sig):
        return False
    if case["op"] in NO_PARAMS and case["params"]:
        return False
    return all(t["kind"] in kinds for t, kinds in zip(ops, sig))


def ir_text(t) -> str:
    return f'!cute.{t["kind"]}<"{t["text"]}">'


def run(case):
    """cuteverify's result for the case (exceptions propagate)."""
    args = [cv.parse(ir_text(t)) for t in case["operands"]]
    return OPS[case["op"]](args, case["params"])


def fmt(x) -> str:
    """cuteverify's printed form of a result (a layout's own ``str``; tuples as CuTe prints them)."""
    if isinstance(x, (cv.Layout, cv.ComposedLayout)):
        return str(x)
    if isinstance(x, tuple):
        return "(" + ",".join(fmt(y) for y in x) + ")"
    return "_" if x is None else str(x)


def _norm(t: str) -> str:
    return t.replace(" ", "")


def compare(case, result):
    """``(same_function, same_print, same_modes)`` of cuteverify's ``result`` and CuTe IR's, by ireval."""
    expected = case["result"]["text"]
    got = fmt(result)
    same_print = _norm(got) == _norm(expected)
    if case["result"]["kind"] in LC:
        if not isinstance(result, (cv.Layout, cv.ComposedLayout)):
            return False, same_print, False
        x = ev.parse_layout("():()" if _norm(expected) == "():()" else expected)
        y = ev.parse_layout(got)
        return ev.same_function(x, y), same_print, ev.same_modes(x, y)
    if case["result"]["kind"] == "swizzle":  # S<b,m,s> is its three parameters
        return same_print, same_print, same_print
    same = ev.parse_tuple(expected) == ev.parse_tuple(got)
    return same, same_print, same


# =============================================================================================================
# Cases that fail today (strict xfails): case id -> reason
# =============================================================================================================
XFAIL: dict[str, str] = {}  # none today: every mapped static case is CuTe IR's function, or in REFUSED
# Static cases cuteverify refuses deliberately (docs/model.md section 2.6): case id -> why. The test checks the
# refusal and what makes CuTe IR's answer unacceptable.
UNDERSCORE = ("a '_' tiler mode in a zipped/tiled/flat divide: CuTe IR splits the undivided mode at its own "
              "nesting (tile = its first sub-mode); CuTe DSL refuses, cuteverify too")
COORD_OFFSET = ("a coordinate offset before an integer-valued inner layout: A((1,1) + B(c)) adds a coordinate to a "
                "nonzero integer, which CuTe C++ does not define (ArithmeticTuple + C<0> only); cuteverify refuses it "
                "as C++ does (docs/model.md 2.6)")
REFUSED: dict[str, str] = {
    "logical_product:373:CG_TEST_scaled_basis_lhs_composed_sb_in_a": COORD_OFFSET,
    "flat_divide:339:CG_TEST_flat_divide_gemm_underscore": UNDERSCORE,
    "tiled_divide:339:CG_TEST_tiled_divide_gemm_underscore": UNDERSCORE,
    "zipped_divide:363:CG_TEST_zipped_divide_gemm_underscore": UNDERSCORE,
    "tile_to_shape:183:tile_to_shape_rounded_up": ("tile_to_shape with a block that does not divide the target: "
                                                   "CuTe IR rounds up, CuTe C++ asserts evenly_divides and its "
                                                   "post-condition compatible(target, shape(R)) fails on the "
                                                   "rounded-up answer"),
}

# Error cases that cuteverify admits, deliberately: case id -> (why, the post-condition check of its result)
DYNAMIC = ("a dynamic (?) input CuTe IR refuses: cuteverify's symbolic algebra computes it (with obligations), "
           "checked by instantiating the unknowns against the concrete operation")
BASIS_RHS = ("a product with coordinate (E<i>) strides in the right layout: cuteverify reads A at a coordinate as "
             "CuTe C++'s basis_get does (a coordinate past A's rank picks A itself); checked: R[0] == A, "
             "size(R) == size(A)*size(B)")
COORD_COMPLEMENT = ("a complement of coordinate (E<i>) strides with a shape cotarget: CuTe IR's op refuses any "
                    "cotarget there, cuteverify extends each coordinate to its extent as cutegen's complement "
                    "(used by CuTe IR's own logical_divide) and CuTe DSL do (docs/model.md 3.4); checked: "
                    "(A, R) is a bijection onto the box of the cotarget")
ORDER = ("a tile_to_shape order that is not 0-based: cuteverify reads the order as CuTe C++ does (Step<_2,_1,_3>: "
         "only the relative order counts); checked: the same function as CuTe IR's answer for the 0-based order")
ACCEPTED: dict[str, tuple] = {
    **{f"{op}_errors:{line}:{name}": (DYNAMIC, "dynamic") for op in (
        "blocked_product", "flat_product", "logical_product", "raked_product", "tiled_product", "zipped_product")
       for line, name in ((51, "dyn_shape_static_stride"), (65, "rank1_dyn_stride"))},
    "left_inverse_errors:52:dynamic_shape": (DYNAMIC, "dynamic"),
    "right_inverse_errors:52:dynamic_shape": (DYNAMIC, "dynamic"),
    "slice_errors:77:swizzle_composed_slice_nonstatic_b": (DYNAMIC, "dynamic"),
    **{f"{op}_errors:{line}:scaled_basis_tiler_stride": (BASIS_RHS, "product") for op, line in (
        ("blocked_product", 109), ("flat_product", 108), ("logical_product", 109), ("raked_product", 108),
        ("tiled_product", 108), ("zipped_product", 108))},
    "complement_errors:54:scaled_basis_stride": (COORD_COMPLEMENT, "complement"),
    "tile_to_shape_errors:152:order_out_of_range": (ORDER, "order"),
    "tile_to_shape_errors:169:order_not_zero_based": (ORDER, "order"),
    "slice_errors:91:swizzle_composed_slice_no_underscore": (
        "a slice of a swizzled layout with no '_': cuteverify gives the layout of no free modes (size 1), as it "
        "does for a plain layout; checked: size 1", "size1"),
    **{k: ("coordinate strides of different depths: cuteverify reads E<i> as E<i,0> (docs/model.md 2.3), so the "
           "text has one meaning; checked: the values ireval computes under that reading", "depth") for k in (
        "layout_errors:117:mixed_depth_basis_stride", "composed_layout_errors:127:inner_mixed_depth_basis",
        "stride_errors:134:mixed_depth_basis_simple",
        "stride_errors:142:mixed_depth_basis_reversed", "stride_errors:158:mixed_depth_basis_three_way",
        "tile_errors:69:mixed_depth_basis_in_tile_slot")},
    **{k: ("a swizzle whose bits reach past 32: cuteverify's integers are unbounded; checked: the swizzle's "
           "values are ireval's", "swizzle") for k in (
        "swizzle_errors:77:sum_overflow_5_29_5", "swizzle_errors:84:sum_overflow_10_20_10")},
}


# =============================================================================================================
# Tests
# =============================================================================================================
STATIC = [c for c in DATA["cases"] if c["static"]]
MAPPED = [c for c in STATIC if mapped(c)]
TYPING = ("operand #", "result #", "expects $input to be")  # the IR's kind signatures: no counterpart here
INFERRED = re.compile(r"inferred type\(s\) '!cute\.(\w+)<\"([^\"]*)\">")


def _typing(e) -> bool:
    return any(t in d for d in e["diagnostics"] for t in TYPING)


def _inferred(e):
    """The result CuTe IR inferred, for a case refused only because the test declares another result type."""
    m = INFERRED.search(e["diagnostics"][0])
    return {"kind": m.group(1), "text": m.group(2)} if m else None


ERRORS = [e for e in DATA["errors"] if (e["op"] == "type" or mapped(e)) and not _typing(e)]
WRONG_RESULT = [e for e in ERRORS if _inferred(e)]
MUST_REFUSE = [e for e in ERRORS if not _inferred(e) and e["id"] not in ACCEPTED]


def _param(c, table):
    marks = [pytest.mark.xfail(strict=True, reason=table[c["id"]])] if c["id"] in table else []
    return pytest.param(c, id=c["id"], marks=marks)


@pytest.mark.parametrize("case", [_param(c, XFAIL) for c in MAPPED if c["id"] not in REFUSED])
def test_static_case(case):
    """cuteverify's result is the function CuTe IR's test states (printed forms may differ)."""
    result = run(case)
    same, _, _ = compare(case, result)
    assert same, f"{case['op']}{[t['text'] for t in case['operands']]}: CuTe IR {case['result']['text']}, " \
                 f"cuteverify {fmt(result)}"


def _named(e) -> str:
    """The condition a refusal names: a NotAdmissibleError's condition, a ParseError's expectation at its column."""
    if isinstance(e, ParseError):
        return e.expected if e.column >= 1 else ""
    return e.condition


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in MAPPED if c["id"] in REFUSED])
def test_static_case_refused(case):
    """Where cuteverify refuses CuTe IR's answer on purpose, it names the condition, and the answer fails the
    post-condition cuteverify holds (tile_to_shape: compatible with the target; a '_' divide: C++ and DSL
    define no tile for an undivided mode, CuTe IR's 'tile' is the mode's first sub-mode; a coordinate offset:
    added to nonzero integers, which neither C++ nor the evaluator defines)."""
    with pytest.raises((NotAdmissibleError, ParseError)) as info:
        run(case)
    assert _named(info.value)
    expected = ev.parse_layout(case["result"]["text"])
    if REFUSED[case["id"]] is COORD_OFFSET:
        operand = ev.parse_layout(case["operands"][0]["text"])
        inner = ev.values(operand.inner)
        assert type(operand.offset) is tuple and isinstance(inner, np.ndarray) and inner.any()
        with pytest.raises(ev.NotEvaluable):  # CuTe IR's answer has the same coordinate + integer sum
            ev.values(expected)
    elif case["op"] == "tile_to_shape":
        target = ev.parse_tuple(case["operands"][1]["text"])
        assert ev.size(expected) != _prod(target)  # not compatible with the target shape
    else:
        tile_mode0 = ev.modes(expected)[0]
        undivided = ev.modes(ev.parse_layout(case["operands"][0]["text"]))[0]
        assert ev.size(tile_mode0) < ev.size(undivided)  # the '_' mode was split although nothing divides it


def test_corpus_counts():
    """The data is the corpus the issue describes (65 error files, 649 diagnostics)."""
    meta = DATA["meta"]
    assert meta["n_error_files"] == 65 and meta["n_diagnostics"] == 649
    assert sum(len(e["diagnostics"]) for e in DATA["errors"]) == 649
    assert len(MAPPED) >= 490 and len(ERRORS) >= 190


def _read_operands(case):
    for t in case["operands"]:
        if t["text"] is None:  # ``!cute.layout<32>``: no string at all
            cv.parse(f"!cute.{t['kind']}<{t['raw']}>")
        cv.parse(ir_text(t))


@pytest.mark.parametrize("case", [_param(c, XFAIL) for c in MUST_REFUSE])
def test_error_case_refused(case):
    """Every input CuTe IR refuses is refused by cuteverify with a named condition (not a traceback)."""
    with pytest.raises(CuteVerifyError) as info:
        if case["op"] == "type":
            _read_operands(case)
        else:
            run(case)
    e = info.value
    assert e.column >= 1 if isinstance(e, ParseError) else (e.condition if isinstance(e, NotAdmissibleError)
                                                            else str(e)), repr(e)


@pytest.mark.parametrize("case", [_param(c, XFAIL) for c in WRONG_RESULT])
def test_error_case_wrong_result_type(case):
    """CuTe IR refuses a declared result type that differs from the one it infers: cuteverify's result is the
    inferred one (as a function), where that is static."""
    inferred = _inferred(case)
    if "?" in inferred["text"] or any("?" in (t["text"] or "") for t in case["operands"]):
        pytest.skip("a dynamic inferred type")
    result = run(case)
    same, _, _ = compare({**case, "result": inferred}, result)
    assert same, f"CuTe IR infers {inferred['text']}, cuteverify {fmt(result)}"


def _box(shape):
    pts = [()]
    for n in shape:
        pts = [p + (x,) for x in range(n) for p in pts]
    return pts


def _instantiations(syms):
    for v in (2, 8):
        yield {str(s): v for s in syms}


def _sliced(args, vals):
    """The values ``L(crd)`` over the free modes, from ``cv.slice_and_offset`` instantiated at ``vals``."""
    sub, off = cv.slice_and_offset(args[0], args[1])
    sub = sub.subs(vals) if vals else sub
    if not isinstance(off, int):
        off = int(off.subs({s: vals[s.name] for s in off.free_symbols}))
    return ev.values(ev.parse_layout(str(sub))) + off


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in ERRORS if c["id"] in ACCEPTED])
def test_error_case_accepted(case):
    """Where CuTe IR refuses what cuteverify admits (ACCEPTED: why), cuteverify's answer meets the check named
    there."""
    why, check = ACCEPTED[case["id"]]
    if check == "depth":
        for t in case["operands"]:
            v = cv.parse(ir_text(t))  # admitted: E<i> read as E<i,0>
            if t["kind"] == "stride":
                continue
            lay, text = (v, t["text"]) if t["kind"] in LC else (v[0], t["text"][1:-1])
            assert ev.same_function(ev.parse_layout(text), ev.parse_layout(str(lay)))
        return
    if check == "swizzle":
        sw = cv.parse(ir_text(case["operands"][0]))
        b, m, sh = (int(x) for x in case["operands"][0]["text"][2:-1].split(","))
        ref = ev.Sw(b, m, sh)
        for x in list(range(1 << 12)) + [(1 << 40) - 1, 1 << 35, 123456789012345]:
            assert sw(x) == ref(x) and sw(sw(x)) == x
        return
    args = [cv.parse(ir_text(t)) for t in case["operands"]]
    result = OPS[case["op"]](args, case["params"])  # the same unknowns as ``args``
    if check == "product":
        R, A, Bn = ev.parse_layout(str(result)), ev.parse_layout(str(args[0])), ev.size(ev.parse_layout(str(args[1])))
        assert ev.size(R) == ev.size(A) * Bn
        if case["op"] in ("logical_product", "zipped_product", "tiled_product"):
            assert ev.same_function(ev.modes(R)[0], A)
        else:  # blocked, raked, flat: a regrouping of the logical product, whose image they keep
            L = ev.parse_layout(str(cv.logical_product(args[0], args[1])))
            assert sorted(ev.values(R).tolist()) == sorted(ev.values(L).tolist())
    elif check == "order":
        order = ev.parse_tuple(case["operands"][2]["text"])
        zero_based = tuple(sorted(order).index(o) for o in order)
        ref = [c for c in STATIC if c["op"] == "tile_to_shape" and len(c["operands"]) == 3
               and c["operands"][0] == case["operands"][0] and c["operands"][1] == case["operands"][1]
               and ev.parse_tuple(c["operands"][2]["text"]) == zero_based]
        assert ref, "no CuTe IR case with the 0-based order"
        assert compare(ref[0], result)[0]
    elif check == "size1":
        assert cv.size(result) == 1
    elif check == "complement":
        box = ev.parse_tuple(case["operands"][1]["text"])
        got = []
        for r in ev.values(ev.parse_layout(str(result))):
            for a in ev.values(ev.parse_layout(str(args[0]))):
                c = collections.Counter(dict(a))
                c.update(dict(r))
                got.append(tuple(sorted((p, v) for p, v in c.items() if v)))
        want = [tuple(((k,), x) for k, x in enumerate(pt) if x) for pt in _box(box)]
        assert sorted(got) == sorted(want)
    elif check == "dynamic":
        syms = set()
        for a in args:
            syms |= a.free_symbols() if hasattr(a, "free_symbols") else set()
        compared = 0
        for vals in _instantiations(sorted(syms, key=str)):
            try:
                concrete = OPS[case["op"]]([a.subs(vals) if hasattr(a, "free_symbols") and a.free_symbols() else a
                                            for a in args], case["params"])
                inst = result.subs(vals)
            except CuteVerifyError:
                continue
            if case["op"] == "slice":  # a slice is the layout of the free modes plus the fixed ones' offset
                inst, concrete = _sliced(args, vals), _sliced([a.subs(vals) for a in args[:1]] + args[1:], {})
                assert inst.tolist() == concrete.tolist(), (vals, inst, concrete)
            else:
                assert ev.same_function(ev.parse_layout(str(inst)), ev.parse_layout(str(concrete))), \
                    (vals, inst, concrete)
            compared += 1
        assert compared, "no instantiation admitted"
    else:
        raise AssertionError(check)


# Regressions found by the corpus (each failed on main before its fix: a crash, or a wrong input admitted)
REGRESSIONS = {
    "recast with 0 bits (ZeroDivisionError)": lambda: cv.recast(cv.parse("(32,4):(1,32)"), 8, 0),
    "slice of rank 3 on a rank-2 layout (ValueError)": lambda: cv.slice_layout(cv.parse("(8,4):(1,8)"), (0, None, 1)),
    "idx2crd of a rank-3 coordinate in a rank-2 shape (ValueError)": lambda: cv.idx2crd((1, 2, 3), (4, 8)),
    "a layout at a rank-3 coordinate (ValueError)": lambda: cv.parse("(4,8):(1,4)")((1, 2, 3)),
    "tile_to_shape order (0,0) (admitted)": lambda: cv.tile_to_shape(cv.parse("(128,128):(128,1)"), (1024, 512),
                                                                    (0, 0)),
    "tile_to_shape order 1 for two modes (TypeError)": lambda: cv.tile_to_shape(cv.parse("(128,128):(128,1)"),
                                                                               (1024, 512), 1),
    "tile_to_shape rank-3 block, rank-2 target (admitted)": lambda: cv.tile_to_shape(cv.parse("(2,3,1):(1,2,0)"),
                                                                                    (8, 12)),
    "coalesce with a profile longer than the layout (admitted)": lambda: cv.coalesce(
        cv.parse("(3,(4,5)):(8,(1,4))"), (1, 1, 1)),
    "a swizzle of coordinates (TypeError when evaluated)": lambda: cv.parse("S<3,4,3> o 0 o (4,2):(1@0,1@1)"),
    # cosize_errors:81: C++'s cosize(layout_b) is 6, the function reaches 12 (0,10,1,11,2,12)
    "cosize behind a layout outer function (admitted: 6)": lambda: cv.cosize(cv.parse("(2,3):(10,1) o 0 o 6:1")),
    # the product of the function 2:10 is (4,2):(2,40); main read cosize(B) as 2 and answered (4,2):(2,10)
    "a product by a composed tiler with a layout outer function (wrong answer)": lambda: cv.logical_product(
        cv.parse("4:2"), cv.parse("(2,3):(10,1) o 0 o 2:1")),
    # composed_layout_errors:120: the inner coordinates name modes the outer function lacks (failed when evaluated)
    "a coordinate below an integer mode of the outer function (admitted)": lambda: cv.parse(
        "(4,5):(1,4) o 0 o (2,3):(1@1@0,1@0)"),
    "a coordinate past the rank of the outer function (admitted)": lambda: cv.ComposedLayout(
        cv.parse("(4,5):(1,4)"), (0, 0), cv.parse("(2,3):(1@0,1@2)")),
}


@pytest.mark.parametrize("name", list(REGRESSIONS))
def test_regression_refused(name):
    """Refused with a named condition (text is refused by the reader, at its column)."""
    with pytest.raises((NotAdmissibleError, ParseError)) as info:
        REGRESSIONS[name]()
    assert _named(info.value)


def test_regression_composed_subs_offset():
    """A symbolic slice of a swizzled layout moves symbols into the offset; subs instantiates them there too."""
    L = cv.parse("S<3,5,4> o 0 o (M,4):(1,M)")
    sub, off = cv.slice_and_offset(L, (None, 1))
    inst = sub.subs(M=8)
    assert not inst.free_symbols()
    got = [int(v) for v in ev.values(ev.parse_layout(str(inst)))]
    ref = ev.parse_layout("S<3,5,4> o 0 o (8,4):(1,8)")
    full = ev.values(ref)
    off = off if isinstance(off, int) else int(off.subs({s: 8 for s in off.free_symbols}))
    assert [g + off for g in got] == [int(full[i + 8]) for i in range(8)]


# =============================================================================================================
# The report: python tests/algebra/test_cute_ir_corpus.py
# =============================================================================================================

def classify(case):
    """``(status, detail)``: identical | same-function | differs | raises."""
    try:
        result = run(case)
    except Exception as e:  # noqa: BLE001 - the report counts every failure
        return "raises", f"{type(e).__name__}: {str(e).splitlines()[0]}"
    try:
        same, same_print, same_modes = compare(case, result)
    except ev.NotEvaluable as e:
        return "not-evaluable", f"{fmt(result)} ({e})"
    if same_print:
        return "identical", fmt(result)
    if same:
        return "same-function" if same_modes else "same-function-modes-differ", fmt(result)
    return "differs", fmt(result)


def report(out=sys.stdout):
    rows = collections.OrderedDict()
    details = []
    for c in MAPPED:
        st, detail = classify(c)
        rows.setdefault(c["op"], collections.Counter())[st] += 1
        if st != "identical":
            details.append((st, c, detail))
    cols = ["identical", "same-function", "same-function-modes-differ", "differs", "raises", "not-evaluable"]
    print("| op | mapped | " + " | ".join(cols) + " |", file=out)
    print("|---" * (len(cols) + 2) + "|", file=out)
    total = collections.Counter()
    for op, cnt in rows.items():
        total.update(cnt)
        print(f"| {op} | {sum(cnt.values())} | " + " | ".join(str(cnt[k]) for k in cols) + " |", file=out)
    print(f"| **total** | {sum(total.values())} | " + " | ".join(str(total[k]) for k in cols) + " |", file=out)
    unmapped = collections.Counter(c["op"] for c in STATIC if not mapped(c))
    print(f"\nstatic cases not mapped (no cuteverify operation for these kinds): {sum(unmapped.values())} "
          + ", ".join(f"{k} {v}" for k, v in sorted(unmapped.items())), file=out)
    for st, c, detail in sorted(details, key=lambda x: (x[0], x[1]["id"])):
        tag = f" [xfail: {XFAIL[c['id']]}]" if c["id"] in XFAIL else ""
        print(f"- {st} `{c['id']}` {c['op']}({', '.join(t['text'] for t in c['operands'])}) -> CuTe IR "
              f"`{c['result']['text']}`, cuteverify `{detail}`{tag}", file=out)
    err = collections.Counter()
    err["IR typing errors (no counterpart)"] = sum(1 for e in DATA["errors"] if (e["op"] == "type" or mapped(e))
                                                   and _typing(e))
    for e in ERRORS:
        if e["id"] in ACCEPTED:
            err["accepted (documented)"] += 1
            continue
        if _inferred(e):
            err["wrong declared result type (cuteverify gives the inferred one)"] += 1
            continue
        try:
            if e["op"] == "type":
                _read_operands(e)
            else:
                run(e)
            err["admitted"] += 1
            print(f"- error case admitted: `{e['id']}` {e['op']}({', '.join(str(t.get('text')) for t in e['operands'])})"
                  f" -- CuTe IR: {e['diagnostics'][0]}", file=out)
        except CuteVerifyError:
            err["refused"] += 1
        except Exception as x:  # noqa: BLE001
            err["crash"] += 1
            print(f"- error case crash: `{e['id']}` {type(x).__name__}: {x}", file=out)
    print(f"\nerror cases: {len(ERRORS)} mapped of {len(DATA['errors'])}: " + ", ".join(f"{k} {v}" for k, v in
                                                                                  err.items()), file=out)


if __name__ == "__main__":
    report()
