"""The descriptors cuteverify derives from smem layouts against CUTLASS's own ``make_gmma_desc`` (SM90) and
``make_umma_desc`` (SM100), compiled on the host with g++ (one translation unit, ~20 s): LBO, SBO, layout type,
version / LBO mode, and the start offset of each block (the block tensor's pointer, which make_*_desc encodes;
on the host cast_smem_ptr_to_uint has no shared window, so the offset is printed from the pointer itself).
Cases: the eight GMMA atoms x (8-, 16-, 32-bit) x two tile orders x several (MN, K) blocks, plus UMMA's
MN-major 128B_BASE32B atom (a rotating sample by default, all with CUTEVERIFY_SMEM_DESC_FULL=1). CUTLASS rejects some (an MN extent below the swizzle row, or wgmma-illegal forms
that CUTLASS does not assert): those are compiled separately only where cuteverify also refutes."""
import os
import pathlib

import pytest

from cuteverify.algebra.tile import tile_to_shape
from cuteverify.core.notation.parse import parse
from cuteverify.hardware import load, resolve
from cuteverify.hardware.descriptors.smem_rules import from_layout

from cpp_oracle.gxx import run_cpp

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

ROOT = pathlib.Path(__file__).resolve().parents[2]
ATOMS = load([ROOT / "specs/smem_atoms.yaml"], shipped=False)
CPP_TYPE = {8: "float_e4m3_t", 16: "half_t", 32: "tfloat32_t"}
DTYPE = {8: "e4m3", 16: "f16", 32: "tf32"}
SW = ["INTER", "SW32", "SW64", "SW128"]


def _cases():
    out = []
    for major in ("K", "MN"):
        for sw in SW:
            for bits in (8, 16, 32):
                t, w = 128 // bits, {"INTER": 1, "SW32": 2, "SW64": 4, "SW128": 8}[sw]
                mn = max(64, t * w) if major == "MN" else 64
                k = 256 // bits
                for order in (None, (1, 0)):
                    for arch in ("sm_90", "sm_100"):
                        for mb, kb in ((0, 0), (1, 1), (1, 3)):
                            out.append(dict(major=major, sw=sw, bits=bits, mn=mn, k=k, order=order, arch=arch,
                                            mb=mb, kb=kb, tile=(2 * mn, 4 * 1024 // bits)))
    for order in (None, (1, 0)):
        for mb, kb in ((0, 0), (1, 2)):
            out.append(dict(major="MN", sw="SW128_32B", bits=16, mn=64, k=16, order=order, arch="sm_100", mb=mb,
                            kb=kb, tile=(128, 64)))
    return out


ALL_CASES = _cases()
# every 12th case by default (each atom, width and majorness once, orders / archs / blocks rotating: ~25 s of
# g++); CUTEVERIFY_SMEM_DESC_FULL=1 runs all 292 (about 4 minutes of compiling; all matched on 2026-12-01)
CASES = ALL_CASES if os.environ.get("CUTEVERIFY_SMEM_DESC_FULL") == "1" else \
    [c for i, c in enumerate(ALL_CASES) if i % 12 == (i // 12) % 12 or c["sw"] == "SW128_32B"]


def _cpp_atom(c):
    if c["sw"] == "SW128_32B":
        return f"UMMA::Layout_MN_SW128_32B_Atom<{CPP_TYPE[c['bits']]}>{{}}"
    return f"GMMA::Layout_{c['major']}_{c['sw']}_Atom<{CPP_TYPE[c['bits']]}>{{}}"


def _cpp_case(i, c):
    order = ", Step<_2,_1>{}" if c["order"] else ""
    major = ("GMMA" if c["arch"] == "sm_90" else "UMMA") + f"::Major::{c['major']}"
    make = "GMMA::make_gmma_desc" if c["arch"] == "sm_90" else "UMMA::make_umma_desc"
    extra = ("" if c["arch"] == "sm_90" else
             ' printf(" ver=%d mode=%d", int(d.version_), int(d.lbo_mode_));')
    bf = "d.bitfield." if c["arch"] == "sm_90" else "d."
    return f"""
void case_{i}() {{
  auto l = tile_to_shape({_cpp_atom(c)}, make_shape(Int<{c['tile'][0]}>{{}}, Int<{c['tile'][1]}>{{}}){order});
  auto t = make_tensor(make_smem_ptr(({CPP_TYPE[c['bits']]}*)g_buf), l);
  auto blk = local_tile(t, make_shape(Int<{c['mn']}>{{}}, Int<{c['k']}>{{}}), make_coord({c['mb']}, {c['kb']}));
  auto d = {make}<{major}>(blk);
  long off = (char const*)raw_pointer_cast(blk.data()) - (char const*)g_buf;
  printf("CASE {i} lbo=%d sbo=%d type=%d start=%ld", int({bf}leading_byte_offset_) * 16,
         int({bf}stride_byte_offset_) * 16, int({bf}layout_type_), off);{extra}
  printf("\\n");
}}"""


@pytest.fixture(scope="module")
def cpp_results(tmp_path_factory):
    body = ["#include <cstdio>", "#include <cute/tensor.hpp>", "#include <cute/atom/mma_traits_sm90_gmma.hpp>",
            "#include <cute/atom/mma_traits_sm100.hpp>", "using namespace cute;",
            "alignas(1024) static char g_buf[1 << 20];"]
    body += [_cpp_case(i, c) for i, c in enumerate(CASES)]
    body.append("int main() {" + "".join(f" case_{i}();" for i in range(len(CASES))) + " }")
    r = run_cpp("\n".join(body), name="t", workdir=tmp_path_factory.mktemp("smem_desc_cpp"), run_timeout=60)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    res = {}
    for line in out.splitlines():
        if line.startswith("CASE "):
            parts = line.split()
            res[int(parts[1])] = dict(p.split("=") for p in parts[2:])
    assert len(res) == len(CASES)
    return res


def _atom(c):
    if c["sw"] == "SW128_32B":  # Swizzle<2,5,2> on bytes over (1024 bits, 4):(1, 1024 bits)
        t = 1024 // c["bits"]
        m = 5 - (c["bits"] // 8).bit_length() + 1
        return parse(f"S<2,{m},2> o 0 o ({t},4):(1,{t})")
    name = f"GMMA_{c['major']}_{c['sw']}"
    return parse(resolve(name, dtype=DTYPE[c["bits"]], library=ATOMS)[0].data["layout"])


@pytest.mark.parametrize("i", range(len(CASES)))
def test_descriptor_fields_match_cutlass(cpp_results, i):
    c = CASES[i]
    tile = tile_to_shape(_atom(c), c["tile"], c["order"])
    d, v = from_layout(tile, DTYPE[c["bits"]], c["arch"], major=c["major"], mn=c["mn"], mn_block=c["mb"],
                       k_block=c["kb"])
    want = {k: int(x) for k, x in cpp_results[i].items()}
    if c["arch"] == "sm_90" and c["major"] == "MN" and c["bits"] != 16:
        assert v.rule("major_types").refuted  # CUTLASS builds it; wgmma has no transposed non-16-bit read
    else:
        assert v.proved, v
    assert d.layout_type_value == want["type"] and d.start == want["start"]
    # a field the block does not read is CUTLASS's size-1 stride: compared only where the MMA reads it
    if d.sbo is not None:
        assert d.sbo == want["sbo"], (d, want)
    if d.lbo is not None:
        assert d.lbo == want["lbo"], (d, want)
    elif c["major"] == "K" and d.swizzled:
        assert want["lbo"] == 16 == d.encoded("lbo") * 16  # "assumed 1"
    if c["arch"] == "sm_100":
        assert (d.version, d.lbo_mode) == (want["ver"], want["mode"]) == (1, 0)
