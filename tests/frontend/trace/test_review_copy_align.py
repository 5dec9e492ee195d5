"""Review regressions for emit_copy: a `vector` claim assumes no more alignment than the tensor guarantees.

A 16-byte vector's first byte is 16-byte aligned only when the tensor's base is: FA4 sm80's sQ / sK / sV carry
`align<1024>`; the same capture with `align<2>` on them (a kernel whose base the DSL guarantees only 2-byte
aligned) must not prove 16-byte vectors through them (before the fix the claim assumed 16-byte alignment).
Oracle: the arithmetic of the mutation itself (2 < 16), and the unmutated capture, which proves them.
"""
import gzip
import re
from pathlib import Path

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.trace.document import Doc
from cuteverify.frontend.trace.emit_copy import emit
from cuteverify.frontend.trace.mlir import read

DATA = Path(__file__).resolve().parents[1] / "trace_data"
TEXT = gzip.open(DATA / "fa4_fwd_sm_80.mlir.gz", "rt").read()
_SWIZZLED = re.compile(r'^(!memref_smem_f16\w* = !cute\.memref<f16, smem, )align<1024>(, "S<3,3,3>)', re.M)


def _vector_results(text):
    doc = Doc("k", "k")
    emit(read(text, "fa4_fwd_sm_80.mlir"), doc)
    claims = [c for c in mf.load_text(doc.yaml()) if c.kind == "vector"]
    return {(r["at"].split(": ", 1)[0], r["claim"]): r["status"] for r in mf.run(claims)}


def test_vector_claims_follow_the_tensor_alignment():
    mutated, n = _SWIZZLED.subn(r"\1align<2>\2", TEXT)
    assert n >= 5
    before, after = _vector_results(TEXT), _vector_results(mutated)
    at = "site-packages/flash_attn/cute/flash_fwd.py:889"
    sixteen = [k for k in before if k[0] == at and "16-byte" in k[1]]
    assert sixteen and all(before[k] == "proved" for k in sixteen)
    assert all(after[k] == "refuted" for k in sixteen)
