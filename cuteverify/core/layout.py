"""Layouts (paper section 2.4): ``L = S:D``, a shape and a congruent stride.

``L(c) = inner_product(idx2crd(c, S), D)`` for any coordinate weakly congruent with ``S``; integral
coordinates past the size land on the extended domain (the last mode is not reduced).
A ``Layout`` is an immutable value: equality is same shape and same stride (function equality is the
prover's ``are_equal``). Symbolic layouts carry the ``Assumptions`` they were made under and the
``obligations`` the algebra attached to them; ``notes`` say which stronger property a result lacks (CuTe's
truncated complement of strides that do not nest, say: docs/model.md section 3.2).
"""
from __future__ import annotations

from ..errors import NotAdmissibleError
from ..symbolic import normalize, symbol
from ..symbolic.decide import eq, lt
from .canon import replayed, subs_values, unit_sizes, unit_strides
from .coords import compact_row_major, crd2crd, crd2idx, idx2crd  # re-exported
from .notation.format import format_layout, format_tuple
from .strides import F2, ScaledBasis
from .tuples import (
    congruent,
    flatten,
    is_tuple,
    prefix_product,
    product,
    transform,
    weakly_congruent,
)
from .tuples import depth as _depth
from .tuples import rank as _rank


_INT_TYPE = {int}
_UNSET = object()
_new = object.__new__


class _Slots:
    """A ``Layout``'s storage: ``_make`` fills one with plain (C-level) stores, then switches its class to ``Layout``
    (same slots): as cheap as before layouts refused assignment (``Layout.__setattr__`` raises)."""
    # _origin (set by the algebra's wrapper on a symbolic result): (operation, args, kw), re-run by subs
    __slots__ = ("shape", "stride", "obligations", "assumptions", "notes", "_hash", "_leaves", "_ints", "_origin")


class Layout(_Slots):
    __slots__ = ()

    def __init__(self, shape, stride=None, *, obligations=(), assumptions=None, notes=()):
        """The one checked constructor: ``shape`` and ``stride`` congruent (same profile), shape entries integers
        or integer expressions, strides in one admissible domain (NotAdmissibleError naming both otherwise).
        ``Layout._make`` (no checks, for results congruent by construction) is for core/ and algebra/ only."""
        if stride is None:
            stride = compact_col_major(shape)
        elif not congruent(shape, stride):
            raise NotAdmissibleError("Layout", f"shape {format_tuple(shape)} and stride {format_tuple(stride)} "
                                     "are not congruent (they must have the same profile)")
        fsh, fs = lv = flatten(shape), flatten(stride)
        ints = set(map(type, fsh + fs)) == _INT_TYPE  # plain ints pass both checks below: one C-level pass
        if not ints:
            for x in fsh:
                if type(x) is not int and (not hasattr(x, "free_symbols") or hasattr(x, "outer") or
                                           isinstance(x, Layout)):
                    raise NotAdmissibleError("Layout", f"a shape entry must be an integer or an integer "
                                             f"expression, got {x!r}")
            _check_domains(fs, stride)
        _set_shape(self, shape)
        _set_stride(self, stride)
        _set_leaves(self, lv)  # flattened by the checks, kept: every algebra operation starts from them
        _set_ints(self, lv if ints else None)  # int_leaves, decided by the same pass
        _set_obligations(self, tuple(obligations))
        _set_assumptions(self, assumptions)
        _set_notes(self, tuple(notes))

    @classmethod
    def _make(cls, shape, stride, obligations=(), assumptions=None, notes=()):
        """Unchecked constructor for results congruent by construction: core/ and algebra/ only."""
        self = _new(_Slots)
        self.shape = shape
        self.stride = stride
        self.obligations = obligations
        self.assumptions = assumptions
        self.notes = notes
        self.__class__ = cls
        return self

    def __setattr__(self, name, value=None):
        # a layout is a value: its hash and cached leaves are computed once from shape and stride
        raise AttributeError(f"a Layout is immutable: cannot set or delete {name!r} (build a new layout)")

    __delattr__ = __setattr__

    def __reduce__(self):
        # pickle / copy rebuild through _make (the default slot-state restore would go through __setattr__)
        return (_restore, (type(self), self.shape, self.stride, self.obligations, self.assumptions, self.notes,
                           getattr(self, "_origin", None)))

    @property
    def leaves(self):
        """``(flatten(shape), flatten(stride))``, computed once: a layout is immutable, and every algebra
        operation starts by flattening its operands."""
        # the cache slots stay unset until first use, so that building a layout costs no extra stores; an
        # unset slot is read with getattr's default (no Python-level exception to catch on fresh layouts)
        lv = getattr(self, "_leaves", _UNSET)
        if lv is _UNSET:
            _set_leaves(self, lv := (flatten(self.shape), flatten(self.stride)))
        return lv

    @property
    def int_leaves(self):
        """``leaves`` when every shape and stride entry is a plain int (the concrete fast paths of the
        algebra take them), else None; computed once."""
        r = getattr(self, "_ints", _UNSET)
        if r is _UNSET:
            fs, fd = self.leaves
            ok = set(map(type, fs + fd)) == _INT_TYPE  # one C-level pass (cheaper than two all() generators)
            _set_ints(self, r := ((fs, fd) if ok else None))
            return r
        if r is True:  # made by an int kernel (``_make_ints``): the leaves are ints, not yet flattened
            _set_ints(self, r := self.leaves)
        return r

    @classmethod
    def _make_ints(cls, shape, stride, flat=False):
        """``_make`` for results of the plain-int kernels: their leaves are known to be ints; ``flat``: the
        shape is an int or a flat tuple (coalesce, complement and inverse results), so it is its own leaves."""
        self = _new(_Slots)
        self.shape = shape
        self.stride = stride
        self.obligations = ()
        self.assumptions = None
        self.notes = ()
        if flat:
            self._leaves = self._ints = (shape, stride) if type(shape) is tuple else ((shape,), (stride,))
        else:
            self._ints = True
        self.__class__ = cls
        return self

    # -- value semantics --
    def __eq__(self, other):
        if not isinstance(other, Layout):
            return NotImplemented
        return _same(self.shape, other.shape) and _same(self.stride, other.stride)

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        try:
            return self._hash
        except AttributeError:
            _set_hash(self, h := hash((str(self.shape), str(self.stride))))
            return h

    def __str__(self):
        return format_layout(self)

    def __repr__(self):
        return f"Layout({self})"

    # -- structure --
    def __len__(self):
        return _rank(self.shape)

    def __getitem__(self, key):
        """``L[i]`` is the i-th sublayout ``S_i:D_i``; a tuple key with ``None`` slices (CuTe's ``_``)."""
        if type(key) is tuple:
            return slice_layout(self, key)
        if key is None:
            return self
        if type(key) is not int:
            raise TypeError(f"a layout is indexed by a mode number or a slice coordinate with None, got {key!r}")
        if type(self.shape) is not tuple:
            if key in (0, -1):
                return self
            raise IndexError(f"layout {self} has rank 1: no mode {key}")
        if not -len(self.shape) <= key < len(self.shape):
            raise IndexError(f"layout {self} has rank {len(self.shape)}: no mode {key}")
        return Layout._make(self.shape[key], self.stride[key], self.obligations, self.assumptions)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def with_(self, shape, stride, obligations=None):
        """``shape:stride`` made under this layout's assumptions (obligations carried unless replaced), through
        the checked constructor: a stride not congruent with the shape is refused (NotAdmissibleError naming
        both)."""
        return Layout(shape, stride, obligations=self.obligations if obligations is None else obligations,
                      assumptions=self.assumptions)

    @property
    def is_concrete(self) -> bool:
        return self.int_leaves is not None

    def free_symbols(self) -> set:
        out = set()
        for x in self.leaves[0] + self.leaves[1]:
            out |= set(getattr(x, "free_symbols", ()))
            v = getattr(x, "value", None)
            out |= set(getattr(v, "free_symbols", ()))
        return out

    # -- evaluation --
    def __call__(self, *coord):
        c = coord[0] if len(coord) == 1 else coord
        if type(c) is not tuple:
            if type(c) is int and type(self.shape) is int:
                return c * self.stride
            if type(c) is int and c < 0:
                # CuTe divides with C++ semantics (truncation), so a layout is odd: L(-x) == -L(x)
                return -_eval_int(-c, self.shape, self.stride)
            return _eval_int(c, self.shape, self.stride)
        if not weakly_congruent(c, self.shape):
            raise NotAdmissibleError("layout evaluation", "the coordinate must be weakly congruent with the shape",
                                     f"coordinate {format_tuple(c)}, shape {format_tuple(self.shape)}")
        return _eval_crd(c, self.shape, self.stride)

    def values(self) -> list:
        """``[L(0), L(1), ..., L(size-1)]`` for a concrete layout (fast path for enumeration)."""
        vals = [0]
        for s, d in zip(*self.leaves):
            if s == 1:
                continue
            vals = [v + k * d for k in range(s) for v in vals]
        return vals

    def subs(self, values=None, **kw):
        """Instantiate symbols: ``L.subs(M=256)``; fully concrete entries become ints. Each value must be a
        positive integer (symbols are positive integers), else ``NotAdmissibleError`` naming the symbol."""
        values = subs_values(dict(values or {}, **kw), {s.name for s in self.free_symbols()})
        m = {symbol(k): v for k, v in values.items()}

        def sub(x):
            if type(x) is int:
                return x
            if hasattr(x, "path"):
                return ScaledBasis(sub(x.value), x.path)
            if hasattr(x, "subs"):
                return normalize(x.subs(m))
            return x

        names = set(values)
        broken = self.assumptions.violated(values) if self.assumptions is not None else None
        if broken is not None:  # the layout was only ever claimed under its assumptions
            raise NotAdmissibleError("subs", f"{', '.join(f'{k}={v}' for k, v in sorted(values.items()))} breaks "
                                     f"the layout's assumption {broken}")
        for o in self.obligations:
            if getattr(o, "canonical", False):
                continue
            cond = getattr(o, "condition", None)
            syms = {s.name for s in cond.symbols()} if hasattr(cond, "symbols") else set()
            if syms and syms <= names and cond.holds(values) is False:
                raise NotAdmissibleError("subs", f"the obligation {o.text()} is false at "
                                         f"{', '.join(f'{k}={v}' for k, v in sorted(values.items()))}, so this "
                                         "symbolic result does not apply there; apply the operation to the "
                                         "concrete layout instead", f"({o.reason})")
        shape = transform(self.shape, sub)
        for x in flatten(shape):
            # 0 stays possible: an empty extent (a loop nest's zero trip count) is an honest instantiation
            if type(x) is not int and getattr(x, "free_symbols", None) == set() or \
                    (type(x) is int and x < 0):
                raise NotAdmissibleError("subs", f"shape entry {x} is not a non-negative integer at "
                                         f"{', '.join(f'{k}={v}' for k, v in sorted(values.items()))}")
        obs = [o for o in self.obligations if not (
            hasattr(o.condition, "symbols") and {s.name for s in o.condition.symbols()} <= names)]
        # a kept mode whose size became 1: the concrete operation's canonical stride 0 (core/canon.py)
        units = unit_sizes(self.obligations, values, names)
        out = Layout(shape, unit_strides(self.shape, shape, transform(self.stride, sub), units), obligations=obs,
                     assumptions=self.assumptions, notes=self.notes)
        return out if getattr(self, "_origin", None) is None else replayed(self._origin, values, out)


# the slots' own setters: Layout's checked constructor and lazily filled caches store through them
_set_shape, _set_stride, _set_obligations, _set_assumptions, _set_notes, _set_leaves, _set_ints, _set_hash = (
    _Slots.__dict__[n].__set__ for n in ("shape", "stride", "obligations", "assumptions", "notes", "_leaves",
                                         "_ints", "_hash"))


def stride_domain(strides) -> str:
    """``"int"``, ``"E"`` (coordinate strides) or ``"F2"`` for a flat stride list; 0 belongs to every domain
    (docs/model.md section 2.3)."""
    for d in strides:
        if isinstance(d, F2):
            return "F2"
        if hasattr(d, "path"):
            return "E"
    return "int"


def _check_domains(fs, stride):
    """One stride domain per layout: sums of coordinates and integers, or XORs mixed with sums, have no
    meaning independent of the order of the modes."""
    kinds = {"F2" if isinstance(d, F2) else "E" if hasattr(d, "path") else "int"
             for d in fs if not (type(d) is int and d == 0)}
    if len(kinds) > 1:
        raise NotAdmissibleError("Layout", f"one layout cannot mix {' and '.join(sorted(kinds))} strides "
                                 "(0 is allowed anywhere)", f"stride {format_tuple(stride)}")


def _same(a, b):
    if type(a) is tuple or type(b) is tuple:
        return type(a) is tuple and type(b) is tuple and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is int and type(b) is int:
        return a == b
    try:
        return bool(a == b) or str(a) == str(b)
    except TypeError:
        return False


def _eval_int(c, s, d):
    if type(s) is tuple:
        total = 0
        last = len(s) - 1
        for k in range(last):
            sz = product(s[k])
            total = total + _eval_int(c % sz, s[k], d[k])
            c = c // sz
        return total + _eval_int(c, s[last], d[last])
    return c * d


def _eval_crd(c, s, d):
    if type(c) is tuple:
        total = 0
        for ci, si, di in zip(c, s, d):
            total = total + _eval_crd(ci, si, di)
        return total
    return _eval_int(c, s, d)


# --- shapes and coordinates (paper section 2.2) ----------------------------------------------------------

def compact_col_major(shape, current=1):
    """Column-major strides for ``shape``; static size-1 modes get stride 0, as CuTe does."""
    pp = prefix_product(shape, current)
    return transform2_size1(shape, pp)


def transform2_size1(shape, pp):
    if type(shape) is tuple:
        return tuple(transform2_size1(s, p) for s, p in zip(shape, pp))
    return 0 if (type(shape) is int and shape == 1) else pp


def compatible(a, b) -> bool:
    """``a`` coarsens ``b`` with the same size per mode (paper Def. 2.7)."""
    if type(a) is not tuple:
        return eq(a, product(b)) is True
    return type(b) is tuple and len(a) == len(b) and all(compatible(x, y) for x, y in zip(a, b))


# --- constructors and queries ---------------------------------------------------------------------------

def make_layout(*args, stride=None):
    """``make_layout(shape[, stride])`` or concatenation ``make_layout(L0, L1, ...)`` (rank = #args)."""
    for a in args:
        if type(a) is not Layout or a.assumptions is not None or a.obligations:
            break
    else:
        if args and stride is None:
            # plain layouts with nothing to merge: the concrete fast path (int leaves concatenate)
            r = Layout._make(tuple(a.shape for a in args), tuple(a.stride for a in args))
            if all(getattr(a, "_ints", None) is not None for a in args):
                # every part is plain ints: their leaves, where known, join into the result's
                parts = [getattr(a, "_leaves", None) for a in args]
                if None in parts:
                    _set_ints(r, True)
                else:
                    lv = (sum((p[0] for p in parts), ()), sum((p[1] for p in parts), ()))
                    _set_leaves(r, lv)
                    _set_ints(r, lv)
            return r
    if any(hasattr(a, "outer") for a in args):
        return _concat_composed(args, stride)
    if args and all(isinstance(a, Layout) for a in args):
        if stride is not None:
            raise TypeError("make_layout of layouts takes no stride")
        assumptions = None
        obs = []
        for a in args:
            assumptions = assumptions.merged(a.assumptions) if assumptions and a.assumptions else \
                (assumptions or a.assumptions)
            obs += [o for o in a.obligations if o not in obs]
        return Layout._make(tuple(a.shape for a in args), tuple(a.stride for a in args), tuple(obs), assumptions)
    if len(args) == 2 and stride is None and not isinstance(args[0], Layout):
        return Layout(args[0], args[1])
    if len(args) != 1:
        raise TypeError("make_layout(shape, stride=None) or make_layout(layout, layout, ...)")
    return Layout(args[0], stride)


def _concat_composed(args, stride):
    """``make_layout(Sw o off o L0, Sw o off o L1, ...) = Sw o off o (L0, L1, ...)``: exact, since
    ``Sw(off + L0(c0) + L1(c1)) `` is the right side at ``(c0, c1)``. CuTe C++ has no concatenation of composed
    layouts (it needs their strides); other mixtures have no single swizzle to keep and are refused."""
    first = args[0]
    if stride is None and all(hasattr(a, "outer") and a.inner == first.inner and a.offset == first.offset
                              for a in args):
        return first.with_outer(make_layout(*[a.outer for a in args]))
    raise NotAdmissibleError("make_layout", "a swizzled layout concatenates only with swizzled layouts of the "
                             "same swizzle and offset", ", ".join(str(a) for a in args))


def make_identity_layout(shape, hierarchical=True):
    """The identity coordinate layout: maps a coordinate to itself.

    An int shape gets the plain stride 1 (CuTe DSL: ``make_identity_layout(6)`` is ``6:1``); a flat shape
    gets ``(4,8):(1@0,1@1)``. For a nested shape every leaf gets the unit coordinate stride of its own
    hierarchical position, as CuTe DSL does: ``((2,6),2):((1@0@0,1@1@0),1@1)`` (the path printed innermost
    first). ``hierarchical=False`` instead numbers each top-level mode by its colexicographic index,
    ``((2,6),2):((1@0,2@0),1@1)``, producing rank-level coordinates.
    """
    if type(shape) is not tuple:
        return Layout(shape, 1)
    if hierarchical:
        def basis(s, path):
            if type(s) is tuple:
                return tuple(basis(x, path + (i,)) for i, x in enumerate(s))
            return ScaledBasis(1, path)

        return Layout(shape, tuple(basis(s, (i,)) for i, s in enumerate(shape)))
    strides = []
    for i, s in enumerate(shape):
        pp = prefix_product(s)
        strides.append(transform(pp, lambda p, i=i: ScaledBasis(p, (i,))))
    return Layout(shape, tuple(strides))


def leaves(x):
    """The flat shape and flat stride of a layout (cached on a ``Layout``)."""
    if type(x) is Layout:
        return x.leaves
    return flatten(x.shape), flatten(x.stride)


def size(x):
    """Number of coordinates: the product of the shape (paper Def. 2.5)."""
    if type(x) is Layout:
        r = 1
        for e in x.leaves[0]:
            r = r * e
        return r
    return product(_shape_of(x))


def cosize(x):
    """CUTLASS's ``cosize``: ``1 + sum (s_k - 1) * |d_k|``, the extent of the image from its lowest point
    (``L(size-1) + 1`` for non-negative strides; ``cosize(4:-1) == 4``). A swizzled layout's is its domain-side
    layout's (C++'s ``cosize(layout_b)``); behind a layout outer function it is refused. F2 strides have no such sum: their cosize is one past the largest value."""
    if type(x) is Layout:
        lv = x.int_leaves
        if lv is not None:
            total = 1
            for s, d in zip(lv[0], lv[1]):
                total += (s - 1) * (d if d >= 0 else -d)
            return total
    if hasattr(x, "cosize"):
        return x.cosize()
    fs, fd = leaves(x)
    total = 1
    for s, d in zip(fs, fd):
        if type(d) is int:
            total = total + (s - 1) * (d if d >= 0 else -d)
        elif isinstance(d, F2):
            return max(int(v) for v in x.values()) + 1
        elif isinstance(d, ScaledBasis):
            return _coordinate_cosize(fs, fd)
        else:
            total = total + (s - 1) * (-d if lt(d, 0) is True else d)
    return total


def _coordinate_cosize(fs, fd):
    """CuTe's ``size(coshape(L))`` for coordinate (``E<i>``) strides: ``coshape`` is ``L(shape - 1) + 1`` per
    coordinate, so the cosize is the product over the coordinates of ``1 + sum (s_k - 1) * |v_k|``
    (``(4,2):(1@0,1@1)`` gives 8). Integer strides other than 0 beside them have no coordinate: refused."""
    ext = {}
    for s, d in zip(fs, fd):
        if isinstance(d, ScaledBasis):
            path = d.path
            while len(path) > 1 and path[-1] == 0:  # E<1,0> and E<1> name the same coordinate
                path = path[:-1]
            v = d.value
            ext[path] = ext.get(path, 1) + (s - 1) * (-v if lt(v, 0) is True else v)
        elif not (type(d) is int and d == 0):
            raise NotAdmissibleError("cosize", "a layout that mixes coordinate (E<i>) and integer strides has no "
                                               "coshape", f"({format_tuple(s)}:{format_tuple(d)})")
    total = 1
    for e in ext.values():
        total = total * e
    return total


def rank(x):
    return _rank(_shape_of(x))


def depth(x):
    return _depth(_shape_of(x))


def shape(x):
    return _shape_of(x)


def stride(x):
    return x.stride


def _shape_of(x):
    if isinstance(x, Layout) or hasattr(x, "shape"):
        return x.shape
    return x


def image(layout) -> set:
    """The set ``L(Z_size)`` for a concrete layout."""
    return set(layout.values())


def is_congruent(a, b) -> bool:
    return congruent(_shape_of(a), _shape_of(b))


def is_weakly_congruent(a, b) -> bool:
    return weakly_congruent(_shape_of(a), _shape_of(b))


def is_compatible(a, b) -> bool:
    return compatible(_shape_of(a), _shape_of(b))


def flat(layout: Layout):
    """The flat (shape, stride) leaf lists of a layout."""
    fs, fd = leaves(layout)
    return list(fs), list(fd)


def is_int_tuple(x) -> bool:
    return all(type(v) is int for v in flatten(x))


def tuple_or_leaf(xs):
    xs = tuple(xs)
    return xs[0] if len(xs) == 1 else xs


__all__ = ["Layout", "make_layout", "make_identity_layout", "size", "cosize", "rank", "depth", "shape", "stride",
           "idx2crd", "crd2idx", "crd2crd", "compatible", "compact_col_major", "compact_row_major", "image",
           "is_congruent", "is_weakly_congruent", "is_compatible", "is_tuple"]


def slice_and_offset(layout, crd):
    """Split a coordinate with ``None`` (CuTe's ``_``) into the sublayout of the free modes and the offset
    of the fixed ones: ``L(crd) == sub(rest) + offset``. CuTe's argument order ``(crd, layout)`` is accepted
    too (a coordinate is never a layout, so the order is unambiguous)."""
    if _is_layout_like(crd) and not _is_layout_like(layout):
        layout, crd = crd, layout
    if not _is_layout_like(layout):
        raise NotAdmissibleError("slice_and_offset", f"expected a layout and a slice coordinate, got {layout!r}")
    if hasattr(layout, "slice_and_offset"):
        return layout.slice_and_offset(crd)
    if crd is None:
        return layout, 0
    if type(crd) is not tuple:
        return None, layout(crd)
    if type(layout.shape) is not tuple or len(crd) != len(layout.shape):
        raise NotAdmissibleError("slice", "the slice coordinate must be weakly congruent with the layout's shape",
                                 f"coordinate of rank {len(crd)}, layout {layout}")
    subs, offset = [], 0
    for c, i in zip(crd, range(len(crd))):
        sub, off = slice_and_offset(layout[i], c)
        offset = offset + off
        if sub is not None:  # C++'s slice concatenates the free modes of a nested coordinate (filter_tuple)
            subs += list(sub) if type(c) is tuple and sum(x is None for x in flatten(c)) > 1 else [sub]
    if not subs:
        return None, offset
    if len(subs) == 1:
        return subs[0], offset
    return make_layout(*subs), offset


def _is_layout_like(x):
    return isinstance(x, Layout) or hasattr(x, "outer")


def slice_layout(layout, crd):
    """The layout of the ``None`` modes of ``crd`` (the offset of the fixed modes is dropped)."""
    sub, _ = slice_and_offset(layout, crd)
    return sub if sub is not None else Layout._make(1, 0)


def _restore(cls, shape, stride, obligations, assumptions, notes, origin):
    """Unpickle / copy a layout (``Layout.__reduce__``): the state as it was, no checks re-run."""
    self = cls._make(shape, stride, obligations, assumptions, notes)
    if origin is not None:
        object.__setattr__(self, "_origin", origin)
    return self
