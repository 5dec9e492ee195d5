"""Stride domains beyond the integers (paper section 2.3.1).

``ScaledBasis`` is ``value * E<i, j, ...>``: a coordinate stride, printed ``value@i@j``. Sums of scaled
bases are ``ArithTuple``s (coordinates). Layouts whose strides are scaled bases produce coordinates
(``make_identity_layout``). Integer strides stay plain ints (or sympy expressions) for speed.
"""
from __future__ import annotations

from ..symbolic.expr import format_value


class ArithTuple(tuple):
    """A coordinate produced by a layout with coordinate strides: adds elementwise, scales by ints."""

    def __add__(self, other):
        if isinstance(other, int) and other == 0:
            return self
        if isinstance(other, ScaledBasis):
            other = other.as_tuple()
        n = max(len(self), len(other))
        a = tuple(self) + (0,) * (n - len(self))
        b = tuple(other) + (0,) * (n - len(other))
        return ArithTuple(_add(x, y) for x, y in zip(a, b))

    __radd__ = __add__

    def __mul__(self, k):
        return ArithTuple(_mul(x, k) for x in self)

    __rmul__ = __mul__

    def __str__(self):
        return "(" + ",".join(format_value(x) for x in self) + ")"

    def __repr__(self):
        return f"ArithTuple({tuple(self)!r})"


def _add(x, y):
    if isinstance(x, tuple) or isinstance(y, tuple):
        x = x if isinstance(x, tuple) else ArithTuple((x,)) if x else ArithTuple()
        y = y if isinstance(y, tuple) else ArithTuple((y,)) if y else ArithTuple()
        return ArithTuple(x) + ArithTuple(y)
    return x + y


def _mul(x, k):
    if isinstance(x, tuple):
        return ArithTuple(x) * k
    return x * k


class ScaledBasis:
    """``value * E<path>``: the basis element with 1 at the (nested) coordinate ``path``."""

    __slots__ = ("value", "path")

    def __init__(self, value, path):
        self.value = value
        self.path = tuple(path)

    def __mul__(self, k):
        return ScaledBasis(self.value * k, self.path)

    __rmul__ = __mul__

    def __add__(self, other):
        if isinstance(other, int) and other == 0:
            return self
        return self.as_tuple() + other

    __radd__ = __add__

    def __neg__(self):
        return ScaledBasis(-self.value, self.path)

    def __eq__(self, other):
        if isinstance(other, ScaledBasis):
            return self.path == other.path and self.value == other.value
        if isinstance(other, int) and other == 0:
            return self.value == 0
        return NotImplemented

    def __hash__(self):
        return hash(("E", self.value, self.path))

    def as_tuple(self) -> ArithTuple:
        """The coordinate this basis element denotes (zeros elsewhere)."""
        v = self.value
        for i in reversed(self.path):
            v = ArithTuple((0,) * i + (v,))
        return v if isinstance(v, ArithTuple) else ArithTuple((v,))

    def __str__(self):
        return format_value(self)

    __repr__ = __str__


def E(*path) -> ScaledBasis:
    """The unit basis element ``E<path>`` (``E(0)``, ``E(1)``, nested ``E(1, 0)``)."""
    return ScaledBasis(1, path)


def is_basis(x) -> bool:
    return isinstance(x, ScaledBasis)


class F2:
    """An element of the paper's F2 integer-semimodule ``(Z, XOR, *)`` (section 2.3.1, Figure 4c): scalars
    multiply it as an integer and elements add by XOR, so ``(4,(4,3)):(^1,(^5,^16))`` maps ``c`` to
    ``c0*1 XOR c1*5 XOR c2*16``. Printed ``^value``."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __mul__(self, k):
        return F2(self.value * k)

    __rmul__ = __mul__

    def __add__(self, other):
        if isinstance(other, F2):
            return F2(self.value ^ other.value)
        if isinstance(other, int):
            return F2(self.value ^ other)
        return NotImplemented

    __radd__ = __add__

    def __eq__(self, other):
        if isinstance(other, F2):
            return self.value == other.value
        if isinstance(other, int):
            return self.value == other
        return NotImplemented

    def __hash__(self):
        return hash(("F2", self.value))

    def __int__(self):
        return self.value

    __index__ = __int__

    def __str__(self):
        return f"^{self.value}"

    __repr__ = __str__
