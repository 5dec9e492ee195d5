"""Complement (ALGEBRA.md section 3; Shah Def. 2.5)."""
from __future__ import annotations

from ..core.layout import Layout, cosize
from ..core.tuples import flatten, product
from ..errors import NotAdmissibleError
from ..symbolic import decide
from ..symbolic.conditions import Condition
from ._op import exact_div, mode_text, operation
from .coalesce import coalesce_flat


@operation
def complement(layout, cotarget=None):
    """The ordered layout ``R`` that fills what ``layout`` leaves out of ``[0, cotarget)``.

    Definition: drop stride-0 and size-1 modes, sort the rest by stride; with ``cur = 1``, each mode
    ``s:d`` contributes ``d/cur : cur`` and sets ``cur = d*s``; finally ``ceil(cotarget/cur) : cur``;
    coalesce. ``cotarget`` defaults to ``cosize(layout)``; a shape means its size.
    Admissibility: strides non-negative integers and ``cur`` divides each sorted stride in turn (so the
    layout is injective and its modes nest). CUTLASS truncates here; we refuse.
    Post-condition: ``image(R)`` meets ``image(layout)`` only at 0; ``R`` is ordered (strictly increasing);
    ``(layout, R)`` is a bijection onto ``[0, size(layout)*size(R))``, which covers ``[0, cotarget)``.
    """
    if hasattr(layout, "outer"):
        raise NotAdmissibleError("complement", "a swizzled layout has no complement; take it of the inner layout")
    if cotarget is None:
        cotarget = cosize(layout)
    elif type(cotarget) is tuple:
        cotarget = product(cotarget)
    if type(cotarget) is int:
        if cotarget <= 0:
            raise NotAdmissibleError("complement", f"the cotarget must be a positive size, got {cotarget}")
    elif hasattr(cotarget, "free_symbols"):
        decide.require(decide.lt(0, cotarget), Condition("lt", 0, cotarget), "complement",
                       "the cotarget must be a positive size")
    fs, fd = flatten(layout.shape), flatten(layout.stride)
    if type(cotarget) is int and all(type(x) is int for x in fs) and all(type(x) is int for x in fd):
        s, d = _complement_ints(fs, fd, cotarget)
        return Layout._make(s, d)
    modes = []
    for s, d in zip(flatten(layout.shape), flatten(layout.stride)):
        if hasattr(d, "path"):
            raise NotAdmissibleError("complement", "coordinate (E<i>) strides have no complement",
                                     mode_text(s, d))
        if type(d) is int and type(s) is int:
            if d < 0 and s != 1:
                raise NotAdmissibleError("complement", "strides must be non-negative", mode_text(s, d))
            if d == 0 or s == 1:
                continue
        else:
            # drop size-1 and stride-0 modes, as the concrete construction does; where that is undecided,
            # keep the mode and claim the result only where it is non-trivial
            unit = (s == 1) if type(s) is int else decide.is_one(s)
            zero = decide.is_zero(d)
            if unit is True or zero is True:
                continue
            positive = decide.lt(0, d)
            if positive is False:
                # a negative stride is harmless only on a size-1 mode, which is dropped
                decide.require(None if unit is None else False, Condition("eq", s, 1), "complement",
                               "strides must be non-negative", mode_text(s, d))
                continue
            if unit is None:
                decide.obligate(Condition("ne", s, 1), "complement treats a mode of unknown size as non-trivial")
            if zero is None:
                decide.obligate(Condition("ne", d, 0), "complement treats a mode of unknown stride as non-trivial")
            decide.require(positive, Condition("lt", 0, d), "complement", "strides must be positive",
                           mode_text(s, d))
        modes.append((s, d))
    if all(type(d) is int for _, d in modes):
        modes.sort(key=lambda m: (m[1], m[0]) if type(m[0]) is int else (m[1], 0))
    else:
        modes = _sorted_symbolic(modes)
    shapes, strides = [], []
    cur = 1
    for s, d in modes:
        if type(d) is int and type(cur) is int:
            if d % cur:
                why = "the layout is not injective (its modes overlap)" if d < cur else \
                    f"stride {d} is not a multiple of {cur}, the extent of the smaller modes"
                raise NotAdmissibleError("complement", why, mode_text(s, d))
            shapes.append(d // cur)
        else:
            decide.require(decide.divides(cur, d), Condition("divides", cur, d), "complement",
                           "each stride must be a multiple of the extent of the smaller modes", mode_text(s, d))
            shapes.append(exact_div(d, cur))
        strides.append(cur)
        cur = d * s
    if type(cotarget) is int and type(cur) is int:
        rest = -(-cotarget // cur)
    elif decide.le(cotarget, cur) is True:
        rest = 1
    elif decide.suppose(decide.divides(cur, cotarget), Condition("divides", cur, cotarget),
                        "complement's last mode is exact when the extent divides the cotarget"):
        rest = exact_div(cotarget, cur)
    else:
        import sympy
        rest = sympy.ceiling(sympy.sympify(cotarget) / cur)
    shapes.append(rest)
    strides.append(cur)
    s, d = coalesce_flat(shapes, strides)
    return Layout._make(s, d)


def _complement_ints(fs, fd, cotarget):
    """The same construction on plain ints, without the decision interface (the concrete fast path)."""
    modes = sorted((d, s) for s, d in zip(fs, fd) if d != 0 and s != 1)
    shapes, strides = [], []
    cur = 1
    for d, s in modes:
        if d < 0:
            raise NotAdmissibleError("complement", "strides must be non-negative", mode_text(s, d))
        if d % cur:
            why = "the layout is not injective (its modes overlap)" if d < cur else \
                f"stride {d} is not a multiple of {cur}, the extent of the smaller modes"
            raise NotAdmissibleError("complement", why, mode_text(s, d))
        shapes.append(d // cur)
        strides.append(cur)
        cur = d * s
    shapes.append(-(-cotarget // cur))
    strides.append(cur)
    return coalesce_flat(shapes, strides)


def _sorted_symbolic(modes):
    """Insertion sort by stride with every comparison decided under the assumptions."""
    out = []
    for m in modes:
        i = len(out)
        while i > 0 and decide.decided(decide.lt(m[1], out[i - 1][1]),
                                       f"whether stride {m[1]} < {out[i - 1][1]} (complement sorts by stride)"):
            i -= 1
        out.insert(i, m)
    return out


__all__ = ["complement"]
