"""The divide and product families (ALGEBRA.md section 3; Shah Def. 2.22)."""
from __future__ import annotations

from ..core.kernels import CARRY, coalesce_ints, composition_ints
from ..core.layout import Layout, cosize, make_layout, shape, size
from ..core.tuples import flatten
from ..errors import NotAdmissibleError
from ..symbolic import decide
from ..core.notation.interop import as_layout
from ._op import operation, plain_ints
from .coalesce import coalesce
from .complement import complement, complement_ints, repeat_complement
from .coord import is_coordinate
from .composition import by_mode, composition


# Inside an operation the decision context exists already, so for plain layouts the divides and products
# call the bodies of complement and composition directly (their wrappers would only pass them through).
_complement_body, _composition_body = complement.body, composition.body


def _is_tiler(b):
    return type(b) is tuple and any(not (type(x) is int) for x in b) or isinstance(b, list)


def _tiler(b):
    """A tuple of layouts/shapes (a tiler) or a single layout? Plain int tuples are shapes read as tilers
    of ``n:1`` per mode, as CuTe reads them."""
    if isinstance(b, list):
        return tuple(b)
    if type(b) is tuple:
        return b
    return None


def _all_plain(a, b):
    """``a`` and ``b`` (a layout or a tiler of layouts and None) are plain concrete layouts."""
    if plain_ints(a) is None:
        return False
    if type(b) is tuple:
        return all(t is None or plain_ints(t) is not None for t in b)
    return plain_ints(b) is not None


def _logical_divide_fast(a, b):
    if not _all_plain(a, b):
        return None
    r = _divide_ints(a, b, True)
    return None if r is None else Layout._make_ints(*r)


@operation(swizzle_through=True, fast=_logical_divide_fast, tiler_at=1)
def logical_divide(a, b):
    """``A / B = A o (B, complement(B, size(A)))``: split A into tiles of B and the rest.

    ``b`` may be a layout, or a tiler (tuple, per mode; ints and shapes mean compact layouts, ``None``
    keeps the mode). A coordinate (E<i>) ``b`` picks modes of A by its bases; its complement is taken in
    ``shape(A)``, one extent per coordinate (C++, CuTe IR and CuTe DSL do so: ``(128,64):(1@1,1@0) / 2:64@0``
    is ``(2,(64,64)):(64@1,(1@1,1@0))``). Admissibility: the complement and the composition are admissible.
    Post-condition: ``R`` is rank 2 per divided mode, ``R(i, j) == A(B(i) + size(B)*...)``; in particular
    ``R[0] == A o B`` as functions and ``size(R) == size(A)``.
    """
    if type(a) is Layout:
        fast = _divide_ints(a, b)
        if fast is not None:
            return Layout._make_ints(*fast)
    t = _tiler(b)
    if t is not None:
        return by_mode(a, t, logical_divide)
    b = as_layout(b)
    if is_coordinate(b):
        return composition(a, make_layout(b, _complement_body(b, shape(a))))
    if type(a) is Layout and type(b) is Layout:
        return _composition_body(a, make_layout(b, _complement_body(b, size(a))))
    return composition(a, make_layout(b, complement(b, size(a))))


def _divide_mode_ints(fs, fd, b, nested_only=False):
    """``A / B`` as ``(shape, stride)`` for A's int leaves ``fs, fd`` and a plain-int layout ``b`` with
    non-negative strides, or None: the general path's complement and composition kernels on tuples."""
    lb = b.int_leaves
    if lb is None or min(lb[1]) < 0:
        return None
    n = 1
    for x in fs:
        n *= x
    c = complement_ints(lb[0], lb[1], n, nested_only)
    if c is None:
        return None
    cs, cd = c
    cf = (cs, cd) if type(cs) is tuple else ((cs,), (cd,))
    if min(cf[1]) < 0:
        return None
    whole = Layout._make((b.shape, cs), (b.stride, cd))
    r = composition_ints((fs, fd), whole, (lb[0] + cf[0], lb[1] + cf[1]))
    return r.shape, r.stride


def _divide_ints(a, b, nested_only=False):
    """``logical_divide`` of a plain-int ``a`` by a plain-int layout or a tiler of them (and None) as
    ``(shape, stride)``, or None where the general path answers (other tilers, other domains, refusals)."""
    la = a.int_leaves
    if la is None:
        return None
    if type(b) is Layout:
        return _divide_mode_ints(la[0], la[1], b, nested_only)
    if type(b) is not tuple or not b or len(b) > len(a):
        return None
    if type(a.shape) is not tuple:  # rank 1 unnested: its own mode 0
        if len(b) != 1 or type(b[0]) is not Layout:
            return None
        r = _divide_mode_ints(la[0], la[1], b[0], nested_only)
        return None if r is None else ((r[0],), (r[1],))
    shapes, strides = list(a.shape), list(a.stride)
    for i, t in enumerate(b):
        if t is None:
            continue
        if type(t) is not Layout:
            return None
        r = _divide_mode_ints(flatten(shapes[i]), flatten(strides[i]), t, nested_only)
        if r is None:
            return None
        shapes[i], strides[i] = r
    return tuple(shapes), tuple(strides)


def _product_complement(la, lb, nested_only):
    """``complement(A, size(A) * cosize(B))`` of a product on plain int leaves (``la``, ``lb``: flat shapes and
    strides), as a (shapes, strides) pair of tuples, or None where the integer kernel declines (a note)."""
    n = cos = 1
    for x in la[0]:
        n *= x
    for x, y in zip(lb[0], lb[1]):
        cos += (x - 1) * y
    c = complement_ints(la[0], la[1], n * cos, nested_only)
    if c is None:
        return None
    return c if type(c[0]) is tuple else ((c[0],), (c[1],))


def _logical_product_fast(a, b):
    """``(A, complement(A, size(A)*cosize(B)) o B)`` for plain concrete layouts whose complement makes no
    note and with non-negative strides in B, else None."""
    la, lb = plain_ints(a), plain_ints(b)
    if la is None or lb is None or min(lb[1]) < 0:
        return None
    c = _product_complement(la, lb, True)
    if c is None:
        return None
    r = composition_ints(c, b, lb)
    return Layout._make_ints((a.shape, r.shape), (a.stride, r.stride))


@operation(swizzle_through=True, fast=_logical_product_fast)
def logical_product(a, b):
    """``A x B = (A, complement(A, size(A)*cosize(B)) o B)``: B copies of A.

    A tiler ``b`` applies mode by mode. A coordinate (E<i>) ``a`` takes CuTe IR's complement
    (``repeat_complement``: the copies stack along the last coordinate of A's codomain; CuTe DSL 4.8.1 reads
    the integer cotarget as the first coordinate's extent and stacks them along it, a different layout with
    the same properties: ``identity (4,3) x (2,5):(1,2)`` is ``(3@1,6@1)`` here and in CuTe IR, ``(4@0,8@0)``
    in DSL). Admissibility: the complement and the composition are admissible.
    Post-condition: ``R[0] == A``; ``size(R) == size(A)*size(B)``; for a coordinate ``a`` and an injective
    ``b``, ``R`` is injective (the copies of A do not overlap).
    """
    t = _tiler(b)
    if t is not None:
        return by_mode(a, t, logical_product)
    b = as_layout(b)
    if type(a) is Layout and type(b) is Layout:
        return make_layout(a, _composition_body(_repeat_of(a, b), b))
    return make_layout(a, composition(complement(a, size(a) * cosize(b)), b))


def _repeat_of(a, b):
    """The complement of ``a`` that a product composes ``b`` with: ``complement(a, size(a)*cosize(b))``, or
    for a coordinate ``a`` CuTe IR's (``repeat_complement``; its whole minimal complement for a coordinate
    ``b``, whose bases pick its axes)."""
    if is_coordinate(a):
        return repeat_complement(a, None if is_coordinate(b) else cosize(b))
    return _complement_body(a, size(a) * cosize(b))


def _unzip(r, b):
    """``((tile modes), (rest modes))`` of a divided/multiplied layout; a layout (non-tiler) ``b`` already
    gives a rank-2 result."""
    t = _tiler(b)
    if t is None:
        return r
    if any(x is None for x in t):
        raise NotAdmissibleError("zipped/tiled/flat divide and product", "a None (keep) tiler mode has no tile "
                                 "and rest to gather (CuTe DSL rejects it too); use logical_divide")
    tile, rest = _zip2(r, t)
    return make_layout(tile, rest)


def _zip2(r, t):
    """``(tile, rest)`` of ``r`` divided (multiplied) by the tiler ``t``, C++'s ``zip2_by``: a tiler mode that
    is itself a tiler splits its divided mode sub-mode by sub-mode (``[[2:1;2:1];4:1]`` gathers both sub-tiles
    into the tile and both sub-rests into the rest), a layout mode is already ``(tile, rest)``. Modes of ``r``
    past the tiler's rank go to the rest."""
    if type(t) is not tuple:
        return r[0], r[1]
    if any(x is None for x in t):
        raise NotAdmissibleError("zipped/tiled/flat divide and product", "a None (keep) tiler mode has no tile "
                                 "and rest to gather (CuTe DSL rejects it too); use logical_divide")
    pairs = [_zip2(r[i], t[i]) for i in range(len(t))]
    extra = [r[i] for i in range(len(t), len(r) if type(r.shape) is tuple else 1)]
    return make_layout(*(p[0] for p in pairs)), make_layout(*(p[1] for p in pairs), *extra)


def _tiled(z):
    """``((tiles), rest0, rest1, ...)``: unpack the second mode one level."""
    first, second = z[0], z[1]
    rests = list(second) if type(second.shape) is tuple else [second]
    return make_layout(first, *rests)


def _flat(z):
    first, second = z[0], z[1]
    firsts = list(first) if type(first.shape) is tuple else [first]
    rests = list(second) if type(second.shape) is tuple else [second]
    return make_layout(*firsts, *rests)


def _zipped_divide_fast(a, b):
    if type(b) is not tuple or None in b or not _all_plain(a, b):
        return None
    return _zipped_ints(a, b, True)


def _zipped_ints(a, b, nested_only=False):
    """``zipped_divide`` by a tiler of plain-int layouts as ``((tiles), (rests))`` straight from the divided
    modes (as ``_unzip`` gathers them), or None."""
    fast = _divide_ints(a, b, nested_only)
    if fast is None:
        return None
    s, d = fast
    k = len(b)
    s = ((*(x[0] for x in s[:k]),), (*(x[1] for x in s[:k]), *s[k:]))
    d = ((*(x[0] for x in d[:k]),), (*(x[1] for x in d[:k]), *d[k:]))
    return Layout._make_ints(s, d)


@operation(swizzle_through=True, fast=_zipped_divide_fast, tiler_at=1)
def zipped_divide(a, b):
    """``((tiles), (rests))``: the tile modes of ``logical_divide`` gathered in mode 0, the rest in mode 1."""
    if type(a) is Layout and type(b) is tuple and None not in b:
        fast = _zipped_ints(a, b)
        if fast is not None:
            return fast
    return _unzip(logical_divide(a, b), b)


@operation(swizzle_through=True, tiler_at=1)
def tiled_divide(a, b):
    """``((tiles), rest0, rest1, ...)``."""
    return _tiled(zipped_divide(a, b))


@operation(swizzle_through=True, tiler_at=1)
def flat_divide(a, b):
    """``(tile0, tile1, ..., rest0, rest1, ...)``."""
    return _flat(zipped_divide(a, b))


@operation(swizzle_through=True)
def zipped_product(a, b):
    """``((A modes), (repeat modes))``."""
    return _unzip(logical_product(a, b), b)


@operation(swizzle_through=True)
def tiled_product(a, b):
    """``((A modes), repeat0, repeat1, ...)``."""
    return _tiled(zipped_product(a, b))


@operation(swizzle_through=True)
def flat_product(a, b):
    """``(A0, A1, ..., repeat0, repeat1, ...)``."""
    return _flat(zipped_product(a, b))


def append_to_rank(layout, r):
    """``layout`` with unit modes ``1:0`` appended until it has rank ``r`` (CuTe's ``append<R>``).
    Admissible for any plain layout of rank at most ``r``; the result is the same function on its index
    space extended by size-1 modes."""
    modes = list(layout) if type(layout.shape) is tuple else [layout]
    while len(modes) < r:
        modes.append(Layout._make(1, 0))
    return make_layout(*modes)


def _repeat(pa, pb, r):
    """The repeat half of ``logical_product(pa, pb)`` for the padded rank-``r`` operands, mode by mode:
    ``C o pb_i`` with ``C = complement(pa, size(pa)*cosize(pb))``. CuTe's composition distributes over the
    right operand's modes, so each repeat mode is ``C o pb_i`` on its own whether or not the modes, added,
    are ``C o pb`` as one function; where they are not (their digits in C carry), the result is CuTe's and a
    note says that copies of A need not land where B puts them (they may overlap)."""
    c = _repeat_of(pa, pb) if is_coordinate(pa) else complement(pa, size(pa) * cosize(pb))
    if pa.is_concrete and pb.is_concrete:
        try:
            return composition(c, pb)
        except NotAdmissibleError as e:
            if not e.condition.startswith(CARRY):
                raise
        decide.note(f"the repeat modes compose with the complement {c} one by one, as CuTe does; together "
                    f"they are not {c} o {pb} as one function (their digits carry), so copies of the block "
                    "need not land where the tiler puts them and may overlap")
    return make_layout(*(composition(c, pb[i]) for i in range(r)))


def _zip_product_ints(a, b, block_first, nested_only=False):
    """``_zip_product`` for plain-int layouts of rank >= 2 (after padding) with non-negative strides and
    positive shapes, on tuples: the same complement and composition kernels, none of the per-mode layout
    objects. None where it does not apply (then the general path answers, refusals and notes included)."""
    la, lb = a.int_leaves, b.int_leaves
    if la is None or lb is None:
        return None
    sa, da = (a.shape, a.stride) if type(a.shape) is tuple else ((a.shape,), (a.stride,))
    sb, db = (b.shape, b.stride) if type(b.shape) is tuple else ((b.shape,), (b.stride,))
    r = max(len(sa), len(sb))
    if r == 1 or min(la[0]) < 1 or min(lb[0]) < 1 or min(la[1]) < 0 or min(lb[1]) < 0:
        return None
    pad = r - len(sb)
    pbs, pbd = sb + (1,) * pad, db + (0,) * pad
    pad = r - len(sa)
    pas, pad_d = sa + (1,) * pad, da + (0,) * pad
    c = _product_complement(la, lb, nested_only)
    if c is None:
        return None
    pb = Layout._make(pbs, pbd)
    try:
        second = composition_ints(c, pb, (lb[0] + (1,) * (r - len(sb)), lb[1] + (0,) * (r - len(sb))))
    except NotAdmissibleError:
        return None  # the general path composes mode by mode (CuTe's answer, with its note) or refuses
    s2, d2 = second.shape, second.stride
    if block_first:
        return Layout._make_ints(tuple(zip(pas, s2)), tuple(zip(pad_d, d2)))
    shapes, strides = [], []
    for i in range(r):
        # each half is mostly an int or a flat tuple, which flatten hands back as it is
        x, y = coalesce_ints(flatten(s2[i]) + flatten(pas[i]), flatten(d2[i]) + flatten(pad_d[i]), False)
        shapes.append(x)
        strides.append(y)
    return Layout._make_ints(tuple(shapes), tuple(strides))


def _zip_product(a, b, block_first):
    b = as_layout(b)
    if type(a) is Layout and type(b) is Layout:
        fast = _zip_product_ints(a, b, block_first)
        if fast is not None:
            return fast
    return _zip_product_general(a, b, block_first)


def _zip_product_general(a, b, block_first):
    r = max(len(a), len(b))
    pa, pb = append_to_rank(a, r), append_to_rank(b, r)
    if r == 1:
        # rank 1: CuTe zips the halves mode by mode only when both are tuples, else pairs them whole
        # (``8:1 x (2):(1)`` gives ``((8,(2))):((1,(8)))``, ``(6):(1) x (2):(1)`` gives ``((6,2)):((1,6))``)
        prod = logical_product(a, b)
        first, second = prod[0], prod[1]
        if type(first.shape) is tuple and type(second.shape) is tuple:
            # CuTe's zip transposes the two halves mode by mode: defined only for halves of one rank (C++
            # does not compile ``raked_product((3):(4), 8:1)``, whose halves are (3) and (4,2))
            if len(first.shape) != len(second.shape):
                raise NotAdmissibleError("blocked_product" if block_first else "raked_product",
                                         f"the halves {first} and {second} of the rank-1 product have ranks "
                                         f"{len(first.shape)} and {len(second.shape)}: CuTe zips them mode by "
                                         "mode, which needs one rank")
            pairs = [(first[i], second[i]) if block_first else (second[i], first[i]) for i in range(len(first))]
        else:
            pairs = [(first, second) if block_first else (second, first)]
    else:
        first, second = pa, _repeat(pa, pb, r)
        pairs = [(first[i], second[i]) if block_first else (second[i], first[i]) for i in range(r)]
    modes = [make_layout(x, y) for x, y in pairs]
    if not block_first:
        # CuTe DSL coalesces each mode of a raked product (and leaves a blocked product as zipped)
        modes = [coalesce(m) for m in modes]
    return make_layout(*modes)


def _blocked_fast(a, b):
    return _zip_product_ints(a, b, True, True) if _all_plain(a, b) and type(b) is Layout else None


def _raked_fast(a, b):
    return _zip_product_ints(a, b, False, True) if _all_plain(a, b) and type(b) is Layout else None


@operation(swizzle_through=True, fast=_blocked_fast)
def blocked_product(a, b):
    """Mode ``i`` of the result is ``(A_i, repeat_i)``: whole blocks of A laid out by B (A varies fastest).

    Both are padded with ``1:0`` modes to the larger rank. Post-condition: ``size(R) == size(A)*size(B)``;
    ``R`` restricted to each block is A.
    """
    return _zip_product(a, b, True)


@operation(swizzle_through=True, fast=_raked_fast)
def raked_product(a, b):
    """Mode ``i`` of the result is ``(repeat_i, A_i)``: A's elements interleaved (raked) across B."""
    return _zip_product(a, b, False)


__all__ = ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product",
           "tiled_product", "flat_product", "blocked_product", "raked_product"]
