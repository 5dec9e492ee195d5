"""``synthesize_smem_layout``: the optimum of the searched space with its proofs (docs/model.md section 13)."""
from __future__ import annotations

import time

from ..errors import NoLegalLayout, SynthError
from .result import Synthesis
from .search import make_problem, score_space
from .space import SPACE_TEXT, enumerate_space

__all__ = ["synthesize_problem", "synthesize_smem_layout"]


def _check_swizzles(swizzles):
    if swizzles is None:
        return
    for sw in swizzles:
        if not (isinstance(sw, (tuple, list)) and len(sw) == 3 and all(type(x) is int and x >= 0 for x in sw)):
            raise SynthError(f"swizzles: {sw!r} is not an element-level (B, M, S) of non-negative integers")


def synthesize_smem_layout(tile=(128, 64), dtype="bf16", writes=(), reads=(), require=(), allow_padding=False,
                           swizzles=None, prune=True) -> Synthesis:
    """The optimal shared-memory layout of the searched space for the problem (docs/model.md section 13).

    ``tile``: ``(MN, K)`` powers of two; ``dtype``: element type name; ``writes`` / ``reads``: accesses (text
    forms of :mod:`cuteverify.synth.access`, ``TiledCopy`` objects, TV layouts); ``require``: consumers the
    layout must suit (``"tma"``, ``"gmma"``, ``"umma"``); ``allow_padding``: add padded pitches to the space;
    ``swizzles``: restrict the swizzled candidates to these element-level ``(B, M, S)``; ``prune``: skip
    candidates by bound (the answer is the same; ``False`` scores the whole space).

    Post-condition: the returned layout is legal for every requirement and fixed-width access, its proofs are
    the analyses' verdicts, and ``optimal_within_space()`` proves no candidate scores better. No legal
    candidate: :class:`NoLegalLayout`.
    """
    t0 = time.perf_counter()
    return synthesize_problem(make_problem(tile, dtype, writes, reads, require), allow_padding, swizzles, prune, t0)


def synthesize_problem(prob, allow_padding=False, swizzles=None, prune=True, started=None) -> Synthesis:
    """:func:`synthesize_smem_layout` for a problem already built (``search.make_problem``: a
    :class:`~cuteverify.synth.search.Problem`), so that a caller holding one does not build it again
    (``prove_smem_optimal``). Admissible and post-condition as there; ``started``: the ``perf_counter`` time the
    work began (the result's ``elapsed`` counts from it; now when None)."""
    t0 = time.perf_counter() if started is None else started
    _check_swizzles(swizzles)
    cands = enumerate_space(prob.tile, prob.bits, allow_padding, swizzles)
    if not cands:
        raise NoLegalLayout(f"the searched space is empty for a {prob.tile} tile with swizzles={swizzles!r}")
    scores, best, second = score_space(prob, cands, prune=prune)
    if best is None:
        why = sorted({s.why for s in scores if s.why})[:4]
        raise NoLegalLayout(f"no layout of the searched space ({len(cands)} candidates) is legal: "
                            + "; ".join(why))
    return Synthesis(prob, cands, scores, best, second, SPACE_TEXT, elapsed=time.perf_counter() - t0)
