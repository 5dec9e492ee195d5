"""The bank model's enumeration as it was before issue 30 (frozen): the oracle of
``tests/analysis/test_banks_vectorized.py`` and the "before" of ``bench/banks.py`` / ``bench/synthesize.py``.

``layout_values_ref`` builds the table with the layout's own ``values()`` (a Python list, element by element);
``degree_ref`` dedupes (phase, word) keys with ``np.unique``. ``banks_model.layout_values`` / ``_degree`` must
return exactly what these return (same arrays, same degrees, wavefronts and witness). Not used by the checker.
"""
from __future__ import annotations

import numpy as np

from cuteverify.core.swizzle import ComposedLayout, Swizzle
from cuteverify.core.tuples import flatten
from cuteverify.errors import NotAdmissibleError
from cuteverify.analysis.banks.model import NUM_BANKS, WARP
from cuteverify.analysis.banks.verdict import BANK_BYTES

__all__ = ["layout_values_ref", "degree_ref", "bijective_ref", "merged_phases_ref", "vector_problem_ref",
           "widest_ref"]


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
    """Today's ``banks_model.conflict_degree``: ``(degree, wavefronts, ideal, witness-or-None)``."""
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
        P, phase = 4, merged_phases_ref(addr[:, ::n], vector_bytes)
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


def vector_problem_ref(off, eb, width, alignment=16, per=None):
    """Today's ``banks_model.vector_problem``: ``None`` if every thread's values group into aligned contiguous
    ``width``-byte vectors, else a
    ``(thread, why, value_indices, offsets)`` witness. ``per``: values per thread in one tile of a placed
    access (``banks_place``); a vector must not span two tiles, so ``width`` must split ``per`` values."""
    T, V = off.shape
    n = width // eb
    if per is not None and n > 1 and per % n:
        return (0, f"{per} values per thread per tile do not split into vectors of {n} elements", (), ())
    if width % eb:
        return (0, f"{width} bytes is not a multiple of the {eb}-byte element", (), ())
    if width > alignment:
        return (0, f"{width}-byte vectors need {width}-byte alignment; the base is only assumed "
                   f"{alignment}-byte aligned", (), ())
    if n == 1:
        bad = np.argwhere((off * eb) % width != 0) if width > 1 else np.zeros((0, 2), dtype=np.int64)
        if len(bad):
            t, v = map(int, bad[0])
            return (t, f"value {v} at element offset {int(off[t, v])} is not {width}-byte aligned", (v,),
                    (int(off[t, v]),))
        return None
    if V % n:
        return (0, f"{V} values per thread do not split into vectors of {n} elements", (), ())
    g = off.reshape(T, V // n, n)
    want = g[:, :, :1] + np.arange(n, dtype=np.int64)
    badc = np.argwhere(g != want)
    if len(badc):
        t, k, j = map(int, badc[0])
        vs = tuple(range(k * n, k * n + n))
        return (t, f"values {vs[0]}..{vs[-1]} are at element offsets {[int(x) for x in g[t, k]]}, not contiguous "
                   f"(value {k * n + j} should be at {int(want[t, k, j])})", vs, tuple(int(x) for x in g[t, k]))
    bada = np.argwhere((g[:, :, 0] * eb) % width != 0)
    if len(bada):
        t, k = map(int, bada[0])
        vs = tuple(range(k * n, k * n + n))
        return (t, f"values {vs[0]}..{vs[-1]} start at element offset {int(g[t, k, 0])} = byte "
                   f"{int(g[t, k, 0]) * eb}, not {width}-byte aligned", vs, tuple(int(x) for x in g[t, k]))
    return None


def widest_ref(off, eb, alignment=16, per=None):
    """The widest vector width (bytes) every thread's values allow and ``(twice that, why not)`` or None."""
    w, blocker = eb, None
    cand = eb * 2
    while cand <= min(16, alignment) and cand <= 16:
        p = vector_problem_ref(off, eb, cand, alignment, per)
        if p is not None:
            blocker = (cand, p)
            break
        w = cand
        cand *= 2
    if blocker is None and w * 2 <= 16 and eb <= 16:
        blocker = (w * 2, vector_problem_ref(off, eb, w * 2, alignment, per))
    return w, blocker


def merged_phases_ref(vaddr, vector_bytes):
    """Phase index (0..3) of every (thread, iteration) for 8- and 16-byte accesses, as the H200 forms them.

    Fitted to every ncu measurement recorded (``specs/evidence/sm90/banks_ncu.jsonl`` and the earlier table
    in ``examples/banks_silicon.md``; ``tests/analysis/test_banks_ncu.py``): lanes of one aligned quad (lanes 4i ..
    4i+3) that read the same address are one request; the requests, in lane order, fill phases of 128 bytes
    (16 of 8 bytes, 8 of 16 bytes), and a 16-byte phase never mixes the two half-warps. So pairs of lanes
    reading one 8-byte word take 1 wavefront (not 2), a 16-byte broadcast 2 (not 4), while lanes ``i`` and
    ``i + 16`` reading the same address are still two requests (8 bytes: 2 wavefronts, measured).

    ``vaddr``: (threads, iterations) byte address of each vector."""
    T, K = vaddr.shape
    cap = 128 // vector_bytes
    rows = np.arange(T, dtype=np.int64)
    quad = rows // 4
    src = np.broadcast_to(rows[:, None], (T, K)).copy()      # the earliest lane of the quad with that address
    for d in (1, 2, 3):
        same = np.zeros((T, K), dtype=bool)
        same[d:] = (vaddr[d:] == vaddr[:-d]) & (quad[d:] == quad[:-d])[:, None]
        src[same] = (rows[:, None] - d).repeat(K, axis=1)[same]
    first = src == rows[:, None]
    seg = 16 if vector_bytes == 16 else WARP                 # lanes whose requests fill one run of phases
    phase = np.zeros((T, K), dtype=np.int64)
    for s0 in range(0, T, seg):
        rank = np.cumsum(first[s0:s0 + seg], axis=0) - 1     # request number, right for first lanes
        phase[s0:s0 + seg] = rank // cap + (2 * ((s0 % WARP) // 16) if vector_bytes == 16 else 0)
    return np.take_along_axis(phase, src, axis=0)            # a repeated lane rides on its first lane's request
