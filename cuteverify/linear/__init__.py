"""Linear layouts over F2 (docs/model.md section 11): Triton's ``LinearLayout`` model (named input dimensions,
each bit of an input sends to a basis vector of the named output dimensions, and a value is the XOR of the
bases of its set bits), the F2 linear algebra it needs (ranks, spans, inverses) and the conversions between
CuTe layouts and linear layouts.

Modules: ``f2`` (rank, echelon basis, span membership, solve, inverse, kernel on bit-mask ints), ``layout``
(``LinearLayout`` with Triton's constructors and operations), ``compare`` (``equal_function``,
``same_ownership``: exact by rank computations), ``cute`` (``to_linear_layout``, ``from_linear_layout``).

May import: ``errors``, ``symbolic``, ``core``, ``algebra``.
"""
from .compare import Comparison, equal_function, same_ownership
from .cute import from_linear_layout, layout_bases, to_linear_layout
from .layout import LinearLayout

__all__ = ["Comparison", "LinearLayout", "equal_function", "from_linear_layout", "layout_bases", "same_ownership",
           "to_linear_layout"]
