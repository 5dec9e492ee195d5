"""The hardware side of every comparison, as int tables: what the PTX formula says each (thread, value) holds,
and the spec's own CUTLASS layouts converted once to :class:`~cuteverify.hardware.library.intlayout.IntLayout`.

Formula tables are compiled once per distinct formula tree (:func:`cuteverify.hardware.library.formula.table`) and
take the family parameters as arguments, so one compiled table serves every instance of a family; layouts
are cached by their text after parameter substitution. Both caches are what keeps the self-check of the
whole library (hundreds of family instances) well under a second.
"""
from __future__ import annotations

import ast
from typing import Iterable

from . import formula as _fm
from .intlayout import IntLayout, int_layout
from .spec import THREAD_VARS, Spec, clear_layout_cache, eval_param_expr, operand_formulas

__all__ = ["hw_indices", "hw_elements", "element_of", "expected_values", "spec_int_layout", "clear_caches"]

_TABLES: dict = {}
_INT_LAYOUTS: dict = {}


def _tv_rows(thr: IntLayout, threads: Iterable[int]) -> list:
    """Outer rows (thread, tid, lane, warp) for the formula tables."""
    rows = []
    for t in threads:
        tid = thr(t)
        rows.append((t, tid, tid % 32, tid // 32))
    return rows


def _tv_table(row: "_fm.Formula", col: "_fm.Formula", names: tuple):
    """Compiled table of (row, col) over ((thread, tid, lane, warp), (i,)); ``names`` are parameters."""
    key = (row.key, col.key, names)
    fn = _TABLES.get(key)
    if fn is None:
        fn = _TABLES[key] = _fm.table([row, col], THREAD_VARS, ("i",), names)
    return fn


def _index_table(row: "_fm.Formula", col: "_fm.Formula", order: str, names: tuple):
    """Compiled table of the CuTe index the formula gives (None outside the tile), one comprehension.

    Builds ``(_r + _R*_c) if (0 <= (_r := ROW) < _R and 0 <= (_c := COL) < _C) else None`` (or the
    row-major / B variants) from the already whitelisted formula trees; the tile extents ``_R``, ``_C`` and
    the family parameters are arguments, so one compiled table serves every instance of a family.
    """
    key = ("index", row.key, col.key, order, names)
    fn = _TABLES.get(key)
    if fn is not None:
        return fn
    idx = {"col": "_r + _R*_c", "row_b": "_c + _C*_r"}.get(order, "_r*_C + _c")
    expr = ast.parse(f"({idx}) if (0 <= (_r := 0) < _R and 0 <= (_c := 0) < _C) else None", mode="eval").body
    walrus = [n for n in ast.walk(expr) if isinstance(n, ast.NamedExpr)]
    walrus[0].value, walrus[1].value = row.tree, col.tree  # splice the checked formula trees
    fn = _TABLES[key] = _fm.table([_fm.Formula("<index>", expr, row.names | col.names)],
                                  THREAD_VARS, ("i",), names + ("_R", "_C"))
    return fn


def hw_indices(spec: Spec, operand: str, params: dict, threads: list, nvals: int, thr: IntLayout,
               tile: tuple) -> list:
    """Formula index (CuTe convention) for every (thread in ``threads``, value < nvals), thread outer."""
    fs = operand_formulas(spec, operand)
    ptuple = tuple(sorted(params.items()))
    fn = _index_table(fs["row"], fs["col"], tile[2], tuple(k for k, _ in ptuple))
    return fn(_tv_rows(thr, threads), [(i,) for i in range(nvals)], *(v for _, v in ptuple), tile[0], tile[1])


def hw_elements(spec: Spec, operand: str, params: dict, threads: list, nvals: int, thr: IntLayout) -> list:
    """Formula (row, col) for every (thread in ``threads``, value < nvals), thread outer."""
    fs = operand_formulas(spec, operand)
    ptuple = tuple(sorted(params.items()))
    fn = _tv_table(fs["row"], fs["col"], tuple(k for k, _ in ptuple))
    return fn(_tv_rows(thr, threads), [(i,) for i in range(nvals)], *(v for _, v in ptuple))


def element_of(idx: int, tile) -> tuple:
    """The (row, col) a CuTe index of the tile names (``tile`` = (rows, cols, order) of :meth:`Spec.tile`)."""
    rows, cols, order = tile
    if order == "col":
        return (idx % rows, idx // rows)
    return (idx // cols, idx % cols)


def expected_values(spec: Spec, operand: str, params: dict, tile) -> int:
    """Values per thread the hardware holds of ``operand`` (declared, or tile x multiplicity / threads)."""
    node = spec.data["operands"][operand]
    per_thread = node.get("values")
    if per_thread is not None:
        return eval_param_expr(per_thread, params, "values")
    mult = spec.threads if node.get("broadcast") == "all" else int(node.get("multiplicity", 1))
    total = tile[0] * tile[1] * mult
    return total // spec.threads


def spec_int_layout(spec: Spec, operand: str, params: dict) -> IntLayout:
    """:meth:`Spec.layout` as int tables (the fast path of the enumerations: a table, not a Layout), cached by
    layout text."""
    text = spec.layout_text(operand, **params) if params else spec.layout_text(operand)
    hit = _INT_LAYOUTS.get(text)
    if hit is None:
        lay = spec.layout(operand, **params)
        hit = _INT_LAYOUTS[text] = int_layout(lay, f"{spec.name} {operand}")
    return hit


def clear_caches() -> None:
    """Forget parsed layouts (after the spec files changed)."""
    clear_layout_cache()
