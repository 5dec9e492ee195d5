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

Merging (H200, ncu: ``specs/evidence/sm90/banks_ncu.jsonl`` and ``examples/banks_silicon.md``, checked by
``tests/analysis/test_banks_ncu.py``): for 8- and 16-byte accesses with the default phases, lanes of one aligned quad
(lanes 4i .. 4i+3) reading the same address are one request, and the requests, in lane order, fill phases of
128 bytes (16 requests of 8 bytes; 8 of 16 bytes, never mixing half-warps); see
``banks_model._merged_phases``. Fixed 16- / 8-thread phases over-count where lanes share addresses (two lanes
per 8-byte word: 1 wavefront, not 2; a 16-byte broadcast: 2, not 4). ``ldmatrix`` / ``stmatrix`` and an
explicit ``phases=`` keep fixed phases; ``lanes_per_phase`` reports the nominal 16 / 8.

Everything concrete is decided exactly by enumeration (numpy). Symbolic layouts are instantiated over their
finite assumption sets (``N in {...}``, enumerated by ``symbolic.finite_assignments``); without finite sets the
answer is ``unknown`` with the reason.

This module is the API; the answers are in ``banks_verdict``, the enumeration model in ``banks_model``.

Modules: ``model`` (offsets, widths), ``place`` (a copy or TV layout placed over the smem tensor as
partition_S/D does), ``verdict`` (the answers), ``vector_sym`` (symbolic vector width), ``cp_async`` (cp.async
passes with their global side).
May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``, ``hardware``, ``atoms``.
"""
from __future__ import annotations

import time

from ...atoms import TiledCopy
from ...core.layout import idx2crd, size
from ...core.notation.interop import as_layout
from ...core.swizzle import ComposedLayout
from ...core.tuples import is_tuple
from ...errors import NotAdmissibleError
from ...symbolic import finite_assignments
from .model import (BANK_BYTES, DTYPE_BYTES, NUM_BANKS, conflict_degree, lanes_per_phase, vector_problem, widest_vector,  # noqa: F401  (conflict_degree, lanes_per_phase, widest_vector: for examples/banks_silicon.py)
    access_offsets, elem_bytes_of, layout_values)
from .place import Placement, copy_smem_side, copy_width, describe_values, place_access, read_tile
from .verdict import BankConflict, BankVerdict, VectorBreak, VectorVerdict
from .vector_sym import symbolic_verdict

__all__ = ["bank_conflicts", "max_vector_width", "place_access", "Placement", "read_tile", "BankVerdict", "VectorVerdict", "BankConflict", "VectorBreak",
           "elem_bytes_of", "DTYPE_BYTES", "NUM_BANKS", "BANK_BYTES", "access_offsets"]

#: Most symbol assignments a symbolic layout is instantiated over.
MAX_INSTANCES = 4096
#: Most entries of one enumerated layout (access or smem): the model holds each as an int64, several arrays
#: at once; 2**24 entries is a 4096x4096 tile, far past any shared-memory buffer, and about 0.5 GiB at worst.
MAX_ENTRIES = 1 << 24


def _within_budget(what, L):
    """Refuse, naming the limit, a concrete layout the enumeration could not hold (checked before any array
    is made: ``(65536,65536):(65536,1)`` would need 32 GiB)."""
    if L is None or not _is_concrete(L):
        return
    n = size(L)
    if type(n) is int and n > MAX_ENTRIES:
        raise NotAdmissibleError("banks", f"the {what} has {n} entries, past the enumeration limit of "
                                          f"{MAX_ENTRIES} (2**24)")


def _positive_pow2(name, v, most=None):
    if v is None:
        return
    if type(v) is not int or v <= 0 or v & (v - 1) or (most is not None and v > most):
        limit = f" up to {most}" if most is not None else ""
        raise NotAdmissibleError("vector width", f"{name} must be a power of two{limit}, got {v!r}")


def _is_concrete(x):
    return bool(getattr(x, "is_concrete", True))


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
    out = finite_assignments(names, asm, MAX_INSTANCES)
    if out is None:  # every name has a finite set, so the product is over the limit
        total = 1
        for n in names:
            total *= len(asm.finite[n])
        return "unknown", f"{total} symbol assignments exceed the enumeration limit of {MAX_INSTANCES}"
    if not out:
        return "unknown", "no assignment of the symbols satisfies the assumptions"
    return "finite", out


def _subs(L, a, what="layout"):
    L = L if (L is None or not a or _is_concrete(L)) else L.subs(a)
    _within_budget(what, L)
    return L


# ---------------------------------------------------------------------------------------- the API

def bank_conflicts(smem_layout, access, dtype=None, elem_bytes=None, vector_bytes=None, phases=None,
                   base_bytes=0, tile=None, side=None) -> BankVerdict:
    """Decide "``access`` through ``smem_layout`` is free of bank conflicts" and compute the exact degree.

    ``smem_layout``: element index (or coordinate) -> element offset, e.g. ``S<3,3,3> o 0 o (64,64):(64,1)``;
    ``None`` when ``access`` already yields offsets. ``access``: a TV layout (thread, value) -> tile index, or
    a :class:`~cuteverify.atoms.TiledCopy` (its shared-memory ``side``, by default the side that is not
    registers). Either is placed over the smem tensor as the kernel's partition places it
    (``banks_place.place_access``): a tiled copy by its tiler, a TV layout by ``tile`` (its tile's shape,
    ``(16,64)`` or ``"16x64"``); a TV layout without ``tile`` must index the whole smem (its largest index + 1
    is ``size(smem_layout)``) or name coordinates (``E<i>`` strides), else the call is refused naming both
    shapes. Every tile of the placement is one more instruction per value chunk.
    ``vector_bytes``: bytes per thread per instruction (1..16, a power of two, a multiple of the element
    size); ``None`` infers, for a tiled copy, its atom's bytes per thread (capped at 16), else the widest
    width every thread's values allow within one tile (as an auto-vectorising copy would).
    ``phases``: ``None`` (from the width: 32/16/8 threads per phase for <=4/8/16 bytes; a tiled copy of
    ldmatrix / stmatrix: ``"ldmatrix"``), the number of phases per warp request (1, 2, 4, 8), or
    ``"ldmatrix"`` (8-thread phases). ``base_bytes``: the buffer's byte address (a multiple of 128 is the
    usual assumption; swizzles are on offsets relative to it).

    ``dtype`` (``"bf16"``, ``"f32"``, ``"e4m3"``, ...; default: a tiled copy's value type, else bf16) or
    ``elem_bytes`` give the element width; a tiled copy's value type must have that width.

    Returns a :class:`BankVerdict`: proved = conflict-free, refuted with a :class:`BankConflict`
    (two threads, their elements, byte addresses and bank), refuted with a :class:`VectorBreak` when the
    access cannot be issued at its width (``degree`` None: the thread and values that break it), unknown
    for symbolic layouts without finite assumption sets; ``.degree`` is the exact worst number of distinct
    words on one bank in one phase. Bad input (shapes that cannot be related, widths that are no access)
    raises :class:`NotAdmissibleError`.
    """
    t0 = time.perf_counter()
    smem_layout = None if smem_layout is None else as_layout(smem_layout, "smem layout")
    access = access if isinstance(access, TiledCopy) else as_layout(access, "access")
    eb, vector_bytes, phases = _copy_defaults(access, dtype, elem_bytes, vector_bytes, phases, side)
    if type(base_bytes) is not int or base_bytes < 0:
        raise NotAdmissibleError("banks", f"base_bytes must be a byte address (an integer >= 0), got {base_bytes!r}")
    copy = isinstance(access, TiledCopy)
    kind, insts = _instances(smem_layout, None if copy else access)
    claim = f"conflict-free: {_name(access)} through {smem_layout}"
    if kind == "unknown":
        return BankVerdict("unknown", claim=claim, method="enumeration", reason=insts, elem_bytes=eb,
                           elapsed=time.perf_counter() - t0)
    worst, results = None, []
    for a in insts:
        smem = _subs(smem_layout, a, "smem layout")
        pl = place_access(access if copy else _subs(access, a, "access"), smem, tile, side)
        r = _bank_concrete(smem, pl, eb, vector_bytes, phases, base_bytes, a)
        results.append((a, r))
        if worst is None or _rank(r) > _rank(worst[1]):
            worst = (a, r)
    a, (degree, wavefronts, ideal, wit, vb, lanes, pl) = worst
    name = _dtype_name(dtype if dtype is not None or not copy else access.value_type, eb)
    placed = f" ({pl.text})" if pl.text else ""
    claim = (f"conflict-free ({name}, {vb}-byte accesses, {lanes} threads per phase): {_name(access)} through "
             f"{smem_layout}{placed}")
    method = "enumeration" if kind == "concrete" else f"enumeration over {len(insts)} symbol assignments"
    finite = f"worst of {len(insts)} assignments" + (f" at {a}" if a else "") if kind == "finite" else None
    if degree is None:  # the access cannot be issued at this width: no conflict degree exists
        why = (f"the access cannot be issued as {vb}-byte vectors"
               + (" (each ldmatrix / stmatrix row is 16 contiguous, 16-byte aligned bytes)"
                  if isinstance(phases, str) else "")
               + f"; {describe_values(pl, _shape(smem_layout, a), wit.thread, wit.value_indices)} break it")
        return BankVerdict("refuted", claim=claim, method=method, counterexample=wit,
                           reason=why + (f"; {finite}" if finite else ""), vector_bytes=vb, lanes_per_phase=lanes,
                           elem_bytes=eb, elapsed=time.perf_counter() - t0)
    cex = None
    if degree > 1:
        crds = ()
        try:
            lay = _subs(smem_layout, a)
            if lay is not None and is_tuple(lay.shape):
                crds = tuple(idx2crd(e, lay.shape) for e in wit["elements"])
        except Exception:  # pragma: no cover - coordinates are a courtesy
            crds = ()
        cex = BankConflict(crds=crds, natural=crds, assignment=a, **wit)
    status = "refuted" if degree > 1 else "proved"
    return BankVerdict(status, claim=claim, method=method, counterexample=cex, reason=finite, degree=degree,
                       vector_bytes=vb, lanes_per_phase=lanes, wavefronts=wavefronts, ideal_wavefronts=ideal,
                       elem_bytes=eb, instances=[(x, r[0]) for x, r in results] if kind == "finite" else (),
                       elapsed=time.perf_counter() - t0)


def _shape(smem, a):
    if smem is None:
        return None
    return _subs(smem, a).shape


def _rank(r):
    """Order of badness: an access that cannot be issued is worse than any degree."""
    return float("inf") if r[0] is None else r[0]


def _name(access):
    if isinstance(access, TiledCopy):
        tile = "x".join(str(size(t)) for t in access.tiler_mn)
        return f"the {access.name} tiled copy {access.layout_tv_tiled} of its {tile} tile"
    return str(access)


def _copy_defaults(access, dtype, elem_bytes, vector_bytes, phases, side):
    """``(element bytes, vector bytes, phases)``: the arguments, with a tiled copy's value type, atom width
    and ldmatrix phases where they are not given; a dtype that contradicts the copy's is refused."""
    if not isinstance(access, TiledCopy):
        return elem_bytes_of(dtype, elem_bytes), vector_bytes, phases
    bits = access.value_bits
    if type(bits) is not int or bits % 8 or bits // 8 not in (1, 2, 4, 8, 16):
        raise NotAdmissibleError("banks", f"the copy moves {bits}-bit values; sub-byte elements are not modelled")
    eb = elem_bytes_of(dtype, elem_bytes) if (dtype is not None or elem_bytes is not None) else bits // 8
    if eb * 8 != bits:
        raise NotAdmissibleError("banks", f"the copy moves {access.value_type} ({bits}-bit) values, the claim's "
                                          f"elements are {eb} bytes: build the copy for the claim's dtype")
    vb, ph = copy_width(access, copy_smem_side(access, side))
    return eb, vector_bytes if vector_bytes is not None else (vb if vb is not None and vb >= eb else None), \
        phases if phases is not None else ph


def _dtype_name(dtype, eb):
    if isinstance(dtype, str):
        return dtype
    return {1: "8-bit", 2: "16-bit", 4: "32-bit", 8: "64-bit", 16: "128-bit"}[eb] + " elements"


def _offsets(smem, pl):
    return pl.idx if smem is None else layout_values(smem)[pl.idx]


def _bank_concrete(smem, pl, eb, vector_bytes, phases, base_bytes, assignment):
    """``(degree, wavefronts, ideal, witness, vector bytes, lanes, placement)``; degree None (and a
    :class:`VectorBreak` witness) when the access cannot be issued at the width."""
    off = _offsets(smem, pl)
    if vector_bytes is None:
        if isinstance(phases, str) and phases.lower() in ("ldmatrix", "stmatrix", "ldsm", "stsm"):
            vb = 16
        else:
            vb, _ = widest_vector(off, eb, per=pl.per_iter)
    else:
        vb = vector_bytes
    if type(vb) is not int or vb <= 0 or vb & (vb - 1) or vb > 16:
        raise NotAdmissibleError("banks", f"vector_bytes must be a power of two up to 16, got {vb!r}")
    if vb < eb:
        raise NotAdmissibleError("banks", f"vector_bytes={vb} is narrower than the {eb}-byte element")
    lanes = lanes_per_phase(vb, phases)
    p = vector_problem(off, eb, vb, alignment=16, per=pl.per_iter)
    if p is not None:
        return None, None, None, VectorBreak.at(vb, p, assignment=assignment or None), vb, lanes, pl
    merge = phases is None and vb in (8, 16)
    degree, wavefronts, ideal, wit = conflict_degree(pl.idx, off, eb, vb, lanes, base_bytes, merge=merge)
    return degree, wavefronts, ideal, wit, vb, lanes, pl


def max_vector_width(layout_or_tv, dtype=None, elem_bytes=None, alignment=16, smem=None, require=None,
                     tv=None, tile=None, side=None) -> VectorVerdict:
    """The widest access (bytes, a power of two, at most 16 and at most ``alignment``) such that each thread's
    consecutive values are contiguous in memory and the vector's first byte is aligned to its width.

    ``layout_or_tv``: a TV layout (thread, value) -> element offset, or, with ``smem``, (thread, value) ->
    tile index placed over ``smem`` as :func:`bank_conflicts` places it (``tile``; a
    :class:`~cuteverify.atoms.TiledCopy` by its tiler, on its shared-memory ``side``), the composed offsets
    used and every tile checked (a vector never spans two tiles). A layout that is not rank 2 (or
    ``tv=False``) is one thread's values in order. ``alignment``: the byte alignment assumed for the buffer.
    ``require``: a width in bytes to check; the verdict is refuted (with the thread that breaks it) when the
    widest width is smaller.

    Returns a :class:`VectorVerdict`: ``.width`` (bytes), ``.elems``, ``.blocker`` (why twice the width fails).
    Shapes that cannot be related raise :class:`NotAdmissibleError` naming both.
    """
    t0 = time.perf_counter()
    copy = isinstance(layout_or_tv, TiledCopy)
    layout_or_tv = layout_or_tv if copy else as_layout(layout_or_tv)
    smem = None if smem is None else as_layout(smem, "smem layout")
    eb = _copy_defaults(layout_or_tv, dtype, elem_bytes, None, None, side)[0] if copy else \
        elem_bytes_of(dtype, elem_bytes)
    _positive_pow2("require", require, 16)  # a 3-byte vector is no access the hardware has
    _positive_pow2("alignment", alignment)
    if copy and smem is None:
        raise NotAdmissibleError("vector width", "a tiled copy's vectors are over an smem layout: give smem")
    if (tile is not None or side is not None) and smem is None:
        raise NotAdmissibleError("vector width", "tile and side place an access over an smem layout: give smem")
    L = layout_or_tv
    if not copy and (tv is False or (tv is None and smem is None and not (is_tuple(L.shape) and len(L.shape) == 2))):
        L = _as_one_thread(L)
    kind, insts = _instances(None if copy else L, smem)
    what = _name(layout_or_tv)
    claim = f"widest vector access of {what}" + (f" through {smem}" if smem is not None else "")
    if kind == "unknown" and smem is None and not isinstance(L, ComposedLayout):
        # infinitely many assignments: decided by divisibility where it can be (analysis/vector_sym.py)
        rclaim = claim if require is None else \
            f"{require}-byte vector access ({_dtype_name(dtype, eb)}) of {layout_or_tv}"
        v = symbolic_verdict(L, eb, alignment, require, rclaim, _dtype_name(dtype, eb), t0)
        if v is not None:
            return v
    if kind == "unknown":
        return VectorVerdict("unknown", claim=claim, method="enumeration", reason=insts, elem_bytes=eb,
                             elapsed=time.perf_counter() - t0)
    best = None
    for a in insts:
        S = _subs(smem, a, "smem layout")
        pl = place_access(L if copy else _subs(L, a, "access"), S, tile, side, "vector width")
        off = _offsets(S, pl)
        w, blk = widest_vector(off, eb, alignment, pl.per_iter)
        if best is None or w < best[1]:
            best = (a, w, blk, off, pl)
    a, w, blk, off, pl = best
    if pl.text:
        claim += f" ({pl.text})"
    blocker = None
    if blk is not None and blk[1] is not None:
        blocker = VectorBreak.at(blk[0], blk[1], assignment=a)
    name = _dtype_name(dtype, eb)
    reason = (f"{2 * w}-byte vectors fail: {blocker}" if blocker is not None else
              ("16 bytes is the widest shared-memory access" if w >= 16 else None))
    if kind == "finite":
        reason = (reason + "; " if reason else "") + f"minimum over {len(insts)} assignments"
    if require is not None:
        claim = f"{require}-byte vector access ({name}) of {what}" + (f" through {smem}" if smem is not None
                                                                     else "") + (f" ({pl.text})" if pl.text else "")
        if w >= require:
            return VectorVerdict("proved", claim=claim, method="enumeration", width=w, elems=w // eb,
                                 blocker=blocker, elem_bytes=eb, reason=reason, elapsed=time.perf_counter() - t0)
        p = vector_problem(off, eb, require, alignment, pl.per_iter)
        cex = VectorBreak.at(require, p, assignment=a) if p else blocker
        why = f"widest is {w} bytes"
        if cex is not None and cex.value_indices and pl.tile is not None:
            why += f"; {describe_values(pl, _shape(smem, a), cex.thread, cex.value_indices)} break it"
        return VectorVerdict("refuted", claim=claim, method="enumeration", counterexample=cex, width=w,
                             elems=w // eb, blocker=blocker, elem_bytes=eb, reason=why,
                             elapsed=time.perf_counter() - t0)
    claim = f"widest vector access is {w} bytes ({w // eb} x {name}): {claim[len('widest vector access of '):]}"
    return VectorVerdict("proved", claim=claim, method="enumeration", width=w, elems=w // eb, blocker=blocker,
                         elem_bytes=eb, reason=reason, elapsed=time.perf_counter() - t0)


def _as_one_thread(L):
    """A layout read as one thread holding all its values: ``(1, L)``."""
    if isinstance(L, ComposedLayout):
        return L.with_outer(_as_one_thread(L.outer))
    return L.with_(shape=(1, L.shape), stride=(0, L.stride))
