"""Triton's linear layouts (docs/model.md section 11): ``LinearLayout``.

A linear layout has ordered input dims, each of size ``2**k`` and given by ``k`` bases (basis ``i`` is the
image of bit ``i`` of that input, one int per output dim), and ordered output dims of power-of-two sizes.
Its value at an input is the XOR of the bases of the input's set bits (Triton's ``LinearLayout.h``). Dims
are minor-to-major: flattening takes the first dim as the fastest (its bits lowest).

Internally a layout is also one F2 matrix: the flat input (in dims' bits concatenated in order) to the flat
output (out dims' bits concatenated in order); :mod:`.f2` does the rank work on it.
"""
from __future__ import annotations

from ..errors import NotAdmissibleError
from . import f2


def _pairs(x, what):
    if isinstance(x, dict):
        return list(x.items())
    try:
        out = [tuple(p) for p in x]
    except TypeError:
        raise NotAdmissibleError("LinearLayout", f"the {what} must be a dict or a list of (name, value) pairs, "
                                 f"got {x!r}") from None
    if any(len(p) != 2 for p in out):
        raise NotAdmissibleError("LinearLayout", f"the {what} must be (name, value) pairs, got {x!r}")
    return out


class LinearLayout:
    """Triton's ``LinearLayout``: ``LinearLayout(bases, out_dims)`` with ``bases`` ``{in_dim: [basis, ...]}``
    (or a list of pairs; insertion order is dim order) and ``out_dims`` ``{out_dim: size}``. Each basis is a
    tuple with one non-negative int per out dim, each below that out dim's size; every size a power of two.
    Not checked: surjectivity (Triton's ``requireSurjective=false`` constructor; ask :meth:`is_surjective`).
    Bad input raises NotAdmissibleError naming the dim and basis. Immutable; ``==`` is Triton's (same dims in
    the same order, same bases, same out sizes), which is equality of the function with its dim order."""

    __slots__ = ("_bases", "_hash", "_outs", "_shift")

    def __init__(self, bases=None, out_dims=None):
        outs = []
        for name, size in _pairs(out_dims or {}, "out dims"):
            if not isinstance(name, str):
                raise NotAdmissibleError("LinearLayout", f"an out dim's name must be a string, got {name!r}")
            if not f2.is_power_of_two(size):
                raise NotAdmissibleError("LinearLayout", f"out dim {name!r} has size {size!r}, not a power of two")
            if name in (n for n, _ in outs):
                raise NotAdmissibleError("LinearLayout", f"out dim {name!r} is given twice")
            outs.append((name, size))
        self._outs = tuple(outs)
        ins = []
        for name, bs in _pairs(bases or {}, "bases"):
            if not isinstance(name, str):
                raise NotAdmissibleError("LinearLayout", f"an in dim's name must be a string, got {name!r}")
            if name in (n for n, _ in ins):
                raise NotAdmissibleError("LinearLayout", f"in dim {name!r} is given twice")
            row = []
            for i, b in enumerate(bs):
                b = (b,) if type(b) is int else tuple(b)
                if len(b) != len(outs):
                    raise NotAdmissibleError("LinearLayout", f"basis {i} of in dim {name!r} is {b}: it has {len(b)} "
                                             f"values, but there are {len(outs)} out dims")
                for v, (o, size) in zip(b, outs):
                    if type(v) is not int or v < 0 or v >= size:
                        raise NotAdmissibleError("LinearLayout", f"basis {i} of in dim {name!r} is {b}: its value "
                                                 f"{v!r} for out dim {o!r} is not in [0, {size})")
                row.append(b)
            ins.append((name, tuple(row)))
        self._bases = tuple(ins)
        sh, acc = [], 0
        for _, size in outs:
            sh.append(acc)
            acc += f2.log2(size)
        self._shift = tuple(sh)

    # -- dims --
    @property
    def in_dims(self) -> list:
        """``[(name, size), ...]`` in order."""
        return [(n, 1 << len(bs)) for n, bs in self._bases]

    @property
    def out_dims(self) -> list:
        """``[(name, size), ...]`` in order."""
        return list(self._outs)

    @property
    def in_dim_names(self) -> list:
        return [n for n, _ in self._bases]

    @property
    def out_dim_names(self) -> list:
        return [n for n, _ in self._outs]

    @property
    def bases(self) -> dict:
        """``{in_dim: [basis tuple, ...]}`` (a fresh dict, in dim order)."""
        return {n: list(bs) for n, bs in self._bases}

    def _in(self, name):
        for n, bs in self._bases:
            if n == name:
                return bs
        raise NotAdmissibleError("LinearLayout", f"no in dim {name!r} (in dims: {self.in_dim_names})")

    def in_bases(self, name) -> tuple:
        """The bases of in dim ``name`` (a tuple of basis tuples)."""
        return self._in(name)

    def has_in_dim(self, name) -> bool:
        return name in self.in_dim_names

    def has_out_dim(self, name) -> bool:
        return name in self.out_dim_names

    def num_bits(self, name) -> int:
        """log2 of the size of in dim ``name``."""
        return len(self._in(name))

    get_in_dim_size_log2 = num_bits

    def in_dim_size(self, name) -> int:
        return 1 << len(self._in(name))

    def out_dim_size(self, name) -> int:
        for n, s in self._outs:
            if n == name:
                return s
        raise NotAdmissibleError("LinearLayout", f"no out dim {name!r} (out dims: {self.out_dim_names})")

    def get_out_dim_size_log2(self, name) -> int:
        return f2.log2(self.out_dim_size(name))

    def out_dim_index(self, name) -> int:
        names = self.out_dim_names
        if name not in names:
            raise NotAdmissibleError("LinearLayout", f"no out dim {name!r} (out dims: {names})")
        return names.index(name)

    @property
    def total_in_bits(self) -> int:
        return sum(len(bs) for _, bs in self._bases)

    @property
    def total_out_bits(self) -> int:
        return sum(f2.log2(s) for _, s in self._outs)

    def total_in_size(self) -> int:
        return 1 << self.total_in_bits

    def total_out_size(self) -> int:
        return 1 << self.total_out_bits

    # -- evaluation --
    def basis(self, in_dim, i) -> tuple:
        """The value at ``in_dim = 2**i`` (other in dims 0)."""
        bs = self._in(in_dim)
        if type(i) is not int or not 0 <= i < len(bs):
            raise NotAdmissibleError("LinearLayout", f"in dim {in_dim!r} has {len(bs)} bases, no basis {i!r}")
        return bs[i]

    def apply(self, ins=None, **kw) -> tuple:
        """The value (one int per out dim, in order) at the input ``ins`` (a dict or pairs, or keywords);
        a missing in dim is 0. NotAdmissibleError for an unknown in dim or a value outside its range."""
        given = dict(_pairs(ins or {}, "input"), **kw)
        out = [0] * len(self._outs)
        known = dict(self._bases)
        for name, x in given.items():
            if name not in known:
                raise NotAdmissibleError("LinearLayout.apply", f"no in dim {name!r} (in dims: {self.in_dim_names})")
            bs = known[name]
            if type(x) is not int or not 0 <= x < (1 << len(bs)):
                raise NotAdmissibleError("LinearLayout.apply", f"{name}={x!r} is not in [0, {1 << len(bs)})")
            i = 0
            while x:
                if x & 1:
                    for k, v in enumerate(bs[i]):
                        out[k] ^= v
                x >>= 1
                i += 1
        return tuple(out)

    __call__ = apply

    # -- the flat matrix --
    def flat_basis(self, b) -> int:
        """A basis tuple as one int: out dims' bits concatenated in order (the first lowest)."""
        v = 0
        for x, s in zip(b, self._shift):
            v |= x << s
        return v

    def unflatten_out(self, v: int) -> tuple:
        return tuple((v >> s) & (size - 1) for s, (_, size) in zip(self._shift, self._outs))

    def columns(self) -> list:
        """The F2 matrix: one flat-output int per input bit, in dims in order, bits from low to high."""
        return [self.flat_basis(b) for _, bs in self._bases for b in bs]

    @classmethod
    def from_columns(cls, in_dims, out_dims, cols) -> LinearLayout:
        """The layout with in dims ``[(name, size)]`` and out dims ``[(name, size)]`` whose flat matrix is
        ``cols`` (one int per input bit, in order)."""
        in_dims, out_dims = _pairs(in_dims, "in dims"), _pairs(out_dims, "out dims")
        proto = cls({}, out_dims)
        it = iter(cols)
        bases = []
        for name, size in in_dims:
            if not f2.is_power_of_two(size):
                raise NotAdmissibleError("LinearLayout", f"in dim {name!r} has size {size!r}, not a power of two")
            bases.append((name, [proto.unflatten_out(next(it)) for _ in range(f2.log2(size))]))
        for c in cols:
            if c >> proto.total_out_bits:
                raise NotAdmissibleError("LinearLayout", f"the value {c} does not fit the out dims {out_dims}")
        return cls(bases, out_dims)

    # -- value semantics --
    def __eq__(self, other):
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self._bases == other._bases and self._outs == other._outs

    def __hash__(self):
        try:
            return self._hash
        except AttributeError:
            h = self._hash = hash((self._bases, self._outs))
            return h

    def __str__(self):
        outs = "[" + ", ".join(f"{n} (size {s})" for n, s in self._outs) + "]"
        if not self._bases:
            return "(empty layout)" if not self._outs else f"(empty layout with out-dims {outs})"
        lines = []
        for name, bs in self._bases:
            if not bs:
                lines.append(f" - {name} is a size 1 dimension")
                continue
            for i, b in enumerate(bs):
                lines.append(f"{' - ' if i == 0 else '   '}{name}={1 << i} -> ({', '.join(map(str, b))})")
        lines.append(f"where out dims are: {outs}")
        return "\n".join(lines)

    def __repr__(self):
        return f"LinearLayout({self.bases!r}, {dict(self._outs)!r})"

    # -- constructors (Triton's) --
    @classmethod
    def empty(cls) -> LinearLayout:
        """The 0-dimensional layout: the identity of ``*``."""
        return cls({}, {})

    @classmethod
    def strided_1d(cls, size, stride, in_dim, out_dim) -> LinearLayout:
        """``L(x) = stride * x`` for ``x`` in ``[0, size)``; out size ``size * stride`` (both powers of two)."""
        for what, v in (("size", size), ("stride", stride)):
            if not f2.is_power_of_two(v):
                raise NotAdmissibleError("LinearLayout.strided_1d", f"the {what} {v!r} is not a power of two")
        return cls({in_dim: [(stride << i,) for i in range(f2.log2(size))]}, {out_dim: size * stride})

    @classmethod
    def identity_1d(cls, size, in_dim, out_dim) -> LinearLayout:
        """``L(x) = x`` for ``x`` in ``[0, size)``."""
        return cls.strided_1d(size, 1, in_dim, out_dim)

    @classmethod
    def zeros_1d(cls, size, in_dim, out_dim, out_dim_size=1) -> LinearLayout:
        """``L(x) = 0`` for ``x`` in ``[0, size)``; out dim of size ``out_dim_size`` (1: surjective)."""
        if not f2.is_power_of_two(size):
            raise NotAdmissibleError("LinearLayout.zeros_1d", f"the size {size!r} is not a power of two")
        return cls({in_dim: [(0,)] * f2.log2(size)}, {out_dim: out_dim_size})

    # -- properties --
    def rank(self) -> int:
        """The rank of the F2 matrix (log2 of the image's size)."""
        return f2.rank(self.columns())

    def is_surjective(self) -> bool:
        return self.rank() == self.total_out_bits

    def is_injective(self) -> bool:
        return self.rank() == self.total_in_bits

    def is_invertible(self) -> bool:
        return self.total_in_bits == self.total_out_bits and self.is_surjective()

    def get_free_variable_masks(self) -> dict:
        """Triton's ``getFreeVariableMasks``: ``{in_dim: mask}``, the bits that are not pivots when the
        matrix is reduced column by column in dim order (a bit is free when its basis is a XOR of earlier
        bases: changing it alone can be undone by earlier bits; all masks 0 iff injective)."""
        basis, out, i = [], {}, 0
        cols = self.columns()
        for name, bs in self._bases:
            m = 0
            for j in range(len(bs)):
                if f2.reduce(cols[i], basis) == 0:
                    m |= 1 << j
                else:
                    basis = f2.echelon(basis + [cols[i]])
                i += 1
            out[name] = m
        return out

    # -- operations (Triton's) --
    def __mul__(self, outer: LinearLayout) -> LinearLayout:
        """Triton's ``operator*`` (the direct sum): in and out dims are merged in order (this layout's first,
        then ``outer``'s new ones); a shared in dim has this layout's bases followed by ``outer``'s; a shared
        out dim's values from ``outer`` are multiplied by this layout's size of it, and its size is the product.
        Dims common to both must come in the same relative order (NotAdmissibleError otherwise)."""
        if not isinstance(outer, LinearLayout):
            return NotImplemented
        for what, a, b in (("in", self.in_dim_names, outer.in_dim_names),
                           ("out", self.out_dim_names, outer.out_dim_names)):
            ca, cb = [d for d in a if d in b], [d for d in b if d in a]
            if ca != cb:
                raise NotAdmissibleError("LinearLayout *", f"the {what} dims common to both layouts come in "
                                         f"different orders ({ca} and {cb})")
        ins, outs = {}, {}
        for lay in (self, outer):
            for n, s in lay.in_dims:
                ins[n] = ins.get(n, 0) + f2.log2(s)
            for n, s in lay.out_dims:
                outs[n] = outs.get(n, 0) + f2.log2(s)
        onames = list(outs)
        bases = {}
        for n, k in ins.items():
            rows = [[0] * len(onames) for _ in range(k)]
            off = self.num_bits(n) if self.has_in_dim(n) else 0
            for lay, first, sh in ((self, 0, None), (outer, off, self)):
                if not lay.has_in_dim(n):
                    continue
                for j, o in enumerate(onames):
                    if not lay.has_out_dim(o):
                        continue
                    oi = lay.out_dim_index(o)
                    shift = sh.get_out_dim_size_log2(o) if sh is not None and sh.has_out_dim(o) else 0
                    for i, b in enumerate(lay._in(n)):
                        rows[first + i][j] = b[oi] << shift
            bases[n] = [tuple(r) for r in rows]
        return LinearLayout(bases, {o: 1 << k for o, k in outs.items()})

    def compose(self, outer: LinearLayout) -> LinearLayout:
        """``outer(self(x))``: this layout's out dims must be ``outer``'s in dims (any order), each no larger
        than ``outer``'s in dim. The result has this layout's in dims and ``outer``'s out dims."""
        if set(self.out_dim_names) != set(outer.in_dim_names):
            raise NotAdmissibleError("LinearLayout.compose", f"the out dims {self.out_dim_names} are not the outer "
                                     f"layout's in dims {outer.in_dim_names}")
        for n, s in self._outs:
            if s > outer.in_dim_size(n):
                raise NotAdmissibleError("LinearLayout.compose", f"out dim {n!r} has size {s}, larger than the "
                                         f"outer layout's in dim of size {outer.in_dim_size(n)}")
        names = self.out_dim_names
        return LinearLayout([(n, [outer.apply(dict(zip(names, b))) for b in bs]) for n, bs in self._bases],
                            outer.out_dims)

    def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        """Triton's ``invertAndCompose``: a layout ``C`` from this layout's in dims to ``outer``'s in dims with
        ``self(x) == outer(C(x))`` for every ``x``. Admissible when both have the same out dims (any order) and
        the image of this layout lies in ``outer``'s (NotAdmissibleError naming the first basis outside it);
        a smaller out size of either side is widened (Triton asserts equal sizes).
        Triton's choice among the solutions: an in dim that both layouts have with the same bases maps to
        itself (identity); the other bases are solved on ``outer``'s remaining columns by its least-squares
        rule: the unique combination of the pivot columns (each column not a XOR of earlier ones, in dim order),
        the free columns 0 (so broadcast bits map to 0)."""
        if set(self.out_dim_names) != set(outer.out_dim_names):
            raise NotAdmissibleError("LinearLayout.invert_and_compose", f"the out dims {self.out_dim_names} and "
                                     f"{outer.out_dim_names} differ")
        outs = self.out_dim_names
        a, b = outer.transpose_outs(outs), self
        for n, sz in b._outs:
            if sz > a.out_dim_size(n):
                a = a._widen(n, sz)
        for n, sz in a._outs:
            if sz > b.out_dim_size(n):
                b = b._widen(n, sz)
        ident = [d for d in a.in_dim_names if b.has_in_dim(d) and a.sublayout([d], outs) == b.sublayout([d], outs)]
        ar = a.sublayout([d for d in a.in_dim_names if d not in ident], outs)
        br = b.sublayout([d for d in b.in_dim_names if d not in ident], outs)
        acols = ar.columns()
        rows = []
        for n, bs in br._bases:
            for i, v in enumerate(bs):
                x = f2.solve(acols, ar.flat_basis(v))
                if x is None:
                    raise NotAdmissibleError("LinearLayout.invert_and_compose", f"basis {i} of in dim {n!r} "
                                             f"({', '.join(map(str, v))}) is not in the image of the outer layout")
                rows.append(x)
        ret = LinearLayout.from_columns(br.in_dims, ar.in_dims, rows)
        for d in ident:
            ret = ret * LinearLayout.identity_1d(a.in_dim_size(d), d, d)
        return ret.transpose_ins(self.in_dim_names).transpose_outs(outer.in_dim_names)

    def _widen(self, name, size) -> LinearLayout:
        return LinearLayout(self.bases, [(n, size if n == name else s) for n, s in self._outs])

    def invert(self) -> LinearLayout:
        """The inverse of a bijective layout: in dims are this layout's out dims (same sizes) and out dims its
        in dims. NotAdmissibleError when not invertible (not square, or singular)."""
        if not self.is_invertible():
            raise NotAdmissibleError("LinearLayout.invert", f"the layout is not invertible ({self.total_in_bits} "
                                     f"input bits, {self.total_out_bits} output bits, rank {self.rank()})")
        ident = LinearLayout([(n, [tuple((1 << i) if k == j else 0 for k in range(len(self._outs)))
                                   for i in range(f2.log2(s))]) for j, (n, s) in enumerate(self._outs)],
                             self._outs)
        return ident.invert_and_compose(self)

    def pseudo_invert(self) -> LinearLayout:
        """A right inverse ``B`` of a surjective layout: ``self(B(y)) == y`` for every ``y``; the inverse when
        bijective. NotAdmissibleError when not surjective."""
        if not self.is_surjective():
            raise NotAdmissibleError("LinearLayout.pseudo_invert", f"the layout is not surjective (rank "
                                     f"{self.rank()} < {self.total_out_bits} output bits)")
        ident = LinearLayout([(n, [tuple((1 << i) if k == j else 0 for k in range(len(self._outs)))
                                   for i in range(f2.log2(s))]) for j, (n, s) in enumerate(self._outs)],
                             self._outs)
        return ident.invert_and_compose(self)

    def transpose_ins(self, order) -> LinearLayout:
        """The same function with in dims in ``order`` (a permutation of the in dim names)."""
        order = list(order)
        if sorted(order) != sorted(self.in_dim_names):
            raise NotAdmissibleError("LinearLayout.transpose_ins", f"{order} is not a permutation of the in dims "
                                     f"{self.in_dim_names}")
        return LinearLayout([(n, self._in(n)) for n in order], self._outs)

    def transpose_outs(self, order) -> LinearLayout:
        """The same function with out dims in ``order`` (a permutation of the out dim names)."""
        order = list(order)
        if sorted(order) != sorted(self.out_dim_names):
            raise NotAdmissibleError("LinearLayout.transpose_outs", f"{order} is not a permutation of the out "
                                     f"dims {self.out_dim_names}")
        idx = [self.out_dim_index(n) for n in order]
        return LinearLayout([(n, [tuple(b[i] for i in idx) for b in bs]) for n, bs in self._bases],
                            [(n, self.out_dim_size(n)) for n in order])

    def reshape_ins(self, new_in_dims) -> LinearLayout:
        """Flatten the in dims (first fastest) and split the flat input into ``new_in_dims`` ``[(name, size)]``
        (powers of two whose product is the total in size)."""
        new = _pairs(new_in_dims, "in dims")
        total = 1
        for n, s in new:
            if not f2.is_power_of_two(s):
                raise NotAdmissibleError("LinearLayout.reshape_ins", f"in dim {n!r} has size {s!r}, not a power "
                                         "of two")
            total *= s
        if total != self.total_in_size():
            raise NotAdmissibleError("LinearLayout.reshape_ins", f"the new in dims have total size {total}, not "
                                     f"{self.total_in_size()}")
        flat = [b for _, bs in self._bases for b in bs]
        it = iter(flat)
        return LinearLayout([(n, [next(it) for _ in range(f2.log2(s))]) for n, s in new], self._outs)

    def reshape_outs(self, new_out_dims) -> LinearLayout:
        """Flatten the out dims (first fastest) and split the flat output into ``new_out_dims``."""
        new = _pairs(new_out_dims, "out dims")
        proto = LinearLayout({}, new)
        if proto.total_out_size() != self.total_out_size():
            raise NotAdmissibleError("LinearLayout.reshape_outs", f"the new out dims have total size "
                                     f"{proto.total_out_size()}, not {self.total_out_size()}")
        return LinearLayout([(n, [proto.unflatten_out(self.flat_basis(b)) for b in bs]) for n, bs in self._bases],
                            new)

    def flatten_ins(self) -> LinearLayout:
        """One in dim (named as the first) of the total size; the first dim's bits lowest."""
        if not self._bases:
            return self
        return self.reshape_ins([(self._bases[0][0], self.total_in_size())])

    def flatten_outs(self) -> LinearLayout:
        """One out dim (named as the first) of the total size; the first dim's bits lowest."""
        if not self._outs:
            return self
        return self.reshape_outs([(self._outs[0][0], self.total_out_size())])

    def sublayout(self, in_dims, out_dims) -> LinearLayout:
        """The layout restricted to the named in dims (the others held at 0) and out dims (the others
        dropped); dim order and out sizes are kept from this layout."""
        in_dims, out_dims = set(in_dims), set(out_dims)
        for d in in_dims:
            self._in(d)
        for d in out_dims:
            self.out_dim_index(d)
        keep = [i for i, n in enumerate(self.out_dim_names) if n in out_dims]
        return LinearLayout([(n, [tuple(b[i] for i in keep) for b in bs]) for n, bs in self._bases if n in in_dims],
                            [self._outs[i] for i in keep])

    def sublayout_is_zero(self, in_dims, out_dims) -> bool:
        return all(not any(b) for bs in self.sublayout(in_dims, out_dims).bases.values() for b in bs)

    # -- more of Triton's operations --
    @classmethod
    def with_inferred_sizes(cls, bases, out_dim_names, require_surjective=True) -> LinearLayout:
        """Triton's ``LinearLayout(bases, outDimNames)``: each out dim's size is the smallest power of two above
        every basis value in it (1 when all are 0); with ``require_surjective`` a non-surjective result is
        refused (NotAdmissibleError), as Triton asserts."""
        names = list(out_dim_names)
        sizes = [1] * len(names)
        for _, bs in _pairs(bases, "bases"):
            for b in bs:
                b = (b,) if type(b) is int else tuple(b)
                for k, v in enumerate(b[:len(names)]):
                    if type(v) is int and v > 0:
                        sizes[k] = max(sizes[k], 1 << v.bit_length())
        out = cls(bases, list(zip(names, sizes)))
        if require_surjective and not out.is_surjective():
            raise NotAdmissibleError("LinearLayout", f"the layout is not surjective (rank {out.rank()} < "
                                     f"{out.total_out_bits} output bits)")
        return out

    def concat_ins(self, other: LinearLayout) -> LinearLayout:
        """Triton's ``concatIns``: the same out dims and sizes, disjoint in dims; this layout's in dims first."""
        if self._outs != other._outs:
            raise NotAdmissibleError("LinearLayout.concat_ins", f"the out dims differ ({self.out_dims} and "
                                     f"{other.out_dims})")
        if set(self.in_dim_names) & set(other.in_dim_names):
            raise NotAdmissibleError("LinearLayout.concat_ins", "the in dims overlap")
        return LinearLayout(list(self._bases) + list(other._bases), self._outs)

    def concat_outs(self, other: LinearLayout) -> LinearLayout:
        """Triton's ``concatOuts``: the same in dims and sizes, disjoint out dims; this layout's out dims first."""
        if self.in_dims != other.in_dims:
            raise NotAdmissibleError("LinearLayout.concat_outs", f"the in dims differ ({self.in_dims} and "
                                     f"{other.in_dims})")
        if set(self.out_dim_names) & set(other.out_dim_names):
            raise NotAdmissibleError("LinearLayout.concat_outs", "the out dims overlap")
        return LinearLayout([(n, [a + b for a, b in zip(bs, other._in(n))]) for n, bs in self._bases],
                            list(self._outs) + list(other._outs))

    def resize_in_dim(self, name, size) -> LinearLayout:
        """Triton's ``resize``: in dim ``name`` grown to ``size`` (a power of two, not smaller) by zero bases,
        so the new bits broadcast."""
        bs = self._in(name)
        if not f2.is_power_of_two(size) or size < (1 << len(bs)):
            raise NotAdmissibleError("LinearLayout.resize_in_dim", f"{size!r} is not a power of two at least "
                                     f"{1 << len(bs)}")
        zero = (0,) * len(self._outs)
        return LinearLayout([(n, list(b) + [zero] * (f2.log2(size) - len(b)) if n == name else b)
                             for n, b in self._bases], self._outs)

    def remove_zero_bases_along_dim(self, name) -> LinearLayout:
        """Triton's ``removeZeroBasesAlongDim``: in dim ``name`` without its zero bases."""
        self._in(name)
        return LinearLayout([(n, [x for x in b if any(x)] if n == name else b) for n, b in self._bases], self._outs)

    def num_consecutive_in_out(self) -> int:
        """Triton's ``getNumConsecutiveInOut``: the largest ``V`` such that ``V`` consecutive values of the first
        in dim land on ``V`` consecutive values of the first out dim (the leading identity bases of the first in
        dim, cut where another basis touches those low bits of the first out dim)."""
        if not self._bases or not self._outs:
            return 1
        first = self._bases[0][1]
        k = 0
        while k < len(first) and first[k][0] == 1 << k and not any(first[k][1:]):
            k += 1
        other = 0
        for j, (_, bs) in enumerate(self._bases):
            for i, b in enumerate(bs):
                if j or i >= k:
                    other |= b[0]
        tz = (other & -other).bit_length() - 1 if other else 31
        return 1 << min(k, tz)
