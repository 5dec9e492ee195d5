"""complement: one admissibility rule on the integer fast path and the symbolic path (issue 25).

The rule (ALGEBRA.md section 3 as CuTe C++ applies it; docs/model.md section 3.2): after dropping stride-0 and
size-1 modes and sorting by stride, a mode ``s:d`` with ``d < cur`` is refused (CuTe rejects it as
non-injective), negative strides and size-0 modes are refused, and a stride that ``cur`` does not divide is
CuTe's truncation ``floor(d/cur) : cur`` with the NOT_NESTED note. 1,200 random concrete inputs (3,000 in the issue, 58 to 190 disagreements before the fix) go
through both paths: ``cv.complement`` on plain ints, the same layout with sympy integers, the symbolic
construction itself, and the concrete layout with a symbolic cotarget. Every answer is checked against
complement's post-condition and CuTe's construction, both evaluated by tests/oracles/strategies.py (no cuteverify
code).
"""
import importlib
import random

import pytest

import cuteverify as cv
from cuteverify.algebra.complement import NOT_NESTED
from cuteverify.core.tuples import transform
from cuteverify.symbolic import decide
from cuteverify.symbolic.lazy import sympy
from strategies import cute_complement, flat, nests, parse_plain, rand_layout, values

# the module (``cuteverify.algebra.complement`` the attribute is the operation)
complement_module = importlib.import_module("cuteverify.algebra.complement")
COTARGETS = [None, 1, 7, 24, 64, 100, 256]


def _inputs(n=1200, seed=25):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        A = rand_layout(rng, injective_bias=0.4, max_size=512)
        if rng.random() < 0.3:  # strides that need not nest
            A = cv.Layout(A.shape, tuple(rng.choice([1, 2, 3, 4, 5, 6, 8, 12, 16]) for _ in flat(A.shape))
                          if type(A.shape) is tuple and all(type(x) is int for x in A.shape) else A.stride)
        out.append((A, rng.choice(COTARGETS)))
    return out


def _refused_why(A):
    """The condition CuTe's construction violates (computed here), or None where it builds a result."""
    s, d = flat(A.shape), flat(A.stride)
    live = sorted((dd, ss) for ss, dd in zip(s, d) if dd != 0 and ss != 1)
    if any(dd < 0 for dd, _ in live):
        return "non-negative"
    if any(ss == 0 for _, ss in live):
        return "size 0"
    cur = 1
    for dd, ss in live:
        if dd < cur:
            return "starts inside the extent"
        cur = dd * ss
    return None


def _outcome(fn):
    try:
        R = fn()
    except cv.NotAdmissibleError as e:
        return "refused", str(e)
    return "ok", R


def _check_post(A, M, R):
    """Ordered, meets A only at 0, CuTe's construction as a function; where A nests, (A, R) is a bijection
    covering [0, M); the note says exactly when A does not nest."""
    lay = (A.shape, A.stride)
    m = M if M is not None else 1 + sum((x - 1) * y for x, y in zip(flat(A.shape), flat(A.stride)))
    got = parse_plain(str(R))
    rv = values(got)
    assert all(rv[i] < rv[i + 1] for i in range(len(rv) - 1)), (A, M, R)
    assert not (set(rv) & set(values(lay))) - {0}, (A, M, R)
    assert rv == values(cute_complement(lay, m)), (A, M, R)
    noted = any(n.text.startswith(NOT_NESTED) for n in R.notes)
    assert noted == (not nests(lay)), (A, M, R, [n.text for n in R.notes])
    if not noted:
        live = [(x, y) for x, y in zip(flat(A.shape), flat(A.stride)) if y != 0 and x != 1]
        full = (tuple(x for x, _ in live) + (got[0],), tuple(y for _, y in live) + (got[1],))
        fv = values(full)
        assert len(set(fv)) == len(fv) and set(range(m)) <= set(fv), (A, M, R)


def _symbolic_construction(A, M):
    """The symbolic path's construction run on the concrete leaves (what a layout with any symbolic entry
    reaches), in a decision context of its own, with its notes attached as the operation wrapper does."""
    fs, fd = flat(A.shape), flat(A.stride)
    complement_module._check_ints(fs, fd)
    m = M if M is not None else 1 + sum((x - 1) * y for x, y in zip(fs, fd))
    ctx = decide.Context(None)
    token = decide.enter(ctx)
    try:
        R = complement_module._complement_symbolic(list(fs), list(fd), m)
    finally:
        decide.leave(token)
    return cv.Layout(R.shape, R.stride, notes=ctx.notes)


def test_fast_and_symbolic_paths_agree_on_random_concrete_inputs():
    refused = truncated = 0
    for A, M in _inputs():
        if 0 in flat(A.shape):
            continue
        fast = _outcome(lambda: cv.complement(A) if M is None else cv.complement(A, M))
        Z = cv.Layout(transform(A.shape, sympy.Integer), transform(A.stride, sympy.Integer))
        ints = _outcome(lambda: cv.complement(Z) if M is None else cv.complement(Z, M))
        sym = _outcome(lambda: _symbolic_construction(A, M))
        why = _refused_why(A)
        for name, (kind, R) in (("fast", fast), ("sympy ints", ints), ("symbolic", sym)):
            assert (kind == "refused") == (why is not None), (name, str(A), M, R, why)
            if kind == "refused":
                assert why in R, (name, str(A), M, R)
            else:
                _check_post(A, M, R)
                assert str(R) == str(fast[1]), (name, str(A), M, str(R), str(fast[1]))
        refused += why is not None
        truncated += why is None and not nests((A.shape, A.stride))
    assert refused > 100 and truncated > 30, (refused, truncated)  # the sample exercises both rules


@pytest.mark.parametrize("a,m", [("(4,2,1):(16,3,1)", 24), ("(3,3):(3,16)", 24), ("(2,4):(2,6)", 256),
                                 ("(4,6):(16,2)", 100), ("(3,6):(16,1)", 64), ("(4,2):(16,6)", 64)])
def test_symbolic_cotarget_follows_the_same_rule(a, m):
    """A concrete layout with a symbolic cotarget took the symbolic path and refused these, while CuTe C++
    prints the truncated results the integer path gives ((3,2):(1,6), 3:1, (2,11):(1,24), (2,2):(1,64),
    (2,2):(6,48), 6:1; g++ 13 against the CUTLASS headers of the venv)."""
    A = cv.parse(a)
    _check_post(A, m, cv.complement(A, m))
    X = cv.symbol("X")
    S = cv.complement(A, 4 * X)
    assert any(n.text.startswith(NOT_NESTED) for n in S.notes)
    agreed = 0
    for x in range(1, 65):
        try:
            inst = S.subs(X=x)
        except cv.NotAdmissibleError as e:  # the symbolic last mode is claimed where it is exact
            assert "last mode is exact" in str(e)
            continue
        R = cv.complement(A, 4 * x)
        _check_post(A, 4 * x, R)
        assert values(parse_plain(str(inst))) == values(parse_plain(str(R))), (x, inst, R)
        agreed += 1
    assert agreed
