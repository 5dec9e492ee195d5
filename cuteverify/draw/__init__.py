"""Drawings of layouts (issue 7), a front end: SVG written directly as XML text and standalone TikZ documents;
``grid`` (cells and colours) -> ``canvas`` (geometry) -> ``svg`` / ``tikz`` (output), and notebook rendering.

May import: every layer below the front ends (``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``,
``hardware``, ``analysis``); nothing below imports it.

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
index) drawn with a thick red border, e.g. the counterexample of a failed proof. A drawing that cannot be made
(symbolic layout, too many cells, a highlight outside the grid) raises ``NotAdmissibleError``.

Notebooks: ``%load_ext cuteverify.draw`` (``load_ipython_extension``) shows every concrete ``Layout`` and
``ComposedLayout`` as its SVG drawing; the core itself knows nothing of drawings.
"""
from __future__ import annotations

from ..core.layout import Layout
from ..core.swizzle import ComposedLayout
from ..errors import CuteVerifyError
from .grid import MAX_CELLS, bank_color, bank_of, thread_color
from .svg import svg, svg_banks, svg_mma, svg_tv
from .tikz import tikz, tikz_banks, tikz_mma, tikz_tv

__all__ = ["svg", "svg_tv", "svg_mma", "svg_banks", "tikz", "tikz_tv", "tikz_mma", "tikz_banks",
           "thread_color", "bank_color", "bank_of", "MAX_CELLS", "svg_or_none", "load_ipython_extension"]


def svg_or_none(layout) -> str | None:
    """``svg(layout)``, or ``None`` when the layout cannot be drawn (symbolic, or more than ``MAX_CELLS``
    cells): the notebook then shows its text form. For IPython's ``image/svg+xml`` formatter."""
    try:
        return svg(layout)
    except CuteVerifyError:
        return None


def load_ipython_extension(ipython) -> None:
    """IPython extension hook (``%load_ext cuteverify.draw``): register ``svg_or_none`` as the SVG formatter
    of ``Layout`` and ``ComposedLayout``. Post-condition: a cell whose value is a concrete layout renders as
    its drawing; other values are untouched."""
    formatter = ipython.display_formatter.formatters["image/svg+xml"]
    for cls in (Layout, ComposedLayout):
        formatter.for_type(cls, svg_or_none)
