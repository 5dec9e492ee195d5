"""Complement (docs/model.md section 3; Shah Def. 2.5)."""
from __future__ import annotations

import math

from ..core.convention import keeps_size1
from ..core.kernels import coalesce_flat_ints, coalesce_ints
from ..core.layout import Layout, compact_col_major, cosize
from ..core.strides import F2
from ..core.notation.format import format_tuple
from ..core.tuples import flatten, product, transform
from ..errors import NotAdmissibleError
from ..symbolic import decide, normalize
from ..symbolic.conditions import Condition
from ..symbolic.lazy import sympy
from ._op import exact_div, mode_text, operation, plain_ints
from .coalesce import coalesce_flat
from .coord import Codomain, basis, is_coordinate, is_zero

# The reason of the obligation a complement carries when the strides do not nest (tests look for it).
NOT_NESTED = "complement: the strides do not nest"


def _complement_fast(layout, cotarget=None):
    """``complement`` of a plain concrete layout whose modes nest (no note), outside any context; else None."""
    if cotarget is not None and type(cotarget) is not int:
        return None
    lv = plain_ints(layout)
    if lv is None:
        return None
    r = complement_ints(lv[0], lv[1], cotarget, nested_only=True)
    return None if r is None else Layout._make_ints(*r, flat=True)


def complement(layout, cotarget=None, mode=None):
    """The ordered layout ``R`` that fills what ``layout`` leaves out of ``[0, cotarget)``.

    Definition (CuTe's): drop stride-0 and size-1 modes, sort the rest by stride; with ``cur = 1``, each mode
    ``s:d`` contributes ``floor(d/cur) : cur`` and sets ``cur = d*s``; finally ``ceil_div(cotarget, cur)``
    laid out column-major from ``cur``; coalesce. ``cotarget`` defaults to ``cosize(layout)``; a shape
    cotarget is divided mode by mode as CuTe's ``ceil_div`` does (``complement(2:1, (3,4))`` is ``8:2``).
    Nothing left (every mode of size 1) is ``1:0`` (CuTe DSL's form), or under ``core.convention``'s
    ``"keep"`` the construction's last mode (CuTe IR's: ``complement(3:1, 3)`` is ``1:3``).
    Valid for: plain layouts with integer strides (concrete or symbolic) and concrete layouts with coordinate
    (E<i>) strides (``_complement_coord``: one construction per axis of the codomain). F2 (``^v``) strides,
    negative strides and swizzled layouts are refused (named conditions).
    Admissibility: strides non-negative (CuTe's construction gives negative shapes otherwise, e.g.
    ``(-1,0):(1,-4)`` for ``4:-1``); no non-trivial mode of size 0 (CuTe divides by zero); every
    ``floor(d/cur) >= 1`` (a mode that starts inside the extent of the smaller ones: CuTe rejects it as
    non-injective). Nesting (``cur | d``) is not a condition: where it fails CuTe truncates, and so does
    every path here (``_walk_ints`` / ``_step``: one rule for the integer fast path and the symbolic path);
    only where nesting is undecided for symbolic entries is the result claimed under the obligation ``cur | d``.
    Post-condition (CuTe's, always): ``R`` is ordered (strictly increasing) and ``image(R)`` meets
    ``image(layout)`` only at 0. Where ``cur`` divides each sorted stride in turn (the modes nest), also
    ``(layout, R)`` is a bijection onto ``[0, size(layout)*size(R))``, which covers ``[0, cotarget)``; where
    they do not, the result carries a note (``Layout.notes``) whose text starts with ``NOT_NESTED``: that
    stronger property does not hold (it is a statement about the result, not a condition for its validity),
    and the reason also names any of CuTe's size bounds (``size(R) >= M // size(A)``, ``cosize((A, R)) >= M``,
    ``cosize(R) <= round_up(M, cosize(A))``) that CuTe's truncated result misses.
    """
    if mode is not None and mode != ():  # ``mode=`` (bymode.by_mode attaches at_mode)
        return complement.at_mode(layout, *(() if cotarget is None else (cotarget,)), mode=mode)
    r = _complement_fast(layout, cotarget)  # plain ints: no wrapper layer between the call and the kernel
    return r if r is not None else _complement(layout, cotarget)


complement._takes_mode, complement.at_mode = True, None  # at_mode: set by bymode.by_mode


@operation
def _complement(layout, cotarget=None):
    if type(layout) is Layout and (cotarget is None or type(cotarget) is int):
        lv = layout.int_leaves  # plain ints first: no coordinate or composed checks needed
        if lv is not None:
            return Layout._make_ints(*complement_ints(lv[0], lv[1], cotarget), flat=True)
    if type(layout) is not Layout and hasattr(layout, "outer"):
        raise NotAdmissibleError("complement", "a composed (or swizzled) layout has no complement of its own "
                                 "image (CuTe C++ takes the complement of the inner layout, CuTe's IR refuses "
                                 "it); take it of the inner layout")
    if isinstance(cotarget, Layout) or hasattr(cotarget, "outer"):
        cotarget = _size_of_text(cotarget)
    if is_coordinate(layout):
        return _complement_coord(layout, cotarget)
    lv = layout.int_leaves if type(layout) is Layout else None
    if lv is not None and (cotarget is None or type(cotarget) is int):
        s, d = complement_ints(lv[0], lv[1], cotarget)
        return Layout._make_ints(s, d, flat=True)
    fs, fd = _ints(flatten(layout.shape)), _ints(flatten(layout.stride))
    concrete = all(type(x) is int for x in fs) and all(type(x) is int for x in fd)
    if concrete and (cotarget is None or type(cotarget) is int or
                     (type(cotarget) is tuple and all(type(x) is int for x in flatten(cotarget)))):
        s, d = complement_ints(fs, fd, cotarget)
        return Layout._make(s, d)
    for s, d in zip(fs, fd):
        if isinstance(d, F2):
            raise NotAdmissibleError("complement", "F2 (^v) strides: the complement of an XOR-linear layout "
                                     "is not implemented", mode_text(s, d))
    if concrete:
        _check_ints(fs, fd)
    if cotarget is None:
        cotarget = cosize(layout)
    _positive(product(cotarget) if type(cotarget) is tuple else cotarget)
    merged = _split_unit_modes(fs, fd, cotarget)
    return merged if merged is not None else _complement_symbolic(fs, fd, cotarget)


def _ints(xs):
    """Leaves with sympy integers (a substituted symbol, a parsed constant) made plain ints."""
    return tuple(int(x) if getattr(x, "is_Integer", False) else x for x in xs)


def _size_of_text(t):
    """A cotarget given as text (``"64"``, ``"16*M"``, ``"(4,8)"``) reaches here parsed as a layout (the
    operation wrapper reads every string argument as one): a rank-1 or shape-like layout with compact
    strides names its shape; any other layout is no size."""
    if type(t) is Layout and t.stride == compact_col_major(t.shape) or \
            type(t) is Layout and type(t.shape) is not tuple and t.stride == 1:
        return t.shape
    raise NotAdmissibleError("complement", f"the cotarget must be a size (an integer or an integer expression) "
                             f"or a shape, got the layout {t}")


#: At most this many modes of unknown size are split on (each split runs the construction twice).
SPLIT_LIMIT = 3


def _split_unit_modes(fs, fd, cotarget, depth=0):
    """A case split on ``X == 1`` for the first mode whose size is a symbol ``X`` not known to be 1 (the
    construction drops a size-1 mode and sorts the others by stride, so it needs to know). Where both cases
    give the same result at ``X = 1`` (the same printed form, so the same function on the extended domain
    too) the generic case's result is returned without the obligation ``X != 1`` (with it where only the
    functions on ``[0, size)`` agree); None where the cases differ, or
    where the case ``X == 1`` needs obligations of its own (the caller then takes the generic branch)."""
    if depth >= SPLIT_LIMIT:
        return None
    for sz, d in zip(fs, fd):
        if isinstance(sz, sympy.Symbol) and decide.is_one(sz) is None and decide.is_zero(d) is not True:
            break
    else:
        return None

    def run():
        inner = _split_unit_modes(fs, fd, cotarget, depth + 1)
        return inner if inner is not None else _complement_symbolic(fs, fd, cotarget)

    pieces = list(decide.split(Condition("eq", sz, 1), run))
    if any(not isinstance(p.value, Layout) for p in pieces):
        return None
    generic = pieces[-1]
    if len(pieces) == 2:
        unit = pieces[0]
        a, b = _at(unit.value, sz), _at(generic.value, sz)
        if not _same_function(a, b):
            return None
        for o in unit.obligations:
            c = o.condition
            if o not in generic.obligations and not o.canonical and \
                    _holds_at(c, sz) is not True:
                return None
        if str(a) != str(b):
            # the same function on [0, size) but not on the extended domain, which a product composes with:
            # the generic result is claimed only where the size is not 1, as without the split
            decide.obligate(Condition("ne", sz, 1), "complement treats a mode of unknown size as non-trivial")
    for o in generic.obligations:
        decide.obligate(o.condition, o.reason, o.canonical)
    for n in generic.notes:
        decide.note(n.text, n.condition)
    return generic.value


def _at(L, sz):
    """``L`` with the symbol ``sz`` set to 1 (no obligation checks: the case is known to hold)."""
    sub = lambda x: x if type(x) is int else normalize(sympy.sympify(x).subs(sz, 1))
    return Layout(transform(L.shape, sub), transform(L.stride, sub))


def _same_function(a, b):
    """The same function on ``[0, size)``: equal printed forms, or equal coalesced forms (symbolic; decided
    in a context of their own, so coalesce's undecided steps record nothing on the result), or equal value
    tables (concrete)."""
    if str(a) == str(b):
        return True
    if a.free_symbols() or b.free_symbols():
        outer = decide.current()
        ctx = decide.Context(outer.assumptions if outer is not None else None)
        token = decide.enter(ctx)
        try:
            ca = coalesce_flat(list(flatten(a.shape)), list(flatten(a.stride)))
            cb = coalesce_flat(list(flatten(b.shape)), list(flatten(b.stride)))
        finally:
            decide.leave(token)
        return not ctx.obligations and str(ca) == str(cb)
    return product(a.shape) == product(b.shape) and list(a.values()) == list(b.values())


def _holds_at(c, sz):
    """Is the condition true at ``sz = 1`` under the current assumptions?"""
    if not hasattr(c, "kind"):
        return None
    a, b = (x if type(x) is int else sympy.sympify(x).subs(sz, 1) for x in (c.a, c.b))
    r = {"eq": decide.eq, "lt": decide.lt, "le": decide.le, "divides": decide.divides}.get(c.kind)
    if r is None:  # ne
        e = decide.eq(a, b)
        return None if e is None else not e
    return r(a, b)


def _positive(m):
    if type(m) is int:
        if m <= 0:
            raise NotAdmissibleError("complement", f"the cotarget must be a positive size, got {m}")
    elif hasattr(m, "free_symbols"):
        decide.require(decide.lt(0, m), Condition("lt", 0, m), "complement", "the cotarget must be a positive size")


def _check_ints(fs, fd):
    for s, d in zip(fs, fd):
        if d < 0 and s != 1:
            raise NotAdmissibleError("complement", "strides must be non-negative (CuTe C++'s construction gives "
                                     "a layout with negative shapes here)", mode_text(s, d))
        if s == 0 and d != 0:
            raise NotAdmissibleError("complement", "a layout of size 0 has no complement (CuTe C++ divides by "
                                     "zero here)", mode_text(s, d))


def _overlap(s, d, cur):
    return NotAdmissibleError("complement", f"mode {s}:{d} starts inside the extent {cur} of the smaller modes "
                                            "(they overlap or interleave; CuTe C++ rejects it as non-injective)",
                              mode_text(s, d))


def complement_ints(fs, fd, cotarget, nested_only=False):
    """The construction on plain ints, without the decision interface (the concrete fast path);
    ``nested_only``: None where the modes do not nest (the result would carry a note)."""
    modes = []
    for s, d in zip(fs, fd):
        if d == 0 or s == 1:
            continue
        if d < 0 or s == 0:
            _check_ints((s,), (d,))
        modes.append((d, s))
    modes.sort()
    if cotarget is None:
        cotarget = 1 + sum((s - 1) * d for d, s in modes)
    if type(cotarget) is tuple:
        _positive(math.prod(flatten(cotarget)))
    elif cotarget <= 0:
        _positive(cotarget)
    if type(cotarget) is not tuple:
        # _walk_ints while every mode nests, size-1 modes dropped as it goes: each stride then lies past the
        # extent r*cur of every earlier mode, so no two chain and the closing coalesce would only drop them
        rs, rd, cur = [], [], 1
        for d, s in modes:
            r = d // cur
            if r * cur != d:
                break  # a gap or an overlap (r == 0): the full walk below notes or refuses it
            if r != 1:
                rs.append(r)
                rd.append(cur)
            cur = d * s
        else:
            r = -(-cotarget // cur)
            if r != 1:
                rs.append(r)
                rd.append(cur)
            if rs:
                return (tuple(rs), tuple(rd)) if len(rs) > 1 else (rs[0], rd[0])
            return (1, cur) if keeps_size1() else (1, 0)
    shapes, strides, cur, gap = _walk_ints(modes)
    if type(cotarget) is tuple:
        for r in _ceil_div_shape(cotarget, cur):
            shapes.append(r)
            strides.append(cur)
            cur = cur * r
    else:
        shapes.append(-(-cotarget // cur))
        strides.append(cur)
    if gap is not None:
        if nested_only:
            return None
        _note_not_nested(gap, _bounds(modes, shapes, strides, cotarget))
    return _size1(coalesce_ints(shapes, strides, False), strides)


def _size1(result, strides):
    """Nothing left to complement: ``1:0`` by CuTe DSL's convention, the construction's last mode (``1:cur``)
    by CuTe IR's (``core.convention``)."""
    if keeps_size1() and type(result[0]) is int and result[0] == 1:
        return 1, strides[-1]
    return result


def _walk_ints(modes):
    """The modes' part of the construction on plain ints, ``modes`` sorted ``(d, s)`` pairs: the rule both
    paths apply. A mode with ``d < cur`` starts inside the extent of the smaller modes and is refused (CuTe
    rejects it as non-injective); otherwise it contributes ``floor(d/cur) : cur``, truncated as CuTe does
    where ``cur`` does not divide ``d``. Returns the shapes, strides, the extent ``cur`` of all modes and
    the first ``(cur, d)`` that does not nest (None where all nest)."""
    shapes, strides = [], []
    cur = 1
    gap = None
    for d, s in modes:
        r = d // cur
        if r == 0:
            raise _overlap(s, d, cur)
        if gap is None and r * cur != d:
            gap = (cur, d)
        shapes.append(r)
        strides.append(cur)
        cur = d * s
    return shapes, strides, cur, gap


def _step(s, d, cur):
    """One mode of the construction where ``d`` or ``cur`` is symbolic: ``_walk_ints``'s rule through the
    decision interface. Returns the mode's shape and the ``(cur, d)`` it truncates at (None where it nests);
    where nesting is undecided the result is claimed under the obligation ``cur | d``."""
    if decide.lt(d, cur) is True:
        raise _overlap(s, d, cur)
    nested = decide.divides(cur, d)
    if nested is False:
        # a truncated shape of 0 would be the overlap: claimed only where the mode starts past ``cur``
        decide.require(decide.le(cur, d), Condition("le", cur, d), "complement",
                       f"mode {s}:{d} must not start inside the extent {cur} of the smaller modes",
                       mode_text(s, d))
        return normalize(sympy.floor(sympy.sympify(d) / cur)), (cur, d)
    decide.require(nested, Condition("divides", cur, d), "complement",
                   "each stride must be a multiple of the extent of the smaller modes where that is undecided for "
                   "symbolic entries (CuTe truncates where it is not; the truncation is represented only for "
                   "decided strides)", mode_text(s, d))
    return exact_div(d, cur), None


def _ceil_div_shape(shape, b):
    """CuTe's ``ceil_div(tuple, int)``: each mode is divided by what is left of ``b`` (flattened modes)."""
    out = []
    for a in flatten(shape):
        out.append(-(-a // b))
        b = -(-b // a)
    return out


def _bounds(modes, shapes, strides, cotarget):
    """CuTe's documented size bounds that a truncated complement misses (plain ints), as text."""
    m = product(cotarget) if type(cotarget) is tuple else cotarget
    size_a = math.prod(s for _, s in modes)
    size_r = math.prod(shapes)
    cos_a = 1 + sum((s - 1) * d for d, s in modes)
    cos_r = 1 + sum((s - 1) * d for s, d in zip(shapes, strides))
    missed = [what for ok, what in (
        (size_r >= m // size_a, f"size(R) >= {m} // size(A) ({size_r} < {m // size_a})"),
        (cos_a + cos_r - 1 >= m, f"cosize((A, R)) >= {m} ({cos_a + cos_r - 1})"),
        (cos_r <= -(-m // cos_a) * cos_a, f"cosize(R) <= round_up({m}, {cos_a}) ({cos_r})")) if not ok]
    return f"; it also misses CuTe's bound {', '.join(missed)}" if missed else ""


def _note_not_nested(gap, also=""):
    """Where the strides do not nest, CuTe's truncated result is still ordered and meets A only at 0 (the
    non-zero values of R and of A lie in alternating intervals ``[cur_k, d_k)`` and ``[d_k, cur_k+1)``, as
    ``floor(d_k/cur_k) >= 1``), but (A, R) has gaps and R can fall short of CuTe's documented size bounds.
    CuTe's own products compose with that R on its extended domain (CUTLASS logical_product.cpp:212), so
    the result is returned and its note says what does not hold."""
    decide.note(f"{NOT_NESTED} ({gap[0]} does not divide {gap[1]}): R is CuTe's truncated complement (ordered, "
                "meets A only at 0), but (A, R) is not a bijection onto [0, size(A)*size(R)) and need not "
                f"cover [0, cotarget){also}")


def _complement_symbolic(fs, fd, cotarget):
    """The construction through the decision interface (symbolic sizes, strides or cotarget)."""
    modes = []
    for s, d in zip(fs, fd):
        if type(d) is int and type(s) is int:
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
        modes = sorted_by_stride(modes)
    if all(type(s) is int and type(d) is int for s, d in modes):
        shapes, strides, cur, gap = _walk_ints([(d, s) for s, d in modes])
        if gap is not None:
            also = _bounds([(d, s) for s, d in modes], shapes, strides, cotarget) \
                if all(type(x) is int for x in flatten(cotarget)) else ""
            _note_not_nested(gap, also)
    else:
        shapes, strides = [], []
        cur = 1
        gap = None
        for s, d in modes:
            r, g = _step(s, d, cur)
            gap = gap or g
            shapes.append(r)
            strides.append(cur)
            cur = d * s
        if gap is not None:
            _note_not_nested(gap)
    if type(cotarget) is tuple:
        rest = cur
        for a in flatten(cotarget):
            q, rest = _div_step(a, rest)
            shapes.append(q)
            strides.append(cur)
            cur = cur * q
    else:
        shapes.append(_ceil_div(cotarget, cur))
        strides.append(cur)
    s, d = _size1(coalesce_flat(shapes, strides), strides)
    return Layout._make(s, d)


def _div_step(a, rest):
    """One mode of CuTe's ``ceil_div(shape, rest)``: ``(ceil(a/rest), ceil(rest/a))``."""
    if type(a) is int and type(rest) is int:
        return -(-a // rest), -(-rest // a)
    if decide.is_one(rest) is True:
        return a, 1
    if decide.le(a, rest) is True:
        return 1, _ceil_div(rest, a)
    return _ceil_div(a, rest), 1


def _ceil_div(a, b):
    """``ceil(a/b)`` for positive sizes, through the decision interface."""
    if type(a) is int and type(b) is int:
        return -(-a // b)
    if decide.le(a, b) is True:
        return 1
    if decide.suppose(decide.divides(b, a), Condition("divides", b, a),
                      "complement's last mode is exact when the extent divides the cotarget"):
        return exact_div(a, b)
    return sympy.ceiling(sympy.sympify(a) / b)


def sorted_by_stride(modes):
    """Insertion sort by stride with every comparison decided under the assumptions."""
    out = []
    for m in modes:
        i = len(out)
        while i > 0 and decide.decided(decide.lt(m[1], out[i - 1][1]),
                                       f"whether stride {m[1]} < {out[i - 1][1]} (complement sorts by stride)"):
            i -= 1
        out.insert(i, m)
    return out


# --- coordinate (E<i>) strides ----------------------------------------------------------------------------

def _complement_coord(layout, cotarget):
    """``complement`` of a concrete coordinate layout (the order and the axes: ``algebra.coord``).

    Definition (CuTe IR's, NVlabs' reference ``complement(A, extend)``; CuTe DSL gives the same where it
    takes the call): one integer construction per axis ``a`` of the codomain, on the modes ``s:v@a`` of that
    axis sorted by ``v``: with ``cur = 1`` each contributes ``floor(v/cur) : cur@a`` and sets ``cur = v*s``,
    as ``_walk_ints`` does for integers (the same refusals and the same ``NOT_NESTED`` note); the axis ends
    with ``n : cur@a``. The result is the axes' layouts nested as the coprofile (``3:4@2`` gives
    ``(1,1,(4,1)):(1@0,1@1,(1@2,12@2))``).
    ``cotarget`` None: ``n = 1`` and the trailing mode is kept (the minimal complement; its extent carries
    the extended domain, which the products compose with). ``cotarget`` a shape ``(M_0, M_1, ...)`` read by
    the coprofile's structure: ``n = ceil(size(M_a)/cur)`` per axis, then coalesced (a trailing size-1 mode is
    dropped unless it is all that is left: ``1:cur@a``); modes of the cotarget past the coprofile are whole
    axes ``M_i : 1@i``. An integer ``M`` is the shape ``(M)`` when the codomain has one axis.
    Admissibility: as for integers per axis (non-negative strides, no overlap); concrete sizes and strides;
    a cotarget that names every axis (an integer cotarget for several axes, or a shape of lower rank than
    the coprofile, is refused: CuTe IR refuses every cotarget here, cutegen gives the integer to every axis
    and CuTe DSL only to the first, so the references do not say how far each axis extends).
    Post-condition: per axis, ``R_a`` is ordered and meets the image of the axis's modes only at 0; so
    ``R`` is ordered in the colexicographic order of coordinates and ``image(R)`` meets ``image(layout)``
    only at 0. Where every axis nests, ``(layout, R)`` is injective and, with a cotarget, covers the box
    ``[0, M_0) x [0, M_1) x ...``.
    """
    cod, walks = _coord_walks(layout)
    ext = _coord_extents(cod, cotarget)
    shape, stride = _coord_result(cod, walks, ext)
    if type(cotarget) is tuple and len(cotarget) > len(cod.root):
        extra = [_whole_axis(cotarget[i], (i,)) for i in range(len(cod.root), len(cotarget))]
        shape = shape + tuple(x for x, _ in extra)
        stride = stride + tuple(y for _, y in extra)
    return Layout._make(shape, stride)


def repeat_complement(layout, reach):
    """The complement a product composes its tiler with, for a concrete coordinate layout (CuTe IR's and
    NVlabs' ``logical_product(A, B) = (A, complement(A) o B)``): the minimal complement (``reach`` None: a
    coordinate tiler, whose bases pick the axes, each composed on its extended domain) or, for an integer
    tiler of cosize ``reach``, the minimal complement with its last axis's trailing mode grown to
    ``ceil(reach / size(minimal))`` so that ``size(R) >= reach`` (the same function on ``[0, reach)`` as the
    minimal one on its extended domain; the other axes' size-1 trailing modes drop out). The copies of A
    therefore stack along the last coordinate of the codomain. Post-condition: as ``_complement_coord``'s."""
    cod, walks = _coord_walks(layout)
    if reach is None:
        return Layout._make(*_coord_result(cod, walks, [None] * len(cod)))
    if type(reach) is not int:
        raise NotAdmissibleError("logical_product", "a symbolic tiler of a coordinate (E<i>) layout is not "
                                 "supported", str(reach))
    gaps = math.prod(math.prod(shapes) for shapes, _, _ in walks)
    ext = [1] * (len(cod) - 1) + [max(1, -(-reach // gaps)) * walks[-1][2]]
    return Layout._make(*_coord_result(cod, walks, ext))


def _coord_walks(layout):
    """The codomain's axes and, per axis, ``_walk_ints`` over its modes: ``(shapes, strides, cur)``."""
    cod = Codomain(layout, "complement")
    axes = [[] for _ in range(len(cod))]
    for s, d in zip(*layout.leaves):
        if s == 1 or is_zero(d):
            continue
        if s == 0:
            _check_ints((s,), (d.value,))
        axes[cod.axis(d)].append((d.value, s))
    walks = []
    for k, modes in enumerate(axes):
        modes.sort()
        shapes, strides, cur, gap = _walk_ints(modes)
        if gap is not None:
            _note_not_nested(gap, f" (axis {cod.paths[k]})")
        walks.append((shapes, strides, cur))
    return cod, walks


def _coord_result(cod, walks, ext):
    """Each axis's modes and its last mode ``ceil(ext/cur) : cur`` (``1 : cur`` kept where ``ext`` is None),
    coalesced, nested as the coprofile."""
    parts = []
    for (shapes, strides, cur), e, path in zip(walks, ext, cod.paths):
        if e is None:
            sh, st = coalesce_flat_ints(shapes + [1], strides + [cur], True)
        else:
            sh, st = coalesce_flat_ints(shapes + [-(-e // cur)], strides + [cur], False)
            if sh == 1:
                st = cur
        parts.append((sh, tuple(basis(v, path) for v in st) if type(st) is tuple else basis(st, path)))
    return cod.assemble(parts)


def _coord_extents(cod, cotarget):
    """The extent to cover on each axis (None: the minimal complement)."""
    if cotarget is None:
        return [None] * len(cod)
    if type(cotarget) is int:
        _positive(cotarget)
        if len(cod) != 1:
            raise NotAdmissibleError("complement", f"an integer cotarget {cotarget} for a layout whose codomain has "
                                     f"{len(cod)} coordinates does not say how far each extends; give a shape "
                                     "with one extent per coordinate (as logical_divide passes shape(A))")
        return [cotarget]
    out = []

    def walk(node, t, where):
        if type(t) is not tuple or len(t) < len(node):
            raise NotAdmissibleError("complement", f"the cotarget {format_tuple(cotarget)} must give an extent for "
                                     f"every coordinate of the codomain (mode {where or '()'} has {len(node)})")
        for i, child in enumerate(node):
            if child is None:
                m = product(t[i])
                if type(m) is not int:
                    raise NotAdmissibleError("complement", "symbolic cotargets of a coordinate (E<i>) layout are "
                                                           "not supported", format_tuple(cotarget))
                _positive(m)
                out.append(m)
            else:
                walk(child, t[i], where + (i,))

    walk(cod.root, cotarget, ())
    return out


def _whole_axis(extent, path):
    """``extent : E<path>``, nested as the extent is (a mode of the cotarget that the layout leaves alone)."""
    if type(extent) is tuple:
        parts = [_whole_axis(e, path + (j,)) for j, e in enumerate(extent)]
        return tuple(x for x, _ in parts), tuple(y for _, y in parts)
    if type(extent) is not int:
        raise NotAdmissibleError("complement", "symbolic cotargets of a coordinate (E<i>) layout are not "
                                               "supported", format_tuple(extent))
    _positive(extent)
    return extent, basis(1, path)


__all__ = ["complement", "repeat_complement", "NOT_NESTED"]
complement.body = _complement.__wrapped__  # the body without a decision context of its own (divide's products)
