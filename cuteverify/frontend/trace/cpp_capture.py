"""``trace cpp``'s capture: a CUTLASS C++ source built host-only with g++, each kernel launch printing its
arguments (issue 29).

Definitions:
  * :func:`rewrite` turns the source text into a host translation unit: a prelude that maps the CUDA-only
    names away (``threadIdx``/``blockIdx``/``blockDim``/``gridDim``, ``__syncthreads``; CUDA's own headers map
    ``__global__``/``__device__``/``__shared__``/``__launch_bounds__`` to attributes g++ ignores), then the
    source under ``#line 1 "FILE"`` (diagnostics name the user's file and line), every
    ``kernel<<<grid, block[, smem[, stream]]>>>(args...);`` replaced by a host call that prints each argument,
    the source's ``main`` renamed, and a driver ``main`` that calls entry ``i`` (``argv[1]``) with
    value-initialised arguments (or, for an entry written as a call, the arguments it writes).
  * :func:`capture` compiles that unit (:func:`.cpp_build.compile_cpp`, cached by content), links with
    unresolved symbols ignored (an ``extern __shared__`` array the kernel body names has no host definition),
    and runs each entry in its own process (an entry may assert at run time: its exit code and last line of
    stderr are reported, the other entries still run); the printed records are read by :func:`records`.

A record is ``@@cv-arg FILE:LINE|INDEX|KERNEL|SOURCE TEXT`` then ``@@cv-type C++ TYPE`` then the argument printed
with ``cute::print`` (a pointer prints ``pointer``, an arithmetic value its value; a TiledMMA / TiledCopy adds a
``TiledLayouts`` block: ``get_layoutA/B/C_TV()`` / ``get_layoutS/D_TV()``), then ``@@cv-end``. After a launch's
arguments, each copy its kernel body builds as ``make_tiled_copy_A|B|C(atom, mma)`` of two arguments
(:mod:`.cpp_flow`) is built the same way and printed as record ``BUILT + k``, its source text the variable.

Admissibility: the launch syntax is found on the source with comments and string literals blanked; a launch
whose argument list does not close, or a source without a launch, is a CaptureError. The entry's arguments are
value-initialised (dynamic sizes are 0): runtime values print as plain integers, placeholders that
:mod:`.cpp_symbols` turns into symbols. CUDA-only names a kernel body uses are declared by the prelude or named in
the build error (:mod:`.cpp_cuda_only`).
Post-condition: every launch the entry reaches prints one record per argument, in order.
"""
from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...errors import CaptureError
from . import cpp_build
from .cpp_flow import kernel_flow, resolve_kernel
from .cpp_flow_sm90 import TMA, sm90_flow, template_prints, tma_prints
from .cpp_launch import arch_guards, call_launches
from . import cpp_cuda_only, cpp_headers, cpp_host_tma, cpp_replay, cpp_storage, cpp_traits
from .cpp_text import blank, match_close, split_args

__all__ = ["Launch", "Record", "rewrite", "capture", "records", "PRELUDE", "DRIVER", "first_error"]

PRELUDE = r"""// cuteverify trace cpp: host-only prelude
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <iostream>
#include <cuda_runtime_api.h>
#ifndef __CUDACC__
// cuda_runtime.h's typed overloads exist only under nvcc: a kernel's function pointer passed to the runtime
template <class T> cudaError_t cudaFuncSetAttribute(T* f, cudaFuncAttribute a, int v)
{ return ::cudaFuncSetAttribute(reinterpret_cast<const void*>(f), a, v); }
template <class T> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* r, T* f)
{ return ::cudaFuncGetAttributes(r, reinterpret_cast<const void*>(f)); }
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#ifndef __grid_constant__
#define __grid_constant__
#endif
#ifndef __cluster_dims__
#define __cluster_dims__(...)
#endif
struct cuteverify_uint3 { unsigned x = 0, y = 0, z = 0; };
inline const cuteverify_uint3 threadIdx{}, blockIdx{}, blockDim{1, 1, 1}, gridDim{1, 1, 1};
inline void __syncthreads() {}
inline void __syncwarp(unsigned = 0xffffffffu) {}
inline int __syncthreads_count(int p) { return p; }
// device intrinsics a CUTLASS header names outside a template (cutlass/numeric_conversion.h): declared only
int __dp4a(int, int, int);
unsigned __dp4a(unsigned, unsigned, unsigned);
""" + cpp_cuda_only.STUBS + r"""#endif
namespace cuteverify_capture {  // defined by the driver at the end of the unit, after CuTe's headers
template <class... A> void launch(const char* at, const char* kernel, const char* const* texts, A const&... a);
template <class T> void one(const char* at, int i, const char* kernel, const char* text, T const& x);
}
"""

DRIVER = r"""
// cuteverify trace cpp: host-only driver
namespace cuteverify_capture {
template <class T> std::string type_name() { std::string s = __PRETTY_FUNCTION__;
  auto a = s.find("T = "); if (a == std::string::npos) return s; a += 4;
  auto b = s.find_first_of(";]", a); return s.substr(a, b - a); }
template <class T, class = void> struct printable : std::false_type {};
template <class T> struct printable<T, std::void_t<decltype(cute::print(std::declval<T const&>()))>>
  : std::true_type {};
template <class T, class = void> struct mma_tv : std::false_type {};
template <class T> struct mma_tv<T, std::void_t<decltype(std::declval<T const&>().get_layoutA_TV())>>
  : std::true_type {};
template <class T, class = void> struct copy_tv : std::false_type {};
template <class T> struct copy_tv<T, std::void_t<decltype(std::declval<T const&>().get_layoutS_TV())>>
  : std::true_type {};
template <class T> void show(T const& x) {
  if constexpr (std::is_pointer_v<T>) { std::printf("pointer"); }
  else if constexpr (std::is_arithmetic_v<T>) { std::cout << x << std::flush; }
  else if constexpr (printable<T>::value) { cute::print(x); }
  else { std::printf("<not printable>"); }
  // the tiled (thread, value) -> (M, K)... layouts, which print(TiledMMA / TiledCopy) leaves out
  if constexpr (mma_tv<T>::value) {
    std::printf("\nTiledLayouts\n  LayoutA_TV: "); cute::print(x.get_layoutA_TV());
    std::printf("\n  LayoutB_TV: "); cute::print(x.get_layoutB_TV());
    std::printf("\n  LayoutC_TV: "); cute::print(x.get_layoutC_TV()); }
  if constexpr (copy_tv<T>::value) {
    std::printf("\nTiledLayouts\n  LayoutS_TV: "); cute::print(x.get_layoutS_TV());
    std::printf("\n  LayoutD_TV: "); cute::print(x.get_layoutD_TV()); } }
template <class T> void one(const char* at, int i, const char* kernel, const char* text, T const& x) {
  std::printf("\n@@cv-arg %s|%d|%s|%s\n@@cv-type %s\n", at, i, kernel, text, type_name<T>().c_str());
  std::fflush(stdout); show(x); std::fflush(stdout); std::printf("\n@@cv-end\n"); std::fflush(stdout); }
template <class... A> void launch(const char* at, const char* kernel, const char* const* texts, A const&... a) {
  int i = 0; ((one(at, i, kernel, texts[i], a), ++i), ...); }
// value-initialised arguments held as lvalues: an entry taking `Params&` binds to them
template <class R, class... A> void call(R (*f)(A...)) { std::tuple<std::decay_t<A>...> t{}; std::apply(f, t); }
}
extern "C" __attribute__((weak)) cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int)
{ return cudaSuccess; }
extern "C" __attribute__((weak)) cudaError_t cudaGetLastError() { return cudaSuccess; }
extern "C" __attribute__((weak)) cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
extern "C" __attribute__((weak)) cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
extern "C" __attribute__((weak)) const char* cudaGetErrorName(cudaError_t) { return "cudaSuccess"; }
extern "C" __attribute__((weak)) const char* cudaGetErrorString(cudaError_t) { return "no error"; }
// no GPU on the host: a device query answers as the device pass's architecture (cpp_headers, SM80 by default)
#ifndef CUTEVERIFY_DEVICE_ARCH
#define CUTEVERIFY_DEVICE_ARCH 800
#endif
extern "C" __attribute__((weak)) cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
extern "C" __attribute__((weak)) cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int) {
  *v = a == cudaDevAttrComputeCapabilityMajor ? CUTEVERIFY_DEVICE_ARCH / 100
     : a == cudaDevAttrComputeCapabilityMinor ? CUTEVERIFY_DEVICE_ARCH / 10 % 10 : 0; return cudaSuccess; }
int main(int argc, char** argv) {
  int which = argc > 1 ? std::atoi(argv[1]) : -1;
  switch (which) {
@CASES@
  default: std::printf("no entry %d\n", which); return 2; }
  std::printf("\n@@cv-done\n"); return 0; }
"""

#: the link flags: an extern __shared__ array and the device-only functions a kernel body names have no host
#: definition; the kernel never runs, so they stay unresolved. The source's own main (and the CUDA runtime calls
#: only it makes) is collected away, so no call to an unresolved function is left in the program.
#: the index of the first record of a copy the kernel body builds from launch arguments (cpp_flow's ``built``):
#: printed after the launch's own arguments, its source text the variable the body assigns
BUILT = 1000
LINK_FLAGS = ["-no-pie", "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections", "-Wl,--unresolved-symbols=ignore-all"]
DEFINES = ["-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP", "-DCUTE_CPP_TRACE=1"]


@dataclass(frozen=True)
class Launch:
    """One ``<<<...>>>`` launch: where (1-based line of the ``<<<``), the kernel expression, the arguments'
    source texts; ``call``: the launch function of a call-form launch (:mod:`.cpp_launch`), else empty."""

    line: int
    kernel: str
    args: tuple
    value: str = ""  # a call-form launch (cpp_launch): the value the replacing expression returns


@dataclass(frozen=True)
class Record:
    """One printed launch argument: ``at`` (``FILE:LINE``), its index, kernel, source text, C++ type, text."""

    at: str
    index: int
    kernel: str
    source: str
    type: str
    text: str
    entry: str = ""


_KERNEL_TAIL = re.compile(r"([A-Za-z_][\w:]*(?:<[^;<>]*(?:<[^;<>]*>[^;<>]*)*>)?)\s*$")


def find_launches(text: str, path: str) -> list:
    """The launches of ``text``: ``(Launch, start, end)`` with the span ``kernel<<<...>>>(...);`` replaces."""
    s = blank(text)
    out, pos = [], 0
    while True:
        i = s.find("<<<", pos)
        if i < 0:
            return sorted(out + call_launches(text, path, Launch), key=lambda x: x[1])
        line = s.count("\n", 0, i) + 1
        m = _KERNEL_TAIL.search(s[max(0, i - 400):i])
        j = s.find(">>>", i)
        k = j + 3 if j >= 0 else -1
        while k >= 0 and k < len(s) and s[k].isspace():
            k += 1
        if m is None or j < 0 or k >= len(s) or s[k] != "(":
            raise CaptureError(f"{path}:{line}: a `<<<` launch that trace cpp cannot read (expected "
                               "`kernel<<<grid, block, smem, stream>>>(args...)`)")
        e = match_close(s, k, "(", ")")
        if e < 0:
            raise CaptureError(f"{path}:{line}: the launch's argument list does not close")
        args = tuple(" ".join(text[a:b].split()) for a, b in split_args(s, k + 1, e - 1))
        start = i - len(s[max(0, i - 400):i]) + m.start(1)
        out.append((Launch(line, m.group(1).strip(), args), start, e))
        pos = e


def _cstr(t: str) -> str:
    return '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"'


_MAIN = re.compile(r"\bint\s+main\s*\(")


def rewrite(text: str, path: str, entries, sources=None, header_launches=None, replay: bool = True) -> tuple:
    """The host translation unit of the source ``text`` (at ``path``) and its launches: ``(unit, launches)``.
    ``entries``: the functions the driver calls (``gemm_tn<cute::half_t, cute::half_t>``), entry ``i`` when the
    program runs with argument ``i``. Line numbers of the source are kept (``#line``, and each replaced launch
    keeps its newlines). ``sources``: the source and its user headers (path -> text, :mod:`.cpp_headers`), where
    kernels and the functions they call are looked up; ``header_launches``: launches found in user headers
    (then the source may have none); ``replay``: print the Blackwell objects of :mod:`.cpp_replay` (the kernel
    body's TMEM objects, the launch's cluster, multicast / 2-SM TMA operands)."""
    found = find_launches(text, path)
    if not found and not header_launches:
        raise CaptureError(f"{path}: no `kernel<<<...>>>(...)` (or launch_kernel_on_cluster / cudaLaunchKernelEx) "
                           "launch in this file or the user headers it includes: nothing to capture")
    body = replace_launches(text, path, found, sources, replay)
    body = _MAIN.sub("int cuteverify_user_main(", body)
    # an entry is a function (called with value-initialised arguments) or a call expression `f(args...)`
    cases = "\n".join(f"  case {i}: " + (f"{ent};" if ent.rstrip().endswith(")") else
                                         f"::cuteverify_capture::call(&{ent});") + " break;"
                       for i, ent in enumerate(entries))
    unit = (PRELUDE + cpp_storage.PRELUDE + cpp_replay.PRELUDE + f'#line 1 "{path}"\n' + body + "\n"
            + cpp_replay.POSTLUDE + DRIVER.replace("@CASES@", cases))
    return unit, [la for la, _, _ in found]


def replace_launches(text: str, path: str, found=None, sources=None, replay: bool = True) -> str:
    """``text`` (at ``path``) with each of its launches ``found`` (:func:`find_launches`) replaced by the host
    call printing its arguments, every newline kept. Admissibility: as :func:`rewrite`. Post-condition: the
    text keeps its line count; a launch whose kernel is in ``sources`` with type-member relations
    (:mod:`.cpp_traits`) also prints those members."""
    found = find_launches(text, path) if found is None else found
    parts, last, bl = [], 0, blank(text)
    for n, (la, a, e) in enumerate(found):
        parts.append(text[last:a])
        texts = "{" + ", ".join(_cstr(t) for t in la.args) + ("}" if la.args else '""}')
        call = (f"{{ static const char* const cv_texts_{n}[] = {texts}; ::cuteverify_capture::launch("
                f"{_cstr(f'{path}:{la.line}')}, {_cstr(la.kernel)}, cv_texts_{n}")
        exprs = list(la.args)  # the argument texts as find_launches read them
        call += "".join(", " + x for x in exprs) + "); "
        flow = kernel_flow(text, la.kernel, a)
        for k, (var, (letter, atom_i, mma_i)) in enumerate(sorted(flow.built.items()) if flow else ()):
            if max(atom_i, mma_i) < len(exprs):  # the copy the kernel body builds, as CuTe builds it
                call += (f"::cuteverify_capture::one({_cstr(f'{path}:{la.line}')}, {BUILT + k}, {_cstr(la.kernel)}, "
                         f"{_cstr(var)}, ::cute::make_tiled_copy_{letter}({exprs[atom_i]}, {exprs[mma_i]})); ")
        # SM90: smem layouts given as template arguments, TMA atoms' operands (cpp_flow_sm90)
        for k, src, expr in template_prints(text, flow, la.kernel, a) + tma_prints(text, flow, exprs, a):
            call += (f"::cuteverify_capture::one({_cstr(f'{path}:{la.line}')}, {k}, {_cstr(la.kernel)}, {_cstr(src)}, "
                     f"{expr}); ")
        sflow = cpp_storage.storage_flow(text, resolve_kernel(bl, la.kernel, a), la.kernel, a)
        call += cpp_storage.capture_calls(sflow, _cstr(f"{path}:{la.line}"), _cstr(la.kernel), _cstr)
        call += cpp_host_tma.capture_calls(text, la.args, a, _cstr(f"{path}:{la.line}"), _cstr(la.kernel), _cstr,
                                           [w[0] for w in sflow.tma_writes if w[1]] if sflow else ())
        if flow is None and sources:  # a kernel in a user header, its layouts type members of a template argument
            tflow = cpp_traits.traits_flow(sources, resolve_kernel(bl, la.kernel, a), la.kernel, text, a)
            call += cpp_traits.capture_calls(tflow, _cstr(f"{path}:{la.line}"), _cstr(la.kernel), _cstr)
        call += _sm100_calls(text, la, a, e, flow, replay, f"{path}:{la.line}", _cstr)
        call += "}"
        if la.value:  # a launch call is an expression: the block runs in a lambda returning its success value,
            # parenthesised so that a macro argument (CUTE_CHECK_ERROR(cudaLaunchKernelEx(...))) stays one argument
            call = f"([&]() {call[:-1]} return {la.value}; }}())"
        call += "\n" * text.count("\n", a, e)
        parts.append(call)
        last = e
    parts.append(text[last:])
    return "".join(parts)


def _sm100_calls(text, la, a, e, flow, replay, at, cstr) -> str:
    """The Blackwell prints of one launch (:mod:`.cpp_replay`), none without ``replay`` (the build that drops
    them when they do not compile): its multicast / 2-SM TMA atoms' operands, and, for a kernel whose body
    replays TMEM objects or indexes a cluster-shape argument, the launch's cluster and the replayed objects."""
    if not replay:
        return ""
    out = "".join(f"::cuteverify_capture::one({cstr(at)}, {k}, {cstr(la.kernel)}, {cstr(src)}, {expr}); "
                  for k, src, expr in cpp_replay.tma_prints(text, la.args, a, TMA))
    plan = cpp_replay.replay_plan(text, flow, sm90_flow(text, flow))
    if plan is not None and (plan.items or plan.cluster_param is not None or out):
        out += cpp_replay.cluster_call(text, a, e, cstr(at), cstr(la.kernel), cstr)
        out += cpp_replay.capture_calls(plan, la.args, cstr(at), cstr(la.kernel), cstr)
    return out


_ERROR = re.compile(r"^(.*?):(\d+):(\d+): (?:fatal )?error: (.*)$", re.M)
_QUOTED = re.compile(r"[‘'`]([^’'`]+)[’'`]")
_CUDA_ONLY = (("<<<", "a kernel launch `<<<...>>>` the rewrite did not see"),
              ("‘asm", "inline PTX (`asm`)"), ("__shfl", "a warp shuffle intrinsic"),
              ("‘atomic", "a CUDA atomic"))


def first_error(stderr: str, path: str, source_lines: int | None = None, entries=(), text: str = "") -> str:
    """The first compiler error of ``stderr`` (or the host assembler's, for inline PTX) and, when its text names
    one, the CUDA-only construct that caused it, at that file:line, with a hint (:mod:`.cpp_cuda_only`);
    ``text``: the source (a launch inside a macro is found there); an error past the source's ``source_lines``
    lines is in the driver: the ``entries`` are named."""
    m = _ERROR.search(stderr)
    a = cpp_cuda_only.ASSEMBLER_ERROR.search(stderr)
    if a is not None and (m is None or a.start() < m.start()):
        msg = f"{a.group(1)}:{a.group(2)}: Error: {a.group(3)} (the host assembler)"
        c = cpp_cuda_only.explain(a.group(3), text) or cpp_cuda_only.TABLE[0]
        return (f"the host-only build of {path} failed at its first error:\n  {msg}\n  caused by {c.what} at "
                f"{a.group(1)}:{a.group(2)}: {c.hint}")
    if m is None:
        tail = "\n".join(stderr.strip().splitlines()[-5:])
        return f"the host-only build of {path} failed:\n{tail}"
    msg = f"{m.group(1)}:{m.group(2)}:{m.group(3)}: error: {m.group(4)}"
    if source_lines is not None and m.group(1) == path and int(m.group(2)) > source_lines:
        return (f"the host-only build of {path} failed in the driver that calls the entries:\n  {msg}\n  each "
                f"--entry ({', '.join(entries)}) must name one function of {path} with every template argument "
                "given (`gemm_tn<cute::half_t, cute::half_t>`)")
    c = cpp_cuda_only.explain(m.group(4), text, _line_of(m.group(1), int(m.group(2)), path, text))
    if c is not None:
        where = f"{m.group(1)}:{m.group(2)}"
        if c.name == "macro launch":
            where = f"{path}:{cpp_cuda_only.macro_launch_line(text)} (the #define)"
        elif c.name == "<<<" and m.group(1) != path:
            where += (" (a header: the rewrite sees the source file's launches only, and CUTLASS's device-level "
                      "adapters launch in their headers; capture a source that launches the kernel itself)")
        return (f"the host-only build of {path} failed at its first error:\n  {msg}\n  caused by {c.what} at "
                f"{where}: {c.hint}")
    q = _QUOTED.search(m.group(4))
    name = q.group(1) if q else ""
    what = next((w for key, w in _CUDA_ONLY if key in m.group(4)), None)
    if what is None and (name.startswith("__") or name.startswith("cuda") or name in _BUILTIN_VARS):
        what = f"the CUDA-only name `{name}`"
    if what is not None:
        return (f"the host-only build of {path} failed at its first error:\n  {msg}\n"
                f"  caused by {what}, which g++ does not know outside nvcc (the prelude maps the common ones away)")
    return f"the host-only build of {path} failed at its first error:\n  {msg}"


def _line_of(file: str, line: int, path: str, text: str) -> str:
    """Line ``line`` of ``file`` (the source's ``text`` when it is ``path``), or "" when unreadable."""
    try:
        lines = text.splitlines() if file == path and text else Path(file).read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    return lines[line - 1] if 0 < line <= len(lines) else ""


_BUILTIN_VARS = ("threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "clusterIdx")

_REC = re.compile(r"^@@cv-arg ([^\n]*?):(\d+)\|(\d+)\|([^\n|]*)\|([^\n]*)\n@@cv-type ([^\n]*)\n(.*?)\n@@cv-end$",
                  re.M | re.S)


def records(stdout: str) -> list:
    """The :class:`Record` s printed by a capture run, in order."""
    return [Record(f"{m.group(1)}:{m.group(2)}", int(m.group(3)), m.group(4), m.group(5), m.group(6).strip(),
                   m.group(7).strip()) for m in _REC.finditer(stdout)]


def include_flags(source: str, includes=(), defines=()) -> list:
    """The -I/-D flags: the user's, the source's directory, CUTLASS's include and tools/util/include, CUDA's."""
    tc = cpp_build.toolchain()
    if tc is None:
        raise CaptureError("trace cpp needs g++, the CUTLASS headers (the nvidia-cutlass wheel or "
                           "$CUTLASS_INCLUDE) and CUDA's headers ($CUDA_HOME, the nvidia-cuda-runtime / -crt / -cccl "
                           "wheels, or /usr/local/cuda); one is missing")
    cut = cpp_build.cutlass_include()
    util = os.path.join(os.path.dirname(cut), "tools", "util", "include")
    flags = [f"-I{d}" for d in includes] + [f"-I{os.path.dirname(os.path.abspath(source))}"] + tc[1]
    if os.path.isdir(util):
        flags.append(f"-I{util}")
    return flags + [f"-D{d}" for d in defines] + DEFINES


def capture(source, entries, includes=(), defines=(), timeout=900, run_timeout=120, std=None) -> tuple:
    """Build ``source`` host-only and run each of ``entries``: ``(records, launches, info)``; ``info`` has the
    compile seconds, whether the build was cached, and per entry its exit code, the number of
    records it printed and its last line of stderr. A failed build is a CaptureError quoting the first error
    (:func:`first_error`). ``std``: the language standard (``c++20``; None: C++17, :data:`.cpp_build.CXXFLAGS`)."""
    path = str(source)
    if not entries:
        raise CaptureError(f"{path}: name the host function(s) to run with --entry (e.g. "
                           "`--entry 'gemm_tn<cute::half_t, cute::half_t>'`): every template argument given")
    text = Path(path).read_text()
    work = tempfile.mkdtemp(prefix="cv_trace_cpp_")
    # launches in the user headers the source includes: every user header mirrored into the work directory
    # (cpp_headers), those launches rewritten there; the mirrored texts are inputs of the build (its cache key)
    headers = cpp_headers.user_headers(path, text, includes)
    sources = {path: text, **headers}
    hl, written, hflags = cpp_headers.mirror(path, headers, work, lambda t, p: replace_launches(t, p, None, sources),
                                             find_launches)
    unit, launches = rewrite(text, path, entries, sources, hl)
    flags = [*cpp_build.cxxflags(std), *LINK_FLAGS]
    t0 = time.perf_counter()
    c = cpp_build.compile_cpp(unit, os.path.join(work, "unit.cpp"), os.path.join(work, "unit"), flags=flags,
                              includes=include_flags(path, includes, defines) + hflags, timeout=timeout,
                              deps=written)
    info = {"compile_s": time.perf_counter() - t0, "cached": c.cached, "entries": {}}
    bare, _ = rewrite(text, path, entries, sources, hl, replay=False)
    if c.returncode != 0 and bare != unit:  # the replayed kernel-body statements (cpp_replay) did not compile
        info["replay_error"] = first_error(c.stderr, path, text.count("\n") + 1, entries, text)
        c = cpp_build.compile_cpp(bare, os.path.join(work, "unit.cpp"), os.path.join(work, "unit"), flags=flags,
                                  includes=include_flags(path, includes, defines) + hflags, timeout=timeout,
                                  deps=written)
        info["compile_s"] = time.perf_counter() - t0
    if c.returncode != 0:
        msg = first_error(c.stderr, path, text.count("\n") + 1, entries, text)
        guards = [g for g in arch_guards(text) if not any(d.split("=")[0] == g for d in defines)]
        if guards and "in the driver" in msg:  # the entry sits under a guard nvcc defines and g++ does not
            msg += f"\n  {path} puts code under #if {', '.join(guards)}: define it with -D {guards[0]}=1"
        raise CaptureError(msg)
    out = []
    for i, ent in enumerate(entries):
        p = subprocess.run([c.out, str(i)], capture_output=True, text=True, timeout=run_timeout, check=False)
        recs = [dataclasses.replace(r, entry=ent) for r in records(p.stdout)]
        info["entries"][ent] = {"returncode": p.returncode, "records": len(recs),
                                "stderr": p.stderr.strip().splitlines()[-1][-300:] if p.stderr.strip() else ""}
        out += recs
    return out, launches, info
