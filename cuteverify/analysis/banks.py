"""Shared-memory bank conflicts and vector width (issue 10).

``bank_conflicts(smem, access, dtype="bf16")`` decides whether a warp-level access pattern is free of shared
memory bank conflicts and computes the exact conflict degree; ``max_vector_width(tv, dtype)`` finds the widest
vector access each thread's values allow.

Hardware model (NVIDIA, sm_50 and later):

* shared memory has 32 banks of 4 bytes; byte address ``a`` lies in word ``a // 4`` and bank ``(a // 4) % 32``;
* a warp's request is split into phases by access width: accesses of 4 bytes or fewer are served in one phase
  of 32 threads, 8-byte accesses in two phases of 16 threads (lanes 0-15, 16-31), 16-byte accesses in four
  phases of 8 threads; ``ldmatrix`` / ``stmatrix`` serve one 8x8 matrix (8 row addresses of 16 bytes, lanes
  8j .. 8j+7) per phase, which is the 16-byte rule;
* within one phase, two threads conflict when they touch *different* 4-byte words of the same bank; the same
  word is a broadcast. The phase takes as many wavefronts as the largest number of distinct words on one
  bank: that number is the conflict degree of the phase (1 = conflict-free).

Conventions: ``access`` is a TV layout ``(thread, value) -> element index`` of the tile (an integer index into
``smem``'s domain, colexicographic, or a coordinate via ``E<i>`` strides); ``smem`` maps the element index to an
element offset (a ``Layout`` or a swizzled ``ComposedLayout``). Byte address = ``base_bytes + offset *
elem_bytes``. Thread ``t`` is lane ``t % 32`` of warp ``t // 32``. With vectors of ``n = vector_bytes /
elem_bytes`` elements, value ``v`` of a thread belongs to vector ``v // n``; every vector index is one warp-wide
instruction (an iteration), so the degree reported is the maximum over warps, iterations and phases.

Silicon check (H200, ncu wavefront counts, ``examples/banks_silicon.md``): the model matches exactly on 4-, 2-,
1-, 16-byte and ldmatrix accesses tried, and on 8-byte accesses without duplicate addresses; with duplicate
8-byte addresses (broadcast lanes) the hardware merges them before forming 16-address phases, so this model
over-counts those (in the cases measured it reported more wavefronts than the hardware, never fewer).

Everything concrete is decided exactly by enumeration (numpy). Symbolic layouts are instantiated over their
finite assumption sets (``N in {...}``); without finite sets the answer is ``unknown`` with the reason.
"""
from __future__ import annotations

import itertools
import time

import numpy as np

from ..core.layout import Layout, idx2crd
from ..core.tuples import flatten, is_tuple, product, unflatten
from ..errors import NotAdmissibleError
from ..prover.verdict import Counterexample, Verdict

__all__ = ["bank_conflicts", "max_vector_width", "BankVerdict", "VectorVerdict", "BankConflict", "VectorBreak",
           "elem_bytes_of", "DTYPE_BYTES", "NUM_BANKS", "BANK_BYTES", "access_offsets"]

NUM_BANKS = 32
BANK_BYTES = 4
WARP = 32
MAX_INSTANCES = 4096

DTYPE_BYTES = {
    "f64": 8, "fp64": 8, "float64": 8, "double": 8, "s64": 8, "u64": 8, "int64": 8,
    "f32": 4, "fp32": 4, "float32": 4, "float": 4, "tf32": 4, "s32": 4, "u32": 4, "int32": 4, "b32": 4,
    "f16": 2, "fp16": 2, "float16": 2, "half": 2, "bf16": 2, "bfloat16": 2, "s16": 2, "u16": 2, "int16": 2,
    "b16": 2,
    "e4m3": 1, "e5m2": 1, "fp8": 1, "f8": 1, "s8": 1, "u8": 1, "int8": 1, "uint8": 1, "b8": 1,
}


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


# ------------------------------------------------------------------------------------------- results

class BankConflict(Counterexample):
    """Two threads of one phase touching different words of one bank."""

    __slots__ = ("threads", "elements", "addresses", "bank", "words", "warp", "iteration", "phase", "degree",
                 "crds")

    def __init__(self, threads, elements, addresses, bank, warp, iteration, phase, degree, crds=(),
                 assignment=None):
        super().__init__("bank-conflict", coords=threads, values=addresses, assignment=assignment)
        self.threads = tuple(threads)
        self.elements = tuple(elements)
        self.addresses = tuple(addresses)
        self.bank = bank
        self.words = tuple(a // BANK_BYTES for a in addresses)
        self.warp, self.iteration, self.phase, self.degree = warp, iteration, phase, degree
        self.crds = tuple(crds)

    def to_dict(self):
        d = super().to_dict()
        d.update({"threads": list(self.threads), "elements": list(self.elements),
                  "element_coords": [list(flatten(c)) if is_tuple(c) else c for c in self.crds],
                  "byte_addresses": list(self.addresses), "words": list(self.words), "bank": self.bank,
                  "warp": self.warp, "iteration": self.iteration, "phase": self.phase, "degree": self.degree})
        return d

    def __str__(self):
        (t0, t1), (e0, e1), (a0, a1) = self.threads, self.elements, self.addresses
        c = self.crds
        el0 = f"element {e0}" + (f" {_fmt(c[0])}" if c else "")
        el1 = f"element {e1}" + (f" {_fmt(c[1])}" if c else "")
        asg = ""
        if self.assignment:
            asg = " with " + ", ".join(f"{k}={v}" for k, v in sorted(self.assignment.items()))
        return (f"threads {t0} and {t1} (warp {self.warp}, iteration {self.iteration}, phase {self.phase}) touch "
                f"{el0} at byte {a0} (word {a0 // 4}) and {el1} at byte {a1} (word {a1 // 4}), both in bank "
                f"{self.bank}; {self.degree} distinct words on that bank{asg}")

    __repr__ = __str__


class BankVerdict(Verdict):
    """A ``Verdict`` on "conflict-free" with the exact numbers.

    ``degree``: the largest number of distinct words on one bank in one phase (1 = conflict-free, the
    "n-way" of an n-way conflict); ``vector_bytes``/``lanes_per_phase``: the access model used;
    ``wavefronts``: total wavefronts over all phases; ``ideal_wavefronts``: the number of phases (each would
    take one wavefront without conflicts); ``instances``: per symbol assignment, ``(assignment, degree)``.
    """

    __slots__ = ("degree", "vector_bytes", "lanes_per_phase", "wavefronts", "ideal_wavefronts", "elem_bytes",
                 "instances")

    def __init__(self, status, *, degree=None, vector_bytes=None, lanes_per_phase=None, wavefronts=None,
                 ideal_wavefronts=None, elem_bytes=None, instances=(), **kw):
        super().__init__(status, **kw)
        self.degree, self.vector_bytes, self.lanes_per_phase = degree, vector_bytes, lanes_per_phase
        self.wavefronts, self.ideal_wavefronts, self.elem_bytes = wavefronts, ideal_wavefronts, elem_bytes
        self.instances = tuple(instances)

    @property
    def conflict_free(self):
        return self.status == "proved"

    def to_dict(self):
        d = super().to_dict()
        d.update({"degree": self.degree, "vector_bytes": self.vector_bytes, "lanes_per_phase": self.lanes_per_phase,
                  "wavefronts": self.wavefronts, "ideal_wavefronts": self.ideal_wavefronts,
                  "elem_bytes": self.elem_bytes})
        if self.instances:
            d["instances"] = [{"assignment": a, "degree": g} for a, g in self.instances]
        return d

    def __str__(self):
        s = super().__str__()
        if self.degree is not None:
            s += (f"\n  degree: {self.degree}-way ({self.vector_bytes}-byte accesses, {self.lanes_per_phase} "
                  f"threads per phase; {self.wavefronts} wavefronts for {self.ideal_wavefronts} phases)")
        return s


class VectorBreak(Counterexample):
    """Why a thread's values cannot be read as one ``width``-byte vector."""

    __slots__ = ("thread", "width", "why", "value_indices", "offsets")

    def __init__(self, thread, width, why, value_indices=(), offsets=(), assignment=None):
        super().__init__("not-vectorizable", coords=(thread,), values=offsets, assignment=assignment)
        self.thread, self.width, self.why = thread, width, why
        self.value_indices, self.offsets = tuple(value_indices), tuple(offsets)

    def to_dict(self):
        d = super().to_dict()
        d.update({"thread": self.thread, "width": self.width, "why": self.why,
                  "value_indices": list(self.value_indices), "offsets": list(self.offsets)})
        return d

    def __str__(self):
        return f"{self.width}-byte vectors: thread {self.thread}: {self.why}"

    __repr__ = __str__


class VectorVerdict(Verdict):
    """``width``: the widest access in bytes; ``blocker``: why the next width up fails (a ``VectorBreak``)."""

    __slots__ = ("width", "elems", "blocker", "elem_bytes")

    def __init__(self, status, *, width=None, elems=None, blocker=None, elem_bytes=None, **kw):
        super().__init__(status, **kw)
        self.width, self.elems, self.blocker, self.elem_bytes = width, elems, blocker, elem_bytes

    def to_dict(self):
        d = super().to_dict()
        d.update({"width": self.width, "elems": self.elems, "elem_bytes": self.elem_bytes,
                  "blocker": self.blocker.to_dict() if self.blocker is not None else None})
        return d

    def __str__(self):
        s = super().__str__()
        if self.width is not None:
            s += f"\n  width: {self.width} bytes ({self.elems} elements per vector)"
        return s


def _fmt(x):
    if type(x) is tuple:
        return "(" + ",".join(_fmt(v) for v in x) + ")"
    return str(x)


# ------------------------------------------------------------------------------------ enumeration

def _is_composed(x):
    return hasattr(x, "outer") and hasattr(x, "inner")


def _is_concrete(x):
    return bool(getattr(x, "is_concrete", True))


def _np_values(layout) -> np.ndarray:
    """``[L(0), ..., L(size-1)]`` as int64 for a concrete Layout or ComposedLayout with int strides."""
    if _is_composed(layout):
        outer = _np_values(layout.outer) + int(layout.offset)
        inner = layout.inner
        if isinstance(inner, Layout):
            return np.array([inner(int(x)) for x in outer], dtype=np.int64)
        return _np_swizzle(inner, outer)
    vals = np.zeros(1, dtype=np.int64)
    for s, d in zip(flatten(layout.shape), flatten(layout.stride)):
        if type(s) is not int or type(d) is not int:
            raise NotAdmissibleError("banks", f"layout {layout} has a non-integer shape or stride ({s}:{d})")
        if s == 1:
            continue
        vals = (np.arange(s, dtype=np.int64)[:, None] * d + vals[None, :]).ravel()
    return vals


def _np_swizzle(sw, x):
    yyy = sw.yyy_mask
    if sw.shift >= 0:
        return x ^ ((x & yyy) >> sw.shift)
    return x ^ ((x & yyy) << -sw.shift)


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


def _tv_shape(access):
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
    T, V = _tv_shape(access)
    if smem is None:
        off = _np_values(access).reshape(V, T).T
        return off, off
    shape = smem.shape
    idx = _np_values(_index_layout(access, shape)).reshape(V, T).T
    sv = _np_values(smem)
    n = sv.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = np.argwhere((idx < 0) | (idx >= n))[0]
        raise NotAdmissibleError("banks", f"thread {bad[0]} value {bad[1]} reaches element {idx[bad[0], bad[1]]}, "
                                          f"outside the smem layout's {n} elements")
    return idx, sv[idx]


def _vector_problem(off, eb, width, alignment=16):
    """``None`` if every thread's values group into aligned contiguous ``width``-byte vectors, else a
    ``(thread, why, value_indices, offsets)`` witness."""
    T, V = off.shape
    n = width // eb
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


def _widest(off, eb, alignment=16):
    w, blocker = eb, None
    cand = eb * 2
    while cand <= min(16, alignment) and cand <= 16:
        p = _vector_problem(off, eb, cand, alignment)
        if p is not None:
            blocker = (cand, p)
            break
        w = cand
        cand *= 2
    if blocker is None and w * 2 <= 16 and eb <= 16:
        blocker = (w * 2, _vector_problem(off, eb, w * 2, alignment))
    return w, blocker


def _lanes_per_phase(vector_bytes, phases):
    if phases is None:
        return WARP if vector_bytes <= 4 else (16 if vector_bytes == 8 else 8)
    if isinstance(phases, str):
        if phases.lower() in ("ldmatrix", "stmatrix", "ldsm", "stsm"):
            return 8
        phases = int(phases)
    if type(phases) is not int or phases <= 0 or WARP % phases:
        raise NotAdmissibleError("banks", f"phases must divide 32 (phases per warp request), got {phases!r}")
    return WARP // phases


def _degree(idx, off, eb, vector_bytes, lanes, base_bytes=0):
    """Exact degrees; returns (degree, wavefronts, ideal, witness-or-None)."""
    T, V = off.shape
    n = max(1, vector_bytes // eb)
    K = V // n
    addr = off * eb + base_bytes                               # (T, V)
    wpe = max(1, eb // BANK_BYTES)
    words = addr // BANK_BYTES
    if wpe > 1:
        words = (words[:, :, None] + np.arange(wpe, dtype=np.int64)).reshape(T, V * wpe)
    t = np.arange(T, dtype=np.int64)
    P = WARP // lanes
    W = -(-T // WARP)
    # group id of (thread, iteration): ((warp * K) + k) * P + phase
    k_of = np.repeat(np.arange(V, dtype=np.int64) // n, wpe)  # per column of `words`
    g = ((t // WARP)[:, None] * K + k_of[None, :]) * P + ((t % WARP) // lanes)[:, None]
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


# --------------------------------------------------------------------------------------- symbolic

def _instances(*layouts):
    """``(status, list of assignments or reason)`` for the symbols of ``layouts``."""
    free, asm = set(), None
    for L in layouts:
        if L is None or _is_concrete(L):
            continue
        free |= set(L.free_symbols())
        a = getattr(L, "assumptions", None)
        if a is not None:
            asm = a if asm is None else asm.merged(a)
    names = sorted(s.name for s in free)
    if not names:
        return "concrete", [{}]
    missing = [n for n in names if asm is None or n not in asm.finite]
    if missing:
        return "unknown", (f"symbol(s) {', '.join(missing)} range over infinitely many values; add a finite "
                           f"assumption such as '{missing[0]} in {{64,128,256}}' or instantiate with .subs()")
    pools = [asm.finite[n] for n in names]
    total = 1
    for p in pools:
        total *= len(p)
    if total > MAX_INSTANCES:
        return "unknown", f"{total} symbol assignments exceed the enumeration limit of {MAX_INSTANCES}"
    out = [dict(zip(names, c)) for c in itertools.product(*pools)]
    out = [a for a in out if asm.holds(a)]
    if not out:
        return "unknown", "no assignment of the symbols satisfies the assumptions"
    return "finite", out


def _subs(L, a):
    return L if (L is None or not a or _is_concrete(L)) else L.subs(a)


# ---------------------------------------------------------------------------------------- the API

def bank_conflicts(smem_layout, access, dtype=None, elem_bytes=None, vector_bytes=None, phases=None,
                   base_bytes=0) -> BankVerdict:
    """Decide "``access`` through ``smem_layout`` is free of bank conflicts" and compute the exact degree.

    ``smem_layout``: element index (or coordinate) -> element offset, e.g. ``S<3,3,3> o 0 o (64,64):(64,1)``;
    ``None`` when ``access`` already yields offsets. ``access``: TV layout (thread, value) -> element index.
    ``vector_bytes``: bytes per thread per instruction (1..16, a power of two, a multiple of the element
    size); ``None`` infers the widest width every thread's values allow (as an auto-vectorising copy would).
    ``phases``: ``None`` (from the width: 32/16/8 threads per phase for <=4/8/16 bytes), the number of phases
    per warp request (1, 2, 4, 8), or ``"ldmatrix"`` (8-thread phases). ``base_bytes``: the buffer's byte
    address (a multiple of 128 is the usual assumption; swizzles are on offsets relative to it).

    ``dtype`` (``"bf16"``, ``"f32"``, ``"e4m3"``, ...; default bf16) or ``elem_bytes`` give the element width.

    Returns a :class:`BankVerdict`: proved = conflict-free, refuted with a :class:`BankConflict`
    (two threads, their elements, byte addresses and bank), unknown for symbolic layouts without finite
    assumption sets; ``.degree`` is the exact worst number of distinct words on one bank in one phase.
    """
    t0 = time.perf_counter()
    eb = elem_bytes_of(dtype, elem_bytes)
    kind, insts = _instances(smem_layout, access)
    claim = f"conflict-free: {access} through {smem_layout}"
    if kind == "unknown":
        return BankVerdict("unknown", claim=claim, method="enumeration", reason=insts, elem_bytes=eb,
                           elapsed=time.perf_counter() - t0)
    worst, results = None, []
    for a in insts:
        r = _bank_concrete(_subs(smem_layout, a), _subs(access, a), eb, vector_bytes, phases, base_bytes, a)
        results.append((a, r))
        if worst is None or r[0] > worst[1][0]:
            worst = (a, r)
    a, (degree, wavefronts, ideal, wit, vb, lanes) = worst
    name = _dtype_name(dtype, eb)
    claim = f"conflict-free ({name}, {vb}-byte accesses, {lanes} threads per phase): {access} through {smem_layout}"
    method = "enumeration" if kind == "concrete" else f"enumeration over {len(insts)} symbol assignments"
    cex = None
    if degree > 1:
        crds = ()
        try:
            lay = _subs(smem_layout, a)
            if lay is not None and is_tuple(lay.shape):
                crds = tuple(idx2crd(e, lay.shape) for e in wit["elements"])
        except Exception:  # pragma: no cover - coordinates are a courtesy
            crds = ()
        cex = BankConflict(crds=crds, assignment=a, **wit)
        cex.natural = crds
    status = "refuted" if degree > 1 else "proved"
    reason = None
    if kind == "finite":
        reason = f"worst of {len(insts)} assignments" + (f" at {a}" if a else "")
    return BankVerdict(status, claim=claim, method=method, counterexample=cex, reason=reason, degree=degree,
                       vector_bytes=vb, lanes_per_phase=lanes, wavefronts=wavefronts, ideal_wavefronts=ideal,
                       elem_bytes=eb, instances=[(x, r[0]) for x, r in results] if kind == "finite" else (),
                       elapsed=time.perf_counter() - t0)


def _dtype_name(dtype, eb):
    if isinstance(dtype, str):
        return dtype
    return {1: "8-bit", 2: "16-bit", 4: "32-bit", 8: "64-bit", 16: "128-bit"}[eb] + " elements"


def _bank_concrete(smem, access, eb, vector_bytes, phases, base_bytes, assignment):
    idx, off = access_offsets(smem, access)
    if vector_bytes is None:
        if isinstance(phases, str) and phases.lower() in ("ldmatrix", "stmatrix", "ldsm", "stsm"):
            vb = 16
        else:
            vb, _ = _widest(off, eb)
    else:
        vb = vector_bytes
    if type(vb) is not int or vb <= 0 or vb & (vb - 1) or vb > 16:
        raise NotAdmissibleError("banks", f"vector_bytes must be a power of two up to 16, got {vb!r}")
    if vb < eb:
        raise NotAdmissibleError("banks", f"vector_bytes={vb} is narrower than the {eb}-byte element")
    p = _vector_problem(off, eb, vb, alignment=16)
    if p is not None:
        raise NotAdmissibleError("banks", f"the access cannot be issued as {vb}-byte vectors: thread {p[0]}: {p[1]}"
                                 + (f" (with {assignment})" if assignment else ""))
    lanes = _lanes_per_phase(vb, phases)
    degree, wavefronts, ideal, wit = _degree(idx, off, eb, vb, lanes, base_bytes)
    return degree, wavefronts, ideal, wit, vb, lanes


def max_vector_width(layout_or_tv, dtype=None, elem_bytes=None, alignment=16, smem=None, require=None,
                     tv=None) -> VectorVerdict:
    """The widest access (bytes, a power of two, at most 16 and at most ``alignment``) such that each thread's
    consecutive values are contiguous in memory and the vector's first byte is aligned to its width.

    ``layout_or_tv``: a TV layout (thread, value) -> element offset, or, with ``smem``, (thread, value) ->
    element index composed with ``smem`` (the composed offsets are used). A layout that is not rank 2 (or
    ``tv=False``) is one thread's values in order. ``alignment``: the byte alignment assumed for the buffer.
    ``require``: a width in bytes to check; the verdict is refuted (with the thread that breaks it) when the
    widest width is smaller.

    Returns a :class:`VectorVerdict`: ``.width`` (bytes), ``.elems``, ``.blocker`` (why twice the width fails).
    """
    t0 = time.perf_counter()
    eb = elem_bytes_of(dtype, elem_bytes)
    L = layout_or_tv
    if tv is False or (tv is None and smem is None and not (is_tuple(L.shape) and len(L.shape) == 2)):
        L = _as_one_thread(L)
    kind, insts = _instances(L, smem)
    claim = f"widest vector access of {layout_or_tv}" + (f" through {smem}" if smem is not None else "")
    if kind == "unknown":
        return VectorVerdict("unknown", claim=claim, method="enumeration", reason=insts, elem_bytes=eb,
                             elapsed=time.perf_counter() - t0)
    best = None
    for a in insts:
        _, off = access_offsets(_subs(smem, a), _subs(L, a))
        w, blk = _widest(off, eb, alignment)
        if best is None or w < best[1]:
            best = (a, w, blk, off)
    a, w, blk, off = best
    blocker = None
    if blk is not None and blk[1] is not None:
        blocker = VectorBreak(blk[1][0], blk[0], blk[1][1], blk[1][2], blk[1][3], assignment=a)
    name = _dtype_name(dtype, eb)
    reason = (f"{2 * w}-byte vectors fail: {blocker}" if blocker is not None else
              ("16 bytes is the widest shared-memory access" if w >= 16 else None))
    if kind == "finite":
        reason = (reason + "; " if reason else "") + f"minimum over {len(insts)} assignments"
    if require is not None:
        claim = f"{require}-byte vector access ({name}) of {layout_or_tv}" + (f" through {smem}" if smem is not None
                                                                           else "")
        if w >= require:
            return VectorVerdict("proved", claim=claim, method="enumeration", width=w, elems=w // eb,
                                 blocker=blocker, elem_bytes=eb, reason=reason, elapsed=time.perf_counter() - t0)
        p = _vector_problem(off, eb, require, alignment)
        cex = VectorBreak(p[0], require, p[1], p[2], p[3], assignment=a) if p else blocker
        return VectorVerdict("refuted", claim=claim, method="enumeration", counterexample=cex, width=w,
                             elems=w // eb, blocker=blocker, elem_bytes=eb, reason=f"widest is {w} bytes",
                             elapsed=time.perf_counter() - t0)
    claim = f"widest vector access is {w} bytes ({w // eb} x {name}): {claim[len('widest vector access of '):]}"
    return VectorVerdict("proved", claim=claim, method="enumeration", width=w, elems=w // eb, blocker=blocker,
                         elem_bytes=eb, reason=reason, elapsed=time.perf_counter() - t0)


def _as_one_thread(L):
    """A layout read as one thread holding all its values: ``(1, L)``."""
    if _is_composed(L):
        return L.with_outer(_as_one_thread(L.outer))
    return L.with_(shape=(1, L.shape), stride=(0, L.stride))
