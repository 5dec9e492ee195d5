"""The ``operand`` claim against CuTe C++: for each case, the descriptors
``thr_mma.make_fragment_A/B(thr_mma.partition_A/B(s))`` builds (LBO, SBO, layout type and the start offset of
every block, for every representative thread) equal those ``atoms.operand_desc.operand_descriptors`` derives,
and the claim is proved; a declaration CuTe rejects (``make_gmma_desc``'s static_asserts "Not a canonical
GMMA_K / GMMA_MN Layout") is refuted.

The C++ answers are recorded below (``CPP_FIELDS``, ``CPP_REJECTS``), printed by g++ -O0 on CUTLASS's headers
(the program ``_cpp`` writes; about 16 s of compiling, so not on every run): ``CUTEVERIFY_CPP_ORACLE=1``
recompiles it and checks the record (``test_record_is_cute_cpp``)."""
import os
import re

import pytest

from cuteverify.algebra.composition import composition
from cuteverify.algebra.tile import tile_to_shape
from cuteverify.atoms import make_tiled_mma
from cuteverify.atoms.operand_desc import operand_descriptors, prove_operand
from cuteverify.core.notation.parse import parse

from cpp_oracle.gxx import run_cpp

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

ATOM_CV = {"K_SW128": "S<3,3,3> o 0 o (8,64):(64,1)", "MN_SW128": "S<3,3,3> o 0 o (64,8):(1,64)",
           "K_SW64": "S<2,3,3> o 0 o (8,32):(32,1)", "MN_SW32": "S<1,3,3> o 0 o (16,8):(1,16)",
           "K_INTER": "(8,8):(8,1)"}
# (name, atom, smem tile shape, tile_to_shape order, transposed view (FA4's transpose_view), mma atom, majors,
#  atom layout, operand, does CuTe accept the declaration)
CASES = [
    ("fa4_dV_B", "K_SW128", (64, 128, 2), None, True, "SM90_64x128x16_F32BF16BF16_SS", ("MN", "MN"), (2, 1, 1),
     "B", True),
    ("fa4_dV_B_declared_K", "K_SW128", (64, 128, 2), None, True, "SM90_64x128x16_F32BF16BF16_SS", ("MN", "K"),
     (2, 1, 1), "B", False),
    ("gemm_A_K", "K_SW128", (128, 64, 3), None, False, "SM90_64x128x16_F32BF16BF16_SS", ("K", "K"), (2, 1, 1),
     "A", True),
    ("gemm_A_declared_MN", "K_SW128", (128, 64), None, False, "SM90_64x128x16_F32BF16BF16_SS", ("MN", "K"),
     (2, 1, 1), "A", False),
    ("fa3_Vt_B", "MN_SW128", (128, 128, 2), (1, 0, 2), False, "SM90_64x128x16_F32BF16BF16_RS", ("K", "MN"),
     (2, 1, 1), "B", True),
    ("B_K_SW64", "K_SW64", (64, 64), None, False, "SM90_64x64x16_F16F16F16_SS", ("K", "K"), (1, 1, 1), "B", True),
    ("A_MN_SW32", "MN_SW32", (64, 32), None, False, "SM90_64x64x16_F16F16F16_SS", ("MN", "K"), (1, 1, 1), "A",
     True),
    ("A_K_INTER", "K_INTER", (64, 32), (1, 0), False, "SM90_64x64x16_F16F16F16_SS", ("K", "K"), (1, 1, 1), "A",
     True),
]
CPP_ATOM = {"K_SW128": "GMMA::Layout_K_SW128_Atom", "MN_SW128": "GMMA::Layout_MN_SW128_Atom",
            "K_SW64": "GMMA::Layout_K_SW64_Atom", "MN_SW32": "GMMA::Layout_MN_SW32_Atom",
            "K_INTER": "GMMA::Layout_K_INTER_Atom"}


# CuTe C++'s descriptors per case: ((LBO, SBO, layout type), {thread: [start offset of block r, r = 0, 1, ...]}),
# block r the column-major index over the fragment's (MN-block, k-block, stage) modes
CPP_FIELDS = {
    "fa4_dV_B": ((8192, 1024, 1), {0: [0, 2048, 4096, 6144, 16384, 18432, 20480, 22528]}),
    "gemm_A_K": ((16, 1024, 1), {0: [0, 32, 64, 96, 16384, 16416, 16448, 16480, 32768, 32800, 32832, 32864],
                                 128: [8192, 8224, 8256, 8288, 24576, 24608, 24640, 24672, 40960, 40992, 41024,
                                       41056]}),
    "fa3_Vt_B": ((16384, 1024, 1), {0: [0, 2048, 4096, 6144, 8192, 10240, 12288, 14336, 32768, 34816, 36864,
                                        38912, 40960, 43008, 45056, 47104]}),
    "B_K_SW64": ((16, 512, 2), {0: [0, 32, 4096, 4128]}),
    "A_MN_SW32": ((256, 1024, 3), {0: [0, 2048]}),
    "A_K_INTER": ((128, 512, 0), {0: [0, 256]}),
}
# the static_asserts g++ reports for the declarations CuTe rejects
CPP_REJECTS = {
    "fa4_dV_B_declared_K": "Not a canonical GMMA_K Layout: Expected stride failure.",
    "gemm_A_declared_MN": "Not a canonical GMMA_MN Layout: Expected stride failure.",
}


def _dtype(c):
    return "bf16" if "BF16" in c[5] else "f16"


def _cv(c):
    _, atom, shape, order, transposed, mma, majors, alayout, op, _ = c
    s = tile_to_shape(parse(ATOM_CV[atom]), shape, order)
    if transposed:
        r = len(shape)
        stride = (shape[0], 1) + ((shape[0] * shape[1],) if r == 3 else ())
        view = (shape[1], shape[0]) + shape[2:]
        s = composition(s, parse("(" + ",".join(map(str, view)) + "):(" + ",".join(map(str, stride)) + ")"))
    return s, make_tiled_mma(f"{mma}<GMMA::Major::{majors[0]},GMMA::Major::{majors[1]}>", alayout)


def _ints(t):
    return ", ".join(f"Int<{x}>{{}}" for x in t)


def _cpp(i, c, threads):
    _, atom, shape, order, transposed, mma, majors, alayout, op, _ = c
    T = "bfloat16_t" if _dtype(c) == "bf16" else "half_t"
    step = (", Step<" + ",".join(f"_{o + 1}" for o in order) + ">{}") if order else ""
    s = f"tile_to_shape({CPP_ATOM[atom]}<{T}>{{}}, make_shape({_ints(shape)}){step})"
    if transposed:
        view = (shape[1], shape[0]) + shape[2:]
        stride = (shape[0], 1) + ((shape[0] * shape[1],) if len(shape) == 3 else ())
        s = f"composition({s}, make_layout(make_shape({_ints(view)}), make_stride({_ints(stride)})))"
    loop = f"""
  for (int th : {{{", ".join(map(str, threads))}}}) {{
    auto thr = mma.get_slice(th); auto p = thr.partition_{op}(t); auto f = thr.make_fragment_{op}(p);
    // on the host cast_smem_ptr_to_uint has no shared window: the block's own offset is the pointer's
    int base = int((char const*)raw_pointer_cast(p.data()) - g_buf);
    for (int r = 0; r < size(f); ++r) {{ auto d = f(r);
      printf("CASE {i} THR %d R %d lbo=%d sbo=%d type=%d start=%d\\n", th, r,
             int(d.bitfield.leading_byte_offset_) * 16, int(d.bitfield.stride_byte_offset_) * 16,
             int(d.bitfield.layout_type_), base + int(d.bitfield.start_address_) * 16); }} }}"""
    return f"""
void case_{i}() {{
  auto t = make_tensor(make_smem_ptr(({T}*)g_buf), {s});
  auto mma = make_tiled_mma({mma}<GMMA::Major::{majors[0]}, GMMA::Major::{majors[1]}>{{}},
                            Layout<Shape<{",".join(f"_{x}" for x in alayout)}>>{{}});{loop}
}}
// end case {i}"""


def _colmajor(rest, extents):
    idx, mul = 0, 1
    for r, e in zip(rest, extents):
        idx += r * mul
        mul *= e
    return idx


def _flat_fields(fields):
    (lbo, sbo, typ), threads = fields
    return {(t, r): (lbo, sbo, typ, start) for t, starts in threads.items() for r, start in enumerate(starts)}


@pytest.mark.parametrize("i", range(len(CASES)))
def test_against_cute_cpp(i):
    c = CASES[i]
    s, tm = _cv(c)
    v = prove_operand(tm, c[8], s, _dtype(c))
    if not c[9]:
        assert c[0] in CPP_REJECTS
        assert v.refuted and "declared GMMA::Major::" in v.reason, v
        return
    assert v.proved, v
    ours = operand_descriptors(tm, c[8], s, _dtype(c))
    extents = [max(b[1][k] for b in ours) + 1 for k in range(len(ours[0][1]))]
    got = {(t, _colmajor(rest, extents)): (d.encoded("lbo") * 16, d.encoded("sbo") * 16, d.layout_type_value,
                                           d.start) for t, rest, d, _ in ours}
    assert got == _flat_fields(CPP_FIELDS[c[0]])


@pytest.mark.skipif(os.environ.get("CUTEVERIFY_CPP_ORACLE") != "1", reason="set CUTEVERIFY_CPP_ORACLE=1 (~16 s of g++)")
def test_record_is_cute_cpp(tmp_path):
    head = ["#include <cstdio>", "#include <cute/tensor.hpp>", "#include <cute/atom/mma_traits_sm90_gmma.hpp>",
            "using namespace cute;", "alignas(1024) static char g_buf[1 << 20];"]
    good = [i for i, c in enumerate(CASES) if c[9]]
    src = head + [_cpp(i, CASES[i], sorted(CPP_FIELDS[CASES[i][0]][1])) for i in good]
    src.append("int main() {" + "".join(f" case_{i}();" for i in good) + " }")
    r = run_cpp("\n".join(src), name="ok", workdir=tmp_path, run_timeout=60)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    live = {}
    for m in re.finditer(r"CASE (\d+) THR (\d+) R (\d+) lbo=(\d+) sbo=(\d+) type=(\d+) start=(\d+)", out):
        i, t, rr, *f = map(int, m.groups())
        live.setdefault(CASES[i][0], {})[(t, rr)] = tuple(f)
    assert live == {CASES[i][0]: _flat_fields(CPP_FIELDS[CASES[i][0]]) for i in good}
    for i, c in enumerate(CASES):
        if c[9]:
            continue
        r = run_cpp("\n".join(head + [_cpp(i, c, [0])]), syntax_only=True, name=f"reject_{i}", workdir=tmp_path)
        assert r.returncode != 0 and CPP_REJECTS[c[0]] in r.stderr, r.stderr[-2000:]
