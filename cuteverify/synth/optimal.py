"""Is a kernel's own shared-memory layout optimal within the searched space? (docs/model.md section 13.6)

``prove_smem_optimal(layout, tile, dtype, writes, reads, require)``: the layout scores as well as the
synthesized optimum under the stated objective (worst conflict degree, sum of degrees, narrowest and summed
vector widths, widest TMA box row; simplicity, the last tie-break, is not a quality and is not compared), and
is legal for every required consumer. Proved: both hold (the optimum's ``optimal_within_space`` proof is the
other half). Refuted: the counterexample names the first objective term where the synthesized layout is better,
or the consumer that refuses the layout, or the access the layout makes impossible to issue at its width (an
ldmatrix row or a copy atom's vector not contiguous: the thread and its values), with the better layout itself.
The layout itself need not be a point of the space. Malformed problems raise ``SynthError``.
"""
from __future__ import annotations

import time

from ..errors import NoLegalLayout
from ..prover.verdict import Illegal, Verdict, Worse
from .explain import user_layout
from .result import access_proofs, consumer_proofs
from .search import make_problem
from .synthesize import synthesize_problem

__all__ = ["prove_smem_optimal"]

_TERMS = ("worst conflict degree", "sum of conflict degrees", "narrowest vector (bytes)",
          "sum of vector widths (bytes)", "TMA box row (bytes)")


def _key(degrees, widths, tma_row):
    return (max(degrees, default=1), sum(degrees), -min(widths, default=16), -sum(widths), -tma_row)


def _shown(i, v):
    return v if i < 2 else -v


def prove_smem_optimal(layout, tile, dtype="bf16", writes=(), reads=(), require=(), allow_padding=False) -> Verdict:
    """Verdict of "``layout`` is optimal within the searched space for the problem" (module docstring)."""
    t0 = time.perf_counter()
    prob = make_problem(tile, dtype, writes, reads, require)
    layout, _ = user_layout(layout, prob)
    accs = access_proofs(layout, prob)
    claim = f"{layout} is optimal within the searched space for the {tile[0]}x{tile[1]} {dtype} tile"

    def done(status, **kw):
        return Verdict(status, claim=claim, method="synthesis over the searched space, exact scores",
                       elapsed=time.perf_counter() - t0, **kw)

    for a, bv, _ in accs:
        if bv.degree is None:  # the layout puts an access's vector values apart: the kernel cannot issue it
            brk = bv.counterexample
            detail = {"access": a.name, "thread": brk.thread, "values": list(brk.value_indices),
                      "offsets": list(brk.offsets)}
            try:  # a layout of the space that can issue it, when there is one
                detail["better"] = str(synthesize_problem(prob, allow_padding).layout)
            except NoLegalLayout:
                pass
            return done("refuted", reason="an access cannot be issued on the layout", counterexample=Illegal(
                note=f"{a.name} cannot be issued on this layout: {bv.reason}", detail=detail))
    syn = synthesize_problem(prob, allow_padding)

    for what, v in consumer_proofs(layout, prob):
        if not v.proved:
            why = f"not legal for {what}: {v.reason}"
            return done("refuted", reason="a required consumer refuses the layout", counterexample=Illegal(
                note=why, detail={"consumer": what, "better": str(syn.layout)}))
    mine = _key([bv.degree for _, bv, _ in accs], [vv.width for _, _, vv in accs], prob.tma_row_bytes(layout))
    best = _key(syn.degrees, syn.widths, syn.problem.tma_row_bytes(syn.layout))
    for i, (a, b) in enumerate(zip(mine, best)):
        if a > b:
            why = (f"{_TERMS[i]}: {_shown(i, a)} here, {_shown(i, b)} with {syn.candidate.describe()} "
                   f"({syn.cpp()})")
            return done("refuted", reason="a layout of the searched space scores better", counterexample=Worse(
                note=why, detail={"term": _TERMS[i], "layout": _shown(i, a), "better": str(syn.layout),
                                  "better_value": _shown(i, b)}))
        if a < b:  # the optimum of the space is beaten by a layout outside it: still optimal within the space
            break
    return done("proved", reason=f"scores {', '.join(f'{t} {_shown(i, v)}' for i, (t, v) in enumerate(zip(_TERMS, mine)))}"
                                 f"; the synthesized optimum scores no better")
