"""The TMA box of a smem tile as CUTLASS's construct_tma_gbasis finds it (hardware.tma_box) and the proof that each
box lands where the smem layout says: against the H200's TMA records (specs/evidence/sm90/tma.jsonl: the smem
byte of every element of a 2-D box, swizzle NONE/32B/64B/128B, 2- and 4-byte elements), on tiled GMMA atoms
(several copies per tile), and refuted with the element and both addresses."""
import collections
import json
import pathlib

import pytest

from cuteverify.algebra.tile import tile_to_shape
from cuteverify.core.notation.parse import parse
from cuteverify.errors import TmaError
from cuteverify.hardware.tma.box import prove_landing, smem_box
from cuteverify.hardware.tma.copy import from_copy

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPAN_B = {"NONE": 0, "32B": 1, "64B": 2, "128B": 3}
ASSUME = ["K % 8 == 0", "K <= 2**20", "M <= 2**20"]


def _tma_records():
    groups = collections.defaultdict(dict)
    for line in (ROOT / "specs/evidence/sm90/tma.jsonl").read_text().splitlines():
        r = json.loads(line)
        if "meta" in r:
            continue
        groups[(r["swizzle"], r["elem_bytes"], r["box_cols"], r["box_rows"])][(r["row"], r["col"])] = r["smem_offset"]
    return groups


TMA = _tma_records()


@pytest.mark.differential
@pytest.mark.parametrize("key", sorted(TMA))
def test_derived_copy_lands_as_silicon_wrote_it(key):
    sw, eb, cols, rows = key
    b = SPAN_B[sw]
    m = 4 - (eb.bit_length() - 1)  # the byte swizzle <B,4,3> on element offsets
    smem = parse(f"S<{b},{m},3> o 0 o ({rows},{cols}):({cols},1)" if b else f"({rows},{cols}):({cols},1)")
    dtype = {2: "bf16", 4: "f32"}[eb]
    desc, v = from_copy("(64,128):(128,1)", smem, dtype)
    assert v.proved, v
    assert desc.box == (cols, rows) and desc.swizzle == b and v.rule("box_lands").proved
    # what the proof stands for, on silicon: the layout's byte for every element is the one the TMA wrote
    assert {(r, c): eb * smem(r, c) for r in range(rows) for c in range(cols)} == TMA[key]


def test_tiled_gmma_atom_takes_two_boxes():
    atom = parse("S<3,3,3> o 0 o (8,64):(64,1)")  # GMMA::Layout_K_SW128_Atom<bf16>
    tile = tile_to_shape(atom, (64, 128))
    box = smem_box(tile)
    assert box.dims == ((1, 64), (0, 64)) and box.copies == 2 and "offset 4096" in box.why
    desc, v = from_copy("(M,K):(K,1)", tile, "bf16", assume=ASSUME)
    assert v.proved, v
    assert desc.box == (64, 64) and v.fields["box_copies"] == 2
    # K first (order (1,0)): the box stops after 8 rows, 16 copies
    tile = tile_to_shape(atom, (64, 128), (1, 0))
    desc, v = from_copy("(M,K):(K,1)", tile, "bf16", assume=ASSUME)
    assert v.proved and desc.box == (64, 8) and v.fields["box_copies"] == 16


def test_box_modes_merge_when_the_box_covers_gmem():
    # K = 8 f32 elements per row, fully covered and contiguous: one TMA dimension of 256
    desc, v = from_copy("(512,8):(8,1)", "(32,8):(8,1)", "f32")
    assert v.proved, v
    assert desc.box == (256,) and desc.shape == (4096,)
    # with the 32B swizzle the merged inner box (1024 bytes) exceeds the span: CuTe DSL traces this copy
    # (copy_bits 8192, tests/hardware/test_tma_dsl.py), the driver's rule refuses the descriptor
    _, v = from_copy("(512,8):(8,1)", "S<1,2,3> o 0 o (32,8):(8,1)", "f32")
    assert v.refuted and v.rule("swizzle_span").refuted


def test_landing_refuted_with_the_element_and_both_addresses():
    smem = parse("S<3,3,3> o 0 o (128,64):(64,1)")
    box = smem_box(smem)
    v = prove_landing(smem, box, (2, 4, 3), 16)  # a 64B TMA swizzle under a 128B layout
    assert v.refuted
    cex = v.counterexample
    assert cex.detail["tma"] != cex.detail["layout"]
    # re-evaluated here: the layout's byte for the reported coordinate
    assert cex.detail["layout"] == 2 * smem(*cex.coords)
    assert prove_landing(smem, box, (3, 4, 3), 16).proved
    # an offset the TMA does not know about: from_copy's box_lands refutes it
    _, v = from_copy("(M,K):(K,1)", "S<3,3,3> o 64 o (128,64):(64,1)", "bf16", assume=ASSUME)
    assert v.rule("box_lands").refuted


def test_box_input_errors_and_fallbacks():
    with pytest.raises(TmaError):
        smem_box(parse("(64,64):(72,1)"))  # padded rows: not a compact tile
    with pytest.raises(TmaError):
        smem_box(parse("(M,64):(64,1)"))
    # a padded tile keeps the tile's extents as the box (no landing proof): the span rule decides
    desc, v = from_copy("(M,K):(K,1)", "(64,64):(72,1)", "bf16", assume=ASSUME)
    assert desc.box == (64, 64) and "box_lands" not in [r.claim.split(":")[0] for r in v.rules]


def test_cutlass_hopper_tutorial_tiles():
    # examples/cute/tutorial/hopper/wgmma_sm90.cu: sA = tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (128,64)),
    # TMA from the MN-major gmem A (M,K):(1,M); the K-major variant with Layout_K_SW128_Atom
    mn = tile_to_shape(parse("S<3,3,3> o 0 o (64,8):(1,64)"), (128, 64))
    desc, v = from_copy("(M,K):(1,M)", mn, "f16", assume=["M % 8 == 0", "M <= 2**20", "K <= 2**20"])
    assert v.proved, v
    assert desc.box == (64, 8) and v.fields["box_copies"] == 16 and desc.swizzle == 3
    k = tile_to_shape(parse("S<3,3,3> o 0 o (8,64):(64,1)"), (128, 64))
    desc, v = from_copy("(M,K):(K,1)", k, "f16", assume=ASSUME)
    assert v.proved and desc.box == (64, 128) and v.fields["box_copies"] == 1


def test_cli_derived_from_an_atom_name():
    from click.testing import CliRunner

    from cuteverify.frontend.cli.tma_cmd import tma_cmd
    r = CliRunner().invoke(tma_cmd, ["--gmem", "(M,K):(1,M)", "--smem", "GMMA_MN_SW128", "--tile", "(128,64)",
                                     "--dtype", "f16", "-a", "M % 8 == 0", "-a", "M <= 2**20", "-a", "K <= 2**20"])
    assert r.exit_code == 0, r.output
    assert "box_lands" in r.output
    r = CliRunner().invoke(tma_cmd, ["--gmem", "(M,K):(1,M)", "--smem", "GMMA_MN_SW512", "--dtype", "f16"])
    assert r.exit_code == 2
