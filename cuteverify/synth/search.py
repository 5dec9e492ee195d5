"""Scoring the searched space and finding its optimum (docs/model.md section 13.2).

Every candidate of ``space.enumerate_space`` is, exactly:

* bijective onto the tile's storage ``[0, MN*K)`` (padded: one-to-one into its cosize), from its offset table;
* legal for every access of fixed width (each thread's values form aligned contiguous vectors of that width,
  the vector model of ``analysis.banks``) and for every required consumer: ``tma`` (the swizzle is TMA's NONE /
  32B / 64B / 128B, the box ``hardware.tma_box`` derives has an inner extent of a multiple of 16 bytes within
  the swizzle span and dimensions <= 256, and each box lands where the layout puts its elements), ``gmma`` /
  ``umma`` (``hardware.smem_desc_rules.from_layout`` proves a wgmma / tcgen05 descriptor reads every
  256-bit K block of the tile, with the operand's major-ness when an access names it);
* scored on every thread access: the exact conflict degree and the vector width, by the model of
  ``analysis.banks`` (``banks_model._degree`` / ``widest_vector`` / ``vector_problem`` on the offset table, which
  is what ``bank_conflicts`` and ``max_vector_width`` compute; the winner's and runner-up's numbers are
  re-derived through those two functions and must agree).

Objective (lexicographic, smaller first): legal; the worst conflict degree over the accesses; their sum; the
narrowest vector width (wider first); the sum of the widths (wider first); then simplicity (padding, swizzle bits, a GMMA atom first, atom size,
column-major order, enumeration order). ``score_space(prune=True)`` skips work that cannot change the two best
legal candidates, recording for each skipped candidate the bound that excludes it: a partial score
(``(worst so far, sum so far + 1 per access left)``) already above the runner-up's, or a full score at or above
the runner-up's (legality then never matters); descriptor consumers are checked last, in objective order
(``score_space``). ``prune=False`` scores and checks the whole space.
"""
from __future__ import annotations

import heapq

import numpy as np

from ..analysis.banks.model import (conflict_degree, lanes_per_phase, vector_problem, widest_vector, access_offsets,
                                    layout_values)
from ..core.swizzle import ComposedLayout
from ..core.notation.tiles import read_extents
from ..errors import CuteVerifyError, SynthError
from ..hardware.library import swizzles
from ..hardware.library.dtypes import dtype_bits
from ..hardware.descriptors.smem_rules import from_layout
from ..hardware.tma.box import prove_landing, smem_box
from ..hardware.tma.copy import tma_swizzle_mode
from .access import CONSUMERS, normalize_accesses

__all__ = ["Problem", "Score", "consumer_legality", "make_problem", "objective_text", "score_space"]

OBJECTIVE = ("legal for every required consumer and fixed-width access; then minimize the worst conflict degree; "
             "then the sum of the degrees; then maximize the narrowest vector width, then the sum of the widths; "
             "then (with a TMA consumer) the widest TMA box row in bytes; then the simplest (least padding, fewest swizzle bits, a GMMA atom, smallest atom, column-major order)")


def objective_text():
    return OBJECTIVE


class Problem:
    """A normalized problem: ``tile``, ``dtype``, ``bits``, ``eb`` (bytes), ``accesses`` (``Access``),
    ``consumers``: ``[(kind, major)]`` from ``require`` and the consumer accesses; ``threads``: the thread
    accesses with their tile-index tables ``idx`` (threads x values)."""

    def __init__(self, tile, dtype, bits, accesses, require):
        self.tile, self.dtype, self.bits, self.eb = tile, dtype, bits, bits // 8
        self.accesses = accesses
        self.n = tile[0] * tile[1]
        cons = {}
        for a in accesses:
            if not a.threads:
                cons.setdefault(a.kind, set()).add(a.major)
        for r in require:
            cons.setdefault(r, set())
        self.consumers = []
        for kind in sorted(cons):
            majors = {m for m in cons[kind] if m} or {None}
            if len(majors) > 1:
                raise SynthError(f"the {kind} consumers need both K- and MN-major layouts; one layout is one")
            self.consumers.append((kind, majors.pop()))
        self.threads = [a for a in accesses if a.threads]
        self.idx = [access_offsets(None, a.tv)[0] for a in self.threads]
        self.has_tma = any(k == "tma" for k, _ in self.consumers)
        self._boxes = {}  # id(layout) -> (box, error): the TMA box is derived once per candidate

    def tma_box(self, layout):
        """``(box, None)`` of ``hardware.tma_box.smem_box(layout)``, or ``(None, error)``; memoized (the
        objective and the legality check both need it)."""
        key = id(layout)
        if key not in self._boxes:
            try:
                self._boxes[key] = (smem_box(layout), None, layout)
            except CuteVerifyError as e:
                self._boxes[key] = (None, e, layout)
        return self._boxes[key][:2]

    def tma_row_bound(self, cand):
        """An upper bound of :meth:`tma_row_bytes` for a candidate legal for TMA: a swizzle of ``B`` bits spans
        ``16 << B`` bytes and a legal box row fits in the span; unswizzled, a row has at most 256 elements and
        no more than the tile's longer extent."""
        if not self.has_tma:
            return 0
        b = cand.swizzle_bits
        return 16 << b if b else min(256, max(self.tile)) * self.eb

    def tma_row_bytes(self, layout):
        """The inner extent in bytes of the TMA box the layout gets (0 without a TMA consumer or a box): a
        wider row is fewer, longer TMA transfers (why CUTLASS's selectors prefer the widest swizzle)."""
        if not self.has_tma:
            return 0
        box, _ = self.tma_box(layout)
        return box.dims[0][1] * self.eb if box is not None else 0


#: The largest tile synthesized (bytes): 256 KiB exceeds every GPU's shared memory per block (228 KiB on
#: SM90/SM100), and keeps each enumerated offset table small.
MAX_TILE_BYTES = 256 * 1024


def _tile(tile):
    try:  # 128x64, (128,64), 128,64, [128, 64]: the one extents reader, as the CLI and manifests
        tile = read_extents(tile, "tile")
    except CuteVerifyError as e:
        raise SynthError(str(e)) from None
    if (len(tile) != 2
            or not all(type(x) is int and x > 0 and x & (x - 1) == 0 for x in tile)):
        raise SynthError(f"tile {tile!r}: two powers of two (MN, K), e.g. (128, 64)")
    return tuple(tile)


def make_problem(tile, dtype, writes=(), reads=(), require=()):
    """The normalized :class:`~cuteverify.synth.search.Problem` (tile, dtype, accesses, consumers)."""
    tile = _tile(tile)
    try:
        bits = dtype_bits(dtype)
    except CuteVerifyError as e:
        raise SynthError(f"dtype: {e}") from None
    if bits not in (8, 16, 32, 64):
        raise SynthError(f"dtype {dtype!r}: 8-, 16-, 32- or 64-bit elements")
    if tile[0] * tile[1] * bits // 8 > MAX_TILE_BYTES:
        raise SynthError(f"tile {tile}: {tile[0] * tile[1] * bits // 8} bytes of {dtype}, past {MAX_TILE_BYTES} "
                         "(256 KiB, more shared memory than any GPU has per block)")
    req = [require] if isinstance(require, str) else list(require or ())
    for r in req:
        if r not in CONSUMERS:
            raise SynthError(f"require {r!r}: one of {', '.join(CONSUMERS)}")
    return Problem(tile, dtype, bits, normalize_accesses(writes, reads, tile, dtype), req)


class Score:
    """One candidate's row of the ``scores`` table: ``cand`` (its index), ``legal`` (True, False or None =
    not needed), ``why`` (why illegal), ``degrees`` / ``widths`` (per thread access; None where not
    computed), ``key`` (the objective, when complete), ``pruned`` / ``bound`` (the bound argument),
    ``same_as`` (the index of an earlier candidate with the same offset table)."""

    __slots__ = ("bound", "cand", "degrees", "key", "legal", "lower", "pruned", "same_as", "why", "widths")

    def __init__(self, cand):
        self.cand, self.legal, self.why = cand, None, None
        self.degrees, self.widths, self.key = [], [], None
        self.pruned, self.bound, self.same_as, self.lower = False, None, None, None

    @property
    def worst(self):
        return max(self.degrees, default=1)

    def to_json(self):
        return {"candidate": self.cand, "legal": self.legal, "why": self.why, "degrees": self.degrees,
                "widths": self.widths, "key": list(self.key[:5]) if self.key else None, "pruned": self.pruned,
                "bound": self.bound, "same_as": self.same_as}


def _objective(degrees, widths, cand, tma_row=0):
    return (max(degrees, default=1), sum(degrees), -min(widths, default=16), -sum(widths), -tma_row) \
        + cand.simplicity()


def consumer_legality(layout, problem, kind, major):
    """``(legal, reason)`` of ``layout`` for a consumer (module docstring)."""
    if kind == "tma":
        return _tma_legal(layout, problem)
    return _mma_legal(layout, problem, "sm_90" if kind == "gmma" else "sm_100", major)


def _tma_legal(layout, problem):
    swz = layout.inner if isinstance(layout, ComposedLayout) else None
    mode, byte, why = tma_swizzle_mode(swz, problem.bits)
    if mode not in (0, 1, 2, 3):
        return False, f"tma: {why or f'swizzle mode {mode} is none of NONE, 32B, 64B, 128B'}"
    box, err = problem.tma_box(layout)
    if box is None:
        return False, f"tma: {err}"
    inner = box.dims[0][1] * problem.eb
    span = swizzles.by_tma(mode).span_bytes or None
    if inner % 16:
        return False, f"tma: the box's inner extent is {inner} bytes, not a multiple of 16"
    if span is not None and inner > span:
        return False, f"tma: the box's inner extent is {inner} bytes, past the {span}-byte swizzle span"
    if any(e > 256 for _, e in box.dims):
        return False, f"tma: a box dimension exceeds 256 elements ({box.dims})"
    v = prove_landing(layout, box, byte if mode else None, problem.bits)
    return (True, None) if v.proved else (False, f"tma: {v.reason}")


def _mma_legal(layout, problem, arch, major):
    what = "gmma" if arch == "sm_90" else "umma"
    if problem.bits not in (8, 16, 32):
        return False, f"{what}: {problem.bits}-bit elements"
    M, K = problem.tile
    k = 256 // problem.bits
    if K % k:
        return False, f"{what}: K = {K} is not a multiple of the {k}-element (256-bit) MMA K block"
    mn = M if M <= 256 else (256 if M % 256 == 0 else 64)
    if M % mn:
        return False, f"{what}: MN = {M} is not a multiple of 64"
    for kb in range(K // k):
        for mb in range(M // mn):
            try:
                _, v = from_layout(layout, problem.dtype, arch, major=major, mn=mn, mn_block=mb, k_block=kb)
            except CuteVerifyError as e:
                return False, f"{what}: {e}"
            if not v.proved:
                return False, f"{what} (block mn {mb}, k {kb}): {v.reason}"
    return True, None


def access_numbers(problem, i, sv):
    """``(legal, why, width, degree_fn)`` of thread access ``i`` on the offset table ``sv``: the vector width
    (fixed, or the widest) and a function computing the exact degree."""
    a, idx = problem.threads[i], problem.idx[i]
    off = sv[idx]
    eb = problem.eb
    if a.vector_bytes is None:
        vb = 16 if a.phases == "ldmatrix" else widest_vector(off, eb)[0]
    else:
        vb = a.vector_bytes
    if vb < eb:
        return False, f"{a.name}: {vb}-byte vectors are narrower than the element", vb, None
    p = vector_problem(off, eb, vb, 16)
    if p is not None:
        return False, f"{a.name}: {vb}-byte vectors: thread {p[0]}: {p[1]}", vb, None
    lanes = lanes_per_phase(vb, a.phases)
    merge = a.phases is None and vb in (8, 16)
    return True, None, vb, lambda: conflict_degree(idx, off, eb, vb, lanes, 0, merge)[0]


def _bijective(sv, n, padded):
    """Is the offset table ``sv`` one-to-one onto ``[0, n)`` (``padded``: ``n`` distinct offsets >= 0)? By
    counting each offset (a bincount) instead of sorting; ``tests/oracles/banks_reference.py: bijective_ref`` is the oracle."""
    if sv.size == 0 or sv.min() < 0:
        return sv.size == n == 0
    top = int(sv.max())
    if not padded:
        return sv.size == n and top < n and bool((np.bincount(sv, minlength=n) == 1).all())
    if top < 4 * sv.size + 1024:  # a padded pitch leaves a few holes: a count table stays small
        return int(np.count_nonzero(np.bincount(sv))) == n
    return len(np.unique(sv)) == n


def _check(problem, c, s, consumers):
    s.legal, s.why = True, None
    for kind, major in consumers:
        ok, why = consumer_legality(c.layout, problem, kind, major)
        if not ok:
            s.legal, s.why = False, why
            return


def _admit(top, s):
    if s.legal:
        top.append((s.key, s.cand))
        top.sort()
        del top[2:]


def score_space(problem, cands, prune=True):
    """The ``scores`` table (one :class:`Score` per candidate) and the indices of the best and runner-up
    legal candidates (None when there are fewer).

    With ``prune`` and a descriptor consumer (gmma / umma, whose check enumerates every K block), the search
    runs in two passes: every candidate's accesses are scored first (TMA legality too, a numpy check), then the
    candidates are visited in objective order and the descriptor is checked only until two legal ones are
    found; every later candidate's complete score is at or above the runner-up's."""
    scores, seen = [], {}
    top = []  # up to two (key, index) of complete legal candidates, best first
    costly = [(k, m) for k, m in problem.consumers if k in ("gmma", "umma")] if prune else []
    if costly:  # the TMA check derives the box, which the exact key needs too: both wait for the second pass
        costly = sorted(costly + [(k, m) for k, m in problem.consumers if k == "tma"], key=lambda km: km[0] != "tma")
    cheap = [(k, m) for k, m in problem.consumers if (k, m) not in costly]
    cheap.sort(key=lambda km: km[0] != "tma")  # the TMA check is the fastest
    pending = []

    def cutoff():
        return top[1][0] if (prune and not costly and len(top) == 2) else None

    for c in cands:
        s = Score(c.index)
        scores.append(s)
        sv = layout_values(c.layout)
        h = sv.tobytes()
        if h in seen:
            j = seen[h]
            o = scores[j]
            s.same_as, s.legal, s.why = j, o.legal, o.why
            s.degrees, s.widths = list(o.degrees), list(o.widths)
            s.bound = f"the same function as candidate {j} (equal offset tables), one point of the space"
            continue
        seen[h] = c.index
        if not _bijective(sv, problem.n, c.family == "padded"):
            s.legal, s.why = False, "not bijective onto the tile's storage"
            continue
        fns = []
        for i in range(len(problem.threads)):
            ok, why, vb, fn = access_numbers(problem, i, sv)
            s.widths.append(vb)
            if not ok:
                s.legal, s.why = False, why
                break
            fns.append(fn)
        if s.legal is False:
            continue
        cut, nacc = cutoff(), len(fns)
        for i, fn in enumerate(fns):
            s.degrees.append(fn())
            if cut is not None:
                lower = (max(s.degrees), sum(s.degrees) + (nacc - i - 1))
                if lower > cut[:2]:
                    s.pruned, s.lower = True, lower
                    s.bound = (f"after {i + 1} of {nacc} accesses its (worst, sum) is at least {lower}, above the "
                               f"runner-up's {cut[:2]}")
                    break
        if s.pruned:
            continue
        # first with an upper bound of the TMA row (cheap), then the row of the derived box: a key moot with
        # the bound is moot with the exact row too (a wider row only lowers the key)
        s.key = _objective(s.degrees, s.widths, c, problem.tma_row_bound(c))
        cut = cutoff()
        if cut is not None and s.key >= cut:
            _moot(s, cut)
            continue
        if problem.has_tma and not costly:
            s.key = _objective(s.degrees, s.widths, c, problem.tma_row_bytes(c.layout))
        _check(problem, c, s, cheap)
        if s.legal and costly:
            s.legal = None
            pending.append(s)
            continue
        _admit(top, s)
    # best first over the pending keys; a key with the TMA row's bound is made exact and goes back in line
    # (exact >= bound), so a candidate is checked only when its exact key is the least left
    heap = [(s.key, s.cand, not problem.has_tma) for s in pending]
    heapq.heapify(heap)
    while heap:
        key, i, exact = heapq.heappop(heap)
        s = scores[i]
        if len(top) == 2 and key >= top[1][0]:
            _moot(s, top[1][0])
            continue
        if not exact:
            s.key = _objective(s.degrees, s.widths, cands[i], problem.tma_row_bytes(cands[i].layout))
            heapq.heappush(heap, (s.key, i, True))
            continue
        _check(problem, cands[i], s, costly)
        _admit(top, s)
    best = top[0][1] if top else None
    second = top[1][1] if len(top) > 1 else None
    return scores, best, second


def _moot(s, cut):
    s.pruned, s.lower, s.legal = True, s.key, None
    s.bound = f"its complete score {s.key[:4]} is not below the runner-up's {cut[:4]}; legality is moot"
