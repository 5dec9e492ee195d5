"""`Doc.yaml()` heads the manifest with comments naming what was not checked: a reason that spans lines (a quoted
compiler error) must stay inside comments, so the YAML still loads to the same manifest."""
import yaml

from cuteverify.frontend.trace.document import Doc
from cuteverify.frontend.trace.mlir import Loc


def test_multiline_unknown_reason_keeps_the_yaml_loadable():
    doc = Doc("k", "kernel.cu", {})
    doc.unknown("argument 3 `copy`", Loc("kernel.cu", 7), "the build failed:\nerror: x was not declared\nkernels: [1")
    doc.note("argument 0 `ptr`", Loc("kernel.cu", 7), "a pointer\n: nothing to check")
    text = doc.yaml()
    assert yaml.safe_load(text) == doc.to_manifest()
    assert all(line.startswith("#") for line in text.splitlines()[:text.splitlines().index("version: 1")])
