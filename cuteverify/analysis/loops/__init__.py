"""Canonical loops (paper section 1.2): an affine loop nest <-> accessor + ``Shape:Stride``.

The public face of three modules: ``parse`` (loop text and its data: ``Loop``, ``LoopNest``, trip counts),
``form`` (the canonical form ``LoopLayout`` and printing it back) and ``repeat`` (does the nest
touch an element twice: ``NoRepeat``, a prover ``Verdict``).

``loop_layout(text)`` parses a perfectly nested, rectangular, affine loop nest, Python style
(``for n in range(3,43,2): for m in range(4,23,5): A[p*m+q*n]``) or C style
(``for (int n = 3; n < 43; n += 2) for (int m = 4; m <= 22; m += 5) A[p*m + q*n] = e(m,n);``), bounds and
strides possibly symbolic, and returns the canonical form: the accessor offset (``4*p + 3*q``) and the layout
``(4,20):(5*p,2*q)`` whose mode 0 is the innermost loop. ``to_loop_nest(layout, offset)`` prints the canonical
nest back; ``check_no_repeat`` proves that the nest touches no element twice or shows two colliding iterations.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``prover``.
"""
from __future__ import annotations

from .form import LoopLayout, check_no_repeat, loop_layout, to_loop_nest
from .parse import Loop, LoopNest, parse_loop_nest, trip_count
from .repeat import ENUMERATION_LIMIT, NoRepeat

__all__ = ["Loop", "LoopNest", "LoopLayout", "NoRepeat", "parse_loop_nest", "loop_layout",
           "to_loop_nest", "check_no_repeat", "trip_count", "ENUMERATION_LIMIT"]
