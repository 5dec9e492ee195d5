"""``tile_to_mma_shape`` (issue 17): the shared-memory layout of a UMMA operand tile, against CUTLASS's
``UMMA::tile_to_mma_shape`` compiled with g++ (the function of the outer layout, value by value) and against
CuTe DSL's printed forms where the DSL answers."""
from __future__ import annotations

import itertools

import pytest

import cuteverify as cv
from cuteverify.core.swizzle import ComposedLayout
from sm100_oracle import run_lines

ATOMS = ("UMMA::Layout_K_SW128_Atom<half_t>", "UMMA::Layout_MN_SW128_Atom<half_t>", "UMMA::Layout_K_SW32_Atom<float>",
         "UMMA::Layout_K_INTER_Atom<half_t>", "UMMA::Layout_MN_SW64_Atom<cutlass::float_e4m3_t>")
SHAPES = ("Shape<Shape<_128,_64>,_1,_1,_4>", "Shape<Shape<_128,_64>,_2,_2,_3>", "Shape<Shape<_64,_32>,_2,_1,_2>",
          "Shape<Shape<_256,_128>,_1,_1>")
# every pair whose atom divides the tile (C++ static_asserts the others; they are the input errors below)
CASES = [(a, s) for a, s in itertools.product(ATOMS, SHAPES) if not ("K_SW128" in a and "_64,_32" in s)]


def _cv_shape(cpp: str):
    return cv.parse_tuple(cpp.replace("Shape<", "(").replace(">", ")").replace("_", ""))


def _values(L):
    """Values of a plain layout over [0, size), by this test's own enumeration of its leaves (colex)."""
    def leaves(x):
        return [y for e in x for y in leaves(e)] if type(x) is tuple else [x]
    sh, st = leaves(L.shape), leaves(L.stride)
    return [sum(c * d for c, d in zip(reversed(digits), st))
            for digits in itertools.product(*[range(s) for s in reversed(sh)])]


@pytest.fixture(scope="module")
def cpp(tmp_path_factory):
    lines = []
    for i, (atom, shape) in enumerate(CASES):
        lines.append(f'{{ auto a = {atom}{{}}; auto r = UMMA::tile_to_mma_shape(a, {shape}{{}});'
                     f' printf("@ {i} "); print(a.layout_b()); printf(" "); print(a.layout_a()); printf(" |");'
                     f' auto L = r.layout_b(); for (int j = 0; j < int(size(L)); ++j) printf(" %d", int(L(j)));'
                     f' printf("\\n"); }}')
    out = run_lines(tmp_path_factory.mktemp("t2m"), lines, "t2m")
    got = {}
    for line in out:
        if line.startswith("@ "):
            head, vals = line[2:].split(" |")
            idx, outer, swz = head.split(" ", 2)
            got[int(idx)] = (outer, swz, [int(v) for v in vals.split()])
    return got


@pytest.mark.differential
def test_the_outer_layout_is_cutlass_s_function(cpp):
    assert len(cpp) == len(CASES)
    for i, (atom, shape) in enumerate(CASES):
        outer, _swz, want = cpp[i]
        R = cv.tile_to_mma_shape(cv.parse(outer), _cv_shape(shape))
        assert R.shape == _cv_shape(shape) or cv.size(R) == len(want), (atom, shape, R)
        assert _values(R) == want, (atom, shape, str(R))


def test_a_swizzled_atom_keeps_its_swizzle_and_the_same_outer_function():
    atom = cv.parse("S<3,3,3> o 0 o (8,64):(64,1)")
    plain = cv.parse("(8,64):(64,1)")
    for shape in (((128, 64), 1, 1, 4), ((128, 64), 2, 2, 3), ((64, 64), 2, 1, 2)):
        R = cv.tile_to_mma_shape(atom, shape)
        assert isinstance(R, ComposedLayout) and str(R).startswith("S<3,3,3> o 0 o ")
        assert str(R).split(" o ")[-1] == str(cv.tile_to_mma_shape(plain, shape))


def test_printed_forms_are_cute_dsl_s():
    # CuTe DSL 4.8.1 (tcgen05.tile_to_mma_shape of the K_SW128 f16 atom, recorded): the DSL writes the byte
    # swizzle S<3,4,3> over an element layout; the element-level form here is S<3,3,3>
    atom = cv.parse("S<3,3,3> o 0 o (8,64):(64,1)")
    assert str(cv.tile_to_mma_shape(atom, ((128, 64), 1, 1, 4))) == "S<3,3,3> o 0 o ((128,64),1,1,4):((64,1),0,0,8192)"
    assert str(cv.tile_to_mma_shape(atom, ((128, 64), 2, 2, 3))) == \
        "S<3,3,3> o 0 o ((128,64),2,2,3):((64,1),8192,16384,32768)"


@pytest.mark.parametrize("shape,why", [(((128, 64), 2), "MMA tile shape"), ((128, 2, 2), "MMA tile shape"),
                                       (((128, 32), 1, 1), "divide")])
def test_bad_shapes_are_named_input_errors(shape, why):
    with pytest.raises(cv.NotAdmissibleError, match=why):
        cv.tile_to_mma_shape(cv.parse("(8,64):(64,1)"), shape)
