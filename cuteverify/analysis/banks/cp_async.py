"""Passes of a ``cp.async`` copy: the shared-memory bank model plus the global side (issue 25).

A ``cp.async`` (SASS ``LDGSTS``) writes shared memory from global memory; the shared-memory bank model alone
(``analysis.banks``) proves conflict-free copies that the H200 serves in up to 8 passes per phase. Model, fitted
to every configuration of ``specs/evidence/sm90/cp_async_rows.jsonl`` (``probes/cp_async_rows``: ncu's hardware
counter ``l1tex__data_pipe_lsu_wavefronts_mem_shared`` for ``.ca``, clock64 for ``.cg``; checked by
``tests/analysis/test_cp_async_rows.py``):

* a warp's ``size``-byte copies (``size`` = 4, 8, 16) are served in fixed phases of ``128 / size`` lanes
  (32, 16, 8), the 128 bytes one pass writes; a phase of lanes ``a`` reads global byte ``g(a)`` and writes
  shared byte ``s(a)``; a *row* is a 128-byte line of global memory (``g // 128``); the buffer's address modulo
  128 is ``gmem_base`` (the tile is assumed 128-byte aligned unless told otherwise);
* two lanes can share a pass only if they write no two different words of one shared-memory bank (the bank
  rule) and, for ``.ca``, read no two words on one bank of the L1 data array (``(g // 4) % 32``): lanes of
  two rows whose bytes sit at the same offsets conflict, and so do two lanes reading the same global bytes
  (``.ca`` has no read broadcast: 8 lanes reading one 16-byte chunk took 8 passes);
* ``.ca``: the rows of a phase arrive one per pass, in the order of their first lane (a row whose bytes lie on
  banks disjoint from the row before it arrives with it: 16-byte lanes reading 128 contiguous bytes that
  straddle two lines take 1 pass); each pass takes, in lane order, every arrived lane not yet written that
  conflicts with no lane already taken. 8 lanes reading 8 rows: 8 passes; one row: 1.
* ``.cg`` (L2 only): each row is served alone, lanes reading the same bytes broadcast; a phase takes, summed
  over its rows, the bank degree of that row's lanes (16 bytes straddling two lines: 2 passes).

The degree is the largest number of passes of one phase; 1 means each phase is served in one pass, which is
what "conflict-free" means for a copy. For ``.ca`` the order in which missed rows return can change the count
where several rows each hold lanes that also conflict in shared memory: the recorded ``ca16_inter4_d4`` took 7
passes per phase (ncu's own model says 6, this one 5); every other recorded configuration is reproduced
exactly, and the degree is 1 exactly when the hardware's is.

Symbols: finite assumption sets are enumerated (the worst assignment is reported); a symbolic global stride
with infinitely many values is decided when every symbolic stride is a multiple of 128 bytes for all
admissible values and the assumptions settle, for every pair of lanes of a phase, whether they read the same
row (``symbolic.decide``); otherwise the answer is unknown with the reason.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from math import gcd

import numpy as np

from ...core.layout import Layout, size
from ...core.tuples import flatten, is_tuple, product
from ...errors import NotAdmissibleError
from ...prover.verdict import Counterexample
from ...symbolic import decide, finite_assignments
from .model import vector_problem, access_offsets, elem_bytes_of
from .place import copy_tv_over
from .verdict import BankVerdict, VectorBreak, assignment_text
from .vector_sym import witness_values

__all__ = ["ROW_BYTES", "CpAsyncConflict", "CpAsyncVerdict", "copy_cp_async_banks", "cp_async_banks", "cp_async_params", "phase_passes"]

#: global memory row: the L1 line a ``.ca`` pass reads from, the unit a ``.cg`` pass serves
ROW_BYTES = 128
_WARP = 32
_MAX_INSTANCES = 4096
_MAX_ENTRIES = 1 << 22


# ------------------------------------------------------------------------------------------ one phase

def _words(a, size):
    return [(a >> 2) + i for i in range(max(1, size // 4))]


def _conflict(a, b, g, s, size, cache):
    """Why lanes ``a`` and ``b`` cannot share a pass (a short phrase), or None."""
    wa, wb = {w % 32: w for w in _words(s[a], size)}, {w % 32: w for w in _words(s[b], size)}
    if cache == "cg":
        if g[a] // ROW_BYTES != g[b] // ROW_BYTES:
            return "read different 128-byte global rows (.cg serves one row per pass)"
    else:
        ra, rb = {w % 32 for w in _words(g[a], size)}, {w % 32 for w in _words(g[b], size)}
        if ra & rb:
            if g[a] // ROW_BYTES != g[b] // ROW_BYTES:
                return "read different 128-byte global rows at the same offsets (the same L1 banks)"
            return "read the same global bytes (.ca does not broadcast a global read)"
    bank = next((k for k in wa.keys() & wb.keys() if wa[k] != wb[k]), None)
    if bank is not None:
        return f"write different words of shared-memory bank {bank}"
    return None


def _arrivals(g, size):
    """The pass at which each lane's row has arrived (``.ca``): rows in first-lane order, one per pass; a row
    whose banks are disjoint from the previous arrival's arrives with it."""
    unit, seen, banks, k = [], {}, None, -1
    for a in range(len(g)):
        row = g[a] // ROW_BYTES
        if row not in seen:
            rb = set()
            for b in range(len(g)):
                if g[b] // ROW_BYTES == row:
                    rb |= {w % 32 for w in _words(g[b], size)}
            if banks is None or banks & rb:
                k, banks = k + 1, set(rb)
            else:
                banks |= rb
            seen[row] = k
        unit.append(seen[row])
    return unit


def _greedy(lanes, g, s, size, cache, arrival=None):
    """Passes for ``lanes`` (indices, in lane order) under the conflict rule; ``arrival[l]`` the first pass
    lane ``l`` may take."""
    pending, n = list(lanes), 0
    while pending:
        taken = []
        for a in pending:
            if arrival is not None and arrival[a] > n:
                continue
            if all(_conflict(a, b, g, s, size, cache) is None for b in taken):
                taken.append(a)
        pending = [a for a in pending if a not in taken]
        n += 1
    return n


def phase_passes(g, s, size, cache="ca"):
    """Passes the H200 takes for one phase (module docstring): ``g`` / ``s`` the global / shared byte address
    of each lane of the phase, in lane order; ``size`` 4, 8 or 16; ``cache`` ``"ca"`` or ``"cg"``.
    Returns ``(passes, witness)``: ``witness`` is ``(lane_a, lane_b, why)`` for two lanes that cannot share a
    pass (None when one pass serves the phase)."""
    g, s = [int(x) for x in g], [int(x) for x in s]
    n = len(g)
    if cache == "cg":
        rows = {}
        for a in range(n):
            rows.setdefault(g[a] // ROW_BYTES, []).append(a)
        passes = sum(_greedy(ls, g, s, size, "cg") for ls in rows.values())
    else:
        passes = _greedy(range(n), g, s, size, "ca", _arrivals(g, size))
    wit = None
    if passes > 1:
        wit = next(((a, b, why) for b in range(n) for a in range(b)
                    if (why := _conflict(a, b, g, s, size, cache)) is not None), None)
    return passes, wit


def _smem_degree(s, size):
    """The bank degree of the shared-memory side of one phase: most distinct words on one bank."""
    per = {}
    for a in s:
        for w in _words(int(a), size):
            per.setdefault(w % 32, set()).add(w)
    return max((len(v) for v in per.values()), default=0)


# ------------------------------------------------------------------------------------------ verdicts

@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class CpAsyncConflict(Counterexample):
    """Two lanes of one phase of a ``cp.async`` that one pass cannot serve (kind ``cp-async-pass``):
    ``threads``, ``gmem_bytes`` (global byte offsets read), ``smem_bytes`` (shared byte addresses written),
    ``rows`` (their 128-byte global rows), ``why``, ``warp``, ``iteration``, ``phase``, ``passes`` (of that
    phase)."""

    kind = "cp-async-pass"
    threads: tuple
    gmem_bytes: tuple
    smem_bytes: tuple
    why: str
    warp: int
    iteration: int
    phase: int
    passes: int

    def __post_init__(self):
        for name in ("threads", "gmem_bytes", "smem_bytes"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "coords", self.threads)
        object.__setattr__(self, "values", self.smem_bytes)
        super().__post_init__()

    @property
    def rows(self):
        return tuple(x // ROW_BYTES for x in self.gmem_bytes)

    def to_json(self):
        d = super().to_json()
        d.update({"threads": list(self.threads), "gmem_bytes": list(self.gmem_bytes),
                  "smem_bytes": list(self.smem_bytes), "rows": list(self.rows), "why": self.why,
                  "warp": self.warp, "iteration": self.iteration, "phase": self.phase, "passes": self.passes})
        return d

    def __str__(self):
        (t0, t1), (g0, g1), (s0, s1) = self.threads, self.gmem_bytes, self.smem_bytes
        asg = assignment_text(self.assignment)
        return (f"threads {t0} and {t1} (warp {self.warp}, iteration {self.iteration}, phase {self.phase}) "
                f"{self.why}: global bytes {g0} and {g1} (rows {g0 // ROW_BYTES} and {g1 // ROW_BYTES}), shared "
                f"bytes {s0} and {s1}; that phase takes {self.passes} passes{asg}")

    __repr__ = __str__


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class CpAsyncVerdict(BankVerdict):
    """A ``BankVerdict`` on "each phase of the copy is served in one pass": ``degree`` the most passes of one
    phase, ``wavefronts`` / ``ideal_wavefronts`` the passes / phases in total, plus ``cache``,
    ``smem_degree`` (the shared-memory side alone, as ``bank_conflicts`` with fixed phases counts it) and
    ``rows_per_phase`` (the most 128-byte global rows one phase reads)."""

    cache: str | None = None
    smem_degree: int | None = None
    rows_per_phase: int | None = None

    def to_json(self):
        d = super().to_json()
        d.update({"cache": self.cache, "smem_degree": self.smem_degree, "rows_per_phase": self.rows_per_phase})
        return d

    def __str__(self):
        s = super().__str__()
        if self.smem_degree is not None:
            s += (f"\n  shared-memory side alone: {self.smem_degree}-way; at most {self.rows_per_phase} global "
                  f"rows of 128 bytes per phase (cp.async.{self.cache})")
        return s


def cp_async_params(ptx):
    """``(cache, size)`` of a copy atom's PTX text (``"cp.async.cg.shared.global [dst], [src], 16"`` ->
    ``("cg", 16)``), or None when the instruction is not a ``cp.async``."""
    words = (ptx or "").strip().lower().replace(",", " ").split()
    if not words or not words[0].startswith("cp.async.") or not words[-1].isdigit():
        return None
    cache = words[0].split(".")[2]
    return (cache, int(words[-1])) if cache in ("ca", "cg") else None


# ------------------------------------------------------------------------------------------ the copy

def _check_args(dtype, size, cache, gmem_base, smem_base):
    try:
        eb = elem_bytes_of(dtype)
    except NotAdmissibleError as e:
        raise NotAdmissibleError("cp.async passes", e.condition) from None
    if type(size) is not int or size not in (4, 8, 16):
        raise NotAdmissibleError("cp.async passes", f"size {size!r}: a cp.async copies 4, 8 or 16 bytes")
    if size % eb:
        raise NotAdmissibleError("cp.async passes", f"{size} bytes is not a whole number of {eb}-byte elements")
    if cache not in ("ca", "cg"):
        raise NotAdmissibleError("cp.async passes", f"cache {cache!r}: ca or cg")
    if cache == "cg" and size != 16:
        raise NotAdmissibleError("cp.async passes", f"cp.async.cg copies 16 bytes, not {size}")
    for name, b in (("gmem_base", gmem_base), ("smem_base", smem_base)):
        if type(b) is not int or b < 0 or b % size:
            raise NotAdmissibleError("cp.async passes", f"{name} {b!r}: a byte address (an integer >= 0) "
                                                        f"aligned to the {size}-byte copy")
    return eb


def _tv_size(L, what):
    shape = L.shape
    if not (isinstance(shape, tuple) and len(shape) == 2):
        raise NotAdmissibleError("cp.async passes", f"the {what} must be a TV layout (thread, value), got {L}")
    T, V = product(shape[0]), product(shape[1])
    if type(T) is not int or type(V) is not int:
        raise NotAdmissibleError("cp.async passes", f"the {what} {L} has a symbolic thread or value count")
    return T, V


def _sizes(src, dst):
    """``(threads, values)`` of the copy; both sides must agree and stay within the enumeration limit."""
    T, V = _tv_size(src, "source (global) layout")
    Td, Vd = _tv_size(dst, "destination (shared) layout")
    if (T, V) != (Td, Vd):
        raise NotAdmissibleError("cp.async passes", f"the source {src} has {T} threads x {V} values, the "
                                                    f"destination {dst} {Td} x {Vd}: not one copy")
    if T * V > _MAX_ENTRIES:
        raise NotAdmissibleError("cp.async passes", f"{T * V} (thread, value) pairs, past the limit of "
                                                    f"{_MAX_ENTRIES}")
    return T, V


def _addresses(src, dst, dst_smem, eb, size, gmem_base, smem_base):
    """``(g, s, None)``: (threads, copies) global / shared byte addresses of each copy, or ``(None, None,
    (side, VectorBreak))`` when a side cannot be issued as ``size``-byte copies."""
    _sizes(src, dst)
    try:
        _, goff = access_offsets(None, src)
        _, soff = access_offsets(dst_smem, dst)
    except NotAdmissibleError as e:  # the shared side's enumeration names itself "banks": say which copy
        raise NotAdmissibleError("cp.async passes", e.condition, e.modes) from None
    for side, off in (("source (global)", goff), ("destination (shared)", soff)):
        p = vector_problem(off, eb, size, alignment=16)  # the bases are size-aligned (_check_args)
        if p is not None:
            return None, None, (side, VectorBreak.at(size, p))
    n = size // eb
    return goff[:, ::n] * eb + gmem_base, soff[:, ::n] * eb + smem_base, None


def _passes(g, s, size, cache):
    """(degree, wavefronts, phases, smem degree, rows per phase, witness) over every warp, copy and phase."""
    T, K = g.shape
    lanes = ROW_BYTES // size
    memo, worst = {}, (0, None)
    waves = phases = sdeg = rows = 0
    for w0 in range(0, T, _WARP):
        for k in range(K):
            for p0 in range(w0, min(w0 + _WARP, T), lanes):
                gs, ss = g[p0:min(p0 + lanes, w0 + _WARP, T), k], s[p0:min(p0 + lanes, w0 + _WARP, T), k]
                gb, sb = int(gs.min()) // ROW_BYTES * ROW_BYTES, int(ss.min()) // ROW_BYTES * ROW_BYTES
                key = (tuple((gs - gb).tolist()), tuple((ss - sb).tolist()))
                if key not in memo:  # the passes depend on the rows and offsets relative to the first row
                    memo[key] = phase_passes(gs, ss, size, cache)
                n, wit = memo[key]
                waves, phases = waves + n, phases + 1
                sdeg = max(sdeg, _smem_degree(ss, size))
                rows = max(rows, len(set((gs // ROW_BYTES).tolist())))
                if n > worst[0]:
                    loc = None
                    if wit is not None:
                        a, b, why = wit
                        loc = dict(threads=(p0 + a, p0 + b), gmem_bytes=(int(gs[a]), int(gs[b])),
                                   smem_bytes=(int(ss[a]), int(ss[b])), why=why, warp=w0 // _WARP, iteration=k,
                                   phase=(p0 - w0) // lanes, passes=n)
                    worst = (n, loc)
    return worst[0], waves, phases, sdeg, rows, worst[1]


def cp_async_banks(src, dst, dtype=None, size=16, *, dst_smem=None, cache="ca", gmem_base=0, smem_base=0):
    """Decide "every phase of this ``cp.async`` copy is served in one pass" and compute the passes (module
    docstring), for the global side and the shared side together.

    ``src``: TV layout (thread, value) -> global element offset (e.g. ``composition(gA,
    copy.layout_src_tv_tiled)``); ``dst``: TV layout (thread, value) -> element index of ``dst_smem`` (or an
    element offset when ``dst_smem`` is None); ``dtype`` the element type (default 16-bit); ``size`` the bytes
    of one ``cp.async`` (4, 8, 16: the atom's width); ``cache`` ``"ca"`` (``SM80_CP_ASYNC_CACHEALWAYS``) or
    ``"cg"`` (``SM80_CP_ASYNC_CACHEGLOBAL``); ``gmem_base`` / ``smem_base``: byte addresses of element offset 0
    (only the global one modulo 128 matters for rows). Each thread copies its values ``size`` bytes at a time,
    in value order; copy ``k`` of every thread of a warp is one instruction.

    Returns a :class:`CpAsyncVerdict`: proved when every phase takes one pass, refuted with a
    :class:`CpAsyncConflict` (two threads of the worst phase and why one pass cannot serve both) or with a
    ``VectorBreak`` when a side cannot be issued as ``size``-byte copies, unknown when symbols leave it open.
    ``degree`` is exact for the model (for every admissible assignment, the worst is reported).
    """
    t0 = time.perf_counter()
    eb = _check_args(dtype, size, cache, gmem_base, smem_base)
    claim = f"cp.async.{cache} ({size}-byte copies) from {src} to {dst}" + \
        (f" through {dst_smem}" if dst_smem is not None else "") + " is served in one pass per phase"
    _sizes(src, dst)
    kind, insts = _instances(src, dst, dst_smem)
    reason = None
    if kind == "infinite":
        kind, insts, reason = _decided_rows(src, dst, dst_smem, eb, size, gmem_base)
        if kind == "unknown" and _concrete(dst) and _concrete(dst_smem):
            # not decided for every assignment: an admissible one with more than one pass still refutes
            hit = _small_refutation(src, dst, dst_smem, eb, size, cache, gmem_base, smem_base)
            if hit is not None:
                kind, reason = "witness", f"refuted at a small assignment; in general: {insts}"
                insts = [hit]
    if kind == "unknown":
        return CpAsyncVerdict("unknown", claim=claim, method="enumeration", reason=insts, cache=cache,
                              elem_bytes=eb, elapsed=time.perf_counter() - t0)
    worst = None
    for a in insts:
        S, D, M = (_subs(x, a) for x in (src, dst, dst_smem))
        g, s, bad = _addresses(S, D, M, eb, size, gmem_base, smem_base)
        if bad is not None:
            side, vb = bad
            vb = replace(vb, assignment=dict(a))
            return CpAsyncVerdict("refuted", claim=claim, method="enumeration", counterexample=vb, cache=cache,
                                  reason=f"the {side} side cannot be issued as {size}-byte cp.async: {vb}",
                                  elem_bytes=eb, vector_bytes=size, elapsed=time.perf_counter() - t0)
        r = _passes(g, s, size, cache)
        if worst is None or r[0] > worst[1][0]:
            worst = (a, r)
    a, (degree, waves, phases, sdeg, rows, loc) = worst
    cex = CpAsyncConflict(assignment=a, **loc) if loc is not None else None
    if kind == "finite":
        extra = f"worst of {len(insts)} assignments" + (f" at {a}" if a else "")
        reason = f"{reason}; {extra}" if reason else extra
    method = "enumeration" if kind == "concrete" else f"enumeration over {len(insts)} symbol assignments"
    if kind == "witness":
        method = f"enumeration at the admissible assignment {a}"
    if kind == "decided":
        method = "enumeration at one assignment; the rows each lane reads decided for every assignment"
    return CpAsyncVerdict("refuted" if degree > 1 else "proved", claim=claim, method=method, counterexample=cex,
                          reason=reason, degree=degree, vector_bytes=size, lanes_per_phase=ROW_BYTES // size,
                          wavefronts=waves, ideal_wavefronts=phases, elem_bytes=eb, cache=cache,
                          smem_degree=sdeg, rows_per_phase=rows, elapsed=time.perf_counter() - t0)


# ------------------------------------------------------------------------------------------ symbols

def _concrete(x):
    return x is None or bool(getattr(x, "is_concrete", True))


def _subs(x, a):
    return x if (x is None or not a or _concrete(x)) else x.subs(a)


def _instances(*layouts):
    """``("concrete", [{}])``, ``("finite", assignments)``, ``("infinite", None)`` (a symbol of the global
    layout alone has no finite set) or ``("unknown", reason)``."""
    free, asm = set(), None
    for L in layouts:
        if _concrete(L):
            continue
        free |= {s.name for s in L.free_symbols()}
        la = getattr(L, "assumptions", None)
        if la is not None:
            asm = la if asm is None else asm.merged(la)
    if not free:
        return "concrete", [{}]
    missing = sorted(n for n in free if asm is None or n not in asm.finite)
    if missing:
        src_only = not any(set(missing) & {s.name for s in L.free_symbols()} for L in layouts[1:]
                           if not _concrete(L))
        if src_only:
            return "infinite", None
        return "unknown", (f"symbol(s) {', '.join(missing)} of the shared-memory side range over infinitely many "
                           f"values; add a finite assumption such as '{missing[0]} in {{64,128}}'")
    out = finite_assignments(sorted(free), asm, _MAX_INSTANCES)
    if out is None:
        return "unknown", f"the symbol assignments exceed the enumeration limit of {_MAX_INSTANCES}"
    if not out:
        return "unknown", "no assignment of the symbols satisfies the assumptions"
    return "finite", out


def _decided_rows(src, dst, dst_smem, eb, size, gmem_base):
    """``("decided", [a0], reason)`` when the global side's symbols (infinitely many values) change no row
    relation: every symbolic stride is a multiple of 128 bytes (so each lane's offset within its row is fixed)
    and, for every pair of lanes of a phase, reading one row or two is decided for every admissible assignment;
    the passes at the admissible assignment ``a0`` are then the passes at every one. Else ``("unknown",
    reason, None)``."""
    def unknown(why):
        return "unknown", why + "; give the symbol a finite set ('K in {64,128}') or a value", None
    if not (_concrete(dst) and _concrete(dst_smem)):
        return unknown("the shared-memory side has symbols")
    shapes, strides = list(flatten(src.shape)), list(flatten(src.stride))
    if any(type(x) is not int for x in shapes):
        return unknown(f"the source {src} has a symbolic shape")
    T, V = _tv_size(src, "source (global) layout")
    step = ROW_BYTES // gcd(ROW_BYTES, eb)
    sym = [i for i, d in enumerate(strides) if type(d) is not int]
    with decide.context(src.assumptions):
        for i in sym:
            if decide.divides(step, strides[i]) is not True:
                return unknown(f"the global stride {strides[i]} is not proved a multiple of {ROW_BYTES} bytes "
                               f"({step} elements), so the offset of a lane within its row is not fixed")
        idx = np.arange(T * V, dtype=np.int64)
        digits, w = [], 1
        for sh in shapes:
            digits.append((idx // w) % sh)
            w *= sh
        conc = sum((digits[i] * strides[i] for i in range(len(shapes)) if i not in sym),
                   np.zeros(T * V, dtype=np.int64)) * eb + gmem_base
        rows = (conc // ROW_BYTES).reshape(V, T).T
        key = np.stack([digits[i] for i in sym], axis=1).reshape(V, T, len(sym)).transpose(1, 0, 2)
        memo = {}
        lanes = ROW_BYTES // size
        for v in range(0, V, size // eb):  # a copy's bytes lie in the row of its first element (size-aligned)
            for p0 in range(0, T, lanes):
                ks, rs = key[p0:p0 + lanes, v], rows[p0:p0 + lanes, v]
                for a in range(len(ks)):
                    for b in range(a + 1, len(ks)):
                        d = tuple((ks[b] - ks[a]).tolist())
                        if not any(d):
                            continue
                        q = (d, int(rs[a] - rs[b]))
                        if q not in memo:
                            expr = sum(c * strides[i] for c, i in zip(d, sym)) * eb - ROW_BYTES * q[1]
                            memo[q] = decide.eq(expr, 0)
                        if memo[q] is None:
                            return unknown(f"whether threads {p0 + a} and {p0 + b} read one 128-byte row depends "
                                           f"on the symbols")
    a0 = next(iter(witness_values(src)), None)
    if a0 is None:
        return unknown("no small admissible assignment of the symbols was found")
    return "decided", [a0], (f"the row each lane reads is decided for every assignment (evaluated at "
                             f"{', '.join(f'{k}={v}' for k, v in sorted(a0.items()))})")


def _small_refutation(src, dst, dst_smem, eb, size, cache, gmem_base, smem_base, limit=64):
    """A small admissible assignment of the global side's symbols at which some phase takes more than one
    pass, or None."""
    for k, a in enumerate(witness_values(src)):
        if k >= limit:
            return None
        try:
            g, s, bad = _addresses(src.subs(a), dst, dst_smem, eb, size, gmem_base, smem_base)
        except NotAdmissibleError:  # an assignment where the layout does not exist: skipped
            continue
        if bad is None and _passes(g, s, size, cache)[0] > 1:
            return a
    return None


def copy_cp_async_banks(tc, gmem, smem, dtype=None, *, gmem_base=0, smem_base=0):
    """:func:`cp_async_banks` of a tiled ``cp.async`` copy as a kernel issues it: ``copy(tc, partition_S(gmem),
    partition_D(smem))`` over every tile of the copy's tiler. ``gmem``: the global tensor's layout over the same
    coordinates as ``smem`` (the CTA tile, e.g. ``(128,64):(K,1)``); ``smem``: its shared-memory layout (plain or
    swizzled). The cache mode and width come from the copy's atom (``SM80_CP_ASYNC_CACHEALWAYS/GLOBAL<T>``).
    Admissibility: a ``cp.async`` atom; ``gmem`` and ``smem`` of the same shape (mode by mode sizes), each
    divisible by the copy's tiler; else an input error naming both. Post-condition: as :func:`cp_async_banks`
    for the TV layouts ``banks_place.copy_tv_over(tc, "src", gmem)`` and the destination placed over ``smem``."""
    cp = cp_async_params(tc.spec.ptx if tc.spec is not None else "")
    if cp is None:
        raise NotAdmissibleError("cp.async passes", f"{tc.name} is not a cp.async copy: a gmem side is only "
                                 "modelled for cp.async")
    gshape, sshape = tuple(size(m) for m in _modes(gmem)), tuple(size(m) for m in _modes(smem))
    if gshape != sshape:
        raise NotAdmissibleError("cp.async passes", f"the gmem tile {_fmt(gshape)} and the smem tile {_fmt(sshape)} "
                                 "differ: the copy reads one and writes the other, tile by tile")
    src = copy_tv_over(tc, "src", gmem)
    dst = copy_tv_over(tc, "dst", Layout(smem.shape))
    return cp_async_banks(src, dst, dtype if dtype is not None else tc.value_type, cp[1], dst_smem=smem,
                          cache=cp[0], gmem_base=gmem_base, smem_base=smem_base)


def _modes(L):
    return L.shape if is_tuple(L.shape) else (L.shape,)


def _fmt(t):
    return "(" + ",".join(map(str, t)) + ")"
