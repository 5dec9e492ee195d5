"""Differential-test oracle: evaluate CuTe layout algebra with NVIDIA CuTe DSL.

CuTe DSL (PyPI ``nvidia-cutlass-dsl==4.8.1``, ``import cutlass.cute as cute``)
evaluates static layout algebra at *trace time* inside a ``@cute.jit``
function.  No GPU is needed: the worker sets ``CUTE_DSL_DRYRUN=1`` (IR only)
and disables the DSL's on-disk caches, then traces ONE jit function per chunk
of cases.  The traced body calls a plain Python helper (so the DSL's AST
preprocessor never rewrites our loop / try-except), which evaluates every case
with its own ``try/except`` and streams ``str(result)`` back to the parent
(``str(x)`` is exactly what ``print(x)`` shows inside a jit function).

All DSL work happens in a subprocess (``python tests/oracles/dsl_oracle.py --worker``);
if it dies (segfault, abort) the case it was on becomes a ``DslError`` and a
fresh worker continues with the remaining cases.  Nothing is cached on disk.

Interpreter: ``$CUTEVERIFY_DSL_PYTHON`` if set, else ``sys.executable``.

Public API
----------
``available() -> bool``      True when ``cutlass.cute`` imports in that interpreter.
``run_cases(cases) -> list`` one result per case: the string CuTe DSL prints
                             (e.g. ``'((2,2),3):((24,2),8)'``, ``'12'``) or a
                             ``DslError`` instance when DSL raised for that case.
``run_case(op, *args)``      convenience wrapper for a single case.
``DslError``                 ``.message`` holds ``"ExcType: text"``.

Value encodings used in ``args``
--------------------------------
LAYOUT   ``(shape, stride)``: nested tuples of ints, or ints, e.g. ``((4,8),(1,4))``
         or ``(4, 2)``; ``stride`` may be ``None`` (compact column-major).
         Also accepted: ``("layout", shape, stride)``,
         ``("identity", shape)``  -> ``cute.make_identity_layout(shape)``,
         ``("composed", INNER, offset, LAYOUT)`` -> ``cute.make_composed_layout``
         where INNER is a LAYOUT or a SWIZZLE.
SWIZZLE  ``("swizzle", B, M, S)`` -> ``cute.make_swizzle(B, M, S)`` (prints ``S<B,M,S>``).
TILER    ``("tiler", [item, ...])`` -> Python tuple of items; an item is a
         LAYOUT, a plain int (a shape, i.e. ``n:1``) or None (``_`` / keep mode
         -- passed as Python ``None``; DSL may reject it).
SHAPE    ``("shape", shape)`` -> passed to DSL as a plain int tuple (a "shape
         tiler", meaning ``<s0:1, s1:1, ...>``).
RHS      a LAYOUT, TILER or SHAPE (used by composition / divides / products).

Ops and their ``args`` tuple
----------------------------
"coalesce"          (LAYOUT,)
"coalesce_profile"  (LAYOUT, profile)      profile: int tuple, e.g. (1,1)
"filter"            (LAYOUT,)
"composition"       (LAYOUT, RHS)          A o B
"complement"        (LAYOUT,) or (LAYOUT, cotarget)   cotarget: int / int tuple;
                    default cotarget = cosize(LAYOUT) (C++ default)
"logical_divide" "zipped_divide" "tiled_divide" "flat_divide"   (LAYOUT, RHS)
"logical_product" "zipped_product" "tiled_product" "flat_product" (LAYOUT, RHS)
                    NB: DSL 4.8.1 accepts a TILER only for logical_product; zipped/
                    tiled/flat_product with a TILER give DslError("ValueError: ...")
"blocked_product" "raked_product"   (LAYOUT, LAYOUT)
"right_inverse" "left_inverse"      (LAYOUT,)
"nullspace"                         (LAYOUT,)
"max_common_layout" "max_common_vector"  (LAYOUT, LAYOUT)
"upcast"   (LAYOUT, N)   C++ upcast<N>   == cute.recast_layout(N, 1, L)
"downcast" (LAYOUT, N)   C++ downcast<N> == cute.recast_layout(1, N, L)
"size" "cosize"     (LAYOUT,)             result e.g. '32'
"make_layout_shape" (shape,)              compact column-major make_layout(shape)
"tile_to_shape"     (LAYOUT, trg_shape) or (LAYOUT, trg_shape, order);
                    default order = (0, 1, ..., rank(trg_shape)-1)  (col-major)
"swizzle_eval"      (B, M, S, x)          Swizzle<B,M,S>(x) as a string int,
                    computed via crd2idx(x, S<B,M,S> o 0 o N:1)
"eval"              (LAYOUT, coord)       cute.crd2idx(coord, L)

Failures: a Python exception from DSL -> ``DslError("MLIRError: ...")`` etc.; a
case that kills the process (DSL 4.8.1 raises SIGFPE on many inadmissible
products/divides) -> ``DslError("WorkerCrash: DSL process died (signal 8)")``.
Speed: ~0.3-0.6 ms per case batched (CHUNK cases per trace, env
``CUTEVERIFY_DSL_CHUNK``), ~25 ms extra per crashing case, ~1.3 s start-up.
See tests/oracles/DSL_ORACLE_NOTES.md.

Typical use::

    import dsl_oracle        # tests/conftest.py puts tests/oracles/ on sys.path
    if dsl_oracle.available():
        dsl_oracle.run_cases([("coalesce", (((2,(1,6)),(1,(6,2))),))])   # ['12:1']
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time

__all__ = ["DslError", "available", "run_cases", "run_case", "OPS"]

OPS = (
    "coalesce", "coalesce_profile", "filter", "composition", "complement",
    "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product",
    "blocked_product", "raked_product", "right_inverse", "left_inverse",
    "max_common_layout", "max_common_vector", "upcast", "downcast", "size",
    "cosize", "make_layout_shape", "tile_to_shape", "swizzle_eval", "eval", "nullspace",
)

# Cases traced per jit function.  One trace of 500 cases costs ~0.15 s.
CHUNK = int(os.environ.get("CUTEVERIFY_DSL_CHUNK", "500"))


class DslError:
    """CuTe DSL raised (or the worker died) while evaluating one case."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message

    def __repr__(self) -> str:
        return f"DslError({self.message!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, DslError) and other.message == self.message

    def __hash__(self) -> int:
        return hash(("DslError", self.message))


# --------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------

def _python() -> str:
    return os.environ.get("CUTEVERIFY_DSL_PYTHON") or sys.executable


def _worker_env() -> dict:
    env = dict(os.environ)
    env.update(
        CUTE_DSL_DRYRUN="1",               # generate IR only, never compile for a GPU
        CUTE_DSL_DISABLE_FILE_CACHING="1", # default writes /tmp/<user>/cutlass_python_cache
        CUTE_DSL_NO_CACHE="1",
        PYTHONUNBUFFERED="1",
    )
    return env


_AVAILABLE = None


def available() -> bool:
    """True when ``cutlass.cute`` imports (checked once, in a subprocess)."""
    global _AVAILABLE
    if _AVAILABLE is None:
        try:
            r = subprocess.run(
                [_python(), "-c", "import cutlass.cute"],
                env=_worker_env(), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300,
            )
            _AVAILABLE = r.returncode == 0
        except Exception:
            _AVAILABLE = False
    return _AVAILABLE


def _run_worker(cases, timeout):
    """Run one worker over ``cases``; returns (results_so_far, died_msg|None)."""
    payload = repr([(op, args) for op, args in cases])
    r_fd, w_fd = os.pipe()
    try:
        proc = subprocess.Popen(
            [_python(), os.path.abspath(__file__), "--worker", str(w_fd)],
            env=_worker_env(), stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            pass_fds=(w_fd,),
        )
    finally:
        os.close(w_fd)
    results = {}
    import threading

    err_chunks = []

    def _feed():
        try:
            proc.stdin.write(payload.encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass

    def _drain_err():
        data = proc.stderr.read()
        err_chunks.append(data[-4000:])

    t1 = threading.Thread(target=_feed, daemon=True)
    t2 = threading.Thread(target=_drain_err, daemon=True)
    t1.start()
    t2.start()
    deadline = time.monotonic() + timeout
    with os.fdopen(r_fd, "rb") as rf:
        for line in rf:
            rec = json.loads(line)
            i, kind, text = rec
            results[i] = text if kind == "ok" else DslError(text)
            if time.monotonic() > deadline:
                proc.kill()
                break
    try:
        rc = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    t2.join(5)
    died = None
    if len(results) < len(cases):
        tail = (err_chunks[0] if err_chunks else b"").decode(errors="replace").strip()
        died = f"worker died (rc={rc}): {tail[-500:]}"
    return results, died


def run_cases(cases, timeout: float = 1800.0) -> list:
    """Evaluate ``[(op, args), ...]`` with CuTe DSL; see module docstring."""
    cases = [(op, tuple(args) if isinstance(args, list) else args) for op, args in cases]
    out = [None] * len(cases)
    todo = list(range(len(cases)))
    while todo:
        sub = [cases[i] for i in todo]
        res, died = _run_worker(sub, timeout)
        done = 0
        for j in range(len(sub)):
            if j in res:
                out[todo[j]] = res[j]
                done = j + 1
            else:
                break
        if died is None and done == len(sub):
            break
        # the worker died while on case ``done``: blame it, restart after it
        if done < len(sub):
            out[todo[done]] = DslError(died or "worker produced no result")
            todo = todo[done + 1:]
        else:
            break
    return out


def run_case(op, *args):
    return run_cases([(op, args)])[0]


# --------------------------------------------------------------------------
# Worker side (runs in the DSL interpreter)
# --------------------------------------------------------------------------

def _worker_main(fd: int) -> None:
    os.environ.setdefault("CUTE_DSL_DRYRUN", "1")
    os.environ.setdefault("CUTE_DSL_DISABLE_FILE_CACHING", "1")
    os.environ.setdefault("CUTE_DSL_NO_CACHE", "1")
    cases = ast.literal_eval(sys.stdin.read())
    res_out = os.fdopen(fd, "w", buffering=1)
    # Anything DSL prints goes to stderr, never into our result channel.
    sys.stdout = sys.stderr

    import cutlass.cute as cute

    def is_layout_pair(v):
        return isinstance(v, tuple) and len(v) == 2 and not isinstance(v[0], str)

    def to_val(v):
        """Python encoding -> DSL object (layout / swizzle / tiler / shape)."""
        if isinstance(v, tuple) and v and isinstance(v[0], str):
            tag = v[0]
            if tag == "layout":
                return cute.make_layout(v[1], stride=v[2]) if v[2] is not None else cute.make_layout(v[1])
            if tag == "identity":
                return cute.make_identity_layout(v[1])
            if tag == "swizzle":
                return cute.make_swizzle(v[1], v[2], v[3])
            if tag == "composed":
                return cute.make_composed_layout(to_val(v[1]), v[2], to_val(v[3]))
            if tag == "tiler":
                return tuple(None if it is None else it if isinstance(it, int) else to_val(it)
                             for it in v[1])
            if tag == "shape":
                return v[1]
            raise ValueError(f"unknown tag {tag!r}")
        if is_layout_pair(v):
            s, d = v
            return cute.make_layout(s) if d is None else cute.make_layout(s, stride=d)
        raise ValueError(f"not a layout/tiler encoding: {v!r}")

    def rank(s):
        return len(s) if isinstance(s, tuple) else 1

    def evaluate(op, a):
        if op == "coalesce":
            return cute.coalesce(to_val(a[0]))
        if op == "coalesce_profile":
            return cute.coalesce(to_val(a[0]), target_profile=a[1])
        if op == "filter":
            return cute.filter(to_val(a[0]))
        if op == "composition":
            return cute.composition(to_val(a[0]), to_val(a[1]))
        if op == "complement":
            L = to_val(a[0])
            cot = a[1] if len(a) > 1 else cute.cosize(L)
            return cute.complement(L, cot)
        if op in ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
                  "logical_product", "zipped_product", "tiled_product", "flat_product",
                  "blocked_product", "raked_product", "max_common_layout",
                  "max_common_vector"):
            return getattr(cute, op)(to_val(a[0]), to_val(a[1]))
        if op in ("right_inverse", "left_inverse", "size", "cosize", "nullspace"):
            return getattr(cute, op)(to_val(a[0]))
        if op == "upcast":
            return cute.recast_layout(int(a[1]), 1, to_val(a[0]))
        if op == "downcast":
            return cute.recast_layout(1, int(a[1]), to_val(a[0]))
        if op == "make_layout_shape":
            return cute.make_layout(a[0])
        if op == "tile_to_shape":
            order = a[2] if len(a) > 2 else tuple(range(rank(a[1])))
            return cute.tile_to_shape(to_val(a[0]), a[1], order)
        if op == "swizzle_eval":
            b, m, s, x = a
            n = max(int(x) + 1, 1 << (b + m + s)) if b else int(x) + 1
            comp = cute.make_composed_layout(cute.make_swizzle(b, m, s), 0,
                                             cute.make_layout(n, stride=1))
            return cute.crd2idx(int(x), comp)
        if op == "eval":
            return cute.crd2idx(a[1], to_val(a[0]))
        raise ValueError(f"unknown op {op!r}")

    def emit(i, kind, text):
        res_out.write(json.dumps([i, kind, text]) + "\n")

    def body(lo, hi):
        for i in range(lo, hi):
            op, a = cases[i]
            try:
                r = evaluate(op, a)
                emit(i, "ok", str(r))
            except BaseException as e:  # noqa: BLE001 - any DSL failure is a result
                if isinstance(e, (KeyboardInterrupt, SystemExit)):
                    raise
                emit(i, "err", f"{type(e).__name__}: {str(e).strip()[:1000]}")

    def trace_from(start, out):
        """Trace cases[start:] in chunks of CHUNK, one jit function each."""
        nonlocal res_out
        res_out = out
        for lo in range(start, len(cases), CHUNK):
            hi = min(lo + CHUNK, len(cases))

            def traced():
                body(lo, hi)

            fn = cute.jit(preprocess=False)(traced)
            try:
                cute.compile(fn)
            except Exception:
                # Results were emitted at trace time; a failure after tracing
                # (verification / lowering) does not change them.
                pass
        out.flush()

    if not hasattr(os, "fork"):
        trace_from(0, res_out)
        return

    # Fork server: the DSL is imported once (~1 s); each attempt runs in a
    # forked child, so a case that kills the process (DSL 4.8.1 dies with
    # SIGFPE on some products/divides) costs a fork, not a re-import.
    final_out = res_out
    if os.environ.get("CUTEVERIFY_DSL_WARM", "1") == "1":
        # One throw-away trace in the parent so that children start warm.
        try:
            cute.compile(cute.jit(preprocess=False)(lambda: cute.make_layout(2)))
        except Exception:
            pass
    start = 0
    while start < len(cases):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            os.close(r)
            code = 0
            try:
                trace_from(start, os.fdopen(w, "w", buffering=1))
            except BaseException:  # noqa: BLE001
                import traceback
                traceback.print_exc()
                code = 3
            finally:
                os._exit(code)
        os.close(w)
        last = start - 1
        with os.fdopen(r, "r") as rf:
            for line in rf:
                final_out.write(line)
                last = json.loads(line)[0]
        _, status = os.waitpid(pid, 0)
        if last >= len(cases) - 1:
            break
        crashed = last + 1
        if os.WIFSIGNALED(status):
            why = f"signal {os.WTERMSIG(status)}"
        else:
            why = f"exit status {os.WEXITSTATUS(status)}"
        final_out.write(json.dumps([crashed, "err", f"WorkerCrash: DSL process died ({why})"]) + "\n")
        start = crashed + 1
    res_out = final_out
    res_out.flush()


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--worker":
        _worker_main(int(sys.argv[2]))
    else:
        print("usage: dsl_oracle.py --worker FD", file=sys.stderr)
        sys.exit(2)
