"""``cuteverify trace cpp --collective`` on FlashAttention-3's forward mainloop, unmodified
(``hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp``, hdim 128, fp16, non-causal, no paging / split / softcap; the
configuration and the driver are in ``fa3_collective.py``).

The cheap tests read ``cpp/fa3_fwd_hdim128_fp16[.MUTANT].records.json``: what a real host-only capture printed
(g++ 12, nvidia-cutlass 4.2.0's headers, CUDA 13.0's) with the members and relations read from that variant's
source. The ``differential`` tests rebuild the capture from a FlashAttention checkout (``$CUTEVERIFY_FA3_SRC``,
the folder holding ``hopper/``; skipped when unset or without g++ / the headers; about 55 s uncached) and compare.
Expected values come from the source text, the spec library's hardware-probed GMMA atom and an evaluator of
printed layouts that shares no code with cuteverify (tests/oracles/strategies.py).
"""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess

import pytest
from click.testing import CliRunner

from cuteverify import hardware
from cuteverify.frontend.cli.main import main
from cuteverify.frontend.trace import cpp_build, cpp_check
from cuteverify.frontend.trace.cpp_capture import PRELUDE, include_flags
from cuteverify.frontend.trace.cpp_collective_sm90 import COND, collective_documents
from tests.frontend.trace import fa3_collective as F
from tests.oracles.strategies import ev, parse_plain

MUTANTS = {  # mutant -> the (kind, member) refuted, nothing else
    "tma_q_sw64": {("equal", "tma_load_Q")},            # the TMA of Q built over a 64-byte swizzled tile
    "pv_major_k": {("operand", "TiledMmaPV")},          # the PV MMA declares V^t K-major over its MN-major smem
    "vtmma_stage_order": {("equal", "SmemLayoutVtMma")},  # the MMA's view of smem_v tiles d first, the TMA's n
    "control_q_sw64": set(),  # a control: Q's smem swizzled by 64 bytes for its TMA and its MMA alike, no bug
}


def _rows(mutant=None):
    recs, mems, flow, _ = F.load(mutant)
    return cpp_check.run_documents(collective_documents(F.PATH, "", recs, F.TYPE, mems, flow))[0]


def _member(row):
    """The member a row is at (``... argument I `MEMBER```), else the first word of its claim."""
    return row["at"].split("`")[1] if "`" in (row["at"] or "") else row["claim"].split(" ")[0]


def _swz(x, b, m, s):
    return x ^ ((x >> s) & (((1 << b) - 1) << m))


def _by_source(mutant=None):
    recs, *_ = F.load(mutant)
    return {r.source: r for r in recs if r.index < COND}


# ------------------------------------------------------------------------------------------- what was read

def test_members_and_relations_read_from_the_source():
    recs, mems, flow, info = F.load()
    assert [e["returncode"] for e in info["entries"].values()] == [0]
    names = {m.name: m.line for m in mems}
    assert {"TiledMmaQK": 90, "TiledMmaPV": 102, "SmemLayoutQ": 129, "SmemLayoutK": 133, "SmemLayoutVt": 139,
            "SmemLayoutVtMma": 146, "SmemCopyAtomP": 175}.items() <= names.items()
    ops = {(m, op, v) for m, op, v, _, _ in flow.operands}
    assert {("TiledMmaQK", "A", "mma::sQ"), ("TiledMmaQK", "B", "mma::sK"), ("TiledMmaPV", "B", "mma::sV"),
            ("TiledMmaPV", "A", "mma::sP")} <= ops
    assert {(a, v) for a, v, _, _ in flow.tma} >= {("tma_load_Q", "load::sQ"), ("tma_load_K", "load::sK"),
                                                  ("tma_load_V", "load::sVt")}
    assert flow.smem["load::sVt"] == "SmemLayoutVt" and flow.smem["mma::sV"] == "SmemLayoutVtMma"
    # sVt's storage depends on `if constexpr (!Transpose_V)`: smem_v for fp16; the MMA reads smem_v too
    assert flow.buffers["load::sVt"] == ("cond", "!Transpose_V", "smem_v", "smem_vt")
    assert flow.buffers["mma::sV"] == "smem_v"
    assert flow.built == {"mma::smem_tiled_copy_P": ("C", "SmemCopyAtomP", "TiledMmaQK")}
    by = _by_source()
    # the configuration's atoms, as FA3's extended WGMMA shapes give them (the types state the majors)
    assert "MMA_64x176x16_F32F16F16_SS<cute::SM90::GMMA::Major::K, cute::SM90::GMMA::Major::K" in by["TiledMmaQK"].type
    assert "MMA_64x128x16_F32F16F16_RS<cute::SM90::GMMA::Major::K, cute::SM90::GMMA::Major::MN" in by["TiledMmaPV"].type
    # conditions on static members are printed; MmaPV_is_RS is a template parameter (not visible to the probe):
    # sP's storage (smem_q or smem_p) stays unknown, its layout (SmemLayoutP either way) does not depend on it
    assert {r.source: r.text for r in recs if r.index >= COND} == {"!Transpose_V": "1", "LargeHeadDimV": "0"}
    assert flow.buffers["mma::sP"] == ("cond", "MmaPV_is_RS", "smem_q", "smem_p") and "MmaPV_is_RS" not in flow.conds
    # the TMA atoms' operands, as to_underlying_arguments passes them (make_tma_copy_A_sm90 keeps M, K)
    assert by["tma_load_Q cta_v_map: ::cute::remove<1>(TileShape_MNK{})"].text == "(_128,_128):(_1@0,_1@1)"
    assert by["tma_load_V gmem: mV"].text == "(128,512,16,2):(_1,2048,128,1048576)"


def test_smem_layout_q_is_the_spec_librarys_sw128_atom():
    """SmemLayoutQ ``Sw<3,4,3> o smem_ptr[16b](unset) o L``: its byte swizzle, evaluated independently, is the
    spec library's hardware formula of GMMA::Layout_K_SW128_Atom<half_t> on the first 8x64 atom, and the byte
    address over 2 of the element form everywhere (what the operand and tma_atom claims read)."""
    rec = _by_source()["SmemLayoutQ"]
    assert rec.text.startswith("Sw<3,4,3> o smem_ptr[16b](unset) o ")
    plain = parse_plain(rec.text.split(" o ")[-1])
    spec = hardware.resolve("GMMA::Layout_K_SW128_Atom<half_t>")[0].data
    assert spec["swizzle_bytes"] == "S<3,4,3>"
    for m in range(128):
        for k in range(128):
            x = ev(plain, m + 128 * k)
            assert 2 * _swz(x, 3, 3, 3) == _swz(2 * x, 3, 4, 3)
            if m < 8 and k < 64:
                addr = m * 128 + k * 2
                assert _swz(x, 3, 3, 3) == (addr ^ (((addr >> 7) & 7) << 4)) // 2


# ----------------------------------------------------------------------------------------------- verdicts

def test_unmodified_mainloop_every_claim_proved():
    rows = _rows()
    claims = [r for r in rows if r["kind"] not in ("note", "unmapped")]
    assert claims and all(r["status"] == "proved" for r in claims), [r for r in claims if r["status"] != "proved"]
    kinds = {r["kind"] for r in claims}
    assert {"agrees", "covers", "injective", "operand", "tma_atom", "equal", "compatible", "banks", "vector"} <= kinds
    ops = {(_member(r), r["claim"].split(" reads ")[1][:1], r["claim"].split(" from ")[1].split(" ")[0])
           for r in claims if r["kind"] == "operand"}
    assert {("TiledMmaQK", "A", "mma::sQ"), ("TiledMmaQK", "B", "mma::sK"), ("TiledMmaPV", "B", "mma::sV")} <= ops
    assert {_member(r) for r in claims if r["kind"] == "tma_atom"} == \
        {"tma_load_Q", "tma_load_K", "tma_load_V", "tma_load_K_new", "tma_load_V_new"}
    stage = {_member(r) for r in claims if r["kind"] == "equal" and "stage 0 of" in r["claim"]}
    assert stage == {"tma_load_Q", "tma_load_K", "tma_load_V", "tma_load_K_new", "tma_load_V_new"}
    assert {_member(r) for r in claims if r["kind"] == "injective"} >= {"SmemLayoutQ", "SmemLayoutK", "SmemLayoutVt",
                                                                       "SmemLayoutVtMma", "SmemLayoutP"}
    # the one unknown: a copy atom outside cuteverify's library; P of the RS PV MMA is registers (a note)
    unknown = [r for r in rows if r["status"] == "unknown"]
    assert [_member(r) for r in unknown if "`" in r["at"]] == ["GmemTiledCopyAppendKV"]
    # Qv's atom (HasQv is false: a nullptr) is returned from a lambda in to_underlying_arguments: not printed
    assert [r["claim"].split(" ")[0] for r in unknown if "`" not in r["at"]] == ["tma_load_Qv"]
    rs = [r for r in rows if r["kind"] == "note" and "registers (an _RS atom)" in r["reason"]]
    assert {_member(r) for r in rs} == {"TiledMmaPV"} and len(rs) == 2  # mma() and mma_pv()
    recs, *_ = F.load()
    assert {int(r["at"].split(" argument ")[1].split(" ")[0]) for r in rows if " argument " in (r["at"] or "")} == \
        {r.index for r in recs if r.index < 1000}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_refuted_at_the_member_it_breaks(mutant):
    rows = _rows(mutant)
    bad = {(r["kind"], _member(r)) for r in rows if r["status"] not in ("proved", "n/a", "unknown")}
    assert bad == MUTANTS[mutant]
    assert all(r["status"] == "refuted" for r in rows if (r["kind"], _member(r)) in MUTANTS[mutant]
               and r["status"] not in ("proved", "n/a"))


def test_control_changes_the_layouts_but_keeps_them_consistent():
    """The control mutant changes what the claims read (a 64-byte swizzle, a 32-element TMA box) and all prove."""
    by = _by_source("control_q_sw64")
    assert by["SmemLayoutQ"].text == "Sw<2,4,3> o smem_ptr[16b](unset) o ((_8,_16),(_32,_4)):((_32,_256),(_1,_4096))"
    assert by["tma_load_Q gbasis: TmaGmemBasis"].text.startswith("(_32,_128,")
    assert _by_source()["tma_load_Q gbasis: TmaGmemBasis"].text.startswith("(_64,_128,")


def test_mutants_differ_where_the_claims_say_counted_independently():
    """Each refutation confirmed with the independent evaluator of printed layouts (no cuteverify code)."""
    # tma_q_sw64: the TMA's smem tile and stage 0 of sQ put element (1, 8) at different byte addresses
    by = _by_source("tma_q_sw64")
    tma = by["tma_load_Q smem: SmemLayoutQSw64{}"].text
    assert tma.startswith("Sw<2,4,3> o ") and by["SmemLayoutQ"].text.startswith("Sw<3,4,3> o ")
    p64, p128 = parse_plain(tma.split(" o ")[-1]), parse_plain(by["SmemLayoutQ"].text.split(" o ")[-1])
    addr = lambda p, b, m, k: _swz(2 * ev(p, m + 128 * k), b, 4, 3)  # noqa: E731
    assert addr(p64, 2, 1, 8) != addr(p128, 3, 1, 8)
    # vtmma_stage_order: the TMA writes smem_v through SmemLayoutVt, the MMA reads it through SmemLayoutVtMma;
    # their unswizzled parts already send (d, n) = (64, 0) to different offsets (11264 and 512)
    by = _by_source("vtmma_stage_order")
    vt, vm = (parse_plain(by[n].text.split(" o ")[-1]) for n in ("SmemLayoutVt", "SmemLayoutVtMma"))
    assert ev(vt, 64) == 11264 and ev(vm, 64) == 512
    orig = _by_source()
    assert orig["SmemLayoutVt"].text == orig["SmemLayoutVtMma"].text  # unmodified: one layout
    # pv_major_k: the MMA's type says B is K-major, while V^t's smem (unchanged) is contiguous along N = d
    by = _by_source("pv_major_k")
    assert "Major::K, cute::SM90::GMMA::Major::K" in by["TiledMmaPV"].type
    vm = parse_plain(by["SmemLayoutVtMma"].text.split(" o ")[-1])
    assert [ev(vm, d) for d in range(4)] == [0, 1, 2, 3]


# ------------------------------------------------------------------------------ the capture, end to end

SRC = os.environ.get("CUTEVERIFY_FA3_SRC")
needs_fa3 = pytest.mark.skipif(not SRC or cpp_build.toolchain() is None,
                               reason="CUTEVERIFY_FA3_SRC is unset, or g++ / the CUTLASS / CUDA headers are missing")


def _key(recs):
    return [(r.at, r.index, r.source, r.type, r.text) for r in recs]


@pytest.mark.differential
@needs_fa3
@pytest.mark.parametrize("mutant", [None, "vtmma_stage_order"])
def test_capture_prints_what_the_fixture_holds(tmp_path, mutant):
    recs, info, mems, _, flow = F.capture(F.variant_root(SRC, mutant, str(tmp_path)))
    fixture, fmems, fflow, _ = F.load(mutant)
    assert info["entries"][F.TYPE]["returncode"] == 0
    assert _key(recs) == _key(fixture) and mems == fmems and flow == fflow


@pytest.mark.differential
@needs_fa3
def test_cli_collective(tmp_path, monkeypatch):
    root = F.variant_root(SRC, None, str(tmp_path))
    monkeypatch.chdir(root)
    args = ["trace", "cpp", F.PATH, "--collective", F.TYPE, "--host-args", F.HOST_ARGS, "--json"]
    args += [x for h in F.INCLUDE_FIRST for x in ("--include-first", h)]
    args += [x for d in F.DEFINES for x in ("-D", d)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 3, res.output[-2000:]  # every claim proved, two unknowns
    out = json.loads(res.output)
    rows = out["results"]
    assert not [r for r in rows if r["status"] == "refuted"]
    assert sorted(r["at"].split("`")[1] if "`" in r["at"] else r["claim"].split(" ")[0]
                  for r in rows if r["status"] == "unknown") == ["GmemTiledCopyAppendKV", "tma_load_Qv"]


# FlashAttention-3's own dispatch, built host-only: run_mha_fwd_<90, half_t, 128, 128, ...> of
# instantiations/flash_fwd_hdim128_fp16_sm90.cu with a problem of 3 M tiles (odd: ClusterM = 1), its launch
# (cutlass::kernel_launch, stubbed in cpp/fa3_stubs: CUTLASS's own writes `<<<`) handing over the kernel type and
# the Params the real to_underlying_arguments built. The device kernel body is not compiled (flash::enable_sm90
# calls it under __CUDA_ARCH__ only); the host functions the dispatch calls are defined as successes.
_DISPATCH = r"""
#include <cstdio>
#include <type_traits>
#include "instantiations/flash_fwd_hdim128_fp16_sm90.cu"
extern "C" cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
extern "C" cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { return cudaSuccess; }
extern "C" cudaError_t cudaGetLastError() { return cudaSuccess; }
namespace cuteverify_capture {
template <class T> void one(const char*, int, const char*, const char*, T const&) {}
}
template <class A, class L, class T> A const& cv_atom_of(cute::TiledCopy<A, L, T> const& t) { return t; }
template <class GemmKernel, class Params> void cv_on_launch(Params const& params) {
  std::printf("@@same %d\n", int(std::is_same_v<typename GemmKernel::CollectiveMainloop, @TYPE@>));
  auto const& m = params.mainloop;
  std::printf("@@tma_load_Q\n"); cute::print(cv_atom_of(m.tma_load_Q));
  std::printf("\n@@tma_load_K\n"); cute::print(cv_atom_of(m.tma_load_K));
  std::printf("\n@@tma_load_V\n"); cute::print(cv_atom_of(m.tma_load_V));
  std::printf("\n@@end\n");
}
int main() {
  Flash_fwd_params p{};
  p.b = 2; p.b_k = 2; p.h = 16; p.h_k = 16; p.d = 128; p.dv = 128; p.seqlen_q = 384; p.seqlen_k = 512;
  p.q_row_stride = p.k_row_stride = p.v_row_stride = p.o_row_stride = 2048;
  p.q_head_stride = p.k_head_stride = p.v_head_stride = p.o_head_stride = 128;
  p.q_batch_stride = p.o_batch_stride = 384 * 2048; p.k_batch_stride = p.v_batch_stride = 512 * 2048;
  p.v_dim_stride = 1; p.num_splits = 1; p.num_sm = 132; p.window_size_left = p.window_size_right = -1;
  p.scale_softmax = 0.088f;
  run_mha_fwd_<90, cutlass::half_t, 128, 128, false, false, false, false>(p, nullptr);
}
"""


@pytest.mark.differential
@needs_fa3
def test_fa3_dispatch_launches_this_configuration_with_these_atoms(tmp_path):
    """The configuration is the one FlashAttention-3's dispatch launches for such a call (the compiler's
    is_same of the launched kernel's CollectiveMainloop with TYPE), and the TMA atoms its real host path built are
    those the --collective probe printed."""
    stubs = str(F.HERE / "fa3_stubs")
    unit = PRELUDE + _DISPATCH.replace("@TYPE@", F.TYPE)
    flags = [*cpp_build.CXXFLAGS, "-fpermissive", "-no-pie", "-ffunction-sections", "-fdata-sections",
             "-Wl,--gc-sections", "-Wl,--unresolved-symbols=ignore-all"]
    incs = [f"-I{stubs}"] + include_flags(os.path.join(SRC, "hopper", "flash.h"), (), F.DEFINES)
    c = cpp_build.compile_cpp(unit, str(tmp_path / "d.cpp"), str(tmp_path / "d"), flags=flags, includes=incs,
                              timeout=900)
    assert c.returncode == 0, c.stderr[-3000:]
    out = subprocess.run([c.out], capture_output=True, text=True, timeout=60, check=True).stdout
    assert "@@same 1" in out
    by = _by_source()
    for atom in ("tma_load_Q", "tma_load_K", "tma_load_V"):
        printed = out.split(f"@@{atom}\n")[1].split("\n@@")[0].strip()
        assert printed == by[atom].text.strip(), atom


def test_rs_atom_spellings_read_a_from_registers():
    """An RS atom's A is registers whatever its spelling (fp16 ``..._RS<``, fp8 ``..._RS_TN<``): a note, never an
    operand claim (which would be inadmissible: no descriptor)."""
    recs, mems, flow, _ = F.load()
    renamed = [dataclasses.replace(r, type=r.type.replace("F32F16F16_RS<", "F32F16F16_RS_TN<"))
               if r.source == "TiledMmaPV" else r for r in recs]
    for rs in (recs, renamed):
        rows = cpp_check.run_documents(collective_documents(F.PATH, "", rs, F.TYPE, mems, flow))[0]
        assert not [r for r in rows if r["kind"] == "operand" and " reads A from " in r["claim"]
                    and _member(r) == "TiledMmaPV"]
        assert len([r for r in rows if r["kind"] == "note" and "registers (an _RS atom)" in r["reason"]]) == 2
