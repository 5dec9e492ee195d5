"""Linear-layout conversions over the spec library (issue 20): every TV layout of every spec instance (MMA
operands, copy src/dst) and every shared-memory atom, converted CuTe -> linear -> CuTe (the default form, the
TV form with the operand's tile, the shared form for smem atoms) and checked to be the same function by full
evaluation. Prints: layouts in the library, distinct ones, power-of-two ones, round-tripped, refused by reason,
and the time. Asserts nothing.

    python bench/linear.py
"""
from __future__ import annotations

import collections
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuteverify.core.layout import size
from cuteverify.core.notation.parse import parse
from cuteverify.core.tuples import flatten
from cuteverify.errors import CuteVerifyError
from cuteverify.hardware.library.catalog import default_library
from cuteverify.linear import equal_function, from_linear_layout, to_linear_layout


def library_layouts(lib):
    """``{(layout text, tile or None, shared): count}`` over every spec, instance and operand."""
    out = collections.Counter()
    for name in lib:
        s = lib.peek(name)
        if s.kind not in ("mma", "copy", "smem_atom"):
            continue
        for p in s.instances():
            for op in s.operands:
                text = s.layout_text(op, **p)
                rows, cols, order = s.tile(op, **p)
                if s.kind == "smem_atom":
                    out[(text, None, True)] += 1
                else:
                    out[(text, (cols, rows) if order.startswith("row") else (rows, cols), False)] += 1
    return out


FULL_UP_TO = 1 << 16  # layouts up to this size are also evaluated at every point (pure Python)


def _norm(v, tile=None):
    """A value as an int or a tuple without trailing zeros; with ``tile`` a coordinate (m, n) as m + M*n."""
    if isinstance(v, tuple):
        t = [int(x) for x in v]
        if tile is not None:
            return t[0] + tile[0] * (t[1] if len(t) > 1 else 0) if t else 0
        while t and t[-1] == 0:
            t.pop()
        return tuple(t)
    return int(v)


def values(L, tile=None):
    """Every value of ``L`` by cuteverify's own evaluation, normalised."""
    return [_norm(v, tile) for v in L.values()]


def main():
    t0 = time.perf_counter()
    lib = default_library()
    layouts = library_layouts(lib)
    total = sum(layouts.values())
    stats = collections.Counter()
    refused = collections.Counter()
    times = []
    for text, tile, shared in layouts:
        L = parse(text)
        pow2 = all(type(x) is int and x & (x - 1) == 0 for x in _shape_leaves(L))
        stats["pow2"] += pow2
        forms = [("default", {})] + ([("shared", {"shared": True})] if shared else []) + \
            ([("tv", {"tile": tile})] if tile is not None else [])
        for form, kw in forms:
            t1 = time.perf_counter()
            try:
                ll = to_linear_layout(L, **kw)
            except CuteVerifyError as e:
                refused[(form, re.sub(r"\d+", "N", str(e).split(": ", 1)[-1]))] += 1
                continue
            back = from_linear_layout(ll, form="plain" if form == "default" else None)
            times.append(time.perf_counter() - t1)
            # exact: the written layout's linear layout is the same function (bases); and, when small, every point
            ok = bool(equal_function(to_linear_layout(back, **kw), ll))
            if size(L) <= FULL_UP_TO:
                t = tile if form == "tv" else None
                ok = ok and values(back, t) == values(L, t)
                stats[f"{form} evaluated at every point"] += ok
            stats[f"{form} round-tripped" if ok else f"{form} MISMATCH"] += 1
            if form == "shared":
                stats["shared printed back as the atom's own text"] += str(back) == text
    dt = time.perf_counter() - t0
    print(f"layouts in the spec library (instances x operands, smem atoms): {total}")
    print(f"distinct (layout, tile): {len(layouts)}, power-of-two shaped: {stats['pow2']}")
    for k in sorted(k for k in stats if k != "pow2"):
        print(f"{k}: {stats[k]}")
    for (form, why), n in refused.most_common():
        print(f"refused ({form}) x{n}: {why}")
    if times:
        print(f"conversion CuTe -> linear -> CuTe: median {statistics.median(times) * 1e6:.0f} us, "
              f"max {max(times) * 1e3:.1f} ms")
    print(f"total time: {dt:.2f} s")


def _shape_leaves(L):
    return flatten(L.shape)


if __name__ == "__main__":
    main()
