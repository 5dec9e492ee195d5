"""The plain-integer fast paths of the algebra (issue 30) give what the general path gives: the same layout,
notes and obligations, or the same refusal, on 500 random concrete inputs per operation; where they answer,
the result also meets the operation's post-condition under the independent evaluator of tests/oracles/strategies.py.

Each fast path is switched off by replacing its entry point with one that declines (returns None), which
sends the call down the general path it shortcuts."""
from __future__ import annotations

import importlib
import random

import pytest
import strategies as st

import cuteverify as cv
from cuteverify.algebra import divide, inverse
from cuteverify.core.tuples import flatten, unflatten
from cuteverify.errors import CuteVerifyError

N = 500


def _decline(*_a, **_k):
    return None


def _layout(rng):
    if rng.random() < 0.15:  # odd inputs: negative, zero strides, sizes the walks refuse
        s = st.rand_shape(rng)
        flat = list(flatten(s))
        return cv.Layout(s, unflatten([rng.choice([-2, -1, 0, 1, 3, 5, 12]) for _ in flat], s))
    return st.rand_layout(rng, max_size=512)


def _tiler(rng, a):
    r = len(a)
    k = rng.randint(1, r)
    out = []
    for i in range(k):
        if rng.random() < 0.1:
            out.append(None)
        else:
            out.append(st.rand_layout(rng, max_size=32))
    return tuple(out)


def _call(op, args):
    try:
        r = getattr(cv, op)(*args)
    except CuteVerifyError as e:
        return ("refused", type(e).__name__, str(e))
    return (str(r), tuple(str(n) for n in r.notes), tuple(str(o) for o in r.obligations))


def _inputs(op, rng):
    a = _layout(rng)
    if op in ("left_inverse", "right_inverse"):
        return (a,)
    if op == "complement":
        return (a,) if rng.random() < 0.3 else (a, rng.randint(1, 2 * max(1, cv.cosize(a))))
    if op in ("logical_divide", "zipped_divide") and rng.random() < 0.5:
        return (a, _tiler(rng, a))
    return (a, _layout(rng) if rng.random() < 0.5 else st.rand_layout(rng, max_size=16))


# the modules, not the functions the package exports under the same names
complement_mod = importlib.import_module("cuteverify.algebra.complement")
composition_mod = importlib.import_module("cuteverify.algebra.composition")

CASES = [("complement", complement_mod, "plain_ints"), ("composition", composition_mod, "plain_ints"),
         ("logical_divide", divide, "_divide_ints"), ("zipped_divide", divide, "_divide_ints"),
         ("logical_product", divide, "plain_ints"), ("blocked_product", divide, "_zip_product_ints"), ("raked_product", divide, "_zip_product_ints"),
         ("left_inverse", inverse, "left_inverse_ints"), ("right_inverse", inverse, "right_inverse_ints")]


@pytest.mark.parametrize("op,module,fast", CASES, ids=[c[0] for c in CASES])
def test_fast_path_equals_general_path(op, module, fast, monkeypatch):
    rng = random.Random(f"fast-{op}")
    answered = 0
    for _ in range(N):
        args = _inputs(op, rng)
        took = []
        real = getattr(module, fast)

        def spy(*a, **k):
            r = real(*a, **k)
            took.append(r is not None)
            return r
        with monkeypatch.context() as m:
            m.setattr(module, fast, spy)
            got = _call(op, args)
        with monkeypatch.context() as m:
            m.setattr(module, fast, _decline)
            want = _call(op, args)
        assert got == want, (op, [str(x) if not isinstance(x, tuple) else [str(y) for y in x] for x in args])
        # the post-condition is checked where the fast path itself answered
        if any(took) and got[0] != "refused" and all(type(x) is not tuple for x in args):
            texts = [str(x) for x in args]
            res = st.parse_plain(got[0])
            if res is not None and all(st.parse_plain(t) for t in texts) and min(
                    d for t in texts for d in st.flat(st.parse_plain(t)[1])) >= 0:
                try:
                    st.POST[op](texts, res)
                except st.NotEvaluable:
                    continue
                answered += 1
    assert answered > N // 10  # the fast path answered (and was checked) often, not only declined


def test_fast_paths_are_taken():
    """The shortcuts answer the common kernel cases themselves (else the comparison above is vacuous)."""
    a = cv.Layout((128, 64), (64, 1))
    t = (cv.Layout(64, 1), cv.Layout(32, 1))
    assert divide._divide_ints(a, t) is not None
    assert divide._zip_product_ints(cv.Layout((2, 2), (1, 2)), cv.Layout((4, 8), (8, 1)), True) is not None
    assert inverse.left_inverse_ints(*cv.Layout(((4, 8), (2, 2)), ((32, 1), (16, 8))).int_leaves) is not None
    assert complement_mod._complement_fast(cv.Layout((4, 8), (8, 1)), 64) is not None
    assert composition_mod._composition_fast(cv.Layout((4, 8), (8, 1)), cv.Layout(8, 4)) is not None
