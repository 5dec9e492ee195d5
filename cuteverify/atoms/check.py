"""Post-conditions of the atom layer, decided by enumeration of concrete TV layouts (every (thread, value) is
evaluated, so a proof is exact and a counterexample names the thread and the element).

``covers``: a TV layout covers its tile exactly once up to its broadcast: every element of ``[0, tile)`` is
held by exactly ``R`` (thread, value) pairs, ``R`` the product of the stride-0 thread leaves (A replicated
over the N threads of a tiled MMA, an SS wgmma operand over all 128 threads), and no pair leaves the tile.
``compatible_tv``: a tiled copy's register side holds, in every thread, exactly the elements the tiled MMA's
operand fragment holds in that thread (so ``retile`` only reorders registers).
"""
from __future__ import annotations

from collections import Counter

from ..core.layout import Layout, size
from ..core.tuples import flatten
from ..errors import NotAdmissibleError
from ..prover import Counterexample, Verdict
from ._util import mode

__all__ = ["covers", "compatible_tv"]


def _concrete(tv: Layout, what: str):
    if not tv.is_concrete or not all(type(d) is int for d in flatten(tv.stride)):
        raise NotAdmissibleError(what, "needs a concrete TV layout with integer strides", str(tv))
    if type(tv.shape) is not tuple or len(tv.shape) != 2:
        raise NotAdmissibleError(what, "needs a rank-2 (thread, value) layout", str(tv))


def _broadcast(tv: Layout) -> int:
    t = mode(tv, 0)
    r = 1
    for s, d in zip(flatten(t.shape), flatten(t.stride)):
        if d == 0:
            r *= s
    return r


def covers(tv: Layout, tile_size: int, claim: str = "") -> Verdict:
    """Proved when ``tv`` (``(thread, value) -> index``) hits every index of ``[0, tile_size)`` exactly
    ``R`` times (``R``: the thread mode's stride-0 extent) and nothing else; refuted with the element and the
    (thread, value) pairs otherwise."""
    _concrete(tv, "covers")
    claim = claim or f"covers({tv}, {tile_size})"
    nthr = size(mode(tv, 0))
    rep = _broadcast(tv)
    vals = tv.values()
    counts = Counter(vals)
    for i, x in enumerate(vals):
        if not 0 <= x < tile_size:
            return Verdict("refuted", claim, "enumeration", Counterexample(
                "out-of-range", coords=(i,), values=(x,), natural=((i % nthr, i // nthr),),
                note=f"thread {i % nthr} value {i // nthr} holds element {x}, outside the tile [0, {tile_size})",
                detail={"thread": i % nthr, "value_index": i // nthr, "element": x}))
    for x in range(tile_size):
        c = counts.get(x, 0)
        if c != rep:
            holders = [i for i, v in enumerate(vals) if v == x][:2]
            kind = "missed" if c < rep else "collision"
            who = ", ".join(f"thread {i % nthr} value {i // nthr}" for i in holders) or "no thread"
            return Verdict("refuted", claim, "enumeration", Counterexample(
                kind, coords=tuple(holders), values=(x,) * len(holders), value=x,
                natural=tuple((i % nthr, i // nthr) for i in holders),
                note=f"element {x} is held {c} times (expected {rep}): {who}",
                detail={"element": x, "count": c, "expected": rep,
                        "thread": holders[0] % nthr if holders else None}))
    return Verdict("proved", claim, "enumeration")


def _per_thread(tv: Layout) -> list:
    nthr = size(mode(tv, 0))
    vals = tv.values()
    return [Counter(vals[t::nthr]) for t in range(nthr)]


def compatible_tv(tiled_copy, tiled_mma, operand: str) -> Verdict:
    """Proved when, for every thread, the elements of the tiled copy's register side
    (``layout_dst_tv_tiled`` for ldmatrix, ``layout_src_tv_tiled`` for stmatrix / UniversalCopy) are the
    elements of ``tiled_mma.tv_layout_<operand>_tiled`` for that thread (as multisets, over the same tile);
    refuted with the first thread and element that differ."""
    if operand not in ("A", "B", "C"):
        raise NotAdmissibleError("compatible", f"operand must be A, B or C, got {operand!r}")
    reg = tiled_copy.layout_tv(tiled_copy.ref_side)
    frag = tiled_mma.tv_layout_tiled(operand)
    claim = f"compatible({tiled_copy.name}, {tiled_mma.name}.{operand})"
    for lay in (reg, frag):
        _concrete(lay, "compatible")
    modes = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}[operand]
    tile = tuple(tiled_mma.get_tile_size(i) for i in modes)
    ctile = tuple(size(t) for t in tiled_copy.tiler_mn)
    if tile != ctile:
        return Verdict("refuted", claim, "shape", Counterexample(
            "mismatch", note=f"the copy tiles {ctile}, the MMA's {operand} tile is {tile}"))
    a, b = _per_thread(reg), _per_thread(frag)
    if len(a) != len(b):
        return Verdict("refuted", claim, "shape", Counterexample(
            "mismatch", note=f"the copy has {len(a)} threads, the tiled MMA {len(b)}"))
    for t, (ca, cb) in enumerate(zip(a, b)):
        if ca != cb:
            x = next(iter((ca - cb) or (cb - ca)))
            side = "the copy writes" if x in ca - cb else "the MMA reads"
            return Verdict("refuted", claim, "enumeration", Counterexample(
                "differ", coords=(t,), values=(x,), note=f"thread {t}: {side} element {x} and the other does not",
                detail={"thread": t, "element": x}))
    return Verdict("proved", claim, "enumeration")
