"""SVG output: a canvas written directly as XML text, and the public ``svg*`` drawings.

Each cell is ``<g class="cell" data-row data-col ...>`` holding a ``<rect>`` and a ``<text>`` (one ``<tspan>``
per label line); highlights are ``<rect class="highlight" data-row data-col>``.
"""
from __future__ import annotations

import math

from .canvas import MONO, Canvas, mma_canvas, num, single
from .grid import banks_grid, mma_panels, plain_grid, tv_panel

__all__ = ["svg", "svg_tv", "svg_mma", "svg_banks", "to_svg"]


def _xml(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _attrs(d: dict) -> str:
    return "".join(f' data-{k}="{_xml(str(v))}"' for k, v in d.items())


def to_svg(cv: Canvas) -> str:
    W, H = math.ceil(cv.width), math.ceil(cv.height)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'font-family="{MONO}">',
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
            a = f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" fill="{fill or "none"}"'
            if stroke:
                a += f' stroke="{stroke}" stroke-width="{num(sw)}"'
            if dash:
                a += ' stroke-dasharray="3,2"'
            if cls:
                a = a.replace("<rect ", f'<rect class="{cls}" ', 1)
            out.append(a + _attrs(attrs) + "/>")
        elif kind == "poly":
            _, pts, fill, cls, attrs = it
            c = f' class="{cls}"' if cls else ""
            p = " ".join(f"{num(a)},{num(b)}" for a, b in pts)
            out.append(f'<polygon{c} points="{p}" fill="{fill}"{_attrs(attrs)}/>')
        elif kind == "line":
            _, x1, y1, x2, y2, stroke, sw, cls = it
            c = f' class="{cls}"' if cls else ""
            out.append(f'<line{c} x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" stroke="{stroke}" '
                       f'stroke-width="{num(sw)}" stroke-linecap="square"/>')
        elif kind == "text":
            _, x, y, lines, size, anchor, color, bold, cls, lead = it
            c = f' class="{cls}"' if cls else ""
            b = ' font-weight="bold"' if bold else ""
            head = (f'<text{c} x="{num(x)}" y="{num(y)}" font-size="{num(size)}" text-anchor="{anchor}" '
                    f'fill="{color}"{b}>')
            if len(lines) == 1:
                out.append(head + _xml(lines[0]) + "</text>")
            else:
                spans = "".join(f'<tspan x="{num(x)}" y="{num(y + k * size * lead)}">{_xml(s)}</tspan>'
                                for k, s in enumerate(lines))
                out.append(head + spans + "</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def svg(layout, *, highlight=None, title=None, color=None) -> str:
    """SVG of a concrete layout (``Layout``, swizzled ``ComposedLayout``, or its text).

    Rank >= 2: rows = mode 0, columns = mode 1 (modes 2.. continue the columns); rank 1: a strip,
    wrapped at a sub-mode boundary (or every 64 cells) when longer than 64. Cells show ``L(row, col)``
    (coordinates for coordinate-stride layouts). ``highlight``: cells to outline in red, as
    ``(row, col)``, coordinates of the layout, or integral indices. ``title``: None for the layout's
    notation, ``""`` for none. ``color``: optional ``value -> "#rrggbb"`` fill."""
    return to_svg(single(plain_grid(layout, highlight, title, color)))


def svg_tv(tv_layout, tile=None, *, highlight=None, title=None, thr_id=None) -> str:
    """SVG of a TV layout ``(thread, value) -> m + M*n`` over an ``MxN`` tile (``tile=(M, N)``; entries may
    be shapes such as ``(8,2)`` to outline sub-tiles). Each cell shows ``T#`` over ``V#``, coloured by
    thread (``thread_color``); unmapped cells stay blank, cells hit more than once get a dashed red
    border and ``xN``. ``thr_id``: optional layout mapping thread index -> thread id for the labels.
    ``highlight``: tile cells ``(m, n)`` or tile indices."""
    return to_svg(single(tv_panel(tv_layout, tile, highlight, title, thr_id)))


def svg_mma(a_tv, b_tv, c_tv, shape_mnk, *, highlight=None, title=None, thr_id=None) -> str:
    """SVG of an MMA atom's TV layouts, arranged like CUTLASS's ``print_latex``: A (MxK, index
    ``m + M*k``) on the left, B drawn KxN (index ``n + N*k``) above C (MxN, index ``m + M*n``).
    ``highlight``: ``{"A": [...], "B": [...], "C": [...]}`` with cells in drawn (row, col) order."""
    return to_svg(mma_canvas(*mma_panels(a_tv, b_tv, c_tv, shape_mnk, highlight, title, thr_id), title=title))


def svg_banks(smem_layout, elem_bytes=2, *, highlight=None, title=None, show_bank=True) -> str:
    """SVG of a (typically swizzled) shared-memory layout, each cell labelled with its element offset
    (and ``b#``, its bank, unless ``show_bank=False``) and coloured by bank
    ``(offset * elem_bytes // 4) % 32``: in a conflict-free access, the cells read together all differ
    in colour."""
    return to_svg(single(banks_grid(smem_layout, elem_bytes, highlight, title, show_bank)))

