"""Swizzled layouts by structure (issue 30): equality, injectivity, slicing, evaluation and inverses of
``Sw o 0 o L`` decided on the index bits (``core.bitlinear``) against the enumeration path they replace, in
the same process, on fresh objects (every repetition parses its layouts again, so no cache answers).

Prints, per size 2^10 / 2^16 / 2^24: the structural time, the enumeration path's time (value tables, as
before; past 2^16 it was a Z3 bit-vector query, not run here) and their ratio; evaluation per index and per
element of ``values()``; and ``left_inverse`` of every smem layout of the examples and of every CUTLASS GMMA
smem atom tiled to 3 stages (structural vs the value-by-value check). Asserts nothing.

    python bench/swizzle.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cuteverify.algebra import inverse, tile_to_shape  # noqa: E402
from cuteverify.algebra.inverse import left_inverse, right_inverse  # noqa: E402
from cuteverify.core import swizzle as swizzle_mod  # noqa: E402
from cuteverify.core.layout import size  # noqa: E402
from cuteverify.core.notation.parse import parse  # noqa: E402
from cuteverify.hardware.library.catalog import default_library  # noqa: E402
from cuteverify.prover import exact  # noqa: E402
from cuteverify.prover.queries import are_equal, is_injective  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def best(fn, repeat):
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out)


def pair(bits):
    """Two texts of the same function at 2^bits elements (one written with a split mode), and a third that
    differs (another swizzle)."""
    r = 1 << (bits // 2)
    c = 1 << (bits - bits // 2)
    a = f"S<3,4,3> o 0 o ({r},{c}):({c},1)"
    b = f"S<3,4,3> o 0 o ({r},(16,{c // 16})):({c},(1,16))"
    d = f"S<2,4,3> o 0 o ({r},(16,{c // 16})):({c},(1,16))"
    return a, b, d


def ms(x):
    return f"{x * 1e3:9.3f} ms"


def bench_sizes(repeat):
    print("size    | equal: structural  enumeration  ratio | injective | slice (structural  table) | values/elt")
    for bits in (10, 16, 24):
        a, b, d = pair(bits)
        n = 1 << bits
        t_eq = best(lambda: are_equal(parse(a), parse(b)), repeat)
        t_ne = best(lambda: are_equal(parse(a), parse(d)), repeat)
        if bits <= 16:
            orig_eq = exact.equal_bits
            exact.equal_bits = lambda A, B: None  # the query as it ran before: its value tables
            try:
                t_en = best(lambda: are_equal(parse(a), parse(b)), max(1, repeat // 2))
            finally:
                exact.equal_bits = orig_eq
            en = f"{ms(t_en)} {t_en / t_eq:7.0f}x"
        else:
            en = "  (Z3 path, not run)   "
        t_inj = best(lambda: is_injective(parse(a)), repeat)
        # a stage of a 2-stage buffer: the slice has 2^bits elements
        r, c = 1 << (bits // 2), 1 << (bits - bits // 2)
        st = f"S<3,4,3> o 0 o ({r},{c},2):({c},1,{n})"
        crd = (None, None, 1)
        t_sl = best(lambda: parse(st).slice_and_offset(crd), repeat)
        orig = swizzle_mod._slice_offset_by_bits
        swizzle_mod._slice_offset_by_bits = lambda target, sub: None
        try:
            t_tab = best(lambda: parse(st).slice_and_offset(crd), repeat) if bits <= 18 else float("nan")
        finally:
            swizzle_mod._slice_offset_by_bits = orig
        if bits <= 16:
            L = parse(a)
            t_vals = best(L.values, repeat) / n
            t_py = best(lambda: [L.inner(L.offset + v) for v in L.outer.values()], repeat) / n
            vals = f"{t_vals * 1e9:5.0f} ns (Python {t_py * 1e9:4.0f} ns)"
        else:
            vals = ""
        print(f"2^{bits:<5} | {ms(t_eq)} (refute {ms(t_ne)}) {en} | {ms(t_inj)} | {ms(t_sl)} {ms(t_tab)} | {vals}")
    L = parse(pair(16)[0])
    k = 20000
    t = time.perf_counter()
    for i in range(k):
        L(i)
    t_call = (time.perf_counter() - t) / k
    P = L.outer
    t = time.perf_counter()
    for i in range(k):
        P(i)
    t_plain = (time.perf_counter() - t) / k
    print(f"evaluation per index: swizzled {t_call * 1e9:.0f} ns, its plain inner layout {t_plain * 1e9:.0f} ns")


def smem_layouts():
    """(name, text) of the examples' swizzled smem layouts and the GMMA smem atoms, each tiled to 3 stages."""
    atoms = {}
    for f in sorted((ROOT / "examples").glob("*.yaml")):
        for m in re.finditer(r"S<[0-9,-]+> o 0 o \([0-9,]+\):\([0-9,]+\)", f.read_text()):
            atoms.setdefault(m.group(0), f"examples/{f.name}")
    lib = default_library()
    for name in lib:
        s = lib.peek(name)
        if s.kind != "smem_atom" or not name.startswith("GMMA"):
            continue
        for p in s.instances():
            for op in s.operands:
                atoms.setdefault(s.layout_text(op, **p), name)
    out = []
    for text, where in atoms.items():
        atom = parse(text)
        out.append((where, text, str(tile_to_shape(atom, (128, 128, 3)))))
    return out


def bench_inverses(repeat, op=left_inverse):
    rows = smem_layouts()
    struct, enum = [], []
    worst = ("", 0.0)
    orig = inverse._inverse_by_bits
    for where, atom, text in rows:
        t_s = best(lambda: op(parse(text)), repeat)
        inverse._inverse_by_bits = lambda layout, result, op: False
        try:
            t_e = best(lambda: op(parse(text)), 1)
        finally:
            inverse._inverse_by_bits = orig
        struct.append(t_s)
        enum.append(t_e)
        if t_s > worst[1]:
            worst = (f"{atom} tiled to (128,128,3) [{where}]", t_s)
    n = size(parse(rows[0][2]))
    print(f"{op.__name__} over {len(rows)} smem layouts (examples' atoms and GMMA atoms, tiled to (128,128,3): "
          f"{n} elements): structural median {ms(statistics.median(struct))}, max {ms(max(struct))}; "
          f"value-by-value check median {ms(statistics.median(enum))}; ratio {statistics.median(enum) / statistics.median(struct):.0f}x")
    print(f"  slowest: {worst[0]}: {ms(worst[1])}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    bench_sizes(args.repeat)
    bench_inverses(args.repeat)
    bench_inverses(args.repeat, right_inverse)


if __name__ == "__main__":
    main()
