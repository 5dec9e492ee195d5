"""The layout model (docs/model.md section 2): HTuples, strides (integer, coordinate ``E<i>``, F2), the
immutable ``Layout`` with slicing, swizzles and composed layouts, the notation (parse / format, CuTe IR's
types in ``cute_ir_text``, extents and permutations in ``tiles``), the size-1 stride convention
(``convention``) and conversion from other libraries' objects.

May import: ``errors``, ``symbolic``.
"""
from .notation.interop import as_layout, parse
from .layout import Layout, make_layout, slice_and_offset, slice_layout
from .swizzle import ComposedLayout, Swizzle

__all__ = ["Layout", "ComposedLayout", "Swizzle", "make_layout", "parse", "as_layout", "slice_and_offset",
           "slice_layout"]
