"""Value tables pasted back into layouts: CuTe's ``print_layout`` (C++ and pycute: ``| 0 | 4 | ...`` rows under
a ``+----+`` grid) and ``print_latex`` (TikZ ``\\node[fill=...] at (m,n) {v};`` cells).

A table is the function ``(m, n) -> value`` of a rank-2 layout. It reads back as the layout with the fewest
modes per dimension whose values are the table's at every cell (docs/model.md section 2): each dimension's
column 0 / row 0 is fitted greedily as strides of a mixed radix, and the whole table is then checked against the
fit, so an answer is always the table's function. A table that is no layout (a swizzled tile, a typo) is a
``ParseError`` naming the first cell where the best fit differs.
"""
from __future__ import annotations

import re

from ...errors import ParseError
from ..layout import Layout

__all__ = ["looks_like_table", "parse_table", "MAX_CELLS"]

MAX_CELLS = 1 << 20  # a pasted table larger than this is not something anyone printed

_LATEX_CELL = re.compile(r"\\node\s*\[[^\]]*\]\s*at\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*\{\s*(-?\d+)\s*\}")
_GRID_ROW = re.compile(r"^\s*(\d+)\s*\|(.*)\|\s*$")


def looks_like_table(text: str) -> bool:
    """Does ``text`` hold a print_layout grid or print_latex cells (rather than CuTe notation)?"""
    return "\n" in text.strip() and (bool(_LATEX_CELL.search(text)) or
                                     any(_GRID_ROW.match(line) for line in text.splitlines()))


def _grid_cells(text):
    rows = {}
    for k, line in enumerate(text.splitlines(), 1):
        m = _GRID_ROW.match(line)
        if not m:
            continue
        cells = [c.strip() for c in m.group(2).split("|")]
        try:
            rows[int(m.group(1))] = [int(c) for c in cells]
        except ValueError:
            bad = next(c for c in cells if not re.fullmatch(r"-?\d+", c))
            raise ParseError(line, max(line.find(bad), 0) + 1, f"integer cells in table row {k} (got {bad!r})",
                             "table") from None
    return rows


def _latex_cells(text):
    rows: dict = {}
    for m in _LATEX_CELL.finditer(text):
        i, j, v = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if i >= 0 and j >= 0:  # index labels sit at row or column -1
            rows.setdefault(i, {})[j] = v
    out = {}
    for i, cols in rows.items():
        if sorted(cols) != list(range(len(cols))):
            raise ParseError(text.strip().splitlines()[0], 1, f"cells (row {i}, columns 0..{len(cols) - 1})",
                             "table")
        out[i] = [cols[j] for j in range(len(cols))]
    return out


def _fit(values):
    """Shape and stride (an int or a tuple each) of a layout whose values along one dimension are ``values``
    (``values[0] == 0``), or ``None``. Greedy: the next mode's stride is the value at the current block size,
    its extent the longest run of multiples of it whose length divides what is left."""
    n = len(values)
    shape, stride, block = [], [], 1
    while block < n:
        d = values[block]
        left = n // block
        run = 1
        while run < left and values[block * run] == run * d:
            run += 1
        ext = max(e for e in range(1, run + 1) if left % e == 0)
        if ext == 1:
            return None
        shape.append(ext)
        stride.append(d)
        block *= ext
    if not shape:
        return 1, 0
    return (shape[0], stride[0]) if len(shape) == 1 else (tuple(shape), tuple(stride))


def parse_table(text: str) -> Layout:
    """The rank-2 layout whose values are the table's (see the module docstring); ``ParseError`` when the
    text is no complete table or no layout has those values."""
    rows = _latex_cells(text) if _LATEX_CELL.search(text) else _grid_cells(text)
    first = (text.strip().splitlines() or [""])[0]
    if not rows:
        raise ParseError(first, 1, "a print_layout or print_latex table", "table")
    M = len(rows)
    if sorted(rows) != list(range(M)):
        raise ParseError(first, 1, f"rows numbered 0..{M - 1} (got {sorted(rows)[:8]})", "table")
    N = len(rows[0])
    if any(len(rows[i]) != N for i in range(M)):
        i = next(i for i in range(M) if len(rows[i]) != N)
        raise ParseError(first, 1, f"{N} cells in every row (row {i} has {len(rows[i])})", "table")
    if M * N > MAX_CELLS:
        raise ParseError(first, 1, f"a table of at most {MAX_CELLS} cells", "table")
    if rows[0][0] != 0:
        raise ParseError(first, 1, f"0 at row 0, column 0 (a layout maps coordinate 0 to 0; got {rows[0][0]})",
                         "table")
    col = _fit([rows[m][0] for m in range(M)])
    row = _fit(rows[0])
    if col is None or row is None:
        raise ParseError(first, 1, "a table of layout values (the "
                         + ("first column" if col is None else "first row") + " has no mode structure)", "table")
    L = Layout((col[0], row[0]), (col[1], row[1]))
    for m in range(M):
        for n in range(N):
            if L(m, n) != rows[m][n]:
                raise ParseError(first, 1, f"a table of layout values: row {m}, column {n} holds {rows[m][n]}, "
                                 f"but the layout {L} that fits row 0 and column 0 gives {L(m, n)} (a swizzled "
                                 "or hand-edited table is no layout)", "table")
    return L
