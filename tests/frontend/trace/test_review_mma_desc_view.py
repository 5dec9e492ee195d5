"""Review regression for emit_mma: the DSL's wgmma / UMMA descriptor view (`make_fragment -> smem_desc_view`) is
compared with the view its tensor implies, so a view that steps the descriptor wrongly is refuted.

Before, the printed view was read by no claim: Hopper's `(1,1,4,(1,4)):(0,0,2,(0,1024))` changed to a stage step
of 2048 (or a k-block step of 4) left every verdict unchanged. Oracle: the arithmetic written out here (an f16
element stride s steps a descriptor by s*2/16 16-byte units; mode 0, one descriptor, is 1:0), on the capture's
own texts.
"""
import gzip
from pathlib import Path

import pytest

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.trace.document import Doc
from cuteverify.frontend.trace.emit_mma import emit
from cuteverify.frontend.trace.mlir import read

DATA = Path(__file__).resolve().parents[1] / "trace_data"
TEXT = gzip.open(DATA / "hopper_dense_gemm_sm_90a.mlir.gz", "rt").read()
TENSOR = '"((64,16),1,4,(1,4)):((64,1),0,16,(0,8192))"'
VIEW = '"(1,1,4,(1,4)):(0,0,2,(0,1024))"'


def _views(text):
    doc = Doc("k", "k")
    emit(read(text, "h.mlir"), doc)
    claims = [c for c in mf.load_text(doc.yaml()) if "descriptor view" in (c.name or "")]
    return [r["status"] for r in mf.run(claims)]


def test_oracle_arithmetic_matches_the_capture():
    assert TENSOR in TEXT and VIEW in TEXT
    assert (16 * 2 // 16, 8192 * 2 // 16) == (2, 1024)


@pytest.mark.parametrize("new", ['"(1,1,4,(1,4)):(0,0,2,(0,2048))"', '"(1,1,4,(1,4)):(0,0,4,(0,1024))"'])
def test_a_wrong_descriptor_view_is_refuted(new):
    assert _views(TEXT) == ["proved", "proved"]
    assert "refuted" in _views(TEXT.replace(VIEW, new))
