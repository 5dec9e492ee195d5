"""The grid model of a drawing: a layout, a TV layout or an MMA atom's three TV layouts as cells with labels,
colours, sub-mode boundaries and highlights, before any geometry (``canvas``) or output format (``svg``,
``tikz``). Colours: ``thread_color`` (hue by lane, lightness by warp) and ``bank_color``.

Every refusal (symbolic layouts, too many cells, highlights outside the grid) is a ``NotAdmissibleError``
(an input error) for the operation ``draw``.
"""
from __future__ import annotations

import colorsys
from dataclasses import dataclass, field

from ..core.layout import crd2idx, rank, size
from ..core.notation.interop import as_layout
from ..core.strides import ScaledBasis
from ..core.tuples import flatten
from ..errors import NotAdmissibleError
from ..symbolic.expr import format_value

__all__ = ["MAX_CELLS", "Cell", "Grid", "thread_color", "bank_color", "bank_of", "plain_grid", "banks_grid",
           "tv_panel", "mma_panels"]

#: Largest number of cells a drawing may have (beyond this the output is too large to be useful).
MAX_CELLS = 1 << 16


def _refused(message: str) -> NotAdmissibleError:
    """The input error of a drawing that cannot be made."""
    return NotAdmissibleError("draw", message)


# --------------------------------------------------------------------------------------------- colours

def _hsl(h: float, s: float, lt: float) -> str:
    r, g, b = colorsys.hls_to_rgb(h % 1.0, lt, s)
    return "#{:02x}{:02x}{:02x}".format(round(r * 255), round(g * 255), round(b * 255))


# 13 is odd, so lane -> 13*lane mod 32 is a permutation: all 32 lanes of a warp get distinct hues and
# neighbouring lanes land ~146 degrees apart on the colour wheel.
_WARP_LIGHT = (0.80, 0.70, 0.90, 0.74)
_WARP_SAT = (0.80, 0.65, 0.90, 0.55)


def thread_color(t: int) -> str:
    """Fill colour of thread ``t``: hue by lane (``t % 32``), lightness/saturation by warp (``t // 32``).

    All fills are light enough for black labels; the 32 lanes of a warp are pairwise distinct and the four
    warps of a 128-thread warpgroup differ in lightness."""
    lane, warp = t % 32, t // 32
    return _hsl(((lane * 13) % 32) / 32.0, _WARP_SAT[warp % 4], _WARP_LIGHT[warp % 4])


def bank_color(bank: int) -> str:
    """Fill colour of shared-memory bank ``bank`` (0..31): 32 distinct light hues."""
    return _hsl(((bank * 13) % 32) / 32.0, 0.80, 0.78)


def bank_of(offset: int, elem_bytes: int = 2) -> int:
    """The 4-byte shared-memory bank an element offset falls into."""
    return (offset * elem_bytes // 4) % 32


# ---------------------------------------------------------------------------------------- grid model

@dataclass
class Cell:
    lines: tuple                  # label lines (empty for a blank cell)
    fill: str | None = None       # "#rrggbb"; None is white
    attrs: dict = field(default_factory=dict)   # data-* attributes of the SVG group
    tooltip: str | None = None
    dup: int = 0                  # > 1: hit this many times (TV layouts)


@dataclass
class Grid:
    rows: int
    cols: int
    cells: dict                   # (r, c) -> Cell; absent cells are not drawn
    row_levels: dict = field(default_factory=dict)   # interior boundary index -> level (>= 1)
    col_levels: dict = field(default_factory=dict)
    row_labels: list | None = None
    col_labels: list | None = None
    highlight: set = field(default_factory=set)
    title: str | None = None
    name: str | None = None       # panel name (MMA: "A", "B", "C")
    row_axis: str | None = None   # e.g. "m", shown in the corner
    col_axis: str | None = None


def _levels(leaves, extent: int) -> dict:
    """Interior boundaries of a mode with the given shape leaves: index -> how many sub-mode prefix
    products divide it (CuTe's colexicographic order: the first leaf is fastest)."""
    prods, p = [], 1
    for s in list(leaves)[:-1]:
        p *= s
        if 1 < p < extent:
            prods.append(p)
    out = {}
    for i in range(1, extent):
        lv = sum(1 for q in prods if i % q == 0)
        if lv:
            out[i] = lv
    return out


# ------------------------------------------------------------------------------------------- helpers

def _check_concrete(L, what="layout"):
    free = getattr(L, "free_symbols", None)
    if callable(free) and free():
        raise _refused(f"cannot draw the symbolic {what} {L}: substitute its symbols first (L.subs(M=...))")


def _flat(x) -> tuple:
    return flatten(x)


def _prod(xs) -> int:
    p = 1
    for v in xs:
        p *= v
    return p


def _fmt(v) -> str:
    """A cell label: ints as decimal, coordinates (ArithTuple / ScaledBasis) as ``(a,b)``."""
    if isinstance(v, ScaledBasis):
        v = v.as_tuple()
    if isinstance(v, tuple):
        return "(" + ",".join(_fmt(e) for e in v) + ")"
    if type(v) is int:
        return str(v)
    return format_value(v)


def _codomain_rank(vals) -> int:
    r = 0
    for v in vals:
        if isinstance(v, ScaledBasis):
            v = v.as_tuple()
        if isinstance(v, tuple):
            r = max(r, len(v))
    return r


def _pad(v, r):
    """Coordinates of a coordinate-stride layout all shown with the same number of entries."""
    if isinstance(v, ScaledBasis):
        v = v.as_tuple()
    if r and isinstance(v, tuple) and len(v) < r:
        return tuple(v) + (0,) * (r - len(v))
    if r and type(v) is int and v == 0:
        return (0,) * r
    return v


def _check_size(n):
    if n > MAX_CELLS:
        raise _refused(f"layout has {n} cells; drawings are limited to {MAX_CELLS} (draw a sub-layout or tile)")


# ------------------------------------------------------------------------------- layout -> grid

def _layout_grid(layout, *, label=None, fill=None, extra=None):
    """A grid for a concrete layout. ``label(value) -> lines``, ``fill(value) -> colour``,
    ``extra(value) -> dict`` of data attributes. Returns (grid, locate) where ``locate(idx)`` gives the
    (row, col) of integral coordinate ``idx``."""
    L = as_layout(layout)
    _check_concrete(L)
    shape = L.shape
    n = _prod(_flat(shape))
    _check_size(n)
    vals = L.values()
    crank = _codomain_rank(vals)
    r = rank(L)
    if r == 1:
        leaves = _flat(shape)
        if n <= 64:
            W, row_leaves, col_leaves = n, (), leaves
        else:
            W, p, k = None, 1, 0
            for i, s in enumerate(leaves[:-1]):
                p *= s
                if 8 <= p <= 64:
                    W, k = p, i + 1
            if W is None:
                W = next((w for w in range(64, 15, -1) if n % w == 0), 64)
                row_leaves = col_leaves = (n,)
            else:
                col_leaves, row_leaves = leaves[:k], leaves[k:]
        rows, cols = -(-n // W), W

        def locate(i):
            return (i // W, i % W)

        def index(rr, cc):
            return rr * W + cc

        row_levels = _levels(row_leaves, rows) if rows > 1 else {}
        col_levels = _levels(col_leaves, cols)
        row_labels = [str(i * W) for i in range(rows)]
    else:
        row_leaves = _flat(shape[0])
        col_leaves = _flat(shape[1:])
        rows, cols = _prod(row_leaves), _prod(col_leaves)

        def locate(i):
            return (i % rows, i // rows)

        def index(rr, cc):
            return rr + rows * cc

        row_levels = _levels(row_leaves, rows)
        col_levels = _levels(col_leaves, cols)
        if r > 2:
            # boundaries between top-level column modes outrank every sub-mode boundary
            top = max(col_levels.values(), default=0) + 1
            p = 1
            for m in shape[1:-1]:
                p *= _prod(_flat(m))
                col_levels[p] = top
        row_labels = [str(i) for i in range(rows)]
    cells = {}
    for rr in range(rows):
        for cc in range(cols):
            i = index(rr, cc)
            if i >= n:
                continue
            v = _pad(vals[i], crank)
            lines = label(v) if label else (_fmt(v),)
            attrs = {"value": _fmt(v), "index": str(i)}
            if extra:
                attrs.update(extra(v))
            cells[(rr, cc)] = Cell(tuple(lines), fill(v) if fill else None, attrs,
                                    tooltip=f"({rr},{cc}) -> {_fmt(v)}" if r > 1 else f"{i} -> {_fmt(v)}")
    g = Grid(rows, cols, cells, row_levels, col_levels, row_labels, [str(i) for i in range(cols)])
    g._shape = shape            # for highlight coordinates
    g._rank = r
    return g, locate


def _resolve_highlight(g, locate, highlight, *, tile_shape=None):
    """Map highlight entries to grid cells: ``(row, col)`` pairs, coordinates of the layout (or tile),
    or integral indices."""
    if not highlight:
        return set()
    if isinstance(highlight, tuple) and len(highlight) == 2 and all(type(x) is int for x in highlight):
        highlight = [highlight]
    out = set()
    shape = tile_shape if tile_shape is not None else g._shape
    n = _prod(_flat(shape))
    for h in highlight:
        if type(h) is int:
            i = h
        elif isinstance(h, tuple):
            if len(h) == 2 and getattr(g, "_rank", 2) != 1 and all(type(x) is int for x in h):
                rr, cc = h
                if not (0 <= rr < g.rows and 0 <= cc < g.cols):
                    raise _refused(f"highlight {h} is outside the {g.rows}x{g.cols} grid")
                out.add((rr, cc))
                continue
            i = crd2idx(h, shape)
            if type(i) is not int:
                raise _refused(f"highlight {h} is not a coordinate of shape {shape}")
        else:
            raise _refused(f"highlight entries are (row, col) pairs, coordinates or integers, got {h!r}")
        if not 0 <= i < n:
            raise _refused(f"highlight {h} is outside the layout (size {n})")
        out.add(locate(i))
    return out


def _tv_grid(tv, tile, *, order="col", thr_id=None, name=None, axes=(None, None)):
    """Grid of a TV layout over a tile. ``order="col"``: index ``r + R*c`` (A, C); ``"b"``: the tile is
    drawn KxN but indexed ``n + N*k`` (CuTe's B)."""
    L = as_layout(tv, "TV layout")
    _check_concrete(L, "TV layout")
    if rank(L) < 2:
        raise _refused(f"a TV layout has rank >= 2 (thread, value), got {L}")
    if len(tile) != 2:
        raise _refused(f"tile is (rows, cols), got {tile!r}")
    R, C = size(tile[0]), size(tile[1])
    _check_size(R * C)
    T = size(L.shape[0])
    V = size(L) // T
    vals = L.values()
    tid = None
    if thr_id is not None:
        tid = as_layout(thr_id, "thread id layout").values()
    hits = {}
    for v in range(V):
        for t in range(T):
            idx = vals[t + T * v]
            if type(idx) is not int:
                raise _refused(f"TV layout {L} maps (T{t}, V{v}) to {_fmt(idx)}, not a tile index")
            if not 0 <= idx < R * C:
                raise _refused(f"TV layout {L} maps (T{t}, V{v}) to index {idx}, outside the {R}x{C} tile")
            cell = (idx % R, idx // R) if order == "col" else (idx // C, idx % C)
            tt = tid[t] if tid is not None and t < len(tid) else t
            hits.setdefault(cell, []).append((tt, v))
    cells = {}
    for rr in range(R):
        for cc in range(C):
            h = hits.get((rr, cc))
            if not h:
                cells[(rr, cc)] = Cell((), None, {"empty": "1"}, tooltip=f"({rr},{cc}) unmapped")
                continue
            t, v = h[0]
            attrs = {"thread": str(t), "value": str(v)}
            if len(h) > 1:
                attrs["hits"] = " ".join(f"T{a}V{b}" for a, b in h)
            cells[(rr, cc)] = Cell((f"T{t}", f"V{v}"), thread_color(t), attrs,
                                    tooltip=f"({rr},{cc}) <- " + ", ".join(f"T{a} V{b}" for a, b in h),
                                    dup=len(h))
    g = Grid(R, C, cells, _levels(_flat(tile[0]), R), _levels(_flat(tile[1]), C),
              [str(i) for i in range(R)], [str(i) for i in range(C)], name=name,
              row_axis=axes[0], col_axis=axes[1])
    g._shape = (tile[0], tile[1]) if order == "col" else (tile[1], tile[0])
    g._rank = 2
    if order == "col":
        def locate(i):
            return (i % R, i // R)
    else:
        def locate(i):
            return (i // C, i % C)
    return g, locate


# -------------------------------------------------------------------------- the pictures as grids

def _title(title, default):
    if title is None:
        return default
    return title or None


def plain_grid(layout, highlight, title, color=None):
    L = as_layout(layout)
    fill = None
    if color is not None:
        fill = color
    g, locate = _layout_grid(L, fill=fill)
    g.title = _title(title, str(L))
    g.highlight = _resolve_highlight(g, locate, highlight)
    return g


def banks_grid(layout, elem_bytes, highlight, title, show_bank):
    L = as_layout(layout)
    if type(elem_bytes) is not int or elem_bytes <= 0:
        raise _refused(f"elem_bytes must be a positive integer, got {elem_bytes!r}")

    def check(v):
        if type(v) is not int:
            raise _refused(f"bank colouring needs integer offsets, got {_fmt(v)}")
        return v

    g, locate = _layout_grid(
        L, label=(lambda v: (str(v), f"b{bank_of(check(v), elem_bytes)}")) if show_bank else None,
        fill=lambda v: bank_color(bank_of(check(v), elem_bytes)),
        extra=lambda v: {"bank": str(bank_of(v, elem_bytes))})
    g.title = _title(title, f"{L}  [banks, {elem_bytes}-byte elements]")
    g.highlight = _resolve_highlight(g, locate, highlight)
    return g


def tv_panel(tv_layout, tile, highlight, title, thr_id):
    if tile is None:
        raise _refused("a TV layout needs tile=(M, N)")
    g, locate = _tv_grid(tv_layout, tile, thr_id=thr_id)
    L = as_layout(tv_layout)
    g.title = _title(title, f"TV {L} on {size(tile[0])}x{size(tile[1])} tile")
    g.highlight = _resolve_highlight(g, locate, highlight, tile_shape=g._shape)
    return g


def mma_panels(a_tv, b_tv, c_tv, shape_mnk, highlight, title, thr_id, names=("A", "B", "C")):
    if len(shape_mnk) != 3:
        raise _refused(f"shape_mnk is (M, N, K), got {shape_mnk!r}")
    M, N, K = shape_mnk
    ga, la = _tv_grid(a_tv, (M, K), thr_id=thr_id, name=names[0], axes=("m", "k"))
    gb, lb = _tv_grid(b_tv, (K, N), order="b", thr_id=thr_id, name=names[1], axes=("k", "n"))
    gc, lc = _tv_grid(c_tv, (M, N), thr_id=thr_id, name=names[2], axes=("m", "n"))
    ga.title = f"{names[0]} ({M}x{K})"
    gb.title = f"{names[1]} ({K}x{N}, k x n)"
    gc.title = f"{names[2]} ({M}x{N})"
    hl = highlight or {}
    if not isinstance(hl, dict):
        raise _refused("svg_mma highlight is a dict {'A': [...], 'B': [...], 'C': [...]}")
    for key, g, loc in (("A", ga, la), ("B", gb, lb), ("C", gc, lc)):
        g.highlight = _resolve_highlight(g, loc, hl.get(key) or hl.get(key.lower()), tile_shape=g._shape)
    return ga, gb, gc

