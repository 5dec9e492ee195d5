"""Review regression for emit_mma: every MMA partition of a capture has a row (a claim, an unknown or a note).

Before the fix a `cute.tiled.mma.partition` of a swizzled or dynamic tensor was skipped silently: Ampere's
`tCsC = thr_mma.partition_C(sC)` (an `S<3,3,4>` smem tensor the epilogue's autovec_copy writes through) had no
row. Oracle: the capture's own op list (every partition op and its source line), read by the reader only.
"""
from pathlib import Path

import pytest

from cuteverify.frontend.trace.check import document
from cuteverify.frontend.trace.mlir import read_file

DATA = Path(__file__).resolve().parents[1] / "trace_data"


@pytest.mark.parametrize("path", sorted(DATA.glob("*.mlir.gz")), ids=lambda p: p.name.split(".")[0])
def test_every_mma_partition_has_a_row(path):
    doc = document(path)
    rows = {c.get("at", "").split(": ", 1)[0] for c in doc.to_manifest()["kernels"][doc.kernel]["claims"]}
    rows |= {str(u.loc) for u in doc.unknowns + doc.notes}
    missing = [str(op.loc) for op in read_file(path).of("cute.tiled.mma.partition") if str(op.loc) not in rows]
    assert not missing


def test_ampere_epilogue_smem_partition_says_what_is_unchecked():
    doc = document(DATA / "ampere_tensorop_gemm_sm_80.mlir.gz")
    (u,) = [u for u in doc.notes if str(u.loc).endswith("ampere_tensorop_gemm.py:588")]
    assert "partition_C" in u.what and "smem" in u.what and "are not checked" in u.why
