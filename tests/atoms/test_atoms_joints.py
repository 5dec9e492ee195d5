"""Where atom-layer objects meet (issue 25): the tile a TV layout indexes (``covers`` compares shapes, not
sizes), a copy atom's registers against the tensor it is issued on (``copy_vectorizes``), a copy's threads
against its MMA's, the two ``make_tiled_copy`` signatures, and the reference side of every copy family (the
TMEM store's is its destination).

Oracles: CuTe DSL 4.8.1 on the CPU (``cute.copy`` accepting or refusing a copy; ``partition_S/D`` of
``tcgen05.make_tmem_copy``), run where installed, with its answers recorded here so that the comparison runs
everywhere; CUTLASS's ``copy_traits_*.hpp`` read as text for ``RefLayout``; plain integer arithmetic for tiles
and offsets."""
from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap

import pytest

import cuteverify as cv
import cuteverify.atoms as at
from cuteverify.frontend import manifest as mf
from cuteverify.core.swizzle import ComposedLayout, Swizzle
from cuteverify.hardware import default_library

import dsl_oracle
from cuteverify.frontend.trace import cpp_build

WG = "SM90_64x256x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>"


def _run_manifest(layouts: str, claims: str):
    doc = ("version: 1\nkernels:\n  k:\n    layouts:\n" + textwrap.indent(textwrap.dedent(layouts), " " * 6)
           + "    claims:\n" + textwrap.indent(textwrap.dedent(claims), " " * 6))
    claims = mf.load_text(doc, "t.cute.yaml")
    return [mf.decide(c) for c in claims]


def _dsl(script: str, cases: list) -> list | None:
    """Run ``script`` (defines ``one(case) -> str``) in a CuTe DSL subprocess, one ``cute.compile`` per case
    (an IR verification error ends a trace); None when the DSL is not installed."""
    if not dsl_oracle.available():
        return None
    env = dsl_oracle._worker_env()
    env["CUTE_DSL_ARCH"] = "sm_100a"
    driver = script + textwrap.dedent("""
        import json, sys
        out = []
        for case in json.loads(sys.stdin.read()):
            box = []
            try:
                cute.compile(cute.jit(preprocess=False)(lambda: box.append(one(case))))
                out.append(box[-1] if box else "OK")
            except Exception as e:  # noqa: BLE001 - a refusal is the answer
                out.append("ERR " + " ".join(str(e).split())[:300])
        print("RESULT" + json.dumps(out))
    """)
    r = subprocess.run([dsl_oracle._python(), "-c", driver], input=json.dumps(cases), capture_output=True,
                       text=True, env=env, timeout=300, check=False)
    line = [x for x in r.stdout.splitlines() if x.startswith("RESULT")]
    assert line, r.stderr[-2000:]
    return json.loads(line[-1][len("RESULT"):])


# ------------------------------------------------------------------- 1. covers: the tile, not its size

def test_covers_refutes_a_tile_other_than_the_one_the_tiled_mma_indexes():
    # CuTe's tile of a tiled MMA is the atom's extent times the atoms per mode: 64x256 atoms laid (1,2,1)
    # index a 64 x 512 C tile; (128,256) has the same size and is another tile
    m, n = 64 * 1, 256 * 2
    vs = _run_manifest(f"""\
        mma: make_tiled_mma({WG}, (1,2,1))
        tvC: mma.tv_layout_C_tiled
        """, f"""\
        - covers: {{layout: "make_tiled_mma({WG}, (1,2,1)).tv_layout_C_tiled", tile: "(128,256)"}}
        - covers: {{layout: tvC, tile: "128x256"}}
        - covers: {{layout: tvC, tile: "{m}x{n}"}}
        - covers: {{layout: tvC, tile: "({m},{n})"}}
        - covers: {{layout: mma.tv_layout_C_tiled, tile: [{m}, {n}]}}
        - covers: {{layout: tvC, tile: {m * n}}}
        - covers: {{layout: tvC, tile: {m * n // 2}}}
        """)
    assert [v.status for v in vs] == ["refuted", "refuted", "proved", "proved", "proved", "proved", "refuted"]
    for v in vs[:2]:
        assert "64x512" in v.counterexample.note and "128x256" in v.counterexample.note
        assert v.counterexample.detail["layout_tile"] == (m, n)


def test_covers_knows_a_tiled_copy_s_tile():
    # make_tiled_copy_tv with 16x8 threads (row-major) and 1x8 values tiles 16 x 64
    vs = _run_manifest("""\
        g2s: make_tiled_copy_tv(SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, (16,8):(8,1), (1,8), bf16)
        """, """\
        - covers: {layout: g2s.layout_src_tv_tiled, tile: "(16,64)"}
        - covers: {layout: g2s.layout_tv_tiled, tile: "(64,16)"}
        - covers: {layout: g2s.layout_tv("dst"), tile: "32x32"}
        """)
    assert [v.status for v in vs] == ["proved", "refuted", "refuted"]
    assert "16x64" in vs[1].counterexample.note


@pytest.mark.parametrize("tile", ["abc", "(M,64)", "0", "[]", "128x"])
def test_an_unreadable_tile_is_an_input_error_at_its_line(tile):
    with pytest.raises(mf.ManifestError) as e:
        _run_manifest("mma: make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN)\n",
                      f"- covers: {{layout: mma.tv_layout_C_tiled, tile: {json.dumps(tile)}}}\n")
    assert "tile" in str(e.value) and e.value.line == 7  # the claim's line


# ---------------------------------------------------------- 2. copy atom width against the tensor it moves

UCOPY_DSL = textwrap.dedent("""
    import cutlass
    from cutlass import cute
    from cutlass.cute.nvgpu import CopyUniversalOp, warp

    def one(case):
        bits, shape, stride, swz, tid = case
        op = warp.MmaF16BF16Op(cutlass.BFloat16, cutlass.Float32, (16, 8, 16))
        t = cute.make_tiled_mma(op, cute.make_layout((1, 1, 1)))
        atom = cute.make_copy_atom(CopyUniversalOp(), cutlass.BFloat16, num_bits_per_copy=bits)
        tc = cute.make_tiled_copy_C(atom, t)
        ptr = cute.make_ptr(cutlass.BFloat16, 0, cute.AddressSpace.smem, assumed_align=128)
        lay = cute.make_layout(tuple_(shape), stride=tuple_(stride))
        if swz:
            lay = cute.make_composed_layout(cute.make_swizzle(*swz), 0, lay)
        s_c = cute.make_tensor(ptr, lay)
        frag = t.make_fragment_C(t.get_slice(tid).partition_C(cute.make_rmem_tensor(cute.make_layout((16, 8)),
                                                                                      cutlass.BFloat16)))
        r_c = cute.make_rmem_tensor(frag.layout, cutlass.BFloat16)
        thr = tc.get_slice(tid)
        cute.copy(atom, thr.retile(r_c), thr.partition_D(s_c))
        return "OK"

    def tuple_(x):
        return tuple(tuple_(y) for y in x) if isinstance(x, list) else x
""")

# (bits, smem shape, stride, swizzle, thread) -> CuTe DSL 4.8.1's answer to cute.copy (recorded)
UCOPY_CASES = [
    (16, (16, 8), (8, 1), None, 0, True),
    (32, (16, 8), (8, 1), None, 0, True),
    (32, (16, 8), (1, 16), None, 0, False),       # a register's 2 values are a column apart
    (64, (16, 8), (8, 1), None, 0, False),        # the case: 4 values, runs of 2
    (64, (16, 8), (1, 16), None, 0, False),
    (64, ((8, 2), (2, 4)), ((4, 2), (1, 32)), None, 5, True),  # a blocked smem makes the 4 values one vector
    (32, (16, 8), (9, 1), None, 4, False),        # row 1 starts at an odd element: misaligned 32-bit store
    (32, (16, 8), (8, 1), (3, 1, 3), 0, True),
]


@pytest.mark.differential
def test_copy_vectorizes_agrees_with_cute_copy():
    mma = at.make_tiled_mma("SM80_16x8x16_F32BF16BF16F32_TN")
    ours = []
    for bits, shape, stride, swz, _tid, _ in UCOPY_CASES:
        tc = at.make_tiled_copy_C(f"UniversalCopy<uint{bits}_t>", mma, "bf16")
        lay = cv.Layout(shape, stride)
        ours.append(at.copy_vectorizes(tc, ComposedLayout(Swizzle(*swz), 0, lay) if swz else lay, "dst"))
    assert [v.proved for v in ours] == [c[-1] for c in UCOPY_CASES]
    got = _dsl(UCOPY_DSL, [list(c[:5]) for c in UCOPY_CASES])
    if got is not None:
        # a refusal is whole-tile in ours and per-thread in the DSL's trace: compare at the traced thread
        assert [g == "OK" for g in got] == [c[-1] for c in UCOPY_CASES], got


def test_copy_vectorizes_names_the_thread_the_offsets_and_the_cause():
    mma = at.make_tiled_mma("SM80_16x8x16_F32BF16BF16F32_TN")
    tc = at.make_tiled_copy_C("UniversalCopy<uint64_t>", mma, "bf16")
    v = at.copy_vectorizes(tc, cv.Layout((16, 8), (8, 1)), "dst")
    d = v.counterexample.detail
    # independent: thread 0 of m16n8's C holds (0,0),(0,1),(8,0),(8,1); row-major offsets m*8+n
    assert d["thread"] == 0 and d["offsets"] == [0, 1, 64, 65]
    assert "not consecutive" in v.counterexample.note and "64-bit" in v.counterexample.note
    v = at.copy_vectorizes(at.make_tiled_copy_C("UniversalCopy<uint32_t>", mma, "bf16"), cv.Layout((16, 8), (9, 1)),
                           "dst")
    assert v.counterexample.detail["offsets"][0] % 2 == 1 and "multiple" in v.counterexample.note


def test_ldmatrix_rows_must_be_aligned_16_byte_vectors():
    mma = at.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", (2, 2, 1), (32, 32, 16))
    s2r = at.make_tiled_copy_A("SM75_U32x4_LDSM_N", mma, "f16")
    sw = ComposedLayout(Swizzle(3, 3, 3), 0, cv.Layout((32, 16), (64, 1)))
    assert at.copy_vectorizes(s2r, sw, "src").proved
    assert at.copy_vectorizes(s2r, cv.Layout((32, 16), (64, 1)), "src").proved
    v = at.copy_vectorizes(s2r, cv.Layout((32, 16), (65, 1)), "src")  # odd rows start at odd elements
    offs = v.counterexample.detail["offsets"]
    assert len(offs) == 8 and offs == list(range(offs[0], offs[0] + 8)) and offs[0] % 8
    with pytest.raises(cv.CuteVerifyError, match="tensor memory"):
        lib = default_library()
        tc = at.make_tiled_copy(at.make_copy_atom(lib["SM100_TMEM_LOAD_32dp32bRx"], "f32", R=4),
                                "((32,4),(4,32)):((0,1),(128,4))", ("(4,32):(32,1)", 4))
        at.copy_vectorizes(tc, "(128,4):(65536,1)", "src")


# ------------------------------------------------------------------ 3. a copy's threads against its MMA's

def test_builders_and_compatible_compare_thread_counts():
    m256 = at.make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS", (2, 1, 1))
    m128 = at.make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS", (1, 1, 1), (128, 128, 16))
    assert (m256.size, m128.size) == (256, 128) and m256.tile_shape_mnk == m128.tile_shape_mnk
    c128 = at.make_tiled_copy_C("SM90_U32x4_STSM_N", m128, "bf16")
    v = at.compatible_tv(c128, m256, "C")
    assert v.status == "refuted" and v.counterexample.detail == {"copy_threads": 128, "mma_threads": 256}
    for build in (at.make_tiled_copy_C, at.make_tiled_copy_C_atom):
        with pytest.raises(cv.CuteVerifyError, match="has 128 threads.*has 256"):
            build(c128, m256)
    with pytest.raises(cv.CuteVerifyError, match="has 128 threads.*has 256"):
        at.make_tiled_copy_S(c128, at.make_tiled_copy_C("SM90_U32x4_STSM_N", m256, "bf16"))
    # a tiled copy of the MMA's own threads is sliced to its atom, as C++ slices a TiledCopy to its Copy_Atom
    same = at.make_tiled_copy_C(c128, m128)
    assert same.layout_tv_tiled == c128.layout_tv_tiled and same.size == 128


# --------------------------------------------------------------- 4. make_tiled_copy's two signatures

def test_each_make_tiled_copy_form_only_under_its_own_name():
    atom = "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"
    with pytest.raises(cv.CuteVerifyError, match="make_tiled_copy_tv"):
        cv.make_tiled_copy(atom, "(16,8):(8,1)", "(1,8)", "bf16")  # C++'s (atom, thr, val)
    tc = cv.make_tiled_copy_tv(atom, "(16,8):(8,1)", "(1,8)", "bf16")
    assert [cv.size(t) for t in tc.tiler_mn] == [16, 64]
    same = cv.make_tiled_copy(atom, tc.layout_tv_tiled, tuple(tc.tiler_mn), "bf16")  # DSL's (atom, tv, tiler)
    assert same.layout_tv_tiled == tc.layout_tv_tiled
    with pytest.raises(cv.CuteVerifyError, match=r"write make_tiled_copy\(atom, layout_tv, tiler_mn\)"):
        cv.make_tiled_copy_tv("UniversalCopy<uint32_t>", "((32,4),(16,32)):((0,1),(128,4))", ("(4,32):(32,1)", 16),
                              "f32")
    with pytest.raises(mf.ManifestError, match="make_tiled_copy_tv") as e:
        _run_manifest(f"g2s: make_tiled_copy({atom}, (16,8):(8,1), (1,8), bf16)\n", "- covers: {tiled_copy: g2s}\n")
    assert e.value.line == 5


# ------------------------------------------------------------ 5. the reference side of every copy family

TMEM_DSL = textwrap.dedent("""
    import cutlass
    from cutlass import cute
    from cutlass.cute.nvgpu import tcgen05

    def one(case):
        store, rep, shape, stride = case
        cls = tcgen05.copy.St32x32bOp if store else tcgen05.copy.Ld32x32bOp
        atom = cute.make_copy_atom(cls(tcgen05.copy.Repetition(rep)), cutlass.Float32)
        ptr = cute.make_ptr(cutlass.Float32, 0, cute.AddressSpace.tmem)
        t = cute.make_tensor(ptr, cute.make_layout(tuple(shape), stride=tuple(stride)))
        tc = tcgen05.make_tmem_copy(atom, t)
        s = tc.get_slice(0)
        return "|".join([str(tc.layout_tv_tiled), cute.pretty_str(tc.tiler_mn), str(s.partition_S(t).layout),
                         str(s.partition_D(t).layout)])
""")

# FlashAttention-4's SM100 forward: P (64 f32 columns of TMEM, 128 lanes) stored by tcgen05.st.32x32b.x16
TMEM_CASES = [
    ((True, 16, (128, 64), (65536, 1)), "((32,4),(16,32)):((0,1),(128,4))|((4,32):(32,1),16:1)|"
     "((16,1),1,4):((1,0),0,16)|(((16,32),1),1,4):(((1,65536),0),0,16)"),
    ((False, 16, (128, 64), (65536, 1)), "((32,4),(16,32)):((0,1),(128,4))|((4,32):(32,1),16:1)|"
     "(((16,32),1),1,4):(((1,65536),0),0,16)|((16,1),1,4):((1,0),0,16)"),
    ((True, 8, (128, 64), (65536, 1)), "((32,4),(8,32)):((0,1),(128,4))|((4,32):(32,1),8:1)|"
     "((8,1),1,8):((1,0),0,8)|(((8,32),1),1,8):(((1,65536),0),0,8)"),
]


@pytest.mark.differential
def test_tmem_copies_partition_like_cute_dsl():
    lib = default_library()
    got = _dsl(TMEM_DSL, [list(c) for c, _ in TMEM_CASES])
    for i, ((store, rep, shape, stride), want) in enumerate(TMEM_CASES):
        if got is not None:
            assert got[i] == want, (got[i], want)
        tv, tiler, part_s, part_d = want.split("|")
        name = "SM100_TMEM_STORE_32dp32bRx" if store else "SM100_TMEM_LOAD_32dp32bRx"
        tc = at.make_tiled_copy(at.make_copy_atom(lib[name], "f32", R=rep), tv, ("(4,32):(32,1)", rep))
        thr = tc.get_slice(0)
        tmem = cv.Layout(shape, stride)
        assert (str(thr.partition_S(tmem)), str(thr.partition_D(tmem))) == (part_s, part_d)
        assert tc.ref_side == ("dst" if store else "src") and tc.reg_side == ("src" if store else "dst")


def _cpp_ref_sides() -> dict:
    """``{Copy_Traits<NAME>: "src" | "dst"}`` read from CUTLASS's copy_traits headers. A RefLayout naming another
    trait's RefLayout (the TMEM stores name the loads') is that trait's Src/DstLayout, found among this trait's
    own ``SrcLayout = typename Copy_Traits<T>::...`` / ``DstLayout = ...`` definitions."""
    tc = cpp_build.toolchain()
    if tc is None:
        pytest.skip("CUTLASS headers not found")
    inc = [x[2:] for x in tc[1] if x.startswith("-I")]
    out, alias = {}, {}
    for d in inc:
        atom_dir = os.path.join(d, "cute", "atom")
        if not os.path.isdir(atom_dir):
            continue
        for f in sorted(os.listdir(atom_dir)):
            if not f.startswith("copy_traits"):
                continue
            text = open(os.path.join(atom_dir, f)).read()
            for m in re.finditer(r"struct Copy_Traits<(\w+)[^{]*\{(.*?)\n\};", text, re.S):
                ref = re.search(r"using RefLayout\s*=\s*([^;]+);", m.group(2))
                if not ref:
                    continue
                r = ref.group(1).strip()
                if r in ("SrcLayout", "DstLayout"):
                    out[m.group(1)] = "src" if r == "SrcLayout" else "dst"
                elif (a := re.match(r"typename Copy_Traits<(\w+)>::RefLayout", r)) is not None:
                    own = {side: re.search(rf"using {side.capitalize()}Layout\s*=\s*typename "
                                           rf"Copy_Traits<\w+>::(\w+)Layout;", m.group(2))
                           for side in ("src", "dst")}
                    alias[m.group(1)] = (a.group(1), {side: g.group(1).lower() for side, g in own.items() if g})
    for name, (target, own) in alias.items():
        if target in out:  # the target's reference layout, seen as one of this trait's own layouts
            out[name] = next(side for side, theirs in own.items() if theirs == out[target])
    return out


@pytest.mark.differential
def test_every_copy_family_takes_cutlass_s_reference_side():
    cpp = _cpp_ref_sides()
    lib = default_library()
    checked = 0
    for name in lib:
        spec = lib.peek(name)
        if spec.kind != "copy":
            continue
        params = {k: v[0] for k, v in spec.params.items()} if spec.is_family else {}
        cpp_name = re.sub(r"<.*>", "", name).replace("Rx", f"{params.get('R', '')}x") if params else \
            re.sub(r"<.*>", "", name)
        want = cpp.get(cpp_name)
        if want is None:
            continue
        atom = at.make_copy_atom(lib[name], "b32" if "TMEM" in name else "b8", **params)
        assert atom.ref_side == want, (name, cpp_name)
        checked += 1
    assert checked >= 20 and {"dst", "src"} <= set(cpp.values())
