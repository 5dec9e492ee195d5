"""The code a synthesis prints (cuteverify.synth.codegen), run by the real libraries: the C++ is compiled with
g++ against the CUTLASS headers and evaluated through a CuTe smem tensor (so a GMMA atom's byte swizzle acts
on real addresses), the DSL code is traced by CuTe DSL; both must equal ``.layout`` on every point. Skipped
when g++ / the headers / CuTe DSL are absent."""
from __future__ import annotations

import json
import subprocess

import pytest

import cuteverify as cv
from cuteverify.analysis.banks.model import layout_values
from cuteverify.synth import enumerate_space, synthesize_smem_layout
from cuteverify.synth.codegen import cpp, dsl
from cuteverify.synth.space import cpp_type
import dsl_oracle
from cpp_oracle.gxx import run_cpp

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

PROBLEMS = [((128, 64), "bf16"), ((64, 32), "e4m3"), ((32, 32), "f32"), ((64, 128), "f16")]


def _sample():
    """(tile, dtype, bits, candidate): every GMMA atom (both tile orders for the first problem, column-major
    for the others), two padded pitches, every 23rd other candidate (each case is one more C++ instantiation)."""
    out = []
    for p, (tile, dtype) in enumerate(PROBLEMS):
        bits = cv.hardware.dtype_bits(dtype)
        padded = 0
        for c in enumerate_space(tile, bits, allow_padding=True):
            padded += c.family == "padded"
            if ((c.family == "gmma" and (p == 0 or c.order == (0, 1))) or (c.family == "padded" and padded <= 2)
                    or (c.family in ("swizzle", "plain") and c.index % 23 == 0)):
                out.append((tile, dtype, bits, c))
    return out


def _values(L, n):
    vals = layout_values(L).tolist()  # the layout's own table (numpy); the other side is C++ / the DSL
    assert len(vals) == n
    return vals


@pytest.fixture(scope="module")
def synthesized():
    return [synthesize_smem_layout((128, 64), "bf16", writes=["cp_async:128:thr=(16,8):(8,1)"],
                                   reads=["ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:2x2x1"]),
            synthesize_smem_layout((64, 64), "f16", writes=["cp_async:128:thr=(16,8):(8,1)"],
                                   reads=["ldmatrix:B:SM80_16x8x16_F32F16F16F32_TN:2x2x1:x2"], swizzles=[(2, 3, 3)]),
            synthesize_smem_layout((64, 64), "bf16", reads=[(cv.parse("(32,1):(1,0)"), 2),
                                                           (cv.parse("(32,1):(64,0)"), 2)], allow_padding=True)]


def test_cpp_compiles_and_equals_the_layout(tmp_path, synthesized):
    cases = [(t, d, b, cpp(c, t, d, b), c.layout) for t, d, b, c in _sample()]
    cases += [(r.tile, r.dtype, r.problem.bits, r.cpp(), r.layout) for r in synthesized]
    body = [f"  dump<{cpp_type(d, b)}>({expr});" for _, d, b, expr, _ in cases]
    text = ("#include <cute/tensor.hpp>\n#include <cute/atom/mma_traits_sm90_gmma.hpp>\n#include <cstdio>\n"
                   "using namespace cute;\n"
                   "template <class T, class L> void dump(L const& l) {\n"
                   "  alignas(1024) static T buf[1 << 16];\n"
                   "  auto t = make_tensor(make_smem_ptr(buf), l);\n"
                   "  printf(\"%d\", int(size(l)));\n"
                   "  for (int i = 0; i < int(size(l)); ++i) printf(\" %ld\", long(&t(i) - buf));\n"
                   "  printf(\"\\n\");\n}\nint main() {\n" + "\n".join(body) + "\n  return 0;\n}\n")
    r = run_cpp(text, name="synth", workdir=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.run_returncode == 0
    lines = r.stdout.splitlines()
    assert len(lines) == len(cases)
    for (tile, _, _, expr, L), line in zip(cases, lines):
        got = [int(x) for x in line.split()]
        n = tile[0] * tile[1]
        assert got[0] == n, expr
        assert got[1:] == _values(L, n), expr


_DSL_SCRIPT = r"""
import json, sys
import cutlass.cute as cute
cases = json.loads(sys.stdin.read())
out = []
def body():
    for code in cases:
        ns = {}
        exec(code, ns)
        L = ns["make_smem_layout"]()
        out.append(str(L))
fn = cute.jit(preprocess=False)(body)
try:
    cute.compile(fn)
except Exception:
    pass
sys.__stdout__.write(json.dumps(out))
"""


def test_dsl_code_traces_to_the_layout(synthesized):
    if not dsl_oracle.available():
        pytest.skip("CuTe DSL not importable")
    sample = _sample()[::2]
    cases = [(dsl(c, t, d), c.layout, t) for t, d, b, c in sample]
    cases += [(r.dsl(), r.layout, r.tile) for r in synthesized]
    r = subprocess.run([dsl_oracle._python(), "-c", _DSL_SCRIPT], input=json.dumps([c for c, _, _ in cases]),
                       capture_output=True, text=True, env=dsl_oracle._worker_env(), timeout=600, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    printed = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(printed) == len(cases)
    for (code, L, tile), text in zip(cases, printed):
        D = cv.parse(text)
        n = tile[0] * tile[1]
        assert _values(D, n) == _values(L, n), (code, text)
