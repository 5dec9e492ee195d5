"""Manifests over the atom layer: layout entries as expressions (builders, attributes, dependency order, cycles,
unknown names), the claim kinds covers / compatible / agrees (tiled) / banks / vector / tma, each proved and
refuted, with the post-condition re-checked here by brute-force enumeration (plain Python loops over the TV
layouts' flat modes, a bank simulator and byte arithmetic), independent of atoms.check, analysis.banks and
hardware.tma. Bad fields are input errors with their line, and `cuteverify check` exits 2 on them."""
from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.core.tuples import flatten
from cuteverify.frontend.manifest.expr import environment

MMA = "SM80_16x8x16_F16F16F16F16_TN"


def _doc(layouts: str, claims: str, extra: str = "") -> str:
    return ("version: 1\nkernels:\n  k:\n" + extra + "    layouts:\n" + textwrap.indent(textwrap.dedent(layouts), " " * 6)
            + "    claims:\n" + textwrap.indent(textwrap.dedent(claims), " " * 6))


LAYOUTS = f"""\
    mma: make_tiled_mma({MMA}, (2,2,1), (32,32,16))
    mma_4x1: make_tiled_mma({MMA}, (4,1,1), (64,16,16))
    mma_64: make_tiled_mma({MMA}, (2,1,1))
    tvA: mma.tv_layout_A_tiled
    tvC: mma.tv_layout_C_tiled
    s2rA: make_tiled_copy_A(SM75_U32x4_LDSM_N, mma, f16)
    s2rA_bad: make_tiled_copy(SM75_U32x4_LDSM_N, "((4,8,2,2),((2,2,2),(1,1))):((64,1,16,0),((32,8,128),(0,0)))", (32,16), f16)
    g2sA: make_tiled_copy_tv(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, (16,8):(8,1), (1,8), f16)
    g2sA_m: make_tiled_copy_tv(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, (16,8):(8,1), (8,1), f16)
    sAtom: "composition(S<3,3,3>, (8,(8,8)):(8,(1,64)))"
    sA0: "composition(tile_to_shape(sAtom, (128,64,3)), (128,64):(1,128))"
    sA_s2r: "composition(sA0, (32,16):(1,128))"
    sA_g2s: "composition(sA0, (16,64):(1,128))"
    sRow_s2r: "composition((128,64):(64,1), (32,16):(1,128))"
    sPlain_g2s: "composition(tile_to_shape((8,(8,8)):(8,(1,64)), (128,64,3)), (16,64):(1,128))"
"""


def _run(layouts, claims, extra=""):
    claims = mf.load_text(_doc(layouts, claims, extra), "t.cute.yaml")
    return claims, mf.run(claims)


def _verdict(claim):
    return mf.decide(claim)


def _env(claim):
    return environment(tuple(claim.layouts.items()), tuple(claim.assume), claim.symbols)


# ----------------------------------------------------------------------- independent evaluators

def _mode_value(shape, stride, i):
    """Colexicographic index ``i`` of one mode evaluated from its flat leaves (no layout code)."""
    out = 0
    for s, d in zip(flatten(shape), flatten(stride)):
        out += (i % s) * d
        i //= s
    return out


def _size(shape):
    n = 1
    for s in flatten(shape):
        n *= s
    return n


def _table(tv):
    """``[[tv(t, v) for v] for t]`` by brute force."""
    (s0, s1), (d0, d1) = tv.shape, tv.stride
    return [[_mode_value(s0, d0, t) + _mode_value(s1, d1, v) for v in range(_size(s1))] for t in range(_size(s0))]


def _thread_broadcast(tv):
    return _size(tuple(s for s, d in zip(flatten(tv.shape[0]), flatten(tv.stride[0])) if d == 0) or 1)


def _counts(tv):
    out = {}
    for row in _table(tv):
        for x in row:
            out[x] = out.get(x, 0) + 1
    return out


def _bank_degree(smem, tv, eb, vb, lanes):
    """Fixed phases of ``lanes`` threads, ``vb``-byte accesses: the largest number of distinct 4-byte words on one
    bank within a phase (no merging of equal addresses across lanes: an upper bound of the hardware's)."""
    tab = _table(tv)
    n = vb // eb
    worst = 1
    for it in range(len(tab[0]) // n):
        for p0 in range(0, len(tab), lanes):
            words = {}
            for t in range(p0, min(p0 + lanes, len(tab))):
                for e in tab[t][it * n:(it + 1) * n]:
                    w = smem(e) * eb // 4
                    words.setdefault(w % 32, set()).add(w)
            worst = max(worst, max(len(s) for s in words.values()))
    return worst


# --------------------------------------------------------------------------------- expressions

def test_builders_resolve_in_dependency_order():
    # entries refer to later ones; evaluation follows the references, not the file order
    layouts = f"""\
        tvA: mma.tv_layout_A_tiled
        s2r: make_tiled_copy_A(SM75_U32x4_LDSM_N, mma, f16)
        mma: make_tiled_mma({MMA}, atom_layout_mnk=(2,2,1), permutation_mnk=(32,32,16))
        tile: mma.get_tile_size(2)
        part: mma.get_slice(5).partition_A((128,64):(1,128)).layout
        tv: make_layout_tv((4,8), (1,8))[1]
    """
    claims, res = _run(layouts, "- bijective: tv\n- injective: part\n- covers: {layout: tvA, tile: 512}\n")
    assert [r["status"] for r in res] == ["proved"] * 3, res
    env = _env(claims[0])
    assert env["tile"] == 16 and env["mma"].size == 128
    assert env["s2r"].layout_tv_tiled == env["tvA"]
    # make_layout_tv's TV layout: thread t, value v -> raked (4,8) x (1,8) tile, checked by enumeration
    tab = _table(env["tv"])
    assert sorted(x for row in tab for x in row) == list(range(256))


def test_plain_text_entries_and_aliases_keep_their_meaning():
    claims, res = _run('A: "(4,8):(1,4)"\nB: A\nC: "composition(A, (2,2):(1,2))"\n',
                       "- bijective: B\n- equal: [C, \"(2,2):(1,2)\"]\n- equal: [C, \"(2,2):(1,4)\"]\n")
    assert [r["status"] for r in res] == ["proved", "proved", "refuted"], res


@pytest.mark.parametrize("layouts, needle, line", [
    ("A: B\nB: A\n", "cycle: A -> B -> A", 5),
    ("A: 'composition(B, 4:1)'\nB: 'composition(A, 4:1)'\n", "cycle", 5),
    ("T: T.tv_layout_A_tiled\n", "cycle: T -> T", 5),
    ("A: 'composition(Q, 4:1)'\n", "unknown name 'Q'", 5),
    (f"T: make_tiled_mma({MMA}, (2,2,1))\nC: make_tiled_copy_A(SM75_U32x4_LDSM_N, TT, f16)\n", "unknown name 'TT'",
     6),
    (f"T: make_tiled_mma({MMA}, (2,2,1))\nC: T.tv_layout_Q\n", "no attribute 'tv_layout_Q'", 6),
    (f"T: make_tiled_mma({MMA}, (2,2,1))\nC: T._cache\n", "private", 6),
    ("T: make_tiled_mma(NOPE_16x8x16, (2,2,1))\n", "NOPE", 5),
    (f"T: make_tiled_mma({MMA}, (2,2,1), (30,32,16))\n", "multiple", 5),
    ("A: C\n", "not a layout of this kernel", 5),
])
def test_expression_errors_have_the_entry_line(layouts, needle, line):
    with pytest.raises(mf.ManifestError) as e:
        mf.load_text(_doc(layouts, "- bijective: '4:1'\n"), "t.cute.yaml")
    assert needle in str(e.value), str(e.value)
    assert e.value.line == line, str(e.value)


def test_declared_symbols_stay_symbols():
    extra = "    symbols: [M]\n    assume: ['M >= 1']\n"
    claims, res = _run('g: "composition((M,64):(64,1), (M,32):(1,M))"\n', "- injective: g\n", extra)
    assert res[0]["status"] == "proved", res
    with pytest.raises(mf.ManifestError, match="unknown name 'N'"):
        mf.load_text(_doc("g: 'composition((M,64):(64,1), N)'\n", "- injective: g\n", extra), "t.cute.yaml")


# ---------------------------------------------------------------------------------- claim kinds

def test_covers_proved_and_refuted_match_enumeration():
    claims, res = _run(LAYOUTS, """\
        - covers: {tiled_mma: mma, operand: A}
        - covers: {tiled_mma: mma, operand: C}
        - covers: {layout: tvC, tile: "(32,32)"}
        - covers: {tiled_copy: g2sA}
        - covers: {tiled_copy: s2rA_bad}
        - covers: {layout: tvC, tile: 2048}
    """)
    assert [r["status"] for r in res] == ["proved"] * 4 + ["refuted"] * 2, res
    env = _env(claims[0])
    for op, tile in (("A", 32 * 16), ("C", 32 * 32)):
        tv = env["mma"].tv_layout_tiled(op)
        assert _counts(tv) == {x: _thread_broadcast(tv) for x in range(tile)}
    tv = env["g2sA"].layout_tv(env["g2sA"].ref_side)
    assert _counts(tv) == {x: 1 for x in range(16 * 64)}
    # refuted: the element the counterexample names is held a wrong number of times, by brute force
    cex = _verdict(claims[4]).counterexample
    bad = env["s2rA_bad"].layout_tv(env["s2rA_bad"].ref_side)
    el = cex.detail["element"]
    assert _counts(bad).get(el, 0) == cex.detail["count"] != _thread_broadcast(bad)
    assert el in _table(bad)[cex.detail["thread"]]
    assert "thread" in res[4]["counterexample"]["text"] and "element" in res[4]["counterexample"]["text"]
    assert max(_counts(env["tvC"])) < 1024  # the 2048 claim misses elements 1024.. (refuted: missed)


def test_compatible_proved_and_refuted_per_thread():
    claims, res = _run(LAYOUTS, """\
        - compatible: {copy: s2rA, tiled_mma: mma, operand: A}
        - compatible: {copy: s2rA_bad, tiled_mma: mma, operand: A}
    """)
    assert [r["status"] for r in res] == ["proved", "refuted"], res
    env = _env(claims[0])
    frag = _table(env["tvA"])
    good = _table(env["s2rA"].layout_tv(env["s2rA"].ref_side))
    assert all(sorted(a) == sorted(b) for a, b in zip(good, frag))
    cex = _verdict(claims[1]).counterexample
    t, x = cex.detail["thread"], cex.detail["element"]
    bad = _table(env["s2rA_bad"].layout_tv(env["s2rA_bad"].ref_side))
    assert (x in bad[t]) != (x in frag[t])  # the named thread and element really differ
    assert f"thread {t}" in res[1]["counterexample"]["text"]


def test_agrees_tiled_proved_refuted_and_mismatch_is_an_input_error():
    claims, res = _run(LAYOUTS, f"""\
        - agrees: {{tiled_mma: mma, operand: A}}
        - agrees: {{tiled_mma: mma, operand: C}}
        - agrees: {{layout: tvC, tiled_mma: mma_4x1, operand: C}}
        - agrees: {{layout: tvA, spec: {MMA}, operand: A, atom_layout: "(2,2,1)", permutation: "(32,32,16)"}}
        - agrees: {{layout: tvC, spec: {MMA}, operand: C, atom_layout: "(2,2,1)", permutation: "(32,(8,2,2):(1,16,8),16)"}}
        - agrees: {{layout: tvA, spec: {MMA}, operand: A}}
        - agrees: {{layout: tvA, tiled_mma: mma_64, operand: A}}
    """)
    assert [r["status"] for r in res] == ["proved", "proved", "refuted", "proved", "refuted", "error", "error"], res
    assert res[5]["error_kind"] == "input" and "tiled" in res[5]["reason"]  # never REFUTED for a thread count
    assert res[6]["error_kind"] == "input"
    env = _env(claims[0])
    cex = _verdict(claims[2]).counterexample
    t, v = cex.detail["thread"], cex.detail["value"]
    mine, theirs = _table(env["tvC"]), _table(env["mma_4x1"].tv_layout_C_tiled)
    assert mine[t][v] == cex.detail["user_index"] and theirs[t][v] != mine[t][v]
    assert f"thread {t}, value {v}" in res[2]["counterexample"]["text"]


def test_banks_proved_and_refuted_match_a_simulation():
    claims, res = _run(LAYOUTS, """\
        - banks: {smem: sA_s2r, copy: s2rA, dtype: f16}
        - banks: {smem: sA_g2s, copy: g2sA, dtype: f16}
        - banks: {smem: sRow_s2r, copy: s2rA, dtype: f16}
        - banks: {smem: sPlain_g2s, access: g2sA.layout_dst_tv_tiled, dtype: f16, vector: 16}
    """)
    assert [r["status"] for r in res] == ["proved", "proved", "refuted", "refuted"], res
    env = _env(claims[0])
    s2r, g2s = env["s2rA"], env["g2sA"]
    # ldmatrix: 8 lanes per phase, 16-byte rows; cp.async: 16-byte accesses, 8 lanes per phase (no two lanes of
    # this copy share an address, so the hardware's merging changes nothing)
    assert _bank_degree(env["sA_s2r"], s2r.layout_tv("src"), 2, 16, 8) == 1
    assert _bank_degree(env["sA_g2s"], g2s.layout_tv("dst"), 2, 16, 8) == 1
    assert _bank_degree(env["sRow_s2r"], s2r.layout_tv("src"), 2, 16, 8) == 8
    assert _bank_degree(env["sPlain_g2s"], g2s.layout_tv("dst"), 2, 16, 8) == 8
    for i, smem in ((2, env["sRow_s2r"]), (3, env["sPlain_g2s"])):
        cex = _verdict(claims[i]).counterexample
        (t0, t1), (e0, e1) = cex.threads, cex.elements
        w0, w1 = smem(e0) * 2 // 4, smem(e1) * 2 // 4
        assert w0 != w1 and w0 % 32 == w1 % 32 == cex.bank  # two words of one bank
        assert t0 // 8 == t1 // 8  # one phase
        assert f"threads {t0} and {t1}" in res[i]["counterexample"]["text"]


def test_vector_proved_and_refuted_by_offsets():
    extra = "    symbols: [K]\n    assume: ['K >= 64', 'K % 8 == 0']\n"
    lay = LAYOUTS + "    gA: '(16,64):(K,1)'\n    gA_copy: composition(gA, g2sA.layout_src_tv_tiled)\n"
    claims, res = _run(lay, """\
        - vector: {copy: g2sA, smem: sA_g2s, dtype: f16, require: 16}
        - vector: {copy: g2sA_m, smem: sA0, dtype: f16, require: 16}
        - vector: {layout: gA_copy, dtype: f16, require: 16}
        - vector: {layout: "(128,8):(8,1)", dtype: f16, require: 16, flat: true}
    """, extra)
    assert [r["status"] for r in res] == ["proved", "refuted", "proved", "refuted"], res
    env = _env(claims[0])
    smem = env["sA_g2s"]  # the copy's (16,64) tile of stage 0: tile index m + 16 k -> smem offset

    def offsets(copy):
        return [[smem(e) for e in row] for row in _table(copy.layout_tv("dst"))]

    good = offsets(env["g2sA"])
    assert all(row[i + 1] == row[i] + 1 for row in good for i in range(7)) and all(row[0] % 8 == 0 for row in good)
    # g2sA_m's (128,8) tile over stage 0 (128,64): thread t holds rows 8*(t//8) .. +7 of column t%8 of each of
    # the 8 column tiles (the raked product of (16,8):(8,1) and (8,1)), K-major in smem: never contiguous
    t = _verdict(claims[1]).counterexample.thread
    s0 = env["sA0"]
    rows = [[s0((8 * (t // 8) + v, 8 * rn + t % 8)) for v in range(8)] for rn in range(8)]
    assert all(any(r[i + 1] != r[i] + 1 for i in range(7)) for r in rows)


def test_tma_explicit_and_derived():
    extra = "    symbols: [M, K]\n    assume: ['M >= 1', 'K >= 64', 'M <= 65536', 'K <= 65536']\n"
    claims, res = _run("sA: 'S<3,3,3> o 0 o (128,64):(64,1)'\n", """\
        - tma: {dtype: bf16, shape: "(K,M)", stride: "(1,K)", box: "(64,128)", swizzle: 128B}
        - tma: {dtype: bf16, shape: [K, M], stride: [1, K], box: [64, 128], swizzle: 128B}
        - tma: {dtype: bf16, gmem: "(M,K):(K,1)", smem: sA}
    """, extra)
    # K is any value >= 64: a row of K bf16 is a multiple of 16 bytes only when K % 8 == 0, so all are refuted
    assert [r["status"] for r in res] == ["refuted"] * 3, res
    for c in claims:
        a = _verdict(c).counterexample.assignment
        assert (2 * a["K"]) % 16 != 0  # the global stride of dim 1 (bytes) is not a multiple of 16
    claims, res = _run("sA: 'S<3,3,3> o 0 o (128,64):(64,1)'\n", """\
        - tma: {dtype: bf16, shape: "(K,M)", stride: "(1,K)", box: "(64,128)", swizzle: 128B}
        - tma: {dtype: bf16, gmem: "(M,K):(K,1)", smem: sA, multicast: 2}
        - tma: {dtype: bf16, shape: "(K,M)", stride: "(1,K)", box: "(128,128)", swizzle: 128B}
    """, extra.replace("'K <= 65536'", "'K <= 65536', 'K % 8 == 0'"))
    # the third: an inner box of 128 bf16 = 256 bytes exceeds the 128-byte swizzle span
    assert [r["status"] for r in res] == ["proved", "proved", "refuted"], res
    box_bytes = 128 * 2
    assert _verdict(claims[2]).counterexample.detail["rule"] == "swizzle_span" and box_bytes > 128
    assert f"{box_bytes} bytes" in res[2]["counterexample"]["text"]


# ---------------------------------------------------------------------------------- bad fields

@pytest.mark.parametrize("claim, needle", [
    ("- covers: {tiled_mma: mma, operand: D}\n", "schema"),
    ("- covers: {tiled_mma: tvA, operand: A}\n", "not a tiled MMA"),
    ("- covers: {layout: tvA}\n", "covers takes one of"),
    ("- compatible: {copy: tvA, tiled_mma: mma, operand: A}\n", "not a tiled copy"),
    ("- compatible: {copy: s2rA, tiled_mma: nope, operand: A}\n", "unknown name 'nope'"),
    ("- agrees: {layout: tvA, spec: X, tiled_mma: mma, operand: A}\n", "agrees takes one of"),
    ("- banks: {copy: s2rA, dtype: f16}\n", "schema"),
    ("- banks: {smem: sA_s2r, copy: s2rA, access: tvA}\n", "banks takes one of"),
    ("- vector: {copy: g2sA, dtype: f16}\n", "schema"),
    ("- vector: {layout: mma, dtype: f16, require: 16}\n", "not a layout"),
    ("- tma: {dtype: bf16, shape: '(64,64)', multicast: 2}\n", "belong to a copy"),
    ("- tma: {dtype: bf16, gmem: '(64,64):(64,1)'}\n", "both gmem and smem"),
    ("- tma: {shape: '(64,64)'}\n", "schema"),
    ("- bijective: mma\n", "not a layout"),
])
def test_bad_fields_are_input_errors_with_the_line(claim, needle, tmp_path):
    text = _doc(LAYOUTS, claim)
    with pytest.raises(mf.ManifestError) as e:
        mf.load_text(text, "t.cute.yaml")
    assert needle in str(e.value), str(e.value)
    assert e.value.line == text.splitlines().index("    claims:") + 2, str(e.value)
    p = tmp_path / "bad.cute.yaml"
    p.write_text(text)
    r = CliRunner().invoke(main, ["check", str(p)])
    assert r.exit_code == 2, r.output
    assert f"{p}:{e.value.line}" in r.output
