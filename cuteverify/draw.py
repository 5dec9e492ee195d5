"""Drawings of layouts (issue 7): SVG written directly as XML text, and standalone TikZ documents.

``svg(L)``           a layout as a grid: rows = mode 0, columns = mode 1 (further modes join the columns),
                     each cell labelled with its offset; a rank-1 layout as a strip (wrapped at a sub-mode
                     boundary when long); thicker lines at sub-mode boundaries of hierarchical modes;
                     coordinate-stride layouts label cells with the coordinate; swizzled
                     ``ComposedLayout`` values likewise.
``svg_tv(TV, tile)`` a (thread, value) -> tile-index layout: cell ``m + M*n`` of the MxN tile labelled
                     ``T#`` over ``V#``, coloured by thread (hue by lane, lightness by warp); cells no
                     (t, v) maps to stay blank, cells hit twice are marked (dashed red border, ``x2``).
``svg_mma(A, B, C, (M, N, K))``  the three TV layouts of an MMA atom as in CUTLASS's ``print_latex``:
                     A (MxK) left, B (drawn KxN; its layout indexes ``n + N*k``) above C (MxN).
``svg_banks(L, elem_bytes)``  a shared-memory layout coloured by bank ``(offset*elem_bytes // 4) % 32``.
``tikz(...)``, ``tikz_tv(...)``, ``tikz_mma(...)``, ``tikz_banks(...)``  the same pictures as standalone
                     LaTeX (``\\documentclass[tikz]{standalone}``) in the style of ``print_latex``.

Every drawing takes ``highlight=[...]``: cells (``(row, col)``, a coordinate of the layout, or an integral
index) drawn with a thick red border, e.g. the counterexample of a failed proof.

Both back ends share one geometry: a ``_Grid`` (cells, labels, colours, boundaries) is placed on a
``_Canvas`` of rectangles, lines and text in pixel units, which is then written as SVG or as TikZ (1px
-> 1pt). Cell size follows the longest label, so an 8x8 and a 64x64 grid of 4-digit offsets both keep
their labels inside their cells. In the SVG, each cell is ``<g class="cell" data-row data-col ...>``
holding a ``<rect>`` and a ``<text>`` (one ``<tspan>`` per label line); highlights are
``<rect class="highlight" data-row data-col>``.
"""
from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass, field

from .core.layout import crd2idx, rank, size
from .core.parse import parse
from .core.strides import ScaledBasis
from .core.tuples import flatten
from .symbolic.expr import format_value

__all__ = ["svg", "svg_tv", "svg_mma", "svg_banks", "tikz", "tikz_tv", "tikz_mma", "tikz_banks",
           "thread_color", "bank_color", "bank_of"]

#: Largest number of cells a drawing may have (beyond this the output is too large to be useful).
MAX_CELLS = 1 << 16

_MONO = "DejaVu Sans Mono,Menlo,Consolas,Liberation Mono,monospace"
_CHAR_W = 0.6          # advance of a monospace glyph, in em
_GRID = "#9a9a9a"      # thin cell border
_RULE = "#000000"      # sub-mode boundaries and the outer border
_HIGHLIGHT = "#e0001b"
_DUP = "#b00000"
_HEADER = "#555555"


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
class _Cell:
    lines: tuple                  # label lines (empty for a blank cell)
    fill: str | None = None       # "#rrggbb"; None is white
    attrs: dict = field(default_factory=dict)   # data-* attributes of the SVG group
    tooltip: str | None = None
    dup: int = 0                  # > 1: hit this many times (TV layouts)


@dataclass
class _Grid:
    rows: int
    cols: int
    cells: dict                   # (r, c) -> _Cell; absent cells are not drawn
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

def _as_layout(x, what="layout"):
    if isinstance(x, str):
        return parse(x, source=what)
    return x


def _check_concrete(L, what="layout"):
    free = getattr(L, "free_symbols", None)
    if callable(free) and free():
        raise ValueError(f"cannot draw the symbolic {what} {L}: substitute its symbols first (L.subs(M=...))")


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
        raise ValueError(f"layout has {n} cells; drawings are limited to {MAX_CELLS} (draw a sub-layout or tile)")


# ------------------------------------------------------------------------------- layout -> grid

def _layout_grid(layout, *, label=None, fill=None, extra=None):
    """A grid for a concrete layout. ``label(value) -> lines``, ``fill(value) -> colour``,
    ``extra(value) -> dict`` of data attributes. Returns (grid, locate) where ``locate(idx)`` gives the
    (row, col) of integral coordinate ``idx``."""
    L = _as_layout(layout)
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
            cells[(rr, cc)] = _Cell(tuple(lines), fill(v) if fill else None, attrs,
                                    tooltip=f"({rr},{cc}) -> {_fmt(v)}" if r > 1 else f"{i} -> {_fmt(v)}")
    g = _Grid(rows, cols, cells, row_levels, col_levels, row_labels, [str(i) for i in range(cols)])
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
                    raise ValueError(f"highlight {h} is outside the {g.rows}x{g.cols} grid")
                out.add((rr, cc))
                continue
            i = crd2idx(h, shape)
            if type(i) is not int:
                raise ValueError(f"highlight {h} is not a coordinate of shape {shape}")
        else:
            raise ValueError(f"highlight entries are (row, col) pairs, coordinates or integers, got {h!r}")
        if not 0 <= i < n:
            raise ValueError(f"highlight {h} is outside the layout (size {n})")
        out.add(locate(i))
    return out


def _tv_grid(tv, tile, *, order="col", thr_id=None, name=None, axes=(None, None)):
    """Grid of a TV layout over a tile. ``order="col"``: index ``r + R*c`` (A, C); ``"b"``: the tile is
    drawn KxN but indexed ``n + N*k`` (CuTe's B)."""
    L = _as_layout(tv, "TV layout")
    _check_concrete(L, "TV layout")
    if rank(L) < 2:
        raise ValueError(f"a TV layout has rank >= 2 (thread, value), got {L}")
    if len(tile) != 2:
        raise ValueError(f"tile is (rows, cols), got {tile!r}")
    R, C = size(tile[0]), size(tile[1])
    _check_size(R * C)
    T = size(L.shape[0])
    V = size(L) // T
    vals = L.values()
    tid = None
    if thr_id is not None:
        tid = _as_layout(thr_id, "thread id layout").values()
    hits = {}
    for v in range(V):
        for t in range(T):
            idx = vals[t + T * v]
            if type(idx) is not int:
                raise ValueError(f"TV layout {L} maps (T{t}, V{v}) to {_fmt(idx)}, not a tile index")
            if not 0 <= idx < R * C:
                raise ValueError(f"TV layout {L} maps (T{t}, V{v}) to index {idx}, outside the {R}x{C} tile")
            cell = (idx % R, idx // R) if order == "col" else (idx // C, idx % C)
            tt = tid[t] if tid is not None and t < len(tid) else t
            hits.setdefault(cell, []).append((tt, v))
    cells = {}
    for rr in range(R):
        for cc in range(C):
            h = hits.get((rr, cc))
            if not h:
                cells[(rr, cc)] = _Cell((), None, {"empty": "1"}, tooltip=f"({rr},{cc}) unmapped")
                continue
            t, v = h[0]
            attrs = {"thread": str(t), "value": str(v)}
            if len(h) > 1:
                attrs["hits"] = " ".join(f"T{a}V{b}" for a, b in h)
            cells[(rr, cc)] = _Cell((f"T{t}", f"V{v}"), thread_color(t), attrs,
                                    tooltip=f"({rr},{cc}) <- " + ", ".join(f"T{a} V{b}" for a, b in h),
                                    dup=len(h))
    g = _Grid(R, C, cells, _levels(_flat(tile[0]), R), _levels(_flat(tile[1]), C),
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


# ------------------------------------------------------------------------------------------ canvas

class _Canvas:
    """Primitives in pixel units (y down): ``("rect", ...)``, ``("line", ...)``, ``("text", ...)``,
    ``("begin", cls, attrs, tooltip)``, ``("end",)``."""

    def __init__(self):
        self.items = []
        self.width = 0.0
        self.height = 0.0

    def rect(self, x, y, w, h, fill=None, stroke=None, sw=0.0, dash=False, cls=None, attrs=None):
        self.items.append(("rect", x, y, w, h, fill, stroke, sw, dash, cls, attrs or {}))

    def line(self, x1, y1, x2, y2, stroke, sw, cls=None):
        self.items.append(("line", x1, y1, x2, y2, stroke, sw, cls))

    def poly(self, pts, fill, cls=None, attrs=None):
        self.items.append(("poly", tuple(pts), fill, cls, attrs or {}))

    def text(self, x, y, lines, size, anchor="middle", color="#000000", bold=False, cls=None, leading=1.15):
        self.items.append(("text", x, y, tuple(lines), size, anchor, color, bold, cls, leading))

    def begin(self, cls, attrs=None, tooltip=None):
        self.items.append(("begin", cls, attrs or {}, tooltip))

    def end(self):
        self.items.append(("end",))


@dataclass
class _Metrics:
    cw: float      # cell width
    ch: float      # cell height
    fs: float      # label font size
    hfs: float     # header font size
    tfs: float     # title font size


def _metrics(grids) -> _Metrics:
    maxlen, nlines = 1, 1
    for g in grids:
        for c in g.cells.values():
            nlines = max(nlines, len(c.lines))
            for s in c.lines:
                maxlen = max(maxlen, len(s))
    fs = 12.0 if maxlen <= 4 else 11.0 if maxlen <= 7 else 10.0
    ch = math.ceil(nlines * fs * 1.15 + 8)
    cw = max(math.ceil(maxlen * _CHAR_W * fs + 10), ch if nlines == 1 else math.ceil(ch * 0.9))
    return _Metrics(cw, ch, fs, round(fs * 0.8, 1), 13.0)


def _header_sizes(g, m):
    """(row-header width, column-header height, title height) of a grid."""
    rl = max((len(s) for s in (g.row_labels or [])), default=0)
    if g.row_axis or g.col_axis:
        rl = max(rl, len(g.row_axis or "") + 1 + len(g.col_axis or ""))
    rhw = math.ceil(rl * _CHAR_W * m.hfs + 8) if (g.row_labels or g.row_axis) else 0
    chh = math.ceil(m.hfs + 8) if (g.col_labels or g.col_axis) else 0
    th = math.ceil(m.tfs * 1.6) if g.title else 0
    return rhw, chh, th


def _text_width(s, size):
    return len(s) * _CHAR_W * size


def _draw_grid(cv: _Canvas, g: _Grid, x0: float, y0: float, m: _Metrics):
    """Draw grid ``g`` with its cell (0, 0) at (x0, y0): headers to the left/above, title above."""
    cw, ch = m.cw, m.ch
    W, H = g.cols * cw, g.rows * ch
    rhw, chh, th = _header_sizes(g, m)
    cv.begin("panel", {"name": g.name} if g.name else {})
    if g.title:
        cv.text(x0 - rhw, y0 - chh - th * 0.35, (g.title,), m.tfs, anchor="start", bold=True, cls="title")
    base = 0.35 * m.hfs
    if g.col_labels:
        for c, s in enumerate(g.col_labels):
            cv.text(x0 + (c + 0.5) * cw, y0 - 5, (s,), m.hfs,
                    color=_HEADER, cls="col-label")
    if g.row_labels:
        for r, s in enumerate(g.row_labels):
            cv.text(x0 - 5, y0 + (r + 0.5) * ch + base, (s,), m.hfs, anchor="end", color=_HEADER,
                    cls="row-label")
    if g.row_axis or g.col_axis:
        corner = (g.row_axis or "") + "\\" + (g.col_axis or "")
        cv.text(x0 - 5, y0 - 5, (corner,), m.hfs, anchor="end", color=_HEADER, bold=True, cls="axes")
    # cells
    for (r, c), cell in sorted(g.cells.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        x, y = x0 + c * cw, y0 + r * ch
        attrs = {"row": str(r), "col": str(c)}
        attrs.update(cell.attrs)
        cls = "cell" + (" empty" if not cell.lines else "") + (" dup" if cell.dup > 1 else "")
        cv.begin(cls, attrs, cell.tooltip)
        cv.rect(x, y, cw, ch, fill=cell.fill or "#ffffff", stroke=_GRID, sw=0.5)
        if cell.lines:
            n = len(cell.lines)
            lead = 1.15
            yb = y + ch / 2 - (n - 1) / 2 * m.fs * lead + 0.35 * m.fs
            cv.text(x + cw / 2, yb, cell.lines, m.fs, leading=lead)
        cv.end()
    # sub-mode boundaries, then the outer border
    top = max(list(g.row_levels.values()) + list(g.col_levels.values()) + [0])
    for r, lv in sorted(g.row_levels.items()):
        cv.line(x0, y0 + r * ch, x0 + W, y0 + r * ch, _RULE, 0.6 + 0.9 * lv, cls="boundary")
    for c, lv in sorted(g.col_levels.items()):
        cv.line(x0 + c * cw, y0, x0 + c * cw, y0 + H, _RULE, 0.6 + 0.9 * lv, cls="boundary")
    full_rows = g.rows if len(g.cells) >= g.rows * g.cols else g.rows - 1
    if full_rows < g.rows:      # a wrapped strip whose last row is partial
        last = max(c for (r, c) in g.cells if r == g.rows - 1) + 1
        bw = 1.5 + 0.9 * top
        pts = [(x0, y0), (x0 + W, y0), (x0 + W, y0 + full_rows * ch), (x0 + last * cw, y0 + full_rows * ch),
               (x0 + last * cw, y0 + H), (x0, y0 + H), (x0, y0)]
        for (a, b), (c2, d) in zip(pts, pts[1:]):
            cv.line(a, b, c2, d, _RULE, bw, cls="border")
    else:
        cv.rect(x0, y0, W, H, fill=None, stroke=_RULE, sw=1.5 + 0.9 * top, cls="border")
    # duplicates and highlights on top
    for (r, c), cell in sorted(g.cells.items()):
        if cell.dup > 1:
            x, y = x0 + c * cw, y0 + r * ch
            cv.rect(x + 1.5, y + 1.5, cw - 3, ch - 3, fill=None, stroke=_DUP, sw=1.5, dash=True, cls="dup-mark",
                    attrs={"row": str(r), "col": str(c)})
            k = min(cw, ch) * 0.3
            cv.poly(((x + cw - k, y), (x + cw, y), (x + cw, y + k)), _DUP, cls="dup-count",
                    attrs={"count": str(cell.dup)})
    for (r, c) in sorted(g.highlight):
        cv.rect(x0 + c * cw + 1.5, y0 + r * ch + 1.5, cw - 3, ch - 3, fill=None, stroke=_HIGHLIGHT, sw=3.0,
                cls="highlight", attrs={"row": str(r), "col": str(c)})
    cv.end()


def _single(g: _Grid) -> _Canvas:
    m = _metrics([g])
    rhw, chh, th = _header_sizes(g, m)
    pad = 10
    x0, y0 = pad + rhw, pad + th + chh
    cv = _Canvas()
    _draw_grid(cv, g, x0, y0, m)
    title_w = _text_width(g.title or "", m.tfs) * 1.05 - rhw
    cv.width = x0 + max(g.cols * m.cw, title_w) + pad
    cv.height = y0 + g.rows * m.ch + pad
    return cv


def _mma_canvas(ga, gb, gc, title=None) -> _Canvas:
    """A left of C, B above C, with cell rows of A and C and columns of B and C aligned; ``title`` on
    top, left."""
    m = _metrics([ga, gb, gc])
    pad, gap = 10, 16
    ra, ca_h, ta = _header_sizes(ga, m)
    rb, cb_h, tb = _header_sizes(gb, m)
    rc, cc_h, tc = _header_sizes(gc, m)
    top = pad + (math.ceil(m.tfs * 1.8) if title else 0)
    ax = pad + ra
    a_w = max(ga.cols * m.cw, _text_width(ga.title or "", m.tfs) * 1.05 - ra)
    cx = max(ax + a_w + gap + rc, pad + rb)
    by = top + tb + cb_h
    cy = by + gb.rows * m.ch + gap + max(ta + ca_h, tc + cc_h)
    cv = _Canvas()
    if title:
        cv.text(pad, pad + m.tfs, (title,), m.tfs, anchor="start", bold=True, cls="title")
    _draw_grid(cv, ga, ax, cy, m)
    _draw_grid(cv, gb, cx, by, m)
    _draw_grid(cv, gc, cx, cy, m)
    tw = max(_text_width(gb.title or "", m.tfs), _text_width(gc.title or "", m.tfs)) - rc
    cv.width = max(cx + max(gc.cols, gb.cols) * m.cw + max(0.0, tw - max(gc.cols, gb.cols) * m.cw) + pad,
                   pad * 2 + _text_width(title or "", m.tfs) * 1.05)
    cv.height = cy + max(ga.rows, gc.rows) * m.ch + pad
    return cv


# --------------------------------------------------------------------------------------- SVG writer

def _n(x) -> str:
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _xml(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _attrs(d: dict) -> str:
    return "".join(f' data-{k}="{_xml(str(v))}"' for k, v in d.items())


def _to_svg(cv: _Canvas) -> str:
    W, H = math.ceil(cv.width), math.ceil(cv.height)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'font-family="{_MONO}">',
           f'<rect class="background" x="0" y="0" width="{W}" height="{H}" fill="#ffffff"/>']
    for it in cv.items:
        kind = it[0]
        if kind == "begin":
            _, cls, attrs, tip = it
            out.append(f'<g class="{cls}"{_attrs(attrs)}>' + (f"<title>{_xml(tip)}</title>" if tip else ""))
        elif kind == "end":
            out.append("</g>")
        elif kind == "rect":
            _, x, y, w, h, fill, stroke, sw, dash, cls, attrs = it
            a = f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" fill="{fill or "none"}"'
            if stroke:
                a += f' stroke="{stroke}" stroke-width="{_n(sw)}"'
            if dash:
                a += ' stroke-dasharray="3,2"'
            if cls:
                a = a.replace("<rect ", f'<rect class="{cls}" ', 1)
            out.append(a + _attrs(attrs) + "/>")
        elif kind == "poly":
            _, pts, fill, cls, attrs = it
            c = f' class="{cls}"' if cls else ""
            p = " ".join(f"{_n(a)},{_n(b)}" for a, b in pts)
            out.append(f'<polygon{c} points="{p}" fill="{fill}"{_attrs(attrs)}/>')
        elif kind == "line":
            _, x1, y1, x2, y2, stroke, sw, cls = it
            c = f' class="{cls}"' if cls else ""
            out.append(f'<line{c} x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}" '
                       f'stroke-width="{_n(sw)}" stroke-linecap="square"/>')
        elif kind == "text":
            _, x, y, lines, size, anchor, color, bold, cls, lead = it
            c = f' class="{cls}"' if cls else ""
            b = ' font-weight="bold"' if bold else ""
            head = f'<text{c} x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}" fill="{color}"{b}>'
            if len(lines) == 1:
                out.append(head + _xml(lines[0]) + "</text>")
            else:
                spans = "".join(f'<tspan x="{_n(x)}" y="{_n(y + k * size * lead)}">{_xml(s)}</tspan>'
                                for k, s in enumerate(lines))
                out.append(head + spans + "</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------- TikZ writer

_TEX_ESC = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "#": r"\#", "$": r"\$", "%": r"\%",
            "&": r"\&", "_": r"\_", "^": r"\^{}", "~": r"\~{}"}


def _tex(s: str) -> str:
    return "".join(_TEX_ESC.get(ch, ch) for ch in s)


def _to_tikz(cv: _Canvas) -> str:
    colors = {}

    def col(h):
        h = h.lower()
        if h not in colors:
            colors[h] = f"cv{len(colors)}"
        return colors[h]

    body = []
    for it in cv.items:
        kind = it[0]
        if kind == "rect":
            _, x, y, w, h, fill, stroke, sw, dash, cls, attrs = it
            box = f"({_n(x)},{_n(y)}) rectangle ({_n(x + w)},{_n(y + h)})"
            opts = []
            if fill:
                opts.append(f"fill={col(fill)}")
            if stroke:
                opts += [f"draw={col(stroke)}", f"line width={_n(sw)}pt"]
            if dash:
                opts.append("dashed")
            if opts:
                body.append(f"\\path[{','.join(opts)}] {box};")
        elif kind == "poly":
            _, pts, fill, cls, attrs = it
            body.append(f"\\fill[{col(fill)}] " + " -- ".join(f"({_n(a)},{_n(b)})" for a, b in pts) + " -- cycle;")
        elif kind == "line":
            _, x1, y1, x2, y2, stroke, sw, cls = it
            body.append(f"\\draw[{col(stroke)},line width={_n(sw)}pt,line cap=rect] "
                        f"({_n(x1)},{_n(y1)}) -- ({_n(x2)},{_n(y2)});")
        elif kind == "text":
            _, x, y, lines, size, anchor, color, bold, cls, lead = it
            anc = {"middle": "base", "start": "base west", "end": "base east"}[anchor]
            fam = r"\bfseries" if bold else ""
            font = f"\\fontsize{{{_n(size)}}}{{{_n(size * lead)}}}\\selectfont\\ttfamily{fam}"
            for k, s in enumerate(lines):
                body.append(f"\\node[anchor={anc},inner sep=0pt,text={col(color)},font={font}] "
                            f"at ({_n(x)},{_n(y + k * size * lead)}) {{{_tex(s)}}};")
    defs = [f"\\definecolor{{{name}}}{{HTML}}{{{h[1:].upper()}}}" for h, name in colors.items()]
    W, H = math.ceil(cv.width), math.ceil(cv.height)
    return "\n".join([
        "% generated by cuteverify.draw",
        "\\documentclass[tikz,border=2pt]{standalone}",
        "\\usepackage[T1]{fontenc}",
        "\\usepackage{lmodern}",
        "\\begin{document}",
        *defs,
        "\\begin{tikzpicture}[x=1pt,y=-1pt]",
        f"\\path[use as bounding box] (0,0) rectangle ({W},{H});",
        *body,
        "\\end{tikzpicture}",
        "\\end{document}",
    ]) + "\n"


# ------------------------------------------------------------------------------------------- public

def _title(title, default):
    if title is None:
        return default
    return title or None


def _plain_grid(layout, highlight, title, color=None):
    L = _as_layout(layout)
    fill = None
    if color is not None:
        fill = color
    g, locate = _layout_grid(L, fill=fill)
    g.title = _title(title, str(L))
    g.highlight = _resolve_highlight(g, locate, highlight)
    return g


def _banks_grid(layout, elem_bytes, highlight, title, show_bank):
    L = _as_layout(layout)
    if type(elem_bytes) is not int or elem_bytes <= 0:
        raise ValueError(f"elem_bytes must be a positive integer, got {elem_bytes!r}")

    def check(v):
        if type(v) is not int:
            raise ValueError(f"bank colouring needs integer offsets, got {_fmt(v)}")
        return v

    g, locate = _layout_grid(
        L, label=(lambda v: (str(v), f"b{bank_of(check(v), elem_bytes)}")) if show_bank else None,
        fill=lambda v: bank_color(bank_of(check(v), elem_bytes)),
        extra=lambda v: {"bank": str(bank_of(v, elem_bytes))})
    g.title = _title(title, f"{L}  [banks, {elem_bytes}-byte elements]")
    g.highlight = _resolve_highlight(g, locate, highlight)
    return g


def _tv(tv_layout, tile, highlight, title, thr_id):
    if tile is None:
        raise ValueError("a TV layout needs tile=(M, N)")
    g, locate = _tv_grid(tv_layout, tile, thr_id=thr_id)
    L = _as_layout(tv_layout)
    g.title = _title(title, f"TV {L} on {size(tile[0])}x{size(tile[1])} tile")
    g.highlight = _resolve_highlight(g, locate, highlight, tile_shape=g._shape)
    return g


def _mma(a_tv, b_tv, c_tv, shape_mnk, highlight, title, thr_id, names=("A", "B", "C")):
    if len(shape_mnk) != 3:
        raise ValueError(f"shape_mnk is (M, N, K), got {shape_mnk!r}")
    M, N, K = shape_mnk
    ga, la = _tv_grid(a_tv, (M, K), thr_id=thr_id, name=names[0], axes=("m", "k"))
    gb, lb = _tv_grid(b_tv, (K, N), order="b", thr_id=thr_id, name=names[1], axes=("k", "n"))
    gc, lc = _tv_grid(c_tv, (M, N), thr_id=thr_id, name=names[2], axes=("m", "n"))
    ga.title = f"{names[0]} ({M}x{K})"
    gb.title = f"{names[1]} ({K}x{N}, k x n)"
    gc.title = f"{names[2]} ({M}x{N})"
    hl = highlight or {}
    if not isinstance(hl, dict):
        raise ValueError("svg_mma highlight is a dict {'A': [...], 'B': [...], 'C': [...]}")
    for key, g, loc in (("A", ga, la), ("B", gb, lb), ("C", gc, lc)):
        g.highlight = _resolve_highlight(g, loc, hl.get(key) or hl.get(key.lower()), tile_shape=g._shape)
    return ga, gb, gc


def svg(layout, *, highlight=None, title=None, color=None) -> str:
    """SVG of a concrete layout (``Layout``, swizzled ``ComposedLayout``, or its text).

    Rank >= 2: rows = mode 0, columns = mode 1 (modes 2.. continue the columns); rank 1: a strip,
    wrapped at a sub-mode boundary (or every 64 cells) when longer than 64. Cells show ``L(row, col)``
    (coordinates for coordinate-stride layouts). ``highlight``: cells to outline in red, as
    ``(row, col)``, coordinates of the layout, or integral indices. ``title``: None for the layout's
    notation, ``""`` for none. ``color``: optional ``value -> "#rrggbb"`` fill."""
    return _to_svg(_single(_plain_grid(layout, highlight, title, color)))


def svg_tv(tv_layout, tile=None, *, highlight=None, title=None, thr_id=None) -> str:
    """SVG of a TV layout ``(thread, value) -> m + M*n`` over an ``MxN`` tile (``tile=(M, N)``; entries may
    be shapes such as ``(8,2)`` to outline sub-tiles). Each cell shows ``T#`` over ``V#``, coloured by
    thread (``thread_color``); unmapped cells stay blank, cells hit more than once get a dashed red
    border and ``xN``. ``thr_id``: optional layout mapping thread index -> thread id for the labels.
    ``highlight``: tile cells ``(m, n)`` or tile indices."""
    return _to_svg(_single(_tv(tv_layout, tile, highlight, title, thr_id)))


def svg_mma(a_tv, b_tv, c_tv, shape_mnk, *, highlight=None, title=None, thr_id=None) -> str:
    """SVG of an MMA atom's TV layouts, arranged like CUTLASS's ``print_latex``: A (MxK, index
    ``m + M*k``) on the left, B drawn KxN (index ``n + N*k``) above C (MxN, index ``m + M*n``).
    ``highlight``: ``{"A": [...], "B": [...], "C": [...]}`` with cells in drawn (row, col) order."""
    return _to_svg(_mma_canvas(*_mma(a_tv, b_tv, c_tv, shape_mnk, highlight, title, thr_id), title=title))


def svg_banks(smem_layout, elem_bytes=2, *, highlight=None, title=None, show_bank=True) -> str:
    """SVG of a (typically swizzled) shared-memory layout, each cell labelled with its element offset
    (and ``b#``, its bank, unless ``show_bank=False``) and coloured by bank
    ``(offset * elem_bytes // 4) % 32``: in a conflict-free access, the cells read together all differ
    in colour."""
    return _to_svg(_single(_banks_grid(smem_layout, elem_bytes, highlight, title, show_bank)))


def tikz(layout, *, highlight=None, title=None, color=None, banks=False, elem_bytes=2) -> str:
    """Standalone LaTeX/TikZ document of ``svg(layout)`` (``banks=True``: of ``svg_banks``)."""
    if banks:
        return tikz_banks(layout, elem_bytes, highlight=highlight, title=title)
    return _to_tikz(_single(_plain_grid(layout, highlight, title, color)))


def tikz_tv(tv_layout, tile=None, *, highlight=None, title=None, thr_id=None) -> str:
    """Standalone LaTeX/TikZ document of ``svg_tv``."""
    return _to_tikz(_single(_tv(tv_layout, tile, highlight, title, thr_id)))


def tikz_mma(a_tv, b_tv, c_tv, shape_mnk, *, highlight=None, title=None, thr_id=None) -> str:
    """Standalone LaTeX/TikZ document of ``svg_mma``."""
    return _to_tikz(_mma_canvas(*_mma(a_tv, b_tv, c_tv, shape_mnk, highlight, title, thr_id), title=title))


def tikz_banks(smem_layout, elem_bytes=2, *, highlight=None, title=None, show_bank=True) -> str:
    """Standalone LaTeX/TikZ document of ``svg_banks``."""
    return _to_tikz(_single(_banks_grid(smem_layout, elem_bytes, highlight, title, show_bank)))
