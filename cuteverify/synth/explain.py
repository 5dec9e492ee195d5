"""Why a user's shared-memory layout conflicts, and the smallest change that helps (docs/model.md 13.5).

``explain_smem_layout(layout, tile, dtype, writes, reads, require)``: for each thread access, the exact degree
on the user's layout (``analysis.banks.bank_conflicts``) and, when it conflicts, the witness (two threads,
their elements, byte addresses and the bank) and the nearest candidate of the searched space
(``synth.space``) that is legal for the problem and makes that access conflict-free without making any
other access worse than on the user's layout; or, when no such candidate exists, the least degree that
access reaches over those candidates (so no change within the space removes it) and the nearest candidate
reaching it, when that is below the user's degree.

For a plain layout, also the smallest change to the user's own code: the swizzle ``Sw`` with
``composition(Sw, layout)`` conflict-free on that access, no access worse and legal for every consumer, of
least distance (``Wrap``).

Distance (stated, smaller first): the fraction of the tile's elements whose offset the change moves (0: the
same function), then the candidate's simplicity. When the user's layout is itself a point of the space, the
change is also given as the parameters that differ (swizzle ``(B,M,S)``, atom, major-ness, tile order, pad).
"""
from __future__ import annotations

import numpy as np

from ..analysis.banks.model import layout_values
from ..core.layout import Layout
from ..core.notation.interop import as_layout
from ..core.swizzle import ComposedLayout, Swizzle
from ..errors import SynthError
from .result import access_proofs, consumer_proofs
from .search import access_numbers, consumer_legality, make_problem, score_space
from .space import enumerate_space

__all__ = ["Explanation", "explain_smem_layout"]


class Fix:
    """The nearest helpful candidate for one access: ``candidate``, ``distance`` (fraction of elements moved),
    ``degrees`` (every thread access on it), ``changes`` (parameter differences, when the user's layout is a
    point of the space), ``removes`` (True: the access becomes conflict-free; False: only the least degree
    within the space is reached)."""

    def __init__(self, cand, distance, degrees, changes, removes=True):
        self.candidate, self.distance, self.degrees, self.changes = cand, distance, degrees, changes
        self.removes = removes

    @property
    def layout(self):
        return self.candidate.layout

    def to_json(self):
        return {"layout": str(self.layout), "candidate": self.candidate.params(), "distance": self.distance,
                "degrees": self.degrees, "changes": self.changes, "removes": self.removes}

    def __str__(self):
        ch = f" (change {', '.join(self.changes)})" if self.changes else ""
        return (f"{self.candidate.describe()}{ch}: moves {self.distance:.1%} of the elements; degrees "
                f"{self.degrees}")


class Wrap:
    """The smallest change to the user's own code for one access: compose the layout with ``swizzle``
    (``composition(Swizzle<B,M,S>{}, layout)``), which makes the access conflict-free and no other access
    worse, legal for every required consumer: ``layout`` (the composed layout), ``distance`` (fraction of the
    elements moved), ``degrees`` (every thread access on it)."""

    def __init__(self, swizzle, layout, distance, degrees):
        self.swizzle, self.layout, self.distance, self.degrees = swizzle, layout, distance, degrees

    def to_json(self):
        sw = self.swizzle
        return {"swizzle": [sw.bits, sw.base, sw.shift], "layout": str(self.layout), "distance": self.distance,
                "degrees": self.degrees}

    def __str__(self):
        sw = self.swizzle
        return (f"composition(Swizzle<{sw.bits},{sw.base},{sw.shift}>{{}}, your layout) = {self.layout}: moves "
                f"{self.distance:.1%} of the elements; degrees {self.degrees}")


class AccessExplanation:
    """``name``, ``verdict`` (``BankVerdict``), ``vector`` (``VectorVerdict``), ``degree``, ``conflict``
    (the ``BankConflict`` witness or None), ``fix`` (a :class:`Fix` or None), ``min_degree`` (the least degree
    of this access over the legal candidates that keep every other access no worse than on the user's
    layout; None when there is none)."""

    def __init__(self, name, verdict, vector, fix, min_degree, wrap=None):
        self.name, self.verdict, self.vector, self.fix, self.min_degree = name, verdict, vector, fix, min_degree
        self.wrap = wrap
        self.degree = verdict.degree
        self.conflict = verdict.counterexample

    def to_json(self):
        return {"access": self.name, "degree": self.degree, "vector_bytes": self.vector.width,
                "conflict": self.conflict.to_json() if self.conflict is not None else None,
                "fix": self.fix.to_json() if self.fix is not None else None, "min_degree": self.min_degree,
                "wrap": self.wrap.to_json() if self.wrap is not None else None}

    def __str__(self):
        if self.degree == 1:
            return f"{self.name}: conflict-free, {self.vector.width}-byte vectors"
        s = f"{self.name}: {self.degree}-way conflict: {self.conflict}"
        if self.wrap is not None:
            s += f"\n    smallest change: {self.wrap}"
        if self.fix is not None and self.fix.removes:
            return s + f"\n    nearest fix: {self.fix}"
        s += (f"\n    no layout of the searched space removes it (keeping the other accesses no worse): the least "
              f"degree is {self.min_degree}" if self.min_degree is not None else
              "\n    no legal layout of the searched space keeps the other accesses no worse")
        return s + (f"\n    nearest layout reaching it: {self.fix}" if self.fix is not None else "")


class Explanation:
    """The answer of :func:`explain_smem_layout`: ``layout``, ``accesses`` (``AccessExplanation``),
    ``consumers`` (``[(name, Verdict)]``), ``in_space`` (the candidate equal to the layout, or None)."""

    def __init__(self, layout, accesses, consumers, in_space):
        self.layout, self.accesses, self.consumers, self.in_space = layout, accesses, consumers, in_space

    @property
    def conflicting(self):
        return [a for a in self.accesses if a.degree > 1]

    def to_json(self):
        return {"layout": str(self.layout), "in_space": self.in_space.params() if self.in_space else None,
                "accesses": [a.to_json() for a in self.accesses],
                "consumers": [{"consumer": w, "verdict": v.to_json()} for w, v in self.consumers]}

    def __str__(self):
        lines = [f"smem layout {self.layout}"]
        if self.in_space is not None:
            lines.append(f"  = {self.in_space.describe()}")
        lines += ["  " + str(a).replace("\n", "\n  ") for a in self.accesses]
        lines += [f"  {w}: {'legal' if v.proved else 'ILLEGAL: ' + str(v.reason)}" for w, v in self.consumers]
        return "\n".join(lines)

    __repr__ = __str__


def _changes(a, b):
    out = []
    if a.swizzle != b.swizzle:
        out.append(f"swizzle {a.swizzle or 'none'} -> {b.swizzle or 'none'}")
    if a.atom != b.atom:
        out.append(f"atom {a.atom} -> {b.atom}")
    if a.major != b.major:
        out.append(f"major {a.major} -> {b.major}")
    if a.order != b.order:
        out.append(f"tile order {a.order} -> {b.order}")
    if a.pad != b.pad:
        out.append(f"pad {a.pad} -> {b.pad}")
    return out


def user_layout(layout, prob):
    """``(layout, offset table)`` of a user's smem layout for the problem (read by ``as_layout``: its ParseError
    when it is not a layout); SynthError when it does not have the tile's size or reaches a negative offset."""
    layout = as_layout(layout)
    user = layout_values(layout)
    if user.shape[0] != prob.n:
        raise SynthError(f"layout {layout} has {user.shape[0]} elements, the tile {prob.tile} has {prob.n}")
    if user.size and user.min() < 0:
        raise SynthError(f"layout {layout} reaches offset {int(user.min())}: an smem layout's offsets are not "
                         "negative")
    return layout, user


def explain_smem_layout(layout, tile, dtype="bf16", writes=(), reads=(), require=(), allow_padding=False,
                        swizzles=None) -> Explanation:
    """For ``layout`` (a cuteverify layout of ``tile``), each access's degree, witness and nearest fix (module
    docstring). Accesses and requirements as for ``synthesize_smem_layout``."""
    prob = make_problem(tile, dtype, writes, reads, require)
    layout, user = user_layout(layout, prob)
    proofs = access_proofs(layout, prob)
    for a, bv, _ in proofs:  # no degree to explain: the layout makes the access impossible to issue
        if bv.degree is None:
            raise SynthError(f"access {a.name!r}: {bv.reason}")
    cons = consumer_proofs(layout, prob)
    if swizzles is not None and not all(isinstance(sw, (tuple, list)) and len(sw) == 3 for sw in swizzles):
        raise SynthError(f"swizzles: {swizzles!r}: element-level (B, M, S) triples")
    cands = enumerate_space(prob.tile, prob.bits, allow_padding, swizzles)
    scores, _, _ = score_space(prob, cands, prune=False)
    tables = {c.index: layout_values(c.layout) for c in cands}
    in_space = next((c for c in cands if np.array_equal(tables[c.index], user)), None)
    user_deg = [bv.degree for _, bv, _ in proofs]
    legal = [s for s in scores if s.legal and s.same_as is None]
    out = []
    for i, (a, bv, vv) in enumerate(proofs):
        # the candidates that keep every other access at most as bad as on the user's layout
        eligible = [s for s in legal if all(d <= u for j, (d, u) in enumerate(zip(s.degrees, user_deg)) if j != i)]
        mind = min((s.degrees[i] for s in eligible), default=None)
        fix = None
        if bv.degree > 1 and mind is not None and mind < bv.degree:
            best = None
            for s in eligible:
                if s.degrees[i] != mind:
                    continue
                c = cands[s.cand]
                key = (float(np.mean(tables[c.index] != user)), c.simplicity())
                if best is None or key < best[0]:
                    best = (key, c, s)
            (dist, _), c, s = best
            fix = Fix(c, dist, list(s.degrees), _changes(in_space, c) if in_space is not None else [],
                      removes=mind == 1)
        wrap = _wrap(layout, user, prob, i, user_deg) if bv.degree > 1 else None
        out.append(AccessExplanation(a.name, bv, vv, fix, mind, wrap))
    return Explanation(layout, out, cons, in_space)


def _wrap(layout, user, prob, i, user_deg):
    """The swizzle ``Sw`` (B = 1..3, any M, S = B..7 within the layout's offsets) of least distance (then fewest
    bits) with ``Sw o layout`` conflict-free on access ``i``, no other access worse, legal for every consumer
    and still bijective onto the user's offsets (a swizzle permutes each aligned block of ``2^(B+M+S)``, so
    that holds when the offsets fill whole blocks). Plain layouts only: a composed one already has a swizzle
    (Sw2 o Sw1 is not one swizzle). None when no such swizzle exists."""
    if not isinstance(layout, Layout) or isinstance(layout, ComposedLayout) or not user.size:
        return None
    top = int(user.max()).bit_length()
    vals = np.sort(user)
    best = None
    for b in (1, 2, 3):
        for s in range(b, 8):
            for m in range(max(0, top - b - s) + 1):
                sw = Swizzle(b, m, s)
                sv = sw(user)  # the one swizzle function, elementwise on the numpy table
                if not np.array_equal(np.sort(sv), vals):
                    continue
                degs = []
                for j in range(len(prob.threads)):
                    ok, _, _, fn = access_numbers(prob, j, sv)
                    if not ok:
                        break
                    degs.append(fn())
                if len(degs) != len(prob.threads) or degs[i] != 1 or any(
                        d > u for j, (d, u) in enumerate(zip(degs, user_deg)) if j != i):
                    continue
                key = (float(np.mean(sv != user)), b, s, m)
                if best is not None and key >= best[0]:
                    continue
                wrapped = ComposedLayout(sw, 0, layout)
                if all(consumer_legality(wrapped, prob, k, mj)[0] for k, mj in prob.consumers):
                    best = (key, Wrap(sw, wrapped, key[0], degs))
    return best[1] if best else None
