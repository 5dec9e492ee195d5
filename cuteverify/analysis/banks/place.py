"""Where a warp-level access lands in the shared-memory tensor it goes through (issue 25).

A tiled copy's TV layout, or a TV layout ``(thread, value) -> tile index``, indexes a *tile*: column-major over
the tile's shape (CuTe's ``tiler_mn``). A kernel applies it to a larger shared-memory tensor tile by tile: CuTe's
``partition_S`` / ``partition_D`` divide the tensor by the tiler (``zipped_divide(smem, tiler_mn)``) and
``copy`` issues the atom for every value chunk of every tile. :func:`place_access` computes exactly those
element indices, so the bank and vector analyses see the addresses the kernel touches, never a tile's
indices read as the first indices of a differently shaped tensor.

Definition. ``smem`` has shape ``S`` (its domain: coordinates, or their colexicographic index). Placing

* a :class:`~cuteverify.atoms.TiledCopy` on its shared-memory ``side``: CuTe's ``tidfrg_S/D`` of ``S``'s
  compact layout, ``(Thr, (FrgV, FrgX), (Rest...))``; the partition only composes on the right of the
  tensor's layout, so ``smem o that`` is the kernel's partition of ``smem`` for every thread at once, swizzled
  or not (``atoms.partition.through_swizzle`` is the same identity);
* a TV layout with a ``tile`` (a shape ``(T0, T1, ...)`` or one extent): ``zipped_divide(Layout(S), tile)``,
  ``((tile), (rest))``, evaluated at ``(access(t, v), r)`` for every tile ``r`` of the rest;
* a TV layout without a tile: evaluated directly when its strides are coordinates (``E<i>``) or when its
  codomain extent (largest tile index + 1) equals ``size(S)``, else refused (the two index spaces cannot be
  related without the tile).

Admissibility: integer shapes and strides; a tile of rank at most ``rank(S)`` whose extents divide ``S``'s
modes (the divide must be one CuTe computes); the access's indices inside its tile. Anything else is a
:class:`~cuteverify.errors.NotAdmissibleError` that names both shapes.

Post-condition: ``Placement.idx[t, v + V*r]`` is the smem element index of thread ``t``'s value ``v`` (``V``
values per tile, ``per_iter``) in tile ``r`` (colexicographic over the rest modes): for a plain tile
``(T0, T1)``, the coordinate ``(r0*T0 + i0, r1*T1 + i1)`` with ``(i0, i1)`` the tile coordinate of
``access(t, v)``. A thread's values of one tile are consecutive columns, so a vector never spans two tiles.
"""
from __future__ import annotations


import numpy as np

from ...algebra import zipped_divide
from ...atoms import TiledCopy
from ...core.layout import Layout, idx2crd, size
from ...core.tuples import flatten, is_tuple
from ...core.notation.tiles import read_extents
from ...errors import CuteVerifyError, NotAdmissibleError, ParseError
from .model import tv_shape, access_offsets, layout_values

__all__ = ["Placement", "copy_smem_side", "copy_tv_over", "copy_width", "describe_values", "place_access", "read_tile"]


class Placement:
    """An access placed over an smem shape (module docstring). ``idx``: int64 ``(threads, per_iter *
    tiles)`` smem element indices; ``per_iter``: values per thread per tile; ``tiles``: tiles (iterations);
    ``tile``: the tile's shape (None: evaluated directly); ``text``: how it was placed, for verdicts."""

    __slots__ = ("idx", "per_iter", "tiles", "tile", "text")

    def __init__(self, idx, per_iter, tiles, tile, text):
        self.idx, self.per_iter, self.tiles, self.tile, self.text = idx, per_iter, tiles, tile, text


def _fmt_shape(s):
    if is_tuple(s):
        return "(" + ",".join(_fmt_shape(x) for x in s) + ")"
    return str(s)


def read_tile(tile, what="tile") -> tuple:
    """A tile shape from ``(16, 64)``, ``[16, 64]``, ``16`` or the text ``16x64`` / ``(16,64)``: a tuple of
    positive ints (``core.tiles.read_extents``, the one extents reader), else an input error naming ``what``."""
    try:
        return read_extents(tile, what)
    except ParseError as e:  # the same input error, in this analysis's words
        raise NotAdmissibleError(what, f"expected a tile shape such as 16x64 or (16,64), got {tile!r} ({e})") \
            from None


def copy_smem_side(tc, side=None, op="banks") -> str:
    """The side of ``tc`` that is shared memory: ``side`` when given, else the side that is not the registers
    (ldmatrix, whose register side is the destination: the source; otherwise the destination)."""
    if side not in (None, "src", "dst"):
        raise NotAdmissibleError(op, f"side must be src or dst, got {side!r}")
    return side or ("src" if tc.reg_side == "dst" else "dst")


def copy_width(tc, side):
    """``(bytes per thread per atom call on ``side``, capped at 16; phases)``: the width of every instruction
    the copy issues there, and ``"ldmatrix"`` for ldmatrix / stmatrix (8-lane phases of 16-byte rows)."""
    bl = tc.bit_layout_src if side == "src" else tc.bit_layout_dst
    bits = size(bl[1]) if is_tuple(bl.shape) and len(bl.shape) > 1 else 1
    vb = min(16, bits // 8) if type(bits) is int else None
    if vb is not None and (vb <= 0 or vb & (vb - 1)):
        vb = None
    ptx = ((tc.spec.ptx if tc.spec is not None else "") or "").lower()
    return vb, ("ldmatrix" if ptx.startswith(("ldmatrix", "stmatrix")) else None)


def _integer_strides(access):
    return all(type(d) is int for d in flatten(access.stride))


def _check_divides(tile, shape, who, op):
    """Refuse, naming both shapes, a tile the divide cannot place: more modes than the tensor, or an extent
    that does not divide its mode."""
    modes = shape if is_tuple(shape) else (shape,)
    if len(tile) > 1 and len(tile) > len(modes):
        raise NotAdmissibleError(op, f"{who} {_fmt_shape(tile)} has {len(tile)} modes, the smem layout's "
                                          f"shape {_fmt_shape(shape)} has {len(modes)}: they cannot be related")
    sizes = [size(m) for m in modes] if len(tile) > 1 else [size(shape)]
    for i, (t, n) in enumerate(zip(tile, sizes)):
        if type(n) is not int or n % t:
            raise NotAdmissibleError(op, f"{who} {_fmt_shape(tile)} does not divide the smem layout's shape "
                                              f"{_fmt_shape(shape)} (mode {i}: {n} is not a multiple of {t})")


def _divide(fn, tile, shape, who, op):
    try:
        return fn()
    except CuteVerifyError as e:
        raise NotAdmissibleError(op, f"{who} {_fmt_shape(tile)} cannot be placed over the smem layout's "
                                          f"shape {_fmt_shape(shape)}: {e}") from None


def _tiles_text(tile, n):
    return f"{'x'.join(map(str, tile))} tile placed over the smem tensor as {n} tile{'s' if n != 1 else ''}"


def place_access(access, smem, tile=None, side=None, op="banks") -> Placement:
    """Place ``access`` (a TiledCopy or a TV layout) over ``smem`` (a layout; None: ``access`` yields offsets,
    taken as they are). ``tile``: the TV layout's tile shape (:func:`read_tile` forms); for a tiled copy it
    must equal the copy's tiler. ``side``: the copy's shared-memory side (:func:`copy_smem_side`). ``op``: the
    analysis named in a refusal."""
    tile = read_tile(tile, op) if tile is not None else None
    if isinstance(access, TiledCopy):
        if smem is None:
            raise NotAdmissibleError(op, "a tiled copy is placed over an smem layout: give smem")
        return _place_copy(access, smem, tile, side, op)
    if side is not None:
        raise NotAdmissibleError(op, "side belongs to a tiled copy, not to a TV layout")
    T, V = tv_shape(access)
    if smem is None or (tile is None and not _integer_strides(access)):
        if tile is not None:
            raise NotAdmissibleError(op, "tile places a TV layout over an smem layout: give smem"
                                     if smem is None else "an access with coordinate strides (E<i>) names smem "
                                                          "coordinates itself: give no tile")
        idx, _ = access_offsets(smem, access) if smem is not None else (layout_values(access).reshape(V, T).T,
                                                                         None)
        return Placement(idx, V, 1, None, None)
    if not _integer_strides(access):
        raise NotAdmissibleError(op, "an access with coordinate strides (E<i>) names smem coordinates "
                                          "itself: give no tile")
    shape, n = smem.shape, size(smem)
    vals = layout_values(access)
    if vals.size and vals.min() < 0:
        raise NotAdmissibleError(op, f"the access {access} reaches tile index {int(vals.min())} < 0")
    extent = int(vals.max()) + 1 if vals.size else 0
    if tile is None:
        if extent != n:
            raise NotAdmissibleError(op, f"the access {access} indexes a tile of {extent} elements (its "
                                              f"largest index + 1), the smem layout's shape {_fmt_shape(shape)} has "
                                              f"{n}: give the access's tile shape (tile, e.g. 16x64) to place it "
                                              "over the smem tensor as partition_S/D does")
        return Placement(vals.reshape(V, T).T, V, 1, None, None)
    tsize = int(np.prod(tile))
    if extent > tsize:
        raise NotAdmissibleError(op, f"the access {access} reaches tile index {extent - 1}, outside its "
                                          f"{_fmt_shape(tile)} tile ({tsize} elements)")
    _check_divides(tile, shape, "the access's tile", op)
    tiler = tile if len(tile) > 1 else tile[0]
    Z = _divide(lambda: zipped_divide(Layout(shape), tiler), tile, shape, "the access's tile", op)
    zv = layout_values(Z).reshape(-1, tsize)                 # (tiles, tile index)
    R = zv.shape[0]
    # column v + V * r of thread t: zv[r, access(t, v)], gathered at once in that order (no transposed copy)
    at = vals.reshape(V, T).T                                # (threads, values) tile indices
    idx = zv.ravel()[at[:, None, :] + (tsize * np.arange(R, dtype=np.int64))[None, :, None]].reshape(T, R * V)
    return Placement(idx, V, R, tile, _tiles_text(tile, R))


def _place_copy(tc, smem, tile, side, op):
    side = copy_smem_side(tc, side, op)
    ctile = tuple(size(t) for t in tc.tiler_mn)
    if any(type(x) is not int for x in ctile):
        raise NotAdmissibleError(op, f"the copy's tile {ctile} must have concrete extents")
    if tile is not None and tile != ctile:
        raise NotAdmissibleError(op, f"tile {_fmt_shape(tile)} is not the copy's tile {_fmt_shape(ctile)}: a "
                                          "tiled copy is placed by its own tiler")
    shape = smem.shape
    _check_divides(ctile, shape, "the copy's tile", op)
    frg = _divide(lambda: tc.tidfrg(side, Layout(shape)), ctile, shape, "the copy's tile", op)
    # (Thr, (FrgV, FrgX), (Rest...)): thread fastest, then the values of one tile, then the tile
    T = size(frg[0])
    V = size(frg[1])
    vals = layout_values(frg)
    R = vals.size // (T * V)
    idx = vals.reshape(R * V, T).T
    return Placement(idx, V, R, ctile, f"the copy's {side} side, its " + _tiles_text(ctile, R))


def describe_values(pl, shape, thread, cols) -> str:
    """``thread``'s placed values ``cols`` in words: the values of its tile, the tile, and the smem elements
    (coordinates of ``shape``, or indices when ``shape`` is None), e.g. ``values 0..7 of tile 3 (smem elements
    (48,0) .. (48,7))``."""
    cols = list(cols)
    if not cols:
        return f"thread {thread}"
    r, v0 = divmod(cols[0], pl.per_iter)
    v1 = cols[-1] - r * pl.per_iter
    vals = f"value {v0}" if v0 == v1 else f"values {v0}..{v1}"
    where = f" of tile {r}" if pl.tiles > 1 else ""
    els = [int(pl.idx[thread, c]) for c in (cols[0], cols[-1])]
    if shape is not None and is_tuple(shape):
        els = [_fmt_shape(idx2crd(e, shape)) for e in els]
    span = f"{els[0]}" if len(cols) == 1 else f"{els[0]} .. {els[1]}"
    return f"thread {thread}'s {vals}{where} (smem element{'s' if len(cols) > 1 else ''} {span})"


def copy_tv_over(tc, side, tensor) -> Layout:
    """Thread ``t``'s values of ``tc`` on ``side`` over a whole ``tensor`` (a plain layout over the copy's tile
    coordinates, possibly symbolic), as one rank-2 layout ``(Thr, (FrgV, FrgX, Rest...)) -> tensor(...)``.

    Definition: CuTe's ``tidfrg_S/D(tensor)``, ``(Thr, (FrgV, FrgX), (Rest...))`` with the last two modes
    joined: a thread's values of one tile come first, then the next tile, the order ``copy`` issues them.
    Admissibility: ``tensor``'s modes divisible by the copy's tiler (else an input error naming both shapes).
    Post-condition: ``result(t, v + V*r) == tensor(coordinate of value v of thread t in tile r)``; used for the
    global side of a ``cp.async`` copy (its gmem tensor), whose shared side :func:`place_access` places."""
    ctile = tuple(size(t) for t in tc.tiler_mn)
    shape = tensor.shape
    if all(type(size(m)) is int for m in (shape if is_tuple(shape) else (shape,))):
        _check_divides(ctile, shape, "the copy's tile", "cp.async passes")
    frg = _divide(lambda: tc.tidfrg(side, tensor), ctile, shape, "the copy's tile", "cp.async passes")
    return Layout((frg.shape[0], (frg.shape[1], frg.shape[2])), (frg.stride[0], (frg.stride[1], frg.stride[2])),
                  assumptions=getattr(tensor, "assumptions", None))
