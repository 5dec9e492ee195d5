"""Agreement of a tiled MMA's TV layout with the hardware, atom by atom (docs/model.md section 6), with
CUTLASS's atom layout and permutation tiles (``Tile<32,(8,2,2):(1,16,8),16>``).

The hardware side is derived here independently of the algebra that builds ``TiledMma.tv_layout_X_tiled``:
the thread's ``(V, M, N, K)`` coordinate comes from enumerating ``thr_layout_vmnk`` (not from its right
inverse), the atom's element from the spec's PTX formula (not from its CUTLASS layout), and the placement in
the tile from the permutation evaluated point by point. So ``agrees_tiled(tm.tv_layout_A_tiled, tm, "A")``
checks the atom layer's construction against the hardware.
"""
from __future__ import annotations

import time

from ..core.layout import Layout, size
from ..core.tuples import flatten
from ..core.notation.interop import as_layout
from ..errors import NotAdmissibleError
from ..hardware.library.intlayout import int_layout
from ..hardware.checks.selfcheck import tv_disagreement
from ..hardware.library.spec import THREAD_VARS, operand_formulas
from ..hardware.library.ptx_tables import expected_values, hw_indices, spec_int_layout
from ..prover import Counterexample, Verdict
from ._util import mode
from .check import np_values
from .mma import TiledMma, make_tiled_mma

__all__ = ["agrees_tiled"]

_OPERAND_MODES = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}


def agrees_tiled(layout, tiled_mma, operand: str, *, atom_layout_mnk=(1, 1, 1), permutation_mnk=None,
                 **params) -> Verdict:
    """Is ``layout`` (a ``(thread, value) -> index`` layout of the operand's CTA tile, column-major:
    A ``m + TM*k``, B ``n + TN*k``, C ``m + TM*n``) the tiled MMA's TV layout, as the hardware fixes it?

    ``tiled_mma``: a :class:`~cuteverify.atoms.TiledMma`, or an atom (name, spec or ``MmaAtom``) tiled with
    ``atom_layout_mnk`` and ``permutation_mnk`` (CuTe's ``make_tiled_mma``). Definition: thread ``t`` is
    ``thr_layout_vmnk(v, m, n, k) = t``, the atom's logical thread ``v`` of atom ``(m, n, k)``; its value
    ``i = a + V*(r0 + R0*r1)`` is the atom's value ``a`` of repetition ``(r0, r1)``; the element is
    ``P0(e0 + S0*(g0 + G0*r0)) + T0 * P1(e1 + S1*(g1 + G1*r1))`` with ``(e0, e1)`` the atom's element (PTX
    formula), ``(g0, g1)`` the thread's atom coordinates in the operand's modes, ``G`` the atom counts, ``S``
    the atom extents, ``P`` the permutation tiles and ``T`` the tile extents.
    Admissibility: a concrete layout and an MMA operand (A, B or C). Returns proved (equal at every
    (thread, value)), or refuted with a counterexample naming atom, thread, value and both elements as
    (row, col), re-checked on the layout. A layout whose shape (threads x values, rank) cannot be the tiled
    MMA's is a ``NotAdmissibleError`` (an input error, as ``cuteverify agrees`` reports it), never a refutation."""
    t0 = time.perf_counter()
    if operand not in _OPERAND_MODES:
        raise NotAdmissibleError("agrees_tiled", f"operand must be A, B or C, got {operand!r}")
    tm = tiled_mma if isinstance(tiled_mma, TiledMma) else make_tiled_mma(
        tiled_mma, atom_layout_mnk, permutation_mnk, **params)
    lay = as_layout(layout)
    claim = f"agrees_tiled({lay}, {tm!r}, {operand})"
    user = int_layout(lay, "layout")

    def done(status, **kw):
        return Verdict(status, claim=claim, method="tiled enumeration", elapsed=time.perf_counter() - t0, **kw)

    want, reason = _hardware_table(tm, operand, full=False)
    if reason is None and user.rank != 2:
        reason = f"expected a rank-2 (thread, value) layout, got rank {user.rank}"
    if reason is None and (user.mode_size(0), user.mode_size(1)) != want["shape"]:
        reason = (f"the layout is {user.mode_size(0)} threads x {user.mode_size(1)} values, the tiled MMA's "
                  f"{operand} is {want['shape'][0]} threads x {want['shape'][1]} values")
    if reason is not None:  # two different things compared: a malformed claim, as the CLI and manifests say
        raise NotAdmissibleError("agrees_tiled", f"the layout cannot be compared with {tm!r} operand {operand}: "
                                 f"{reason}")
    np = _numpy()
    if isinstance(lay, Layout) and all(type(d) is int for d in flatten(lay.stride)):
        if _agrees_by_groups(lay, want, np):
            return done("proved")
        # a difference somewhere: the full table names the first (thread, value) that differs
        got = np_values(lay)[1].reshape(want["shape"][1], want["shape"][0]).T
    else:
        got = np.array(user.tv_values(), dtype=np.int64).reshape(want["shape"])
    want, _ = _hardware_table(tm, operand)
    bad = np.argwhere(got != want["index"])
    if bad.size:
        t, v = (int(x) for x in bad[0])
        g, w = int(got[t, v]), int(want["index"][t, v])
        cex = _counterexample(operand, tm.atom.spec.axes(operand), want, t, v, g, None if w < 0 else w)
        if lay_value(user, t, v) != g:  # pragma: no cover - the enumeration and the evaluation differ
            return done("unknown", reason=f"the counterexample did not re-check ({cex})")
        return done("refuted", counterexample=cex)
    return done("proved")


def _agrees_by_groups(lay: Layout, want: dict, np) -> bool:
    """Exact fast path for a plain layout: is it the hardware's table at every (thread, value)?

    The hardware's row of thread ``t`` depends on ``t`` only through its key (its thread in the atom, when the
    PTX formula reads the thread, and its atom coordinates in the operand's two modes), and a plain layout is
    separable, ``L(t, v) = L0(t) + L1(v)``. So ``L`` equals the table iff, for one representative ``r`` of
    every key, ``L0(r) + L1(v)`` is the representative's row for every ``v``, and ``L0`` is constant on every
    key's threads. Both are checked on every entry they speak of: an SS wgmma operand of 256 threads x 4096
    values needs 2 rows, not 10^6 entries. ``want``: the table by keys (``_hardware_table(full=False)``)."""
    reps, inverse = want["reps"], want["inverse"]
    l0 = np_values(mode(lay, 0))[1]
    l1 = np_values(mode(lay, 1))[1]
    if l0.shape[0] != want["shape"][0] or l1.shape[0] != want["shape"][1]:
        return False
    if not np.array_equal(l0, l0[reps][inverse]):
        return False
    return bool(np.array_equal(l0[reps][:, None] + l1[None, :], want["index"]))


def lay_value(user, t: int, v: int) -> int:
    """The user's layout evaluated at (thread, value), as the re-check of a counterexample."""
    return user.tv_values([t])[v]


def _hardware_table(tm: TiledMma, operand: str, full: bool = True):
    """({"shape": (threads, values), "index": the element of every (thread, value) (an int64 array, -1 where
    the formula has none), "tile", "where": (thread, value) -> (atom block, atom index)}, None), or
    (None, reason). ``full=False``: "index" has one row per distinct thread key (see
    :func:`_agrees_by_groups`), "reps" the representative thread of each key and "inverse" each thread's key
    (numpy arrays); "where" is then not given."""
    spec, params = tm.atom.spec, tm.atom.params
    m0, m1 = _OPERAND_MODES[operand]
    shape_mnk = tm.shape_mnk
    S0, S1 = shape_mnk[m0], shape_mnk[m1]
    vmnk = tm.thr_layout_vmnk
    counts = [size(mode(vmnk, i)) for i in range(4)]
    G0, G1 = counts[m0 + 1], counts[m1 + 1]
    T0, T1 = tm.get_tile_size(m0), tm.get_tile_size(m1)
    if any(type(x) is not int for x in (T0, T1)):
        return None, "the tiled MMA's tile is symbolic"
    R0, R1 = T0 // (S0 * G0), T1 // (S1 * G1)
    perms = [_perm_values(tm.permutation(i)) for i in (m0, m1)]
    # the thread's (v, m, n, k): enumerate the thread layout (colexicographic coordinates of its 4 modes)
    nthr = size(vmnk)
    coords = [None] * nthr
    vals = int_layout(vmnk, "thr_layout_vmnk").values()
    for i, t in enumerate(vals):
        c, rest = [], i
        for n in counts:
            c.append(rest % n)
            rest //= n
        if not 0 <= t < nthr or coords[t] is not None:
            return None, f"thr_layout_vmnk {vmnk} is not a bijection onto [0, {nthr})"
        coords[t] = tuple(c)
    T = spec.threads
    V = expected_values(spec, operand, params, spec.tile(operand, **params))
    thr = spec_int_layout(spec, "thr_id", {})
    fs = operand_formulas(spec, operand)
    # a formula of the value alone (an SS wgmma operand): every thread of the atom holds what thread 0 holds
    thread_free = not (fs["row"].names | fs["col"].names) & set(THREAD_VARS)
    hw = hw_indices(spec, operand, params, [0] if thread_free else list(range(T)), V, thr,
                    spec.tile(operand, **params))
    nval = V * R0 * R1
    np = _numpy()
    hw_arr = np.array([-1 if e is None else e for e in hw], dtype=np.int64)
    c = np.array(coords, dtype=np.int64)                           # (threads, 4): v, m, n, k
    extra = {}
    if not full:
        # one int per (thread in atom, atom coordinates): a 1-d unique (an axis-0 unique is ~10x slower)
        key = c[:, m0 + 1] + G0 * c[:, m1 + 1] + (0 if thread_free else G0 * G1 * c[:, 0])
        _, reps, inverse = np.unique(key, return_index=True, return_inverse=True)
        extra = {"reps": reps, "inverse": inverse.reshape(-1)}
        c = c[reps]
    r, a = np.divmod(np.arange(nval, dtype=np.int64), V)
    r0, r1 = r % R0, r // R0
    e = hw_arr[(0 if thread_free else c[:, :1] * V) + a[None, :]]  # (threads, values)
    e = np.broadcast_to(e, (c.shape[0], nval))
    b0 = c[:, m0 + 1:m0 + 2] + G0 * r0[None, :]
    b1 = c[:, m1 + 1:m1 + 2] + G1 * r1[None, :]
    x0, x1 = e % S0 + S0 * b0, e // S0 + S1 * b1
    index = perms[0](x0) + T0 * perms[1](x1)
    index[e < 0] = -1                                              # a formula hole: never equal to a layout value

    def where(t, i):
        """The atom block (in atom units, before the permutation) and the atom's index of (thread, value)."""
        mnk = c[t, 1:]
        return (int(b0[t, i]), int(b1[t, i])), int(mnk[0] + counts[1] * (mnk[1] + counts[2] * mnk[2]))

    if not full:
        return {"shape": (nthr, nval), "index": index, "tile": (T0, T1), **extra}, None
    return {"shape": (nthr, nval), "index": index, "tile": (T0, T1), "where": where}, None


def _numpy():
    import numpy  # not a project module: loaded with the first check, as atoms.check does
    return numpy


def _perm_values(p):
    """The permutation tile of one mode as a vectorised function of the pre-permutation coordinate."""
    if p is None or type(p) is int:
        return lambda x: x
    lay = as_layout(p, "permutation")
    table = _numpy().array(int_layout(lay, "permutation").values(), dtype="int64")
    return table.__getitem__


def _counterexample(operand: str, axes: tuple, want: dict, t: int, v: int, got: int, exp) -> Counterexample:
    T0, T1 = want["tile"]
    (b0, b1), atom_id = want["where"](t, v)

    def el(idx):
        if idx is None or not 0 <= idx < T0 * T1:
            return None
        a, b = idx % T0, idx // T0
        return (b, a) if operand == "B" else (a, b)  # B: PTX writes (k, n)

    return tv_disagreement(operand, axes, t, v, got, exp, el(got), el(exp), atom=(b0, b1), group=atom_id)
