"""Concrete algebra speed on FRESH objects: cuteverify vs legacy pycute, tensor-layouts and CuTe DSL, one process.

Every timed call gets operands built anew from their text (the parse is outside the timed region, the object
is new), as a user or a manifest calls the algebra: no per-object cache (flattened leaves, the int-leaf test,
a hash) can answer from an earlier call. Each peer gets its own fresh objects built from the same parsed
shape and stride. Calls are interleaved case by case (cuteverify, pycute, tensor-layouts, repeat), best of
--repeat per case; the figure per operation is the geometric mean over its cases of the time ratio
cuteverify / peer, counted only on cases the peer accepts; the overall figure is the geometric mean of the
per-operation figures. Goals (issue 30): overall <= 0.5 against pycute and <= 0.35 against CuTe DSL, and no
operation above 1.0 against any peer that has it. Asserts nothing.

Corpus (the real layouts): the C++ differential corpus (tests/oracles/cpp_oracle/corpus, kinds ``pos`` and
``structured``: integer strides, no swizzle; at most --n cases per operation, those C++ accepted), CUTLASS's
own unit-test inputs (tests/algebra/cutlass_unit/cases.json) and kernel-size layouts (MMA TV layouts of SM80/SM90
atoms, smem buffers tiled to 3 stages, gmem matrices) divided by CTA tiles, multiplied by thread layouts and
inverted.

CuTe DSL evaluates static layout algebra at trace time: with --dsl all its calls for one operation run inside
ONE ``@cute.jit`` trace (dry run, no GPU), each call timed on its own (best of --repeat, operands built
outside the timed region); it includes building the MLIR op for the result, which is what a DSL user pays.

    python bench/algebra.py [--n 150] [--repeat 5] [--dsl]
"""
from __future__ import annotations

import argparse
import ast
import gzip
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import cuteverify as cv
from cuteverify.core.notation.interop import as_layout

ROOT = Path(__file__).resolve().parent.parent
OPS = ("coalesce", "composition", "complement", "logical_divide", "zipped_divide", "logical_product",
       "blocked_product", "raked_product", "right_inverse", "left_inverse")


def _kernel_cases():
    """Kernel-size layouts: MMA TV layouts, smem buffers, gmem matrices, with the tilers kernels use."""
    tv = ["((4,8),(2,2,2)):((32,1),(16,8,128))", "((4,8),(2,2)):((32,1),(16,8))", "((4,8),(2,2)):((16,1),(8,64))",
          "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))", "((4,8,4),(2,2,32)):((128,1,16),(64,8,512))",
          "((32,4),(8,4)):((1,32),(128,1024))", "((8,4,4),(2,2,8)):((1,8,32),(128,256,512))",
          "(128,(4,2)):(1,(128,512))", "((32,2,2),(4,8)):((4,128,256),(1,512))"]
    smem = ["(64,8):(1,64)", "((8,8),(8,4)):((8,64),(1,512))", "((64,2),(64,3)):((1,4096),(64,8192))",
            "(128,64,3):(64,1,8192)", "((8,16),(64,1),3):((64,512),(1,0),8192)", "(128,(32,2)):(32,(1,4096))"]
    gmem = ["(1024,512):(512,1)", "(4096,4096):(1,4096)", "(256,128):(128,1)", "((128,8),(64,16)):((1,8192),(128,1024))",
            "(2048,(64,4)):(256,(1,64))"]
    tiles = ["<128,64>", "<64,32>", "<(8,16):(16,1),64>", "<128>", "<(4,32):(32,1),(8,8):(8,1)>"]
    thr = ["(4,8):(8,1)", "(2,2):(1,2)", "(8,4):(1,8)", "(32,1):(1,0)"]
    out = []
    for a in tv + smem + gmem:
        out += [("coalesce", [a]), ("right_inverse", [a]), ("left_inverse", [a]), ("complement", [a])]
        for t in tiles:
            out += [("logical_divide", [a, t]), ("zipped_divide", [a, t])]
        for b in thr:
            out += [("logical_product", [a, b]), ("blocked_product", [a, b]), ("raked_product", [a, b])]
    for a in tv:
        out += [("composition", [g, a]) for g in gmem]
    return out


def load_corpus(n):
    """``(op, [arg texts], source)`` over the three sources."""
    out = []
    for op in OPS:
        f = ROOT / "tests" / "oracles" / "cpp_oracle" / "corpus" / f"{op}.jsonl.gz"
        if not f.exists():
            continue
        k = 0
        with gzip.open(f, "rt") as fh:
            for line in fh:
                r = json.loads(line)
                if r["kind"] in ("pos", "structured") and "result" in r and k < n:
                    out.append((op, r["args"], "cpp"))
                    k += 1
    cu = ROOT / "tests" / "algebra" / "cutlass_unit" / "cases.json"
    if cu.exists():
        for c in json.loads(cu.read_text())["cases"]:
            if c["op"] in OPS and c.get("inputs_cv") and None not in c["inputs_cv"]:
                out.append((c["op"], c["inputs_cv"], "cutlass"))
    out += [(op, args, "kernel") for op, args in _kernel_cases()]
    return out


def _spec(text):
    """Parsed argument as plain data: ('L', shape, stride), ('I', int), ('T', tuple of specs or None)."""
    x = as_layout(text, tiler=True)
    return _spec_of(x)


def _spec_of(x):
    if x is None:
        return None
    if type(x) is tuple:
        return ("T", tuple(_spec_of(y) for y in x))
    if isinstance(x, cv.Layout):
        if x.int_leaves is None:
            raise ValueError("not a plain integer layout")
        return ("L", x.shape, x.stride)
    raise ValueError(f"not a plain argument: {x!r}")


def _complement_arg(op, i, text):
    # complement's second argument is a cotarget (an int or a shape), not a layout
    if op == "complement" and i == 1:
        v = ast.literal_eval(text.replace("_", ""))  # corpus text of ints and tuples
        return ("I", v)
    return None


def builders(op, texts):
    specs = []
    for i, t in enumerate(texts):
        s = _complement_arg(op, i, t)
        specs.append(s if s is not None else _spec(t))
    return specs


def make(lib, spec):
    """A fresh object of ``lib`` for ``spec``."""
    kind = spec[0]
    if kind == "I":
        return spec[1]
    if kind == "T":
        return tuple(None if s is None else make(lib, s) for s in spec[1])
    return lib(spec[1], spec[2])


def _peers():
    peers = {"cuteverify": (lambda s, d: cv.Layout(s, d), {op: getattr(cv, op) for op in OPS})}
    try:
        import pycute
        peers["pycute"] = (pycute.Layout, {op: getattr(pycute, op) for op in OPS if hasattr(pycute, op)})
    except ImportError:
        print("pycute not installed (pip install --no-deps nvidia-cutlass): no pycute column")
    try:
        import tensor_layouts as tl
        fns = {op: getattr(tl, op) for op in OPS if hasattr(tl, op)}
        fns["composition"] = tl.compose
        peers["tensor-layouts"] = (tl.Layout, fns)
    except ImportError:
        print("tensor-layouts not installed (pip install --no-deps tensor-layouts): no tensor-layouts column")
    return peers


def _accepts(fn, lib, specs):
    try:
        fn(*(make(lib, s) for s in specs))
        return True
    except Exception:  # noqa: BLE001 - a peer's refusal (assert, ValueError, ...) only drops the case for it
        return False


def time_cases(cases, peers, repeat):
    """{op: {peer: [(case index, best time)]}}, peers interleaved per case and per repeat."""
    res = {op: {p: [] for p in peers} for op in OPS}
    for ci, (op, specs) in enumerate(cases):
        live = [(p, lib, fns[op]) for p, (lib, fns) in peers.items() if op in fns and _accepts(fns[op], lib, specs)]
        if not live or live[0][0] != "cuteverify":
            continue
        best = {p: math.inf for p, _, _ in live}
        for _ in range(repeat):
            for p, lib, fn in live:
                args = [make(lib, s) for s in specs]
                t0 = time.perf_counter()
                fn(*args)
                t = time.perf_counter() - t0
                if t < best[p]:
                    best[p] = t
        for p in best:
            res[op][p].append((ci, best[p]))
    return res


def _import_dsl():
    os.environ.setdefault("CUTE_DSL_DRYRUN", "1")
    os.environ.setdefault("CUTE_DSL_DISABLE_FILE_CACHING", "1")
    os.environ.setdefault("CUTE_DSL_NO_CACHE", "1")
    try:
        import cutlass.cute as cute
        return cute
    except Exception:  # noqa: BLE001 - not installed, or no usable backend
        return None


def time_dsl(cute, op, items, repeat):
    """``[(case index, best time)]`` of CuTe DSL for ``op``, all calls inside one ``@cute.jit`` trace."""
    def mk(spec):
        kind = spec[0]
        if kind == "I":
            return spec[1]
        if kind == "T":
            return tuple(None if s is None else mk(s) for s in spec[1])
        return cute.make_layout(spec[1], stride=spec[2])
    fn = getattr(cute, op)
    out = []

    def body():
        for ci, specs in items:
            t = math.inf
            try:
                for _ in range(repeat):
                    dargs = [mk(s) for s in specs]
                    t0 = time.perf_counter()
                    fn(*dargs)
                    t = min(t, time.perf_counter() - t0)
            except Exception:  # noqa: BLE001 - DSL refuses the case
                continue
            out.append((ci, t))

    traced = cute.jit(preprocess=False)(body)
    try:
        cute.compile(traced)
    except Exception:  # noqa: BLE001 - the times were taken at trace time; lowering does not matter
        pass
    return out


def geomean(xs):
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(statistics.fmean(math.log(x) for x in xs)) if xs else float("nan")


def ratio(ours, theirs):
    mine = dict(ours)
    return geomean([mine[ci] / t for ci, t in theirs if ci in mine and t > 0]), len(theirs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=150, help="cases per operation from the C++ corpus")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dsl", action="store_true", help="also time CuTe DSL (trace-time, one @cute.jit per op)")
    args = ap.parse_args()
    raw = load_corpus(args.n)
    cases, layouts = [], set()
    for op, texts, _src in raw:
        try:
            specs = builders(op, texts)
        except Exception:  # noqa: BLE001 - not a plain integer case (swizzle, symbol, E<i>)
            continue
        cases.append((op, specs))
        layouts.update(t for t in texts)
    peers = _peers()
    print(f"fresh objects: each call gets operands built anew from their parsed text (parse untimed); "
          f"{len(cases)} cases over {len(layouts)} distinct argument texts; best of {args.repeat}")
    res = time_cases(cases, peers, args.repeat)
    names = [p for p in peers if p != "cuteverify"]
    cute = _import_dsl() if args.dsl else None
    if args.dsl and cute is None:
        print("CuTe DSL (cutlass.cute) does not import here: no DSL column")
    if cute is not None:
        names.append("DSL")
        for op in OPS:
            items = [(ci, cases[ci][1]) for ci, _ in res[op]["cuteverify"]]
            res[op]["DSL"] = time_dsl(cute, op, items, args.repeat) if hasattr(cute, op) else []
    head = f"{'operation':16s} {'cases':>5s} {'cv us':>8s}"
    for p in names:
        head += f" {p + ' us':>18s} {'cv/' + p:>18s}"
    print(head)
    per_peer = {p: [] for p in names}
    for op in OPS:
        ours = res[op]["cuteverify"]
        if not ours:
            continue
        line = f"{op:16s} {len(ours):5d} {statistics.median(t for _, t in ours) * 1e6:8.1f}"
        for p in names:
            theirs = res[op].get(p, [])
            if not theirs:
                line += f" {'-':>18s} {'-':>18s}"
                continue
            r, k = ratio(ours, theirs)
            per_peer[p].append(r)
            line += f" {statistics.median(t for _, t in theirs) * 1e6:18.1f} {r:12.3f} ({k:3d})"
        print(line)
    for p in names:
        if per_peer[p]:
            goal = {"pycute": " (goal <= 0.5)", "DSL": " (goal <= 0.35)"}.get(p, "")
            print(f"overall geometric-mean ratio cuteverify/{p}: {geomean(per_peer[p]):.3f}{goal}; "
                  f"worst operation {max(per_peer[p]):.3f} (goal <= 1.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
