"""Tiled copies of the committed CuTe DSL 4.8.1 captures (cuteverify.frontend.trace.atoms_copy / emit_copy).

Oracles: the capture itself (the DSL's printed ``layout_copy_tv`` / ``tiler_mn`` and partition result types),
a hand-written table of CUTLASS atom names, and an independent bank evaluator written here (its own layout
reader, the byte swizzle written out) for the refutations found on unmodified kernels.
"""
import ast
import gzip
from collections import Counter
from pathlib import Path

import pytest

from cuteverify.atoms import make_tiled_copy_A, make_tiled_copy_B, make_tiled_mma
from cuteverify.errors import CaptureError
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.trace.atoms_copy import copy_atom_name, tiled_copy_expr
from cuteverify.frontend.trace.document import Doc
from cuteverify.frontend.trace.emit_copy import PARTITIONS, emit
from cuteverify.frontend.trace.mlir import read, read_file



DATA = Path(__file__).resolve().parents[1] / "trace_data"
CAPTURES = sorted(DATA.glob("*.mlir.gz"))
AMPERE = DATA / "ampere_tensorop_gemm_sm_80.mlir.gz"

# every copy atom of the 12 captures, with the CUTLASS name it is (written by hand from CUTLASS's headers)
ATOMS = {
    '!cute_nvgpu.atom.simt_async_copy<f32, cache = always, 32 b>': "SM80_CP_ASYNC_CACHEALWAYS<uint32_t>",
    '!cute_nvgpu.atom.simt_async_copy<f16, cache = global, 128 b>': "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>",
    '!cute_nvgpu.atom.simt_async_copy<bf16, cache = always, 128 b>': "SM80_CP_ASYNC_CACHEALWAYS<uint128_t>",
    '!cute_nvgpu.atom.universal_copy<f16, 128 b>': "UniversalCopy<uint128_t>",
    '!cute_nvgpu.atom.universal_copy<bf16, 128 b>': "UniversalCopy<uint128_t>",
    '!cute_nvgpu.atom.universal_copy<f16, 32 b>': "UniversalCopy<uint32_t>",
    '!cute_nvgpu.atom.universal_copy<f32, 128 b>': "UniversalCopy<uint128_t>",
    '!cute_nvgpu.atom.universal_copy<f32, 256 b>': "UniversalCopy<uint256_t>",
    '!cute_nvgpu.atom.universal_copy<i128, 128 b>': "UniversalCopy<uint128_t>",
    '!cute_nvgpu.atom.universal_copy<f32>': "UniversalCopy<uint32_t>",
    '!cute_nvgpu.atom.universal_copy<f16>': "UniversalCopy<uint16_t>",
    '!cute_nvgpu.atom.universal_copy<bf16>': "UniversalCopy<uint16_t>",
    '!cute_nvgpu.atom.ldsm<val_type = f16, mode = <"(8,8)">, sz_pattern = u16, num_matrices = 4, n>':
        "SM75_U32x4_LDSM_N",
    '!cute_nvgpu.atom.ldsm<val_type = f16, mode = <"(8,8)">, sz_pattern = u16, num_matrices = 4, t>':
        "SM75_U16x8_LDSM_T",
    '!cute_nvgpu.atom.stsm<f16, mode = <"(8,8)">, num_matrices = 4, n>': "SM90_U32x4_STSM_N",
    '!cute_nvgpu.atom.stsm<bf16, mode = <"(8,8)">, num_matrices = 4, n>': "SM90_U32x4_STSM_N",
    '!cute_nvgpu.atom.tmem_load<f32, 32 DP, 32 bit, x32>': "SM100_TMEM_LOAD_32dp32b32x",
    '!cute_nvgpu.atom.tmem_load<f32, 32 DP, 32 bit, x16>': "SM100_TMEM_LOAD_32dp32b16x",
    '!cute_nvgpu.atom.tmem_load<f32, 32 DP, 32 bit, x1>': "SM100_TMEM_LOAD_32dp32b1x",
    '!cute_nvgpu.atom.tmem_store<f32, 32 DP, 32 bit, x16>': "SM100_TMEM_STORE_32dp32b16x",
    '!cute_nvgpu.atom.tmem_store<f32, 32 DP, 32 bit, x1>': "SM100_TMEM_STORE_32dp32b1x",
}


@pytest.fixture(scope="module")
def modules():
    return {p.name: read_file(p) for p in CAPTURES}


def _types(m, name):
    return {t.text: t for op in m.ops for t in tuple(op.in_types) + tuple(op.out_types) if t.name == name}


def _run(m, name="k"):
    doc = Doc(name, name)
    emit(m, doc)
    claims = mf.load_text(doc.yaml())
    return doc, claims, mf.run(claims)


# ------------------------------------------------------------------------------------------------- atoms

def test_every_copy_atom_of_the_captures_has_its_cutlass_name(modules):
    seen = set()
    for m in modules.values():
        for op in m.ops:
            for t in tuple(op.in_types) + tuple(op.out_types):
                atoms = [t] + [a for a in t.args if hasattr(a, "name")] if hasattr(t, "args") else [t]
                for a in atoms:
                    if a.name.startswith("cute_nvgpu.atom.") and a.name.split(".")[-1] in (
                            "simt_async_copy", "universal_copy", "ldsm", "stsm", "tmem_load", "tmem_store"):
                        seen.add(a.text)
    assert seen == set(ATOMS), seen ^ set(ATOMS)
    for text, name in ATOMS.items():
        assert copy_atom_name(_type_of(text)) == name


def _type_of(text):
    return read(f'%0 = "x.y"() : () -> {text} loc(unknown)').ops[0].out_types[0]


@pytest.mark.parametrize("text", [
    '!cute_nvgpu.atom.ldsm<val_type = f16, mode = <"(16,16)">, sz_pattern = u16, num_matrices = 4, n>',
    '!cute_nvgpu.atom.simt_async_copy<f16, cache = global, 64 b>',
    '!cute_nvgpu.atom.tmem_load<f32, 16 DP, 64 bit, x8>',
    '!cute_nvgpu.atom.tmem_load<f32, 32 DP, 32 bit, x8, pack>',
    '!cute_nvgpu.atom.s2t_copy<f16>',
])
def test_unmapped_atoms_are_named_errors(text):
    with pytest.raises(CaptureError, match="cute_nvgpu.atom"):
        copy_atom_name(_type_of(text))


def test_every_tiled_copy_maps_to_the_printed_tv_layout_and_tiler(modules):
    """Each tiled copy of each capture builds, through the manifest language, into a TiledCopy whose TV layout
    and tiler print as the DSL printed them, with the atom's value type."""
    n = 0
    for m in modules.values():
        for text, t in _types(m, "cute.tiled_copy").items():
            expr = tiled_copy_expr(t)
            claims = mf.load_text(f"version: 1\nkernels:\n  k:\n    layouts:\n      c: '{expr}'\n"
                                  "    claims:\n      - covers: {tiled_copy: c}\n")
            tc = claims[0].args["tiled_copy"].value
            assert str(tc.layout_tv_tiled) == t.get("layout_copy_tv")
            assert "[" + ";".join(str(x) for x in tc.tiler_mn) + "]" == t.get("tiler_mn")
            assert tc.value_type == (t.args[0].get("val_type") or t.args[0].positional[0])
            n += 1
    assert n == 37  # distinct tiled copy types per capture, over the 12 captures


@pytest.mark.parametrize("capture,operand,line", [("ampere_tensorop_gemm_sm_80", "A", 640),
                                                  ("ampere_tensorop_gemm_sm_80", "B", 641),
                                                  ("ampere_tensorop_gemm_bkmajor_sm_80", "B", 641)])
def test_make_tiled_copy_A_B_equal_the_dsl(modules, capture, operand, line):
    """cuteverify's make_tiled_copy_A/B(ldmatrix atom, the kernel's tiled MMA) prints the DSL's TV layout and
    tiler (the make_tiled_copy op at the builder's line)."""
    m = modules[capture + ".mlir.gz"]
    op = next(o for o in m.of("cute.make_tiled_copy") if o.loc.line == line)
    t = op.out_types[0]
    mma_t = next(iter(_types(m, "cute.tiled_mma").values()))
    mma = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", mma_t.get("atom_layout_MNK"), mma_t.get("permutation_MNK"))
    build = make_tiled_copy_A if operand == "A" else make_tiled_copy_B
    tc = build(copy_atom_name(t.args[0]), mma, "f16")
    assert str(tc.layout_tv_tiled) == t.get("layout_copy_tv")
    assert "[" + ";".join(str(x) for x in tc.tiler_mn) + "]" == t.get("tiler_mn")


# ----------------------------------------------------------------------------------------------- emitter

# claims refuted on unmodified kernels, each confirmed by the independent evaluator below
KNOWN_REFUTED = {
    "blackwell_dense_gemm_sm_100a": {("banks", "blackwell_dense_gemm.py:934")},
    "quack_gemm_sm_100a": {("banks", "gemm_sm100.py:2450")},
}
#: conflict-free at a swizzle-period-aligned base only: the cp.async writes of sA / sB, whose type guarantees
#: align<16> under a 1024-byte pointer swizzle period (decided at each of the 64 bases; the allocator in fact
#: puts them at byte 0 of a 1024-aligned base, a placement no type states)
PLACEMENT_DEPENDENT = {("banks", "ampere_tensorop_gemm.py:466"), ("banks", "ampere_tensorop_gemm.py:468")}
KNOWN_UNKNOWN = {"ampere_tensorop_gemm_sm_80": PLACEMENT_DEPENDENT,
                 "ampere_tensorop_gemm_bkmajor_sm_80": PLACEMENT_DEPENDENT}


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name.split(".")[0])
def test_every_copy_claim_of_every_capture(modules, path):
    m = modules[path.name]
    doc, claims, results = _run(m, path.name.split(".")[0])
    kinds = Counter(c.kind for c in claims)
    assert kinds["covers"] == len(_types(m, "cute.tiled_copy")) - _unmapped(doc)
    def where(status):
        return {(c.kind, r["at"].split("/")[-1].split(": ")[0]) for c, r in zip(claims, results)
                if r["status"] == status}
    name = path.name.split(".")[0]
    assert where("refuted") == KNOWN_REFUTED.get(name, set())
    assert where("unknown") == KNOWN_UNKNOWN.get(name, set())
    assert all("align<16>" in r["reason"] for r in results if r["status"] == "unknown")
    # no partition or retile op skipped silently: each has a claim or an unknown at its line
    places = {r["at"] for r in results} | {u.loc.describe() for u in doc.unknowns + doc.notes}
    for op in m.of(*PARTITIONS, "cute.tiled.copy.retile"):
        assert op.loc.describe() in places, op.loc.describe()
    assert all(u.why for u in doc.unknowns)


def _unmapped(doc):
    return sum(1 for u in doc.unknowns if u.what.startswith("tiled copy "))


def test_claims_relate_the_objects_the_data_flow_relates(modules):
    """ampere: the ldmatrix A copy is claimed compatible with operand A of the MMA whose fragment it retiles,
    banks goes through the smem tensor its partition_S reads (element-domain: S<2,4,3> on bytes is S<2,3,3>)."""
    doc = Doc("k")
    emit(modules[AMPERE.name], doc)
    by_at = {}
    for c in doc.claims:
        by_at.setdefault(c["at"].split("/")[-1].split(":")[1], []).append(c)
    comp = [c for c in by_at["646"] if "compatible" in c]
    assert comp and comp[0]["compatible"]["operand"] == "A" and comp[0]["compatible"]["copy"] == "tiled_copy_s2r_A"
    banks = [c["banks"] for c in by_at["645"] if "banks" in c][0]
    assert banks["side"] == "src" and banks["copy"] == "tiled_copy_s2r_A"
    assert doc.layouts[banks["smem"]] == "S<2,3,3> o 0 o ((8,16),(32,1),(1,4)):((32,256),(1,0),(0,4096))"
    eq = [c for c in by_at["640"] if "equal" in c]
    assert len(eq) == 3 and all("make_tiled_copy_A" in c["name"] for c in eq)


# -------------------------------------------------------------------- refutations on unmodified kernels

def _tuple(text):
    return ast.literal_eval(text)


def _flat(t):
    return [x for s in t for x in _flat(s)] if isinstance(t, tuple) else [t]


def _layout(text):
    """An independent reader of a printed integer layout ``shape:stride`` -> a function of a flat index."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == ":" and depth == 0:
            shape, stride = _flat(_tuple(text[:i])), _flat(_tuple(text[i + 1:]))
            break

    def f(k):
        out = 0
        for s, d in zip(shape, stride):
            out += (k % s) * d
            k //= s
        return out
    return f, shape


def _bank_degree(tv, tiler, smem, smem_modes, swizzle, elem_bytes):
    """Max distinct 4-byte words per bank among the 32 lanes of warp 0 writing their value 0: the lane's tile
    index tv(lane), split column-major over the tiler's sizes, each mode mapped by its tiler layout, the smem
    coordinate evaluated by the smem layout's first modes, then the byte swizzle S<B,M,S> on the address."""
    tvf, _ = _layout(tv)
    modes = [_layout(x) for x in tiler.strip("[]").split(";")]
    sizes = [eval("*".join(map(str, s)) or "1") for _, s in modes]
    sm = [_layout(x) for x in smem_modes]
    b, m, s = swizzle
    words = {}
    for lane in range(32):
        idx = tvf(lane)
        coord = []
        for (fm, _), n in zip(modes, sizes):
            coord.append(fm(idx % n))
            idx //= n
        off = sum(f(c) for (f, _), c in zip(sm, coord))
        addr = off * elem_bytes
        addr ^= (addr >> s) & (((1 << b) - 1) << m)
        words.setdefault((addr // 4) % 32, set()).add(addr // 4)
    return max(len(w) for w in words.values())


@pytest.mark.parametrize("capture,line", [("blackwell_dense_gemm_sm_100a", 934), ("quack_gemm_sm_100a", 2450)])
def test_sm100_epilogue_16bit_stores_conflict_4_ways(modules, capture, line):
    """The refutation on the unmodified CUTLASS Blackwell / QuACK sm100 epilogue is real: the 2-byte
    UniversalCopy r2s stores of one warp go to 32 rows, 64 bytes apart, of the S<2,4,3> (64-byte swizzle) C
    tile at one column: 8 distinct banks for 32 lanes, 4 words on a bank, where one wavefront is the minimum."""
    m = modules[capture + ".mlir.gz"]
    op = next(o for o in m.of("cute.tiled.copy.partition_D") if o.loc.line == line)
    copy, smem = op.in_types[:2]
    assert smem.text.count("S<2,4,3>") == 1
    layout = smem.positional[-1]
    assert layout.startswith("((8,16),(32,1),")
    got = _bank_degree(copy.get("layout_copy_tv"), copy.get("tiler_mn"), layout,
                       ["(8,16):(32,256)", "(32,1):(1,0)"], (2, 4, 3), 2)
    assert got == 4
    doc, claims, results = _run(m)
    r = next(r for c, r in zip(claims, results) if c.kind == "banks" and f":{line}:" in r["at"])
    assert r["status"] == "refuted" and r["degree"] == 4


# ------------------------------------------------------------------------------------------------ mutants

def _mutant(path, old, new, count=None):
    text = gzip.open(path, "rt").read()
    assert old in text and (count is None or text.count(old) == count), text.count(old)
    return read(text.replace(old, new), str(path))


def _refuted_at(m):
    doc, claims, results = _run(m)
    return {(c.kind, int(r["at"].split(":")[1])) for c, r in zip(claims, results) if r["status"] == "refuted"}


def test_mutant_tv_layout_that_does_not_cover():
    m = _mutant(AMPERE, 'layout_copy_tv = <"((4,32),8):((256,1),32)">', 'layout_copy_tv = <"((4,32),8):((128,1),32)">')
    assert ("covers", 896) in _refuted_at(m)


def test_mutant_swizzle_removed_ldmatrix_conflicts():
    """sA without its pointer swizzle: the ldmatrix reads of 8 rows 64 bytes apart conflict (refuted at the
    partition_S of the ldmatrix copy, line 645); the cp.async writes (466) stay conflict-free (a phase of 8
    threads x 16 bytes writes two whole 64-byte rows)."""
    m = _mutant(AMPERE, 'S<2,4,3>, "((8,16),(32,1),(1,4))', '"((8,16),(32,1),(1,4))')
    assert _refuted_at(m) == {("banks", 645)}


def test_mutant_copy_that_does_not_match_its_mma():
    """The A ldmatrix copy with its k-block stride typed as 128 for 256: no longer make_tiled_copy_A of the MMA
    (line 640) nor compatible with the fragment it retiles (646)."""
    m = _mutant(AMPERE, '"((4,8,2,2),((2,2,2),(1,1))):((64,1,16,0),((32,8,256),(0,0)))"',
                '"((4,8,2,2),((2,2,2),(1,1))):((64,1,16,0),((32,8,128),(0,0)))"')
    got = _refuted_at(m)
    assert ("compatible", 646) in got and ("equal", 640) in got and ("covers", 640) in got


def test_mutant_wrong_major_ldmatrix():
    """B's transposing ldmatrix (LDSM_T) typed as the plain one (LDSM_N): the thread's values are no longer the
    16-byte rows of the smem tile, refuted at the ldmatrix partition of sB (647), as is the DSL's partition."""
    m = _mutant(AMPERE, "num_matrices = 4, t>", "num_matrices = 4, n>", count=3)
    assert _refuted_at(m) == {("equal", 647), ("banks", 647), ("vector", 647)}


@pytest.mark.parametrize("capture,line,why", [
    ("hopper_dense_gemm_sm_90a", 945, "only tiled MMA"), ("quack_gemm_sm_90a", 1873, "only tiled MMA"),
    ("fa4_fwd_sm_80", 355, "only tiled MMA"), ("hopper_dense_gemm_sm_90a", 947, "only other copy"),
    ("quack_gemm_sm_90a", 1892, "only other copy"), ("blackwell_dense_gemm_sm_100a", 931, "only other copy"),
    ("quack_gemm_sm_100a", 2447, "only other copy")])
def test_builder_without_data_flow(modules, capture, line, why):
    """An epilogue copy no retile relates to a fragment: built by make_tiled_copy_C_atom / _C, its TV layout and
    tiler are compared with the builder applied to the only tiled MMA of its function; built by
    make_tiled_copy_S / _D, with the builder over the only other copy of its tile in its function. Proved."""
    m = modules[capture + ".mlir.gz"]
    doc, claims, results = _run(m)
    eq = [(c, r) for c, r in zip(claims, results) if c.kind == "equal" and f":{line}:" in r["at"]
          and why in r["claim"]]
    assert len(eq) == 3 and all(r["status"] == "proved" for _, r in eq)


def test_mutant_epilogue_copy_that_is_not_its_mmas_c_atom():
    """Hopper's C_atom stmatrix copy with two value modes swapped: still a copy that covers its tile, but not
    make_tiled_copy_C_atom of the kernel's MMA: refuted at its builder (945), and the r2s copy built from it by
    make_tiled_copy_S (947) no longer is that builder over it."""
    m = _mutant(DATA / "hopper_dense_gemm_sm_90a.mlir.gz", '"((4,8,8),(2,2,2)):((128,1,8),(512,64,1024))"',
                '"((4,8,8),(2,2,2)):((128,1,8),(64,512,1024))"')
    assert _refuted_at(m) == {("equal", 945), ("equal", 947)}


def test_banks_at_every_base_the_alignment_allows(modules):
    """The Ampere cp.async write of sA (line 466) is conflict-free at a 1024-aligned base (the claim without
    `align`) but not at every base align<16> allows: the claim with `align: 16` is unknown, naming a base and
    its conflict; with `align: 1024` (the period) it is the aligned verdict again."""
    doc = Doc("k", "k")
    emit(modules[AMPERE.name], doc)
    (c,) = [c for c in doc.claims if "banks" in c and c.get("at", "").split(": ")[0].endswith(":466")]
    assert c["banks"]["align"] == 16
    for align, status in ((16, "unknown"), (1024, "proved"), (None, "proved")):
        body = dict(c["banks"], align=align) if align else {k: v for k, v in c["banks"].items() if k != "align"}
        doc.claims = [{"banks": body}]
        (r,) = mf.run(mf.load_text(doc.yaml()))
        assert r["status"] == status, (align, r)
        if status == "unknown":
            assert "bytes past such a multiple" in r["reason"] and "align<16>" in r["reason"]
