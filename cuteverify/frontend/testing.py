"""Assertions for test suites: ``assert_bijective(L)``, ``assert_injective``, ``assert_surjective``,
``assert_equal(A, B)``, ``assert_disjoint``, ``assert_agrees(L, spec, operand=...)``.

Each takes layouts as cuteverify layouts, CuTe text, pycute / CuTe DSL objects (read by ``cv.as_layout``) and
raises ``AssertionError`` whose message is the verdict: the counterexample in the layout's own coordinates, or
why it could not be proved (an ``unknown`` verdict fails too unless ``allow_unknown=True``)::

    from cuteverify.frontend.testing import assert_bijective
    assert_bijective("S<3,3,3> o 0 o (8,64):(64,1)")

``trace_script(path, arch=...)`` traces a CuTe DSL compile script in a subprocess and returns its captures.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ..core.notation.interop import as_layout
from ..hardware import agrees
from ..prover import are_equal, complement_disjoint, is_bijective, is_injective, is_surjective, prove
from .trace.capture import DEFAULT_ARCH, DEFAULT_TIMEOUT, capture
from .trace.check import check_captures

__all__ = ["assert_bijective", "assert_injective", "assert_surjective", "assert_equal", "assert_disjoint",
           "assert_agrees", "assert_proves", "assert_verdict", "trace_script", "assert_trace_checks"]

__tracebackhide__ = True


def assert_verdict(v, allow_unknown: bool = False, msg: str | None = None):
    """Fail unless the verdict is proved (or unknown, with ``allow_unknown``); returns the verdict."""
    __tracebackhide__ = True
    if v.status == "proved" or (allow_unknown and v.status == "unknown"):
        return v
    text = str(v)
    raise AssertionError(f"{msg}\n{text}" if msg else text)


def assert_bijective(layout, *, assume=None, allow_unknown=False, msg=None):
    __tracebackhide__ = True
    return assert_verdict(is_bijective(layout, assume=assume), allow_unknown, msg)


def assert_injective(layout, *, assume=None, allow_unknown=False, msg=None):
    __tracebackhide__ = True
    return assert_verdict(is_injective(layout, assume=assume), allow_unknown, msg)


def assert_surjective(layout, codomain=None, *, assume=None, allow_unknown=False, msg=None):
    __tracebackhide__ = True
    return assert_verdict(is_surjective(layout, codomain, assume=assume), allow_unknown, msg)


def assert_equal(a, b, *, assume=None, allow_unknown=False, msg=None):
    __tracebackhide__ = True
    return assert_verdict(are_equal(a, b, assume=assume), allow_unknown, msg)


def assert_disjoint(a, cotarget=None, *, assume=None, allow_unknown=False, msg=None):
    __tracebackhide__ = True
    return assert_verdict(complement_disjoint(a, cotarget, assume=assume), allow_unknown, msg)


def assert_agrees(layout, spec_name, operand=None, *, allow_unknown=False, msg=None, **params):
    """The layout agrees with the hardware spec at every (thread, value) / coordinate."""
    __tracebackhide__ = True
    return assert_verdict(agrees(as_layout(layout), spec_name, operand, **params), allow_unknown, msg)


def assert_proves(claim, *, assume=None, allow_unknown=False, msg=None, **bindings):
    """``cuteverify.prove(claim, ...)`` is proved (the function, from cuteverify.prover)."""
    __tracebackhide__ = True
    b = {k: (v if isinstance(v, (str, int)) else as_layout(v, k)) for k, v in bindings.items()}
    return assert_verdict(prove(claim, assume=assume, **b), allow_unknown, msg)


def trace_script(script, *args, arch: str = DEFAULT_ARCH, python=None, out_dir=None, stub_torch: bool = False,
                 cwd=None, timeout: float = DEFAULT_TIMEOUT) -> list:
    """Trace the CuTe DSL compile script ``script`` (run with ``args`` by ``python``, default the interpreter
    running the tests) in a subprocess, as ``cuteverify trace capture`` does, and return the paths of its
    captures (one ``.mlir`` per ``cute.compile``, in compile order).

    ``out_dir``: where the captures go (default a fresh temporary folder, left for the caller to read; pass
    pytest's ``tmp_path`` to have it cleaned). ``cwd``: the script's working folder and the root of the relative
    location paths. Raises the capture's errors (``DslUnavailable``, ``ScriptFailed``, ``NoKernelCompiled``:
    ``cuteverify.errors``); a test that must not run without the DSL should skip first, e.g. with
    ``pytest.importorskip("cutlass.cute")``."""
    if out_dir is None:
        out_dir = tempfile.mkdtemp(prefix="cuteverify-trace-")
    argv = [str(python or sys.executable), str(Path(script)), *(str(a) for a in args)]
    return capture(argv, arch=arch, out_dir=out_dir, stub_torch=stub_torch, cwd=cwd, timeout=timeout)


def assert_trace_checks(script, *args, arch: str = DEFAULT_ARCH, allow_unknown: bool = False,
                        allow_unmapped: bool = False, **capture_options) -> list:
    """Trace ``script`` as :func:`trace_script` does (same options) and run ``cuteverify trace check`` on its
    captures; return the result rows. Raises AssertionError naming every claim that is not as expected (its
    source line, status and reason): a refuted or errored claim always; an unknown one unless ``allow_unknown``;
    a captured construct that no check maps unless ``allow_unmapped``."""
    rows, _, _ = check_captures(trace_script(script, *args, arch=arch, **capture_options))
    bad = [r for r in rows if not r["ok"]
           and not (allow_unmapped and r["kind"] == "unmapped")
           and not (allow_unknown and r["status"] == "unknown" and r["kind"] != "unmapped")]
    if bad:
        lines = [f"{r.get('at') or r['file']}: {r['claim']}: expected {r['expect']}, got {r['status']}"
                 + (f" ({r['reason']})" if r.get("reason") else "") for r in bad]
        raise AssertionError(f"{len(bad)} traced claim(s) of {script} not as expected:\n  " + "\n  ".join(lines))
    return rows
