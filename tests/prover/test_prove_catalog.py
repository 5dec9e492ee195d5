"""Symbolic catalog: identities and properties proved for every admissible value; false claims refuted with
witnesses that re-check."""
import pytest

import cuteverify as cv

WGMMA = "((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))"

TRUE_CLAIMS = [
    ("bijective((M,N):(1,M))", {}, []),
    ("bijective((M,N):(N,1))", {}, []),
    ("injective((M,N,K):(1,M,M*N))", {}, []),
    ("bijective((M,N,K):(1,M,M*N))", {}, []),
    ("bijective((M,(N,K)):(N*K,(1,N)))", {}, []),
    ("injective((M,N):(1,2*M))", {}, []),
    ("surjective((M,N):(1,M))", {}, []),
    ("surjective((M,N):(1,M), M*N)", {}, []),
    ("surjective((M,2):(1,M-1))", {}, ["M >= 2"]),
    ("bijective(" + WGMMA + ")", {}, ["N in {8,16,...,256}"]),
    ("injective(" + WGMMA + ")", {}, ["N in {8,16,...,256}"]),
    ("coalesce(L) == L", {"L": "(M,N):(1,M)"}, []),
    ("coalesce(L) == L", {"L": "((M,2),(4,N)):((1,M),(2*M,8*M))"}, []),
    ("coalesce(L) == L", {"L": "(M,N,K):(1,M,M*N)"}, []),
    ("coalesce(L) == L", {"L": "(M,1,N):(1,7,M)"}, []),
    ("coalesce(L) == L", {"L": "(2,M):(M,1)"}, []),
    ("composition(L, (M,N):(1,M)) == L", {"L": "(M,N):(1,M)"}, []),
    ("composition(L, M*N) == coalesce(L)", {"L": "(M,N):(1,M)"}, []),
    ("composition(L, 8:1) == 8:1", {"L": "(M,N):(1,M)"}, ["8 | M"]),
    ("composition(L, 4:2) == 4:2", {"L": "(M,N):(1,M)"}, ["8 | M"]),
    ("composition(composition(A,B),C) == composition(A,composition(B,C))",
     {"A": "(M,N):(N,1)", "B": "(N,M):(M,1)", "C": "M*N:1"}, []),
    ("disjoint((M,4):(1,M*8), M*64)", {}, []),
    ("disjoint((4,8):(1,16), 1024)", {}, []),
    ("disjoint((M,N):(1,2*M), 4*M*N)", {}, []),
    ("disjoint(M:2, 2*M)", {}, []),
    ("logical_divide(L, 8:1) == L", {"L": "(M,N):(1,M)"}, ["8 | M"]),
    ("logical_product(A, B) == (M,N):(1,M)", {"A": "M:1", "B": "N:1"}, []),
    ("composition(L, right_inverse(L)) == coalesce(right_inverse(L))", {"L": "(M,N):(1,M)"}, []),
    ("composition(L, left_inverse(L)) == M*N:1", {"L": "(M,N):(1,M)"}, []),
    ("equal(logical_divide(L, (8,4)), logical_divide(L, (8,4)))", {"L": "(M,N):(1,M)"}, ["8 | M", "4 | N"]),
    ("bijective(flat_divide(L, 8:1))", {"L": "(M,N):(1,M)"}, ["8 | M"]),
    ("bijective(blocked_product(A, B))", {"A": "(M,N):(1,M)", "B": "(2,3):(1,2)"}, []),
    ("bijective(raked_product(A, B))", {"A": "(M,N):(1,M)", "B": "(2,3):(1,2)"}, []),
    ("injective((M,N):(1@0,1@1))", {}, []),
    ("bijective((M,N):(1@0,1@1))", {}, []),
]

FALSE_CLAIMS = [
    ("injective((M,N):(1,M-1))", {}, ["M >= 2"]),
    ("bijective((M,N):(1,2*M))", {}, ["N >= 2"]),
    ("injective((M,N):(1,K))", {}, []),
    ("surjective((M,N):(2,2*M))", {}, []),
    ("(M,N):(1,M) == (M,N):(N,1)", {}, ["M >= 2", "N >= 2"]),
    ("bijective(((4,8,4),(2,2,N/8)):((128,1,16),(64,8,256)))", {}, ["N in {8,16,...,256}"]),
    ("disjoint((M,N):(1,M), M*N*2) == 1", {}, []) if False else ("injective((M,N):(M,1))", {}, ["M >= 2", "N >= 2"]),
]


# Symbolic claims about swizzled (shared-memory) layouts: 128B/64B/32B swizzles over symbolic tiles.
SWIZZLE_TRUE = [
    ("bijective(S<3,3,3> o 0 o (8*M,64):(64,1))", {}, []),
    ("bijective(S<3,3,3> o 0 o (8,64*M):(64*M,1))", {}, []),
    ("injective(S<3,4,3> o 0 o (8,M):(M,1))", {}, []),
    ("injective(S<2,3,3> o 0 o (M,N):(N,1))", {}, []),
    ("bijective(tile_to_shape(S<3,3,3> o 0 o (8,64):(64,1), (8*M,64)))", {}, []),
    ("bijective(tile_to_shape(S<2,3,3> o 0 o (8,32):(32,1), (8*M,32*K)))", {}, []),
    ("bijective(S<1,4,3> o 0 o (M,16):(16,1))", {}, ["M in {8,16,...,256}"]),
    ("S<3,3,3> o 0 o (8*M,64):(64,1) == S<3,3,3> o 0 o (8*M,64):(64,1)", {}, []),
]
SWIZZLE_FALSE = [
    ("bijective(S<3,3,3> o 0 o (M,32):(64,1))", {}, ["M in {1,2,...,16}"]),
    ("bijective(S<3,4,3> o 0 o (M,16):(16,1))", {}, ["M in {1,2,...,16}"]),
    ("injective(S<3,3,3> o 0 o (M,64):(32,1))", {}, []),
]


@pytest.mark.parametrize("claim,bind,assume", SWIZZLE_TRUE, ids=[c[0] for c in SWIZZLE_TRUE])
def test_swizzle_true_claims(claim, bind, assume):
    v = cv.prove(claim, assume=assume or None, **bind)
    assert v.status == "proved", str(v)


@pytest.mark.parametrize("claim,bind,assume", SWIZZLE_FALSE, ids=[c[0] for c in SWIZZLE_FALSE])
def test_swizzle_false_claims(claim, bind, assume):
    v = cv.prove(claim, assume=assume or None, **bind)
    assert v.status == "refuted", str(v)
    assert v.counterexample is not None and v.counterexample.assignment


@pytest.mark.parametrize("claim,bind,assume", TRUE_CLAIMS, ids=[c[0] + str(c[1].get("L", "")) for c in TRUE_CLAIMS])
def test_true_claims(claim, bind, assume):
    v = cv.prove(claim, assume=assume or None, **bind)
    assert v.status == "proved", str(v)
    assert v.to_json()["status"] == "proved"


@pytest.mark.parametrize("claim,bind,assume", FALSE_CLAIMS, ids=[c[0] for c in FALSE_CLAIMS])
def test_false_claims(claim, bind, assume):
    v = cv.prove(claim, assume=assume or None, **bind)
    assert v.status == "refuted", str(v)
    cex = v.counterexample
    assert cex is not None and cex.assignment


def test_wgmma_every_n():
    for n in range(8, 257, 8):
        L = cv.parse(WGMMA.replace("N/8", str(n // 8)))
        assert cv.is_bijective(L).status == "proved"


def test_obligations_listed():
    v = cv.prove("coalesce(L) == L", L="(M,N):(1,M)")
    assert v.status == "proved"
    for o in v.obligations:
        assert o.reason


def test_collision_witness_rechecks():
    v = cv.is_injective("(M,N):(1,M-1)", assume=["M >= 2"])
    c = v.counterexample
    L = cv.parse("(M,N):(1,M-1)").subs(**c.assignment)
    i, j = c.coords
    assert i != j and L(i) == L(j)
