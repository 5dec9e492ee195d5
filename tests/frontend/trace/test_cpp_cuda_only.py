"""The CUDA-only constructs of a host-only ``trace cpp`` build (issue 29, :mod:`cuteverify.frontend.trace.
cpp_cuda_only`): each is declared by the prelude (the build passes: the capture never runs a kernel body) or
named in the build error with its file:line and a hint.

The fast tests read diagnostics as g++ 12 / GNU as print them; the ``differential`` ones compile a tiny kernel
per construct against the prelude and CUDA's headers (about a second each, cached by content; skipped without
g++ or the headers), and one capture and one CLI run go through CuTe's headers.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.errors import CaptureError
from cuteverify.frontend.cli.main import main
from cuteverify.frontend.trace import cpp_build, cpp_capture, cpp_cuda_only
from cuteverify.frontend.trace.cpp_capture import first_error

needs_gxx = pytest.mark.skipif(cpp_build.toolchain() is None,
                               reason="g++, the CUTLASS headers or CUDA's headers (cuda_runtime_api.h) are missing")

# ------------------------------------------------------------------------------------------- diagnostics


def test_inline_ptx_is_named_from_the_assembler_at_its_line():
    err = ("k.cu: Assembler messages:\nk.cu:12: Error: no such instruction: `cp.async.cg.shared.global [%eax],"
           "[%rdx],16'\nk.cu:30:1: error: later\n")
    msg = first_error(err, "k.cu")
    assert "k.cu:12: Error: no such instruction" in msg and "inline PTX" in msg and "at k.cu:12" in msg
    assert "__CUDA_ARCH__" in msg and "30" not in msg


def test_cooperative_groups_and_launch_parameters_header_are_named():
    msg = first_error("k.cu:2:16: error: \u2018cooperative_groups\u2019 is not a namespace-name\n", "k.cu")
    assert "cooperative_groups (its header is empty without nvcc) at k.cu:2" in msg
    msg = first_error("k.cu:3:1: error: conflicting declaration \u2018const uint3 threadIdx\u2019\n", "k.cu")
    assert "device_launch_parameters.h" in msg and "at k.cu:3" in msg


def test_a_launch_over_macro_lines_and_one_in_a_header_are_named():
    src = "#include <x>\n#define LAUNCH(k, p) \\\n  k<<<1, 32>>>( \\\n    p)\nvoid h(float* p) { LAUNCH(k<float>, p); }\n"
    assert cpp_cuda_only.macro_launch_line(src) == 2
    assert cpp_cuda_only.macro_launch_line("#define L(k) k<<<1, 1>>>()\n") is None  # one line: rewritten
    msg = first_error("m.cu:5:20: error: stray \u2018\\\u2019 in program\n", "m.cu", 5, (), src)
    assert "several lines of a macro" in msg and "at m.cu:2 (the #define)" in msg
    hdr = Path(tempfile.mkdtemp()) / "kernel_launch.h"
    hdr.write_text("\n" * 90 + "    device_kernel<K><<<grid, block, smem, stream>>>(params);\n")
    msg = first_error(f"{hdr}:91:32: error: expected primary-expression before \u2018<\u2019 token\n", "m.cu")
    assert f"launch `<<<...>>>` the rewrite did not see at {hdr}:91 (a header" in msg
    # the same parse error where the line has no launch names nothing
    msg = first_error("m.cu:1:3: error: expected primary-expression before \u2018<\u2019 token\n", "m.cu", 9, (),
                      "a < b;\n")
    assert "caused by" not in msg


def test_every_construct_of_the_table_is_stubbed_or_has_a_hint():
    names = {c.name for c in cpp_cuda_only.TABLE}
    assert {"asm", "cooperative_groups", "macro launch", "<<<", "warp", "ldg", "atomic", "pdl"} <= names
    for c in cpp_cuda_only.TABLE:
        assert c.hint and c.what
    assert "#endif" in cpp_capture.PRELUDE.split(cpp_cuda_only.STUBS, 1)[1]  # the stubs sit under #ifndef __CUDACC__
    # a stubbed name that still fails (a use the declaration does not match) is named, with that said
    msg = first_error("k.cu:4:9: error: no matching function for call to \u2018__ldg(int)\u2019\n", "k.cu")
    assert "cache-hinted load" in msg and "the prelude declares it" in msg


# ------------------------------------------------------------------------------------ the builds (g++)

_STUBBED = {
    "shfl": "p[0] = __shfl_xor_sync(0xffffffffu, p[0], 1) + __shfl_sync(~0u, p[1], 0) + __shfl_down_sync(~0u, p[2], 1u);",
    "vote": "unsigned m = __ballot_sync(~0u, p[0] > 0); p[0] = __popc(m) + __any_sync(~0u, 1) + __activemask();",
    "ldg": "p[0] = __ldg(p + 1) + __ldcg(p + 2); __stcg(p, p[0]);",
    "atomic": "atomicAdd(p, T(1)); atomicMax((int*)p, 1); atomicCAS((int*)p, 0, 1); atomicAdd_block(p, T(2));",
    "fence": "__threadfence(); __threadfence_block(); __nanosleep(10); p[0] = clock64() + __syncthreads_or(1);",
    "warpSize": "p[0] = warpSize;",
    "device var": "p[0] = counter + coef[0];",
    "pdl": "cudaGridDependencySynchronize(); cudaTriggerProgrammaticLaunchCompletion();",
    "bf16": "__nv_bfloat16 a = __float2bfloat16(1.f); p[0] = __bfloat162float(__hadd(a, a));",
    "fp16": "__half a = __float2half(1.f); p[0] = __half2float(__hfma(a, a, a)) + __half2float(hexp(a));",
    "intrinsics": "p[0] = __fdividef(1.f, 2.f) + __saturatef(2.f) + __float_as_uint(1.f) + __brev(1u) + "
                  "__byte_perm(1u, 1u, 1u) + __funnelshift_l(1u, 1u, 1u);",
    "address space": "p[0] = (T)__cvta_generic_to_shared(p) + __isShared(p);",
    "texture": "p[0] = tex1Dfetch<float>(cudaTextureObject_t{}, 0);",
    "shared": "extern __shared__ char buf[]; __shared__ float s[32]; p[0] = s[0] + buf[0];",
}
_NAMED = {  # construct -> (kernel body line, what the error names)
    "asm": ('unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); p[0] = r;', "inline PTX"),
    "cooperative_groups": ("auto b = cooperative_groups::this_thread_block(); b.sync();", "cooperative_groups"),
}


def _snippet(body: str) -> str:
    return ("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cooperative_groups.h>\n"
            "#include <device_launch_parameters.h>\n"
            "__device__ int counter;\n__constant__ float coef[4];\n"
            f"template <class T> __global__ void k(T* p)\n{{\n  {body}\n}}\n"
            "void host() { auto f = &k<float>; (void)f; }\n")


def _build(name: str, body: str):
    """Compile the prelude and a tiny kernel to an object (as the capture compiles: -c adds the assembler)."""
    d = Path(tempfile.gettempdir()) / "cuteverify-cuda-only"
    d.mkdir(exist_ok=True)
    path = f"{name.replace(' ', '_')}.cu"
    unit = cpp_capture.PRELUDE + f'#line 1 "{path}"\n' + _snippet(body)
    flags = [*cpp_build.CXXFLAGS, "-c"]
    c = cpp_build.compile_cpp(unit, str(d / "unit.cpp"), str(d / "unit.o"), flags=flags,
                              includes=cpp_build.toolchain()[1] + cpp_capture.DEFINES)
    return c, path


@pytest.mark.differential
@needs_gxx
@pytest.mark.parametrize("name", sorted(_STUBBED))
def test_the_prelude_declares_the_construct(name):
    c, path = _build(name, _STUBBED[name])
    assert c.returncode == 0, first_error(c.stderr, path)


@pytest.mark.differential
@needs_gxx
@pytest.mark.parametrize("name", sorted(_NAMED))
def test_the_build_error_names_the_construct_at_its_line(name):
    body, what = _NAMED[name]
    c, path = _build(name, body)
    assert c.returncode != 0
    msg = first_error(c.stderr, path, None, (), _snippet(body))
    assert what in msg and f"at {path}:9" in msg, msg  # the kernel body's line


_CUTE = r"""#include <cute/tensor.hpp>
using namespace cute;

__device__ unsigned lane_id()  // a device function g++ emits (no template): its body is assembled
{
  BODY
}

template <class SmemLayout>
__global__ void stage(float* in, SmemLayout sl)
{
  __shared__ float smem[cosize_v<SmemLayout>];
  float v = __shfl_xor_sync(~0u, in[0], 1) + __ldg(in) + __popc(__ballot_sync(~0u, 1)) + warpSize + lane_id();
  atomicAdd(in, v); __threadfence(); cudaGridDependencySynchronize();
  smem[0] = v;
}

void launch(float* in)
{
  auto sl = make_layout(make_shape(Int<32>{}, Int<8>{}), make_stride(Int<8>{}, Int<1>{}));
  stage<<<1, 32>>>(in, sl);
}
"""


@pytest.mark.differential
@needs_gxx
def test_a_cute_kernel_with_device_intrinsics_is_captured_and_inline_ptx_is_named(tmp_path):
    ok = tmp_path / "intrinsics.cu"
    ok.write_text(_CUTE.replace("BODY", "return __popc(__activemask());"))
    records, _, info = cpp_capture.capture(str(ok), ["launch"])
    assert info["entries"]["launch"]["returncode"] == 0
    assert [(r.source, r.text) for r in records] == [("in", "pointer"), ("sl", "(_32,_8):(_8,_1)")]
    bad = tmp_path / "ptx.cu"
    bad.write_text(_CUTE.replace("BODY", 'unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r;'))
    with pytest.raises(CaptureError, match=rf"inline PTX .* at {bad}:6: put it under"):
        cpp_capture.capture(str(bad), ["launch"])
    r = CliRunner().invoke(main, ["trace", "cpp", str(bad), "--entry", "launch"])
    assert r.exit_code == 2 and f"{bad}:6" in r.output and "Traceback" not in r.output


@pytest.mark.differential
@needs_gxx
def test_a_launch_over_macro_lines_is_named_at_its_define(tmp_path):
    src = tmp_path / "macro.cu"
    src.write_text("#include <cute/tensor.hpp>\n#define LAUNCH(kern, p) \\\n  kern<<<1, 32>>>(  \\\n     p)\n"
                   "template <class T>\n__global__ void stage(T* in) { }\n"
                   "void launch(float* in)\n{\n  LAUNCH(stage, in);\n}\n")
    with pytest.raises(CaptureError, match=rf"several lines of a macro .* at {src}:2 \(the #define\)"):
        cpp_capture.capture(str(src), ["launch"])
