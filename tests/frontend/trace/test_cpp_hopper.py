"""``cuteverify trace cpp`` on CUTLASS's Hopper tutorials, unmodified, as the nvidia-cutlass wheel ships them
(``examples/cute/tutorial/hopper/wgmma_sm90.cu``, ``wgmma_tma_sm90.cu``; the tests skip without the wheel):
``launch_kernel_on_cluster`` launches, GMMA smem layouts (``smem_ptr_flag``), wgmma ``operand`` claims, TMA atoms.

The cheap tests read ``cpp/wgmma_sm90.records.json`` / ``cpp/wgmma_tma_sm90.records.json``: the records a real
host-only capture printed (g++ 12, nvidia-cutlass 4.2.0's headers, CUDA 13.0's). The ``differential`` tests build
the captures with g++ (about 15-25 s per translation unit, cached by content; skipped without g++ / the headers),
compare them with the fixtures and refute mutants of edited copies at the argument they break. Expected values
come from the source text, the spec library's hardware-probed atoms and an evaluator of printed layouts that
shares no code with cuteverify (tests/oracles/strategies.py).
"""
from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify import hardware
from cuteverify.errors import CuteVerifyError
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.frontend.trace import cpp_build, cpp_capture, cpp_check, cpp_flow, cpp_flow_sm90
from cuteverify.frontend.trace.cpp_batch import Unit
from cuteverify.frontend.trace.cpp_capture import Record
from cuteverify.frontend.trace.cpp_emit_sm90 import flagged_smem_text, gmem_symbols, tma_smem_text
from cuteverify.frontend.trace.cpp_launch import kernel_expr
from tests.oracles.strategies import ev, parse_plain

HERE = Path(__file__).parent / "cpp"
cutlass_library = pytest.importorskip("cutlass_library")
ROOT = Path(cutlass_library.__file__).parent / "source"
WG, TMA = "examples/cute/tutorial/hopper/wgmma_sm90.cu", "examples/cute/tutorial/hopper/wgmma_tma_sm90.cu"
if not (ROOT / WG).is_file() or not (ROOT / TMA).is_file():
    pytest.skip("the nvidia-cutlass wheel has no Hopper tutorials", allow_module_level=True)
H = "cute::half_t"
WG_ENTRIES = [f"gemm_tn<{H}, {H}, {H}, {H}, {H}>", f"gemm_nt<{H}, {H}, {H}, {H}, {H}>"]
# make_tma_atom asserts on the host that extents are >= 1 and strides 16-byte multiples: these entries are calls
# with such values (any others that the host accepts give the same printed static objects)
TMA_ENTRIES = [f"gemm_{t}<{H}, {H}, {H}, {H}, {H}>(256, 256, 128, {{}}, nullptr, {ld}, nullptr, {ld}, {{}}, nullptr, 256)"
               for t, ld in (("tn", 128), ("nt", 256))]


def _fixture(name):
    data = json.loads((HERE / f"{name}.records.json").read_text())
    return [Record(**r) for r in data["records"]], data["info"]


def _rows(path, records, info, text=None):
    docs = cpp_check.documents(path, text if text is not None else (ROOT / path).read_text(), records, info)
    return cpp_check.run_documents(docs)[0]


def _arg(row):
    m = re.search(r"argument (\d+) ", row.get("at") or "")
    return int(m.group(1)) if m else None


# ------------------------------------------------------------------------------------------- the rewrite

@pytest.mark.parametrize("path,lines,nargs", [(WG, [369, 463], 15), (TMA, [332, 414], 11)])
def test_cluster_launches_found_and_rewritten_in_place(path, lines, nargs):
    text = (ROOT / path).read_text()
    found = cpp_capture.find_launches(text, path)
    assert [la.line for la, _, _ in found] == lines == \
        [i + 1 for i, ln in enumerate(text.splitlines()) if "launch_kernel_on_cluster(" in ln]
    for la, start, _ in found:
        assert la.value == "::cutlass::Status::kSuccess" and la.kernel == "kernel_ptr" and len(la.args) == nargs
        assert la.args[:2] == ("prob_shape", "cta_tiler") and la.args[-1] == "beta"
        # both spellings of the kernel pointer (`auto* k = &f<...>`, `void const* k = reinterpret_cast<...>(&f<...>)`)
        assert cpp_flow.kernel_flow(text, la.kernel, start).kernel == "gemm_device"
    unit, _ = cpp_capture.rewrite(text, path, [WG_ENTRIES[0]])
    body = unit.split(f'#line 1 "{path}"\n', 1)[1].splitlines()
    spans = {n for la, s, e in found for n in range(la.line, la.line + text.count("\n", s, e) + 1)}
    for n, line in enumerate(text.splitlines(), 1):
        if n not in spans and "int main(" not in line:
            assert body[n - 1] == line, n
    for line in lines:
        assert body[line - 1].startswith("  cutlass::Status status = ([&]() {")
        assert "return ::cutlass::Status::kSuccess; }())" in body[line - 1]
    assert "launch_kernel_on_cluster(" not in "\n".join(body)


def test_kernel_pointer_casts_and_call_entries():
    assert kernel_expr("(void const*) kernel_ptr") == "kernel_ptr"
    assert kernel_expr("reinterpret_cast<void const*>(&k<int>)") == "k<int>"
    unit, _ = cpp_capture.rewrite((ROOT / TMA).read_text(), TMA, TMA_ENTRIES[:1] + ["gemm_nt<float, float, float, float, float>"])
    assert f"case 0: {TMA_ENTRIES[0]}; break;" in unit
    assert "case 1: ::cuteverify_capture::call(&gemm_nt<float, float, float, float, float>); break;" in unit


def test_sm90_kernel_body_relations():
    text = (ROOT / WG).read_text()
    la, start, _ = cpp_capture.find_launches(text, WG)[1]
    flow = cpp_flow.kernel_flow(text, la.kernel, start)
    f = cpp_flow_sm90.sm90_flow(text, flow)
    assert f.smem == {"sA": ("arg", 4), "sB": ("arg", 8)} and f.aliases == {"sA_": "sA", "sB_": "sB"}
    assert [(i, op, t, line) for i, op, t, line, _ in f.operands] == [(12, "A", "sA", 163), (12, "B", "sB", 164)]
    cpp_flow_sm90.resolve_accesses(flow, f)
    assert {(c, s, i) for c, s, i, _, _ in flow.accesses} == {(5, "dst", 4), (9, "dst", 8)}
    text = (ROOT / TMA).read_text()
    la, start, _ = cpp_capture.find_launches(text, TMA)[1]
    flow = cpp_flow.kernel_flow(text, la.kernel, start)
    f = cpp_flow_sm90.sm90_flow(text, flow)
    assert f.tparams[3] == "SmemLayoutA" and f.smem == {"sA": ("tparam", 3), "sB": ("tparam", 6)}
    assert [(i, t, line) for i, t, line, _ in f.tma] == [(3, "sA", 128), (5, "sB", 131)]
    assert cpp_flow_sm90.template_prints(text, flow, la.kernel, start) == [
        (2503, "SmemLayoutA = decltype(sA)", "sA"), (2506, "SmemLayoutB = decltype(sB)", "sB")]


# --------------------------------------------------------------------------- GMMA smem layouts in elements

def _swz(x, b, m, s):
    return x ^ ((x >> s) & (((1 << b) - 1) << m))


def test_flagged_gmma_layout_is_the_spec_librarys_atom():
    """The captured sA of the TN launch, ``Sw<3,4,3> o smem_ptr[16b](unset) o L``: its swizzle acts on bytes. Its
    element form, evaluated independently, is the byte address over 2 at every coordinate, and on the first 8x64
    atom it is the hardware-probed GMMA::Layout_K_SW128_Atom<half_t> of the spec library (its `offset` formula)."""
    records, _ = _fixture("wgmma_sm90")
    rec = next(r for r in records if r.at.endswith(":463") and r.index == 4)
    assert "smem_ptr_flag_bits<16>" in rec.type and rec.text.startswith("Sw<3,4,3> o smem_ptr[16b](unset) o ")
    low = flagged_smem_text(rec.text, rec.type)
    assert low.startswith("S<3,3,3> o 0 o ")
    plain = parse_plain(rec.text.split(" o ")[-1])
    spec = hardware.resolve("GMMA::Layout_K_SW128_Atom<half_t>")[0].data
    assert spec["swizzle_bytes"] == "S<3,4,3>" and spec["layout"].startswith("S<3,3,3> o 0 o ")
    for m in range(128):
        for k in range(64):
            x = ev(plain, m + 128 * k)                       # (m, k, stage 0): colex index into (128, 64, 3)
            assert 2 * _swz(x, 3, 3, 3) == _swz(2 * x, 3, 4, 3)
            if m < 8:
                row, col = m, k
                addr = row * 128 + col * 2                   # the spec's helper, then its offset formula
                assert _swz(x, 3, 3, 3) == (addr ^ (((addr >> 7) & 7) << 4)) // 2
    with pytest.raises(CuteVerifyError, match="smem_ptr_flag_bits<8>"):
        flagged_smem_text(rec.text, "cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<8>, X>")
    with pytest.raises(CuteVerifyError, match="no element-domain form"):
        flagged_smem_text("Sw<3,0,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)")
    # a TMA atom's smem operand (a slice: CuTe drops the flag) is read by get_tma_swizzle_bits as bytes
    assert tma_smem_text("Sw<3,4,3> o _0 o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))", "", 16) == \
        "S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))"
    assert gmem_symbols("(256,128):(128,_1)", "tmaA", 8) == "(?tmaA_shape0,?tmaA_shape1):(?tmaA_stride0{div=8},1)"


# ----------------------------------------------------------------------------------- documents, verdicts

@pytest.mark.parametrize("name,path,nargs,kinds", [
    ("wgmma_sm90", WG, 15, {"agrees", "covers", "injective", "banks", "vector", "operand", "equal"}),
    ("wgmma_tma_sm90", TMA, 11, {"agrees", "covers", "injective", "operand", "tma_atom", "equal"})])
def test_every_argument_covered_and_proved(name, path, nargs, kinds):
    rows = _rows(path, *_fixture(name))
    claims = [r for r in rows if r["kind"] not in ("note", "unmapped")]
    assert claims and all(r["status"] == "proved" for r in claims), [r for r in claims if r["status"] != "proved"]
    # the only unknowns: wgmma_sm90's cp.async reads of gA / gB, 16-byte vectors only where 8 | ldA (cpp_gmem)
    unmapped = [r for r in rows if r["kind"] == "unmapped"]
    assert all("8 | ld" in r["reason"] for r in unmapped) and len(unmapped) == (4 if name == "wgmma_sm90" else 0)
    for kernel in {r["kernel"] for r in rows}:
        mine = [r for r in rows if r["kernel"] == kernel]
        assert kinds <= {r["kind"] for r in mine if r["kind"] not in ("note", "unmapped")}
        assert {_arg(r) for r in mine} - {None} == set(range(nargs))
        ops = {(r["at"].split("`")[1], r["claim"].split(" reads ")[1][:8]) for r in mine if r["kind"] == "operand"}
        assert ops == {("tiled_mma", "A from s"), ("tiled_mma", "B from s")}
    if name == "wgmma_tma_sm90":
        tma = {(r["kernel"], r["at"].split("`")[1]) for r in rows if r["kind"] == "tma_atom"}
        assert tma == {(k, a) for k in ("gemm_device_332", "gemm_device_414") for a in ("tmaA", "tmaB")}
        stage = [r for r in rows if r["kind"] == "equal" and "stage 0 of" in r["claim"]]
        assert len(stage) == 4
        assert any("template argument 3 `SmemLayoutA = decltype(sA)`" in r["at"] for r in rows if r["kind"] == "injective")


def _gmem_obligation(r) -> bool:
    """A row of cpp_gmem's unknowns: a gmem copy's vectors hold only where ``8 | ldA`` (no source states it)."""
    return r["kind"] == "unmapped" and "8 | ld" in (r.get("reason") or "")


def _mutate(records, at, index, old, new, field="text"):
    out, hit = [], 0
    for r in records:
        if r.at.endswith(at) and r.index == index and old in getattr(r, field):
            r = Record(**{**r.__dict__, field: getattr(r, field).replace(old, new)})
            hit += 1
        out.append(r)
    assert hit == 1
    return out


def test_mma_major_mutant_is_refuted_at_the_tiled_mma():
    """The TN launch's tiled MMA declared MN-major for A (its print is the same: only the C++ type says the
    major) over the K-major sA: the descriptor read is refuted at argument 12 `tiled_mma`, nothing else."""
    records, info = _fixture("wgmma_sm90")
    mutated = _mutate(records, ":463", 12, "MMA_64x64x16_F16F16F16_SS<cute::SM90::GMMA::Major::K,",
                      "MMA_64x64x16_F16F16F16_SS<cute::SM90::GMMA::Major::MN,", "type")
    rows = _rows(WG, mutated, info)
    bad = {(r["kernel"], r["kind"], r["at"].split("`")[1], r["claim"].split(" reads ")[1][:1])
           for r in rows if r["status"] not in ("proved", "n/a") and not _gmem_obligation(r)}
    assert bad == {("gemm_device_463", "operand", "tiled_mma", "A")}


def test_unswizzled_printed_smem_is_refuted_as_the_descriptor_read_only():
    """The TN launch's sA printed without its swizzle (Sw<0,4,3>, 128-byte rows): no canonical GMMA layout (an
    unswizzled K-major one has 16-byte core rows), so the descriptor read is refuted at argument 12 `tiled_mma`;
    copyA's cp.async writes stay conflict-free (a quarter warp writes eight 16-byte chunks of one 128-byte row,
    counted by the evaluator of printed layouts), so nothing else is refuted."""
    records, info = _fixture("wgmma_sm90")
    mutated = _mutate(records, ":463", 4, "Sw<3,4,3>", "Sw<0,4,3>")
    rows = [r for r in _rows(WG, mutated, info) if r["kernel"] == "gemm_device_463"]
    bad = {(r["kind"], r["at"].split("`")[1], r["status"]) for r in rows
           if r["status"] not in ("proved", "n/a") and not _gmem_obligation(r)}
    assert bad == {("operand", "tiled_mma", "refuted")}
    assert any(r["kind"] == "banks" and r["status"] == "proved" and "`copyA`" in r["at"] for r in rows)
    rec = {r.index: r for r in mutated if r.at.endswith(":463")}
    smem = parse_plain(rec[4].text.split(" o ")[-1])
    tv = parse_plain(rec[5].text.split("TiledLayout_TV:")[1].splitlines()[0].strip())
    chunks = {(2 * ev(smem, ev(tv, t) % 16 + 128 * (ev(tv, t) // 16))) // 16 % 8 for t in range(8)}
    assert len(chunks) == 8


def test_template_smem_swizzle_mutant_is_refuted_at_the_tma_atom():
    """The TMA launch's SmemLayoutA printed with a 64-byte swizzle (the TMA atom still writes 128-byte
    swizzled tiles): the stage-0 equality is refuted at argument 3 `tmaA`; sB's claims still prove."""
    records, info = _fixture("wgmma_tma_sm90")
    mutated = _mutate(records, ":414", 2503, "Sw<3,4,3>", "Sw<2,4,3>")
    rows = [r for r in _rows(TMA, mutated, info) if r["kernel"] == "gemm_device_414"]
    refuted = {(r["kind"], r["at"].split("`")[1]) for r in rows if r["status"] == "refuted"}
    assert ("equal", "tmaA") in refuted
    assert all("sB" not in r["claim"] and "tmaB" not in r["at"] for r in rows if r["status"] == "refuted")


def test_cute_tma_box_is_cuteverifys_and_a_changed_one_is_refuted():
    """CuTe C++'s TMA box (TmaGmemBasis) of the NT launch's MN-major SW128 atom is one 64x8 swizzle atom (the
    copy issues several); the tma_atom claim proves cuteverify derives the same box; a printed 64x64 box is
    refuted at argument 3 `tmaA`."""
    records, info = _fixture("wgmma_tma_sm90")
    box = {r.index: r.text for r in records if r.at.endswith(":332") and r.index in (3033, 3053)}
    assert box == {3033: "(_64,_8):(_1@0,_1@1)", 3053: "(_64,_8):(_1@0,_1@1)"}
    rows = [r for r in _rows(TMA, records, info) if r["kind"] == "tma_atom"]
    assert len(rows) == 4 and all(r["status"] == "proved" for r in rows)
    mutated = _mutate(records, ":332", 3033, "(_64,_8)", "(_64,_64)")
    bad = {(r["kernel"], r["kind"], r["at"].split("`")[1], r["status"]) for r in _rows(TMA, mutated, info)
           if r["status"] not in ("proved", "n/a")}
    assert bad == {("gemm_device_332", "tma_atom", "tmaA", "refuted")}


# ------------------------------------------------------------------------------ the capture, end to end

needs_gxx = pytest.mark.skipif(cpp_build.toolchain() is None,
                               reason="g++, the CUTLASS headers or CUDA's headers (cuda_runtime_api.h) are missing")


@pytest.mark.differential
@needs_gxx
@pytest.mark.parametrize("name,path,entries", [("wgmma_sm90", WG, WG_ENTRIES), ("wgmma_tma_sm90", TMA, TMA_ENTRIES)])
def test_capture_prints_what_the_fixture_holds(monkeypatch, name, path, entries):
    monkeypatch.chdir(ROOT)  # the wheel's source/ folder: path is the file relative to it
    records, _, info = cpp_capture.capture(path, entries)
    assert all(e["returncode"] == 0 for e in info["entries"].values())
    fixture, _ = _fixture(name)
    assert [(r.at, r.index, r.source, r.type, r.text, r.entry) for r in records] == \
        [(r.at, r.index, r.source, r.type, r.text, r.entry) for r in fixture]


def _edited(name, line, old, new):
    lines = (ROOT / "examples/cute/tutorial/hopper" / name).read_text().splitlines(keepends=True)
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    # a fixed path: the unit names its file, so the content-hash cache hits on the next run
    path = Path(tempfile.gettempdir()) / "cuteverify-trace-cpp" / f"mutant_{line}_{name}"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(lines))
    return path


MUT_WG = ("wgmma_sm90.cu", 413, "GMMA::Layout_K_SW128_Atom<TA>", "GMMA::Layout_K_INTER_Atom<TA>")
MUT_TMA = ("wgmma_tma_sm90.cu", 388, "sA(_,_,0)", "tile_to_shape(GMMA::Layout_K_SW64_Atom<TA>{}, make_shape(bM,bK))")


@pytest.mark.differential
@needs_gxx
def test_unswizzled_smem_mutant_is_refuted_at_the_cp_async_writes():
    """sA of the TN launch tiled from GMMA::Layout_K_INTER_Atom (no swizzle; a valid GMMA layout, so the
    kernel still compiles and the descriptor read proves): copyA's quarter warp writes one row's eight 16-byte
    k-chunks, 2048 bytes apart: an 8-way conflict, refuted at argument 5 `copyA` only. The evaluator of printed
    layouts counts the same."""
    path = _edited(*MUT_WG)
    records, _, info = cpp_capture.capture(str(path), WG_ENTRIES[:1])
    rows = _rows(str(path), records, info, path.read_text())
    bad = [r for r in rows if r["status"] not in ("proved", "n/a") and not _gmem_obligation(r)]
    assert {(r["kind"], r["at"].split("`")[1], r["status"]) for r in bad} == {("banks", "copyA", "refuted")}
    assert any(r["kind"] == "operand" and r["status"] == "proved" and " A " in r["claim"] for r in rows)
    rec = {r.index: r for r in records if r.at.endswith(":463")}
    assert rec[4].text.startswith("Sw<0,4,3> o smem_ptr[16b](unset) o ")
    smem, tv = parse_plain(rec[4].text.split(" o ")[-1]), parse_plain(
        rec[5].text.split("TiledLayout_TV:")[1].splitlines()[0].strip())
    chunks = {}
    for t in range(8):                                   # the first quarter warp, one 16-byte access each
        idx = ev(tv, t)                                  # (t, v=0) -> colex index into the (16, 64) copy tile
        byte = 2 * ev(smem, idx % 16 + 128 * (idx // 16))
        chunks.setdefault(byte // 16 % 8, set()).add(byte)
    assert max(len(v) for v in chunks.values()) == 8 == bad[0]["degree"]


@pytest.mark.differential
@needs_gxx
def test_tma_smem_mutant_is_refuted_at_the_tma_atom():
    """tmaA built over a 64-byte swizzled tile while the kernel partitions (and wgmma reads) the 128-byte
    swizzled sA: the atom alone is a valid TMA (proved), but the layout it writes through is not stage 0 of
    sA: refuted at argument 3 `tmaA`, nothing else."""
    path = _edited(*MUT_TMA)
    records, _, info = cpp_capture.capture(str(path), TMA_ENTRIES[:1])
    rows = _rows(str(path), records, info, path.read_text())
    bad = {(r["kind"], r["at"].split("`")[1], r["status"]) for r in rows if r["status"] not in ("proved", "n/a")}
    assert bad == {("equal", "tmaA", "refuted")}
    assert any(r["kind"] == "tma_atom" and r["status"] == "proved" and "`tmaA`" in r["at"] for r in rows)


@pytest.mark.differential
@needs_gxx
def test_cli_proves_both_launches_with_one_summary_row_each(monkeypatch, tmp_path):
    """`cuteverify trace cpp` on wgmma_sm90.cu: one summary row per launch (the two launches share the source
    file), every claim proved, and the manifest it writes loads. Exit 3: each launch has two unknowns, the
    obligation 8 | ldA / ldB under which its cp.async reads of gA / gB are 16-byte vectors (cpp_gmem)."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "wgmma.yaml"
    r = CliRunner().invoke(main, ["trace", "cpp", WG, "--entry", WG_ENTRIES[0], "--entry", WG_ENTRIES[1], "--json",
                                  "--manifest", str(out)])
    assert r.exit_code == 3, r.output
    data = json.loads(r.output)
    rows = {k["kernel"]: k for k in data["kernels"]}
    assert set(rows) == {"gemm_device_369", "gemm_device_463"}
    assert all(k["claims"] == k["proved"] > 0 and k["refuted"] == 0 and k["unmapped"] == 2 for k in rows.values())
    assert all("8 | ld" in r["reason"] for r in data["results"] if r["kind"] == "unmapped")
    assert mf.load_text(out.read_text(), str(out))


def cpp_units():
    """The translation units each differential test here captures, by test name (built ahead: conftest.py)."""
    wg, tma = Unit(WG, tuple(WG_ENTRIES), cwd=str(ROOT)), Unit(TMA, tuple(TMA_ENTRIES), cwd=str(ROOT))
    return {"test_capture_prints_what_the_fixture_holds": [tma, wg],
            "test_unswizzled_smem_mutant_is_refuted_at_the_cp_async_writes": [
                Unit(str(_edited(*MUT_WG)), tuple(WG_ENTRIES[:1]))],
            "test_tma_smem_mutant_is_refuted_at_the_tma_atom": [Unit(str(_edited(*MUT_TMA)), tuple(TMA_ENTRIES[:1]))],
            "test_cli_proves_both_launches_with_one_summary_row_each": [wg]}
