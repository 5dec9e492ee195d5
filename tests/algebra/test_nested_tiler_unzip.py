"""zipped/tiled/flat divide by a tiler with a nested tiler mode (``[[2:1;2:1;2:1];1:0;2:1]``, QuACK's sm90 GEMM
epilogue ``cute.flat_divide(acc_reshaped, epi_acc_shape)``): the nested mode's tiles and rests are gathered
sub-mode by sub-mode, as C++'s ``zip2_by`` does. Found by the trace algebra differential (issue 28): before
the fix the divided layout kept one sub-tile and lost half the elements (size 96 of 192).

Expected texts: CuTe C++ (``print(flat_divide(A, T))`` with the CUTLASS headers, g++) and, for the flat
divide, the CuTe DSL 4.8.1 capture tests/frontend/trace_data/quack_gemm_sm_90a.mlir.gz (``!memref_rmem_f32_3``);
compared as printed text, so the check shares no code with the algebra."""
import pytest

from cuteverify.algebra.expr import evaluate
from cuteverify.core.notation.parse import parse

A = "((2,2,2),2,(12,1)):((1,2,4),96,(8,0))"
T = "[[2:1;2:1;2:1];1:0;2:1]"
CPP = {
    "flat_divide": "((2,2,2),1,2,(1,1,1),2,6):((1,2,4),0,8,(0,0,0),96,16)",
    "zipped_divide": "(((2,2,2),1,2),((1,1,1),2,6)):(((1,2,4),0,8),((0,0,0),96,16))",
    "tiled_divide": "(((2,2,2),1,2),(1,1,1),2,6):(((1,2,4),0,8),(0,0,0),96,16)",
}


@pytest.mark.parametrize("op", sorted(CPP))
def test_nested_tiler_mode_is_unzipped_by_sub_mode(op):
    got = evaluate(f"{op}(A, {T})", {"A": parse(A)})
    assert str(got) == CPP[op]


def test_nested_tiler_product_matches_cpp():
    # C++: zipped_product(make_layout(((2,2),3)), make_tile(make_tile(2:1, 2:1), 3:1))
    got = evaluate("zipped_product(B, [[2:1;2:1];3:1])", {"B": parse("((2,2),3):((1,2),4)")})
    assert str(got) == "(((2,2),3),((2,2),3)):(((1,2),4),((2,1),1))"
