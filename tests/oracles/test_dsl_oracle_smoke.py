"""Smoke test: the CuTe DSL oracle reproduces known DSL 4.8.1 outputs."""


import pytest

import dsl_oracle

pytestmark = pytest.mark.skipif(
    not dsl_oracle.available(),
    reason="CuTe DSL (pip install nvidia-cutlass-dsl==4.8.1) is not importable",
)

KNOWN = [
    ("coalesce", (((2, (1, 6)), (1, (6, 2))),), "12:1"),
    ("coalesce", (((4, 1, 8), (1, 9, 4)),), "32:1"),
    ("filter", (((4, (2, 3)), (1, (0, 4))),), "12:1"),
    ("composition", (((10, 2), (16, 4)), ((5, 4), (1, 5))), "(5,(2,2)):(16,(80,4))"),
    ("composition", (((6, 2), (8, 2)), ((4, 3), (3, 1))), "((2,2),3):((24,2),8)"),
    ("composition", (((12, (4, 8)), (59, (13, 1))), ("tiler", [(3, 4), (8, 2)])),
     "(3,(2,4)):(236,(26,1))"),
    ("complement", ((4, 2), 24), "(2,3):(1,8)"),
    ("complement", (((2, 4), (1, 6)), 24), "3:2"),
    ("logical_divide", (((4, 2, 3), (2, 1, 8)), (4, 2)), "((2,2),(2,3)):((4,1),(2,8))"),
    ("logical_product", (((2, 2), (4, 1)), (6, 1)), "((2,2),(2,3)):((4,1),(2,8))"),
    ("blocked_product", (((2, 5), (5, 1)), ((3, 4), (1, 3))), "((2,3),(5,4)):((5,10),(1,30))"),
    ("right_inverse", ((((2, 2), (4, 2)), ((1, 8), (2, 16))),), "(2,4,2,2):(1,4,2,16)"),
    ("left_inverse", (((4, 8), (1, 5)),), "(5,8):(1,4)"),
    ("size", (((4, 8), (1, 4)),), "32"),
]


def test_known_outputs():
    got = dsl_oracle.run_cases([(op, args) for op, args, _ in KNOWN])
    for (op, args, want), res in zip(KNOWN, got):
        assert res == want, (op, args, res)


def test_error_is_isolated_per_case():
    # the middle case is an invalid composition; its neighbours must survive
    got = dsl_oracle.run_cases([
        ("coalesce", (((2, (1, 6)), (1, (6, 2))),)),
        ("composition", (((4, 8), (16, 6)), ((2, 2), (6, 3)))),
        ("left_inverse", (((4, 8), (1, 5)),)),
    ])
    assert got[0] == "12:1"
    assert isinstance(got[1], dsl_oracle.DslError)
    assert got[2] == "(5,8):(1,4)"
