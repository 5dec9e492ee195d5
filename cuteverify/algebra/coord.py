"""The codomain of a coordinate (``E<i>``) layout: its axes, and how the per-axis results of complement, the
inverses and the products are put back together (docs/model.md section 3.4).

A layout whose strides are ``v@i`` (``v * E<i>``, nested ``v@j@i``) maps an index to a coordinate, a point of
``Z^P`` where ``P`` is the layout's *coprofile*: the profile of ``sum_k E<path_k>`` over its strides
(``(2,3,5):(4@1,5@0,7@1@2)`` has coprofile ``(_,_,(_,_))``). The leaves of ``P``, in order, are the *axes*.
``E<i>`` where axis ``i`` is a tuple names its first leaf (``E<i> == E<i,0>``, as cuteverify's evaluator and
CuTe's ``ArithTuple`` add them). Every non-zero stride lies on exactly one axis. A stride ``0@i`` adds
nothing but still names axis ``i`` (as in CuTe DSL, whose ``right_inverse((2,3):(1@0,0@2))`` is
``(2,1,1):(1,0,0)``): an axis whose modes all have stride 0 has image {0}; complement and the products read
it as an axis with no modes (its complement is the whole axis, and a product may stack its copies there).

Order on coordinates: strides are ordered by (axis, value): ``a@i < b@j`` iff axis ``i`` comes before axis
``j`` in the coprofile, or ``i == j`` and ``a < b``; coordinates are compared colexicographically (the last
axis is the most significant), as CuTe orders integral coordinates. A layout that is ordered per axis is
ordered in this order. Integer strides other than 0 never appear beside ``E<i>`` ones (``Layout`` refuses the
mix), so every operation here acts on one integer problem per axis.
"""
from __future__ import annotations

from ..core.layout import Layout
from ..core.strides import ArithTuple, ScaledBasis
from ..errors import NotAdmissibleError
from ._op import mode_text


def is_coordinate(layout) -> bool:
    """A plain layout with at least one coordinate (``E<i>``) stride (the rest are 0)."""
    # int_leaves is cached: plain-int layouts (the concrete fast path) answer without a scan
    return type(layout) is Layout and layout.int_leaves is None and \
        any(type(d) is ScaledBasis for d in layout.leaves[1])


def is_zero(d) -> bool:
    return (type(d) is int and d == 0) or (type(d) is ScaledBasis and type(d.value) is int and d.value == 0)


class Codomain:
    """The axes of a concrete coordinate layout's codomain (its coprofile, see the module docstring).

    Admissibility (``op`` names the operation in refusals): every size and every stride value is a plain
    integer (symbolic coordinate layouts are refused), every basis has a path, strides are non-negative
    unless ``negative`` (the caller skips negative modes, as ``right_inverse`` does)."""

    def __init__(self, layout: Layout, op: str, negative=False):
        self.op = op
        self.root: list = []
        fs, fd = layout.leaves
        for s, d in zip(fs, fd):
            if type(s) is not int or (type(d) is ScaledBasis and type(d.value) is not int):
                raise NotAdmissibleError(op, "symbolic sizes or strides in a coordinate (E<i>) layout are not "
                                             "supported", mode_text(s, d))
            if type(d) is ScaledBasis and not d.path:
                raise NotAdmissibleError(op, "a coordinate stride needs a basis E<i>", mode_text(s, d))
            if type(d) is ScaledBasis and d.value < 0 and s != 1 and not negative:
                raise NotAdmissibleError(op, "negative coordinate strides are not supported (the per-axis "
                                             "constructions need non-negative strides)", mode_text(s, d))
            if type(d) is ScaledBasis:
                # a stride 0@i still names axis i (CuTe's coprofile is the profile of the sum of the strides,
                # 0@i included): the axis is there, its image {0}
                self._insert(d.path)
        self.paths = []
        self._leaves(self.root, (), self.paths)
        self.index = {p: k for k, p in enumerate(self.paths)}

    def _insert(self, path):
        node = self.root
        for k, i in enumerate(path):
            while len(node) <= i:
                node.append(None)
            if k + 1 < len(path):
                if node[i] is None:
                    node[i] = [None]  # an axis that was a leaf becomes a tuple: E<i> is E<i,0>
                node = node[i]

    def _leaves(self, node, prefix, out):
        for i, child in enumerate(node):
            if child is None:
                out.append(prefix + (i,))
            else:
                self._leaves(child, prefix + (i,), out)

    def axis(self, d: ScaledBasis) -> int:
        """The index of the axis that the stride ``d`` lies on."""
        path, node = tuple(d.path), self.root
        for i in path:
            node = node[i]
        while node is not None:
            path, node = path + (0,), node[0]
        return self.index[path]

    def __len__(self):
        return len(self.paths)

    def assemble(self, parts):
        """``(shape, stride)`` nested as the coprofile from one ``(shape, stride)`` per axis (in axis order);
        the top level is always a tuple, so a single axis gives a rank-1 layout (CuTe IR: ``(1):(3@0)``)."""
        it = iter(parts)

        def build(node):
            shapes, strides = [], []
            for child in node:
                s, d = next(it) if child is None else build(child)
                shapes.append(s)
                strides.append(d)
            return tuple(shapes), tuple(strides)

        return build(self.root)

    def coordinate(self, y):
        """A codomain value (``ArithTuple``, ``ScaledBasis`` or 0) as a plain natural coordinate congruent with
        the coprofile (missing entries 0), for evaluating a layout whose domain is the codomain."""
        if type(y) is ScaledBasis:
            y = y.as_tuple()

        def at(v, path):
            for i in path:
                if isinstance(v, tuple):
                    v = v[i] if i < len(v) else 0
                elif i != 0:  # an int where the axis is a tuple sits on its first leaf
                    return 0
            while isinstance(v, tuple):
                v = v[0] if v else 0
            return v

        vals = iter([at(y if isinstance(y, tuple) else ArithTuple((y,)) if y else ArithTuple(), p)
                     for p in self.paths])

        def build(node):
            return tuple(next(vals) if child is None else build(child) for child in node)

        return build(self.root)


def basis(value, path):
    """``value@path`` (0 stays the integer 0)."""
    return ScaledBasis(value, path) if value != 0 else 0


__all__ = ["Codomain", "is_coordinate", "is_zero", "basis"]
