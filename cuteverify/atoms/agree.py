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
from ..hardware.checks.agree import tiled_disagreement, tiled_mma_table
from ..hardware.library.intlayout import int_layout
from ..hardware.library.spec import OPERAND_MODES, TILED_OPERANDS
from ..prover import Verdict
from ._util import mode
from .check import np_values
from .mma import TiledMma, make_tiled_mma

__all__ = ["agrees_tiled"]


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
    if operand not in TILED_OPERANDS:
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
    cex = tiled_disagreement(operand, tm.atom.spec.axes(operand), got, want)
    if cex is None:
        return done("proved")
    if lay_value(user, cex.detail["thread"], cex.detail["value"]) != cex.detail["user_index"]:  # pragma: no cover
        return done("unknown", reason=f"the counterexample did not re-check ({cex})")
    return done("refuted", counterexample=cex)


def _agrees_by_groups(lay: Layout, want: dict, np) -> bool:
    """Exact fast path for a plain layout: is it the hardware's table at every (thread, value)?

    The hardware's row of thread ``t`` depends on ``t`` only through its key (its thread in the atom, when the
    PTX formula reads the thread, and its atom coordinates in the operand's two modes), and a plain layout is
    separable, ``L(t, v) = L0(t) + L1(v)``. So ``L`` equals the table iff, for one representative ``r`` of
    every key, ``L0(r) + L1(v)`` is the representative's row for every ``v``, and ``L0`` is constant on every
    key's threads. Both are checked on every entry they speak of: an SS wgmma operand of 256 threads x 4096
    values needs 2 rows, not 10^6 entries. ``want``: the table by keys (``_hardware_table(full=False)``)."""
    reps, inverse = want["reps"], want["inverse"]
    if (want["index"] < 0).any():  # a formula hole: the full table names it
        return False
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
    """(:func:`~cuteverify.hardware.checks.agree.tiled_mma_table` of the tiled MMA, None), or (None, reason):
    each thread's ``(V, M, N, K)`` coordinate by enumerating ``thr_layout_vmnk`` (colexicographic coordinates
    of its 4 modes), not from its right inverse."""
    m0, m1 = OPERAND_MODES[operand]
    T0, T1 = tm.get_tile_size(m0), tm.get_tile_size(m1)
    if any(type(x) is not int for x in (T0, T1)):
        return None, "the tiled MMA's tile is symbolic"
    vmnk = tm.thr_layout_vmnk
    counts = [size(mode(vmnk, i)) for i in range(4)]
    nthr = size(vmnk)
    coords = [None] * nthr
    for i, t in enumerate(int_layout(vmnk, "thr_layout_vmnk").values()):
        c, rest = [], i
        for n in counts:
            c.append(rest % n)
            rest //= n
        if not 0 <= t < nthr or coords[t] is not None:
            return None, f"thr_layout_vmnk {vmnk} is not a bijection onto [0, {nthr})"
        coords[t] = tuple(c)
    return tiled_mma_table(tm.atom.spec, tm.atom.params, operand, coords, tuple(counts), (T0, T1),
                           (tm.permutation(m0), tm.permutation(m1)), full), None


def _numpy():
    import numpy  # not a project module: loaded with the first check, as atoms.check does
    return numpy
