"""The CUDA-only constructs a host-only build of a kernel's source meets (issue 29), for :mod:`.cpp_capture`.

``trace cpp`` compiles the source with g++, never runs a kernel body (the launch prints its arguments instead),
so a device-only name needs only a declaration: a kernel body g++ compiles (a template one where its address is
taken) keeps its calls unresolved at the link, which ignores unresolved symbols. :data:`STUBS` declares, under
``#ifndef __CUDACC__``, the ones that are no more than a name g++ does not know; :data:`TABLE` lists every
construct met, stubbed or not, with what it is and the hint a failed build gives (:func:`explain`):

* declared by the prelude: ``__shfl*_sync``, ``__ballot_sync``, ``__any/__all_sync``, ``__activemask``,
  ``__match_*_sync``, ``__reduce_*_sync``; ``__ldg`` / ``__ldcg`` / ... / ``__stcg``; ``atomicAdd`` ...
  ``atomicCAS`` (any type, ``_block`` / ``_system``); ``__threadfence*``, ``__nanosleep``,
  ``__syncthreads_or/and``, ``__trap``, ``clock64``; integer / float intrinsics (``__popc``, ``__clz``,
  ``__brev``, ``__byte_perm``, ``__fdividef``, ``__saturatef``, ...; glibc's ``__expf`` / ``__sinf`` ... are
  the host's own) and the half / bfloat16 math nvcc alone declares (``__hfma``, ``hexp``, ...: templates);
  ``__cvta_generic_to_shared``, ``__isShared`` / ``__isGlobal``; ``cudaGridDependencySynchronize`` /
  ``cudaTriggerProgrammaticLaunchCompletion`` (PDL); ``warpSize`` (an ``extern const int``, as CUDA declares
  it: no constant expression, as under nvcc); ``tex1Dfetch`` / ``tex1D`` / ``tex2D`` / ``tex3D``;
* nothing to do: ``__device__`` / ``__constant__`` / ``__managed__`` variables, ``__shared__`` and ``extern
  __shared__`` arrays (CUDA's headers make them attributes g++ ignores), the ``__nv_bfloat16`` / ``__half``
  conversions and operators CUDA declares for the host;
  ``#include <device_launch_parameters.h>`` (its guard is defined: the prelude's ``threadIdx`` ... stand);
* named in the error, with the hint: inline PTX ``asm volatile("...")`` outside a ``__CUDA_ARCH__`` guard (GNU
  as refuses it; guard it as CuTe's ``CUTE_ARCH_*_ENABLED`` code is); ``cooperative_groups`` (its header is
  empty without nvcc); a ``<<<...>>>`` launch over several lines of a macro (the rewrite does not follow ``\\``;
  named at its ``#define``); a launch in a header (CUTLASS's device-level adapters: the rewrite sees the
  source file only).

Admissibility: g++'s diagnostics (``FILE:LINE:COL: error: ...``) and GNU as's (``FILE:LINE: Error: ...``).
Post-condition: :func:`explain` names a construct only when the error's text (or, for a macro launch, the
source at the error's line) shows it; a declaration here never defines behaviour a capture could observe.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["STUBS", "TABLE", "Construct", "explain", "macro_launch_line", "ASSEMBLER_ERROR"]

STUBS = r"""// CUDA-only names a kernel body may use, declared for the host (cpp_cuda_only.py): never called
// device_launch_parameters.h declares threadIdx ... as nvcc's built-ins: the prelude defines them, so it is empty
#define __DEVICE_LAUNCH_PARAMETERS_H__
template <class T> T __shfl_sync(unsigned, T, int, int = 32);
template <class T> T __shfl_xor_sync(unsigned, T, int, int = 32);
template <class T> T __shfl_up_sync(unsigned, T, unsigned, int = 32);
template <class T> T __shfl_down_sync(unsigned, T, unsigned, int = 32);
unsigned __ballot_sync(unsigned, int);
int __any_sync(unsigned, int);
int __all_sync(unsigned, int);
unsigned __activemask();
template <class T> unsigned __match_any_sync(unsigned, T);
template <class T> unsigned __match_all_sync(unsigned, T, int*);
unsigned __reduce_add_sync(unsigned, unsigned);
unsigned __reduce_max_sync(unsigned, unsigned);
unsigned __reduce_min_sync(unsigned, unsigned);
template <class T> T __ldg(const T*);
template <class T> T __ldcg(const T*);
template <class T> T __ldca(const T*);
template <class T> T __ldcs(const T*);
template <class T> T __ldlu(const T*);
template <class T> T __ldcv(const T*);
template <class T> void __stcg(T*, T);
template <class T> void __stcs(T*, T);
template <class T> void __stwb(T*, T);
template <class T> void __stwt(T*, T);
#define CUTEVERIFY_ATOMIC2(NAME) template <class T, class U> T NAME(T*, U); \
  template <class T, class U> T NAME##_block(T*, U); template <class T, class U> T NAME##_system(T*, U);
CUTEVERIFY_ATOMIC2(atomicAdd) CUTEVERIFY_ATOMIC2(atomicSub) CUTEVERIFY_ATOMIC2(atomicExch)
CUTEVERIFY_ATOMIC2(atomicMin) CUTEVERIFY_ATOMIC2(atomicMax) CUTEVERIFY_ATOMIC2(atomicInc)
CUTEVERIFY_ATOMIC2(atomicDec) CUTEVERIFY_ATOMIC2(atomicAnd) CUTEVERIFY_ATOMIC2(atomicOr)
CUTEVERIFY_ATOMIC2(atomicXor)
#undef CUTEVERIFY_ATOMIC2
template <class T, class U, class V> T atomicCAS(T*, U, V);
template <class T, class U, class V> T atomicCAS_block(T*, U, V);
template <class T, class U, class V> T atomicCAS_system(T*, U, V);
void __threadfence();
void __threadfence_block();
void __threadfence_system();
void __nanosleep(unsigned);
int __syncthreads_or(int);
int __syncthreads_and(int);
void __trap();
long long clock64();
int __popc(unsigned);
int __popcll(unsigned long long);
int __clz(int);
int __clzll(long long);
int __ffs(int);
int __ffsll(long long);
unsigned __brev(unsigned);
unsigned long long __brevll(unsigned long long);
unsigned __byte_perm(unsigned, unsigned, unsigned);
unsigned __funnelshift_l(unsigned, unsigned, unsigned);
unsigned __funnelshift_r(unsigned, unsigned, unsigned);
unsigned __umulhi(unsigned, unsigned);
int __mulhi(int, int);
float __fdividef(float, float);
float __saturatef(float);
float __frcp_rn(float);
float __fsqrt_rn(float);
float __fmaf_rn(float, float, float);
float rsqrtf(float);
unsigned __float_as_uint(float);
float __uint_as_float(unsigned);
int __float_as_int(float);
float __int_as_float(int);
int __float2int_rn(float);
int __float2int_rz(float);
unsigned __float2uint_rn(float);
template <class T> T __hfma(T, T, T);
template <class T> T __hfma2(T, T, T);
template <class T> T __hfma_relu(T, T, T);
template <class T> T hexp(T);
template <class T> T hexp2(T);
template <class T> T hlog(T);
template <class T> T hlog2(T);
template <class T> T hsqrt(T);
template <class T> T hrsqrt(T);
template <class T> T hrcp(T);
template <class T> T h2exp(T);
template <class T> T h2exp2(T);
template <class T> T h2log(T);
template <class T> T h2sqrt(T);
template <class T> T h2rcp(T);
unsigned long long __cvta_generic_to_shared(const void*);
unsigned long long __cvta_generic_to_global(const void*);
unsigned __isShared(const void*);
unsigned __isGlobal(const void*);
void cudaGridDependencySynchronize();
void cudaTriggerProgrammaticLaunchCompletion();
extern "C" const int warpSize;
template <class T, class... A> T tex1Dfetch(A...);
template <class T, class... A> T tex1D(A...);
template <class T, class... A> T tex2D(A...);
template <class T, class... A> T tex3D(A...);
"""

#: GNU as's diagnostic (inline PTX reaches the host assembler): ``FILE:LINE: Error: no such instruction: ...``
ASSEMBLER_ERROR = re.compile(r"^(.*?):(\d+): Error: (.*)$", re.M)


@dataclass(frozen=True)
class Construct:
    """One CUDA-only construct: ``name``, ``what`` it is, ``message`` (a regex on the first error's text),
    ``stubbed`` (the prelude declares it), ``hint`` (what to do when it still breaks the build)."""

    name: str
    what: str
    message: str
    stubbed: bool
    hint: str


_DECLARED = "the prelude declares it; this use does not match the declaration (report it)"
_GUARD = ("put it under `#if defined(__CUDA_ARCH__)` (what CuTe's own CUTE_ARCH_*_ENABLED code does), so the "
          "host build skips it; the capture never runs a kernel body")
TABLE = (
    Construct("asm", "inline PTX (`asm volatile(...)`) outside a __CUDA_ARCH__ guard",
              r"^(?:no such instruction|invalid instruction suffix|unknown pseudo-op|junk .* after expression)|"
              r"impossible constraint in .asm|invalid 'asm'|‘asm’ operand|asm operand", False, _GUARD),
    Construct("cooperative_groups", "cooperative_groups (its header is empty without nvcc)",
              r"[‘'`](?:cooperative_groups|cg)[’'`] (?:is not a namespace-name|has not been declared)|"
              r"[‘'`](?:this_thread_block|this_grid|tiled_partition|thread_block|grid_group|coalesced_threads)"
              r"[’'`] (?:is not a member|was not declared)", False,
              "the capture needs no thread group: put the code that uses it under `#if defined(__CUDA_ARCH__)`"),
    Construct("device_launch_parameters.h", "`#include <device_launch_parameters.h>` (it declares threadIdx, "
              "blockIdx, blockDim, gridDim, which the prelude defines for the host)",
              r"conflicting declaration .*(?:threadIdx|blockIdx|blockDim|gridDim)|"
              r"[‘'`](?:threadIdx|blockIdx|blockDim|gridDim)[’'`] (?:has a previous declaration|redeclared)", True,
              "the prelude defines its include guard; this CUDA's header has another: drop the include (nvcc "
              "includes it itself) or guard it with `#if defined(__CUDACC__)`"),
    Construct("macro launch", "a `<<<...>>>` launch written over several lines of a macro (the launch rewrite "
              "does not follow line continuations)", r"stray [‘'`]\\[’'`] in program", False,
              "write the launch on one line of the macro, or outside it"),
    Construct("<<<", "a kernel launch `<<<...>>>` the rewrite did not see", r"<<<|expected primary-expression "
              r"before [‘'`]<[’'`] token", False, "write it as `kernel<<<grid, block[, smem, stream]>>>(args);`"),
    Construct("warp", "a warp intrinsic (`__shfl*_sync`, `__ballot_sync`, `__activemask`, ...)",
              r"[‘'`]__(?:shfl|ballot|any_sync|all_sync|activemask|match_|reduce_)\w*[’'`]", True, _DECLARED),
    Construct("ldg", "a cache-hinted load / store (`__ldg`, `__ldcg`, `__stcg`, ...)",
              r"[‘'`]__(?:ld|st)(?:g|cg|ca|cs|lu|cv|wb|wt)[’'`]", True, _DECLARED),
    Construct("atomic", "a CUDA atomic (`atomicAdd`, `atomicCAS`, ...)", r"[‘'`]atomic[A-Z]\w*[’'`]", True,
              _DECLARED),
    Construct("fence", "a fence / sleep / block vote (`__threadfence`, `__nanosleep`, `__syncthreads_or`)",
              r"[‘'`]__(?:threadfence\w*|nanosleep|syncthreads_(?:or|and)|trap)[’'`]|[‘'`]clock64[’'`]", True,
              _DECLARED),
    Construct("pdl", "programmatic dependent launch (`cudaGridDependencySynchronize`, "
              "`cudaTriggerProgrammaticLaunchCompletion`)", r"[‘'`]cuda(?:GridDependencySynchronize|"
              r"TriggerProgrammaticLaunchCompletion)[’'`]", True, _DECLARED),
    Construct("address space", "an address-space intrinsic (`__cvta_generic_to_shared`, `__isShared`)",
              r"[‘'`]__(?:cvta_\w+|isShared|isGlobal)[’'`]", True, _DECLARED),
    Construct("math", "a device math / bit intrinsic (`__popc`, `__fdividef`, `__hfma`, `hexp`, ...)",
              r"[‘'`](?:__(?:popc|clz|ffs|brev|byte_perm|funnelshift|umulhi|mulhi|fdividef|expf|exp10f|logf|"
              r"log2f|sinf|cosf|powf|saturatef|frcp|fsqrt|fmaf|float_as|uint_as|int_as|float2|hfma)\w*|"
              r"h2?(?:exp2?|log2?|sqrt|rsqrt|rcp))[’'`]", True, _DECLARED),
    Construct("texture", "a texture fetch (`tex1Dfetch`, `tex2D`, ...)", r"[‘'`]tex(?:1Dfetch|[123]D)[’'`]",
              True, _DECLARED),
    Construct("warpSize", "the built-in `warpSize`", r"[‘'`]warpSize[’'`]", True,
              "warpSize is no constant under nvcc either: use 32 (cute's NumThreadsPerWarp) where a constant is "
              "needed"),
)


_MACRO_LAUNCH = re.compile(r"^[ \t]*#[ \t]*define\b(?:[^\n]*\\\n)*[^\n]*<<<", re.M)


def macro_launch_line(source: str) -> int | None:
    """The 1-based line of the first ``#define`` whose body (over ``\\`` continuations) holds a ``<<<`` launch
    written over several lines, or None."""
    for m in _MACRO_LAUNCH.finditer(source):
        if "\\\n" in m.group(0):
            return source.count("\n", 0, m.start()) + 1
    return None


def explain(message: str, source: str = "", line_text: str | None = None) -> Construct | None:
    """The construct of :data:`TABLE` the first error's ``message`` names, or None; a stray ``\\`` is a macro
    launch only where ``source`` has one (:func:`macro_launch_line`), a parse error at ``<`` a launch only where
    the error's line ``line_text`` (when known) holds ``<<<``."""
    message = re.sub(r"([‘'`][\w:~]+)[(<][^’'`]*([’'`])", r"\1\2", message)  # ‘__ldg(int)’ -> ‘__ldg’
    for c in TABLE:
        if re.search(c.message, message):
            if c.name == "macro launch" and macro_launch_line(source) is None:
                continue
            if c.name == "<<<" and "<<<" not in message and line_text is not None and "<<<" not in line_text:
                continue
            return c
    return None
