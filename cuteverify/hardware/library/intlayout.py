"""Concrete layouts as plain int tables, for enumerating every (thread, value) of a spec fast.

The self-check and the agreement checks evaluate hundreds of thousands of layout entries; going through the
symbolic core for each would cost seconds. :func:`int_layout` converts a concrete core ``Layout`` (or a
``Swizzle o offset o Layout``) once into per-mode offset lists, and :class:`IntLayout` evaluates it with int
arithmetic only. tests/hardware/test_specs.py checks it against the core's own evaluation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ...core.swizzle import Swizzle
from ...errors import SpecError

__all__ = ["IntLayout", "int_layout", "as_int"]


def _flatten(t) -> list:
    if isinstance(t, tuple):
        out = []
        for x in t:
            out.extend(_flatten(x))
        return out
    return [t]


def as_int(x, what: str) -> int:
    """``x`` as an int; :class:`SpecError` when it is not a concrete integer (e.g. a symbol left unbound)."""
    try:
        if isinstance(x, bool):
            raise TypeError
        v = int(x)
        if v != x:
            raise ValueError
        return v
    except (TypeError, ValueError):
        raise SpecError(f"{what}: {x!r} is not a concrete integer (missing parameter?)") from None


def _offsets(shape, stride) -> list:
    """Offsets of a (possibly nested) mode in colexicographic order of its 1-D index."""
    offs = [0]
    for s, d in zip(_flatten(shape), _flatten(stride)):
        s = as_int(s, "shape entry")
        d = as_int(d, "stride entry")
        offs = [o + k * d for k in range(s) for o in offs]
    return offs


@dataclass(frozen=True)
class IntLayout:
    """A concrete layout as int tables: per top-level mode offsets, and an optional swizzle + offset."""

    modes: tuple          # tuple of offset lists, one per top-level mode (rank-1 layouts: one mode)
    swizzle: Swizzle | None = None  # the core's Swizzle<B,M,S>, applied to base + offset
    base: int = 0

    @property
    def rank(self) -> int:
        return len(self.modes)

    def mode_size(self, k: int) -> int:
        return len(self.modes[k])

    @property
    def size(self) -> int:
        n = 1
        for m in self.modes:
            n *= len(m)
        return n

    def _sw(self, x: int) -> int:
        return x if self.swizzle is None else self.swizzle(x)

    def values(self) -> list:
        """All values in colex order of the 1-D index (mode 0 fastest)."""
        vals = [0]
        for offs in self.modes:
            vals = [a + b for b in offs for a in vals]
        if self.swizzle is None and not self.base:
            return vals
        return [self._sw(self.base + v) for v in vals]

    def tv_values(self, threads: Iterable[int] | None = None) -> list:
        """Rank-2 values L(t, v), t outer (ascending or the given threads), v inner."""
        t_offs, v_offs = self.modes
        ts = range(len(t_offs)) if threads is None else threads
        vals = [t_offs[t] + b for t in ts for b in v_offs]
        if self.swizzle is None and not self.base:
            return vals
        return [self._sw(self.base + v) for v in vals]

    def __call__(self, *crd: int) -> int:
        if len(crd) == 1 and self.rank > 1:
            idx, crd = crd[0], []
            for offs in self.modes[:-1]:
                crd.append(idx % len(offs))
                idx //= len(offs)
            crd.append(idx)
        return self._sw(self.base + sum(m[c] for m, c in zip(self.modes, crd)))


MAX_MODE_ENTRIES = 1 << 24


def int_layout(obj, what: str) -> IntLayout:
    """Convert a concrete cuteverify Layout / ComposedLayout (``Swizzle o offset o Layout``) into int tables.

    Post-condition: ``int_layout(L)(*crd) == L(*crd)`` for every coordinate. Raises :class:`SpecError`
    (naming ``what``) for a symbolic entry or another kind of composition."""
    swz, base, lay = None, 0, obj
    if hasattr(obj, "inner") and hasattr(obj, "outer"):  # ComposedLayout: inner o offset o outer
        swz = obj.inner
        if not isinstance(swz, Swizzle):
            raise SpecError(f"{what}: only Swizzle o offset o Layout compositions are supported")
        base = as_int(obj.offset, f"{what} offset")
        lay = obj.outer
    shape, stride = lay.shape, lay.stride
    for s in (shape if isinstance(shape, tuple) else (shape,)):
        n = 1
        for e in _flatten(s) if isinstance(s, tuple) else (s,):
            n = n * e if type(e) is int else n
        if n > MAX_MODE_ENTRIES:  # each mode becomes a table of offsets: refuse before allocating it
            raise SpecError(f"{what}: a mode of {n} entries, past the limit of {MAX_MODE_ENTRIES} (2**24) a spec "
                            "comparison tabulates")
    if isinstance(shape, tuple):
        modes = tuple(_offsets(s, d) for s, d in zip(shape, stride))
    else:
        modes = (_offsets(shape, stride),)
    return IntLayout(modes, swz, base)
