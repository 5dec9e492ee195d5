"""Reading CUTLASS's C++ layout types (``Layout<Shape<...>, Stride<...>>`` in a header's traits) as CuTe text,
for the tests that compare the spec library with CUTLASS's traits; and the function equality those tests use.
Static integers only (``_8``); comments and whitespace are dropped."""
from __future__ import annotations

import re

from cuteverify.core.notation.parse import parse
from cuteverify.hardware.library.intlayout import int_layout


def cpp_layout(text: str, unwrap: bool = False) -> str:
    """``Layout<Shape<Shape<_4,_8>,_64>, Stride<Stride<_0,_1>,_8>>`` -> ``((4,8),64):((0,1),8)``.
    ``unwrap``: a one-element ``Shape<_8>`` is the mode ``8`` rather than the 1-tuple ``(8)``."""
    t = re.sub(r"\s+", "", re.sub(r"//[^\n]*", "", text))
    t = re.sub(r"_(\d+)", r"\1", t)[len("Layout<"):-1]
    depth = 0
    for j, ch in enumerate(t):
        depth += (ch == "<") - (ch == ">")
        if ch == "," and depth == 0:
            shape, stride = t[:j], t[j + 1:]
            break
    else:
        raise ValueError(f"not a Layout<Shape, Stride> type: {text!r}")

    def conv(x):
        x = x.replace("Shape<", "(").replace("Stride<", "(").replace(">", ")")
        return re.sub(r"\((\d+)\)", r"\1", x) if unwrap else x
    return f"{conv(shape)}:{conv(stride)}"


def same_tv_function(a: str, b: str) -> bool:
    """Two rank-2 (thread, value) layouts are the same function: L(t, v) = T[t] + V[v] with T[0] = V[0] = 0,
    so equal per-mode offset tables are equal functions and conversely."""
    la, lb = int_layout(parse(a), "a"), int_layout(parse(b), "b")
    return la.rank == lb.rank == 2 and la.modes == lb.modes
