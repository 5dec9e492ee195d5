"""Kernel launches written as a function call rather than ``<<<...>>>`` (issue 29): CUTLASS's
``cutlass::launch_kernel_on_cluster(params, kernel, args...)`` (``cutlass/cluster_launch.hpp``, the Hopper and
Blackwell tutorials) and CUDA's ``cudaLaunchKernelEx(&config, kernel, args...)``.

Definitions: :func:`find_call_launches` finds each such call in a source (comments and literals blanked by the
caller) and returns ``(Launch, start, end)`` as :func:`.cpp_capture.find_launches` does for ``<<<``: the span
is the call expression from its name (namespace included) to its closing parenthesis, the Launch's ``kernel``
the function-pointer argument with its casts dropped (``(void const*) kernel_ptr`` -> ``kernel_ptr``), its
``args`` the kernel's arguments (the call's arguments after the first :data:`SKIP`), its ``call`` the
launch function's name. :func:`replacement` is the expression the capture puts in the call's place: a lambda,
called at once, that prints the arguments (the statements :func:`.cpp_capture.rewrite` builds) and yields the
value a successful launch returns (``cutlass::Status::kSuccess``, ``cudaSuccess``), so the statement around it
(``cutlass::Status status = ...;``) still compiles.

Admissibility: a call whose argument list does not close is a CaptureError naming its line; a call with fewer
than :data:`SKIP` arguments is not a launch (left alone). Post-condition: the spans do not overlap and each one
is a whole call expression.
"""
from __future__ import annotations

import re

from ...errors import CaptureError
from .cpp_text import match_close, split_args

__all__ = ["find_call_launches", "replacement", "kernel_of", "SKIP", "RESULT"]

#: the launch functions, the value a successful launch returns
RESULT = {"launch_kernel_on_cluster": "::cutlass::Status::kSuccess", "cudaLaunchKernelEx": "cudaSuccess"}
#: the arguments before the kernel's own: the launch parameters and the kernel
SKIP = 2
_CALL = re.compile(r"(?<![\w:])((?:::)?(?:cutlass::)?)(launch_kernel_on_cluster|cudaLaunchKernelEx)\s*\(")
_CAST = re.compile(r"^\(\s*(?:const\s+)?void\s*(?:const\s*)?\*\s*\)\s*")
_NAMED_CAST = re.compile(r"^(?:reinterpret_cast|static_cast|const_cast)\s*<[^<>]*>\s*\((.*)\)$", re.S)


def kernel_of(expr: str) -> str:
    """The kernel a launch's function-pointer argument names: casts (``(void const*) k``,
    ``reinterpret_cast<void const*>(k)``) and ``&`` dropped."""
    e = " ".join(expr.split())
    while True:
        m = _NAMED_CAST.match(e)
        if m:
            e = m.group(1).strip()
            continue
        n = _CAST.sub("", e)
        if n == e:
            break
        e = n
    return e.lstrip("&").strip()


def find_call_launches(s: str, text: str, path: str, launch_type) -> list:
    """The call-form launches of ``text`` (``s``: ``text`` blanked): ``(launch_type(line, kernel, args,
    call=NAME), start, end)`` in source order."""
    out = []
    for m in _CALL.finditer(s):
        popen = m.end() - 1
        close = match_close(s, popen, "(", ")")
        line = s.count("\n", 0, m.start()) + 1
        if close < 0:
            raise CaptureError(f"{path}:{line}: the argument list of {m.group(2)} does not close")
        spans = split_args(s, popen + 1, close - 1)
        if len(spans) < SKIP:
            continue
        texts = [" ".join(text[a:b].split()) for a, b in spans]
        out.append((launch_type(line, kernel_of(texts[1]), tuple(texts[SKIP:]), call=m.group(2)), m.start(), close))
    return out


def replacement(statements: str, call: str) -> str:
    """The expression a call-form launch becomes: ``statements`` (a ``{ ... }`` block) run by a lambda that
    returns the launch function's success value."""
    return "[&]() " + statements[:-1] + f" return {RESULT[call]}; }}()"
