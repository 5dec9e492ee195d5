"""Paper sections 2.4.3 (completeness) and 2.4.4 (semi-linear form)."""
import random

import pytest

import cuteverify as cv
from cuteverify.analysis.linear import completeness_chain, evaluate_chain, linear_form


def test_linear_form_paper_table():
    assert linear_form(cv.parse("((2,2),(4,2)):((1,8),(2,16))")) == [[1, 8, 2, 16]]
    assert linear_form(cv.parse("(4,(4,2)):(1@1,(1@0,6@1))")) == [[0, 1, 0], [1, 0, 6]]


def test_linear_form_reproduces_evaluation():
    L = cv.parse("(4,(4,2)):(1@1,(1@0,6@1))")
    D = linear_form(L)
    from cuteverify.core.tuples import flatten
    for i in range(cv.size(L)):
        c = flatten(cv.idx2crd(i, L.shape))
        assert tuple(sum(r[j] * c[j] for j in range(len(c))) for r in D) == tuple(L(i))


@pytest.mark.parametrize("seed", range(20))
def test_completeness_on_random_functions(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 12)
    f = [0] + [rng.randint(-50, 50) for _ in range(n - 1)]
    chain = completeness_chain(f)
    assert all(isinstance(L, cv.Layout) for L in chain)
    assert [evaluate_chain(chain, i) for i in range(n)] == f


def test_completeness_needs_f0_zero():
    with pytest.raises(cv.NotAdmissibleError):
        completeness_chain([1, 2])
