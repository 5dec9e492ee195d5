"""The one "text or object -> layout" of the project: ``as_layout(x, what, assume=...)``.

Every API function and front end reads its layout arguments through :func:`as_layout` (CuTe text in every
print ``parse`` reads, cuteverify's own layouts, shapes, pycute / CuTe DSL / other libraries' layout objects);
``parse`` here is ``cv.parse``, the facade's reader of any notation value (a CuTe IR tile or shape text gives
its tuple), which hands objects to ``as_layout``.
"""
from __future__ import annotations

import functools

from ...errors import ParseError
from ..layout import Layout
from . import parse as _text
from .scan import ALL, split_top
from ..swizzle import ComposedLayout, Swizzle

__all__ = ["as_layout", "parse", "takes_text"]

_BLANK = ("_", "None")  # a tiler's kept mode


def as_layout(x, what: str = "layout", *, assume=None, tiler: bool = False, shapes: bool = True):
    """``x`` as a cuteverify ``Layout`` or ``ComposedLayout``: the one reader of "text or object -> layout".

    Definition, by the kind of ``x``:
      * ``str``: CuTe text in every form ``core.notation.parse.parse`` reads (DSL and C++ prints
        ``(_4,_8):(_1,_4)``, shape-only ``(4,8)``, coordinate strides, symbols, ``S<..>`` / ``Sw<..> o _0 o`` /
        ``o smem_ptr[16b](..) o`` swizzles, composed chains, ``!cute.layout<"..">`` /
        ``!cute.composed_layout<"..">``), read with ``assume`` (assumption strings or an ``Assumptions``) as
        the parser reads it;
      * ``Layout`` / ``ComposedLayout``: itself; with ``assume``, a layout that has no assumptions gets them (on
        every plain layout of a composed one);
      * ``int`` or a (nested) tuple / list of ints and symbolic extents: a shape, meaning the compact
        column-major layout ``Layout(shape)`` (size-1 modes get stride 0, as CuTe's ``make_layout``); with
        ``shapes=False`` (where a shape cannot be meant) refused;
      * objects of other libraries: pycute ``Layout`` (``.shape``/``.stride``), ``ComposedLayout``
        (``layoutB o offset o layoutA``), CuTe DSL layouts and composed layouts (``.shape``/``.stride``,
        ``.inner``/``.offset``/``.outer``), any object with integer ``.shape``/``.stride``, else an object whose
        ``str`` is CuTe text (dynamic DSL values print as ``?``).
    ``tiler=True`` (the algebra's operands, where a tiler is meant as well): text of a tiler ``<A, _, B>`` or
    ``!cute.tile<"[..]">`` gives the tuple of its entries (``None`` for ``_``, nested tilers allowed).
    Admissibility: anything else is refused. Bad text is a ``ParseError`` whose source is ``what`` and whose
    column points into ``x`` ("cannot parse layout A at column 5: ..."); text of another kind (a CuTe IR shape
    or swizzle) is a ``ParseError`` at column 1, and so are a swizzle alone, ``bool``, ``None`` and objects no
    reader takes (the error shows their ``repr``): every refusal is an input error naming ``what``.
    Post-condition: a ``Layout`` or ``ComposedLayout`` (a tuple only for tiler text with ``tiler=True``) that,
    for every text form, is the layout ``parse`` gives for that text, and for an object, the function its
    ``shape``/``stride`` (and swizzle, offset) describe.
    """
    if isinstance(x, str):
        return _read_text(x, what, assume, tiler)
    if isinstance(x, (Layout, ComposedLayout)):
        if assume is None or getattr(x, "assumptions", None) is not None:
            return x
        return _assuming(x, _text.as_assumptions(assume))
    L = _from_object(x, what, shapes)
    return L if assume is None else _assuming(L, _text.as_assumptions(assume))


def _read_text(text, what, assume, tiler):
    t = text.strip()
    if tiler and t.startswith("<") and t.endswith(">"):
        lead = text.index("<") + 1
        out = []
        for piece, off in split_top(t[1:-1], ",", ALL):
            if piece.strip() in _BLANK:
                out.append(None)
                continue
            try:
                out.append(_read_text(piece, what, assume, True))
            except ParseError as e:  # the column in the whole tiler text
                raise ParseError(text, lead + off + e.column - 1, e.expected, what) from None
        return tuple(out)
    L = _text.parse(text, assume, source=what)
    if isinstance(L, (Layout, ComposedLayout)) or (tiler and type(L) is tuple):
        return L
    raise ParseError(text, 1, f"a layout (this text gives a {type(L).__name__})", what)


def _assuming(x, asm):
    """``x`` with the assumptions ``asm`` on each of its plain layouts (a composed layout's outer function and
    every inner layout of a chain as well)."""
    if isinstance(x, Layout):
        return Layout(x.shape, x.stride, obligations=x.obligations, assumptions=asm)
    inner = _assuming(x.inner, asm) if isinstance(x.inner, Layout) else x.inner
    return type(x)(inner, x.offset, _assuming(x.outer, asm))


def _int_tree(x, what):
    """An int / nested tuple of ints (or symbols) from DSL or pycute values."""
    if isinstance(x, bool):
        raise TypeError(f"{what}: unexpected bool")
    if isinstance(x, int):
        return x
    if isinstance(x, (tuple, list)):
        return tuple(_int_tree(v, what) for v in x)
    for attr in ("value", "__int__"):  # DSL static integers / numpy ints
        if attr == "__int__" and hasattr(x, "__int__"):
            try:
                return int(x)
            except (TypeError, ValueError):
                break
        elif attr == "value" and isinstance(getattr(x, "value", None), int):
            return x.value
    if hasattr(x, "free_symbols"):  # sympy expressions (cuteverify's own symbolic entries)
        return x
    if hasattr(x, "__iter__") and not isinstance(x, (str, bytes)):
        return tuple(_int_tree(v, what) for v in x)
    raise TypeError(f"{what}: cannot read {x!r} ({type(x).__name__}) as an integer tuple")


def _swizzle(obj):
    if isinstance(obj, Swizzle):
        return obj
    if all(hasattr(obj, a) for a in ("bits", "base", "shift")):
        return Swizzle(int(obj.bits), int(obj.base), int(obj.shift))
    if all(hasattr(obj, a) for a in ("num_bits", "num_base", "num_shift")):  # DSL naming
        return Swizzle(int(obj.num_bits), int(obj.num_base), int(obj.num_shift))
    return None


def _from_object(obj, what, shapes=True):
    """A layout from a shape or another library's object (``as_layout``'s definition); ParseError otherwise."""
    if obj is None or isinstance(obj, bool):
        _refuse(obj, what, "a layout (CuTe text, a Layout, a shape or a pycute / CuTe DSL layout)")
    if isinstance(obj, (int, tuple, list)) or (hasattr(obj, "free_symbols") and not callable(obj.free_symbols)):
        # a shape; a sympy extent's free_symbols is a property (a layout's is a method)
        if not shapes:
            _refuse(obj, what, "a layout (CuTe text, a Layout or a pycute / CuTe DSL layout), not a shape")
        try:
            return Layout(_int_tree(obj, "shape"))
        except TypeError as e:
            _refuse(obj, what, f"a shape of positive integers or symbols ({e})")
    # composed layouts: pycute (layoutB, offset, layoutA), DSL (inner, offset, outer)
    for inner_a, outer_a in (("layoutB", "layoutA"), ("inner", "outer")):
        if hasattr(obj, inner_a) and hasattr(obj, outer_a):
            inner = getattr(obj, inner_a)
            sw = _swizzle(inner)
            inner_l = sw if sw is not None else as_layout(inner, what)
            try:
                off = _int_tree(getattr(obj, "offset", 0) or 0, "offset")
            except TypeError as e:
                _refuse(obj, what, f"a composed layout with an integer offset ({e})")
            return ComposedLayout(inner_l, off, as_layout(getattr(obj, outer_a), what))
    sw = _swizzle(obj)
    if sw is not None:
        _refuse(obj, what, f"a layout; a swizzle alone is not one: compose it, S<{sw.bits},{sw.base},{sw.shift}> "
                "o 0 o L")
    if hasattr(obj, "shape") and hasattr(obj, "stride"):
        try:
            return Layout(_int_tree(obj.shape, "shape"), _int_tree(obj.stride, "stride"))
        except TypeError:
            pass  # dynamic DSL values and the like: try the printed form
    text = str(obj)
    if ":" in text:
        return _read_text(text, what, None, False)
    _refuse(obj, what, "a layout (CuTe text, a Layout, a shape, or an object with .shape/.stride)")


def _refuse(obj, what, expected):
    """An object no reader takes: the input error naming ``what`` (its column: the object's ``repr``)."""
    raise ParseError(repr(obj), 1, f"{expected}; got {type(obj).__name__}", what)


def parse(obj, assume=None, *, source: str = "layout"):
    """``cv.parse``: any CuTe notation value from text (a layout; CuTe IR's tile, shape or swizzle texts give
    theirs: ``core.notation.parse.parse``), a layout from an object (``as_layout``)."""
    if isinstance(obj, str):
        return _text.parse(obj, assume, source=source)
    return as_layout(obj, source, assume=assume)


def takes_text(fn):
    """``fn`` (``size``, ``cosize``, ``rank``, ...) with its first argument read by ``as_layout`` when it is
    text, as every API function reads it (a string is never a shape: ``size("(4,8):(1,4)")`` is 32)."""
    @functools.wraps(fn)
    def wrapper(x, *args, **kw):
        return fn(as_layout(x) if isinstance(x, str) else x, *args, **kw)
    return wrapper
