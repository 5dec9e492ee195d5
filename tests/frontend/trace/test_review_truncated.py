"""Review regressions for the capture reader: a truncated capture is an input error, never a verdict.

Before the fix, the Hopper capture cut at 95% (its `#locN` definitions lost) read as a module whose ops have no
source text, and `trace check` refuted a copy-builder claim on it (exit 1); cut after its header it exited 0 with
no claim. Oracle: the cut itself (the text is a prefix of the committed capture, so what is missing is known).
"""
import gzip
from pathlib import Path

import pytest

from cuteverify.errors import CaptureError
from cuteverify.frontend.trace.check import check_captures
from cuteverify.frontend.trace.mlir import read

DATA = Path(__file__).resolve().parents[1] / "trace_data"
TEXT = gzip.open(DATA / "hopper_dense_gemm_sm_90a.mlir.gz", "rt").read()


def test_undefined_location_alias_is_a_capture_error_naming_the_line():
    cut = TEXT[: int(len(TEXT) * 0.95)]
    with pytest.raises(CaptureError, match=r"h\.mlir:\d+: location #loc\d+ is never defined"):
        read(cut, "h.mlir")


def test_capture_without_ops_is_a_capture_error():
    header_only = TEXT.split("\n", 1)[0] + "\n"
    with pytest.raises(CaptureError, match="no operation"):
        read(header_only, "h.mlir")


def test_truncated_capture_is_one_input_error_row(tmp_path):
    p = tmp_path / "h.mlir"
    p.write_text(TEXT[: int(len(TEXT) * 0.95)])
    results, _, _ = check_captures([p])
    assert [(r["status"], r.get("error_kind")) for r in results] == [("error", "input")]
