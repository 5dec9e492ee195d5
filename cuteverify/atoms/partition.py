"""Partitions of layouts: a sliced layout with its offset (what CuTe's tensor slicing returns for the layout
part of a tensor), ``local_tile``, ``local_partition`` and ``make_fragment_like`` as in CUTLASS's
``tensor_impl.hpp`` / ``layout.hpp``.
"""
from __future__ import annotations

from dataclasses import dataclass

from ._alg import tiled_product
from ..core.layout import Layout, make_layout
from ..core.notation.interop import as_layout
from ..core.swizzle import ComposedLayout
from ..core.tuples import flatten, unflatten
from ..core.notation.tiles import read_tiler
from ..errors import NotAdmissibleError
from ._util import (
    as_tile_item,
    flat_coord,
    product_each,
    slice_offset,
    zipped_divide_keep,
)

__all__ = ["Partitioned", "fragment_like", "local_partition", "local_tile", "through_swizzle"]


@dataclass(frozen=True)
class Partitioned:
    """A slice of a layout: ``value(c) = offset + layout(c)``. ``layout`` is what CuTe's partitioned tensor has
    as its layout, ``offset`` what its iterator moved by (both may be symbolic)."""

    layout: Layout
    offset: object = 0

    @property
    def shape(self):
        return self.layout.shape

    def __call__(self, *coord):
        return self.offset + self.layout(*coord)

    def values(self) -> list:
        return [self.offset + v for v in self.layout.values()]

    def __str__(self):
        return f"{self.offset} + {self.layout}" if self.offset != 0 else str(self.layout)


def through_swizzle(layout, part):
    """``part`` (a plain layout -> :class:`Partitioned`) applied to a swizzled ``Sw o off o L`` as CuTe applies a
    partition to a composed layout: to ``L``, the swizzle and offsets kept outside, ``Sw o (off + o) o P`` for
    ``part(L) = o + P``. Exact, since every partition only composes ``L`` on the right and slices it
    (``Sw(off + L(f(c))) = Sw(off + o + P(c))``). A plain layout is passed to ``part`` as is.
    Admissible for a composed layout whose outer layout is plain and whose offsets are integers."""
    if isinstance(layout, ComposedLayout):
        if not isinstance(layout.outer, Layout):
            raise NotAdmissibleError("partition", "a doubly composed layout cannot be partitioned", str(layout))
        p = part(layout.outer)
        if type(p.offset) is not int:
            raise NotAdmissibleError("partition", "a swizzled layout's partition needs an integer offset",
                                     str(layout))
        return Partitioned(ComposedLayout(layout.inner, layout.offset + p.offset, p.layout), 0)
    return part(layout)


def _with_offset(x):
    """``(layout, offset)`` of a partition's result (a ``Partitioned``) or of a layout (offset 0)."""
    return (x.layout, x.offset) if isinstance(x, Partitioned) else (x, 0)


def _tiler(tiler, what):
    if isinstance(tiler, Layout):
        return tiler
    tiler = read_tiler(tiler, what)  # text and lists: (16,64), 16x64, Tile<...>, [a;b] (the one tiler reader)
    if type(tiler) is tuple:
        return tuple(as_tile_item(t, what) for t in tiler)
    return as_tile_item(tiler, what)


def _dice(proj, xs):
    """CuTe's ``dice``: keep the entries of ``xs`` whose projection entry is not None (C++'s ``X``). Entries of
    ``xs`` past the projection's rank are kept, as CuTe DSL 4.8.1 does (CUTLASS's Hopper dense GEMM tiles with
    a rank-4 ``(m, n, _, l)`` coordinate and a rank-3 ``proj``: ``local_tile(mC, tile_mnk, (m,n,_,l), proj=(1,1,
    None))`` is the ``(bM, bN)`` tile at ``(m, n, l)``); C++ requires equal ranks ("Mismatched Ranks")."""
    if proj is None:
        return xs
    if type(proj) is not tuple:
        return xs
    return tuple(x for p, x in zip(proj, xs) if p is not None) + tuple(xs[len(proj):])


def local_tile(layout, tiler, coord, proj=None) -> Partitioned:
    """CuTe's ``local_tile(tensor, tiler, coord[, proj])`` on a layout: ``zipped_divide(layout, tiler)`` sliced
    at ``(_, ..., coord)`` (the tile at ``coord`` of the rest modes; None entries of ``coord`` keep a rest
    mode). ``proj`` (None entries drop a mode) applies to ``tiler`` and ``coord`` first.
    Post-condition: ``result(i) == layout(tile at coord)(i)`` with the tile's offset. A swizzled ``Sw o off o L``
    is tiled as CuTe tiles a composed layout: ``L`` is tiled, the swizzle and offsets stay outside
    (:func:`through_swizzle`)."""
    layout = layout if isinstance(layout, Partitioned) else as_layout(layout, "local_tile")
    if isinstance(layout, ComposedLayout):
        return through_swizzle(layout, lambda plain: local_tile(plain, tiler, coord, proj))
    lay, off0 = _with_offset(layout)
    if proj is not None:
        tiler, coord = _dice(proj, tuple(tiler)), _dice(proj, tuple(coord) if type(coord) is tuple else (coord,))
    t = _tiler(tiler, "local_tile")
    z = zipped_divide_keep(lay, t)
    r0 = len(t) if type(t) is tuple else 1
    rest = z[1]
    r1 = len(rest) if type(rest.shape) is tuple else 1
    tile_crd = tuple([None] * r0) if r0 > 1 else None
    if type(coord) is tuple:
        if len(coord) > r1:
            raise NotAdmissibleError("local_tile", f"coordinate {coord} has more modes than the {r1} rest modes")
        c = tuple(coord) + (None,) * (r1 - len(coord))
        c = c if r1 > 1 else c[0]
    else:
        c = coord
    sub, off = slice_offset(z, (tile_crd, c))
    return Partitioned(sub, off0 + off)


def local_partition(layout, tile, index: int, proj=None) -> Partitioned:
    """CuTe's ``local_partition(tensor, tile, index[, proj])`` on a layout: thread ``index`` of the thread
    layout ``tile`` takes, from every tile of shape ``product_each(tile)``, the element at its flat coordinate
    (``tile.get_flat_coord(index)``): ``zipped_divide(layout, shape(tile))(coord, _)``."""
    layout = layout if isinstance(layout, Partitioned) else as_layout(layout, "local_partition")
    if isinstance(layout, ComposedLayout):
        return through_swizzle(layout, lambda plain: local_partition(plain, tile, index, proj))
    lay, off0 = _with_offset(layout)
    tl = tile if isinstance(tile, Layout) else as_tile_item(tile, "local_partition")
    if proj is not None and type(proj) is tuple:
        keep = [i for i, p in enumerate(proj) if p is not None]
        tl = make_layout(*[tl[i] for i in keep]) if len(keep) > 1 else tl[keep[0]]
    shape_t = product_each(tl.shape)
    crd = flat_coord(tl, index)
    z = zipped_divide_keep(lay, shape_t)
    rest = z[1]
    r1 = len(rest) if type(rest.shape) is tuple else 1
    c0 = crd if len(crd) > 1 else crd[0]
    sub, off = slice_offset(z, (c0, tuple([None] * r1) if r1 > 1 else None))
    return Partitioned(sub, off0 + off)


def _compact_order(shape, order) -> tuple:
    """CuTe's ``compact_order`` for int orders: the stride of a leaf is the product of the shapes of the
    leaves with a strictly smaller order (a size-1 leaf gets 0)."""
    fs, fo = flatten(shape), flatten(order)
    strides = []
    for s, o in zip(fs, fo):
        d = 1
        for s2, o2 in zip(fs, fo):
            if o2 < o:
                d *= s2
        strides.append(0 if s == 1 else d)
    return unflatten(strides, shape)


def _col_major_keep_zeros(shape, stride):
    """``compact_major<LayoutLeft>(filter_zeros(stride, shape))``: column-major, but a stride-0 leaf counts
    as size 1 (so it keeps stride 0)."""
    fs, fd = flatten(shape), flatten(stride)
    out, cur = [], 1
    for s, d in zip(fs, fd):
        eff = 1 if d == 0 else s
        out.append(0 if eff == 1 else cur)
        cur *= eff
    return unflatten(out, shape)


def fragment_like(layout: Layout) -> Layout:
    """CuTe's ``make_fragment_like(layout)``: a compact register layout of the same shape; mode 0 column-major
    with stride-0 leaves kept, the other modes ordered like ``layout``'s strides, placed after mode 0
    (``tiled_product``). A rank-1 layout gets ``make_layout(shape)``. Admissible for integer strides; a swizzled
    ``Sw o off o L`` gets ``L``'s fragment (registers are not swizzled), as CuTe's ``layout_b()``."""
    if isinstance(layout, ComposedLayout):
        layout = layout.outer
    if not all(type(d) is int for d in flatten(layout.stride)) or not all(type(s) is int
                                                                         for s in flatten(layout.shape)):
        raise NotAdmissibleError("make_fragment_like", "needs a concrete layout with integer strides",
                                 str(layout))
    if type(layout.shape) is not tuple or len(layout.shape) < 2:
        return Layout(layout.shape)
    m0 = Layout(layout.shape[0], _col_major_keep_zeros(layout.shape[0], layout.stride[0]))
    rest_shape, rest_stride = layout.shape[1:], layout.stride[1:]
    rest = Layout(rest_shape, _compact_order(rest_shape, rest_stride))
    return tiled_product(m0, rest)
