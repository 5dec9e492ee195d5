"""``trace cpp``'s runtime values as symbols (issue 29, :mod:`cuteverify.frontend.trace.cpp_symbols`,
:mod:`cuteverify.frontend.trace.cpp_gmem`): a leaf CuTe prints without ``_`` is the capture's placeholder, so it
becomes a named unknown with only the facts the source states, and a gmem copy's vector claim holds for every
size or is an unknown naming the obligation, never a proof at the placeholder.

The records are the committed ones (``cpp/sgemm_sm80.records.json``) and small synthetic ones; the sgemm
source is CUTLASS's tutorial as the nvidia-cutlass wheel ships it (edited only in memory, never written).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cuteverify.analysis.banks import max_vector_width
from cuteverify.core.notation.parse import parse
from cuteverify.frontend.trace import cpp_check, cpp_gmem
from cuteverify.frontend.trace.cpp_emit import emit_launch
from cuteverify.frontend.trace.cpp_capture import Record
from cuteverify.frontend.trace.cpp_symbols import (Symbols, host_leaf_names, host_scope, leaves, stated_facts,
                                                   symbolic_text)
from cuteverify.frontend.trace.cpp_text import blank
from cuteverify.frontend.trace.document import Doc

HERE = Path(__file__).parent / "cpp"
PATH = "examples/cute/tutorial/sgemm_sm80.cu"

# ------------------------------------------------------------------------------------------ the print forms


def test_runtime_leaves_become_symbols_and_static_ones_integers():
    assert [(v, s) for _, _, v, s in leaves("(0,_1)")] == [(0, False), (1, True)]
    assert symbolic_text("(0,_1)", "dA") == "(?dA_0,1)"
    assert symbolic_text("(0,_1)", "dA", ["ldA", None]) == "(?ldA,1)"
    assert symbolic_text("(0,0):(_1,0)", "L") == "(?L_shape0,?L_shape1):(1,?L_stride1)"
    assert symbolic_text("((_8,0),_4):((_1,_8),0)", "L", facts={"L_stride2": 16}) == \
        "((8,?L_shape1),4):((1,8),?L_stride2{div=16})"
    # a swizzle / pointer head and coordinate strides are static: kept
    assert symbolic_text("Sw<3,4,3> o _0 o (_8,4):(_1,_8)", "x") == "Sw<3,4,3> o 0 o (8,?x_shape1):(1,8)"
    assert symbolic_text("gmem_ptr[16b](0x7f00) o (512,256):(256,_1)", "mA").endswith(
        "o (?mA_shape0,?mA_shape1):(?mA_stride0,1)")
    assert symbolic_text("(_64,_8):(_1@0,_1@1)", "x") == "(64,8):(1@0,1@1)"
    assert symbolic_text("0", "M", ["M"], {"M": 128}) == "?M{div=128}"
    # no placeholder integer survives, and the text parses with its facts
    lay = parse(symbolic_text("(0,0):(_1,0)", "L", ["M", "K", None, "ldA"], {"ldA": 8}))
    assert str(lay) == "(M,K):(1,ldA)" and [str(c) for c in lay.assumptions.conditions] == ["8 | ldA"]


_HOST = """
template <class T>
void host(int M, int K, int ldA, T const* A) {
  assert(ldA % 8 == 0);                      // a fact the source states
  if (K % 64 != 0) { return; }               // another
  int unrelated = M % 3;                     // no fact: not an assertion
  auto shape = make_shape(M, K);
  auto dA = make_stride(Int<1>{}, ldA);
  auto L = make_layout(make_shape(M, K), make_stride(Int<1>{}, ldA));
  auto odd = make_shape(M * 2, K);
  kernel<<<1, 1>>>(shape, dA, L, odd, M);
}
void other(int ldA) { assert(ldA % 2 == 0); }
"""


def test_names_and_facts_come_from_the_host_function_that_launches():
    s = blank(_HOST)
    at = s.index("kernel<<<")
    scope = host_scope(s, at)
    assert s[scope[0]] == "{" and "assert(ldA % 8" in s[scope[0]:scope[1]]
    assert stated_facts(s, scope) == {"ldA": 8, "K": 64}  # `other`'s assert is out of scope, `M % 3` no fact
    assert host_leaf_names(s, scope, "dA") == [None, "ldA"]
    assert host_leaf_names(s, scope, "L") == ["M", "K", None, "ldA"]
    assert host_leaf_names(s, scope, "odd") == [None, "K"]
    assert host_leaf_names(s, scope, "nowhere") is None
    line = _HOST[:at].count("\n") + 1
    sym = Symbols(_HOST, line)

    def rec(i, src, text):
        return Record("x.cu:%d" % line, i, "kernel", src, "", text)
    assert sym.text(rec(0, "shape", "(0,0)")) == "(?M,?K{div=64})"
    assert sym.text(rec(1, "dA", "(_1,0)")) == "(1,?ldA{div=8})"
    assert sym.text(rec(2, "L", "(0,0):(_1,0)")) == "(?M,?K{div=64}):(1,?ldA{div=8})"
    assert sym.text(rec(3, "odd", "(0,0)")) == "(?odd_0,?K{div=64})"  # M * 2 is no name: by position
    assert sym.text(rec(4, "M", "0")) == "?M"


def test_a_dynamic_layout_argument_is_an_entry_with_symbols_not_a_placeholder():
    src = _HOST
    line = src[:src.index("kernel<<<")].count("\n") + 1
    recs = [Record(f"x.cu:{line}", 2, "kernel", "L", "cute::Layout<cute::tuple<int, int>, cute::tuple<cute::C<1>, "
                   "int> >", "(0,0):(_1,0)"),
            Record(f"x.cu:{line}", 4, "kernel", "M", "int", "0")]
    doc = emit_launch(Doc("k", "x.cu"), recs, None, "x.cu", src=src)
    assert doc.layouts == {"L": "(?M,?K{div=64}):(1,?ldA{div=8})"}
    notes = [str(n) for n in doc.notes]
    assert any("`M` = ?M" in n for n in notes) and not doc.unknowns
    assert not any(re.search(r"= \(?0", n) for n in notes)  # the placeholder is gone


# --------------------------------------------------------------------------------- the gmem copies (sgemm)

cutlass_library = pytest.importorskip("cutlass_library")
SRC = Path(cutlass_library.__file__).parent / "source" / "examples" / "cute" / "tutorial" / "sgemm_sm80.cu"
if not SRC.is_file():
    pytest.skip(f"the nvidia-cutlass wheel has no {SRC}", allow_module_level=True)


def _docs(text=None):
    data = json.loads((HERE / "sgemm_sm80.records.json").read_text())
    return cpp_check.documents(PATH, text if text is not None else SRC.read_text(),
                               [Record(**r) for r in data["records"]], data["info"])


def _rows(docs, kernel):
    return [r for r in cpp_check.run_documents(docs)[0] if r["kernel"] == kernel]


def test_hgemm_runtime_arguments_are_symbols_named_by_the_host_function():
    doc = next(d for d in _docs() if d.kernel == "gemm_device_424")
    notes = {str(n).split("`")[1]: str(n) for n in doc.notes if "runtime values as symbols" in str(n)}
    assert "= (?M,?N,?K)" in notes["prob_shape"] and "= (?ldA,1)" in notes["dA"] and "= (1,?ldC)" in notes["dC"]
    assert all("(none)" in n for n in notes.values())  # an int states no divisibility


def test_hgemm_gmem_vectors_were_proved_only_at_the_placeholder_and_are_now_an_obligation():
    """copyA's cp.async reads 8 halves of gA per thread: contiguous (K-major A), but 16-byte aligned only where
    8 | ldA. At the capture's placeholder (ldA = 0, what CuTe printed) every offset is 0 and the claim proves:
    that proof says nothing of the kernel. For every size it is an unknown naming the obligation."""
    rows = _rows(_docs(), "gemm_device_424")
    ob = [r for r in rows if r["kind"] == "unmapped" and "16-byte vectors" in r["claim"]]
    assert {r["at"].split("`")[1] for r in ob} == {"copyA", "copyB"}
    assert all("8 | ldA" in r["reason"] or "8 | ldB" in r["reason"] for r in ob)
    access = re.search(r"the access (\S+) moves", next(r for r in ob if "copyA" in r["at"])["reason"]).group(1)
    assert access == "(((8,16),8,2,2),8):(((8,ldA),16*ldA,128*ldA,64),1)"
    at_placeholder = parse(access.replace("ldA", "0"))
    assert max_vector_width(at_placeholder, dtype="f16", require=16, alignment=16).status == "proved"
    everywhere = max_vector_width(parse(access), dtype="f16", require=16, alignment=16)
    assert everywhere.status == "refuted" and everywhere.counterexample.assignment == {"ldA": 1}
    assert max_vector_width(parse(access.replace("(8,ldA)", "(8,?ldA{div=8})", 1)), dtype="f16", require=16,
                            alignment=16).status == "proved"


def test_a_stated_fact_proves_the_gmem_vectors_for_every_size():
    """The same source with `assert(ldA % 8 == 0)` (and ldB) in gemm_tn (edited in memory): the vector claims are
    written and proved for every size; a weaker stated fact (4 | ldA) is refuted at ldA = 4, a size it admits."""
    text = SRC.read_text()
    head = text.index("  auto prob_shape = make_shape(M, N, K);", text.index("gemm_tn(int m, int n, int k"))
    ok = text[:head] + "  assert(ldA % 8 == 0); assert(ldB % 8 == 0);" + text[head:]
    rows = _rows(_docs(ok), "gemm_device_424")
    vec = [r for r in rows if r["kind"] == "vector" and "over `g" in r["claim"]]
    assert len(vec) == 2 and all(r["status"] == "proved" for r in vec), vec
    assert all("for every size" in r["claim"] for r in vec)
    assert not [r for r in rows if r["kind"] == "unmapped"]
    weak = text[:head] + "  assert(ldA % 4 == 0); assert(ldB % 8 == 0);" + text[head:]
    rows = _rows(_docs(weak), "gemm_device_424")
    bad = [r for r in rows if r["status"] == "refuted"]
    assert len(bad) == 1 and "copyA" in bad[0]["at"] and "{'ldA': 4}" in bad[0]["reason"]


def test_sgemm_fp32_launches_vectors_per_layout():
    rows = {k: _rows(_docs(), k) for k in ("gemm_device_497", "gemm_device_574")}
    # NT: m-major A and B, 4 floats per thread: 16-byte vectors where 4 | ldA
    nt = [r for r in rows["gemm_device_497"] if r["kind"] == "unmapped" and "vectors" in r["claim"]]
    assert len(nt) == 2 and all("4 | ld" in r["reason"] for r in nt)
    # TN: one float per cp.async: element-aligned for every size, no obligation
    tn = [r for r in rows["gemm_device_574"] if r["kind"] == "vector" and "over `g" in r["claim"]]
    assert len(tn) == 2 and all(r["status"] == "proved" for r in tn)


def test_gmem_access_places_the_copy_over_the_cta_tile_and_the_tensor():
    text = cpp_gmem.gmem_access(["?M", "?K"], ["?ldA{div=8}", "1"], [128, 64], "((8,16),8):((128,1),16)", [16, 64])
    assert text == "(((8,16),8,2,2),8):(((8,?ldA{div=8}),16*ldA,128*ldA,64),1)"
    # a copy whose values walk the strided mode: not contiguous for any size (refuted, never an obligation)
    bad = cpp_gmem.gmem_access(["?M", "?K"], ["?ldA{div=8}", "1"], [128, 64], "((8,16),8):((1,8),128)", [16, 64])
    assert max_vector_width(parse(bad), dtype="f16", require=16, alignment=16).status == "refuted"
    with pytest.raises(Exception, match="does not divide"):
        cpp_gmem.gmem_access(["?M", "?K"], ["?ldA", "1"], [96, 64], "((8,16),8):((128,1),16)", [64, 64])
