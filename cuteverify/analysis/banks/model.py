"""The shared-memory model of the bank-conflict analysis: concrete offsets of a TV access, vector widths,
phases and exact conflict degrees, all by enumeration with numpy (the hardware model is in ``banks``).
"""
from __future__ import annotations

import numpy as np

from ...core.layout import Layout
from ...core.swizzle import ComposedLayout, Swizzle
from ...core.tuples import flatten, is_tuple, product, unflatten
from ...errors import NotAdmissibleError
from ...hardware.library.dtypes import DTYPE_BYTES
from .verdict import BANK_BYTES

__all__ = ["NUM_BANKS", "BANK_BYTES", "WARP", "DTYPE_BYTES", "elem_bytes_of", "access_offsets", "layout_values"]

NUM_BANKS = 32
WARP = 32


def elem_bytes_of(dtype=None, elem_bytes=None) -> int:
    """Element width in bytes from a dtype name (``bf16``, ``f32``, ``e4m3``, ...) or an explicit width."""
    if elem_bytes is not None:
        if type(elem_bytes) is not int or elem_bytes not in (1, 2, 4, 8, 16):
            raise NotAdmissibleError("banks", f"elem_bytes must be 1, 2, 4, 8 or 16, got {elem_bytes!r}")
        if dtype is not None and DTYPE_BYTES.get(str(dtype).lower(), elem_bytes) != elem_bytes:
            raise NotAdmissibleError("banks", f"dtype {dtype} is {DTYPE_BYTES[str(dtype).lower()]} bytes, "
                                              f"not elem_bytes={elem_bytes}")
        return elem_bytes
    if dtype is None:
        return 2
    if isinstance(dtype, int):
        return elem_bytes_of(None, dtype)
    key = str(dtype).lower()
    if key not in DTYPE_BYTES:
        raise NotAdmissibleError("banks", f"unknown dtype {dtype!r} (sub-byte types are not modelled); known: "
                                          + ", ".join(sorted(set(DTYPE_BYTES))))
    return DTYPE_BYTES[key]


# ------------------------------------------------------------------------------------ enumeration

def layout_values(layout) -> np.ndarray:
    """``[L(0), ..., L(size-1)]`` as int64 for a concrete ``Layout`` or ``ComposedLayout`` with integer strides.

    Built mode by mode with numpy, colexicographically (the first mode fastest), the order of the layout's own
    ``values()``; a swizzle is the core's ``Swizzle`` applied to the whole array at once, a layout as the
    outer function of a composition is its own table indexed by the inner values. Post-condition: equal to
    ``np.asarray(layout.values())`` (``tests/oracles/banks_reference.py: layout_values_ref``, checked by
    ``tests/analysis/test_banks_vectorized.py``); a table whose values could leave int64 takes that element-by-element
    path and its error."""
    if isinstance(layout, ComposedLayout):
        outer = layout_values(layout.outer)
        if int(layout.offset):
            outer += int(layout.offset)                        # a fresh table: in place
        inner = layout.inner
        if isinstance(inner, Swizzle):  # x ^ ((x & yyy) >> shift), the core's Swizzle, in place on the fresh table
            y = np.bitwise_and(outer, inner.yyy_mask)
            if inner.shift >= 0:
                y >>= inner.shift
            else:
                y <<= -inner.shift
            outer ^= y
            return outer
        if isinstance(inner, Layout) and outer.size and outer.min() >= 0 and _is_integer(inner):
            table = layout_values(inner)
            if outer.max() < table.size:
                return table[outer]
        return np.array([inner(int(x)) for x in outer], dtype=np.int64)
    shape, stride = flatten(layout.shape), flatten(layout.stride)
    for s, d in zip(shape, stride):
        if type(s) is not int or type(d) is not int:
            raise NotAdmissibleError("banks", f"layout {layout} has a non-integer shape or stride ({s}:{d})")
    if sum((s - 1) * abs(d) for s, d in zip(shape, stride)) >= 1 << 62:
        return np.asarray(layout.values(), dtype=np.int64)
    vals = np.zeros(1, dtype=np.int64)
    for s, d in zip(shape, stride):
        if s != 1:
            vals = (np.arange(s, dtype=np.int64) * d)[:, None] + vals[None, :]   # k slower than the earlier modes
            vals = vals.ravel()
    return vals


def _is_integer(layout):
    return all(type(s) is int and type(d) is int for s, d in zip(flatten(layout.shape), flatten(layout.stride)))


def _path_weight(path, shape) -> int:
    """Index weight of the coordinate basis ``E<path>`` in ``shape`` (colexicographic, hierarchical)."""
    w, s = 1, shape
    for i in path:
        if not is_tuple(s):
            if i == 0:
                continue
            raise NotAdmissibleError("banks", f"coordinate stride @{'@'.join(map(str, path))} does not fit the "
                                              "smem layout's shape")
        if i >= len(s):
            raise NotAdmissibleError("banks", f"coordinate stride @{'@'.join(map(str, path))} names mode {i} of a "
                                              f"rank-{len(s)} shape")
        w *= product(tuple(s[:i])) if i else 1
        s = s[i]
    return w


def _index_layout(access, smem_shape):
    """``access`` with coordinate strides ``a@i`` turned into integer index strides of ``smem_shape``."""
    strides = list(flatten(access.stride))
    if all(type(d) is int for d in strides):
        return access
    out = []
    for d in strides:
        if type(d) is int:
            out.append(d)
        elif hasattr(d, "path") and type(d.value) is int:
            out.append(d.value * _path_weight(d.path, smem_shape))
        else:
            raise NotAdmissibleError("banks", f"access stride {d} is neither an integer nor a coordinate basis")
    return Layout(access.shape, unflatten(out, access.shape))


def tv_shape(access):
    """(threads, values) of a TV layout; rank 1 means one value per thread."""
    if is_tuple(access.shape):
        if len(access.shape) == 1:
            return product(access.shape[0]), 1
        if len(access.shape) != 2:
            raise NotAdmissibleError("banks", f"the access must be a TV layout (thread, value), got rank "
                                              f"{len(access.shape)}: {access}")
        return product(access.shape[0]), product(access.shape[1])
    return access.shape, 1


def access_offsets(smem, access):
    """``(idx, off)``: int64 arrays of shape (threads, values): the tile element index ``access(t, v)`` and its
    element offset ``smem(idx)``. ``smem=None`` reads ``access`` as offsets directly."""
    T, V = tv_shape(access)
    if smem is None:
        off = layout_values(access).reshape(V, T).T
        return off, off
    shape = smem.shape
    idx = layout_values(_index_layout(access, shape)).reshape(V, T).T
    sv = layout_values(smem)
    n = sv.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = np.argwhere((idx < 0) | (idx >= n))[0]
        raise NotAdmissibleError("banks", f"thread {bad[0]} value {bad[1]} reaches element {idx[bad[0], bad[1]]}, "
                                          f"outside the smem layout's {n} elements")
    return idx, sv[idx]


def vector_problem(off, eb, width, alignment=16, per=None):
    """``None`` if every thread's values group into aligned contiguous ``width``-byte vectors, else a
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
        bad = _first((off * eb) % width != 0) if width > 1 else ()
        if len(bad):
            t, v = map(int, bad[0])
            return (t, f"value {v} at element offset {int(off[t, v])} is not {width}-byte aligned", (v,),
                    (int(off[t, v]),))
        return None
    if V % n:
        return (0, f"{V} values per thread do not split into vectors of {n} elements", (), ())
    g = off.reshape(T, V // n, n)
    want = g[:, :, :1] + np.arange(n, dtype=np.int64)
    miss = g != want
    if not miss.any() and not ((g[:, :, 0] * eb) % width).any():
        return None                                            # contiguous and aligned: no witness to look for
    badc = _first(miss)
    if len(badc):
        t, k, j = map(int, badc[0])
        vs = tuple(range(k * n, k * n + n))
        return (t, f"values {vs[0]}..{vs[-1]} are at element offsets {[int(x) for x in g[t, k]]}, not contiguous "
                   f"(value {k * n + j} should be at {int(want[t, k, j])})", vs, tuple(int(x) for x in g[t, k]))
    bada = _first((g[:, :, 0] * eb) % width != 0)
    if len(bada):
        t, k = map(int, bada[0])
        vs = tuple(range(k * n, k * n + n))
        return (t, f"values {vs[0]}..{vs[-1]} start at element offset {int(g[t, k, 0])} = byte "
                   f"{int(g[t, k, 0]) * eb}, not {width}-byte aligned", vs, tuple(int(x) for x in g[t, k]))
    return None


def _first(mask):
    """``[np.argwhere(mask)[0]]`` (the first set entry in row-major order) or ``()`` when none is set: one
    argmax, not a list of every set entry (a search visits many illegal widths)."""
    flat = mask.ravel()
    i = int(np.argmax(flat)) if flat.size else 0
    return [np.unravel_index(i, mask.shape)] if flat.size and flat[i] else ()


def widest_vector(off, eb, alignment=16, per=None):
    """The widest vector width (bytes) every thread's values allow and ``(twice that, why not)`` or None.

    Each width is decided on two column summaries (which neighbouring values are one element apart in every
    thread, and the OR of each column's offsets, whose low bits are zero iff every thread's are) instead of
    a pass over the whole table per width; only the blocker's witness comes from :func:`vector_problem`.
    Post-condition: the width is the largest of ``eb, 2 eb, ...`` (at most ``min(16, alignment)``) such that
    it and every narrower width pass :func:`vector_problem`, as an ascending search finds it
    (``tests/oracles/banks_reference.py: widest_ref``)."""
    w = eb
    T, V = off.shape
    if T and V > 1:
        step_ok = np.ones(V, dtype=bool)                       # step_ok[c]: value c + 1 is one element after c
        step_ok[:-1] = (np.diff(off, axis=1) == 1).all(axis=0)
        low = np.bitwise_or.reduce(off, axis=0)
        cand = eb * 2
        while cand <= min(16, alignment) and cand <= 16:
            n = cand // eb
            if (per is not None and per % n) or V % n or not step_ok.reshape(-1, n)[:, :-1].all() \
                    or ((low[::n] & (n - 1)) != 0).any():      # n is a power of two: aligned iff no low bits
                break
            w = cand
            cand *= 2
        blocker = (w * 2, vector_problem(off, eb, w * 2, alignment, per)) if w * 2 <= 16 and eb <= 16 else None
        return w, blocker
    blocker = None
    cand = eb * 2
    while cand <= min(16, alignment) and cand <= 16:
        p = vector_problem(off, eb, cand, alignment, per)
        if p is not None:
            blocker = (cand, p)
            break
        w = cand
        cand *= 2
    if blocker is None and w * 2 <= 16 and eb <= 16:
        blocker = (w * 2, vector_problem(off, eb, w * 2, alignment, per))
    return w, blocker


def lanes_per_phase(vector_bytes, phases):
    """Threads served per shared-memory phase for accesses of ``vector_bytes`` bytes: the hardware default
    (32 / 16 / 8 for 4- / 8- / 16-byte accesses) when ``phases`` is None, 8 for ``"ldmatrix"``/``"stmatrix"``,
    else 32 / ``phases``. A ``phases`` that does not divide 32 is refused (NotAdmissibleError)."""
    if phases is None:
        return WARP if vector_bytes <= 4 else (16 if vector_bytes == 8 else 8)
    if isinstance(phases, str):
        if phases.lower() in ("ldmatrix", "stmatrix", "ldsm", "stsm"):
            return 8
        if not phases.strip().isdigit():
            raise NotAdmissibleError("banks", f"phases must be a number of phases (1, 2, 4, 8) or 'ldmatrix', "
                                              f"got {phases!r}")
        phases = int(phases)
    if type(phases) is not int or phases <= 0 or WARP % phases:
        raise NotAdmissibleError("banks", f"phases must divide 32 (phases per warp request), got {phases!r}")
    return WARP // phases


#: Entries of the (thread, word) table worked on at once: whole warps, so that a chunk's arrays stay in cache
#: (a fresh multi-MiB array costs its page faults every call).
CHUNK = 1 << 15


def conflict_degree(idx, off, eb, vector_bytes, lanes, base_bytes=0, merge=False):
    """Exact degrees; returns (degree, wavefronts, ideal, witness-or-None).

    ``merge=False``: fixed phases of ``lanes`` threads (ldmatrix / stmatrix, an explicit ``phases=``).
    ``merge=True`` (8- and 16-byte accesses with the default phases): the H200's phases of merged requests
    (:func:`_merged_phases`). Either way a phase takes as many wavefronts as its largest number of distinct
    words on one bank (the degree of the phase; ideal 1 wavefront per phase).

    Vectorised (issue 30): when every vector is one aligned run of ``vector_bytes`` (whole words; what
    :func:`vector_problem` checks, verified here by ``_whole_chunks``), its words are the chunk
    ``address // vector_bytes`` and its banks one class of ``vector_bytes // 4`` banks, so one key per vector
    counts the distinct chunks per (phase, class), equal to the distinct words per (phase, bank) of each of the
    class's banks. Otherwise, per chunk of warps, the distinct (phase, word) pairs by a sort of packed keys;
    ``tests/oracles/banks_reference.py: degree_ref`` is the model before it (equal results, ``tests/analysis/test_banks_vectorized.py``),
    except for words below 0, which it mixed into the wrong phases."""
    T, V = off.shape
    n = max(1, vector_bytes // eb)
    K = V // n
    wpe = max(1, eb // BANK_BYTES)
    W = -(-T // WARP)
    merged = merge and vector_bytes in (8, 16)
    P = 4 if merged else WARP // lanes                         # merged: at most 4 phases per request
    ngroups = W * K * P
    phase = _merged_phases(off[:, ::n] * eb + base_bytes, vector_bytes) if merged else None   # (T, K)
    counts, per_group = None, None
    used = np.zeros(ngroups, dtype=bool)
    chunks = _whole_chunks(off, eb, vector_bytes, base_bytes, n, K)
    if chunks is not None and ngroups.bit_length() + (int(chunks.max()) - int(chunks.min())).bit_length() > 56:
        chunks = None                                          # packed keys would not fit int64
    if chunks is not None:
        # every vector is one aligned chunk of vector_bytes // 4 words: its banks are one class of the 32, so the
        # distinct words per (phase, bank) are the distinct chunks per (phase, class), one key per vector
        wv = vector_bytes // BANK_BYTES
        ncls = NUM_BANKS // wv
        t = np.arange(T, dtype=np.int64)[:, None]
        ks = np.arange(K, dtype=np.int64)[None, :]
        g = ((t // WARP) * K + ks) * P + (phase if merged else (t % WARP) // lanes)
        low = min(0, int(chunks.min()) // ncls * ncls)
        shift = max(int(chunks.max()) - low, 1).bit_length()
        keys = _sorted_unique((g << shift | (chunks - low)).ravel())
        gg = keys >> shift
        per_cls = np.bincount(gg * ncls + (keys & (ncls - 1)), minlength=ngroups * ncls)
        per_cls = per_cls.reshape(ngroups, ncls)
        per_group = per_cls.max(axis=1)                        # a class's wv banks share its count
        used[gg] = True
    else:
        counts = np.zeros(ngroups * NUM_BANKS, dtype=np.int64)
    if chunks is None and off.size:
        # (group, word) packed in bits, words moved by a multiple of 32 to start at >= 0 (banks unchanged); a key
        # that fits 31 bits (any real buffer) is int32: half the bytes to move and to sort
        low = min(0, ((int(off.min()) * eb + base_bytes) >> _WORD_SHIFT) // NUM_BANKS * NUM_BANKS)
        shift = (((int(off.max()) * eb + base_bytes) >> _WORD_SHIFT) + wpe - 1 - low).bit_length()
        dt = np.int32 if (ngroups << max(shift, 5)) < (1 << 31) else np.int64
        step = max(1, CHUNK // max(1, V * wpe * WARP)) * WARP
        for r0 in range(0, T, step):
            r1 = min(T, r0 + step)
            g, words, _ = _group_words(off, r0, r1, eb, n, wpe, K, P, lanes, base_bytes, phase, dt)
            key = g << shift                                   # a fresh array: the key is built in place
            np.bitwise_or(key, words - low if low else words, out=key, casting="unsafe")
            if eb < BANK_BYTES and n > 1:  # a thread's neighbouring elements of one vector share words: drop repeats
                rep = np.zeros(key.shape, dtype=bool)
                np.equal(key[:, 1:], key[:, :-1], out=rep[:, 1:])   # equal keys: the same group and word
                key = key[~rep]
            keys = _sorted_unique(key.ravel())
            gg = keys >> shift
            bank = keys & (((1 << shift) - 1) & (NUM_BANKS - 1))   # the word's low bits: its bank
            g_lo, g_hi = (r0 // WARP) * K * P, -(-r1 // WARP) * K * P   # the chunk's warps own these phases
            counts[g_lo * NUM_BANKS:g_hi * NUM_BANKS] = np.bincount(
                (gg - g_lo) * NUM_BANKS + bank, minlength=(g_hi - g_lo) * NUM_BANKS)
            used[gg] = True
    if per_group is None:
        per_group = counts.reshape(ngroups, NUM_BANKS).max(axis=1)
    degree = int(per_group.max()) if per_group.size else 0
    wavefronts = int(per_group[used].sum())
    ideal = int(used.sum())
    wit = None
    if degree > 1:
        if counts is None:  # the first (group, class) at the degree, and that class's first bank
            g0, c = divmod(int(np.argmax(per_cls)), ncls)
            bank = c * wv
        else:
            g0, bank = divmod(int(np.argmax(counts)), NUM_BANKS)
        warp, rest = divmod(g0, K * P)
        r0 = warp * WARP                                       # the phase's threads are the warp's
        g, words, addr = _group_words(off, r0, min(T, r0 + WARP), eb, n, wpe, K, P, lanes, base_bytes, phase,
                                      np.int64)
        sel = (g == g0) & (words % NUM_BANKS == bank)
        ts, cols = np.nonzero(sel)
        w_sel = words[ts, cols]
        first = int(w_sel[0])
        other = int(np.nonzero(w_sel != first)[0][0])
        picks = [(int(ts[0]), int(cols[0]) // wpe), (int(ts[other]), int(cols[other]) // wpe)]
        k, ph = divmod(rest, P)
        wit = dict(threads=tuple(r0 + p[0] for p in picks), elements=tuple(int(idx[r0 + p[0], p[1]]) for p in picks),
                   addresses=tuple(int(addr[p]) for p in picks), bank=bank, warp=warp, iteration=k, phase=ph,
                   degree=degree)
    return degree, wavefronts, ideal, wit


def _whole_chunks(off, eb, vector_bytes, base_bytes, n, K):
    """``(T, K)`` chunk numbers ``address // vector_bytes`` of every vector when each vector is whole words
    (``vector_bytes`` a multiple of 4) and occupies exactly one aligned chunk (its values contiguous, the first
    at a multiple of ``vector_bytes`` from a ``vector_bytes``-aligned base: what :func:`vector_problem`
    checks), else None (the word-by-word path decides)."""
    T, V = off.shape
    if vector_bytes % BANK_BYTES or vector_bytes != n * eb or base_bytes % vector_bytes or V != K * n \
            or not off.size:
        return None
    first = off[:, ::n]
    if max(-int(first.min()), int(first.max())) >= 1 << 56 or ((first * eb) % vector_bytes).any():
        return None
    if n > 1 and not (np.diff(off.reshape(T, K, n), axis=2) == 1).all():
        return None
    return (first * eb + base_bytes) // vector_bytes


_WORD_SHIFT = BANK_BYTES.bit_length() - 1                     # addr >> it == addr // BANK_BYTES, floored


def _group_words(off, r0, r1, eb, n, wpe, K, P, lanes, base_bytes, phase, dt):
    """``(g, words, addr)`` of threads ``r0 .. r1 - 1``: the phase id ``((warp * K) + k) * P + phase`` (type
    ``dt``) and the 4-byte word of every (thread, column of words), and the byte address of every value."""
    rows = off[r0:r1]
    T, V = rows.shape
    addr = rows * eb + base_bytes
    words = addr >> _WORD_SHIFT
    if wpe > 1:
        words = (words[:, :, None] + np.arange(wpe, dtype=np.int64)).reshape(T, V * wpe)
    t = np.arange(r0, r1, dtype=dt)
    k_of = np.repeat(np.arange(V, dtype=dt) // n, wpe)        # per column of `words`
    # built from (T, K) or (T,) and (C,) parts: a gather over every column would cost as much as the rest
    if phase is not None:
        ph = phase[r0:r1].astype(dt)
        if V == K * n:
            gk = ((t // WARP)[:, None] * K + np.arange(K, dtype=dt)[None, :]) * P + ph
            g = np.repeat(gk, n * wpe, axis=1)
        else:
            g = ((t // WARP)[:, None] * K + k_of[None, :]) * P + ph[:, k_of]
    else:
        g = ((t // WARP) * (K * P) + (t % WARP) // lanes)[:, None] + (k_of * P)[None, :]
    return g, words, addr


def _sorted_unique(keys):
    """``np.unique(keys)`` for a 1-D int64 array, by a sort (numpy's hashing ``unique`` is 30x slower)."""
    if keys.base is not None or not keys.flags.owndata:  # a view: sort a copy; a fresh array sorts in place
        keys = keys.copy()
    keys.sort()
    if keys.size < 2:
        return keys
    keep = np.empty(keys.size, dtype=bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


def _merged_phases(vaddr, vector_bytes):
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
    for d in (1, 2, 3):  # a later (larger) d overwrites: the earliest lane wins
        same = (vaddr[d:] == vaddr[:-d]) & (quad[d:] == quad[:-d])[:, None]
        np.copyto(src[d:], (rows[d:] - d)[:, None], where=same)
    first = src == rows[:, None]
    seg = 16 if vector_bytes == 16 else WARP                 # lanes whose requests fill one run of phases
    s0 = rows - rows % seg                                   # the first lane of each lane's run
    c = np.cumsum(first, axis=0)
    before = np.zeros((T, K), dtype=c.dtype)                 # requests of the earlier runs
    before[s0 > 0] = c[s0[s0 > 0] - 1]
    rank = c - before - 1                                    # request number within the run, right for first lanes
    phase = rank // cap
    if vector_bytes == 16:
        phase += (2 * ((s0 % WARP) // 16))[:, None]
    return np.take_along_axis(phase, src, axis=0)            # a repeated lane rides on its first lane's request
