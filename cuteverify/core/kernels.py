"""The plain-int kernels of coalesce and composition (docs/model.md section 3): the concrete fast paths of
the algebra, and what the core's swizzled slicing decays through. Integer strides only; no decision
interface, no sympy: callers hand over leaves they know are ints."""
from __future__ import annotations

from ..errors import NotAdmissibleError
from .layout import Layout

# Every refusal for leaves of a right layout that carry into a digit of the left one starts with this (a
# product catches it and composes its repeat mode by mode, as CuTe does).
CARRY = "carry: "


def coalesce_flat_ints(shapes, strides, keep_last):
    """``algebra.coalesce.coalesce_flat`` on plain-int leaf lists (size-1 modes dropped, ``s0:d0, s1:s0*d0``
    merged; ``keep_last`` keeps a trailing size-1 mode that carries the extended domain), or None when an
    entry is not an int. Valid for integer strides only (docs/model.md section 3.1)."""
    for s, d in zip(shapes, strides):
        if type(s) is not int or type(d) is not int:
            return None
    return coalesce_ints(shapes, strides, keep_last)


def coalesce_ints(shapes, strides, keep_last):
    """``coalesce_flat_ints`` for leaves the caller knows are plain ints (a layout's ``int_leaves``, a
    kernel's own results): the same merge, no type test per entry."""
    rs: list = []
    rd: list = []
    ps = pd = 0  # the last kept mode
    for s, d in zip(shapes, strides):
        if s == 1:
            continue
        if rs and d == ps * pd:
            ps *= s
            rs[-1] = ps
            continue
        rs.append(s)
        rd.append(d)
        ps, pd = s, d
    if not rs:
        if keep_last and shapes:
            return shapes[-1], strides[-1]
        return 1, 0
    if keep_last and shapes[-1] == 1 and strides[-1] != rs[-1] * rd[-1]:
        rs.append(1)
        rd.append(strides[-1])
    if len(rs) == 1:
        return rs[0], rd[0]
    return tuple(rs), tuple(rd)


def compose_ints(a_shapes, a_strides, b_shape, b_stride, loads=None):
    """``A o B`` leaf by leaf for a coalesced flat plain-int A (``a_shapes``, ``a_strides``) and a plain-int B
    given by its shape and stride: the walk of ``algebra.composition._compose_mode`` without the decision
    interface (the differential suites hold the two to the same answers).

    A reads an index ``x`` as mixed-radix digits (digit ``i`` below ``a_shapes[i]``, the last one unbounded:
    the extended domain) and adds ``digit_i * a_strides[i]``. A leaf ``n:r`` of B composes exactly when its
    values ``k*r`` (``k < n``) split into digits without carries: ``r`` divides out of the leading modes
    (stride divisibility), then the ``n`` elements fill whole modes (shape divisibility), and a rest that
    lies inside one mode (``r*(n-1) < s``: CuTe's ``min(ceil(s/r), n)``) is taken whole whatever the
    divisibilities. Each result mode ``k:q*d_i`` adds ``k*q`` to digit ``i``; ``loads`` (a list with one
    entry per mode of A but the last, or None) receives the largest such value ``(k-1)*q`` per digit, so the
    caller can check that B's leaves, added, carry nowhere (``composition_ints``)."""
    last = len(a_shapes) - 1
    if type(b_shape) is not tuple:
        return _compose_leaf(a_shapes, a_strides, last, b_shape, b_stride, loads)
    ss, ds = [], []
    s0, d0 = a_shapes[0], a_strides[0]
    for n, r in zip(b_shape, b_stride):
        # the common leaves inline (the branches of _compose_leaf, same order and answers)
        if type(n) is tuple:
            n, r = compose_ints(a_shapes, a_strides, n, r, loads)
        elif r == 0:
            pass  # n:0 (no digit moves)
        elif last == 0:
            r *= d0
        elif 0 < r and n != 1 and r * (n - 1) < s0:
            if loads is not None:
                loads[0] += r * (n - 1)
            r *= d0
        else:
            n, r = _compose_leaf(a_shapes, a_strides, last, n, r, loads)
        ss.append(n)
        ds.append(r)
    return tuple(ss), tuple(ds)


def _compose_leaf(a_shapes, a_strides, last, n, r, loads):
    """``compose_ints`` for one leaf ``n:r`` of B; ``last`` is A's last mode index."""
    if r < 0 and n != 1 and last > 0:
        raise NotAdmissibleError("composition", "negative strides in the right layout are not supported",
                                 f"({n}:{r})")
    if r == 0:
        return n, 0
    if last == 0:
        return n, r * a_strides[0]
    if n == 1:
        for s in a_shapes[:-1]:
            r = -(-r // s)  # CuTe ceil-divides a size-1 mode's stride through A (see _unit_stride)
        return 1, r * a_strides[-1]
    if r * (n - 1) < a_shapes[0]:  # the whole leaf inside mode 0: the walk's first step, taken alone
        if loads is not None:
            loads[0] += r * (n - 1)
        return n, r * a_strides[0]
    shapes, strides = [], []
    rest_n, rest_r = n, r
    for i in range(last):
        s, d = a_shapes[i], a_strides[i]
        if rest_r * (rest_n - 1) < s:
            shapes.append(rest_n)  # the rest lies inside this mode (see _compose_mode)
            strides.append(rest_r * d)
            if loads is not None:
                loads[i] += rest_r * (rest_n - 1)
            rest_n = 1
            break
        if s % rest_r == 0:
            new_s, q = s // rest_r, rest_r
            rest_r = 1
        elif rest_r % s == 0:
            rest_r //= s
            continue
        else:
            raise NotAdmissibleError("composition", f"stride divisibility: {rest_r} and {s} must divide one "
                                     "another", f"mode {i} of the coalesced left layout ({s}:{d}) for the right "
                                     f"mode {n}:{r}")
        if new_s == 1:
            continue
        if rest_n % new_s:
            raise NotAdmissibleError("composition", f"shape divisibility: {new_s} and {rest_n} must divide one "
                                     "another", f"mode {i} of the coalesced left layout for the right mode {n}:{r}")
        shapes.append(new_s)
        strides.append(q * d)
        if loads is not None:
            loads[i] += s - q
        rest_n //= new_s
        if rest_n == 1:
            break
    else:
        if rest_n != 1 or not shapes:
            shapes.append(rest_n)
            strides.append(rest_r * a_strides[last])
    if len(shapes) == 1:
        return shapes[0], strides[0]
    return tuple(shapes), tuple(strides)


def composition_ints(la, b, lb):
    """``A o B`` for a plain-int A (given by its leaves ``la``) and a plain-int layout B (leaves ``lb``) with
    non-negative strides: the steps of ``algebra.composition`` without the domain dispatch and the decision
    interface. CuTe composes B leaf by leaf; the sum of the leaves' results is ``A o B`` exactly when, in
    each mode ``i`` of the coalesced A but the last, the leaves' largest digits add up to less than its size
    (no carry: the digits of a sum are then the sums of the digits). Otherwise no layout of B's shape is
    ``A o B`` (``carry_error`` names a coordinate where the sum differs), and each leaf needs stride and
    shape divisibility (``compose_ints``). Both conditions are exact where every mode of the coalesced A
    but the last moves (a leaf's value then shows in each digit it reaches); a stride-0 mode hides its
    digit, and where the walk refuses there, CuTe's own answer is returned if it checks out value by value
    (``_cute_checked``)."""
    shapes, strides = coalesce_ints(la[0], la[1], True)
    if type(shapes) is not tuple:
        return Layout._make_ints(*compose_ints((shapes,), (strides,), b.shape, b.stride))
    loads = [0] * (len(shapes) - 1)
    try:
        s, d = compose_ints(shapes, strides, b.shape, b.stride, loads)
        for i, t in enumerate(loads):
            if t >= shapes[i]:
                raise carry_error(shapes, strides, i, b, lb)
    except NotAdmissibleError:
        if 0 in strides[:-1]:
            r = _cute_checked(shapes, strides, b, lb)
            if r is not None:
                return r
        raise
    return Layout._make_ints(s, d)


# A refused composition whose left layout has a stride-0 mode is checked value by value up to this size.
_CHECK_LIMIT = 1 << 12


def _cute_leaf(shapes, strides, n, r):
    """CuTe C++'s ``composition_impl`` for a coalesced flat A and a leaf ``n:r`` (``r >= 0``) under its weak
    conditions (``r % s == 0 or r < s``, then ``ceil(s/r)`` elements, which must divide the rest of ``n``):
    ``(shape, stride)``, or None where C++ asserts."""
    if r == 0 or n == 1:
        return compose_ints(shapes, strides, n, r)
    out_s, out_d = [], []
    rest_n, rest_r = n, r
    for s, d in zip(shapes[:-1], strides[:-1]):
        if not (rest_r % s == 0 or rest_r < s):
            return None
        next_s, next_r = -(-s // rest_r), -(-rest_r // s)
        if next_s != 1 and rest_n != 1:
            new = min(next_s, rest_n)
            if rest_n % new:
                return None
            out_s.append(new)
            out_d.append(rest_r * d)
            rest_n //= new
        rest_r = next_r
    if not out_s or rest_n != 1:
        out_s.append(rest_n)
        out_d.append(rest_r * strides[-1])
    return (out_s[0], out_d[0]) if len(out_s) == 1 else (tuple(out_s), tuple(out_d))


def _cute_checked(shapes, strides, b, lb):
    """CuTe's leaf-by-leaf answer to ``A o B`` where C++ gives one and it equals ``A(B(c))`` on all of B's
    domain (at most ``_CHECK_LIMIT`` elements), else None."""
    n = 1
    for x in lb[0]:
        n *= x
    if n > _CHECK_LIMIT:
        return None

    def walk(sh, st):
        if type(sh) is tuple:
            parts = [walk(x, y) for x, y in zip(sh, st)]
            if any(p is None for p in parts):
                return None
            return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
        return _cute_leaf(shapes, strides, sh, st)

    got = walk(b.shape, b.stride)
    if got is None:
        return None
    r = Layout._make_ints(*got)
    for i in range(n):
        if r(i) != _eval_flat(shapes, strides, b(i)):
            return None
    return r


def _eval_flat(shapes, strides, x):
    """A coalesced flat A at ``x >= 0``, the last mode unbounded (the extended domain)."""
    out = 0
    for s, d in zip(shapes[:-1], strides[:-1]):
        x, digit = divmod(x, s)
        out += digit * d
    return out + x * strides[-1]


def carry_error(shapes, strides, i, b, lb):
    """The refusal for leaves of B whose largest digits in mode ``i`` of the coalesced A add up to its size or
    more. Of the leaves that reach digit ``i`` (each alone below ``shapes[i]``), the largest ones whose
    digits add up to ``T`` with ``shapes[i] <= T < 2*shapes[i]``, each at that digit and 0 elsewhere, make
    ``A(B(c))`` carry once: it is ``(T - s)*d_i + d_{i+1}`` where the leaves composed one by one give
    ``T*d_i``, and ``d_{i+1} != s*d_i`` in a coalesced A. As the leaves of any ``R`` with B's shape are fixed
    by ``R(c) == A(B(c))`` on the axes, no layout of B's shape is ``A o B`` there."""
    s = shapes[i]
    reach = []
    for t, (n, r) in enumerate(zip(lb[0], lb[1])):
        own = [0] * (len(shapes) - 1)
        if n != 1 and r != 0:
            compose_ints(shapes, strides, n, r, own)
        if own[i]:
            reach.append((own[i], t))
    reach.sort(reverse=True)
    coord = [0] * len(lb[0])
    total = 0
    unit = 1
    for x in shapes[:i]:
        unit *= x
    for v, t in reach:
        coord[t] = v * unit // lb[1][t]
        total += v
        if total >= s:
            break
    vals = [c * r for c, r in zip(coord, lb[1])]
    whole = _eval_flat(shapes, strides, sum(vals))
    parts = sum(_eval_flat(shapes, strides, v) for v in vals)
    return NotAdmissibleError(
        "composition", f"{CARRY}the leaves of the right layout add up to {total} >= {s} in mode {i} of the "
        f"coalesced left layout ({s}:{strides[i]}); at the leaf coordinates ({','.join(map(str, coord))}) "
        f"A(B(c)) = {whole} but the leaves composed one by one give {parts}, so no layout of B's shape is A o B",
        f"right layout {b}")
