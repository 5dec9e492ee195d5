"""make_ordered_layout / make_layout_like (C++ compact_order). Expected texts: the examples in CuTe C++'s
cute/layout.hpp comments (static orders) and CuTe DSL 4.8.1 results recorded in the committed captures
(tests/frontend/trace_data: fa4_fwd_sm_80, ampere_tensorop_gemm_bkmajor_sm_80); the bijection property is
checked by enumerating the layout by hand (no cuteverify evaluation)."""
import random

import pytest

from cuteverify.algebra import make_layout_like, make_ordered_layout
from cuteverify.core.notation.parse import parse
from cuteverify.errors import NotAdmissibleError


@pytest.mark.parametrize("shape,order,want", [
    ((2, 2, 2, 2), (0, 2, 3, 1), "(2,2,2,2):(1,4,8,2)"),                          # layout.hpp comment
    (((64, 2), (8, 8), (1, 1)), (1, 0, 2), "((64,2),(8,8),(1,1)):((64,4096),(1,8),(0,0))"),  # fa4 sm80
    ((8, 64), (1, 0), "(8,64):(64,1)"),                                            # fa4 sm80
    ((16, 8), (1, 0), "(16,8):(8,1)"),                                             # fa4 sm80
])
def test_make_ordered_layout(shape, order, want):
    assert str(make_ordered_layout(shape, order)) == want


@pytest.mark.parametrize("text,want", [
    ("(2,2,2,2):(0,2,4,1)", "(2,2,2,2):(0,2,4,1)"),                                 # layout.hpp comment
    ("(2,3,4,5):(0,42,1,0)", "(2,3,4,5):(0,4,1,0)"),                                # layout.hpp comment
    ("((8,1),4,1,(1,4)):((1,0),1024,0,(0,4096))", "((8,1),4,1,(1,4)):((1,0),8,0,(0,32))"),  # ampere capture
    ("((8,1),16,1):((1,0),1024,0)", "((8,1),16,1):((1,0),8,0)"),                    # ampere capture
])
def test_make_layout_like(text, want):
    assert str(make_layout_like(parse(text))) == want


def _eval(shape, stride, c):
    out = 0
    for s, d in zip(shape, stride):
        out += (c % s) * d
        c //= s
    return out


def test_distinct_orders_give_a_compact_bijection():
    rng = random.Random(7)
    for _ in range(200):
        r = rng.randint(1, 4)
        shape = tuple(rng.choice((1, 2, 3, 4, 8)) for _ in range(r))
        order = tuple(rng.sample(range(10), r))
        L = make_ordered_layout(shape, order)
        stride = L.stride if type(L.stride) is tuple else (L.stride,)
        n = 1
        for s in shape:
            n *= s
        assert sorted(_eval(shape, stride, c) for c in range(n)) == list(range(n))
        # the mode of smallest order with extent > 1 is the contiguous one
        first = min((i for i in range(r) if shape[i] > 1), key=lambda i: order[i], default=None)
        assert first is None or stride[first] == 1


def test_refusals():
    with pytest.raises(NotAdmissibleError):
        make_ordered_layout((2, 4), (0, 1, 2))
    with pytest.raises(NotAdmissibleError):
        make_layout_like(parse("(2,4):(1@0,1@1)"))
    with pytest.raises(NotAdmissibleError):
        make_layout_like(parse("S<1,2,3> o 0 o (8,8):(8,1)"))


