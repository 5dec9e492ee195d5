"""The geometry of a drawing: grids placed on a ``Canvas`` of rectangles, lines, polygons and text in pixel
units (y down), which ``svg`` and ``tikz`` write out (1px -> 1pt). Cell size follows the longest label, so an
8x8 and a 64x64 grid of 4-digit offsets both keep their labels inside their cells.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .grid import Grid

__all__ = ["Canvas", "single", "mma_canvas", "num", "MONO"]

MONO = "DejaVu Sans Mono,Menlo,Consolas,Liberation Mono,monospace"
_CHAR_W = 0.6          # advance of a monospace glyph, in em
_GRID = "#9a9a9a"      # thin cell border
_RULE = "#000000"      # sub-mode boundaries and the outer border
_HIGHLIGHT = "#e0001b"
_DUP = "#b00000"
_HEADER = "#555555"


class Canvas:
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


def _draw_grid(cv: Canvas, g: Grid, x0: float, y0: float, m: _Metrics):
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


def single(g: Grid) -> Canvas:
    m = _metrics([g])
    rhw, chh, th = _header_sizes(g, m)
    pad = 10
    x0, y0 = pad + rhw, pad + th + chh
    cv = Canvas()
    _draw_grid(cv, g, x0, y0, m)
    title_w = _text_width(g.title or "", m.tfs) * 1.05 - rhw
    cv.width = x0 + max(g.cols * m.cw, title_w) + pad
    cv.height = y0 + g.rows * m.ch + pad
    return cv


def mma_canvas(ga, gb, gc, title=None) -> Canvas:
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
    cv = Canvas()
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


def num(x) -> str:
    """A coordinate as short text: two decimals at most, no trailing zeros, never ``-0``."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s
