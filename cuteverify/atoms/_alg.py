"""The algebra operations the atom layer uses, each refusing a result that split into cases.

The atom layer rearranges modes of plain (unguarded) layouts: CuTe builds its atoms and tilers from static
sizes. A symbolic size (``--permutation abc``, a tile ``(M,4)``) can make a divide or a composition split into
cases (a ``PiecewiseLayout``, docs/model.md section 5.5) that the atom layer does not carry; each wrapper here
turns such a result into an :class:`~cuteverify.errors.UndecidedError` naming the operation, never an
``AttributeError`` further on. Plain results pass through unchanged, in every stride domain the algebra accepts.
"""
from __future__ import annotations

import functools

from .. import algebra as _algebra
from ..core.piecewise import PiecewiseLayout
from ..errors import UndecidedError

__all__ = ["coalesce", "complement", "composition", "filter", "left_inverse", "logical_divide", "logical_product",
           "raked_product", "right_inverse", "tiled_product", "upcast", "unguarded"]


def unguarded(value, what: str):
    """``value`` unless it is a piecewise (case-split) layout, which the atom layer refuses as undecided."""
    if isinstance(value, PiecewiseLayout):
        raise UndecidedError(f"{what}: the result depends on the symbols' values (it splits into "
                             f"{len(value.pieces)} cases); the atom layer needs concrete sizes here")
    return value


def _no_cases(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return unguarded(fn(*args, **kwargs), fn.__name__)
    return wrapper


coalesce = _no_cases(_algebra.coalesce)
complement = _no_cases(_algebra.complement)
composition = _no_cases(_algebra.composition)
filter = _no_cases(_algebra.filter)  # noqa: A001 - CuTe's name
left_inverse = _no_cases(_algebra.left_inverse)
logical_divide = _no_cases(_algebra.logical_divide)
logical_product = _no_cases(_algebra.logical_product)
raked_product = _no_cases(_algebra.raked_product)
right_inverse = _no_cases(_algebra.right_inverse)
tiled_product = _no_cases(_algebra.tiled_product)
upcast = _no_cases(_algebra.upcast)
