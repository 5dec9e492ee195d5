"""Print forms users paste (CUTLASS C++ and CuTe DSL) and malformed text: each read as the function it
denotes, or refused with a ParseError naming the column. Functions are compared with an evaluator written
here, independent of the library."""
from __future__ import annotations

import pytest

import cuteverify as cv


def _walk(shape, stride):
    """All values of shape:stride (integer strides), colexicographic, by a plain mixed-radix walk."""
    def leaves(t):
        return [x for e in t for x in leaves(e)] if isinstance(t, tuple) else [t]
    ss, ds = leaves(shape), leaves(stride)
    size = 1
    for s in ss:
        size *= s
    out = []
    for i in range(size):
        v, r = 0, i
        for s, d in zip(ss, ds):
            v += (r % s) * d
            r //= s
        out.append(v)
    return out


def _swz(b, m, s, x):
    mask = ((1 << b) - 1) << (m + s)
    return x ^ ((x & mask) >> s)


@pytest.mark.parametrize("bits,b,m,s", [(16, 3, 4, 3), (16, 2, 4, 3), (16, 1, 4, 3), (8, 3, 4, 3), (32, 3, 4, 3),
                                       (64, 2, 4, 3)])
def test_smem_ptr_print_is_a_swizzle_of_byte_addresses(bits, b, m, s):
    e = bits // 8
    text = f"Sw<{b},{m},{s}> o smem_ptr[{bits}b](unset) o (_8,_64):(_64,_1)"
    L = cv.parse(text)
    # byte address of element k is e*k; the swizzle acts there; the element index is the byte address / e
    want = [_swz(b, m, s, e * v) // e for v in _walk((8, 64), (64, 1))]
    assert [L(i) for i in range(8 * 64)] == want


def test_smem_ptr_gmma_sw128_atom_equals_element_form():
    a = cv.parse("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)")
    b = cv.parse("S<3,3,3> o 0 o (8,64):(64,1)")
    assert str(a) == str(b)


@pytest.mark.parametrize("text,column", [
    ("Sw<3,4,3> o smem_ptr[4b](unset) o (_8,_64):(_64,_1)", 13),   # sub-byte elements
    ("Sw<3,0,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", 13),  # base below the element width
])
def test_smem_ptr_refusals_name_the_column(text, column):
    with pytest.raises(cv.ParseError) as e:
        cv.parse(text)
    assert e.value.column == column


def test_cutlass_negative_static_ints():
    L = cv.parse("(_4):(_-1)")
    assert [L(i) for i in range(4)] == [0, -1, -2, -3]
    assert str(cv.parse("_4:_-2")) == "4:-2"


@pytest.mark.parametrize("text", ["(_-4,_8):(_1,_4)", "(_,4):(1,2)", "(4,_):(1,4)", "(1/2,4):(1,4)",
                                  "(4,8):(1,3/2)", "(0,4):(1,4)"])
def test_bad_entries_are_parse_errors(text):
    with pytest.raises(cv.ParseError):
        cv.parse(text)


def test_dynamic_entries_are_fresh_symbols():
    L = cv.parse("(?,64):(64,?)")
    names = sorted(s.name for s in L.free_symbols())
    assert len(names) == 2 and names[0] != names[1]
    # a name already in the text is never reused
    M = cv.parse("(?,dyn1):(1,?)")
    assert len({s.name for s in M.free_symbols()}) == 3


def test_deep_nesting_is_refused_not_a_recursion_error():
    text = "(" * 5000 + "4" + ")" * 5000
    with pytest.raises(cv.ParseError, match="levels of nesting"):
        cv.parse(text)


def test_parse_builds_immutable_values():
    L = cv.parse("(N/8,4):(1,N/8)", assume=["N % 8 == 0"])
    assert L.assumptions is not None and [str(o.condition) for o in L.obligations] == ["8 | N"]
    S = cv.parse("S<3,3,3> o 0 o (8,M):(M,1)", assume=["M % 8 == 0"])
    assert S.outer.assumptions is not None
