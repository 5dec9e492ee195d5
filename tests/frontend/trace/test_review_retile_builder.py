"""Review regression for emit_copy's retile: a copy whose builder its source line does not name is not claimed
`compatible` with the whole fragment it retiles.

Hopper's epilogue copy is `make_tiled_copy_S(atom, tiled_copy_C_Atom)` (a 128x16 sub-tile of the 128x256 C
tile) and retiles the accumulator. Written through a helper (`tiled_copy_r2s = make_copy_for_epilogue(`) the
source line no longer names the builder; before the fix the retile was claimed `compatible` with tiled_mma's
whole C fragment and refuted on an unchanged kernel. Oracle: the DSL's printed tiler of the copy (its tile is
not the MMA's C tile), read here from the capture.
"""
import gzip
import re
from pathlib import Path

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.trace.document import Doc
from cuteverify.frontend.trace.emit_copy import emit
from cuteverify.frontend.trace.mlir import read

DATA = Path(__file__).resolve().parents[1] / "trace_data"
TEXT = gzip.open(DATA / "hopper_dense_gemm_sm_90a.mlir.gz", "rt").read()
OLD, NEW = '"tiled_copy_r2s = cute.make_tiled_copy_S("', '"tiled_copy_r2s = make_copy_for_epilogue("'


def test_sub_tile_copy_is_no_whole_fragment_copy():
    # the oracle: the copy's tile (from its printed tiler) is 128x16, the MMA's C tile 128x256
    tiler = re.search(r'tiled_copy<!cute_nvgpu\.atom\.stsm[^\n]*?tiler_mn = <"\[\(8,8,2\):\(1,16,8\);\(4,2,2\):\(2,1,8\)\]"',
                      TEXT)
    assert tiler is not None and 8 * 8 * 2 * 4 * 2 * 2 != 128 * 256
    assert TEXT.count(OLD) == 1
    doc = Doc("k", "k")
    emit(read(TEXT.replace(OLD, NEW), "h.mlir"), doc)
    claims = mf.load_text(doc.yaml())
    assert not [c for c in claims if c.kind == "compatible"]
    assert any("retiling the C fragment" in u.what and str(u.loc).endswith(":956") for u in doc.unknowns)
    assert all(r["status"] != "refuted" for r in mf.run(claims))
