"""Layouts from other libraries: ``to_layout(obj)``.

Accepts
  * cuteverify layouts (returned as they are);
  * legacy pycute objects: ``pycute.Layout`` (``.shape``/``.stride``), ``pycute.ComposedLayout``
    (``layoutB o offset o layoutA`` with a ``pycute.Swizzle`` or a layout as ``layoutB``), ``pycute.Swizzle``;
  * CuTe DSL objects (``cutlass.cute`` layouts and composed layouts) through their ``.shape``/``.stride``
    structure (``.inner``/``.offset``/``.outer`` for composed layouts), falling back to their printed form;
  * strings: CuTe notation or ``cute::print`` output (``((_2,_2),_4):((_1,_2),_4)``, ``Sw<3,3,3> o _0 o ...``);
  * a bare shape (int or tuple): the compact column-major layout.
"""
from __future__ import annotations

import functools

import re

from ..layout import Layout
from . import parse as _text
from ..swizzle import ComposedLayout, Swizzle

__all__ = ["to_layout", "parse"]


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


def _clean_print(text: str) -> str:
    """``cute::print`` / DSL output -> cuteverify notation: static ``_4`` -> ``4``, ``Sw<..>`` -> ``S<..>``."""
    t = text.strip()
    t = re.sub(r"\bSw<", "S<", t)
    t = re.sub(r"(?<![A-Za-z0-9])_(\d+)", r"\1", t)
    return t


def _swizzle(obj):
    if isinstance(obj, Swizzle):
        return obj
    if all(hasattr(obj, a) for a in ("bits", "base", "shift")):
        return Swizzle(int(obj.bits), int(obj.base), int(obj.shift))
    if all(hasattr(obj, a) for a in ("num_bits", "num_base", "num_shift")):  # DSL naming
        return Swizzle(int(obj.num_bits), int(obj.num_base), int(obj.num_shift))
    return None


def to_layout(obj):
    """Convert ``obj`` into a cuteverify ``Layout`` or ``ComposedLayout`` (see the module docstring).
    Raises ``TypeError`` for objects it cannot read and ``ParseError`` for bad text."""
    if isinstance(obj, (Layout, ComposedLayout)):
        return obj
    if isinstance(obj, str):
        return _text.parse(_clean_print(obj))
    if isinstance(obj, (int, tuple, list)) and not isinstance(obj, bool):
        return Layout(_int_tree(obj, "shape"))
    # composed layouts: pycute (layoutB, offset, layoutA), DSL (inner, offset, outer)
    for inner_a, outer_a in (("layoutB", "layoutA"), ("inner", "outer")):
        if hasattr(obj, inner_a) and hasattr(obj, outer_a):
            inner = getattr(obj, inner_a)
            sw = _swizzle(inner)
            inner_l = sw if sw is not None else to_layout(inner)
            off = _int_tree(getattr(obj, "offset", 0) or 0, "offset")
            return ComposedLayout(inner_l, off, to_layout(getattr(obj, outer_a)))
    sw = _swizzle(obj)
    if sw is not None:
        raise TypeError(f"a swizzle alone is not a layout; compose it: S<{sw.bits},{sw.base},{sw.shift}> o 0 o L")
    if hasattr(obj, "shape") and hasattr(obj, "stride"):
        try:
            return Layout(_int_tree(obj.shape, "shape"), _int_tree(obj.stride, "stride"))
        except TypeError:
            pass  # dynamic DSL values and the like: try the printed form
    text = str(obj)
    if ":" in text:
        return _text.parse(_clean_print(text))
    raise TypeError(f"cannot convert {type(obj).__name__} to a layout (need .shape/.stride, or CuTe text)")


def parse(obj, assume=None, *, source: str = "layout"):
    """``cv.parse``: CuTe text (``core.parse.parse``) or a layout object of CuTe DSL / pycute (``to_layout``)."""
    if isinstance(obj, str):
        return _text.parse(obj, assume, source=source)
    return to_layout(obj)


def reads_text(fn):
    """``fn`` (``size``, ``cosize``, ``rank``, ...) also taking CuTe text, as every API function does: a string
    is parsed first (it is never a shape: ``size("(4,8):(1,4)")`` must not be the string itself)."""
    @functools.wraps(fn)
    def wrapper(x, *args, **kw):
        return fn(_text.parse(x) if isinstance(x, str) else x, *args, **kw)
    return wrapper
