"""The concrete integer path of the algebra (``Layout``'s plain-int construction, core/kernels.py's
``compose_ints`` and ``coalesce_flat_ints``, the plain-int complement and right inverse, and the divides and
products built on them) against CuTe C++'s recorded answers: the first ``PER_OP`` plain-integer cases per
operation of the committed C++ corpus (tests/oracles/cpp_oracle/corpus, kinds ``pos`` and ``structured``;
cases listed in known_failures.json left out), each called on freshly built layouts, as a user calls it.

Where cuteverify answers, the result has C++'s shape, C++'s value at every index (the independent evaluator
of tests/oracles/strategies.py reads the printed result) and C++'s stride on every leaf of size > 1 (a
size-1 leaf's stride follows the size-1 convention, core/convention.py, which C++ does not share);
raked_product is held to C++'s size and values only (C++ prints another nesting of the same function).
Where cuteverify refuses, it is a NotAdmissibleError on a case of ``REFUSED`` (the documented stricter
admissibility: carries and divisibility C++ does not check), so a new refusal fails as well."""
from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path

import pytest
import strategies as st

import cuteverify as cv
from cuteverify.core.notation.interop import as_layout
from cuteverify.errors import NotAdmissibleError

ORACLE = Path(__file__).resolve().parent.parent / "oracles" / "cpp_oracle"
OPS = ("coalesce", "composition", "complement", "logical_divide", "zipped_divide", "logical_product",
       "blocked_product", "raked_product", "right_inverse", "left_inverse")
PER_OP = 40

# The sample's cases cuteverify refuses (C++ answers them without checking what cuteverify checks).
REFUSED = {
    "composition": {"composition:058bd15065eb"},
    "logical_divide": {"logical_divide:fe755e271600"},
    "zipped_divide": {"zipped_divide:2904bc121c0b", "zipped_divide:47ca2f652793", "zipped_divide:4c8209826ee8",
                      "zipped_divide:b5aee456d4e6"},
    "raked_product": {"raked_product:8a965a2b7f0f"},
    "left_inverse": {"left_inverse:14860ff2a139", "left_inverse:b9cc98ca9a1c"},
}


def _plain(x):
    if type(x) is tuple:
        return all(y is None or _plain(y) for y in x)
    return type(x) is int or (type(x) is cv.Layout and x.int_leaves is not None)


def _sample(op):
    known = set(json.loads((ORACLE / "known_failures.json").read_text())["cases"])
    out = []
    with gzip.open(ORACLE / "corpus" / f"{op}.jsonl.gz", "rt") as fh:
        for line in fh:
            r = json.loads(line)
            if r["kind"] not in ("pos", "structured") or "values" not in r or r["id"] in known:
                continue
            args = [_arg(op, i, t) for i, t in enumerate(r["args"])]
            if all(_plain(a) for a in args):
                out.append(r)
                if len(out) == PER_OP:
                    break
    return out


def _arg(op, i, text):
    if op == "complement" and i == 1:
        return ast.literal_eval(text.replace("_", ""))  # a cotarget: an int or a shape
    return as_layout(text, tiler=True)  # parsed anew on every call: a fresh object


@pytest.mark.parametrize("op", OPS)
def test_int_path_matches_cpp(op):
    cases = _sample(op)
    assert len(cases) == PER_OP
    refused, bad = set(), []
    for r in cases:
        try:
            got = getattr(cv, op)(*(_arg(op, i, t) for i, t in enumerate(r["args"])))
        except NotAdmissibleError:
            refused.add(r["id"])
            continue
        mine, cpp = st.parse_plain(str(got)), st.parse_plain(r["result"])
        assert mine is not None and cpp is not None, (r["args"], str(got), r["result"])
        want = [int(v) for v in r["values"].replace("_", "").split()]
        ok = st.size_of(mine) == st.size_of(cpp) == r["size"] and st.values(mine)[:len(want)] == want
        if op != "raked_product":
            ok = ok and mine[0] == cpp[0] and all(
                a == b for s, a, b in zip(st.flat(mine[0]), st.flat(mine[1]), st.flat(cpp[1])) if s != 1)
        if not ok:
            bad.append(f"{op}({', '.join(r['args'])}): cuteverify {got}, C++ {r['result']}")
    assert not bad, "\n".join(bad)
    assert refused == REFUSED.get(op, set())
