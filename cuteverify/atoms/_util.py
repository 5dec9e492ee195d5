"""Layout plumbing the atom layer needs in CuTe C++'s exact form: tilers with ``_`` (None), ``zip2_by``-style
zipped divides, CuTe's slicing, flat coordinates by stride, ``product_each``, and DSL printing of tilers.

Everything here is built from the algebra (``logical_divide``, ``composition``, ...) and the core (slicing);
it only rearranges modes, so it is exact in every stride domain the algebra accepts.
"""
from __future__ import annotations

from ._alg import composition, logical_divide
from ..core.notation.interop import as_layout
from ..core.layout import Layout, make_layout, size
from ..core.tuples import flatten, product
from ..errors import NotAdmissibleError

__all__ = [
    "as_tile_item",
    "compose_by_leaf",
    "compose_mode0",
    "first_size",
    "flat_coord",
    "format_tile",
    "mode",
    "product_each",
    "slice_offset",
    "zipped_divide_keep",
]


def as_tile_item(x, what: str):
    """One tiler entry as CuTe reads it: None stays ``_``, an int ``n`` is ``n:1``, a plain tuple of ints is a
    shape (``(8,2)`` is ``(8,2):(1,8)``), text or another library's layout is read by ``as_layout`` (bad text:
    its ``ParseError`` naming ``what``)."""
    if x is None or isinstance(x, Layout):
        return x
    if type(x) is int and x <= 0:
        raise NotAdmissibleError(what, f"a tile extent must be positive, got {x}")
    return as_layout(x, what)


def mode(layout: Layout, i: int) -> Layout:
    """Mode ``i`` of a layout; a rank-1 layout with a leaf shape is its own mode 0 (CuTe's ``layout<0>``)."""
    if type(layout.shape) is not tuple:
        if i != 0:
            raise NotAdmissibleError("mode", f"layout {layout} has rank 1: no mode {i}")
        return layout
    return layout[i]


def first_size(layout: Layout, i: int):
    return size(mode(layout, i))


def _zip2_by(t, guide):
    """CuTe's ``zip2_by``: pair up the (tile, rest) halves of the modes a tiler divided; where the guide is a
    leaf (a layout or ``_``) the mode itself must be a pair."""
    if type(guide) is tuple:
        if type(t) is not tuple or len(t) < len(guide):
            raise NotAdmissibleError("zipped_divide", "the layout has fewer modes than the tiler")
        pairs = [_zip2_by(t[i], g) for i, g in enumerate(guide)]
        firsts = tuple(p[0] for p in pairs)
        seconds = tuple(p[1] for p in pairs) + tuple(t[len(guide):])
        return firsts, seconds
    if type(t) is not tuple or len(t) != 2:
        raise NotAdmissibleError("zipped_divide", "a mode kept by `_` must have rank 2 (a (tile, rest) pair) to "
                                 "be zipped, as CuTe's zip2_by requires")
    return t[0], t[1]


def zipped_divide_keep(layout: Layout, tiler) -> Layout:
    """CuTe C++'s ``zipped_divide(layout, tiler)`` for a tiler that may hold ``_`` (None) and nested tilers:
    ``tile_unzip(logical_divide(layout, tiler), tiler)``. A ``_`` mode is kept undivided and, being rank 2,
    contributes its first half to the tile mode and its second to the rest (CuTe's ``zip2_by``).
    Post-condition: the same function as ``logical_divide(layout, tiler)`` up to a rearrangement of modes."""
    if type(tiler) is not tuple:
        return _zipped_plain(layout, tiler)
    divided = logical_divide(layout, tiler)
    shapes = _zip2_by(divided.shape, tiler)
    strides = _zip2_by(divided.stride, tiler)
    return divided.with_((shapes[0], shapes[1]), (strides[0], strides[1]))


def _zipped_plain(layout, tile):
    d = logical_divide(layout, tile)
    return d


def compose_mode0(layout: Layout, f) -> Layout:
    """``layout.compose(f, _)``: mode 0 composed with ``f`` (a layout or a tiler), the other modes kept.
    Composition with a layout is CuTe's (:func:`compose_by_leaf`)."""
    rest = [layout[i] for i in range(1, len(layout))]
    return make_layout(compose_by_leaf(layout[0], f), *rest)


def compose_by_leaf(a: Layout, b) -> Layout:
    """CuTe's ``composition(A, B)`` for a layout B: distributed over B's leaves, ``A o B = (A o b_0, A o b_1,
    ...)`` in B's profile (C++ ``composition_impl`` recurses on a tuple shape), so ``R(c) = sum_i A(b_i(c_i))``.

    The algebra's ``composition`` is the function ``A(B(c))`` and refuses a B whose leaves, added, carry from
    one mode of A into the next, where the two differ; the atom layer builds such B (the tiled copy of a
    replicated A operand maps several threads into one range) and needs CuTe's definition there, as CuTe DSL
    computes it. Where the
    algebra accepts B the two agree, so it is tried first (it is also the fast path).
    Valid for: what the algebra's composition accepts leaf by leaf (int and symbolic strides, plain A)."""
    try:
        return composition(a, b)
    except NotAdmissibleError:
        if not isinstance(b, Layout) or type(b.shape) is not tuple:
            raise
    parts = [composition(a, Layout(s, d)) for s, d in zip(flatten(b.shape), flatten(b.stride))]
    it = iter(parts)

    def rebuild(shape):
        if type(shape) is tuple:
            pairs = [rebuild(x) for x in shape]
            return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
        r = next(it)
        return r.shape, r.stride

    shape, stride = rebuild(b.shape)
    return Layout(shape, stride)


def slice_offset(layout: Layout, crd):
    """CuTe C++'s ``slice_and_offset(crd, layout)``: ``(sublayout, offset)``. The free (``_``, None) modes are
    gathered in order with every tuple level of the coordinate flattened (C++'s ``slice`` concatenates the
    per-mode results), so ``((_,_),_)`` on ``((a,b),c)`` gives ``(a,b,c)`` and ``(_,0)`` on ``(a,b)`` the
    1-tuple ``(a)``; ``offset`` is the layout's value at the fixed coordinates. A fully fixed coordinate gives
    ``(None, offset)``."""
    if crd is None:
        return layout, 0
    shapes, strides, offset = [], [], 0

    def walk(c, s, d):
        nonlocal offset
        if c is None:
            shapes.append(s)
            strides.append(d)
        elif type(c) is tuple:
            if type(s) is not tuple or len(s) != len(c):
                raise NotAdmissibleError("slice", f"coordinate {c} does not match the shape {s}")
            for ci, si, di in zip(c, s, d):
                walk(ci, si, di)
        else:
            offset = offset + Layout(s, d)(c)

    walk(crd, layout.shape, layout.stride)
    if not shapes:
        return None, offset
    if type(crd) is not tuple:
        return layout.with_(shapes[0], strides[0]), offset
    return layout.with_(tuple(shapes), tuple(strides)), offset


def flat_coord(layout: Layout, idx: int) -> tuple:
    """CuTe's ``layout.get_flat_coord(idx)``: per leaf ``(idx / d) % s`` (a size-1 leaf gives 0), then each top
    mode's coordinate folded to one index (colexicographic). Admissible for layouts whose leaves of size > 1
    have positive integer strides (the thread layouts of tiled MMAs)."""
    shapes, strides = flatten(layout.shape), flatten(layout.stride)
    for s, d in zip(shapes, strides):
        if s != 1 and (type(d) is not int or d <= 0):
            raise NotAdmissibleError("get_flat_coord", f"a mode of size {s} needs a positive integer stride, "
                                     f"got {d}", str(layout))
    top = layout.shape if type(layout.shape) is tuple else (layout.shape,)
    topd = layout.stride if type(layout.shape) is tuple else (layout.stride,)
    out = []
    for s, d in zip(top, topd):
        fs, fd = flatten(s), flatten(d)
        total, mult = 0, 1
        for ss, dd in zip(fs, fd):
            c = 0 if ss == 1 else (idx // dd) % ss
            total += c * mult
            mult *= ss
        out.append(total)
    return tuple(out)


def product_each(shape) -> tuple:
    """CuTe's ``product_each``: the size of every top mode (a leaf shape gives a 1-tuple)."""
    if type(shape) is not tuple:
        return (shape,)
    return tuple(product(s) for s in shape)


def format_tile(tile) -> str:
    """A tiler as CuTe DSL prints it (``pretty_str``): ``(32:1,(8,2,2):(1,16,8),16:1)``, ``_`` for None."""
    if tile is None:
        return "_"
    if type(tile) is tuple:
        return "(" + ",".join(format_tile(t) for t in tile) + ")"
    return str(tile)
