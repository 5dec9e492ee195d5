"""The answer of a synthesis: the layout, its proofs, its code, and why it is optimal (docs/model.md 13.3).

``Synthesis.proofs`` holds prover ``Verdict``s computed by the public analyses on the returned layout:
``agreement`` (a GMMA atom's answer: ``hardware.agrees`` with the spec library's atom, else None),
``bijective`` (``prover.is_bijective``, or ``is_injective`` for a padded pitch), per thread access a
``BankVerdict`` (``analysis.banks.bank_conflicts``) and a ``VectorVerdict`` (``max_vector_width`` with
``smem``, ``require`` = the access's fixed width), per consumer a ``Verdict`` of its legality. The numbers the
search scored are checked against these verdicts when the result is built (a disagreement is an internal
error, never a silent answer).
"""
from __future__ import annotations

from ..analysis.banks import bank_conflicts, max_vector_width
from ..errors import InternalDisagreement
from ..hardware import agrees
from ..prover import Verdict, is_bijective, is_injective
from .codegen import cpp, dsl
from .search import OBJECTIVE, consumer_legality
from .space import GMMA_ELEMENT_TYPE

__all__ = ["Synthesis", "access_proofs", "optimality"]


def access_proofs(layout, problem):
    """``[(access, BankVerdict, VectorVerdict)]`` for every thread access of ``problem`` on ``layout``."""
    out = []
    for a in problem.threads:
        vb = a.vector_bytes
        if vb is None and a.phases == "ldmatrix":
            vb = 16
        # a.tv indexes the whole (MN, K) tile, the smem layout's domain: one tile of problem.n elements
        bv = bank_conflicts(layout, a.tv, problem.dtype, vector_bytes=vb, phases=a.phases, tile=problem.n)
        vv = max_vector_width(a.tv, problem.dtype, smem=layout, require=a.vector_bytes, tile=problem.n)
        out.append((a, bv, vv))
    return out


def consumer_proofs(layout, problem, checked=False):
    """``[(name, Verdict)]`` of every consumer of ``problem`` on ``layout`` (``search.consumer_legality``:
    the TMA swizzle mode, box and landing; the descriptor rules on every K block). ``checked``: the search
    already decided every consumer legal for this very layout (the same check, not repeated)."""
    out = []
    for kind, major in problem.consumers:
        ok, why = (True, None) if checked else consumer_legality(layout, problem, kind, major)
        what = kind + (f" ({major}-major)" if major else "")
        out.append((what, Verdict("proved" if ok else "refuted", claim=f"{layout} is legal for {what}",
                                  method="hardware rules on the whole tile" + (" (decided in the search)"
                                                                                if checked else ""), reason=why)))
    return out


def optimality(scores, best, cands):
    """``Verdict``: the best candidate's key is the least over the space. Every row is checked: a complete
    legal row's key is not below it, an illegal row says why, a pruned row's bound is above the runner-up's
    key (which is not below the best), a duplicate row points to a row with the same offset table."""
    if best is None:
        return Verdict("refuted", claim="a legal layout exists in the searched space", method="scores table",
                       reason="no candidate is legal")
    bkey = scores[best].key
    legal_keys = sorted(s.key for s in scores if s.legal and s.key is not None)
    second = legal_keys[1] if len(legal_keys) > 1 else None
    for s in scores:
        if s.same_as is not None:
            if scores[s.same_as].same_as is not None:
                return _bad(s, "duplicate of a duplicate")
            continue
        if s.legal is False:
            if not s.why:
                return _bad(s, "illegal without a reason")
            continue
        if s.pruned:
            if second is None or s.lower is None:
                return _bad(s, "pruned with no runner-up to bound it")
            lower = tuple(s.lower)
            # a partial bound (worst, sum) must be strictly above the runner-up's: a tie could still win on width
            if (lower <= tuple(second[:2])) if len(lower) == 2 else (lower < tuple(second)):
                return _bad(s, f"pruned although its bound {lower[:3]} does not exceed the runner-up's {second[:3]}")
            continue
        if s.key is None or s.legal is not True:
            return _bad(s, "neither scored, pruned nor illegal")
        if s.key < bkey:
            return _bad(s, f"scores {s.key[:5]}, better than the answer's {bkey[:5]}")
    n = len(scores)
    pr = sum(1 for s in scores if s.pruned)
    return Verdict("proved", claim=f"candidate {best} is optimal within the searched space ({n} candidates)",
                   method=f"comparison over the scores table ({n - pr} scored or excluded, {pr} pruned by bound)")


def _bad(s, why):
    return Verdict("refuted", claim="the answer is optimal within the searched space", method="scores table",
                   reason=f"candidate {s.cand}: {why}")


class Synthesis:
    """The result of :func:`cuteverify.synth.synthesize_smem_layout`.

    ``layout``: the smem layout (``Layout`` / ``ComposedLayout``) of the tile; ``candidate``: its point of the
    space (``.params()``); ``proofs``: ``{"bijective": Verdict, "accesses": [(name, BankVerdict,
    VectorVerdict)], "consumers": [(name, Verdict)], "agreement": Verdict or None}``; ``scores``: the table of every candidate
    (``search.Score``), ``candidates``; ``runner_up``: the second-best legal candidate or None; ``space``:
    the space in words; ``objective``: the objective in words; ``elapsed``: seconds."""

    def __init__(self, problem, cands, scores, best, second, space, elapsed=0.0):
        self.problem, self.candidates, self.scores = problem, cands, scores
        self.best, self.second = best, second
        self.candidate = cands[best]
        self.layout = self.candidate.layout
        self.runner_up = cands[second] if second is not None else None
        self.space, self.objective, self.elapsed = space, OBJECTIVE, elapsed
        self.tile, self.dtype = problem.tile, problem.dtype
        self.proofs = self._proofs()

    def _proofs(self):
        lay, prob = self.layout, self.problem
        bij = is_injective(lay) if self.candidate.family == "padded" else is_bijective(lay)
        accs = access_proofs(lay, prob)
        s = self.scores[self.best]
        for i, (a, bv, vv) in enumerate(accs):
            if bv.degree != s.degrees[i] or bv.vector_bytes != s.widths[i]:
                raise InternalDisagreement(f"synthesis scored {a.name} at degree {s.degrees[i]} with "
                                           f"{s.widths[i]}-byte vectors, bank_conflicts says {bv.degree} with "
                                           f"{bv.vector_bytes} on {lay}")
            if a.vector_bytes is not None and not vv.proved:
                raise InternalDisagreement(f"synthesis scored {a.name} legal at {a.vector_bytes} bytes, "
                                           f"max_vector_width refutes it on {lay}")
        cons = consumer_proofs(lay, prob, checked=s.legal is True)
        for what, v in cons:
            if not v.proved:
                raise InternalDisagreement(f"synthesis found {lay} legal for {what}, the check refutes it")
        agree = None
        if self.candidate.gmma:  # the answer is CUTLASS's atom tiled: the spec library's agreement proof
            name = f"GMMA::Layout_{self.candidate.gmma}_Atom<{GMMA_ELEMENT_TYPE[prob.bits]}>"
            agree = agrees(lay, name)
            if not agree.proved:
                raise InternalDisagreement(f"synthesis named {lay} {name}, the spec library refutes it: {agree}")
        return {"bijective": bij, "accesses": [(a.name, bv, vv) for a, bv, vv in accs], "consumers": cons,
                "agreement": agree}

    @property
    def degrees(self):
        return [bv.degree for _, bv, _ in self.proofs["accesses"]]

    @property
    def widths(self):
        """Bytes per thread per instruction of each thread access: its fixed width, or the widest its values
        allow (``max_vector_width``) for an access of free width."""
        return [bv.vector_bytes for _, bv, _ in self.proofs["accesses"]]

    @property
    def conflict_free(self):
        return all(d == 1 for d in self.degrees)

    def optimal_within_space(self) -> Verdict:
        """Proof by comparison that the answer is optimal within the searched space (``optimality``)."""
        return optimality(self.scores, self.best, self.candidates)

    def cpp(self) -> str:
        return cpp(self.candidate, self.tile, self.dtype, self.problem.bits)

    def dsl(self) -> str:
        return dsl(self.candidate, self.tile, self.dtype)

    def loses(self):
        """What the runner-up loses against the answer, in words (None without a runner-up)."""
        if self.runner_up is None:
            return None
        a, b = self.scores[self.best], self.scores[self.second]
        if b.key[0] != a.key[0]:
            why = f"worst conflict degree {b.key[0]} vs {a.key[0]}"
        elif b.key[1] != a.key[1]:
            why = f"sum of conflict degrees {b.key[1]} vs {a.key[1]}"
        elif b.key[2] != a.key[2]:
            why = f"narrowest vector {-b.key[2]} vs {-a.key[2]} bytes"
        elif b.key[3] != a.key[3]:
            why = f"vector widths summing to {-b.key[3]} vs {-a.key[3]} bytes"
        elif b.key[4] != a.key[4]:
            why = f"TMA box rows of {-b.key[4]} vs {-a.key[4]} bytes"
        else:
            why = "ties on every access; the answer is simpler (padding, swizzle bits, GMMA atom, atom size, order)"
        return f"{self.runner_up.describe()}: {why}"

    def to_json(self):
        return {"layout": str(self.layout), "candidate": self.candidate.params(), "tile": list(self.tile),
                "dtype": self.dtype, "cpp": self.cpp(), "dsl": self.dsl(),
                "accesses": [{"access": n, "degree": bv.degree, "vector_bytes": bv.vector_bytes,
                              "widest_vector_bytes": vv.width,
                              "bank": bv.to_json(), "vector": vv.to_json()} for n, bv, vv in self.proofs["accesses"]],
                "consumers": [{"consumer": w, "verdict": v.to_json()} for w, v in self.proofs["consumers"]],
                "bijective": self.proofs["bijective"].status,
                "agreement": self.proofs["agreement"].status if self.proofs["agreement"] is not None else None,
                "optimal": self.optimal_within_space().status,
                "runner_up": self.loses(), "space": self.space, "objective": self.objective,
                "candidates": len(self.candidates), "pruned": sum(1 for s in self.scores if s.pruned),
                "elapsed_s": self.elapsed}

    def __str__(self):
        lines = [f"smem layout for a {self.tile[0]}x{self.tile[1]} {self.dtype} tile: {self.layout}",
                 f"  {self.candidate.describe()}", f"  C++: {self.cpp()}",
                 f"  bijective: {self.proofs['bijective'].status}"]
        if self.proofs["agreement"] is not None:
            lines.append(f"  agrees with the spec library's GMMA atom: {self.proofs['agreement'].status}")
        for name, bv, vv in self.proofs["accesses"]:
            wider = f" (values allow {vv.width})" if vv.width and vv.width > bv.vector_bytes else ""
            lines.append(f"  {name}: {bv.degree}-way{' (conflict-free)' if bv.degree == 1 else ''}, "
                         f"{bv.vector_bytes}-byte vectors{wider}")
        for what, v in self.proofs["consumers"]:
            lines.append(f"  {what}: {'legal' if v.proved else 'ILLEGAL'}")
        opt = self.optimal_within_space()
        lines.append(f"  optimal within the space: {opt.status} ({len(self.candidates)} candidates, "
                     f"{sum(1 for s in self.scores if s.pruned)} pruned by bound)")
        lose = self.loses()
        lines.append(f"  runner-up: {lose}" if lose else "  runner-up: none (no other legal candidate)")
        return "\n".join(lines)

    __repr__ = __str__
