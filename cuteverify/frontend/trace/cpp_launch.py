"""Kernel launches written as host calls, for ``trace cpp``'s capture (issue 29): CUTLASS's cluster launch
``cutlass::launch_kernel_on_cluster(params, kernel, args...)`` (``cutlass/cluster_launch.hpp``, what the
Blackwell tutorials use) and the runtime's ``cudaLaunchKernelEx(&config, kernel, args...)``.

Definitions: :func:`call_launches` finds them on the source with comments and literals blanked and returns the
same ``(Launch, start, end)`` triples as :func:`.cpp_capture.find_launches`, where ``Launch.kernel`` is the kernel
expression with its casts dropped (``(void const*) kernel_ptr`` -> ``kernel_ptr``), ``Launch.args`` the kernel's
arguments (the launch configuration and the kernel are not kernel arguments), and ``Launch.value`` the
expression the call returns on success (``cutlass::Status::kSuccess``, ``cudaSuccess``): the capture replaces
the call by an expression of that value, so ``auto status = launch_kernel_on_cluster(...)`` still compiles.

Admissibility: a call whose argument list does not close, or with fewer than two arguments, is a CaptureError
naming its line; a name followed by ``(`` after a type or ``template`` (a declaration) is not a call.
Post-condition: every call of those names in the source text is returned, in order, with its line.
"""
from __future__ import annotations

import re

from ...errors import CaptureError
from .cpp_text import blank, match_close, split_args

__all__ = ["call_launches", "CALL_FORMS", "kernel_expr", "arch_guards"]

#: name -> (index of the kernel among the call's arguments, the value the call returns on success)
CALL_FORMS = {"launch_kernel_on_cluster": (1, "::cutlass::Status::kSuccess"),
              "cudaLaunchKernelEx": (1, "cudaSuccess")}
_CALL = re.compile(r"(?<![\w.>])((?:::)?(?:cutlass::)?(" + "|".join(CALL_FORMS) + r"))\s*\(")
_CAST = re.compile(r"^\s*(?:\(\s*(?:const\s+)?void\s*(?:const\s*)?\*\s*\)|reinterpret_cast\s*<[^<>]*>)\s*")
_DECL = re.compile(r"\b(?:Status|cudaError_t|auto|void|CUTLASS_HOST|template|inline|static)\s*$")


def kernel_expr(text: str) -> str:
    """The kernel of a launch call's kernel argument: casts to ``void const*`` and parentheses dropped."""
    t, last = " ".join(text.split()), None
    while t != last:  # casts and enclosing parentheses, in any nesting
        last = t
        m = _CAST.match(t)
        if m is not None:
            t = t[m.end():].strip()
        if t.startswith("(") and match_close(t, 0, "(", ")") == len(t):
            t = t[1:-1].strip()
        if t.startswith("reinterpret_cast") and "(" in t and t.endswith(")"):
            t = t[t.index("(") + 1:-1].strip()
    return t.lstrip("&").strip()


def call_launches(text: str, path: str, launch_cls) -> list:
    """The call-form launches of ``text``: ``(launch_cls(line, kernel, args, value), start, end)``."""
    s = blank(text)
    out = []
    for m in _CALL.finditer(s):
        if _DECL.search(s[max(0, m.start() - 40):m.start()]):
            continue  # a declaration of the function (its header, a forward declaration), not a call
        line = s.count("\n", 0, m.start()) + 1
        open_ = m.end() - 1
        e = match_close(s, open_, "(", ")")
        if e < 0:
            raise CaptureError(f"{path}:{line}: the argument list of {m.group(2)} does not close")
        spans = split_args(s, open_ + 1, e - 1)
        k, value = CALL_FORMS[m.group(2)]
        if len(spans) <= k:
            raise CaptureError(f"{path}:{line}: {m.group(2)} without a kernel argument: trace cpp cannot read it")
        texts = [" ".join(text[a:b].split()) for a, b in spans]
        out.append((launch_cls(line, kernel_expr(texts[k]), tuple(texts[k + 1:]), value), m.start(), e))
    return out


_GUARD = re.compile(r"^\s*#\s*if\s+(?:defined\s*\(\s*(CUTLASS_ARCH_\w+_SUPPORTED)\s*\)|(CUTLASS_ARCH_\w+_SUPPORTED)\b)", re.M)


def arch_guards(text: str) -> list:
    """The ``CUTLASS_ARCH_..._SUPPORTED`` macros the source's ``#if`` lines test, in order, once each: nvcc (12.8+
    for SM100) defines them from its own version, g++ does not, so code under them is absent from a host-only
    build unless the user defines them (``-D CUTLASS_ARCH_MMA_SM100_SUPPORTED=1``)."""
    out = []
    for m in _GUARD.finditer(text):
        name = m.group(1) or m.group(2)
        if name not in out:
            out.append(name)
    return out
