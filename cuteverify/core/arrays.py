"""Value tables of concrete layouts as numpy arrays (batch evaluation; docs/model.md section 4).

Valid for: concrete plain layouts with integer strides, and swizzles applied to such values. Every function
answers None where that does not hold (or int64 has no room), and the caller keeps its Python path.
"""
from __future__ import annotations

import numpy as np

from .layout import Layout


def swizzle_array(sw, a):
    """The swizzle ``sw`` applied elementwise to the int64 numpy array ``a`` (the same bits as on Python ints:
    two's complement ``&``, ``^`` and arithmetic shifts agree while no value leaves int64)."""
    if sw.shift >= 0:
        return a ^ ((a & sw.yyy_mask) >> sw.shift)
    return a ^ ((a & sw.yyy_mask) << -sw.shift)


def layout_array(L: Layout):
    """The values ``[L(0), ..., L(size-1)]`` of a concrete plain integer layout as an int64 numpy array
    (colexicographic, as ``Layout.values``), or None without numpy / integer leaves / int64 room."""
    if type(L) is not Layout:
        return None
    lv = L.int_leaves
    if lv is None:
        return None
    vals = np.zeros(1, dtype=np.int64)
    hi = 0
    for s, d in zip(lv[0], lv[1]):
        if s == 1:
            continue
        hi += (s - 1) * abs(d)
        if hi >= 1 << 62:
            return None
        vals = (vals[None, :] + (np.arange(s, dtype=np.int64) * d)[:, None]).reshape(-1)
    return vals


__all__ = ["swizzle_array", "layout_array"]
