"""Tensor folding (paper section 1.3) and the reference batched GEMM against numpy.einsum."""
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import cuteverify as cv
from cuteverify.errors import CuteVerifyError
from cuteverify.errors import FoldError
from cuteverify.analysis.fold import (batched_gemm, flat_form, fold, fold_modes, fold_operands,
                                     parse_einsum)


def test_figure1():
    T = cv.Layout((2, 2, 2), (2, 1, 4))
    a = fold_modes(T, [[0, 2], [1]])
    assert a == cv.Layout(((2, 2), 2), ((2, 4), 1))
    assert flat_form(a[0]) == cv.Layout(4, 2)
    assert cv.coalesce(a, (1, 1)) == cv.Layout((4, 2), (2, 1))
    b = fold_modes(T, [[0], [1, 2]])
    assert b == cv.Layout((2, (2, 2)), (2, (1, 4)))
    assert str(b) == "(2,(2,2)):(2,(1,4))"
    assert flat_form(b[1]) is None
    # a view: the same function as the tensor
    assert sorted(a.values()) == sorted(T.values()) == sorted(b.values())


def test_paper_contraction_classification():
    f = fold("stupr,qtru->stqp", A=((2, 3, 4, 5, 6), None), B=((7, 3, 6, 4), None))
    assert f.modes == {"row": ("s", "p"), "column": ("q",), "reduction": ("u", "r"), "batch": ("t",)}
    assert (f.M, f.N, f.K, f.L) == (10, 7, 24, 3)
    # A's m-mode is its row modes with their own strides (row-major A: s stride 360, p stride 6)
    assert f.A[0] == cv.Layout((2, 5), (360, 6))
    assert f.A[1] == cv.Layout((4, 6), (30, 1))
    assert f.B[1] == cv.Layout((4, 6), (1, 4))
    assert f.flat[("B", "k")] == cv.Layout(24, 1)
    assert f.flat[("A", "k")] is None
    assert f.classification()["t"] == "batch"
    assert "no flat form" in f.describe()


def test_gemm_and_empty_groups():
    f = fold("mk,nk->mn", A=((4, 5), (1, 4)), B=((3, 5), (5, 1)))
    assert f.A == cv.Layout((4, 5, 1), (1, 4, 0))
    assert f.modes["batch"] == ()
    a = np.arange(20.0)
    b = np.arange(15.0)
    c = batched_gemm(f, a, b)
    ref = a.reshape(5, 4).T @ b.reshape(3, 5).T
    assert np.allclose(c.reshape(4, 3), ref)
    # dot product: no row, no column
    f = fold("k,k->", A=((6,), (1,)), B=((6,), (2,)))
    assert (f.M, f.N, f.K, f.L) == (1, 1, 6, 1)
    c = batched_gemm(f, np.arange(6.0), np.arange(12.0))
    assert c[0] == np.dot(np.arange(6.0), np.arange(12.0)[::2])


def test_implicit_output_and_layout_operands():
    assert parse_einsum("ij,jk") == ("ij", "jk", "ik")
    f = fold("ij,jk", A=cv.Layout((3, 4), (4, 1)), B=cv.Layout((4, 2), (2, 1)))
    assert f.modes["row"] == ("i",) and f.modes["column"] == ("k",) and f.modes["reduction"] == ("j",)
    # a nested mode per letter is kept as it is (a multi-mode of one letter)
    f = fold("ij,jk->ik", A=cv.Layout(((2, 2), 4), ((1, 8), 2)), B=cv.Layout((4, 3), (1, 4)))
    assert f.extents["i"] == 4


# --- random contractions: exactly numpy's result ---------------------------------------------------------------

def _strides(rng, shape):
    """Permuted memory order, padded: returns strides and the data size needed."""
    order = list(range(len(shape)))
    rng.shuffle(order)
    strides = [0] * len(shape)
    cur = 1
    for i in order:
        strides[i] = cur
        cur = cur * shape[i] + rng.choice([0, 0, 1, 3])
    return tuple(strides), max(1, 1 + sum((s - 1) * d for s, d in zip(shape, strides)))


def _view(data, shape, strides):
    return np.lib.stride_tricks.as_strided(data, shape=shape, strides=[d * data.itemsize for d in strides])


def _random_contraction(rng):
    letters = list("abcdefghij")
    rng.shuffle(letters)
    n = rng.randint(1, 8)
    used = letters[:n]
    kinds = {ch: rng.choice(["row", "col", "red", "bat"]) for ch in used}
    la = [ch for ch in used if kinds[ch] in ("row", "red", "bat")]
    lb = [ch for ch in used if kinds[ch] in ("col", "red", "bat")]
    lc = [ch for ch in used if kinds[ch] in ("row", "col", "bat")]
    for lst in (la, lb, lc):
        rng.shuffle(lst)
    # ranks up to 6
    while len(la) > 6 or len(lb) > 6 or len(lc) > 6:
        return _random_contraction(rng)
    ext = {ch: rng.randint(1, 4) for ch in used}
    return "".join(la), "".join(lb), "".join(lc), ext


def _check(la, lb, lc, ext, rng, dtype=np.int64):
    shapes = {k: tuple(ext[ch] for ch in s) for k, s in (("A", la), ("B", lb), ("C", lc))}
    strides, sizes = {}, {}
    for k in "ABC":
        strides[k], sizes[k] = _strides(rng, shapes[k])
    a = np.array([rng.randint(-9, 9) for _ in range(sizes["A"])], dtype=dtype)
    b = np.array([rng.randint(-9, 9) for _ in range(sizes["B"])], dtype=dtype)
    c0 = np.array([rng.randint(-9, 9) for _ in range(sizes["C"])], dtype=dtype)
    spec = f"{la},{lb}->{lc}"
    f = fold(spec, A=(shapes["A"], strides["A"]), B=(shapes["B"], strides["B"]), C=(shapes["C"], strides["C"]))
    c = batched_gemm(f, a, b, c0)
    want = _view(c0, shapes["C"], strides["C"]) + np.einsum(spec, _view(a, shapes["A"], strides["A"]),
                                                            _view(b, shapes["B"], strides["B"]))
    got = _view(c, shapes["C"], strides["C"])
    assert np.array_equal(got, want), spec
    # padding untouched
    touched = np.zeros(c.size, dtype=bool)
    touched[f.C.values()] = True
    assert np.array_equal(c[~touched], c0[~touched])
    # every folded layout is a view: it visits exactly the operand's offsets
    for k in "ABC":
        assert sorted(getattr(f, k).values()) == sorted(f.operands[k].values())
    # flat forms are the same function as their multi-mode
    for (k, g), fl in f.flat.items():
        mode = getattr(f, k)[{"A": "mkl", "B": "nkl", "C": "mnl"}[k].index(g)]
        if fl is not None:
            assert fl.values() == mode.values()
        else:
            assert type(cv.coalesce(mode).shape) is tuple
    return f


def test_paper_contraction_permuted_padded():
    rng = random.Random(7)
    ext = dict(s=2, t=3, u=4, p=3, r=2, q=5)
    for _ in range(5):
        _check("stupr", "qtru", "stqp", ext, rng)
    # floats too
    _check("stupr", "qtru", "stqp", ext, rng, dtype=np.float64)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10 ** 9))
def test_random_contractions_match_numpy(seed):
    rng = random.Random(seed)
    la, lb, lc, ext = _random_contraction(rng)
    _check(la, lb, lc, ext, rng)


# --- bad input ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, kw, words", [
    ("ij,jk->ikx", dict(A=((2, 3), None), B=((3, 4), None)), "only in the output"),
    ("ijz,jk->ik", dict(A=((2, 3, 5), None), B=((3, 4), None)), "appears only in A"),
    ("ij,jkz->ik", dict(A=((2, 3), None), B=((3, 4, 5), None)), "appears only in B"),
    ("ij,jk->ik", dict(A=((2, 3), None), B=((4, 4), None)), "extent 3 in A but 4 in B"),
    ("ij,jk->ik", dict(A=((2, 3), None), B=((3, 4), None), C=((2, 5), None)), "extent 4 in B but 5 in C"),
    ("ij,jk->ik", dict(A=((2, 3, 4), None), B=((3, 4), None)), "3 mode(s)"),
    ("ii,ik->k", dict(A=((2, 2), None), B=((2, 4), None)), "repeats"),
    ("ij,jk,kl->il", dict(A=((2, 3), None), B=((3, 4), None)), "exactly two operands"),
    ("...ij,jk->ik", dict(A=((2, 3), None), B=((3, 4), None)), "ellipses"),
    ("i1,1k->ik", dict(A=((2, 3), None), B=((3, 4), None)), "single letters"),
    ("ij,jk->ik", dict(A=((2, 3), (1, 2, 3)), B=((3, 4), None)), "different lengths"),
    ("ij,jk->ik", dict(A=None, B=((3, 4), None)), "needs operands"),
])
def test_bad_einsum(spec, kw, words):
    with pytest.raises(FoldError) as e:
        fold(spec, **kw)
    assert isinstance(e.value, CuteVerifyError) and isinstance(e.value, ValueError)
    assert words in str(e.value)


def test_fold_operands_infers_missing_extents():
    # B's extents come from A's letters (k) and C's shape (n)
    ops = fold_operands("mk,kn->mn", shapes={"A": (4, 6), "C": (4, 5)}, strides={"B": (1, 6)})
    assert ops["B"] == ((6, 5), (1, 6)) and ops["C"] == ((4, 5), None)
    # an operand given nothing is inferred too (compact row-major); a layout operand lends its mode sizes
    L = cv.Layout((4, 6), (6, 1))
    ops = fold_operands("mk,kn->mn", shapes={"C": (4, 5)}, layouts={"A": L})
    assert ops["A"] is L and ops["B"] == ((6, 5), None)
    f = fold("mk,kn->mn", **ops)
    assert (f.M, f.N, f.K) == (4, 5, 6)
    with pytest.raises(FoldError, match="extent of index 'n'"):
        fold_operands("mk,kn->mn", shapes={"A": (4, 6)}, strides={"B": (1, 6)})
    assert "C" not in fold_operands("mk,kn->mn", shapes={"A": (4, 6), "B": (6, 5)})
    with pytest.raises(FoldError, match="both as --layout and --shape"):
        fold_operands("mk,kn->mn", shapes={"A": (4, 6), "B": (6, 5)}, layouts={"A": L})
    with pytest.raises(FoldError, match="both as --layout and --stride"):
        fold_operands("mk,kn->mn", shapes={"B": (6, 5)}, strides={"A": (1, 4)}, layouts={"A": L})
    with pytest.raises(FoldError, match="2 index"):
        fold_operands("mk,kn->mn", shapes={"A": (4, 6, 1)})


def test_data_too_small():
    f = fold("ij,jk->ik", A=((2, 3), None), B=((3, 4), None))
    with pytest.raises(FoldError, match="outside the data array"):
        batched_gemm(f, np.zeros(5), np.zeros(12))


# --- CLI ------------------------------------------------------------------------------------------------------

def _cli():
    import click
    from click.testing import CliRunner
    from cuteverify.frontend.cli.fold_cmd import register

    @click.group()
    def g():
        pass

    register(g)
    return g, CliRunner()


def test_cli_fold():
    import json
    g, run = _cli()
    r = run.invoke(g, ["fold", "stupr,qtru->stqp", "--shape", "A=2,3,4,5,6", "--shape", "B=7,3,6,4"])
    assert r.exit_code == 0, r.output
    assert "row modes (m): (sp)" in r.output and "reduction modes (k): (ur)" in r.output
    assert "A (m,k,l): ((2,5),(4,6),3):((360,6),(30,1),120)" in r.output
    r = run.invoke(g, ["fold", "ijk,jk->i", "--layout", "A=(2,2,2):(2,1,4)", "--shape", "B=2,2", "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.output)
    assert info["A"] == "(2,(2,2),1):(2,(1,4),0)" and info["A_flat"]["k"] is None
    r = run.invoke(g, ["fold", "ij,jk->ik", "--shape", "A=2,3", "--stride", "A=1,2", "--shape", "B=3,4"])
    assert r.exit_code == 0 and "A (m,k,l): (2,3,1):(1,2,0)" in r.output


@pytest.mark.parametrize("args", [
    ["ij,jk->ik", "--shape", "A=2,3", "--shape", "B=4,4"],
    ["ij,jk->ikz", "--shape", "A=2,3", "--shape", "B=3,4"],
    ["ij,jk->ik", "--shape", "A=2,x"],
    ["ij,jk->ik", "--shape", "A=2,3"],
    ["ij,jk->ik", "--shape", "D=2,3"],
    ["ij,jk->ik", "--shape", "A=2,3", "--shape", "B=3,4", "--stride", "A=1"],
    ["ij,jk->ik", "--layout", "A=(2,3", "--shape", "B=3,4"],
    ["ii,jk->ik", "--shape", "A=2,2", "--shape", "B=3,4"],
])
def test_cli_fold_bad_input(args):
    g, run = _cli()
    r = run.invoke(g, ["fold"] + args)
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert "error:" in r.output and "Traceback" not in r.output
