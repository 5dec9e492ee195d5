"""Concrete algebra speed: cuteverify vs legacy pycute (nvidia-cutlass wheel) and CuTe DSL, same process.

Prints, per operation, the geometric-mean time ratio cuteverify / pycute over a fixed corpus (goal <= 1.0)
and the same against CuTe DSL where ``cutlass.cute`` imports in this interpreter. Asserts nothing.

CuTe DSL evaluates static layout algebra at trace time: all its calls for one operation run inside ONE
``@cute.jit`` trace (dry run, no GPU); inside it each call is timed on its own (best of --repeat, operands
built outside the timed region), so the DSL column is per call, like the others. It includes building the
MLIR op for the result, which is what a DSL user pays.

    pip install --no-deps nvidia-cutlass   # legacy pycute: a speed peer only, not an oracle
    python bench/algebra.py [--n 400] [--repeat 5]
    # CuTe DSL in another venv of the same Python version (its site-packages are added to this process):
    CUTEVERIFY_DSL_PYTHON=/tmp/dslvenv/bin/python python bench/algebra.py
"""
from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

import cuteverify as cv


def corpus(n: int, seed: int = 1234):
    """Fixed random concrete inputs that every peer accepts (admissible ones)."""
    rng = random.Random(seed)
    cases = {k: [] for k in ("coalesce", "composition", "complement", "logical_divide", "logical_product",
                             "right_inverse")}

    def rand_layout(max_modes=4, injective=True):
        k = rng.randint(1, max_modes)
        shapes = [rng.choice([2, 2, 3, 4, 4, 8]) for _ in range(k)]
        order = list(range(k))
        rng.shuffle(order)
        strides = [0] * k
        cur = 1
        for i in order:
            strides[i] = cur
            cur *= shapes[i] * (rng.choice([1, 1, 2]) if injective else 1)
        if k == 1:
            return cv.Layout(shapes[0], strides[0])
        if rng.random() < 0.4 and k >= 2:
            return cv.Layout((tuple(shapes[:2]),) + tuple(shapes[2:]), ((tuple(strides[:2]),) + tuple(strides[2:])))
        return cv.Layout(tuple(shapes), tuple(strides))

    while min(len(v) for v in cases.values()) < n:
        A = rand_layout()
        B = rand_layout(3)
        cases["coalesce"].append((A,))
        cases["right_inverse"].append((A,))
        try:
            cv.complement(A, cv.cosize(A) * 2)
            cases["complement"].append((A, cv.cosize(A) * 2))
        except cv.NotAdmissibleError:
            pass
        try:
            cv.composition(A, B)
            if cv.size(B) <= cv.size(A):
                cases["composition"].append((A, B))
        except cv.NotAdmissibleError:
            pass
        try:
            cv.logical_divide(A, B)
            cases["logical_divide"].append((A, B))
        except cv.NotAdmissibleError:
            pass
        try:
            cv.logical_product(A, B)
            cases["logical_product"].append((A, B))
        except cv.NotAdmissibleError:
            pass
    return {k: v[:n] for k, v in cases.items()}


def to_pycute(x):
    import pycute
    if isinstance(x, cv.Layout):
        return pycute.Layout(x.shape, x.stride)
    return x


def time_calls(fn, args_list, repeat):
    best = []
    for args in args_list:
        t = math.inf
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(*args)
            t = min(t, time.perf_counter() - t0)
        best.append(t)
    return best


def _import_dsl():
    import os
    os.environ.setdefault("CUTE_DSL_DRYRUN", "1")
    os.environ.setdefault("CUTE_DSL_DISABLE_FILE_CACHING", "1")
    os.environ.setdefault("CUTE_DSL_NO_CACHE", "1")
    try:
        import cutlass.cute as cute
        return cute
    except Exception:  # noqa: BLE001 - not installed, or no usable backend
        pass
    other = os.environ.get("CUTEVERIFY_DSL_PYTHON")
    if not other:
        return None
    import site
    import subprocess
    try:
        out = subprocess.run([other, "-c", "import sys, sysconfig; print(sys.version_info[:2] == "
                              f"{tuple(sys.version_info[:2])!r}); print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, timeout=60).stdout.split()
    except Exception:  # noqa: BLE001
        return None
    if len(out) != 2 or out[0] != "True":
        return None
    site.addsitedir(out[1])  # processes the DSL's .pth file, which puts cutlass on sys.path
    try:
        import cutlass.cute as cute
    except Exception:  # noqa: BLE001
        return None
    return cute


def time_dsl(cute, op, items, repeat):
    """Per-call times of CuTe DSL for ``op`` over ``items``, all inside one ``@cute.jit`` trace."""
    def mk(x):
        if isinstance(x, cv.Layout):
            return cute.make_layout(x.shape, stride=x.stride)
        return x
    fns = {"coalesce": cute.coalesce, "composition": cute.composition, "complement": cute.complement,
           "logical_divide": cute.logical_divide, "logical_product": cute.logical_product,
           "right_inverse": cute.right_inverse}
    fn = fns[op]
    out = []

    def body():
        for args in items:
            dargs = [mk(a) for a in args]
            t = math.inf
            for _ in range(repeat):
                t0 = time.perf_counter()
                fn(*dargs)
                t = min(t, time.perf_counter() - t0)
            out.append(t)

    traced = cute.jit(preprocess=False)(body)
    try:
        cute.compile(traced)
    except Exception:  # noqa: BLE001 - the times were taken at trace time; lowering does not matter
        pass
    return out if len(out) == len(items) else None


def geomean_ratio(ours, theirs):
    rs = [a / b for a, b in zip(ours, theirs) if b > 0 and a > 0]
    return math.exp(statistics.fmean(math.log(r) for r in rs)) if rs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    cases = corpus(args.n)
    try:
        import pycute
    except ImportError:
        pycute = None
        print("pycute not installed (pip install --no-deps nvidia-cutlass); printing cuteverify times only")
    cute = _import_dsl()
    if cute is None:
        print("CuTe DSL (cutlass.cute) does not import here; no DSL column")
    else:
        print("CuTe DSL: per-call times taken inside one @cute.jit trace per operation (trace-time evaluation)")
    ours_fn = {"coalesce": cv.coalesce, "composition": cv.composition, "complement": cv.complement,
               "logical_divide": cv.logical_divide, "logical_product": cv.logical_product,
               "right_inverse": cv.right_inverse}
    head = f"{'operation':18s} {'cases':>5s} {'cuteverify us':>14s} {'pycute us':>10s} {'ratio':>7s}"
    if cute is not None:
        head += f" {'DSL us':>9s} {'cv/DSL':>7s}"
    print(head)
    ratios, dsl_ratios = [], []
    for op, items in cases.items():
        ours = time_calls(ours_fn[op], items, args.repeat)
        line = f"{op:18s} {len(items):5d} {statistics.median(ours) * 1e6:14.1f}"
        if pycute is not None:
            pfn = getattr(pycute, op)
            pitems = [tuple(to_pycute(a) for a in it) for it in items]
            theirs = time_calls(pfn, pitems, args.repeat)
            r = geomean_ratio(ours, theirs)
            ratios.append(r)
            line += f" {statistics.median(theirs) * 1e6:10.1f} {r:7.3f}"
        else:
            line += f" {'-':>10s} {'-':>7s}"
        if cute is not None:
            dsl = time_dsl(cute, op, items, args.repeat)
            if dsl is None:
                line += f" {'failed':>9s}"
            else:
                r = geomean_ratio(ours, dsl)
                dsl_ratios.append(r)
                line += f" {statistics.median(dsl) * 1e6:9.1f} {r:7.3f}"
        print(line)
    if ratios:
        print(f"overall geometric-mean ratio cuteverify/pycute: {math.exp(statistics.fmean(map(math.log, ratios))):.3f}"
              " (goal <= 1.0 per operation)")
    if dsl_ratios:
        print(f"overall geometric-mean ratio cuteverify/CuTe DSL: "
              f"{math.exp(statistics.fmean(map(math.log, dsl_ratios))):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
