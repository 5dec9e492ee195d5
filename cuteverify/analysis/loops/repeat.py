"""No repeated element (paper section 1.2): does a loop nest's layout touch any element twice?

``no_repeat(layout, nest)`` decides it for the layout of a nest (``nest``: its ``LoopLayout``, or ``None`` for
a bare layout, whose witnesses are then coordinate tuples). Every symbolic question goes through the decision
interface (``symbolic.decide``) under the layout's assumptions; what the stride tests and enumeration leave
open goes to the prover's ``is_injective``, whose witness is re-evaluated before it is reported.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from ...core.layout import Layout
from ...core.tuples import flatten
from ...prover import is_injective
from ...prover.verdict import Collision, Verdict, jsonable
from ...symbolic import decide, normalize, symbol
from ...symbolic.lazy import sympy
from .parse import sign

__all__ = ["NoRepeat", "no_repeat", "ENUMERATION_LIMIT"]

#: Largest iteration space enumerated exactly by ``check_no_repeat``.
ENUMERATION_LIMIT = 1 << 22


@dataclass(frozen=True, eq=False, kw_only=True)
class NoRepeat(Verdict):
    """A prover ``Verdict`` on "the nest touches no element twice", with the collision in the loops' terms.

    ``status`` (also ``verdict``, the name this result had before it was a ``Verdict``): ``proved`` (no element
    touched twice), ``refuted`` or ``unknown`` (``reason`` says why). A refutation carries ``witness``: the two
    iterations, as ``{var: value}`` dicts in the loops' own variables (outermost first), or coordinate tuples
    (mode 0 first) for a bare layout; ``offset``: the element both touch; ``assignment``: symbol values the
    collision needs. ``counterexample`` is the same collision as a ``Counterexample`` (kind ``collision``,
    ``coords`` the two canonical coordinates, ``values`` the offset twice).
    """

    witness: tuple | None = None
    offset: object = None
    assignment: dict = field(default_factory=dict)

    @classmethod
    def of(cls, status, method, reason="", witness=None, offset=None, assignment=None, claim="", coords=None,
           elapsed=0.0) -> "NoRepeat":
        """The result with its ``counterexample`` built from ``witness`` (the collision of two iterations at
        ``offset``, ``coords`` their canonical coordinates) when there is one."""
        cex = None
        if witness is not None:
            cex = Collision(coords=coords or (), values=(offset, offset), assignment=assignment,
                            natural=tuple(tuple(w.values()) if isinstance(w, dict) else w for w in witness))
        return cls(status, claim=claim, method=method, counterexample=cex, reason=reason or None, elapsed=elapsed,
                   witness=witness, offset=offset, assignment=dict(assignment or {}))

    @property
    def verdict(self) -> str:
        return self.status

    def to_json(self):
        d = super().to_json()
        d.update({"witness": jsonable(self.witness), "offset": jsonable(self.offset),
                  "assignment": jsonable(self.assignment)})
        return d

    def __str__(self):
        s = f"{self.status} ({self.method})"
        if self.witness is not None:
            a, b = self.witness
            s += f": iterations {_fmt_iter(a)} and {_fmt_iter(b)} both touch offset {self.offset}"
            if self.assignment:
                s += " with " + ", ".join(f"{k}={v}" for k, v in sorted(self.assignment.items()))
        elif self.reason:
            s += f": {self.reason}"
        return s

    __repr__ = __str__


def _fmt_iter(it):
    if isinstance(it, dict):
        return "(" + ", ".join(f"{k}={v}" for k, v in it.items()) + ")"
    return str(it)


def no_repeat(layout: Layout, nest=None, *, limit: int = ENUMERATION_LIMIT, use_prover: bool = True) -> NoRepeat:
    """Does ``layout`` (the layout of the loop nest ``nest``, a ``LoopLayout``, or a bare layout when ``nest`` is
    ``None``) map two iterations to one element?

    Exact for concrete strides: a stride-0 loop refutes at once; a stride chain (sorted ``|d_k|`` each past the
    span of the smaller ones) proves; otherwise enumeration up to ``limit`` iterations, then the prover
    (``cuteverify.prover.is_injective``), else ``unknown``. Symbolic strides: the chain test under the layout's
    assumptions, then the prover, else ``unknown``. A refutation names the two iterations in the loops' own
    variables (coordinate tuples for a bare layout).
    """
    t0 = time.perf_counter()
    with decide.context(getattr(layout, "assumptions", None)):
        r = _decide(layout, nest, limit, use_prover)
    return replace(r, claim=f"no element touched twice: {nest.accessor if nest is not None else 'A'}[{layout}]",
                   elapsed=time.perf_counter() - t0)


def _decide(layout, nest, limit, use_prover):
    shapes = list(flatten(layout.shape))
    strides = list(flatten(layout.stride))
    method = "stride"

    def wit(ca, cb, off):
        coords = (tuple(ca), tuple(cb))
        if nest is not None:
            return NoRepeat.of("refuted", method, witness=(nest.coords_of(ca), nest.coords_of(cb)),
                            offset=normalize(nest.offset + off), coords=coords)
        return NoRepeat.of("refuted", method, witness=coords, offset=off, coords=coords)

    sizes_known = all(type(s) is int for s in shapes)
    if sizes_known and (any(s == 0 for s in shapes) or all(s <= 1 for s in shapes)):
        return NoRepeat.of("proved", "trivial", "at most one iteration")
    # a loop with stride 0 and more than one iteration
    for r, (s, d) in enumerate(zip(shapes, strides)):
        if decide.is_zero(d) is True and decide.le(2, s) is True:
            ca = [0] * len(shapes)
            cb = list(ca)
            cb[r] = 1
            return replace(wit(ca, cb, 0), reason=f"loop mode {r} has stride 0")
    method = "stride chain"
    if _chain(shapes, strides):
        return NoRepeat.of("proved", method, "each loop's stride exceeds the span of the faster ones")
    concrete = sizes_known and all(type(d) is int for d in strides)
    total = 1
    if concrete:
        for s in shapes:
            total *= s
        if total <= limit:
            method = "enumeration"
            return _enumerate(shapes, strides, wit)
    if use_prover:
        r = _prover(layout, nest)
        if r is not None:
            return r
    if concrete:
        return NoRepeat.of("unknown", "enumeration", f"{total} iterations exceed the enumeration limit {limit} "
                                                  "and the prover did not settle it")
    return NoRepeat.of("unknown", "symbolic", "the strides are symbolic and the stride-chain test does not settle "
                                           "it; substitute values to decide")


def _chain(shapes, strides) -> bool:
    """Sufficient for no repeat: some order of the modes in which each stride magnitude exceeds the span of
    the modes before it."""
    mags = []
    for d in strides:
        sg = sign(d)
        if sg is None:
            return False
        mags.append(d if sg >= 0 else normalize(-d))
    n = len(shapes)
    if all(type(x) is int for x in shapes + mags):
        span = 0
        for r in sorted(range(n), key=lambda r: mags[r]):
            if shapes[r] <= 1:
                continue
            if mags[r] < span + 1:
                return False
            span += (shapes[r] - 1) * mags[r]
        return True
    if n > 7:  # the search below tries orders of the modes: keep it small
        return False

    def go(remaining, span):
        if not remaining:
            return True
        for r in remaining:
            if decide.le(normalize(span + 1), mags[r]) is True:
                if go([x for x in remaining if x != r], normalize(span + (shapes[r] - 1) * mags[r])):
                    return True
        return False

    return go(list(range(n)), 0)


def _enumerate(shapes, strides, wit):
    big = max((abs(d) * s for s, d in zip(shapes, strides)), default=0) * max(len(shapes), 1)
    dtype = np.int64 if big < (1 << 62) else object
    off = np.zeros(1, dtype=dtype)
    for s, d in zip(shapes, strides):
        off = (off[None, :] + (np.arange(s, dtype=dtype) * d)[:, None]).reshape(-1) if s > 1 else off
    # off is colexicographic: index i = c0 + N0*c1 + ...
    order = np.argsort(off, kind="stable")
    so = off[order]
    dup = np.nonzero(so[1:] == so[:-1])[0]
    if len(dup) == 0:
        return NoRepeat.of("proved", "enumeration", f"{len(off)} iterations, {len(off)} distinct offsets")
    i, j = int(order[dup[0]]), int(order[dup[0] + 1])
    i, j = min(i, j), max(i, j)
    return wit(_unravel(i, shapes), _unravel(j, shapes), int(off[i]))


def _unravel(i, shapes):
    out = []
    for s in shapes:
        s = max(s, 1)
        out.append(i % s)
        i //= s
    return out


def _prover(layout, nest):
    """The prover's answer as a ``NoRepeat``; its collision re-evaluated on the layout before it is reported."""
    try:
        v = is_injective(layout)
    except Exception as e:  # noqa: BLE001  (a prover failure is an unknown, not a crash)
        return NoRepeat.of("unknown", "prover", f"the prover failed: {type(e).__name__}: {e}")
    if v.status == "proved":
        return NoRepeat.of("proved", "prover", v.reason or "")
    if v.status != "refuted":
        return NoRepeat.of("unknown", "prover", v.reason or str(v))
    w = v.counterexample
    assignment = dict(w.assignment) if w is not None else {}
    lay = layout.subs(assignment) if assignment else layout
    # integer coordinates unravel over the instantiated extents (a symbolic extent has no digits)
    pair = _witness_pair(w, list(flatten(lay.shape)))
    if pair is not None:
        ca, cb = pair
        la, lb = _eval(lay, ca), _eval(lay, cb)
        if la is not None and la == lb and ca != cb:
            return _prover_refutation(nest, ca, cb, la, assignment)
    return NoRepeat.of("unknown", "prover", f"the prover refuted injectivity but its witness could not be "
                                         f"read as two iterations: {v}")


def _prover_refutation(nest, ca, cb, value, assignment):
    sub = {symbol(k): x for k, x in assignment.items()}
    off = nest.offset if nest is not None else 0
    if assignment and not isinstance(off, int):
        off = normalize(sympy.sympify(off).subs(sub))
    if nest is not None:
        witness = (nest.coords_of(ca), nest.coords_of(cb))
        if assignment:  # loop starts/steps may be symbolic too
            witness = tuple({k: normalize(sympy.sympify(x).subs(sub)) for k, x in it.items()} for it in witness)
    else:
        witness = (tuple(ca), tuple(cb))
    res = NoRepeat.of("refuted", "prover", witness=witness, offset=normalize(off + value), assignment=assignment,
                   coords=(tuple(ca), tuple(cb)))
    if assignment:
        return replace(res, reason="for " + ", ".join(f"{k}={v}" for k, v in sorted(assignment.items())))
    return res


def _witness_pair(w, shapes):
    """The prover's collision (integer coordinates, colexicographic) as two flat coordinate lists."""
    if w is None or len(w.coords) != 2:
        return None
    out = []
    for c in w.coords:
        if type(c) is int:
            out.append(_unravel(c, shapes))
            continue
        flat_c = list(flatten(c))
        if len(flat_c) != len(shapes):
            return None
        out.append([int(x) for x in flat_c])
    return out


def _eval(layout, c):
    total = 0
    for ci, d in zip(c, flatten(layout.stride)):
        total += ci * d
    return normalize(total)
