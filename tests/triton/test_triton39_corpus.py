"""cuteverify.triton's conversions against Triton 3.9's own ``toLinearLayout``.

The oracle is data that Triton itself produced: tests/triton/triton_data/corpus.jsonl.gz, written by
tests/triton/triton_data/gen_corpus.py with the ``triton`` 3.9 wheel (Gluon's ``GluonOpBuilder.to_linear_layout`` on
the CPU; never a dependency of cuteverify). Each case is an attribute as Triton 3.9 prints it (and, where it was
built from them, the same attribute in the older ``CTAsPerCGA`` spelling), a tensor shape and Triton's bases,
or the refusal Triton gave. Every case is compared here (bases equal, in Triton's order), so CI compares
against the data without Triton; where ``triton`` is importable, a sample of the corpus is regenerated and must
come out the same.
"""
from __future__ import annotations

import gzip
import importlib.util
import json
import random
import sys
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import cuteverify.triton as ct
from cuteverify.frontend.cli.triton_cmd import triton_group
from cuteverify.errors import CuteVerifyError, ParseError
from cuteverify.linear import LinearLayout
from cuteverify.errors import TritonLayoutError
from cuteverify.triton import parse_attr, prove_triton_equals, to_linear

DATA = Path(__file__).parent / "triton_data"
CORPUS = DATA / "corpus.jsonl.gz"


def _load():
    with gzip.open(CORPUS, "rt") as f:
        head, *cases = [json.loads(line) for line in f]
    return head, cases


HEAD, CASES = _load()


def _documented_refusal(case) -> bool:
    """Triton 3.9 answers a transposed, unswizzled nvmma_shared layout of rank >= 3 with more offsets than the
    tensor has elements (its box is not reshaped consistently); cuteverify refuses those (TritonLayoutError)."""
    a = case.get("attr", "")
    return ("nvmma_shared" in a and "swizzlingByteWidth = 0," in a and "transposed = true" in a
            and len(case["shape"]) >= 3)


def _bases(lay):
    return {n: [list(b) for b in bs] for n, bs in lay.bases.items()}


@pytest.mark.differential
def test_the_corpus_is_triton_39s_and_covers_every_family():
    assert HEAD["triton"] == ct.TRITON_VERSION
    assert len(CASES) >= 1000
    fams = {c["family"] for c in CASES}
    assert fams == {"blocked", "mma", "dot_op", "nvmma_shared", "swizzled_shared", "linear"}
    ok = [c for c in CASES if "ll" in c]
    assert sum("CGALayout" in c["attr"] for c in ok) >= 200  # multi-CTA
    assert sum("legacy" in c for c in ok) >= 100  # the older CTAsPerCGA spelling
    assert sum("transposed = true" in c["attr"] for c in ok) >= 50
    assert sum("fp4Padded = true" in c["attr"] for c in ok) >= 10
    assert sum("versionMajor = 3" in c["attr"] for c in ok) >= 50
    assert sum("error" in c for c in CASES) >= 20  # Triton's refusals are cases too


@pytest.mark.differential
def test_every_conversion_equals_triton_39s():
    wrong = []
    refused = 0
    for c in CASES:
        texts = ([c["attr"]] if "attr" in c else []) + ([c["legacy"]] if "legacy" in c else [])
        for t in texts:
            try:
                lay = to_linear(parse_attr(t), c["shape"])
            except TritonLayoutError as e:
                if "error" in c:
                    continue
                if _documented_refusal(c):
                    refused += 1
                    continue
                wrong.append((c["id"], t, c["shape"], f"refused: {e}"))
                continue
            if "error" in c:
                wrong.append((c["id"], t, c["shape"], f"Triton refuses ({c['error']}), cuteverify converts"))
            elif _documented_refusal(c):
                wrong.append((c["id"], t, c["shape"], "a documented refusal converts"))
            elif _bases(lay) != c["ll"] or [s for _, s in lay.out_dims] != c["shape"]:
                wrong.append((c["id"], t, c["shape"], f"Triton {c['ll']}, cuteverify {_bases(lay)}"))
    assert not wrong, f"{len(wrong)} disagreements, first: {wrong[:3]}"
    assert refused <= 12


# ------------------------------------------------------------------------- the cases, one by one

def test_a_dot_operand_never_splits_k_across_ctas():
    text = ("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = "
            "[2, 2], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0], instrShape = [16, 8]}>, "
            "kWidth = 2}>")
    lay = to_linear(parse_attr(text), (16, 32))
    # Triton 3.9: the two CTAs hold the same 16x32 operand (K = dim1 is never split)
    assert _bases(lay) == {"register": [[0, 1], [8, 0], [0, 8], [0, 16]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0],
                                                                                   [4, 0]],
                           "warp": [[0, 0], [0, 0]], "block": [[0, 0]]}


NVMMA_T = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>"
# Triton 3.9 on 128x512: a 256-row block (dim1) of 64-element swizzle rows first, then dim0's second 64, then
# dim1's second 256
NVMMA_T_TRITON = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16],
                  [0, 32], [0, 64], [0, 128], [64, 0], [0, 256]]


def _xor_map(bases):
    """offset -> element of bases (independent of cuteverify: plain XOR of the set bits' vectors)."""
    def at(o):
        m = n = 0
        for k, (bm, bn) in enumerate(bases):
            if o >> k & 1:
                m, n = m ^ bm, n ^ bn
        return m, n
    return at


def test_a_transposed_nvmma_layout_above_256_rows_repeats_the_256_row_block_first():
    lay = to_linear(parse_attr(NVMMA_T), (128, 512))
    assert _bases(lay)["offset"] == NVMMA_T_TRITON
    # the layout this package gave before (dim1 to 512 first, then dim0) is refuted, not proved
    old = NVMMA_T_TRITON[:14] + [[0, 256], [64, 0]]
    v = prove_triton_equals(NVMMA_T, (128, 512), LinearLayout({"offset": old}, [("dim0", 128), ("dim1", 512)]))
    assert v.refuted
    o = v.counterexample.detail["offset"]
    assert _xor_map(NVMMA_T_TRITON)(o) != _xor_map(old)(o)


def test_a_cute_smem_layout_with_f2_strides_is_compared_not_refused():
    at = _xor_map(NVMMA_T_TRITON)
    where = {at(o): o for o in range(1 << 16)}
    sm = [where[(1 << i, 0)] for i in range(7)]
    sn = [where[(0, 1 << j)] for j in range(9)]
    text = (f"(({','.join(['2'] * 7)}),({','.join(['2'] * 9)})):(({','.join('^%d' % s for s in sm)}),"
            f"({','.join('^%d' % s for s in sn)}))")
    assert prove_triton_equals(NVMMA_T, (128, 512), text).proved
    # one basis moved: refuted, the witness re-checked on the CuTe layout's own evaluation
    bad = text.replace("^%d" % sm[6], "^%d" % (sm[6] ^ 1), 1)
    v = prove_triton_equals(NVMMA_T, (128, 512), bad)
    assert v.refuted


def test_blocked_drops_registers_that_fall_outside_the_tensor():
    text = "#ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>"
    lay = to_linear(parse_attr(text), (64,))
    # Triton 3.9: 8 values along a 64-element dim; 32 lanes x 8 = 256 > 64: lanes broadcast, registers stay 8
    assert _bases(lay) == {"register": [[1], [2], [4]], "lane": [[8], [16], [32], [0], [0]], "warp": [],
                           "block": []}
    text = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [0, 1]}>"
    lay = to_linear(parse_attr(text), (2, 32))
    assert lay.in_dim_size("register") == 2  # not 8: Triton clamps sizePerThread to the extent
    assert _bases(lay)["register"] == [[1, 0]]


def test_multi_cta_swizzled_shared_swizzles_each_ctas_share():
    text = ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], CTAsPerCGA = [2, 1], "
            "CTASplitNum = [2, 1], CTAOrder = [1, 0]}>")
    lay = to_linear(parse_attr(text), (16, 16))
    assert _bases(lay) == {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 2], [2, 4], [4, 0]], "block": [[8, 0]]}
    same = text.replace("CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]", "CGALayout = [[1, 0]]")
    assert _bases(to_linear(parse_attr(same), (16, 16))) == _bases(lay)


def test_cga_layout_and_legacy_fields_are_not_mixed():
    with pytest.raises(ParseError, match="not both"):
        parse_attr("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], "
                   "CGALayout = [[1]], CTAOrder = [0]}>")


# ------------------------------------------------------------------------- no crash on any pair of sides

BLK = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [%d, 1], order = [1, 0]%s}>"


@pytest.mark.parametrize("a,b", [
    (BLK % (4, ""), BLK % (2, ", CGALayout = [[1, 0]]")),
    (BLK % (2, ", CGALayout = [[1, 0]]"), BLK % (4, "")),
    (BLK % (2, ", CGALayout = [[1, 0]]"), BLK % (4, ", CGALayout = [[0, 0]]")),
])
@pytest.mark.parametrize("exact", [False, True])
def test_sides_on_different_thread_grids_are_input_errors(a, b, exact):
    with pytest.raises(TritonLayoutError, match="differ"):
        prove_triton_equals(a, (64, 16), b, exact=exact)


def test_shared_layouts_over_different_ctas_are_refuted():
    one = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    two = one.replace("}>", ", CGALayout = [[1, 0]]}>")
    for a, b in ((one, two), (two, one)):
        v = prove_triton_equals(a, (32, 16), b)
        assert v.refuted and "CTA shares differ" in v.counterexample.note


def test_the_cli_exits_2_not_4_on_different_thread_grids():
    r = CliRunner().invoke(triton_group, ["equal", BLK % (4, ""), "--shape", "64x16", "--attr",
                                          BLK % (2, ", CGALayout = [[1, 0]]")])
    assert r.exit_code == 2, r.output
    assert "thread grids differ" in r.output


@pytest.mark.differential
def test_no_pair_of_corpus_sides_crashes():
    """Random pairs of corpus attributes on a common shape, and CuTe layouts: every answer is a verdict or an
    input error (CuteVerifyError), never another exception."""
    rng = random.Random(26)
    ok = [c for c in CASES if "ll" in c]
    by_shape = {}
    for c in ok:
        by_shape.setdefault(tuple(c["shape"]), []).append(c["attr"])
    shapes = [s for s, v in by_shape.items() if len(v) > 1]
    cutes = ["((4,8),(2,2)):((32,1),(16,8))", "((4,8,4),4):((32,1,8),0)", "((8,4,4),4):((^1,^32,^8),^8)",
             "(32,32):(^32,^1)", "(64,64):(64,1)", "(128,(4,2)):(1,(128,512))", "(16,8):(8,1)"]
    n = 0
    for _ in range(150):
        s = rng.choice(shapes)
        a, b = rng.choice(by_shape[s]), rng.choice(by_shape[s] + cutes)
        for exact in (False, True):
            try:
                v = prove_triton_equals(a, s, b, exact=exact)
            except CuteVerifyError:
                continue
            assert v.status in ("proved", "refuted", "unknown")
            n += 1
    assert n > 50


# ------------------------------------------------------------------------- the version, stated and checked

def test_the_version_is_stated_and_another_release_is_warned_about():
    assert ct.TRITON_VERSION.startswith("3.9") and "Triton 3.9" in ct.__doc__
    with pytest.warns(ct.TritonVersionWarning, match="3.8.0"):
        assert "3.8.0" in ct.check_triton_version("3.8.0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ct.check_triton_version("3.9.4") is None


# ------------------------------------------------------------------------- regenerated where triton is installed

@pytest.mark.differential
@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton is not installed (the corpus "
                    "is compared as data; regeneration needs Triton's own Python)")
def test_a_sample_regenerates_with_the_installed_triton():
    import triton
    if triton.__version__.split(".")[:2] != HEAD["triton"].split(".")[:2]:
        pytest.skip(f"triton {triton.__version__} installed, the corpus is of {HEAD['triton']}")
    sys.path.insert(0, str(DATA))
    try:
        import gen_corpus
    finally:
        sys.path.remove(str(DATA))
    specs, b, _ctx = gen_corpus.cases(HEAD["n"], HEAD["seed"])
    by_id = {c["id"]: c for c in CASES}
    ids = sorted(by_id)[:25]
    for i in ids:
        got = gen_corpus.convert_isolated(specs[i], b)
        want = {k: v for k, v in by_id[i].items() if k not in ("id", "family", "shape")}
        assert got == want, (i, got, want)
