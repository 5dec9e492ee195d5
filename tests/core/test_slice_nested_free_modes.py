"""Slicing with a nested coordinate whose tuple level keeps several free modes: C++'s ``slice`` concatenates
them into the parent (``filter_tuple``), so ``((_,_),0,0,_,_,_)`` on ``((128,128),1,1,M,N,L)`` is the rank-5
``(128,128,M,N,L)``, not ``((128,128),M,N,L)``: the ranks matter to the next mode-wise op (CUTLASS's Blackwell
GEMM, blackwell_dense_gemm.py:892, ``flat_divide(gC_mnl[((None, None), 0, 0, None, None, None)], epi_tile)``
divides modes 0 and 1 by the epilogue tile; CuTe DSL 4.8.1 prints the slice as ``(128,128,?,?,?{div=8})``).
Found by the trace algebra differential (issue 28). Expected texts: CuTe C++ (g++, the CUTLASS headers),
compared as printed text."""
import pytest

from cuteverify.core.notation.parse import parse

M = "((2,3),(4,5)):((1,2),(6,24))"
_ = None


@pytest.mark.parametrize("crd,cpp", [
    (((_, _), (_, _)), "(2,3,4,5):(1,2,6,24)"),
    (((_, _), _), "(2,3,(4,5)):(1,2,(6,24))"),
    (((_, 1), _), "(2,(4,5)):(1,(6,24))"),
    (((1, _), (_, 2)), "(3,4):(2,6)"),
    (((_, _), 1), "(2,3):(1,2)"),
])
def test_slice_concatenates_free_modes_like_cpp(crd, cpp):
    assert str(parse(M)[crd]) == cpp


def test_blackwell_epilogue_slice_keeps_rank_five():
    L = parse("((128,128),1,1,4,4,2):((1,128),0,0,256,16384,1048576)")
    assert str(L[((_, _), 0, 0, _, _, _)]) == "(128,128,4,4,2):(1,128,256,16384,1048576)"
