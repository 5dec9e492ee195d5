"""``layout_add`` and ``greatest_common_domain`` (the NVlabs reference's operations on two layouts over one
domain)."""
from __future__ import annotations

import math

from ..core.layout import Layout, size
from ..core.strides import F2, ScaledBasis
from ..core.tuples import flatten
from ..errors import NotAdmissibleError, UndecidedError
from ..symbolic import decide
from ..symbolic.conditions import Condition
from ._op import exact_div, operation, split_cases
from .coalesce import coalesce, coalesce_flat


def greatest_common_domain(a, b):
    """The common factors of two shapes that sit, in order, inside one leaf of each: a flat layout ``G`` of
    indices (shared by both domains) on which both layouts are linear leaf by leaf.

    Definition (the NVlabs reference's walk). Read each shape as its leaves in order (size-1 leaves skipped),
    each leaf ``s`` at position ``p`` (the prefix product before it) covering the indices ``p*c``, ``c < s``.
    Walk both leaf lists with the part of the current leaf not yet used, starting at position ``pa`` (resp.
    ``pb``); the next common factor can only start at ``o = lcm(pa, pb)``: where ``o/pa`` divides the
    unused extent ``ra`` of A's leaf and ``o/pb`` that of B's, ``g = gcd(ra/(o/pa), rb/(o/pb))``; if ``g > 1``
    it is a leaf ``g:o`` of ``G``, both leaves lose the used part and continue at position ``o*g``.
    Otherwise the leaf that ends first (its end ``p*r`` divides the other's end) is left; where neither end
    divides the other, both are. No common factor gives ``(1):(0)``. ``G`` is always a tuple (depth 1):
    ``greatest_common_domain((5,3,4), (10,6))`` is ``(5,2):(1,30)``, ``((6,35), (15,14))`` gives
    ``(3,7):(1,30)``.
    Arguments: shapes (ints or tuples) or layouts (their shapes; a composed layout: its outer layout's).
    Valid for: concrete shapes only (the walk takes gcds and lcms of extents); symbolic ones are refused.
    Post-condition: ``G`` has depth 1 and is the same for ``(a, b)`` and ``(b, a)``; ``size(G)`` divides
    ``gcd(size(a), size(b))``; each leaf ``g:o`` of ``G`` lies inside one leaf ``s`` at position ``p`` of each
    shape (``p | o`` and ``(o/p)*g | s``), so composing either layout with ``G`` is admissible; ``size(G) ==
    size(a)`` exactly where ``a`` and ``b`` have a common refinement (the positions of both shapes' leaves form
    one chain under divisibility), and then ``G`` is the compact layout of that refinement.
    """
    fa, fb = _flat_shape(a, "first"), _flat_shape(b, "second")
    shapes, offsets = _common_factors(fa, fb)
    if not shapes:
        return Layout._make((1,), (0,))
    return Layout._make(tuple(shapes), tuple(offsets))


def _flat_shape(x, which):
    if hasattr(x, "outer"):
        x = x.outer
    s = x.shape if isinstance(x, Layout) else x
    leaves = flatten(s) if type(s) is tuple else (s,)
    for v in leaves:
        if type(v) is not int:
            raise NotAdmissibleError("greatest_common_domain", f"the {which} shape has a symbolic or non-integer "
                                     f"extent {v!r}; the walk needs concrete extents (it takes gcds and lcms)")
        if v <= 0:
            raise NotAdmissibleError("greatest_common_domain", f"the {which} shape has a non-positive extent {v}")
    return [v for v in leaves if v != 1]


def _common_factors(fa, fb):
    shapes, offsets = [], []
    i = j = 0
    pa = pb = 1
    ra = fa[0] if fa else 1
    rb = fb[0] if fb else 1
    while i < len(fa) and j < len(fb):
        o = pa * pb // math.gcd(pa, pb)
        ka, kb = o // pa, o // pb
        if ra % ka == 0 and rb % kb == 0:
            g = math.gcd(ra // ka, rb // kb)
            if g > 1:
                shapes.append(g)
                offsets.append(o)
                ra //= ka * g
                rb //= kb * g
                pa = pb = o * g
                continue
        ea, eb = pa * ra, pb * rb
        left_a, left_b = eb % ea == 0, ea % eb == 0
        if left_a or not left_b:
            pa, i = ea, i + 1
            ra = fa[i] if i < len(fa) else 1
        if left_b or not left_a:
            pb, j = eb, j + 1
            rb = fb[j] if j < len(fb) else 1
    return shapes, offsets


@operation
def layout_add(a, b):
    """The layout ``R`` with ``R(i) == A(i) + B(i)`` for every ``i < size(A)``.

    Definition: coalesce both; their leaves start at the positions ``P_A`` (prefix products of A's
    coalesced shape) and ``P_B``. Where ``P_A`` and ``P_B`` together form one chain under divisibility
    (sorted, each divides the next), the chain's quotients are a common refinement of both shapes: a factor
    from position ``q`` to ``q'`` lies inside one leaf ``s:d`` at position ``p`` of A, where A is ``c*d*(q/p)``,
    and likewise in B; ``R`` has that factor with stride ``d_A*(q/p_A) + d_B*(q/p_B)``, coalesced. This is the
    NVlabs reference's construction (its ``greatest_common_domain`` of the coalesced shapes has size
    ``size(A)`` exactly where the chain exists).
    Admissibility: ``size(A) == size(B)``; the positions form a chain (else refused: A and B have no common
    refinement, and the sum of the two need not be a layout); strides in one domain that adds: integers
    (concrete or symbolic), or coordinate (E<i>) strides where each factor's two strides are along the same
    coordinate or one is 0. F2 (``^v``) strides are refused (``c*a XOR c*b`` is not ``c*(a XOR b)``), and so are
    composed (swizzled) layouts. Symbolic extents: divisibility decided from the assumptions (case split or
    refusal naming the assumption where it is open).
    Post-condition: ``size(R) == size(A)``, ``R(i) == A(i) + B(i)`` for ``i < size(R)``;
    ``layout_add(A, B) == layout_add(B, A)``.
    """
    for x, which in ((a, "first"), (b, "second")):
        if not isinstance(x, Layout):
            raise NotAdmissibleError("layout_add", f"the {which} argument must be a plain layout (a composed or "
                                     f"swizzled layout has no stride to add), got {x}")
    sa, sb = size(a), size(b)
    decide.require(decide.eq(sa, sb), Condition("eq", sa, sb), "layout_add",
                   f"the layouts must have the same size ({sa} and {sb})")
    ca, cb = _leaf_list(a), _leaf_list(b)
    for s, d, _ in ca + cb:
        if type(d) is F2:
            raise NotAdmissibleError("layout_add", "F2 (^v) strides do not add leaf by leaf (c*a XOR c*b is not "
                                     "c*(a XOR b))", f"{s}:{d}")
    chain = _chain(_positions(ca), _positions(cb), a, b)
    shapes, strides = [], []
    for (q, ia, ib), (q2, _, _) in zip(chain, chain[1:]):
        shapes.append(exact_div(q2, q))
        strides.append(_add(_scaled(ca[ia], q), _scaled(cb[ib], q), a, b))
    if not shapes:
        return Layout._make(1, 0)
    return coalesce(Layout._make(tuple(shapes), tuple(strides)))


def _leaf_list(x):
    """The coalesced leaves ``(size, stride, position)`` (size-1 leaves left out)."""
    s, d = coalesce_flat(flatten(x.shape), flatten(x.stride))
    pairs = list(zip(s, d)) if type(s) is tuple else [(s, d)]
    out, p = [], 1
    for s, d in pairs:
        if type(s) is int and s == 1:
            continue
        out.append((s, d, p))
        p = p * s
    return out


def _positions(leaves):
    """Where the leaves start, then the end (the size)."""
    return [p for _, _, p in leaves] + [leaves[-1][2] * leaves[-1][0] if leaves else 1]


def _chain(pa, pb, a, b):
    """``pa`` and ``pb`` (each a chain from 1 to the size) merged into one chain ``[(q, ia, ib), ...]``: each
    position with the leaf of A and of B that the factor starting there lies in; refused where there is none."""
    out = [(1, 0, 0)]
    i = j = 1
    while i < len(pa) and j < len(pb):
        x, y = pa[i], pb[j]
        if decide.eq(x, y):
            i, j = i + 1, j + 1
        else:
            x_first, y_first = decide.divides(x, y), decide.divides(y, x)
            if x_first:
                i += 1
            elif y_first:
                x = y
                j += 1
            elif x_first is False and y_first is False:
                raise NotAdmissibleError("layout_add", f"the coalesced layouts {coalesce(a)} and {coalesce(b)} have "
                                         f"no common refinement: a leaf boundary at {x} in one and {y} in the other, "
                                         "neither dividing the other (the sum need not be a layout)")
            else:
                cond = Condition("divides", x, y)
                split_cases(cond)
                raise UndecidedError(f"layout_add needs to know whether {x} | {y} or {y} | {x} (where the leaves "
                                     f"of {a} and {b} meet); add an assumption that decides it")
        out.append((x, i - 1, j - 1))
    return out


def _scaled(leaf, q):
    """The stride of the factor starting at position ``q`` inside ``leaf`` (at position ``p``): ``d*(q/p)``."""
    _, d, p = leaf
    if type(d) is int and d == 0:
        return 0
    return d * exact_div(q, p)


def _add(x, y, a, b):
    if type(x) is int and x == 0:
        return y
    if type(y) is int and y == 0:
        return x
    bx, by = isinstance(x, ScaledBasis), isinstance(y, ScaledBasis)
    if bx and by and x.path == y.path:
        return ScaledBasis(x.value + y.value, x.path)
    if bx or by:
        raise NotAdmissibleError("layout_add", f"the strides {x} and {y} do not add to one stride (a sum along "
                                 "two coordinates, or of a coordinate and an integer)", f"{a} + {b}")
    return x + y


__all__ = ["layout_add", "greatest_common_domain"]
