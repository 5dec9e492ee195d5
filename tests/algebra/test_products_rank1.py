"""Rank-1 blocked / raked products (found by the issue-30 benchmark): ``raked_product((3):(4), 8:1)`` returned
``(12):(1)``, size 12 instead of 24, by zipping only the first sub-mode of each half. CuTe zips the halves
``(3)`` and ``(4,2)`` mode by mode, which needs one rank: C++ does not compile it, so it is refused; halves of
one rank keep every mode."""
from __future__ import annotations

import pytest

import cuteverify as cv
from cuteverify.errors import NotAdmissibleError
from strategies import ev, parse_plain


@pytest.mark.parametrize("op", [cv.raked_product, cv.blocked_product])
def test_halves_of_different_ranks_are_refused(op):
    with pytest.raises(NotAdmissibleError, match="ranks 1 and 2"):
        op(cv.parse("(3):(4)"), cv.parse("8:1"))


@pytest.mark.parametrize("a, b", [("3:4", "8:1"), ("(6):(1)", "(2):(1)"), ("8:1", "(2):(1)"),
                                  ("((2,3)):((1,2))", "((4,5)):((1,4))"), ("(2):(4)", "(4):(1)")])
def test_rank_1_products_keep_every_element(a, b):
    A, B = cv.parse(a), cv.parse(b)
    n = cv.size(A) * cv.size(B)
    for op in (cv.raked_product, cv.blocked_product):
        R = op(A, B)
        assert cv.size(R) == n, (op.__name__, str(R))
        # the image is the logical product's: A's copies placed by B (evaluated independently)
        P = cv.logical_product(A, B)
        r, p = parse_plain(str(R)), parse_plain(str(P))
        assert sorted(ev(r, i) for i in range(n)) == sorted(ev(p, i) for i in range(n))
