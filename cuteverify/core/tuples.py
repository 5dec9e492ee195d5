"""Hierarchical tuples (paper section 2.1): an HTuple is a leaf or a tuple of HTuples.

Leaves are plain ints, sympy expressions, or stride elements (``cuteverify.strides``). Everything here is
structural; arithmetic decisions live in ``cuteverify.decide``.
"""
from __future__ import annotations

from functools import reduce


def is_tuple(x) -> bool:
    return type(x) is tuple


def rank(x) -> int:
    """Tuple length; 1 for a leaf (Def. 2.2)."""
    return len(x) if type(x) is tuple else 1


def depth(x) -> int:
    """0 for a leaf, else 1 + max depth of the elements (Def. 2.2)."""
    if type(x) is tuple:
        return 1 + max((depth(e) for e in x), default=0)
    return 0


def flatten(x) -> tuple:
    """The leaves of ``x`` left to right, as a flat tuple."""
    if type(x) is not tuple:
        return (x,)
    for e in x:
        if type(e) is tuple:
            break
    else:
        return x
    out = []
    stack = [iter(x)]
    while stack:
        for e in stack[-1]:
            if type(e) is tuple:
                stack.append(iter(e))
                break
            out.append(e)
        else:
            stack.pop()
    return tuple(out)


def product(x):
    """Product of the leaves (size of a shape, Def. 2.5)."""
    if type(x) is not tuple:
        return x
    r = 1
    for e in flatten(x):
        r = r * e
    return r


def congruent(a, b) -> bool:
    """Same profile (Def. 2.3)."""
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b))
    return type(a) is not tuple and type(b) is not tuple


def weakly_congruent(a, b) -> bool:
    """``a`` coarsens the profile of ``b`` (Def. 2.4)."""
    if type(a) is not tuple:
        return True
    if type(b) is not tuple:
        return False
    return len(a) == len(b) and all(weakly_congruent(x, y) for x, y in zip(a, b))


def transform(x, f):
    """Apply ``f`` to every leaf, keeping the profile."""
    if type(x) is tuple:
        return tuple(transform(e, f) for e in x)
    return f(x)


def transform2(a, b, f):
    """Apply ``f`` to corresponding leaves of two congruent HTuples."""
    if type(a) is tuple:
        return tuple(transform2(x, y, f) for x, y in zip(a, b))
    return f(a, b)


def unflatten(flat, profile):
    """Rebuild the profile of ``profile`` from a flat sequence of leaves."""
    it = iter(flat)

    def go(p):
        if type(p) is tuple:
            return tuple(go(e) for e in p)
        return next(it)

    return go(profile)


def prefix_product(shape, init=1):
    """Exclusive colexicographic prefix product, hierarchical: ``(2,(3,4)) -> (1,(2,6))``."""
    if type(shape) is tuple:
        out = []
        cur = init
        for s in shape:
            out.append(prefix_product(s, cur))
            cur = cur * product(s)
        return tuple(out)
    return init


def fold(f, xs, init):
    return reduce(f, xs, init)
