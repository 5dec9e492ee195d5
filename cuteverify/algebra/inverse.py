"""Right and left inverses, and the common-vector queries built on them (docs/model.md section 3; swizzled
layouts: section 4)."""
from __future__ import annotations

from ..core.bitlinear import bit_affine, max_below
from ..core.layout import Layout, size
from ..core.strides import F2
from ..core.swizzle import ComposedLayout, Swizzle
from ..core.tuples import flatten
from ..errors import NotAdmissibleError, UndecidedError
from ..symbolic import decide
from ..symbolic.conditions import Condition
from ._op import exact_div, mode_text, operation, plain_ints
from .inverse_ints import left_inverse_ints, right_inverse_ints
from ..core.kernels import coalesce_flat_ints
from .coalesce import coalesce, coalesce_flat
from .complement import sorted_by_stride
from .composition import composition
from .coord import Codomain, is_coordinate, is_zero

# The reason of the obligation a left inverse of a non-injective layout carries (tests look for it).
NOT_INJECTIVE = "left_inverse: the layout is not injective"
# Swizzled inverses are checked by enumeration up to this size; beyond it they are undecided.
ENUMERATION_CAP = 1 << 16


def _flat_coalesced(layout):
    s, d = coalesce_flat(flatten(layout.shape), flatten(layout.stride))
    return (list(s), list(d)) if type(s) is tuple else ([s], [d])


def _prepare(layout, op):
    """Coalesced flat shapes and strides of a plain integer-stride layout, with each mode's position (prefix
    product) in the layout's domain."""
    for s, d in zip(flatten(layout.shape), flatten(layout.stride)):
        if type(d) is int:
            continue
        if hasattr(d, "path"):
            raise NotAdmissibleError(op, "coordinate (E<i>) strides are not supported", mode_text(s, d))
        if isinstance(d, F2):
            raise NotAdmissibleError(op, "F2 (^v) strides: the inverse of an XOR-linear layout is not "
                                         "implemented", mode_text(s, d))
    shapes, strides = _flat_coalesced(layout)
    pos = []
    cur = 1
    for s in shapes:
        pos.append(cur)
        cur = cur * s
    return shapes, strides, pos


def _symbolic_nonneg(s, d, op):
    """Symbolic strides must be known non-negative unless their mode has size 1 (then it is dropped)."""
    unit = (s == 1) if type(s) is int else decide.is_one(s)
    if unit or type(d) is int:
        return
    nonneg = decide.le(0, d)
    if nonneg is False:
        decide.require(None if unit is None else False, Condition("eq", s, 1), op,
                       "negative strides are not supported for symbolic layouts", mode_text(s, d))
    else:
        decide.require(nonneg, Condition("le", 0, d), op, "negative strides are not supported for symbolic "
                       "layouts", mode_text(s, d))


def _right_inverse_fast(layout):
    lv = plain_ints(layout)
    return None if lv is None else right_inverse_ints(*lv)


def right_inverse(layout, mode=None):
    """The largest ``R`` with ``L(R(i)) == i`` for ``i < size(R)``.

    Definition (CuTe's): coalesce L; starting from stride 1, repeatedly pick the mode whose stride equals the
    extent reached so far; R's modes are those modes' sizes with strides their positions (prefix products) in
    L's domain. Always defined (``1:0`` when no stride is 1). Negative and zero strides never lie on the
    chain, so they are skipped (CuTe: ``right_inverse(4:-1)`` is ``1:0``).
    Swizzled ``Sw o 0 o L`` (CuTe's): ``R o Sw`` with ``R = right_inverse(L)``, written ``Sw' o 0 o R`` where
    ``Sw'`` is the swizzle of the masks ``R(yyy)``, ``R(zzz)``; the result is checked by enumeration and
    refused where CuTe's construction does not give a right inverse (or gives no swizzle). A general
    composed ``A o off o B`` (A a layout): CuTe C++'s ``right_inverse(B) o -off o right_inverse(A)``, checked
    by enumeration likewise (CuTe's IR refuses composed operands).
    Coordinate (E<i>) strides: ``_right_inverse_coord`` (one chain per axis of the codomain).
    Valid for: plain layouts with integer strides (concrete or symbolic; symbolic strides known
    non-negative), concrete coordinate layouts, concrete swizzled layouts with offset 0, concrete general
    composed layouts with an integer offset. F2 strides are refused.
    Post-condition: ``L(R(i)) == i`` for every ``i < size(R)`` (composed: ``R(i)`` in ``[0, size(L))``; for a
    coordinate layout ``i`` is read as the coordinate ``idx2crd(i, shape(R))`` of the codomain).
    """
    if mode is not None and mode != ():  # ``mode=`` (bymode.by_mode attaches at_mode)
        return right_inverse.at_mode(layout, mode=mode)
    r = _right_inverse_fast(layout)  # plain ints: no wrapper layer between the call and the kernel
    return r if r is not None else _right_inverse(layout)


right_inverse._takes_mode = True
right_inverse.at_mode = None  # set by bymode.by_mode


@operation
def _right_inverse(layout):
    if type(layout) is not Layout and hasattr(layout, "outer"):
        return _swizzled_inverse(layout, "right_inverse", _right_inverse_plain)
    return _right_inverse_plain(layout)


def _right_inverse_plain(layout):
    lv = layout.int_leaves if type(layout) is Layout else None
    if lv is not None:  # plain ints: not a coordinate layout
        r = right_inverse_ints(*lv)
        if r is not None:
            return r
    if is_coordinate(layout):
        return _right_inverse_coord(layout)
    shapes, strides, pos = _prepare(layout, "right_inverse")
    if not layout.is_concrete:
        for s, d in zip(shapes, strides):
            _symbolic_nonneg(s, d, "right_inverse")
    used = [False] * len(shapes)
    rs, rd = [], []
    want = 1
    if all(type(d) is int for d in strides):
        # CuTe's single pass over its (unstable) exchange sort: which of equal strides it takes matters
        for i in _cute_order(strides):
            if strides[i] == want:
                rs.append(shapes[i])
                rd.append(pos[i])
                want = want * shapes[i]
        return _chain_layout(rs, rd)
    order = range(len(strides))
    while True:
        for i in order:
            d = strides[i]
            if used[i]:
                continue
            hit = decide.eq(d, want)
            if hit:
                break
            if hit is None:
                # the concrete chain would take this mode where its stride equals the extent reached
                decide.obligate(Condition("ne", d, want), "right_inverse follows the stride chain")
        else:
            break
        used[i] = True
        rs.append(shapes[i])
        rd.append(pos[i])
        want = want * shapes[i]
    return _chain_layout(rs, rd)


def _chain_layout(rs, rd):
    """R from the modes the stride chain took (sizes ``rs`` at positions ``rd``); ``1:0`` when it took none."""
    if not rs:
        return Layout._make(1, 0)
    s, d = coalesce_flat(rs, rd)
    return Layout._make(s, d)


def _left_inverse_fast(layout):
    lv = plain_ints(layout)
    return None if lv is None else left_inverse_ints(*lv)


def left_inverse(layout, mode=None):
    """An ``R`` with ``R(L(i)) == i`` for every ``i < size(L)`` where L is injective; CuTe's quasi-inverse
    (``L(R(L(i))) == L(i)``) where it is not.

    Definition (CuTe's): coalesce L and sort its modes by stride, skipping stride-0 ones:
    ``d_0 < d_1 < ...``; R is ``(d_0, d_1/d_0, ..., d_n/d_(n-1), s_n) : (0, p_0, ..., p_n)`` coalesced,
    ``p_k`` the position (prefix product) of mode k in L's domain.
    Admissibility: each stride divides the next (CuTe's "left inverse divisibility condition"). Negative
    strides: a single (coalesced) negative mode ``s:-d`` gives ``(d, s):(0, -1)``, the same function on
    L's image as CuTe's ``(-d, s):(0, 1)`` but with non-negative shapes; strides of both signs are refused,
    as CuTe's result then has negative shapes and is an inverse only under C's truncating division.
    Swizzled ``Sw o 0 o L`` and general composed ``A o off o B``: as for ``right_inverse``, checked by
    enumeration.
    Coordinate (E<i>) strides: ``_left_inverse_coord`` (one construction per axis of the codomain).
    Valid for: plain layouts with integer strides (concrete or symbolic; symbolic strides known
    non-negative), concrete coordinate layouts, concrete swizzled layouts with offset 0 and concrete general
    composed layouts with an integer offset. F2 strides are refused.
    Post-condition: ``L(R(L(i))) == L(i)`` for all ``i < size(L)``; ``R(L(i)) == i`` as well unless the
    result carries a note (``Layout.notes``) whose text starts with ``NOT_INJECTIVE`` (the stronger property holds
    exactly where its condition does; for a concrete layout the condition is false).
    """
    if mode is not None and mode != ():  # ``mode=`` (bymode.by_mode attaches at_mode)
        return left_inverse.at_mode(layout, mode=mode)
    r = _left_inverse_fast(layout)  # plain ints: no wrapper layer between the call and the kernel
    return r if r is not None else _left_inverse(layout)


left_inverse._takes_mode = True
left_inverse.at_mode = None  # set by bymode.by_mode


@operation
def _left_inverse(layout):
    if type(layout) is not Layout and hasattr(layout, "outer"):
        return _swizzled_inverse(layout, "left_inverse", _left_inverse_plain)
    return _left_inverse_plain(layout)


def _left_inverse_plain(layout):
    lv = layout.int_leaves if type(layout) is Layout else None
    if lv is not None:
        r = left_inverse_ints(*lv)
        if r is not None:
            return r
    if is_coordinate(layout):
        return _left_inverse_coord(layout)
    shapes, strides, pos = _prepare(layout, "left_inverse")
    modes = []
    if all(type(d) is int for d in strides):
        # CuTe's (unstable) exchange sort of all modes, zeros included: it decides the order of equal strides
        order = _cute_order(strides)
        shapes, strides, pos = [shapes[k] for k in order], [strides[k] for k in order], [pos[k] for k in order]
    for s, d, p in zip(shapes, strides, pos):
        unit = (s == 1) if type(s) is int else decide.is_one(s)
        if unit:
            continue
        if type(d) is not int:
            _symbolic_nonneg(s, d, "left_inverse")
        zero = (d == 0) if type(d) is int else decide.is_zero(d)
        if zero:
            # CuTe skips stride-0 modes; only the injective (size-1) case inverts them
            _note_not_injective(None if unit is None else False, Condition("eq", s, 1),
                                f"a stride-0 mode {mode_text(s, d)}")
            continue
        if unit is None:
            decide.obligate(Condition("ne", s, 1), "left_inverse keeps a mode whose size is not known to be 1")
        if zero is None:
            decide.obligate(Condition("ne", d, 0), "left_inverse keeps a mode whose stride is not known to be 0")
        modes.append((d, s, p))
    if not modes:
        # Every mode has stride 0 (or size 1): the image is {0} and R needs only R(0) == 0. CuTe DSL and CuTe IR
        # give 1:0, CuTe C++ the last sorted mode's shape, size(L):0 once coalesced (``(3,7):(0,0)`` gives
        # ``21:0``); the two agree on the image. DSL's form is the one printed (docs/model.md section 2.5).
        return Layout._make(1, 0)
    negative = [m for m in modes if type(m[0]) is int and m[0] < 0]
    if negative:
        return _left_inverse_negative(modes, negative)
    if not all(type(d) is int for d, _, _ in modes):  # concrete strides are in CuTe's order already
        order = sorted_by_stride([(k, m[0]) for k, m in enumerate(modes)])
        modes = [modes[k] for k, _ in order]
    rs, rd = [], []
    overlap = False
    d0 = modes[0][0]
    if not (type(d0) is int and d0 == 1):
        rs.append(d0)
        rd.append(0)
    for k in range(len(modes) - 1):
        d, s, p = modes[k]
        nd = modes[k + 1][0]
        decide.require(decide.divides(d, nd), Condition("divides", d, nd), "left_inverse",
                       "each stride must divide the next larger one (CuTe's left inverse divisibility "
                       "condition)", mode_text(s, d))
        gap = exact_div(nd, d)
        fits = decide.le(s, gap)
        if fits is not True and not layout.is_concrete:
            # where they overlap CuTe's construction can miss even the quasi-inverse property (checked value
            # by value for concrete layouts, _check_quasi_inverse): a symbolic result holds where they do not
            decide.require(fits, Condition("le", s, gap), "left_inverse", "modes must not overlap (symbolic "
                           "layouts; overlapping concrete ones are checked)", mode_text(s, d))
        overlap = overlap or fits is False
        _note_not_injective(fits, Condition("le", s, gap), f"mode {mode_text(s, d)} overlaps the next")
        rs.append(gap)
        rd.append(p)
    d, s, p = modes[-1]
    rs.append(s)
    rd.append(p)
    sh, st = coalesce_flat(rs, rd)
    result = Layout._make(sh, st)
    if overlap:
        _check_quasi_inverse(layout, result)
    return result


def _check_quasi_inverse(layout, result, norm=None):
    """Where modes overlap, CuTe's construction can miss its own post-condition (``(8,5):(10,5)`` at 23: the
    carries of the overlapping digits reach a mode that is not the last one); check it by enumeration.
    ``norm``: how a value is read (a coordinate layout's values as coordinates of its codomain)."""
    n = size(layout)
    if n > ENUMERATION_CAP:
        raise UndecidedError(f"left_inverse of {layout}: its modes overlap, so CuTe's quasi-inverse {result} is "
                             f"checked by enumeration, and {n} > {ENUMERATION_CAP} elements")
    norm = norm or (lambda v: v)
    for i in range(n):
        y = norm(layout(i))
        if norm(layout(result(y))) != y:
            raise NotAdmissibleError("left_inverse", f"the modes overlap and CuTe's construction {result} is not "
                                     f"a quasi-inverse: L(R(L({i}))) != L({i}) (CuTe C++ returns it all the same)")


def _cute_order(keys):
    """Indices in the order of CuTe's ``exchange_sort`` by key (not stable: ``(3,8,8):(8,8,1)`` puts the
    third mode, then the second, then the first)."""
    if len(set(keys)) == len(keys):
        return sorted(range(len(keys)), key=keys.__getitem__)  # distinct keys: any sort agrees
    a = list(range(len(keys)))
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            if keys[a[j]] < keys[a[i]]:
                a[i], a[j] = a[j], a[i]
    return a


def _note_not_injective(answer, condition, where):
    if answer is True:
        return
    text = (f"{NOT_INJECTIVE} ({where}): R is CuTe's quasi-inverse, L(R(L(i))) == L(i); R(L(i)) == i "
            + ("does not hold" if answer is False else "holds only where the condition does"))
    decide.note(text, None if answer is False else condition)


def _left_inverse_negative(modes, negative):
    if len(modes) > 1:
        d, s, _ = negative[0]
        raise NotAdmissibleError("left_inverse", "strides of both signs (or several negative modes that do not "
                                 "coalesce): CuTe C++'s result has negative shapes and is a left inverse only "
                                 "under C's truncating division", mode_text(s, d))
    d, s, p = modes[0]
    # L(i) = -|d| * i; R(x) = -(x // |d|) inverts it with non-negative shapes (floor and truncation agree
    # on the exact multiples L produces)
    sh, st = coalesce_flat([-d, s], [0, -p])
    return Layout._make(sh, st)


# --- coordinate (E<i>) strides (the order and the axes: algebra.coord) -------------------------------------

def _coord_modes(layout, op, negative=False):
    """The codomain and, per axis, the modes ``(v, s, p)`` of the coalesced layout on it (value, size,
    position in L's domain) in the order of CuTe's exchange sort by stride (0 first, then by axis and value:
    the order CuTe DSL takes for equal strides, as for integers); ``zeros``: the stride-0 modes of size > 1."""
    cod = Codomain(layout, op, negative)
    shapes, strides = _flat_coalesced(layout)
    pos, p = [], 1
    for s in shapes:
        pos.append(p)
        p *= s
    keys = [(-1, 0) if is_zero(d) else (cod.axis(d), d.value) for d in strides]
    axes = [[] for _ in range(len(cod))]
    zeros = []
    for k in _cute_order(keys):
        s, d = shapes[k], strides[k]
        if is_zero(d):
            if s != 1:
                zeros.append((s, d))
        elif s != 1:
            axes[keys[k][0]].append((d.value, s, pos[k]))
    return cod, axes, zeros


def _right_inverse_coord(layout):
    """``right_inverse`` of a concrete coordinate layout.

    Definition (CuTe IR's and NVlabs' reference; CuTe DSL agrees on every case measured): per axis ``a`` of
    the codomain, the integer stride chain of the modes on ``a`` (in CuTe's order, ``_coord_modes``): from
    ``want = 1``, a mode
    ``s : v@a`` with ``v == want`` is taken (size ``s`` at its position ``p`` in L's domain) and ``want *= s``;
    the axis's inverse is the taken modes coalesced (``1:0`` where none). R is the axes' inverses nested as
    the coprofile (``(4,5):(1@1,1@0)`` gives ``(5,4):(4,1)``). Zero and negative strides are never on a chain.
    Post-condition: ``L(R(c)) == c`` for every coordinate ``c`` of R's domain (``c = idx2crd(i, shape(R))``
    for ``i < size(R)``, read as a point of the codomain)."""
    cod, axes, _ = _coord_modes(layout, "right_inverse", negative=True)
    parts = []
    for modes in axes:
        rs, rd = [], []
        want = 1
        for v, s, p in modes:
            if v == want:
                rs.append(s)
                rd.append(p)
                want *= s
        parts.append(coalesce_flat_ints(rs, rd, False))
    return Layout._make(*cod.assemble(parts))


def _left_inverse_coord(layout):
    """``left_inverse`` of a concrete coordinate layout.

    Definition (CuTe IR's and NVlabs' reference; CuTe DSL agrees on every case measured): per axis ``a`` of
    the codomain, CuTe's integer construction on the modes ``s_k : v_k@a`` of that axis sorted by value
    (equal values in CuTe's order, ``_coord_modes``):
    ``(v_0, v_1/v_0, ..., s_n) : (0, p_0, ..., p_n)`` coalesced (``1:0`` for an axis with no mode), ``p_k``
    the position of mode k in L's domain; R is the axes' layouts nested as the coprofile
    (``(2,3):(1@0,1@1)`` gives ``(2,3):(1,2)``; R reads a coordinate of the codomain).
    Admissibility: each stride divides the next on its axis (CuTe's left inverse divisibility condition,
    which DSL and NVlabs enforce too); concrete, non-negative strides.
    Post-condition: ``L(R(L(i))) == L(i)`` for all ``i < size(L)``; ``R(L(i)) == i`` as well unless the
    result carries a ``NOT_INJECTIVE`` note (a stride-0 mode of size > 1, or modes that overlap on an axis:
    then CuTe's quasi-inverse, checked value by value as for integers).
    """
    cod, axes, zeros = _coord_modes(layout, "left_inverse")
    for s, d in zeros:
        _note_not_injective(False, None, f"a stride-0 mode {mode_text(s, d)}")
    parts = []
    overlap = False
    for modes in axes:
        if not modes:
            parts.append((1, 0))
            continue
        rs, rd = [], []
        if modes[0][0] != 1:
            rs.append(modes[0][0])
            rd.append(0)
        for (v, s, p), (nv, _, _) in zip(modes, modes[1:]):
            if nv % v:
                raise NotAdmissibleError("left_inverse", f"each stride must divide the next larger one on its "
                                         f"coordinate (CuTe's left inverse divisibility condition): {v} does not "
                                         f"divide {nv}", mode_text(s, v))
            if s > nv // v:
                overlap = True
                _note_not_injective(False, None, f"mode {s}:{v} overlaps the next on its coordinate")
            rs.append(nv // v)
            rd.append(p)
        rs.append(modes[-1][1])
        rd.append(modes[-1][2])
        parts.append(coalesce_flat_ints(rs, rd, False))
    result = Layout._make(*cod.assemble(parts))
    if overlap:
        _check_quasi_inverse(layout, result, cod.coordinate)
    return result


# --- swizzled layouts -------------------------------------------------------------------------------------

def _swizzled_inverse(layout, op, plain):
    """CuTe: ``inverse(Sw o 0 o L) = inverse(L) o Sw``, turned into ``Sw' o 0 o inverse(L)`` by the masks'
    images (composition of a layout with a swizzle); checked here by enumeration."""
    sw, off, inner = layout.inner, layout.offset, layout.outer
    if not isinstance(sw, Swizzle):
        result = _composed_inverse(layout, op)
    else:
        if not (type(off) is int and off == 0):
            raise NotAdmissibleError(op, f"a swizzled layout with offset {off} != 0: CuTe's inverse is "
                                         "R o -offset o Sw, which has no layout form here")
        if not inner.is_concrete:
            raise NotAdmissibleError(op, "the inverse of a symbolic swizzled layout is not supported")
        R = plain(inner)
        new = R if sw.bits == 0 else _swizzle_of_masks(R(sw.yyy_mask), R(sw.zzz_mask), op, sw, R)
        result = new if isinstance(new, Layout) else ComposedLayout(new, 0, R)
    if _inverse_by_bits(layout, result, op):
        return result
    n = size(result) if op == "right_inverse" else size(inner)
    m = size(inner)
    if n > ENUMERATION_CAP:
        raise UndecidedError(f"{op} of {layout}: CuTe's result {result} is checked by enumeration, and "
                             f"{n} > {ENUMERATION_CAP} elements")
    for i in range(n):
        if op == "right_inverse":
            j = result(i)
            ok = type(j) is int and 0 <= j < m and layout(j) == i
        else:
            y = layout(i)
            ok = layout(result(y)) == y
        if not ok:
            raise NotAdmissibleError(op, f"CuTe's construction {result} is not a {op.replace('_', ' ')} of "
                                         f"{layout} (it fails at {i})")
    if op == "left_inverse" and any(result(layout(i)) != i for i in range(n)):
        decide.note(f"{NOT_INJECTIVE}: R is CuTe's quasi-inverse, L(R(L(i))) == L(i); R(L(i)) == i does not hold")
    return result


def _inverse_by_bits(layout, result, op) -> bool:
    """True when ``result`` is proved, independent of the size, to be an exact ``op`` of ``layout`` by F2
    algebra (``core.bitlinear``): both F2-affine in their index bits (a swizzle over power-of-two strides
    with disjoint bits), the inner one's values inside the range where the outer one is affine, and the
    composite the identity on every index bit (an affine map equal to the identity at 0 and at every ``2**j``
    of a domain ``[0, N)``, ``2**j < N``, is the identity there). left: ``R(L(i)) == i`` for ``i < size(L)``
    (so ``L`` is injective: no note is due); right: ``R(i)`` in ``[0, size(L))`` and ``L(R(i)) == i`` for
    ``i < size(R)``. False where the structure does not apply or the check fails (the caller enumerates)."""
    first, second = (layout, result) if op == "left_inverse" else (result, layout)
    f = bit_affine(first)
    if f is None:
        return False
    if op == "right_inverse" and max_below(f, size(result)) >= size(layout):
        return False
    reach = f.reach()
    g = bit_affine(second, reach.bit_length())
    if g is None or g(f.const) != 0:
        return False
    return all(g(c) ^ g.const == 1 << j for j, c in enumerate(f.cols))


def _composed_inverse(layout, op):
    """CuTe C++'s inverse of a general composed layout ``A o off o B`` (``layout_composed.hpp``):
    ``inverse(B) o -off o inverse(A)``, ``x -> inverse(B)(inverse(A)(x) - off)``. Admissible for concrete
    layouts with an integer offset whose parts have inverses (integer strides); the caller checks the
    result value by value, since it inverts ``L`` only where ``inverse(A)`` lands where ``B`` reaches."""
    inv = right_inverse if op == "right_inverse" else left_inverse
    off = layout.offset
    if type(off) is not int:
        raise NotAdmissibleError(op, f"a composed layout with the offset {layout.offset}: CuTe's inverse "
                                     "inverse(B) o -offset o inverse(A) needs an integer offset", str(layout))
    if not layout.is_concrete:
        raise NotAdmissibleError(op, "the inverse of a symbolic composed layout is not supported (CuTe's "
                                     "result is checked value by value)", str(layout))
    return ComposedLayout(inv(layout.outer), -off, inv(layout.inner))


def _swizzle_of_masks(y, z, op, sw, R):
    """CuTe's ``make_swizzle<Y, Z>``: the swizzle that XORs the bits of ``Y`` into those of ``Z``."""
    def refuse(why):
        return NotAdmissibleError(op, f"CuTe's inverse of {sw} o 0 o L composes {R} with the swizzle, and the "
                                      f"swizzle's bits map to {y}, {z}: {why}")
    if type(y) is not int or type(z) is not int or y < 0 or z < 0:
        raise refuse("not non-negative bit masks")
    if y == 0 and z == 0:
        return R
    b = bin(y).count("1")
    if b != bin(z).count("1") or y == 0 or z == 0:
        raise refuse("the numbers of bits do not match (CuTe rejects it)")
    ty, tz = (y & -y).bit_length() - 1, (z & -z).bit_length() - 1
    m, s = min(ty, tz), ty - tz
    if abs(s) < b:
        raise refuse("the bit ranges overlap")
    new = Swizzle(b, m, s)
    if (y | z) != (new.yyy_mask | new.zzz_mask):
        raise refuse("the bits are not two contiguous ranges (CuTe rejects it)")
    return new


# --- common vectors --------------------------------------------------------------------------------------------

@operation
def max_common_layout(a, b):
    """The largest layout ``R`` with ``A(R(i)) == B(R(i)) == i`` on contiguous elements (``1:0`` when they
    share none).

    Definition (CuTe's): ``inv = right_inverse(B)``, ``C = coalesce(A o inv)``; where C's first mode has stride
    1, ``inv o C<0>``, else ``1:0``. One argument swizzled, ``Sw o 0 o A'`` (either side; CuTe swaps them):
    the common layout of ``A'`` and the other, truncated to ``2^M`` elements (the bits a swizzle leaves
    alone). Valid for: plain integer-stride layouts; one concrete swizzled layout with offset 0 (two swizzled
    layouts: CuTe has no such overload, refused).
    Post-condition: ``A(R(i)) == B(R(i)) == i`` for ``i < size(R)``. Coordinate (E<i>) layouts are refused:
    ``== i`` compares integer offsets, and their values are coordinates.
    """
    for x in (a, b):
        if is_coordinate(x.outer if hasattr(x, "outer") and type(x) is not Layout else x):
            raise NotAdmissibleError("max_common_layout", "a common vector compares integer offsets, and this "
                                     "layout has coordinate (E<i>) strides", str(x))
    if hasattr(a, "outer") or hasattr(b, "outer"):
        if hasattr(a, "outer") and hasattr(b, "outer"):
            raise NotAdmissibleError("max_common_layout", "both layouts swizzled (CuTe C++ has no such overload); "
                                     "use max_common_vector")
        sw, plain = (a, b) if hasattr(a, "outer") else (b, a)
        base = 1 << _swizzle_base(sw, "max_common_layout")
        common = max_common_layout(sw.outer, plain)
        return composition(common, Layout._make(base, 1)) if base < size(common) else common
    inv_b = right_inverse(b)
    common = coalesce(composition(a, inv_b))
    s0 = common.shape[0] if type(common.shape) is tuple else common.shape
    d0 = common.stride[0] if type(common.stride) is tuple else common.stride
    if type(d0) is int and d0 == 1:
        return composition(inv_b, Layout._make(s0, 1) if type(common.shape) is tuple else common)
    return Layout._make(1, 0)


def max_common_vector(a, b):
    """How many elements A and B keep contiguous (and in the same order) from 0: the widest common
    vectorisation, ``size(max_common_layout(a, b))``.

    Swizzled (CuTe's): one side ``Sw o 0 o A'``: ``min(max_common_vector(A', B), 2^M)``; both swizzled,
    ``Sw0 o 0 o A'`` and ``Sw1 o 0 o B'``: ``max_common_vector(A', B')`` when ``Sw0 == Sw1`` (after
    checking that ``[0, N)`` is closed under the swizzle, else refused), otherwise also capped by ``2^M0`` and
    ``2^M1``. Valid for: plain integer-stride layouts; concrete swizzled layouts with offset 0.
    Post-condition: ``A(B^-1(n)) == n`` for ``n < N`` (B's inverse on its first N elements).
    """
    if not (hasattr(a, "outer") and hasattr(b, "outer")):
        return size(max_common_layout(a, b))
    m0, m1 = _swizzle_base(a, "max_common_vector"), _swizzle_base(b, "max_common_vector")
    vec = max_common_vector(a.outer, b.outer)
    if a.inner != b.inner:
        return min(vec, 1 << m0, 1 << m1)
    if type(vec) is int and any(a.inner(n) >= vec for n in range(min(vec, ENUMERATION_CAP))):
        raise NotAdmissibleError("max_common_vector", f"[0, {vec}) is not closed under {a.inner}, so CuTe's "
                                                      f"answer {vec} is not a common vector")
    return vec


def _swizzle_base(layout, op):
    sw, off = layout.inner, layout.offset
    if not isinstance(sw, Swizzle):
        raise NotAdmissibleError(op, "a composed layout whose outer function is a layout, not a swizzle: CuTe "
                                     "defines common vectors of swizzled layouts only", str(layout))
    if not (type(off) is int and off == 0):
        raise NotAdmissibleError(op, f"a swizzled layout with offset {off} != 0: A(R(0)) is not 0")
    return sw.base


__all__ = ["right_inverse", "left_inverse", "max_common_layout", "max_common_vector", "NOT_INJECTIVE"]
