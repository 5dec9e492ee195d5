"""Functional composition ``R = A o B`` (ALGEBRA.md section 3; Shah Def. 2.11-2.17, Thm 2.18)."""
from __future__ import annotations

from ..core.kernels import CARRY, composition_ints
from ..core.layout import Layout, leaves, size
from ..core.strides import F2, ScaledBasis
from ..core.swizzle import ComposedLayout, Swizzle
from ..core.tuples import flatten, transform
from ..errors import NotAdmissibleError, UndecidedError
from ..symbolic import decide
from ..symbolic.conditions import Condition
from ..core.notation.interop import as_layout
from ._op import exact_div, mode_text, operation, plain_ints, split_cases
from .coalesce import coalesce_flat


def _compose_mode(a_shapes, a_strides, n, r, loads=None):
    """``A o (n:r)`` for a coalesced flat A given as leaf lists; returns ``(shape, stride)``.

    Divide ``r`` out of A's leading modes (stride divisibility), then take ``n`` elements (shape
    divisibility); the last mode of A absorbs what is left of ``n`` (extended domain). A rest that lies
    inside one mode of A needs no divisibility (see below). Each result mode ``k:q*d_i`` adds ``k*q`` to
    digit ``i`` of A's mixed radix; ``loads`` (one entry per mode of A but the last) receives the largest
    such value, ``(k-1)*q``, for the caller's no-carry check across B's leaves (``_check_loads``).
    """
    if type(r) is int:
        if r == 0:
            return n, 0
    elif decide.is_zero(r) is True:
        return n, 0
    last = len(a_shapes) - 1
    if last == 0:
        return n, r * a_strides[0]
    unit = (n == 1) if type(n) is int else decide.is_one(n)
    if unit:
        return 1, _unit_stride(a_shapes, a_strides, r)
    if unit is None:
        decide.obligate(Condition("ne", n, 1), "composition: a size-1 right mode takes A's last stride",
                        canonical=True)
    shapes: list = []
    strides: list = []
    rest_n, rest_r = n, r
    for i in range(last):
        s, d = a_shapes[i], a_strides[i]
        inside = decide.lt(rest_r * (rest_n - 1), s)
        if inside is None and decide.divides(rest_r, s) is not True and decide.divides(s, rest_r) is not True:
            # whether the rest lies inside this mode is open, and so is the stride divisibility the other
            # side needs: the concrete walk takes either rule by value, so split (where no split is possible,
            # the divisibility below becomes an obligation: sound, and narrower than the concrete walk)
            split_cases(Condition("lt", rest_r * (rest_n - 1), s))
        if inside is True:
            # what is left of the right mode lies inside this mode of A (CuTe's ceil_div rule: the new shape
            # is min(ceil(s / r), n)): it is n:r*d whatever the divisibilities, e.g. (3,9):(36,6) o 2:1 = 2:36
            shapes.append(rest_n)
            strides.append(rest_r * d)
            _add_load(loads, i, rest_r * (rest_n - 1))
            rest_n = 1
            break
        # plain ints take core.kernels.compose_ints; here at least one entry is symbolic, and each
        # divisibility is asked of the decision interface (ints answer there by arithmetic)
        if _pick(rest_r, s, "stride divisibility", i, f" ({s}:{d}) for the right mode {n}:{r}") == "second":
            rest_r = exact_div(rest_r, s)
            continue
        q = rest_r
        new_s, stride = exact_div(s, q), q * d
        rest_r = 1
        if type(new_s) is int and new_s == 1:
            continue
        within = decide.le(rest_n, new_s)
        if within is None and decide.divides(new_s, rest_n) is not True:
            # the rest fits inside this mode (no divisibility needed) or fills it (new_s | rest_n): an open
            # order splits as above
            split_cases(Condition("le", rest_n, new_s))
        if within is True or within is None and _pick(new_s, rest_n, "shape divisibility", i,
                                                      f" for the right mode {n}:{r}") == "second":
            # the remaining extent fits inside this mode: take it all
            shapes.append(rest_n)
            strides.append(stride)
            _add_load(loads, i, q * (rest_n - 1))
            rest_n = 1
            break
        if within is False:
            _pick(new_s, rest_n, "shape divisibility", i, f" for the right mode {n}:{r}")
        shapes.append(new_s)
        strides.append(stride)
        _add_load(loads, i, s - q)
        rest_n = exact_div(rest_n, new_s)
        done = decide.is_one(rest_n)
        if done is True:
            break
        if done is None:
            # where it is 1 the concrete walk stops here and keeps no trailing mode
            decide.obligate(Condition("ne", rest_n, 1), "composition keeps a remaining extent that may be 1",
                            canonical=True)
    else:
        if not (type(rest_n) is int and rest_n == 1) or not shapes:
            shapes.append(rest_n)
            strides.append(rest_r * a_strides[last])
    if len(shapes) == 1:
        return shapes[0], strides[0]
    return tuple(shapes), tuple(strides)


def _add_load(loads, i, v):
    if loads is not None:
        loads[i] = v if type(loads[i]) is int and loads[i] == 0 else loads[i] + v


def _check_loads(a_shapes, a_strides, loads, b):
    """B's leaves compose one by one (CuTe: ``A o (B0, B1) = (A o B0, A o B1)``); their sum is ``A o B``
    exactly when no digit of A's mixed radix but the last carries: in each mode ``i`` of the coalesced A but
    the last, the leaves' largest digits (``loads[i]``) add up to less than its size. Where they do not, a
    sum of leaf values carries once into mode ``i+1`` and, A being coalesced (``d_{i+1} != s_i*d_i``), the
    sum of the leaves' results differs from ``A(B(c))`` there (``core.kernels.carry_error`` names such a
    coordinate for plain ints); undecided: an obligation."""
    for i, t in enumerate(loads):
        if type(t) is int and t == 0:
            continue
        decide.require(decide.lt(t, a_shapes[i]), Condition("lt", t, a_shapes[i]), "composition",
                       f"{CARRY}the leaves of the right layout must add up to less than the size of mode {i} of "
                       f"the coalesced left layout ({a_shapes[i]}:{a_strides[i]}) there", f"right layout {b}")


def _pick(x, y, what, i, detail=""):
    """Which of ``x | y`` ("first") or ``y | x`` ("second") holds, for the symbolic path. A decided answer
    wins; an undecided one becomes an obligation on its branch; when both are open, the order of ``x`` and
    ``y`` picks (a case split where it is open too, else the generic "first"); neither refuses the
    composition."""
    first = decide.divides(x, y)
    if first is True:
        return "first"
    second = decide.divides(y, x)
    if second is True:
        return "second"
    where = f"mode {i} of the coalesced left layout{detail}"
    if first is None and second is None:
        # of two positive numbers that divide one another the smaller divides the larger: an order that is
        # known picks the one condition to carry; an open order is a case split (x <= y, then y < x)
        if decide.le(x, y) is True:
            decide.require(None, Condition("divides", x, y), "composition", what, where)
            return "first"
        if decide.lt(y, x) is True:
            decide.require(None, Condition("divides", y, x), "composition", what, where)
            return "second"
        split_cases(Condition("le", x, y))
    if first is None:
        decide.require(None, Condition("divides", x, y), "composition", what, where)
        return "first"
    if second is None:
        decide.require(None, Condition("divides", y, x), "composition", what, where)
        return "second"
    raise NotAdmissibleError("composition", f"{what}: {x} and {y} must divide one another", where)


def _unit_stride(a_shapes, a_strides, r):
    """A size-1 right mode ``1:r``: CuTe ceil-divides ``r`` through all of A's leading modes and scales A's
    last stride by what is left (the value at index 0 is 0 either way; this fixes the canonical stride)."""
    for s in a_shapes[:-1]:
        if type(r) is int and type(s) is int:
            r = -(-r // s)
        elif decide.divides(s, r):
            r = exact_div(r, s)
        elif decide.le(r, s) is not True:
            decide.obligate(Condition("le", r, s), "composition: canonical stride of a size-1 right mode",
                            canonical=True)
            r = 1
        else:
            r = 1
    return r * a_strides[-1]


def _compose(a_shapes, a_strides, b_shape, b_stride, loads=None):
    if type(b_stride) is int:
        if b_stride < 0 and b_shape != 1 and len(a_shapes) > 1:
            raise NotAdmissibleError("composition", "negative strides in the right layout are not supported",
                                     mode_text(b_shape, b_stride))
    elif type(b_shape) is not tuple and not hasattr(b_stride, "path"):
        decide.require(decide.le(0, b_stride), Condition("le", 0, b_stride), "composition",
                       "negative strides in the right layout are not supported", mode_text(b_shape, b_stride))
    if type(b_shape) is tuple:
        parts = [_compose(a_shapes, a_strides, s, d, loads) for s, d in zip(b_shape, b_stride)]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
    return _compose_mode(a_shapes, a_strides, b_shape, b_stride, loads)


def _composition_fast(a, b):
    """``composition_ints`` for plain concrete layouts (it makes no note or obligation), else None."""
    la, lb = plain_ints(a), plain_ints(b)
    if la is None or lb is None or min(lb[1]) < 0:
        return None
    return composition_ints(la, b, lb)


def composition(a, b, mode=None):
    """``R = A o B``: the layout with ``R(c) == A(B(c))`` for every ``c`` in B's domain.

    ``b`` may be a layout, a shape (each ``n`` read as ``n:1``), or a tiler: a tuple of layouts/shapes/None
    applied to A's modes one by one (``None`` keeps the mode). A ``ComposedLayout`` on the left keeps its
    swizzle: ``(Sw o o o L) o B = Sw o o o (L o B)``.
    Admissibility (integer and coordinate strides; A coalesced to ``(s_0..s_k):(d_0..d_k)``, read as
    mixed-radix digits, digit ``i < k`` below ``s_i``, the last one unbounded): B composes leaf by leaf, as
    CuTe does, and
    (1) each leaf ``n:r`` (``r >= 0``) splits its values ``j*r`` into digits without carries: where the rest
        ``n':r'`` lies inside mode ``i`` (``r'*(n'-1) < s_i``) it is taken whole (CuTe's
        ``min(ceil(s_i/r'), n')``), otherwise ``r'`` and ``s_i`` divide one another (stride divisibility)
        and, where ``s_i/r'`` elements fill the mode, they divide the remaining ``n'`` (shape divisibility);
    (2) the leaves add without carries: in each mode ``i < k`` the leaves' largest digits add up to less
        than ``s_i``. The leaves' index ranges may overlap, e.g. ``(2,(4,4)):(4,(1,8)) o
        ((4,2),(4,2)):((0,8),(8,32))`` only feeds the last digit.
    For plain ints (the fast path, ``core.kernels.composition_ints``) refusal is exact: CuTe C++ asserts
    ``r' % s_i == 0 or r' < s_i`` and shape divisibility when static; where it takes ``ceil(s_i/r') < n'``
    elements of a mode that ``r'`` does not divide, its answer misses ``(ceil(s_i/r')*r' - s_i)*d_i``, wrong
    unless ``d_i == 0`` (then CuTe's answer is returned if it checks out value by value, B up to 4096
    elements); where (2) fails, a sum of leaf values carries once and the mode-by-mode answer is wrong there
    (``core.kernels.carry_error`` names the coordinate), and no layout of B's shape is ``A o B``.
    Coordinate strides take the same walk through the decision interface. Symbolic: where an order is open
    (a rest inside a mode, the divisibility order) the operation splits into cases; undecided conditions
    are obligations. Stride 0 gives ``n:0``.
    Post-condition: ``compatible(B, R)`` and ``R(c) == A(B(c))`` for all ``c < size(B)``, A read at a negative
    index as CuTe reads it (C++ division: ``A(-x) == -A(x)``).
    Domains (docs/model.md section 3.1): integer and coordinate strides on either side; F2 left layouts by
    their digits (``_compose_f2``); F2 right layouts where XOR is + (``_f2_as_int``); a composed left layout
    through its outer layout, a composed right one as CuTe (``_compose_composed``). Negative right strides:
    all moving modes negative, or a rank-1 (linear) left layout; mixed signs are refused. A ``Swizzle`` on the
    left is CuTe's ``composition(Swizzle, L)``: the composed layout ``Sw o 0 o L``.
    """
    if mode is not None and mode != ():  # ``mode=`` (bymode.by_mode attaches at_mode)
        return composition.at_mode(a, b, mode=mode)
    if type(a) is Swizzle:
        return ComposedLayout(a, 0, as_layout(b, "b"))
    r = _composition_fast(a, b)  # plain ints: no wrapper layer between the call and the kernel
    return r if r is not None else _composition(a, b)


composition._takes_mode, composition.at_mode = True, None  # at_mode: set by bymode.by_mode


@operation(swizzle_through=True)
def _composition(a, b):
    if type(a) is Layout and type(b) is Layout:
        la, lb = a.int_leaves, b.int_leaves
        if la is not None and lb is not None and min(lb[1]) >= 0:
            return composition_ints(la, b, lb)
    if type(b) is tuple or isinstance(b, list):
        # CuTe drops the modes of A that the tiler does not reach (``(8,3):(1,24) o <2>`` is ``(2):(1)``);
        # ``None`` keeps its mode.
        return by_mode(a, tuple(b), composition, keep_rest=False)
    b = as_layout(b)
    if hasattr(b, "outer"):
        return _compose_composed(a, b)
    bs = b.stride
    neg = False
    if type(bs) is int:
        neg = bs < 0
    else:
        # one pass over B's strides picks the domain's rule (the plain positive-int case falls through)
        for x in flatten(bs):
            t = type(x)
            if t is int:
                neg = neg or x < 0
            elif t is F2:
                return composition(a, _f2_as_int(b))
            elif t is ScaledBasis:
                return _compose_coord(a, b)
    shapes, strides = coalesce_flat(*leaves(a), units_matter=False, keep_last=True)
    shapes = list(shapes) if type(shapes) is tuple else [shapes]
    strides = list(strides) if type(strides) is tuple else [strides]
    for x in strides:
        if type(x) is F2:
            return _compose_f2(shapes, strides, b)
    if neg and len(shapes) > 1 and (type(bs) is int and type(b.shape) is int or type(bs) is tuple and
                                    _all_negative(b)):
        # CuTe reads a layout at a negative index with C++ division, so A(-x) == -A(x): a right layout
        # whose moving strides are all negative composes as the negated composition with |B|
        r = composition(a, Layout._make(b.shape, transform(b.stride, abs)))
        return Layout._make(r.shape, transform(r.stride, lambda x: -x))
    # coordinate strides (``a@i``) compose like integers: the divisibility walk only scales them
    loads = [0] * (len(shapes) - 1)
    try:
        s, d = _compose(shapes, strides, b.shape, b.stride, loads)
        _check_loads(shapes, strides, loads, b)
    except NotAdmissibleError as e:
        if not all(type(getattr(x, "value", x)) is int for x in shapes + strides):
            # symbolic A: for some values its modes may chain (coalesce into fewer modes) and the concrete
            # composition be admissible, so this is an open case, not a refusal
            raise UndecidedError(f"{e}; for these symbolic layouts that depends on values the assumptions leave "
                                 "open (e.g. whether modes of the left layout chain): add assumptions") from None
        raise
    return Layout._make(s, d)


def _all_negative(b):
    """Every moving mode (size > 1, stride != 0) of a concrete right layout has a negative stride, and one does."""
    moving = [d for n, d in zip(*leaves(b)) if not (type(n) is int and n == 1)
              and not (type(d) is int and d == 0)]
    return bool(moving) and all(type(d) is int and d < 0 for d in moving)


def _compose_coord(a, b):
    """``A o B`` for a right layout with coordinate strides (CuTe's ``basis_get``): a mode ``n:v@path`` picks
    the sub-layout of A at ``path`` (descending while A has modes there) and gives ``A_path o n:v``; modes of
    B that pick the same sub-layout must compose together (checked by composing them as one layout there),
    and one path may not lie inside another (the two would add into one index of A).
    Post-condition: ``R(c) == A(B(c))`` for ``c < size(B)``, A read at the coordinate ``B(c)``."""
    groups: dict = {}

    def leaf(n, d):
        if not hasattr(d, "path"):
            return n, 0  # stride 0 (a layout never mixes coordinate strides with other nonzero ones)
        sub, key = a, ()
        for i in d.path:
            if type(sub.shape) is not tuple:
                break
            if not 0 <= i < len(sub.shape):
                raise NotAdmissibleError("composition", f"coordinate stride {d} names mode {i} of a rank "
                                         f"{len(sub.shape)} (sub)layout", f"{a}")
            sub, key = sub[i], key + (i,)
        groups.setdefault(key, (sub, []))[1].append((n, d.value))
        r = composition(sub, Layout._make(n, d.value))
        return r.shape, r.stride

    def walk(sh, st):
        if type(sh) is tuple:
            parts = [walk(x, y) for x, y in zip(sh, st)]
            return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
        return leaf(sh, st)

    s, d = walk(b.shape, b.stride)
    keys = list(groups)
    for k in keys:
        if any(k2 != k and k2[:len(k)] == k for k2 in keys):
            raise NotAdmissibleError("composition", f"coordinate strides address mode {k} and a mode inside it",
                                     str(b))
        sub, modes = groups[k]
        moving = [(n, v) for n, v in modes if not (type(n) is int and n == 1)]
        if len(moving) > 1:
            composition(sub, Layout._make(tuple(n for n, _ in moving), tuple(v for _, v in moving)))
    return Layout._make(s, d)


# F2 compositions enumerate the images of the right layout's modes up to this size.
_F2_ENUM = 1 << 16


def _mode_bits(n, v):
    """The OR of ``k*v`` for ``k < n``: every bit a mode ``n:^v`` (or ``n:v``) can set."""
    if n > _F2_ENUM:
        raise NotAdmissibleError("composition", f"an F2 mode of more than {_F2_ENUM} elements is not checked",
                                 f"{n}:{v}")
    out = 0
    for k in range(n):
        out |= k * v
    return out


def _f2_as_int(b):
    """An F2 right layout is the integer layout with the same strides exactly when its modes' images have
    pairwise disjoint bits (then XOR is +); otherwise no integer layout stands for it here."""
    used = 0
    for n, r in zip(*leaves(b)):
        if type(n) is not int:
            raise NotAdmissibleError("composition", "an F2 right layout needs concrete sizes", str(b))
        bits = _mode_bits(n, int(r))
        if bits & used:
            raise NotAdmissibleError("composition", "the modes of an F2 right layout must set disjoint bits "
                                     "(then XOR is +)", str(b))
        used |= bits
    return Layout._make(b.shape, transform(b.stride, int))


def _compose_f2(shapes, strides, b):
    """``A o B`` for an F2 left layout (coalesced by the F2 rule), docs/model.md section 3.1.

    The integer walk runs on A's digits (strides ``1@i``): each result mode ``n:q@i`` feeds ``k*q`` into digit
    ``i`` of A. The F2 layout with strides ``^(q*v_i)`` is ``A o B`` when (1) no digit but the last (the
    extended one) overflows: ``sum (n-1)*q < s_i``, so digits of a sum are sums of digits, and (2) the modes
    feeding one digit set disjoint bits of ``k*q*v_i``, so their sum times ``v_i`` is their XOR. Otherwise
    refused with the failing condition. Post-condition: ``R(c) == A(B(c))`` for ``c < size(B)``.
    """
    if not (all(type(x) is int for x in shapes) and b.is_concrete):
        raise NotAdmissibleError("composition", "an F2 left layout composes only with concrete layouts", str(b))
    vals = [int(x) for x in strides]
    digits = [ScaledBasis(1, (i,)) for i in range(len(shapes))]
    s, d = _compose(shapes, digits, b.shape, b.stride)
    feeds: dict = {}
    for n, q in zip(flatten(s), flatten(d)):
        if n != 1 and hasattr(q, "path"):
            feeds.setdefault(q.path[0], []).append((n, q.value))
    for i, modes in feeds.items():
        if i < len(shapes) - 1 and sum((n - 1) * q for n, q in modes) >= shapes[i]:
            raise NotAdmissibleError("composition", f"F2: the right layout's modes overflow digit {i} of the left "
                                     f"layout (size {shapes[i]}), so XOR and + differ there", str(b))
        used = 0
        for n, q in modes:
            bits = _mode_bits(n, q * vals[i])
            if bits & used:
                raise NotAdmissibleError("composition", f"F2: two modes of the right layout meet in digit {i} of "
                                         f"the left layout with overlapping bits (stride ^{vals[i]}), so their "
                                         "sum is not their XOR", str(b))
            used |= bits
    return Layout._make(s, transform(d, lambda q: F2(q.value * vals[q.path[0]]) if hasattr(q, "path") else q))


# A swizzled right operand is checked value by value (below); past this size it is refused.
_CHECK_LIMIT = 1 << 16


def _compose_composed(a, b):
    """``A o (F o 0 o L)`` for a plain A (CuTe's ``layout_composed.hpp``): ``(A o F) o L``, exact only where
    ``L``'s image lies in ``[0, size(F))`` for a layout F (``A o F`` is ``A(F(x))`` for ``x < size(F)`` only,
    while the composed layout reads F on its extended domain); elsewhere refused (``_require_within``), where
    CuTe C++ returns a wrong layout (``(2,3):(3,1) o (2:1 o 0 o 4:1)``: C++ ``4:3``, the function 0,3,1,4). For a swizzle F,
    ``A o Sw`` is CuTe's ``Sw' o A`` with ``Sw' = make_swizzle<A(Y), A(Z)>`` (A's images of the swizzle's bit
    masks): the result is ``Sw' o 0 o (A o L)``.

    Admissibility: the offset is 0 (CuTe requires it); for a layout F, ``A o F`` admissible and
    ``0 <= L(c) < size(F)`` for every ``c`` (``_require_within``); for a swizzle F, ``A(Y)`` and ``A(Z)`` form a swizzle; and, since
    ``A(Sw(y)) == Sw'(A(y))`` holds only where A moves the swizzled bits as whole bits (no carries), the
    result is checked against ``A(B(c))`` for every ``c < size(B)``: concrete layouts of at most
    ``_CHECK_LIMIT`` elements. Post-condition: ``R(c) == A(B(c))`` for ``c < size(B)``.
    """
    if not (type(b.offset) is int and b.offset == 0):
        raise NotAdmissibleError("composition", "a composed right operand must have offset 0 (as in CuTe)", str(b))
    inner = b.inner
    if isinstance(inner, Layout):
        _require_within(inner, b.outer, f"{a} o ({b})")
        return composition(composition(a, inner), b.outer)
    if inner.bits == 0:
        return composition(a, b.outer)
    if not (a.is_concrete and b.is_concrete):
        raise NotAdmissibleError("composition", "a swizzled right operand needs concrete layouts (the swizzle "
                                 "is checked value by value)", f"{a} o {b}")
    if size(b) > _CHECK_LIMIT:
        raise NotAdmissibleError("composition", f"a swizzled right operand of more than {_CHECK_LIMIT} elements "
                                 "is not checked, so not composed", str(b))
    new = Swizzle.from_masks(a(inner.yyy_mask), a(inner.zzz_mask), "composition")
    rest = composition(a, b.outer)
    r = rest if new.bits == 0 else ComposedLayout(new, 0, rest)
    if r.values() != [a(v) for v in b.values()]:
        raise NotAdmissibleError("composition", f"the left layout must carry the swizzle's bits whole: "
                                 f"A(Sw(y)) == {new}(A(y)) fails on the right layout's image (CuTe's "
                                 f"{r} is not A o B here)", f"{a} o {b}")
    return r


def _require_within(f, lay, where):
    """Admissibility of ``(A o F) o L`` for ``A o F o L``: every value of ``lay`` (an integer, the integer
    an F2 value is, or a coordinate) indexes ``F`` inside its domain, ``[0, size(F))`` (a coordinate: each
    entry inside its mode). A concrete ``lay`` is checked by its value range (an int-stride layout from its
    strides, otherwise value by value up to ``_CHECK_LIMIT`` elements); a symbolic one only where the
    decision interface proves it (non-negative strides and ``cosize(lay) <= size(F)``). Otherwise
    NotAdmissibleError naming the condition."""
    n = size(f)
    why = (f"the right operand's domain-side layout B = {lay} must index its outer function A = {f} inside "
           f"A's domain [0, {n}) (the composed layout reads A past its size, where L o A is not L(A(x)))")
    if type(lay) is Layout and not any(isinstance(d, (F2, ScaledBasis)) for d in lay.leaves[1]):
        lo = hi = 0
        for s, d in zip(*lay.leaves):
            if decide.is_one(s) is True:
                continue
            neg = d < 0 if type(d) is int else (False if decide.le(0, d) is True else None)
            if neg is None:
                raise NotAdmissibleError("composition", why + f"; the sign of the stride {d} is not decided",
                                         where)
            if neg:
                lo = lo + (s - 1) * d
            else:
                hi = hi + (s - 1) * d
        if decide.le(0, lo) is True and decide.lt(hi, n) is True:
            return
        raise NotAdmissibleError("composition", why + f"; its values reach [{lo}, {hi}]", where)
    m = size(lay)
    vals = lay.values() if type(m) is int and m <= _CHECK_LIMIT and not lay.free_symbols() else None
    if vals is None:
        raise NotAdmissibleError("composition", why + f"; checked value by value on concrete layouts of at "
                                 f"most {_CHECK_LIMIT} elements only", where)
    for v in vals:
        if isinstance(v, F2):
            v = v.value
        if isinstance(v, tuple):
            ok = _coord_within(v, f.shape)
        else:
            ok = type(v) is int and decide.le(0, v) is True and decide.lt(v, n) is True
        if not ok:
            raise NotAdmissibleError("composition", why + f"; it reaches {v}", where)


def _coord_within(v, shape):
    """The coordinate value ``v`` (zero-extended, as a composed layout reads it) lies inside ``shape``."""
    if not isinstance(v, tuple):
        return type(v) is int and decide.le(0, v) is True and decide.lt(v, size(shape)) is True
    if type(shape) is not tuple:
        return all(e == 0 for e in v[1:]) and _coord_within(v[0] if len(v) else 0, shape)
    if len(v) > len(shape) and any(not (isinstance(e, int) and e == 0) for e in v[len(shape):]):
        return False
    return all(_coord_within(v[i] if i < len(v) else 0, shape[i]) for i in range(len(shape)))


def by_mode(a, tiler, op, keep_rest=True):
    """Apply ``op`` mode by mode: ``(A0 op T0, A1 op T1, ..., A_k, ...)``; ``None`` keeps the mode. The
    modes of A past the tiler are kept (``keep_rest``) or dropped (composition)."""
    if len(tiler) > len(a):
        raise NotAdmissibleError(op.__name__, f"the tiler has {len(tiler)} modes but the layout has rank {len(a)}")
    modes = []
    for i in range(len(a) if keep_rest else len(tiler)):
        sub = a[i]
        if i < len(tiler) and tiler[i] is not None:
            sub = op(sub, tiler[i])
        modes.append(sub)
    return Layout._make(tuple(m.shape for m in modes), tuple(m.stride for m in modes))



__all__ = ["composition"]
composition.body = _composition.__wrapped__  # the body without a decision context of its own (divide's products)
