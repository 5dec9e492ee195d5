"""Exact decision procedures for concrete integer layouts ``x -> const + sum_k digit_k(x) * d_k``.

Everything here is exact or says it ran out of budget (``BUDGET``); nothing guesses.

* ``sorted_strides_injective``: sort the non-trivial modes by ``|d|``; if every ``|d_i|`` exceeds the
  largest value the smaller modes can reach, ``sum_{j<i} (s_j - 1) |d_j|``, the layout is injective (take
  the largest mode where two coordinates differ: its term outweighs all the others).
* ``find_collision``: a non-zero ``delta`` with ``|delta_k| < s_k`` and ``sum delta_k d_k == 0`` by a
  depth-first search from the largest stride, pruned by the reachable range of the smaller modes and by
  their gcd, memoised; exhausting the search proves injectivity.
* ``find_preimage``: a coordinate with a given value (same search with ``0 <= c_k < s_k``).
* ``smallest_missed``: for non-negative strides the image is ``[0, R]`` up to the first sorted mode whose
  stride exceeds ``R + 1`` (R = reach of the smaller modes), and ``R + 1`` is never reached.
"""
from __future__ import annotations

import itertools

from math import gcd

from ..errors import OutOfBudget

BUDGET = "budget"  # what a search returns when it ran out of its budget (raised inside as OutOfBudget)


class Flat:
    """Flat concrete integer layout: leaf shapes/strides (all leaves, size-1 included) and a constant."""

    __slots__ = ("shapes", "strides", "const", "prefix", "size", "ignore")

    def __init__(self, shapes, strides, const=0, ignore=()):
        self.ignore = frozenset(ignore)   # positions held at digit 0 (modes of other coordinates)
        self.shapes = list(shapes)
        self.strides = list(strides)
        self.const = const
        self.prefix = []
        p = 1
        for s in self.shapes:
            self.prefix.append(p)
            p *= s
        self.size = p

    def index(self, digits):
        return sum(c * p for c, p in zip(digits, self.prefix))

    def digits(self, idx):
        out = []
        for s in self.shapes:
            out.append(idx % s)
            idx //= s
        return out

    def value_at(self, idx):
        return self.const + sum(c * d for c, d in zip(self.digits(idx), self.strides))

    def active(self):
        """(position, shape, stride) of the modes with size > 1."""
        return [(k, s, d) for k, (s, d) in enumerate(zip(self.shapes, self.strides))
                if s != 1 and k not in self.ignore]

    def value_range(self):
        lo = hi = self.const
        for s, d in zip(self.shapes, self.strides):
            if d < 0:
                lo += (s - 1) * d
            else:
                hi += (s - 1) * d
        return lo, hi



def _reach_and_gcd(modes):
    """For modes sorted by |stride| (``(a, s, ...)``): the largest value the smaller modes reach before
    each one, and the gcd of the strides up to it (the pruning tables of the exhaustive searches)."""
    reach, g = [], []
    r, gg = 0, 0
    for a, s, *_ in modes:
        reach.append(r)
        gg = gcd(gg, a)
        g.append(gg)
        r += (s - 1) * a
    return reach, g

def enumerate_collision(values):
    """``None`` if the table ``values`` (a layout's ``values()``) has no repeated entry, else ``(i, j)`` two
    indices with the same value (exhaustive)."""
    seen = {}
    for i, v in enumerate(values):
        j = seen.get(v)
        if j is not None:
            return (j, i)
        seen[v] = i
    return None


def sorted_strides_injective(flat: Flat) -> bool:
    modes = sorted((abs(d), s) for _, s, d in flat.active())
    reach = 0
    for a, s in modes:
        if a <= reach:
            return False
        reach += (s - 1) * a
    return True


def zero_stride_collision(flat: Flat):
    for k, s, d in flat.active():
        if d == 0:
            return (0, flat.prefix[k])
    return None


def _nearest_first(lo, hi, t, a):
    """``v`` in ``[lo, hi]`` ordered by ``(|t - v*a|, v)``, lazily: the range may hold billions of values
    (a mode of extent 2**32), of which the search budget visits a few. ``|t - v*a|`` falls up to ``t // a``
    and rises after it, so two cursors walking outwards from there meet the values in order."""
    c = min(max(t // a, lo), hi)
    left, right = c, c + 1
    while left >= lo or right <= hi:
        if right > hi or (left >= lo and (abs(t - left * a), left) <= (abs(t - right * a), right)):
            yield left
            left -= 1
        else:
            yield right
            right += 1


def find_collision(flat: Flat, budget=200_000):
    """``None`` (injective, proved by exhaustive search), ``(i, j)`` colliding indices, or ``BUDGET``."""
    z = zero_stride_collision(flat)
    if z is not None:
        return z
    modes = sorted(((abs(d), s, k, 1 if d > 0 else -1) for k, s, d in flat.active()))
    n = len(modes)
    if n == 0:
        return None
    reach, g = _reach_and_gcd(modes)
    failed = set()
    counter = [budget]
    delta = [0] * n

    def dfs(i, t, started):
        if i < 0:
            return t == 0 and started
        if t % g[i]:
            return False
        key = (i, t, started)
        if key in failed:
            return False
        counter[0] -= 1
        if counter[0] < 0:
            raise OutOfBudget
        a, s, _, _ = modes[i]
        R = reach[i]
        lo = max(-((R - t) // a), -(s - 1))      # ceil((t - R) / a)
        hi = min((t + R) // a, s - 1)
        if not started:
            lo = max(lo, 0)
        if lo <= hi:
            cands = _nearest_first(lo, hi, t, a)
            if not started and lo <= 0 <= hi:
                cands = itertools.chain((v for v in cands if v != 0), (0,))
            for v in cands:
                delta[i] = v
                if dfs(i - 1, t - v * a, started or v != 0):
                    return True
            delta[i] = 0
        failed.add(key)
        return False

    try:
        ok = dfs(n - 1, 0, False)
    except OutOfBudget:
        return BUDGET
    if not ok:
        return None
    x = [0] * len(flat.shapes)
    y = [0] * len(flat.shapes)
    for i, (a, s, k, sign) in enumerate(modes):
        dv = delta[i] * sign
        if dv > 0:
            x[k] = dv
        else:
            y[k] = -dv
    return (flat.index(x), flat.index(y))


def find_preimage(flat: Flat, value, budget=200_000):
    """An index mapping to ``value``, ``None`` if there is none (exhaustive), or ``BUDGET``."""
    t = value - flat.const
    modes = []
    for k, s, d in flat.active():
        if d == 0:
            continue
        if d < 0:
            t -= (s - 1) * d     # c*d = (s-1)*d + c'*|d| with c' = s-1-c
        modes.append((abs(d), s, k, d < 0))
    modes.sort()
    n = len(modes)
    reach, g = _reach_and_gcd(modes)
    failed = set()
    counter = [budget]
    digit = [0] * n

    def dfs(i, t):
        if i < 0:
            return t == 0
        if t < 0 or t > reach[i] + (modes[i][1] - 1) * modes[i][0]:
            return False
        if t % g[i]:
            return False
        key = (i, t)
        if key in failed:
            return False
        counter[0] -= 1
        if counter[0] < 0:
            raise OutOfBudget
        a, s, _, _ = modes[i]
        lo = max(-((reach[i] - t) // a), 0)
        hi = min(t // a, s - 1)
        for v in range(hi, lo - 1, -1):
            digit[i] = v
            if dfs(i - 1, t - v * a):
                return True
        failed.add(key)
        return False

    try:
        ok = dfs(n - 1, t)
    except OutOfBudget:
        return BUDGET
    if not ok:
        return None
    c = [0] * len(flat.shapes)
    for i, (a, s, k, neg) in enumerate(modes):
        c[k] = (s - 1 - digit[i]) if neg else digit[i]
    return flat.index(c)


def smallest_missed(flat: Flat):
    """``(shift, m, reach)``: image = shift + I where I (strides made positive) contains ``[0, m)`` and not
    ``m``; ``m is None`` when I is exactly the interval ``[0, reach]``."""
    shift = flat.const
    modes = []
    for _, s, d in flat.active():
        if d == 0:
            continue
        if d < 0:
            shift += (s - 1) * d
        modes.append((abs(d), s))
    modes.sort()
    R = 0
    for a, s in modes:
        if a > R + 1:
            return shift, R + 1, R
        R += (s - 1) * a
    return shift, None, R


def surjective_onto(flat: Flat, n):
    """``None`` if ``[0, n)`` is inside the image, a value of ``[0, n)`` never reached, or ``BUDGET``."""
    if n <= 0:
        return None
    shift, m, R = smallest_missed(flat)
    if shift > 0:
        return 0
    if m is None:
        top = shift + R
        return None if top >= n - 1 else top + 1
    if shift + m < 0:
        return BUDGET  # the first gap lies below 0: the structure above it is not known here
    if shift + m < n:
        return shift + m
    return None


__all__ = ["Flat", "BUDGET", "enumerate_collision", "sorted_strides_injective", "find_collision", "find_preimage",
           "smallest_missed", "surjective_onto", "zero_stride_collision"]
