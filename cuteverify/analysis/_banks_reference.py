"""The bank model's enumeration as it was before issue 30 (frozen): the oracle of
``tests/test_banks_vectorized.py`` and the "before" of ``bench/banks.py`` / ``bench/synthesize.py``.

``layout_values_ref`` builds the table with the layout's own ``values()`` (a Python list, element by element);
``degree_ref`` dedupes (phase, word) keys with ``np.unique``. ``banks_model.layout_values`` / ``_degree`` must
return exactly what these return (same arrays, same degrees, wavefronts and witness). Not used by the checker.
"""
from __future__ import annotations

import numpy as np

from ..core.swizzle import ComposedLayout, Swizzle
from ..core.tuples import flatten
from ..errors import NotAdmissibleError
from .banks_model import NUM_BANKS, WARP, _merged_phases
from .banks_verdict import BANK_BYTES

__all__ = ["layout_values_ref", "degree_ref", "bijective_ref"]


def layout_values_ref(layout) -> np.ndarray:
    """``[L(0), ..., L(size-1)]`` as int64, element by element (today's ``banks_model.layout_values``)."""
    if isinstance(layout, ComposedLayout):
        outer = layout_values_ref(layout.outer) + int(layout.offset)
        inner = layout.inner
        if isinstance(inner, Swizzle):
            return inner(outer)
        return np.array([inner(int(x)) for x in outer], dtype=np.int64)
    for s, d in zip(flatten(layout.shape), flatten(layout.stride)):
        if type(s) is not int or type(d) is not int:
            raise NotAdmissibleError("banks", f"layout {layout} has a non-integer shape or stride ({s}:{d})")
    return np.asarray(layout.values(), dtype=np.int64)


def bijective_ref(sv, n, padded):
    """Today's ``synth.search._bijective``."""
    if padded:
        return len(np.unique(sv)) == n and sv.min() >= 0
    return bool(np.array_equal(np.sort(sv), np.arange(n, dtype=sv.dtype)))


def degree_ref(idx, off, eb, vector_bytes, lanes, base_bytes=0, merge=False):
    """Today's ``banks_model._degree``: ``(degree, wavefronts, ideal, witness-or-None)``."""
    T, V = off.shape
    n = max(1, vector_bytes // eb)
    K = V // n
    addr = off * eb + base_bytes
    wpe = max(1, eb // BANK_BYTES)
    words = addr // BANK_BYTES
    if wpe > 1:
        words = (words[:, :, None] + np.arange(wpe, dtype=np.int64)).reshape(T, V * wpe)
    t = np.arange(T, dtype=np.int64)
    W = -(-T // WARP)
    k_of = np.repeat(np.arange(V, dtype=np.int64) // n, wpe)
    if merge and vector_bytes in (8, 16):
        P, phase = 4, _merged_phases(addr[:, ::n], vector_bytes)
        ph = phase[:, k_of]
    else:
        P = WARP // lanes
        ph = np.broadcast_to(((t % WARP) // lanes)[:, None], words.shape)
    g = ((t // WARP)[:, None] * K + k_of[None, :]) * P + ph
    ngroups = W * K * P
    wmax = int(words.max()) + 1 if words.size else 1
    keys = np.unique(g.ravel() * wmax + words.ravel())
    gg, ww = keys // wmax, keys % wmax
    counts = np.bincount(gg * NUM_BANKS + ww % NUM_BANKS, minlength=ngroups * NUM_BANKS)
    per_group = counts.reshape(ngroups, NUM_BANKS).max(axis=1)
    used = np.bincount(g.ravel(), minlength=ngroups) > 0
    degree = int(per_group.max()) if per_group.size else 0
    wavefronts = int(per_group[used].sum())
    ideal = int(used.sum())
    wit = None
    if degree > 1:
        cell = int(np.argmax(counts))
        g0, bank = divmod(cell, NUM_BANKS)
        sel = (g == g0) & (words % NUM_BANKS == bank)
        ts, cols = np.nonzero(sel)
        w_sel = words[ts, cols]
        first = int(w_sel[0])
        other = int(np.nonzero(w_sel != first)[0][0])
        picks = [(int(ts[0]), int(cols[0]) // wpe), (int(ts[other]), int(cols[other]) // wpe)]
        warp, rest = divmod(g0, K * P)
        k, phase = divmod(rest, P)
        wit = dict(threads=tuple(p[0] for p in picks), elements=tuple(int(idx[p]) for p in picks),
                   addresses=tuple(int(addr[p]) for p in picks), bank=bank, warp=warp, iteration=k, phase=phase,
                   degree=degree)
    return degree, wavefronts, ideal, wit
