"""Post-conditions of the atom layer, decided by enumeration of concrete TV layouts (every (thread, value) is
evaluated, so a proof is exact and a counterexample names the thread and the element).

``covers``: a TV layout covers its tile exactly once up to its broadcast: every element of ``[0, tile)`` is
held by exactly ``R`` (thread, value) pairs, ``R`` the product of the stride-0 thread leaves (A replicated
over the N threads of a tiled MMA, an SS wgmma operand over all 128 threads), and no pair leaves the tile.
``compatible_tv``: a tiled copy's register side holds, in every thread, exactly the elements the tiled MMA's
operand fragment holds in that thread (so ``retile`` only reorders registers).
``copy_vectorizes``: a tiled copy issued on a tensor moves each of its atom's registers as one aligned vector
(the check ``cute.copy`` makes when it recasts a partition into the atom's registers).
"""
from __future__ import annotations

import math

from ..core.layout import Layout, size
from ..core.swizzle import ComposedLayout, Swizzle
from ..core.tuples import flatten
from ..core.notation.tiles import read_extents
from ..errors import NotAdmissibleError
from ..hardware.library.spec import OPERAND_MODES
from ..prover.verdict import Counterexample, Differ, Mismatch, NotVectorizable, OutOfRange, Verdict
from ._util import mode

__all__ = ["compatible_tv", "copy_vectorizes", "covers", "np_values"]


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


def np_values(tv: Layout):
    """Every value of a concrete integer layout, colexicographic, as a numpy array (the tiles of a 256-thread
    wgmma hold ~10^5 (thread, value) pairs: vectorised, not a Python loop)."""
    import numpy as np  # not a project module: loaded with the first check, not with `import cuteverify`
    vals = np.zeros(1, dtype=np.int64)
    for s, d in zip(flatten(tv.shape), flatten(tv.stride)):
        vals = (vals[None, :] + (np.arange(s, dtype=np.int64) * d)[:, None]).ravel()
    return np, vals


def _tile_text(tile) -> str:
    return "x".join(str(x) for x in tile) if type(tile) is tuple else str(tile)


def covers(tv: Layout, tile, claim: str = "", indexes=None) -> Verdict:
    """Proved when ``tv`` (``(thread, value) -> index``) hits every index of the tile exactly ``R`` times
    (``R``: the thread mode's stride-0 extent) and nothing else; refuted with the element and the
    (thread, value) pairs otherwise.

    ``tile``: the tile's size, or its extents ``(M, N, ...)`` (CuTe's column-major tile: the index space is
    ``[0, M*N*...)``). ``indexes``: the extents of the tile ``tv`` was built for, when known (a tiled MMA's or
    tiled copy's TV layout); a claim about another tile is refuted before any enumeration, naming both, since a
    different tile of the same size orders its elements differently (a 64x512 TV layout read as 128x256 is not a
    cover of the 128x256 tile the claim means)."""
    _concrete(tv, "covers")
    if not isinstance(tile, int):  # extents in any form of the one reader: 128x64, (128,64), [128, 64]
        tile = read_extents(tile, "covers tile")
    claim = claim or f"covers({tv}, {_tile_text(tile)})"
    tile_size = 1
    for x in (tile if type(tile) is tuple else (tile,)):
        if type(x) is not int or x <= 0:
            raise NotAdmissibleError("covers", f"a tile is a positive size or extents, got {tile!r}")
        tile_size *= x
    if indexes is not None:
        known = 1
        for x in indexes:
            known *= x
        if (tuple(indexes) != tile) if type(tile) is tuple else (known != tile):
            return Verdict("refuted", claim, "shape", Mismatch(
                note=f"the layout indexes the {_tile_text(tuple(indexes))} tile it was built for, the "
                     f"claim names the tile {_tile_text(tile)}",
                detail={"layout_tile": tuple(indexes), "claim_tile": tile}))
    reduced = _drop_thread_broadcast(tv)
    if reduced is not tv and _covers(reduced, tile_size, claim).proved:
        # the stride-0 thread leaves repeat every value R times, so once each in the rest is R times each
        return Verdict("proved", claim, "enumeration")
    return _covers(tv, tile_size, claim)


def _drop_thread_broadcast(tv: Layout) -> Layout:
    t = mode(tv, 0)
    keep = [(s, d) for s, d in zip(flatten(t.shape), flatten(t.stride)) if d != 0 or s == 1]
    if len(keep) == len(flatten(t.shape)):
        return tv
    if not keep:
        keep = [(1, 0)]
    return Layout((tuple(s for s, _ in keep), tv.shape[1]), (tuple(d for _, d in keep), tv.stride[1]))


def _covers(tv: Layout, tile_size: int, claim: str) -> Verdict:
    nthr = size(mode(tv, 0))
    rep = _broadcast(tv)
    np, vals = np_values(tv)
    bad = np.nonzero((vals < 0) | (vals >= tile_size))[0]
    if bad.size:
        i, x = int(bad[0]), int(vals[bad[0]])
        return Verdict("refuted", claim, "enumeration", OutOfRange(
            coords=(i,), values=(x,), natural=((i % nthr, i // nthr),),
            note=f"thread {i % nthr} value {i // nthr} holds element {x}, outside the tile [0, {tile_size})",
            detail={"thread": i % nthr, "value_index": i // nthr, "element": x}))
    counts = np.bincount(vals, minlength=tile_size)
    wrong = np.nonzero(counts != rep)[0]
    if wrong.size:
        x = int(wrong[0])
        c = int(counts[x])
        holders = [int(i) for i in np.nonzero(vals == x)[0][:2]]
        kind = "missed" if c < rep else "collision"
        who = ", ".join(f"thread {i % nthr} value {i // nthr}" for i in holders) or "no thread"
        return Verdict("refuted", claim, "enumeration", Counterexample.of(
            kind, coords=tuple(holders), values=(x,) * len(holders), value=x,
            natural=tuple((i % nthr, i // nthr) for i in holders),
            note=f"element {x} is held {c} times (expected {rep}): {who}",
            detail={"element": x, "count": c, "expected": rep, "thread": holders[0] % nthr if holders else None}))
    return Verdict("proved", claim, "enumeration")


def _per_thread(tv: Layout):
    """Row ``t``: thread ``t``'s elements, sorted (the multiset it holds)."""
    nthr = size(mode(tv, 0))
    np, vals = np_values(tv)
    return np, np.sort(vals.reshape(-1, nthr).T, axis=1)


#: where an MMA spec's operand lives when not in registers (the spec's ``operands.<X>.from``)
_OPERAND_HOME = {"smem_desc": "shared memory through a descriptor", "tmem": "tensor memory (TMEM)"}


def compatible_tv(tiled_copy, tiled_mma, operand: str) -> Verdict:
    """Proved when, for every thread, the elements of the tiled copy's register side
    (``layout_dst_tv_tiled`` for ldmatrix, ``layout_src_tv_tiled`` for stmatrix / UniversalCopy) are the
    elements of ``tiled_mma.tv_layout_<operand>_tiled`` for that thread (as multisets, over the same tile);
    refuted with the first thread and element that differ. Admissible for an operand the MMA reads from
    registers; an operand in shared memory (wgmma / UMMA descriptors) or TMEM is an input error naming it."""
    if operand not in ("A", "B", "C"):
        raise NotAdmissibleError("compatible", f"operand must be A, B or C, got {operand!r}")
    src = _OPERAND_HOME.get(((getattr(tiled_mma, "spec", None) and tiled_mma.spec.data.get("operands")) or {})
                            .get(operand, {}).get("from"))
    if src is not None:  # no thread holds this operand in registers: there is no fragment to compare with
        raise NotAdmissibleError("compatible", f"operand {operand} of {tiled_mma.name} is read from {src}, not "
                                 f"from registers, so the register side of {tiled_copy.name} has no fragment to "
                                 "match" + ("; check the smem tile with an `operand` claim" if operand != "C" else ""))
    reg = tiled_copy.layout_tv(tiled_copy.reg_side)
    frag = tiled_mma.tv_layout_tiled(operand)
    claim = f"compatible({tiled_copy.name}, {tiled_mma.name}.{operand})"
    for lay in (reg, frag):
        _concrete(lay, "compatible")
    if tiled_copy.size != tiled_mma.size:  # each thread's copy must produce what the same thread's MMA reads
        return Verdict("refuted", claim, "shape", Mismatch(
            note=f"the tiled copy {tiled_copy.name} has {tiled_copy.size} threads, the tiled MMA "
                 f"{tiled_mma.name} has {tiled_mma.size}",
            detail={"copy_threads": tiled_copy.size, "mma_threads": tiled_mma.size}))
    tile = tuple(tiled_mma.get_tile_size(i) for i in OPERAND_MODES[operand])
    ctile = tuple(size(t) for t in tiled_copy.tiler_mn)
    if tile != ctile:
        return Verdict("refuted", claim, "shape", Mismatch(
            note=f"the copy tiles {ctile}, the MMA's {operand} tile is {tile}"))
    np, a = _per_thread(reg)
    _, b = _per_thread(frag)
    if a.shape != b.shape:
        return Verdict("refuted", claim, "shape", Mismatch(
            note=f"the copy holds {a.shape[1]} values in each of {a.shape[0]} threads, the tiled MMA "
                 f"{b.shape[1]} in each of {b.shape[0]}"))
    rows = np.nonzero((a != b).any(axis=1))[0]
    if rows.size:
        t = int(rows[0])
        only_copy = sorted(set(a[t].tolist()) - set(b[t].tolist()))
        only_mma = sorted(set(b[t].tolist()) - set(a[t].tolist()))
        x = (only_copy or only_mma or [int(a[t][np.nonzero(a[t] != b[t])[0][0]])])[0]
        side = "the copy writes" if only_copy else "the MMA reads"
        return Verdict("refuted", claim, "enumeration", Differ(
            coords=(t,), values=(x,), note=f"thread {t}: {side} element {x} and the other does not",
            detail={"thread": t, "element": x}))
    return Verdict("proved", claim, "enumeration")


#: PTX families whose register side is an array of 32-bit registers (copy_sm75/sm90/sm100.hpp ``DRegisters`` /
#: ``SRegisters``: ``uint32_t[N]``); their shared-memory side is one 128-bit row per thread. UniversalCopy<T>
#: and cp.async<T> move one ``T`` on both sides.
_REG32 = ("ldmatrix", "stmatrix", "movmatrix", "tcgen05")


def _vector_bits(tiled_copy, side: str, nvals: int) -> int:
    """The bits ``copy_unpack`` recasts one register of ``side`` to (``sizeof(RegType)``)."""
    spec = tiled_copy.spec
    ops = (spec.data.get("operands") or {}) if spec is not None else {}
    if (ops.get(side) or {}).get("from") == "tmem":
        raise NotAdmissibleError("copy_vectorizes", f"the {side} side of {tiled_copy.name} is tensor memory, "
                                 "addressed by lane and column, not by vectors")
    ptx = ((spec.ptx if spec is not None else "") or "").lower()
    if ptx.startswith(_REG32) and side == tiled_copy.reg_side:
        return 32
    return nvals * tiled_copy.value_bits


def copy_vectorizes(tiled_copy, layout, side: str) -> Verdict:
    """Proved when ``cute.copy(tiled_copy, ...)`` can issue the copy with ``layout`` (a layout over the tiled
    copy's tile coordinates, plain or swizzled) on ``side`` (``"src"`` / ``"dst"``): for every thread, the
    partition ``partition_S/D(layout)`` puts the values of each of the atom's registers at consecutive element
    offsets, the first a multiple of the register's value count.

    Definition (C++ ``copy_unpack``, copy_traits.hpp; CuTe DSL's "cannot vectorize copy ... strides must be 1" and
    pointer-alignment checks): the atom's ``NumVal`` values of one copy instruction are recast into its registers
    (``RegNum`` of ``sizeof(RegType)``: one ``T`` for UniversalCopy<T> / cp.async<T>, the 128-bit row of an
    ldmatrix / stmatrix shared-memory side, 32-bit registers on the register side of ldmatrix, stmatrix and
    tcgen05); the recast exists exactly when each register's ``k = RegBits / value_bits`` values are ``k``
    consecutive elements, and the access is legal when they start ``k``-aligned (the tensor's base taken as
    aligned). Evaluated at every thread, every atom instance and every register (numpy, exact).
    Admissibility: a concrete integer layout whose rank matches the tiler; a TMEM side is not vector-addressed.
    Refuted with the thread, the atom instance's values and their element offsets, and the cause."""
    if side not in ("src", "dst"):
        raise NotAdmissibleError("copy_vectorizes", f"side must be src or dst, got {side!r}")
    atom_tv = tiled_copy.layout_src_tv if side == "src" else tiled_copy.layout_dst_tv
    nvals = size(mode(atom_tv, 1))
    k = max(1, _vector_bits(tiled_copy, side, nvals) // tiled_copy.value_bits)
    swizzle, offset, plain = None, 0, layout
    if isinstance(layout, ComposedLayout):
        if not isinstance(layout.inner, Swizzle) or not isinstance(layout.outer, Layout) or \
                type(layout.offset) is not int:
            raise NotAdmissibleError("copy_vectorizes", "needs a layout or a swizzle composed with a layout",
                                     str(layout))
        swizzle, offset, plain = layout.inner, layout.offset, layout.outer
    frg = tiled_copy.tidfrg(side, plain)  # (Thr, (FrgV, FrgX), Rest...)
    if not frg.is_concrete or not all(type(d) is int for d in flatten(frg.stride)):
        raise NotAdmissibleError("copy_vectorizes", "needs a concrete layout with integer strides", str(layout))
    nthr = size(mode(frg, 0))
    np, offs = np_values(frg)
    offs = offs + offset
    if swizzle is not None:
        offs = swizzle(offs)
    k = math.gcd(k, nvals)
    # [atom instance, register, value in the register, thread] (colexicographic)
    regs = offs.reshape(-1, nvals // k, k, nthr)
    first = regs[:, :, :1, :]
    steps = np.arange(regs.shape[2], dtype=np.int64)[None, None, :, None]
    bad_run = (regs != first + steps).any(axis=2)
    bad_align = (first[:, :, 0, :] % regs.shape[2]) != 0
    side_name = {"src": "source", "dst": "destination"}[side]
    claim = f"{tiled_copy.name} vectorizes on its {side_name} side over {layout}"
    for bad, cause in ((bad_run, "are not consecutive elements"), (bad_align, "start at an offset that is not a "
                                                                               "multiple of the vector")):
        hits = np.argwhere(bad)
        if hits.size:
            inst, reg, t = (int(x) for x in hits[np.lexsort((hits[:, 0], hits[:, 1], hits[:, 2]))][0])
            got = [int(x) for x in regs[inst, reg, :, t]]
            n = regs.shape[2]
            what = f"{n} values" if n > 1 else "the value"
            return Verdict("refuted", claim, "enumeration", NotVectorizable(
                coords=(t,), values=tuple(got),
                note=f"thread {t}, copy {inst}, register {reg}: the {what} one {n * tiled_copy.value_bits}-bit "
                     f"register of {tiled_copy.name} moves are at element offsets {got}, which {cause} "
                     f"(the atom moves {nvals} {tiled_copy.value_type} values per thread on its {side_name} side)",
                detail={"thread": t, "copy": inst, "register": reg, "offsets": got, "vector": n}))
    return Verdict("proved", claim, "enumeration")
