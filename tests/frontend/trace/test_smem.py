"""Shared-memory placement and TMEM of traced kernels (frontend.trace.emit_smem, analysis.smem_placement,
frontend.trace.smem_units) on the 12 committed CuTe DSL 4.8.1 captures, and on mutated capture texts.

Oracles: the capture itself (the DSL's struct field sizes, its own recast of a byte-domain composed layout, the
pointer swizzle it puts on the tensor a composed layout builds), an independent evaluator of printed layouts
(tests/oracles/strategies.py) and the PTX the DSL emits for the Blackwell GEMM (placement, below)."""
from __future__ import annotations

import functools
import gzip
import re
from pathlib import Path

import pytest

from cuteverify.analysis.smem_placement import Field, fields_disjoint, swizzle_base, tmem_alloc, tmem_view
from cuteverify.core.notation.parse import parse
from cuteverify.core.swizzle import Swizzle
from cuteverify.errors import ManifestError, Unsupported
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.trace.document import Doc
from cuteverify.frontend.trace.emit_smem import emit
from cuteverify.frontend.trace.mlir import read, read_file
from cuteverify.frontend.trace.smem_units import element_domain_layout, swizzle_unit
from cuteverify.frontend.trace.types import memref
from tests.oracles.strategies import ev, parse_plain, size_of, values

DATA = Path(__file__).resolve().parents[1] / "trace_data"
CAPTURES = sorted(DATA.glob("*.mlir.gz"))
BLACKWELL = ("blackwell_dense_gemm_sm_100a", "fa4_fwd_sm_100a", "quack_gemm_sm_100a")


def _name(p):
    return p.name.split(".")[0]


@functools.lru_cache(maxsize=None)
def _text(name):
    return gzip.decompress((DATA / f"{name}.mlir.gz").read_bytes()).decode()


@functools.lru_cache(maxsize=None)
def _module(name):
    return read_file(DATA / f"{name}.mlir.gz")


def _check(module, name="k"):
    """The claims emit_smem derives from ``module``, loaded from the YAML it writes and run: (doc, results)."""
    doc = Doc(name, name)
    emit(module, doc)
    results = mf.run(mf.load_text(doc.yaml(), f"{name}.cute.yaml"))
    return doc, results


@functools.lru_cache(maxsize=None)
def _checked(name):
    return _check(_module(name), name)


def _why(r):
    """A result's reason, or its counterexample's text (JSON says the witness once)."""
    return r["reason"] or (r["counterexample"] or {}).get("text", "")


def _at(results, kind, line_re):
    return [r for r in results if r["kind"] == kind and re.search(line_re, r["at"])]


# ------------------------------------------------------------------------------ the unmodified kernels

@pytest.mark.parametrize("path", CAPTURES, ids=_name)
def test_unmodified_kernels_nothing_refuted(path):
    """Every claim on an unmodified kernel is proved, except a swizzle base whose allocation guarantees less
    alignment than the swizzle's period: unknown, with the reason saying so (never refuted)."""
    doc, results = _checked(_name(path))
    assert results and all(r["at"] for r in results)
    for r in results:
        if r["kind"] == "smem_swizzle_base" and r["status"] == "unknown":
            assert "below the" in r["reason"] and "period" in r["reason"]
            continue
        assert r["status"] == "proved", r
    kinds = {r["kind"] for r in results}
    assert {"smem_view", "injective"} <= kinds
    assert ("tmem_alloc" in kinds) == (_name(path) in BLACKWELL)
    for u in doc.unknowns:  # each unmapped construct says where and why
        assert u.loc.file and u.why


def test_hopper_fields_match_the_dsl_sizes():
    """The DSL sized each struct field as the cosize of the tensor built in it: sA's view covers its field
    exactly (bytes [1024, 66560)), and the struct's fields are disjoint."""
    doc, results = _checked("hopper_dense_gemm_sm_90a")
    (sa,) = _at(results, "smem_view", r"hopper_dense_gemm.py:634: sA = ")
    assert "sA:65536:1024" in sa["claim"]
    assert sa["status"] == "proved" and "bytes [1024, 66560)" in sa["reason"]
    (st,) = _at(results, "smem_struct", r"hopper_dense_gemm.py:600")
    assert st["status"] == "proved"
    # independent: the printed sA layout's cosize (no swizzle: a pointer swizzle keeps values inside a period)
    lay = parse_plain("((8,16),(64,1),(1,4)):((64,512),(1,0),(0,8192))")
    assert (max(values(lay)) + 1) * 2 == 65536


def test_blackwell_align_128_is_unknown_and_says_the_placement():
    """Blackwell allocates sA/sB/sC separately with align<128>, below the 1024-byte (512 for sC) period: unknown,
    with the modelled placement; the DSL's PTX for this kernel (nvidia-cutlass-dsl 4.8.1, CUTE_DSL_KEEP=ptx) puts
    them at bytes 256, 16640 and 147712 of the 1024-aligned dynamic smem (its TMA loads write [r+16640] and
    [r+147712]): 256 mod 1024, so the model's numbers are those the compiler chose."""
    _, results = _checked("blackwell_dense_gemm_sm_100a")
    got = {m.group(1): r["reason"] for r in results if r["kind"] == "smem_swizzle_base"
           for m in [re.search(r":(\d+): s[ABC] = ", r["at"])]}
    assert set(got) == {"582", "590", "597"}
    assert all(r["status"] == "unknown" for r in results if r["kind"] == "smem_swizzle_base")
    assert "byte 256, 256 mod 512" in got["582"]
    assert "byte 16640, 256 mod 1024" in got["590"] and "byte 147712, 256 mod 1024" in got["597"]


def test_tmem_claims_on_the_blackwell_kernels():
    for name, cols in (("blackwell_dense_gemm_sm_100a", 128), ("fa4_fwd_sm_100a", 512), ("quack_gemm_sm_100a", 512)):
        doc, results = _checked(name)
        allocs = [r for r in results if r["kind"] == "tmem_alloc"]
        assert len(allocs) == 1 and allocs[0]["status"] == "proved" and f"{cols} columns" in allocs[0]["claim"]
        assert "tmem.allocate(" in allocs[0]["at"]
        views = [r for r in results if r["kind"] == "tmem_view"]
        assert views and all(r["status"] == "proved" for r in views)
        assert not [u for u in doc.unknowns if "tmem" in u.what]  # every TMEM tensor placed
    # FA4's tP is a TMEM tensor with an smem layout, used only for make_fragment_A's shape: no claim (its
    # 128 rows of 64-element stride would leave 512 columns: it is not an address map)
    doc, results = _checked("fa4_fwd_sm_100a")
    assert not _at(results, "tmem_view", r"flash_fwd_sm100.py:1363: tP = ")
    assert any("tP = cute.make_tensor" in (n.loc.text or "") and "make_fragment" in n.why for n in doc.notes)
    # the correction loop's per-thread views (one thread's part of tOtO_i, moved by i * 16 columns) are claimed
    # as the partitioned (128,16) tile moved: columns 256 + 16 i, the last ending at 512
    loop = _at(results, "tmem_view", r"flash_fwd_sm100.py:3505: ")
    assert sorted(int(re.search(r" at (\d+) ", r["claim"]).group(1)) for r in loop) == list(range(256, 512, 16))
    assert all(r["status"] == "proved" for r in loop)


# ------------------------------------------------------------------------------------------ mutants

def _mutant(name, *subs):
    text = _text(name)
    for old, new in subs:
        assert text.count(old) >= 1, old
        text = text.replace(old, new)
    return _check(read(text), name)[1]


def test_field_smaller_than_its_tensor_is_refuted_at_the_view():
    results = _mutant("hopper_dense_gemm_sm_90a", ('"sA:65536:1024"', '"sA:32768:1024"'))
    (r,) = [r for r in _at(results, "smem_view", r"hopper_dense_gemm.py:634: sA = ")]
    assert r["status"] == "refuted" and r["counterexample"]["kind"] == "out-of-range"
    assert "outside field sA:32768:1024" in r["reason"]


def test_overlapping_fields_are_refuted_at_the_struct():
    results = _mutant("hopper_dense_gemm_sm_90a", ('"sB:131072:66560"', '"sB:131072:65536"'))
    (r,) = _at(results, "smem_struct", r"hopper_dense_gemm.py:600: storage = ")
    assert r["status"] == "refuted" and r["counterexample"]["kind"] == "overlap"
    assert "sA:65536:1024" in r["reason"] and "sB:131072:65536" in r["reason"]


def test_offset_off_the_swizzle_period_is_refuted():
    """sA moved to byte 1152 of its 1024-aligned struct (field and the add_offset that builds its pointer)."""
    text = _text("hopper_dense_gemm_sm_90a")
    line = re.search(r'^ *%452 = "cute.make_int_tuple"\(\) : \(\) -> !cute.int_tuple<"1024">.*$', text, re.M).group(0)
    results = _mutant("hopper_dense_gemm_sm_90a", (line, line.replace('"1024"', '"1152"')),
                      ('"sA:65536:1024"', '"sA:65408:1152"'))
    (r,) = _at(results, "smem_swizzle_base", r"hopper_dense_gemm.py:634: sA = ")
    assert r["status"] == "refuted" and r["counterexample"]["kind"] == "misaligned"
    assert "128 mod 1024" in r["reason"]
    (v,) = _at(results, "smem_view", r"hopper_dense_gemm.py:634: sA = ")
    assert v["status"] == "refuted"  # 65536 bytes from 1152 leave the 65408-byte field


@pytest.mark.parametrize("cols,rule", [("1024", "a power of two in"), ("384", "a power of two in"),
                                       ("16", "a power of two in")])
def test_tmem_columns_out_of_rule_are_refuted_at_the_alloc(cols, rule):
    text = _text("blackwell_dense_gemm_sm_100a")
    m = read_file(DATA / "blackwell_dense_gemm_sm_100a.mlir.gz")
    (alloc,) = m.of("cute_nvgpu.arch.sm100.alloc_tmem")
    const = alloc.operands[0]
    line = re.search(rf'^ *{re.escape(const)} = "arith.constant"\(\) <{{value = 128 : i32}}>.*$', text, re.M).group(0)
    results = _mutant("blackwell_dense_gemm_sm_100a", (line, line.replace("value = 128", f"value = {cols}")))
    (r,) = [r for r in results if r["kind"] == "tmem_alloc"]
    assert r["status"] == "refuted" and rule in _why(r) and "tmem.allocate(" in r["at"]


def test_tmem_tensor_past_the_allocation_is_refuted():
    """FA4 puts tOtO at column 256 of its 512; moved to column 384, its 256 columns end at 640."""
    text = _text("fa4_fwd_sm_100a")
    line = re.search(r'^ *%1333 = "cute.make_int_tuple"\(\) : \(\) -> !cute.int_tuple<"256">.*$', text, re.M).group(0)
    results = _mutant("fa4_fwd_sm_100a", (line, line.replace('"256"', '"384"')))
    (r,) = _at(results, "tmem_view", r"flash_fwd_sm100.py:1362: tOtO = ")
    assert r["status"] == "refuted" and "column 512" in _why(r)


# ----------------------------------------------------------------------------- the analysis, directly

def test_placement_procedures_on_hand_cases():
    assert fields_disjoint(["a:16:0", "b:0:16", "c:0:16", "d:8:16"], 24).proved  # size 0 shares offsets
    assert fields_disjoint(["a:16:0", "b:8:20"], 24).status == "refuted"       # past the allocation
    assert swizzle_base(2048, 1024, Swizzle(3, 4, 3)).proved
    assert swizzle_base(0, 128, Swizzle(3, 4, 3)).status == "unknown"
    assert swizzle_base(512, 512, Swizzle(2, 4, 3)).proved and swizzle_base(128, 512, None).proved
    assert tmem_alloc(256, (256,)).proved and tmem_alloc(256, (512,)).status == "refuted"
    v = tmem_view(parse("(128,64):(131072,1)"), 16, 0, 32)  # f16: a lane is 2^17 elements, 2 per column
    assert v.proved and "columns [0, 32)" in v.reason
    assert tmem_view(parse("(129,1):(65536,0)"), 32, 0, 32).status == "refuted"  # lane 128
    assert Field.read("mbar:8:144").end == 152


# --------------------------------------------------------------------------- units of composed layouts

def _sw_values(text, n=None):
    """Independent evaluation of ``S<B,M,S> o 0 o L`` (or a plain ``L``): every value (the first ``n``)."""
    m = re.fullmatch(r"S<(\d+),(\d+),(\d+)> o 0 o (.*)", text)
    lay = parse_plain(m.group(4) if m else text)
    vals = values(lay) if n is None else [ev(lay, i) for i in range(min(n, size_of(lay)))]
    if not m:
        return vals
    b, mm, s = map(int, m.groups()[:3])
    return [x ^ ((x >> s) & (((1 << b) - 1) << mm)) for x in vals]


EXPECTED_UNITS = {"ampere_tensorop_gemm_sm_80": {("S<3,3,4>", "elements")},
                  "ampere_tensorop_gemm_bkmajor_sm_80": {("S<3,3,4>", "elements")},
                  "fa4_fwd_sm_80": {("S<3,3,3>", "elements")},
                  "fa4_fwd_sm_100a": {("S<3,4,3>", "pointer"), ("S<3,4,3>", "recast"), ("S<3,3,3>", "elements")}}


@pytest.mark.parametrize("path", CAPTURES, ids=_name)
def test_every_composed_layout_has_a_unit(path):
    """Each composed layout of each capture gets a unit from the kernel's use of it: Ampere's and FA4 sm80's
    hand-built element swizzles, the sm90/sm100 helpers' byte swizzles (the same swizzle reappears on the
    tensor's pointer), QuACK's byte-domain layout that FA4 sm100 recasts from 8-bit units."""
    m = _module(_name(path))
    got = set()
    for op in m.ops:
        for r, t in zip(op.results, op.out_types):
            if t.name == "cute.composed_layout":
                u = swizzle_unit(m, r, op.func)
                got.add((t.args[0].split(" o ")[0], u.kind))
                assert u.why
    default = {(sw, "pointer") for sw, _ in got}
    assert got == EXPECTED_UNITS.get(_name(path), default)


@pytest.mark.parametrize("name", ["hopper_dense_gemm_sm_90a", "blackwell_dense_gemm_sm_100a", "fa4_fwd_sm_90a",
                                  "quack_gemm_sm_90a"])
def test_element_domain_of_a_helper_layout_is_its_tensors(name):
    """Oracle: the tensor the kernel builds from a helper's composed layout ``Sw o 0 o L`` carries ``Sw`` on its
    pointer and prints ``L``; the element-domain form of the composed layout equals that tensor's (independent
    evaluation: 2 * element(c) == Sw_bytes(2 * L(c)))."""
    m = _module(name)
    tensors = {}
    for op in m.ops:
        for t in op.out_types:
            mr = memref(t)
            if mr is not None and mr.space == "smem" and mr.swizzle is not None and mr.layout_text:
                tensors[(str(mr.swizzle), mr.layout_text)] = mr
    checked = 0
    for op in m.ops:
        for r, t in zip(op.results, op.out_types):
            if t.name != "cute.composed_layout":
                continue
            sw, outer = t.args[0].split(" o 0 o ")
            mr = tensors.pop((sw, outer), None)  # each distinct tensor once
            if mr is None:
                continue
            el = element_domain_layout(m, r, op.func, mr.bits)
            assert str(el) == str(mr.element_layout())
            b, mm, s = map(int, re.findall(r"\d+", sw))
            raw = _sw_values(outer, 4096)  # the first 4096 coordinates: several swizzle periods
            k = mr.bits // 8
            want = [(k * x) ^ (((k * x) >> s) & (((1 << b) - 1) << mm)) for x in raw]
            assert [k * v for v in _sw_values(str(el), 4096)] == want
            checked += 1
    assert checked >= 2


def test_recast_oracle_for_a_byte_domain_layout():
    """FA4 sm100 (through QuACK's copy_utils) recasts the 8-bit-unit ``S<3,4,3> o 0 o (128,32,(4,2)):...`` to
    16-bit elements; the DSL's answer is in the capture. The element-domain form of the helper layout with the
    same pattern in f16 units (``S<3,3,3>`` on elements) agrees with it."""
    m = _module("fa4_fwd_sm_100a")
    (op,) = [o for o in m.of("cute.recast_layout") if o.in_types[0].name == "cute.composed_layout"][:1]
    assert swizzle_unit(m, op.operands[0], op.func).kind == "recast"
    assert element_domain_layout(m, op.operands[0], op.func, 8) is not None
    with pytest.raises(Exception, match="8-bit"):
        element_domain_layout(m, op.operands[0], op.func, 16)
    dsl = op.out_types[0].args[0]                 # the DSL's 16-bit form
    assert dsl.startswith("S<3,3,3> o 0 o ")
    # independent: the 8-bit layout's byte values are twice the 16-bit form's element values, at the
    # even bytes (the recast pairs bytes 2e, 2e+1 into element e)
    src = _sw_values(op.in_types[0].args[0])
    dst = _sw_values(dsl)
    assert sorted(2 * v for v in dst) == sorted(v for v in src if v % 2 == 0)


def test_tmem_slice_at_a_dynamic_stage_covers_every_stage():
    """FA4's tStP starts at column 64 of ``tStS[(None, None), 0, 0, stage]``: the dynamic stage becomes an extra
    mode (2 stages, 128 columns apart). Moved to column 400, stage 0 (400..464) fits and stage 1 (528..592)
    does not: refuted, which the stage-0 tensor alone would not show."""
    _, results = _checked("fa4_fwd_sm_100a")
    (r,) = _at(results, "tmem_view", r"flash_fwd_sm100.py:2569: tStP = ")
    assert r["status"] == "proved" and "columns [64, 256)" in r["reason"]
    text = _text("fa4_fwd_sm_100a")
    line = re.search(r'^ *%5248 = "cute.make_int_tuple"\(\) : \(\) -> !cute.int_tuple<"64">.*$', text, re.M).group(0)
    results = _mutant("fa4_fwd_sm_100a", (line, line.replace('"64"', '"400"')))
    (r,) = _at(results, "tmem_view", r"flash_fwd_sm100.py:2569: tStP = ")
    assert r["status"] == "refuted" and "column 528" in _why(r)  # stage 1's first column
    assert tmem_view(parse("(128,64):(65536,1)"), 32, 400, 512).proved  # stage 0 alone fits


def test_undecided_unit_is_refused_not_guessed():
    """A composed layout nothing uses, in a capture with no pointer or tensor carrying its swizzle: no unit."""
    m = read('%0 = "cute.static"() : () -> !cute.composed_layout<"S<3,4,3> o 0 o (8,64):(64,1)"> loc(unknown)')
    op = m.ops[0]
    with pytest.raises(Unsupported, match="not decided"):
        swizzle_unit(m, op.results[0], op.func)
    with pytest.raises(Unsupported):
        element_domain_layout(m, op.results[0], op.func, 16)


@pytest.mark.parametrize("claim,where", [
    ('{smem_view: {layout: "8:1", elem_bits: 16, offset: 0, field: "sA-1024"}}', "sA-1024"),
    ('{tmem_alloc: {columns: 128, others: [x]}}', "x"),
    ('{smem_swizzle_base: {swizzle: "S<3,4>", offset: 0, align: 16}}', "swizzle"),
])
def test_bad_placement_claims_are_input_errors_at_their_line(claim, where):
    text = f"version: 1\nkernels:\n  k:\n    claims:\n      - {claim}\n"
    with pytest.raises(ManifestError) as e:
        mf.load_text(text, "m.yaml")
    assert ":5" in str(e.value) and where in str(e.value)
