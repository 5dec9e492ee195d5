"""Kernel launches in the user headers a C++ source includes, for ``trace cpp``'s capture (issue 29;
FlashAttention-2, whose ``flash_fwd_hdim64_fp16_sm80.cu`` only instantiates ``run_mha_fwd_`` and whose launch
``kernel<<<grid, Kernel_traits::kNThreads, smem_size, stream>>>(params)`` is in ``flash_fwd_launch_template.h``).

Definitions:
  * a *user header* is a file named by an ``#include "NAME"`` (quote form) of the source or of another user
    header, found (as the preprocessor looks) in the includer's directory, else in one of the user's ``-I``
    directories, and lying under the source's directory (the toolkit's headers, CUTLASS's and CUDA's, are not
    user headers; a header of another user directory is read for the kernel body relations, never rewritten);
  * :func:`user_headers` lists them, transitively, with their texts;
  * :func:`mirror` writes, when one of them holds a launch, every user header into the capture's work
    directory at its path relative to the source's directory (the translation unit sits at the work
    directory's root, so every quote include resolves to a mirrored copy first), each under ``#line 1
    "ORIGINAL"`` (diagnostics and launch records name the user's file and line) with its launches replaced by
    the capture's printing calls (the ``replace`` callback, :mod:`.cpp_capture`'s rewrite of one text);
  * *device pass*: a mirrored header that defines no device code (no ``__global__``, ``__device__``, ``asm``)
    holds types and constants only, and its ``__CUDA_ARCH__`` tests are read as the device pass of nvcc reads
    them: ``__CUDA_ARCH__`` becomes ``CUTEVERIFY_DEVICE_ARCH`` (800 unless ``-D CUTEVERIFY_DEVICE_ARCH=...``).
    FA2's ``kernel_traits.h`` picks its MMA atom (``SM80_16x8x16_F32F16F16F32_TN``), its ldmatrix smem atoms and
    its ``cp.async`` gmem copy under ``__CUDA_ARCH__ >= 800``; the host pass would print the SM75 / DefaultCopy
    fallbacks, which no kernel runs with. A header with device code keeps the host pass (its kernel bodies are
    never compiled for the host).

Admissibility: include lines written ``#include "NAME"`` on a line of their own; a header included twice, once
through the mirror and once by its original path, would be defined twice (not met in FA2). Post-condition:
:func:`mirror` writes nothing and returns no launches when no user header holds a launch, so a source whose
launches are its own is captured exactly as before.
"""
from __future__ import annotations

import os
import re

from .cpp_text import blank

__all__ = ["user_headers", "mirror", "device_pass", "DEVICE_ARCH", "launch_headers"]

#: the macro a mirrored type-only header reads ``__CUDA_ARCH__`` as, and its default (SM80)
DEVICE_ARCH = "CUTEVERIFY_DEVICE_ARCH"
_DEFAULT_ARCH = 800
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
_DEVICE_CODE = re.compile(r"\b(?:__global__|__device__|__forceinline__|asm)\b")


def _under(path: str, root: str) -> bool:
    return os.path.commonpath([os.path.abspath(path), os.path.abspath(root)]) == os.path.abspath(root)


def user_headers(source: str, text: str, includes=()) -> dict:
    """The user headers of ``source`` (text ``text``), transitively: path (relative when ``source`` is) -> text,
    in the order first included; ``includes`` are the user's ``-I`` directories. Admissibility: ``#include
    "NAME"`` on its own line; conditional inclusion is not evaluated (every quote include counts).
    Post-condition: each file exists."""
    out: dict = {}
    todo = [(os.path.normpath(source), text)]
    while todo:
        path, t = todo.pop(0)
        for m in _INCLUDE.finditer(t):
            name = m.group(1)
            for d in [os.path.dirname(path), *includes]:
                p = os.path.normpath(os.path.join(d, name))
                if os.path.isfile(p):
                    if p not in out and p != os.path.normpath(source):
                        with open(p, errors="replace") as f:
                            out[p] = f.read()
                        todo.append((p, out[p]))
                    break
    return out


def launch_headers(source: str, headers: dict, find) -> dict:
    """The user headers under the source's directory that hold a launch: path -> ``find(text, path)``'s
    launches (``find`` is :func:`.cpp_capture.find_launches`). Post-condition: only headers where ``find``
    returns launches; a malformed launch raises its CaptureError."""
    root = os.path.dirname(os.path.abspath(source))
    out = {}
    for p, t in headers.items():
        if _under(p, root) and ("<<<" in t or "cudaLaunchKernelEx" in t or "launch_kernel_on_cluster" in t):
            found = find(t, p)
            if found:
                out[p] = found
    return out


def device_pass(text: str) -> str | None:
    """``text`` with ``__CUDA_ARCH__`` read as the device pass (``CUTEVERIFY_DEVICE_ARCH``), or None when the
    header defines device code (it keeps the host pass) or tests no ``__CUDA_ARCH__``. Admissibility: any C++
    text. Post-condition: only the token ``__CUDA_ARCH__`` is replaced; offsets of other lines are kept."""
    s = blank(text)
    if "__CUDA_ARCH__" not in s or _DEVICE_CODE.search(s):
        return None
    return re.sub(r"\b__CUDA_ARCH__\b", DEVICE_ARCH, text)


def mirror(source: str, headers: dict, work: str, replace, find) -> tuple:
    """Write the mirrored user headers into ``work`` when one holds a launch (module docstring):
    ``(launches by header path, the texts written, extra include flags)``. ``replace(text,
    path)`` is the capture's launch rewrite of one text; ``find(text, path)`` its launch finder. The include
    flags name each mirrored header's original directory (a header it names that is not mirrored is found
    there). Post-condition: nothing is written when no user header holds a launch."""
    launches = launch_headers(source, headers, find)
    if not launches:
        return {}, [], []
    root = os.path.dirname(os.path.abspath(source))
    written, dirs = [], []
    for p, t in headers.items():
        if not _under(p, root):
            continue
        body = replace(t, p) if p in launches else t
        d = device_pass(body)
        if d is not None:
            body = d
        head = (f"#ifndef {DEVICE_ARCH}\n#define {DEVICE_ARCH} {_DEFAULT_ARCH}\n#endif\n" if d is not None else "")
        dest = os.path.join(work, os.path.relpath(os.path.abspath(p), root))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        written.append(head + f'#line 1 "{p}"\n' + body)
        with open(dest, "w") as f:
            f.write(written[-1])
        if os.path.dirname(os.path.abspath(p)) not in dirs:
            dirs.append(os.path.dirname(os.path.abspath(p)))
    return launches, written, [f"-I{d}" for d in dirs]
