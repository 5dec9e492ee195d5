"""wgmma / UMMA shared-memory matrix descriptors (cuteverify.hardware.descriptors.smem*): the address function against
the H200 (specs/evidence/sm90/wgmma_smem_desc.jsonl.gz: which smem byte each descriptor reads), descriptors
derived from CuTe layouts against the same silicon records, each canonical-form rule both ways, symbolic
buffer addresses, the 64-bit encoding, the CLI verb. The C++ oracle (CUTLASS's make_gmma_desc /
make_umma_desc compiled with g++) is in tests/hardware/test_smem_desc_cpp.py."""
import collections
import gzip
import json
import pathlib

import pytest
from click.testing import CliRunner
from cuteverify.frontend.cli.desc_cmd import desc_cmd

from cuteverify.algebra.tile import tile_to_shape
from cuteverify.core.notation.parse import parse
from cuteverify.errors import TmaError
from cuteverify.hardware import load, resolve
from cuteverify.hardware.descriptors.smem import SmemDescriptor, decode
from cuteverify.hardware.descriptors.smem_rules import block_function, from_layout, gmma_desc, prove_reads, umma_desc

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVIDENCE = ROOT / "specs/evidence/sm90/wgmma_smem_desc.jsonl.gz"


def _configs():
    with gzip.open(EVIDENCE, "rt") as f:
        lines = [json.loads(x) for x in f]
    groups = collections.defaultdict(dict)
    for r in lines[1:]:
        key = (r["operand"], r["smem_layout"], r.get("trans_a", r.get("trans_b")), r["swizzle_mode"],
               r["desc_lbo"], r["desc_sbo"], r["start_offset"])
        # A is recorded (m, k) = (row, col), B as PTX writes it, (k, n) = (row, col)
        el = (r["row"], r["col"]) if r["operand"] == "A" else (r["col"], r["row"])
        assert el not in groups[key]
        groups[key][el] = r["smem_offset"]
    return lines[0]["meta"], groups


META, CONFIGS = _configs()


@pytest.mark.differential
def test_evidence_is_the_h200_run():
    assert META["gpu"] == "NVIDIA H200" and META["cc"] == "9.0"
    assert len(CONFIGS) == 20 and all(len(v) == 64 * 16 for v in CONFIGS.values())


@pytest.mark.differential
@pytest.mark.parametrize("key", sorted(CONFIGS), ids=lambda k: "-".join(map(str, k[:2] + k[-1:])))
def test_address_function_agrees_with_every_silicon_record(key):
    _, _, trans, mode, lbo, sbo, start = key
    d = SmemDescriptor("sm_90", major="MN" if trans else "K", bits=16, mn=64, k=16, start=start, lbo=lbo,
                       sbo=sbo, layout_type=mode)
    assert d.read_map() == CONFIGS[key]


# the smem atoms only: the descriptor tests do not depend on the other spec files
ATOMS = load([ROOT / "specs/smem_atoms.yaml"], shipped=False)


def _atom(major, sw, dtype="f16"):
    return parse(resolve(f"GMMA_{major}_{sw}", dtype=dtype, library=ATOMS)[0].data["layout"])


@pytest.mark.differential
@pytest.mark.parametrize("key", sorted(CONFIGS), ids=lambda k: "-".join(map(str, k[:2] + k[-1:])))
def test_descriptor_derived_from_the_cute_layout_reads_what_silicon_read(key):
    # the probe's smem tile is a GMMA atom tiled to 64 x K; one of the two tile orders gives the probe's
    # LBO/SBO (where the MMA reads them); the derived descriptor then reads, on silicon, exactly the layout
    _, name, trans, mode, lbo, sbo, start = key
    major, sw = name.split("_")
    kb = start // 32
    tried = []
    for order in (None, (1, 0)):
        atom = _atom(major, sw)
        kext = max(16 * (kb + 1), atom.shape[1] if isinstance(atom.shape[1], int) else 8)
        tile = tile_to_shape(atom, (64, kext), order)
        d, v = gmma_desc(tile, "f16", mn=64, k_block=kb)
        assert v.proved, v
        tried.append((d.lbo, d.sbo))
        if d.lbo in (None, lbo) and d.sbo in (None, sbo) and d.layout_type_value == mode and d.start == start:
            assert d.read_map() == CONFIGS[key]
            f = block_function(tile, "f16", 64, 16, 0, kb)
            assert {e: 2 * x for e, x in f.items()} == CONFIGS[key]
            return
    pytest.fail(f"no tiling of the {name} atom gives the probe's descriptor: {tried} vs {(lbo, sbo)}")


# ------------------------------------------------------------------------ derived descriptors, many forms

DTYPES = {"e4m3": 8, "bf16": 16, "tf32": 32}


@pytest.mark.parametrize("major", ["K", "MN"])
@pytest.mark.parametrize("sw", ["INTER", "SW32", "SW64", "SW128"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("arch", ["sm_90", "sm_100"])
def test_gmma_atoms_tiled_give_proved_descriptors_on_every_block(major, sw, dtype, arch):
    bits = DTYPES[dtype]
    tile = tile_to_shape(_atom(major, sw, dtype), (128, 2 * 1024 // bits))
    kblocks = 2 * 1024 // bits // (256 // bits)
    mn = max(64, 128 // bits * 8) if major == "MN" and sw == "SW128" else 64  # the swizzle row's MN extent
    for kb in (0, 1, kblocks - 1):
        d, v = from_layout(tile, dtype, arch, mn=mn, mn_block=128 // mn - 1, k_block=kb)
        if arch == "sm_90" and major == "MN" and bits != 16:
            assert v.refuted and v.rule("major_types").refuted
            continue
        assert v.proved, v
        # post-condition, evaluated independently of the proof: the descriptor reads the layout's bytes
        f = block_function(tile, dtype, mn, 256 // bits, 128 // mn - 1, kb)
        assert all(d.address(i, j) == bits // 8 * x for (i, j), x in f.items())


def test_fa3_style_tiles():
    # FlashAttention-3 (hopper): Q/K K-major SW128 bf16 (kBlockM x kHeadDim = 128 x 128), V MN-major
    # (kBlockN x kHeadDim, the P@V B operand read transposed), fp8 K-major for the fp8 path
    q = tile_to_shape(_atom("K", "SW128", "bf16"), (128, 128))
    for kb in range(8):
        assert gmma_desc(q, "bf16", mn=64, k_block=kb)[1].proved
    # V as the MN-major B operand of P @ V: N = head dim 128, K = 176 (FA3's 128 x 176 forward tile)
    v = tile_to_shape(_atom("MN", "SW128", "bf16"), (128, 176))
    d, ver = gmma_desc(v, "bf16", mn=128, k_block=10)
    assert ver.proved and d.layout_type == "B128"
    # LBO: between the two 64-element swizzle rows along N; SBO: between 8-row groups along K (the layout's)
    assert (d.lbo, d.sbo) == (2 * v.outer(64, 0), 2 * v.outer(0, 8)) and d.start == 2 * v.outer(0, 160)
    f8 = tile_to_shape(_atom("K", "SW128", "e4m3"), (128, 256))
    d, ver = gmma_desc(f8, "e4m3", mn=128, k_block=7)
    assert ver.proved and d.k == 32 and d.start == f8.outer(0, 7 * 32) == 16384 + 96


# --------------------------------------------------------------------------------- rules, both ways

K_SW128 = "S<3,3,3> o 0 o (64,64):(64,1)"   # 8 rows repeat: rows 128 B apart, groups of 8 rows 1024 B apart


@pytest.mark.parametrize("rule_name, inside, outside", [
    ("k_size", dict(k=16), dict(k=8)),
    ("mn_size", dict(mn=64), dict(mn=60)),
    ("block_inside", dict(k_block=3), dict(k_block=4)),
    ("field_alignment", dict(address=16 * 1024), dict(address=16 * 1024 + 8)),
    ("pattern_alignment", dict(address=1024), dict(address=512)),
    ("field_range", dict(address=2 ** 18 - 8192), dict(address=2 ** 18)),
])
def test_rule_boundary_both_ways(rule_name, inside, outside):
    _, vin = gmma_desc(K_SW128, "f16", **inside)
    _, vout = gmma_desc(K_SW128, "f16", **outside)
    assert vin.rule(rule_name).proved, vin
    assert vout.rule(rule_name).refuted and vout.refuted


@pytest.mark.parametrize("rule_name, good, bad, arch, dtype, mn", [
    # a 16-byte chunk: 8 consecutive f16 along K (stride 1) -- or stride 2 inside the chunk
    ("chunk_contiguous", "(64,(8,2)):(8,(1,512))", "(64,(8,2)):(16,(2,1024))", "sm_90", "f16", 64),
    # core matrix rows 16 bytes apart (INTERLEAVE): 8 elements; 9 is one element too far
    ("core_rows", "((8,8),(8,2)):((8,64),(1,512))", "((8,8),(8,2)):((9,72),(1,576))", "sm_90", "f16", 64),
    # 8-row groups at a constant SBO: the 5th group out of step
    ("sbo_uniform", "((8,8),(8,2)):((8,64),(1,512))", "((8,4,2),(8,2)):((8,64,320),(1,1024))", "sm_90", "f16", 64),
    # MN-major INTERLEAVE fp8 on sm_100 (k = 32: four 8-row groups along K): LBO 128 everywhere, or not
    ("lbo_uniform", "(16,(8,4)):(1,(16,128))", "(16,(8,2,2)):(1,(16,128,384))", "sm_100", "e4m3", 16),
])
def test_canonical_form_rules_both_ways(rule_name, good, bad, arch, dtype, mn):
    _, vg = from_layout(good, dtype, arch, mn=mn)
    _, vb = from_layout(bad, dtype, arch, mn=mn, major="K" if rule_name == "chunk_contiguous" else None)
    assert vg.proved, vg
    assert vb.rule(rule_name).refuted, vb
    assert vb.rule("reads_layout").refuted  # a broken canonical digit is a wrong read somewhere


def test_lbo_uniform_is_the_interleave_k_step():
    # a K-major INTERLEAVE block whose second K chunk is 64 bytes away in row group 0 but 48 in group 1
    _, v = gmma_desc("((8,2),(8,2)):((8,128),(1,32))", "f16", mn=16)
    assert v.proved  # LBO = 64: uniform
    bad = parse("((8,2),(8,2)):((8,128),(1,32))")
    d, _ = gmma_desc(bad, "f16", mn=16)
    wrong = SmemDescriptor("sm_90", major="K", bits=16, mn=16, k=16, start=0, lbo=d.lbo + 16, sbo=d.sbo)
    r = prove_reads(wrong, bad)
    assert r.refuted and r.counterexample.detail["descriptor"] - r.counterexample.detail["layout"] == 16


def test_swizzle_row_and_k_chunk_rules():
    # MN-major SW64 f16: 4 chunks of 8 consecutive along MN; a gap after the second chunk breaks swizzle_row
    good = "S<2,3,3> o 0 o ((32,2),(8,2)):((1,256),(32,512))"
    bad = "S<2,3,3> o 0 o ((16,2,2),(8,2)):((1,24,256),(32,512))"
    assert gmma_desc(good, "f16")[1].proved
    v = gmma_desc(bad, "f16")[1]
    assert v.rule("swizzle_row").refuted and v.rule("reads_layout").refuted
    # K-major SW32: the second K chunk must follow the first (+16 B); +32 B is refuted
    assert gmma_desc("S<1,3,3> o 0 o (64,(8,2)):(16,(1,8))", "f16")[1].proved
    v = gmma_desc("S<1,3,3> o 0 o (64,(8,2)):(32,(1,16))", "f16")[1]
    assert v.rule("k_chunk").refuted or v.rule("core_rows").refuted


def test_swizzle_mode_rules():
    # the byte swizzle <3,4,3> written on 16-bit element offsets is Swizzle<3,5,3> on bytes: no layout type
    v = gmma_desc("S<3,4,3> o 0 o (64,64):(64,1)", "f16")[1]
    assert v.refuted and v.rule("swizzle_mode").refuted
    assert gmma_desc("S<3,3,3> o 0 o (64,64):(64,1)", "f16")[1].proved
    # 128B_BASE32B (Swizzle<2,5,2> on bytes) exists on sm_100 MN-major only
    base32 = "S<2,4,2> o 0 o ((64,2),(16,1)):((1,1024),(64,0))"
    assert gmma_desc(base32, "f16")[1].rule("swizzle_mode").refuted
    d, v = umma_desc(base32, "f16", mn=128)
    assert d.layout_type == "SWIZZLE_128B_BASE32B" and d.layout_type_value == 1
    assert v.rule("reads_layout").proved, v


def test_major_types_and_inferred_major():
    assert gmma_desc("(8,(4,2)):(4,(1,32))", "tf32", mn=8)[1].proved  # K-major tf32
    v = gmma_desc("((4,2),(8,1)):((1,32),(4,0))", "tf32", mn=8)[1]
    assert v.rule("major_types").refuted
    d, v = umma_desc("((4,2),(8,1)):((1,32),(4,0))", "tf32", mn=8)
    assert d.major == "MN" and v.proved, v
    v = gmma_desc("(64,16):(32,2)", "f16")[1]
    assert v.refuted and v.rule("major").refuted


def test_symbolic_buffer_address():
    tile = tile_to_shape(_atom("K", "SW128"), (128, 64))
    d, v = gmma_desc(tile, "f16", mn=64, k_block=2, address="A", assume=["A % 1024 == 0", "A < 2**17"])
    assert v.proved, v
    assert str(d.start) == "A + 64"
    _, v = gmma_desc(tile, "f16", mn=64, address="A", assume=["A % 512 == 0", "A < 2**17"])
    assert v.rule("pattern_alignment").refuted
    assert v.rule("pattern_alignment").counterexample.assignment == {"A": 512}
    _, v = gmma_desc(tile, "f16", mn=64, address="A", assume=["A % 1024 == 0"])  # missing bound: smallest
    assert v.rule("field_range").counterexample.assignment == {"A": 2 ** 18}


def test_encoding_round_trip_and_umma_fields():
    tile = tile_to_shape(_atom("MN", "SW64"), (64, 32))
    d, v = gmma_desc(tile, "f16", k_block=1)
    e = decode(d.value(), "sm_90", major="MN", bits=16, mn=64)
    assert (e.start, e.lbo, e.sbo, e.layout_type) == (d.start, d.lbo, d.sbo, d.layout_type)
    assert d.value() >> 62 == 2  # B64
    u, v = umma_desc(tile, "f16", k_block=1)
    assert v.proved and u.value() >> 61 == 4 and (u.value() >> 46) & 7 == 1 and (u.value() >> 52) & 1 == 0
    e = decode(u.value(), "sm_100", major="MN", bits=16, mn=64)
    assert e.read_map() == u.read_map() and e.version == 1
    bad = SmemDescriptor("sm_100", major="MN", bits=16, mn=64, start=u.start, lbo=u.lbo, sbo=u.sbo,
                         layout_type="SWIZZLE_64B", version=0)
    assert bad.value() != u.value()


def test_base_offset_shifts_the_swizzle_rows():
    # a pattern starting 3 rows (384 bytes) into a 1024-byte repeat (the silicon records: below)
    d0 = SmemDescriptor("sm_90", bits=16, mn=8, start=384, sbo=1024, layout_type="B128")
    d3 = SmemDescriptor("sm_90", bits=16, mn=8, start=384, sbo=1024, layout_type="B128", base_offset=3)
    assert d3.address(0, 0) == 384 and d3.address(1, 8) == 384 + 128 + 16 ^ 16  # row 1 of the pattern
    assert d0.address(0, 0) == 384 ^ (3 << 4)


def test_bad_input_is_an_error():
    for bad in ("(64,16,2):(16,1,1024)", "(M,16):(16,1)", "(64,16):(1@0,1@1)"):
        with pytest.raises(TmaError):
            gmma_desc(bad, "f16")
    with pytest.raises(TmaError):
        SmemDescriptor("sm_90", layout_type="B256")
    with pytest.raises(TmaError):
        SmemDescriptor("sm_100", major="K", layout_type="SWIZZLE_128B_BASE32B")


def test_cli_exit_codes():
    run = CliRunner().invoke
    r = run(desc_cmd, ["--smem", "GMMA::Layout_K_SW128_Atom<bfloat16_t>", "--tile", "(128,64)", "--dtype", "bf16",
                       "--mn", "64", "--k-block", "3"])
    assert r.exit_code == 0, r.output
    assert "start_address: 96" in r.output and "B128" in r.output
    r = run(desc_cmd, ["--smem", "(64,16):(16,1)", "--dtype", "f16", "--json"])
    assert r.exit_code == 1
    j = json.loads(r.output)
    assert j["status"] == "refuted" and any(x["name"] == "core_rows" and x["status"] == "refuted"
                                            for x in j["rules"])
    assert run(desc_cmd, ["--smem", "(64,16", "--dtype", "f16"]).exit_code == 2
    r = run(desc_cmd, ["--smem", K_SW128, "--dtype", "f16", "--address", "A", "-a", "A % 1024 == 0",
                       "--arch", "sm_100"])
    assert r.exit_code == 1 and "field_range" in r.output
    r = run(desc_cmd, ["--smem", K_SW128, "--dtype", "f16", "--address", "A", "-a", "A % 1024 == 0",
                       "-a", "A < 2**17"])
    assert r.exit_code == 0, r.output


# ------------------------------------------------------------------ the base offset on silicon (H200)

BASE_EVIDENCE = ROOT / "specs/evidence/sm90/wgmma_desc_base_offset.jsonl.gz"


def _base_configs():
    with gzip.open(BASE_EVIDENCE, "rt") as f:
        lines = [json.loads(x) for x in f]
    groups = collections.defaultdict(dict)
    for r in lines[1:]:
        key = (r["smem_layout"], r["trans_a"], r["swizzle_mode"], r["desc_lbo"], r["desc_sbo"], r["start_offset"],
               r["base_offset"])
        groups[key][(r["row"], r["col"])] = r["smem_offset"]
    return lines[0]["meta"], groups


BASE_META, BASE_CONFIGS = _base_configs()


@pytest.mark.differential
def test_base_offset_evidence_is_the_h200_run():
    assert BASE_META["gpu"] == "NVIDIA H200" and len(BASE_CONFIGS) == 12
    assert all(len(v) == 1024 for v in BASE_CONFIGS.values())
    # the base offset changes what is read: start +384 with base offset 0 and 3 read different bytes
    a = BASE_CONFIGS[("K_SW128", 0, 1, 16, 1024, 384, 0)]
    b = BASE_CONFIGS[("K_SW128", 0, 1, 16, 1024, 384, 3)]
    assert a != b


@pytest.mark.differential
@pytest.mark.parametrize("key", sorted(BASE_CONFIGS), ids=lambda k: f"{k[0]}-start{k[5]}-base{k[6]}")
def test_base_offset_model_agrees_with_every_silicon_record(key):
    _, trans, mode, lbo, sbo, start, base = key
    d = SmemDescriptor("sm_90", major="MN" if trans else "K", bits=16, mn=64, k=16, start=start, lbo=lbo, sbo=sbo,
                       layout_type=mode, base_offset=base)
    assert d.read_map() == BASE_CONFIGS[key]


def test_a_block_past_the_largest_mma_is_refuted_before_enumeration():
    """A 65536-row tile with the default block (the whole MN extent) is refuted by ``mn_max`` at once; the block
    evaluators refuse, naming the limit, a block past MAX_BLOCK_ELEMENTS; a 256-row block is still read."""
    from cuteverify.errors import TmaError
    from cuteverify.hardware.descriptors.smem_rules import MAX_BLOCK_ELEMENTS, block_function
    big = "(65536,65536):(65536,1)"
    d, v = gmma_desc(big, "bf16")
    assert d is None and v.refuted and v.rule("mn_max").refuted and v.rule("k_size").proved
    _, v = gmma_desc(big, "bf16", k=100000)
    assert v.refuted and v.rule("k_size").refuted
    with pytest.raises(TmaError, match=str(MAX_BLOCK_ELEMENTS)):
        block_function(big, "bf16", 65536, 16)
    _, v = gmma_desc("S<3,3,3> o 0 o (256,64):(64,1)", "bf16", mn=256)
    assert v.rule("mn_max").proved and v.rule("reads_layout").proved, v
