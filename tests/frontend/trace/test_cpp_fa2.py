"""``cuteverify trace cpp`` on FlashAttention-2's forward kernel (``csrc/flash_attn/src``, Dao-AILab/flash-attention
0251105a, unmodified), hdim 64 and 128, fp16, SM80: the launch in ``flash_fwd_launch_template.h`` (an included
header), the layouts as type members of ``Kernel_traits`` (printed at the launch), the relations read in
``compute_attn_1rowblock`` (flash_fwd_kernel.h).

The records under ``cpp/fa2_*.records.json`` come from ``fa2_driver.py`` (a real host-only capture, original and
mutants). Tests that only read records run everywhere; those that build documents read FA2's kernel body from the
checkout named by ``$CUTEVERIFY_FA2_SRC`` (skipped when unset); the differential test compiles (g++, about a
minute uncached) and compares with the committed records. The small synthetic sources of the first tests check the
header and traits readers without FlashAttention.
"""
from __future__ import annotations

import collections
import json
import os
import re
from pathlib import Path

import pytest

from cuteverify.frontend.trace import cpp_build, cpp_capture, cpp_check, cpp_headers, cpp_traits
from cuteverify.frontend.trace.cpp_capture import Record
from tests.frontend.trace import fa2_driver as drv
from tests.oracles.strategies import ev, parse_plain

MEMBERS = ["SmemLayoutQ", "SmemLayoutKV", "SmemLayoutVtransposed", "SmemLayoutVtransposedNoSwizzle", "SmemLayoutO",
           "GmemTiledCopyO", "GmemTiledCopyQKV", "TiledMma", "SmemCopyAtom", "SmemCopyAtomTransposed", "SmemCopyAtomO"]
BUILT = ["smem_tiled_copy_K", "smem_tiled_copy_O", "smem_tiled_copy_Q", "smem_tiled_copy_V"]
# Kernel_traits<kHeadDim, kBlockM, kBlockN, 4> per (config, entry): dropout (value-initialised), inference
BLOCKS = {"hdim64": [(128, 64), (128, 128)], "hdim128": [(128, 32), (128, 64)]}


def _load(config, mutant=None) -> dict:
    return json.loads(drv.records_path(config, mutant).read_text())


def _by_entry(data) -> list:
    out = collections.defaultdict(dict)
    for r in data["records"]:
        out[r["entry"]][r["source"]] = r
    return [out[e] for e in data["entries"]]


# ------------------------------------------------------------------------------ readers on synthetic sources

_LAUNCH_H = """#pragma once
#define DEFINE_K(name, ...) \\
template<typename P, __VA_ARGS__> \\
__global__ void name(const Params params)
DEFINE_K(kern, bool B) {
    go<P, B>(params);
}
template<typename P> void run(Params& params) {
    auto kernel = &kern<P, true>;
    kernel<<<1, 128, 0, 0>>>(params);
}
"""
_BODY_H = """#pragma once
template<typename T, bool B, typename Params>
inline __device__ void go(const Params &params) {
    Tensor sA = make_tensor(make_smem_ptr(p), typename T::SmemLayoutA{});
    Tensor sB = make_tensor(sA.data() + size(sA), typename T::SmemLayoutB{});
    typename T::GmemCopy gcopy;
    auto gthr = gcopy.get_thread_slice(tidx);
    Tensor tAsA = gthr.partition_D(sA);
    Tensor tAgA = gthr.partition_S(gA);
    typename T::Mma mma;
    auto s2r = make_tiled_copy_B(typename T::Atom{}, mma);
    auto s2r_thr = s2r.get_thread_slice(tidx);
    Tensor tBsB = s2r_thr.partition_S(sB);
}
"""
_TRAITS_H = """#pragma once
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
using Op = SM80;
#else
using Op = SM75;
#endif
"""


def _synthetic(tmp_path) -> tuple:
    (tmp_path / "launch.h").write_text(_LAUNCH_H)
    (tmp_path / "body.h").write_text(_BODY_H)
    (tmp_path / "traits.h").write_text(_TRAITS_H)
    src = tmp_path / "k.cu"
    src.write_text('#include "launch.h"\n#include "body.h"\n#include "traits.h"\n#include <cute/tensor.hpp>\n')
    return str(src), src.read_text()


def test_user_headers_and_the_launch_header(tmp_path):
    src, text = _synthetic(tmp_path)
    hs = cpp_headers.user_headers(src, text)
    assert [Path(p).name for p in hs] == ["launch.h", "body.h", "traits.h"]  # quote includes only, in order
    found = cpp_headers.launch_headers(src, hs, cpp_capture.find_launches)
    (p, launches), = found.items()
    assert Path(p).name == "launch.h" and [la.line for la, _, _ in launches] == [10]


def test_device_pass_only_for_type_only_headers():
    assert cpp_headers.device_pass(_TRAITS_H).count("CUTEVERIFY_DEVICE_ARCH") == 2
    assert cpp_headers.device_pass(_BODY_H) is None          # no __CUDA_ARCH__ test
    assert cpp_headers.device_pass(_TRAITS_H + "__device__ void f() {}\n") is None  # device code: host pass kept


def test_mirror_writes_every_user_header_with_the_launch_rewritten(tmp_path):
    src, text = _synthetic(tmp_path)
    hs = cpp_headers.user_headers(src, text)
    work = tmp_path / "work"
    launches, written, flags = cpp_headers.mirror(src, hs, str(work), lambda t, p: t.replace("<<<", "@@@"),
                                                  cpp_capture.find_launches)
    assert len(launches) == 1 and len(written) == 3 and flags == [f"-I{tmp_path}"]
    assert "@@@" in (work / "launch.h").read_text() and '#line 1 "' in (work / "body.h").read_text()
    head = "#ifndef CUTEVERIFY_DEVICE_ARCH\n#define CUTEVERIFY_DEVICE_ARCH 800"
    assert (work / "traits.h").read_text().startswith(head)


def test_macro_kernel_and_the_call_chain(tmp_path):
    src, text = _synthetic(tmp_path)
    sources = {src: text, **cpp_headers.user_headers(src, text)}
    path, params, _, line = cpp_traits.find_kernel(sources, "kern")
    assert Path(path).name == "launch.h" and params == ["P", "B"] and line == 5
    lh = [p for p in sources if p.endswith("launch.h")][0]
    (la, a, _), = cpp_capture.find_launches(sources[lh], lh)
    f = cpp_traits.traits_flow(sources, "kern", la.kernel, sources[lh], a)
    assert (f.targ, f.targ_text) == (0, "P") and [fn[0] for fn in f.functions] == ["kern", "go"]
    assert f.members == ["SmemLayoutA", "SmemLayoutB", "GmemCopy", "Mma", "Atom"]
    assert {t: m for t, (m, *_) in f.smem.items()} == {"sA": "SmemLayoutA", "sB": "SmemLayoutB"}
    assert f.built["s2r"][:3] == ("B", "Atom", "mma")
    assert [(c, s, t) for c, s, t, *_ in f.accesses] == [("gcopy", "dst", "sA"), ("s2r", "src", "sB")]
    assert [(c, t) for c, _, t, *_ in f.others] == [("gcopy", "gA")]
    calls = cpp_traits.capture_calls(f, '"at"', '"k"', lambda s: f'"{s}"')
    assert 'typename P::SmemLayoutA{}' in calls and "make_tiled_copy_B(typename P::Atom{}, typename P::Mma{})" in calls


# ------------------------------------------------------------------------------------------ the records

@pytest.mark.parametrize("config", list(drv.CONFIGS))
def test_every_type_member_printed_in_the_device_pass(config):
    data = _load(config)
    assert all(e["returncode"] == 0 and e["records"] == 16 for e in data["info"]["entries"].values())
    for recs in _by_entry(data):
        assert set(recs) == {"params"} | {f"Kernel_traits::{m}" for m in MEMBERS} | set(BUILT)
        at = {r["at"] for r in recs.values()}
        assert at == {"csrc/flash_attn/src/flash_fwd_launch_template.h:91"}  # the launch, in the header
        # kernel_traits.h under __CUDA_ARCH__ >= 800 (the device pass), not the host fallbacks SM75 / DefaultCopy
        assert "SM80_16x8x16_F32F16F16F32_TN" in recs["Kernel_traits::TiledMma"]["type"]
        assert "SM75_U32x4_LDSM_N" in recs["Kernel_traits::SmemCopyAtom"]["type"]
        assert "SM75_U16x8_LDSM_T" in recs["Kernel_traits::SmemCopyAtomTransposed"]["type"]
        assert "SM80_CP_ASYNC_CACHEGLOBAL" in recs["Kernel_traits::GmemTiledCopyQKV"]["type"]


def _swizzled(text):
    """(B, M, S, plain layout) of a printed ``Sw<B,M,S> o _0 o L`` (a plain layout: no swizzle, B = 0)."""
    m = re.fullmatch(r"Sw<(\d+),(\d+),(\d+)> o _0 o (.+)", text.strip())
    if m is None:
        return 0, 0, 0, parse_plain(text)
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), parse_plain(m.group(4))


@pytest.mark.parametrize("config", list(drv.CONFIGS))
def test_smem_layouts_per_entry_independently(config):
    """Each entry's Kernel_traits is the one run_mha_fwd_hdimN picks (value-initialised params: dropout; the
    inference call: none), and the Q / KV layouts are injective: evaluated here, sharing no code with cuteverify."""
    hdim = drv.CONFIGS[config]
    for recs, (bm, bn) in zip(_by_entry(_load(config)), BLOCKS[config]):
        for member, rows in (("SmemLayoutQ", bm), ("SmemLayoutKV", bn)):
            b, m, s, lay = _swizzled(recs[f"Kernel_traits::{member}"]["text"])
            assert (b, m, s) == (3, 3, 3)
            offs = set()
            for i in range(rows * hdim):
                o = ev(lay, i)
                offs.add(o ^ (((o >> (m + s)) & ((1 << b) - 1)) << m))
            assert offs == set(range(rows * hdim)), member


def _ldsm_worst(text, rows, hdim) -> int:
    """The worst bank multiplicity of one ldmatrix 8x8 matrix (rows r0..r0+7 at a column multiple of 8; each row's
    16 bytes are 4 banks) over a printed ``(rows, hdim)`` smem layout of half_t: an independent count."""
    b, m, s, lay = _swizzled(text)
    worst = 0
    for col in range(0, hdim, 8):
        for r0 in range(0, rows, 8):
            banks = collections.Counter()
            for r in range(r0, r0 + 8):
                o = ev(lay, r + rows * col)  # (r, col): colexicographic over (rows, hdim)
                o ^= ((o >> (m + s)) & ((1 << b) - 1)) << m
                for k in range(4):
                    banks[(o * 2 // 4 + k) % 32] += 1
            worst = max(worst, max(banks.values()))
    return worst


@pytest.mark.parametrize("config", list(drv.CONFIGS))
def test_ldmatrix_bank_count_of_original_and_unswizzled(config):
    """The count behind the smem_no_swizzle mutant's refuted banks claims: 8-way without the swizzle, none with."""
    hdim = drv.CONFIGS[config]
    for mutant, want in ((None, 1), ("smem_no_swizzle", 8)):
        for recs, (bm, _) in zip(_by_entry(_load(config, mutant)), BLOCKS[config]):
            assert _ldsm_worst(recs["Kernel_traits::SmemLayoutQ"]["text"], bm, hdim) == want, mutant


# ------------------------------------------------------------------------------- documents (FA2's source)

ROOT = drv.fa2_root()
needs_src = pytest.mark.skipif(ROOT is None, reason="set CUTEVERIFY_FA2_SRC to a FlashAttention checkout")


def _rows(config, mutant=None):
    results, _ = cpp_check.run_documents(drv.documents(ROOT, _load(config, mutant)))
    return [r for r in results if r["kernel"].startswith("flash_fwd_kernel_91")]


_UNKNOWN_OK = ("argument 0 `params`", "GmemTiledCopyO", "SmemCopyAtomO")


@needs_src
@pytest.mark.parametrize("config", list(drv.CONFIGS))
def test_original_is_clean(config):
    rows = _rows(config)
    by = collections.Counter((r["kernel"], r["status"]) for r in rows)
    for kernel in {r["kernel"] for r in rows}:
        assert by[(kernel, "proved")] == 63 and by[(kernel, "unknown")] == 5 and by[(kernel, "refuted")] == 0
    for r in rows:
        if r["status"] == "unknown":  # the params struct and the AutoVectorizingCopy atoms (not in the library)
            assert any(k in r["at"] for k in _UNKNOWN_OK), r
        if r["kind"] in ("banks", "vector", "compatible"):  # at the body line stating the relation
            assert r["at"].startswith("csrc/flash_attn/src/flash_fwd_kernel.h:") and "Kernel_traits`: " in r["at"]
        elif r["kind"] in ("injective", "agrees", "covers"):  # at the launch, naming the type member
            assert r["at"].startswith("csrc/flash_attn/src/flash_fwd_launch_template.h:91: flash_fwd_kernel "
                                      "template argument 0 `Kernel_traits`: ")
    kinds = collections.Counter(r["kind"] for r in rows if r["status"] == "proved")
    assert kinds["banks"] == kinds["vector"] == 2 * 6 and kinds["compatible"] == 2 * 3 and kinds["injective"] == 2 * 5


# the mutant -> the (kind, member text in `at`) of every refuted row
EXPECT = {"smem_no_swizzle": {("banks", "SmemCopyAtom, SmemLayoutQ"), ("banks", "SmemCopyAtom, SmemLayoutKV"),
                              ("banks", "SmemCopyAtomTransposed, SmemLayoutVtransposed")},
          # cp.async writes 8 values down a column: no 16-byte run, and 16-byte accesses 8 rows apart conflict
          "gmem_vals_down_rows": {("vector", "GmemTiledCopyQKV, SmemLayoutQ"),
                                  ("banks", "GmemTiledCopyQKV, SmemLayoutQ"),
                                  ("vector", "GmemTiledCopyQKV, SmemLayoutKV"),
                                  ("banks", "GmemTiledCopyQKV, SmemLayoutKV")},
          "ldsm_n_for_vt": {("vector", "SmemCopyAtomTransposed, SmemLayoutVtransposed"),
                            ("banks", "SmemCopyAtomTransposed, SmemLayoutVtransposed")}}


def _where(r) -> tuple:
    return r["kind"], r["at"].split("`Kernel_traits`: ", 1)[1].split(" (", 1)[0]


@needs_src
@pytest.mark.parametrize("config", list(drv.CONFIGS))
@pytest.mark.parametrize("mutant", list(drv.MUTANTS))
def test_mutant_refuted_at_its_type_member(config, mutant):
    rows = _rows(config, mutant)
    refuted = {_where(r) for r in rows if r["status"] == "refuted"}
    assert refuted and refuted <= EXPECT[mutant], refuted
    # a claim the mutant makes inadmissible (the 128-row copy tile over a 64- or 32-row KV tile) is at the same place
    assert {_where(r) for r in rows if r["status"] == "error"} <= EXPECT[mutant]
    original = {(r["kernel"][:40], r["kind"], r["at"]) for r in _rows(config) if r["status"] == "proved"}
    for r in rows:
        if r["status"] == "refuted":  # the original proves the same claim at the same place
            assert (r["kernel"][:40], r["kind"], r["at"]) in original


@pytest.mark.differential
@needs_src
def test_capture_reproduces_the_committed_records():
    if cpp_build.toolchain() is None:
        pytest.skip("g++ / CUTLASS / CUDA headers missing")
    data = drv.capture(ROOT, "hdim64")
    want = _load("hdim64")
    assert [(r["source"], r["type"], r["text"]) for r in data["records"]] == \
        [(r["source"], r["type"], r["text"]) for r in want["records"]]
    rows, _ = cpp_check.run_documents(drv.documents(ROOT, data))
    assert not any(r["status"] == "refuted" for r in rows)
    assert os.path.isfile(drv.STUBS / "c10" / "cuda" / "CUDAException.h") and Record
