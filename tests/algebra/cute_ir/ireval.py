"""An evaluator of CuTe IR's and cuteverify's printed layouts that shares no code with cuteverify.

It parses the text itself (integers, ``v@i@j`` coordinate strides, ``S<b,m,s>`` swizzles, composed layouts
``A o offset o B`` with ``A`` a swizzle or a layout, ``():()``, tiles ``[A;_;B]`` and ``<A, B>``) and
evaluates a layout at every index of its domain. Values of a layout with coordinate strides are
coordinates: a sorted tuple of ``(path, value)`` pairs, trailing ``0`` mode indices dropped from a path
(``E<1,0>`` is ``E<1>``, as docs/model.md section 2.3 states). Anything else raises ``NotEvaluable``.
"""
from __future__ import annotations

import re

import numpy as np


class NotEvaluable(Exception):
    pass


class Sw:
    def __init__(self, b, m, s):
        self.b, self.m, self.s = b, m, s

    def __call__(self, x):
        y = x & (((1 << self.b) - 1) << (self.m + max(0, self.s)))
        return x ^ (y >> self.s if self.s >= 0 else y << -self.s)


class B:
    """A coordinate stride ``value * E<path>``."""

    def __init__(self, value, path):
        self.value, self.path = value, path

    def __eq__(self, o):
        return isinstance(o, B) and (self.value, self.path) == (o.value, o.path)

    def __hash__(self):
        return hash((self.value, self.path))


class Lay:
    """A plain layout: nested tuples ``shape``, ``stride`` (leaves: int or a basis ``B``)."""

    def __init__(self, shape, stride):
        self.shape, self.stride = shape, stride

    def __repr__(self):
        return f"Lay({self.shape}:{self.stride})"


class Composed:
    def __init__(self, outer, offset, inner):
        self.outer, self.offset, self.inner = outer, offset, inner  # outer o offset o inner


# ------------------------------------------------------------------------------------------- parsing

class _P:
    def __init__(self, t):
        self.t, self.i = t.replace(" ", ""), 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else ""

    def eat(self, c):
        if self.peek() != c:
            raise NotEvaluable(f"expected {c!r} at {self.i} in {self.t!r}")
        self.i += 1

    def num(self):
        m = re.compile(r"_?(-?\d+)").match(self.t, self.i)
        if not m:
            raise NotEvaluable(f"expected an integer at {self.i} in {self.t!r}")
        self.i = m.end()
        return int(m.group(1))

    def elem(self, basis):
        v = self.num()
        path = []
        while self.peek() == "@":
            if not basis:
                raise NotEvaluable("a coordinate stride in a shape")
            self.i += 1
            path.append(self.num())
        if not path:
            return v
        path = tuple(reversed(path))  # ``v@j@i`` is v*E<i,j>
        while len(path) > 1 and path[-1] == 0:
            path = path[:-1]
        return B(v, path) if v else 0

    def tup(self, basis=False):
        if self.peek() == "(":
            self.i += 1
            if self.peek() == ")":
                self.i += 1
                return ()
            xs = [self.tup(basis)]
            while self.peek() == ",":
                self.i += 1
                xs.append(self.tup(basis))
            self.eat(")")
            return tuple(xs)
        return self.elem(basis)

    def done(self):
        if self.i != len(self.t):
            raise NotEvaluable(f"trailing text at {self.i} in {self.t!r}")


def _congruent(a, b):
    if type(a) is tuple:
        return type(b) is tuple and len(a) == len(b) and all(map(_congruent, a, b))
    return type(b) is not tuple


def parse_tuple(text):
    p = _P(text)
    t = p.tup(basis=True)
    p.done()
    return t


def parse_layout(text):
    """A ``Lay``, a ``Composed`` or raises ``NotEvaluable``."""
    parts = [x.strip() for x in re.split(r"\s+o\s+", text.strip())]
    if len(parts) == 3:
        m = re.fullmatch(r"(?:S|Sw)<(-?\d+),(-?\d+),(-?\d+)>", parts[0].replace(" ", ""))
        outer = Sw(*map(int, m.groups())) if m else parse_layout(parts[0])
        return Composed(outer, parse_tuple(parts[1]), parse_layout(parts[2]))
    if len(parts) != 1:
        raise NotEvaluable(f"{len(parts)} components in {text!r}")
    t = parts[0]
    if ":" not in t:
        raise NotEvaluable(f"no stride in {text!r}")
    a, b = t.split(":", 1)
    pa, pb = _P(a), _P(b)
    shape, stride = pa.tup(), pb.tup(basis=True)
    pa.done()
    pb.done()
    if not _congruent(shape, stride):
        raise NotEvaluable(f"shape and stride not congruent in {text!r}")
    return Lay(shape, stride)


def parse_tile(text):
    """``[A;_;B]`` (CuTe IR) or ``<A, B>`` (cuteverify): a list of entries (``Lay``, int/tuple, None, list)."""
    t = text.strip()
    if t[:1] in "[<" and t[-1:] in "]>":
        sep = ";" if t[0] == "[" else ","
        items, depth, cur = [], 0, ""
        for ch in t[1:-1]:
            depth += ch in "([<"
            depth -= ch in ")]>"
            if ch == sep and depth == 0:
                items.append(cur.strip())
                cur = ""
            else:
                cur += ch
        items.append(cur.strip())
        return [parse_tile(x) for x in items]
    if t == "_":
        return None
    if ":" in t:
        return parse_layout(t)
    return parse_tuple(t)


# ------------------------------------------------------------------------------------------ evaluation

def flat(x):
    return [y for e in x for y in flat(e)] if type(x) is tuple else [x]


def size(lay):
    n = 1
    for s in flat(lay.inner.shape if isinstance(lay, Composed) else lay.shape):
        n *= s
    return n


def _has_basis(lay):
    return any(type(d) is B for d in flat(lay.stride))


def _ints(lay, idx):
    """Values at the flat indices ``idx`` (an int64 array) of an integer-stride layout (extended domain:
    the last leaf is not reduced)."""
    s, d = flat(lay.shape), flat(lay.stride)
    out = np.zeros_like(idx)
    rest = idx.copy()
    for k, (n, st) in enumerate(zip(s, d)):
        if k == len(s) - 1:
            out += rest * st
        else:
            out += (rest % n) * st
            rest //= n
    return out


def _coords(lay, i):
    """The value at flat index ``i`` of a layout with coordinate strides: a sorted tuple of (path, value)."""
    acc = {}
    s, d = flat(lay.shape), flat(lay.stride)
    for k, (n, st) in enumerate(zip(s, d)):
        c = i if k == len(s) - 1 else i % n
        i //= n
        if type(st) is B:
            acc[st.path] = acc.get(st.path, 0) + c * st.value
        elif st and c:
            raise NotEvaluable("an integer and a coordinate stride in one layout")
    return tuple(sorted((p, v) for p, v in acc.items() if v))


def _at_crd(lay, crd, shape=None, stride=None):
    """``lay`` at a hierarchical coordinate (ints per leaf or an int per mode): CuTe's crd2idx."""
    shape = lay.shape if shape is None else shape
    stride = lay.stride if stride is None else stride
    if type(crd) is tuple:
        if type(shape) is not tuple or len(shape) != len(crd):
            raise NotEvaluable("a coordinate not congruent to the layout")
        return sum(_at_crd(lay, c, s, d) for c, s, d in zip(crd, shape, stride))
    sub = Lay(shape, stride)
    if _has_basis(sub):
        raise NotEvaluable("a coordinate-stride layout as the outer function of a composed layout")
    return int(_ints(sub, np.array([crd], dtype=np.int64))[0])


def _as_crd(value, shape):
    """A coordinate value (sorted (path, v) pairs) as a nested tuple congruent with ``shape``'s top levels."""
    def build(sh, prefix):
        if type(sh) is not tuple:
            return sum(v for p, v in value if p[:len(prefix)] == prefix)
        return tuple(build(s, prefix + (k,)) for k, s in enumerate(sh))
    return build(shape, ())


def values(lay):
    """All values of ``lay`` on ``[0, size)``: an int64 array, or a list of coordinates."""
    n = size(lay)
    if isinstance(lay, Composed):
        inner = values(lay.inner)
        off = lay.offset
        if isinstance(lay.outer, Sw):
            if type(off) is not int or not isinstance(inner, np.ndarray):
                raise NotEvaluable("a swizzle of coordinates")
            return np.array([lay.outer(int(x) + off) for x in inner], dtype=np.int64)
        if isinstance(inner, np.ndarray):
            if type(off) is not int:
                raise NotEvaluable("a tuple offset with an integer inner layout")
            if _has_basis(lay.outer):
                return [_coords(lay.outer, int(x) + off) for x in inner]
            return _ints(lay.outer, inner + off)
        offs = tuple(sorted((p, v) for p, v in _off_pairs(off) if v))
        out = []
        for c in inner:
            acc = dict(offs)
            for p, v in c:
                acc[p] = acc.get(p, 0) + v
            out.append(_at_crd(lay.outer, _as_crd(tuple(sorted(acc.items())), lay.outer.shape)))
        return np.array(out, dtype=np.int64)
    if _has_basis(lay):
        return [_coords(lay, i) for i in range(n)]
    return _ints(lay, np.arange(n, dtype=np.int64))


def _off_pairs(off, prefix=()):
    if type(off) is tuple:
        return [x for k, o in enumerate(off) for x in _off_pairs(o, prefix + (k,))]
    p = prefix
    while len(p) > 1 and p[-1] == 0:
        p = p[:-1]
    return [(p or (0,), off)]


FULL = 1 << 16  # domains above this many indices are compared on [0, FULL) and a sample of the rest


def _sample(n):
    if n <= FULL:
        return None
    rng = np.random.default_rng(n % (1 << 32))
    return np.concatenate([np.arange(FULL, dtype=np.int64), rng.integers(FULL, n, 16384),
                           np.array([n - 1], dtype=np.int64)])


def same_function(x, y) -> bool:
    """Same size and the same value at every index of ``[0, size)`` (above ``FULL`` indices: at every index
    below ``FULL``, the last one and 16384 drawn from the rest)."""
    if size(x) != size(y):
        return False
    idx = _sample(size(x))
    plain = [isinstance(v, Lay) and not _has_basis(v) for v in (x, y)]
    if idx is not None and all(plain):
        return bool(np.array_equal(_ints(x, idx), _ints(y, idx)))
    a, b = values(x), values(y)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    a = [(((0,), int(v)),) if v else () for v in a] if isinstance(a, np.ndarray) else a
    b = [(((0,), int(v)),) if v else () for v in b] if isinstance(b, np.ndarray) else b
    return a == b


def modes(lay):
    """The top-level modes of a plain layout (a rank-1 layout is its own mode)."""
    if type(lay.shape) is not tuple:
        return [lay]
    return [Lay(s, d) for s, d in zip(lay.shape, lay.stride)]


def same_modes(x, y) -> bool:
    """Same rank and each top-level mode the same function (composed: same outer and offset, inner modes)."""
    if isinstance(x, Composed) or isinstance(y, Composed):
        if not (isinstance(x, Composed) and isinstance(y, Composed)):
            return False
        return same_modes(x.inner, y.inner) and same_function(x, y)
    mx, my = modes(x), modes(y)
    return len(mx) == len(my) and all(same_function(a, b) for a, b in zip(mx, my))
