"""Tiled MMAs of the committed CuTe DSL 4.8.1 captures (cuteverify.frontend.trace.atoms_mma / emit_mma).

The captures are the DSL's own answers: every ``cute.tiled.mma.partition`` / ``partition_shape`` /
``cute.mma.make_fragment`` printed the layout or shape the DSL computed for a real kernel. The differential tests
evaluate the mapped tiled MMA with cuteverify and compare its partitions, shapes and fragments with those
printed results (a dynamic extent or stride, ``?{div=8}``, matches any non-constant value on the other side).
The emitted claims of every unmodified kernel must prove; mutants of the captured type text must be refuted at
the source line of the op that reads the mutated object.
"""
import gzip
from functools import lru_cache
from pathlib import Path

import pytest

from cuteverify.atoms.operand_desc import atom_block
from cuteverify.atoms.partition import fragment_like
from cuteverify.core.layout import Layout
from cuteverify.core.notation.parse import parse
from cuteverify.core.swizzle import ComposedLayout
from cuteverify.errors import CaptureError
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.manifest.expr import evaluate
from cuteverify.frontend.trace.atoms_mma import operand_name, tiled_mma_expr
from cuteverify.frontend.trace.document import Doc
from cuteverify.frontend.trace.emit_mma import emit, partition_source, tiled_mmas
from cuteverify.frontend.trace.mlir import parse_type, read, read_file
from cuteverify.frontend.trace.types import elem_bits, memref

DATA = Path(__file__).resolve().parents[1] / "trace_data"
CAPTURES = sorted(DATA.glob("*.mlir.gz"))
IDS = [p.name.split(".")[0] for p in CAPTURES]
#: the tiled MMAs no spec names, with the reason the mapping must give
UNMAPPED: dict = {}  # atom type -> the reason it cannot map (none since specs/mma_universal.yaml)
MMA_OPS = ("cute.tiled.mma.partition", "cute.tiled.mma.partition_shape", "cute.mma.make_fragment")


@lru_cache(maxsize=None)
def _module(path):
    return read_file(path)


@lru_cache(maxsize=None)
def _tiled(text):
    t = parse_type(text)
    return evaluate(tiled_mma_expr(t), {})


def _flat(x):
    return [y for e in x for y in _flat(e)] if isinstance(x, tuple) else [x]


def _profile(x):
    return tuple(_profile(e) for e in x) if isinstance(x, tuple) else "."


def _same_value(a, b):
    """Equal integers / basis strides; two non-constant values (a ``?`` of the DSL, a symbol of ours) match."""
    if type(a) is int and type(b) is int:
        return a == b
    if type(a) is int or type(b) is int:
        return False
    return str(a) == str(b) or not (str(a).replace("@", "").isdigit() or str(b).replace("@", "").isdigit())


def _same_layout(printed, got, ignore_unit_strides=False):
    """The DSL's layout ``printed`` and ours ``got``: the same nested shape, and equal strides (a size-1 mode's
    stride is no part of the function when ``ignore_unit_strides``)."""
    if _profile(printed.shape) != _profile(got.shape):
        return False
    shapes = list(zip(_flat(printed.shape), _flat(got.shape)))
    if not all(_same_value(a, b) for a, b in shapes):
        return False
    return all(_same_value(a, b) or (ignore_unit_strides and s == 1)
               for (a, b), (s, _) in zip(zip(_flat(printed.stride), _flat(got.stride)), shapes))


def _layout(t):
    if t.name == "cute.coord_tensor":
        return parse(t.args[1])
    return memref(t).layout


def _sizes(layout):
    """Mode sizes of a layout's top modes (of the outer layout of a swizzled one)."""
    lay = layout.outer if isinstance(layout, ComposedLayout) else layout
    out = []
    for s in lay.shape:
        n = 1
        for x in _flat(s):
            n *= x
        out.append(n)
    return out


def _shape(text):
    return parse(f"{text}:{text}").shape if text.startswith("(") else int(text)


def test_every_tiled_mma_maps_or_is_named():
    """Each distinct tiled MMA of every capture maps to a TiledMma whose tile and thread count are those the
    captured type states (atom MxNxK times the atom layout's extents; threads = atom threads x atom layout), or
    is one of the named unmapped atoms with its reason."""
    mapped = unmapped = 0
    for path in CAPTURES:
        for text, (t, op) in tiled_mmas(_module(path)).items():
            atom = t.positional[0]
            if atom.name in UNMAPPED:
                with pytest.raises(CaptureError, match=UNMAPPED[atom.name]):
                    tiled_mma_expr(t)
                unmapped += 1
                continue
            tm = _tiled(text)
            m, n, k = (int(x) for x in str(atom.positional[0]).split("x"))
            al = parse(t.get("atom_layout_MNK"))
            ext = [int(s) for s in al.shape]
            assert tm.get_slice(0).tiled_mma.atom.shape_mnk == (m, n, k)
            if t.get("permutation_MNK") == "[_;_;_]":
                assert tm.tile_shape_mnk == (m * ext[0], n * ext[1], k * ext[2]), text
            threads = {"cute_nvgpu.sm80.mma": 32, "cute_nvgpu.sm90.mma": 128,
                       "cute_nvgpu.atom.universal_fma": 1}.get(atom.name) or \
                int(str(atom.get("num_cta")))
            assert tm.size == threads * ext[0] * ext[1] * ext[2], text
            mapped += 1
    assert mapped == 13 and unmapped == 0  # per capture: 10 distinct types over 11 kernels


@pytest.mark.parametrize("path", CAPTURES, ids=IDS)
def test_partitions_equal_the_dsls(path):
    """Differential on the kernel itself: cuteverify's partition_A/B/C, partition_shape_A/B/C and make_fragment
    of the same tensor equal what the DSL printed for each op of the capture."""
    m = _module(path)
    compared = 0
    for op in m.of(*MMA_OPS):
        mt = op.in_types[0]
        if mt.positional[0].name in UNMAPPED or mt.positional[0].name == "cute_nvgpu.atom.universal_fma":
            continue  # the SIMT GEMM's strided permutation: test_universal_fma_maps compares its partitions
        tm, operand = _tiled(mt.text), operand_name(op.props["operand_id"])
        src, dst = op.in_types[1], op.out_types[0]
        where = f"{op.loc.describe()} ({op.name})"
        if op.name == "cute.tiled.mma.partition":
            got = tm.get_slice(0).partition(operand, _layout(src)).layout
            printed = _layout(dst)
            if isinstance(got, ComposedLayout):
                # a swizzled tensor partitioned at a dynamic thread: the DSL folds the swizzle into
                # thread-dependent strides; the mode sizes are what both sides state
                assert _sizes(got) == _sizes(printed), where
            else:
                assert _same_layout(printed, got), (where, str(printed), str(got))
        elif op.name == "cute.tiled.mma.partition_shape":
            got = tm.partition_shape(operand, _shape(src.args[0]))
            assert _profile(got) == _profile(_shape(dst.args[0])) and _flat(got) == _flat(_shape(dst.args[0])), where
        else:
            out = memref(dst)
            if out is not None and out.space == "tmem":
                continue  # TMEM fragments: addresses of the tensor-memory allocator, not a partition
            compared += _fragment(m, op, tm, operand, src, dst, where)
            continue
        compared += 1
    expect = {"ampere_sgemm_sm_80": 0, "quack_rmsnorm_sm_90a": 0}.get(path.name.split(".")[0])
    assert compared > 0 if expect is None else compared == expect


def _fragment(m, op, tm, operand, src, dst, where) -> int:
    part = partition_source(m, op)
    if dst.name == "cute_nvgpu.smem_desc_view":
        view = parse(dst.args[1])
        given = memref(src)
        units = 128 // elem_bits(given.elem)
        inp = given.layout
        # one descriptor per atom block: mode 0 is the atom's (MN, K) block as cuteverify's partition has it
        block = inp.shape[0]
        assert tuple(_prod(b) for b in block) == atom_block(tm, operand), where
        assert view.shape[0] == 1 and view.stride[0] == 0, where
        assert _profile(view.shape[1:]) == _profile(inp.shape[1:]) and _flat(view.shape[1:]) == _flat(inp.shape[1:])
        assert _flat(view.stride[1:]) == [d // units for d in _flat(inp.stride[1:])], where
        if part is not None:  # the descriptor view cuteverify builds from the tensor the kernel partitioned
            got = tm.get_slice(0).partition_fragment(operand, _layout(part.in_types[1]))
            assert _same_layout(view, got), (where, str(view), str(got))
        return 1
    printed = memref(dst).layout
    if src.name == "cute.shape":
        got = Layout(_shape(src.args[0]))
    elif operand == "C":
        got = Layout(memref(src).layout.shape)
    elif part is not None:
        source = _layout(part.in_types[1])
        got = tm.get_slice(0).partition_fragment(operand, source)
        if isinstance(source, ComposedLayout):
            # A swizzled tensor: the DSL (and CuTe C++: partition_fragment_A of this sQ at thread 5 prints
            # the DSL's ((_1,_2,_4),_8,((_32,_64),_16))) folds the swizzle into the thread's strides, splitting
            # K's 4 into (2,2), and orders the registers by those strides; cuteverify keeps the swizzle outside
            # (the same function: checked against C++ at thread 5) and orders by the static inner strides.
            # The register order differs (a known modelling difference, no claim compares fragments); both
            # are compact fragments of the same mode sizes.
            assert _sizes(printed) == _sizes(got) and _is_compact(printed), (where, str(printed), str(got))
            return 1
    else:
        got = fragment_like(memref(src).layout)
    assert _same_layout(printed, got, ignore_unit_strides=True), (where, str(printed), str(got))
    return 1


def _is_compact(layout):
    """Independent evaluator: the flat integer layout takes every value of [0, size) exactly once."""
    shape, stride = _flat(layout.shape), _flat(layout.stride)
    values = [0]
    for n, d in zip(shape, stride):
        values = [v + i * d for i in range(n) for v in values]
    return sorted(values) == list(range(len(values)))


def _prod(x):
    n = 1
    for v in _flat(x):
        n *= v
    return n


def _results(module, name="k"):
    doc = Doc(name, "capture")
    emit(module, doc)
    return doc, (mf.run(mf.load_text(doc.yaml(), "capture")) if doc.claims else [])


@pytest.mark.parametrize("path", CAPTURES, ids=IDS)
def test_claims_of_unmodified_kernels_prove(path):
    """Every claim emitted for a real CUTLASS / FA4 / QuACK kernel proves, and every tiled MMA maps."""
    doc, rows = _results(_module(path))
    bad = [(r["status"], r["claim"], r.get("at"), r.get("reason")) for r in rows if r["status"] != "proved"]
    assert not bad, bad[:3]
    kinds = {next(iter(c)) for c in doc.claims}
    name = path.name.split(".")[0]
    if name == "quack_rmsnorm_sm_90a":
        assert not rows and not doc.unknowns
    else:
        assert {"agrees", "covers"} <= kinds and not doc.unknowns, (kinds, doc.unknowns)
        assert all(c.get("at") for c in doc.claims)
        if "sm_90a" in name or "sm_100a" in name:
            assert "operand" in kinds  # wgmma / UMMA descriptors of every make_fragment of smem
        if "sm_80" in name or "hopper" in name:
            assert "equal" in kinds


def _mutant(path, old, new, count=None):
    text = gzip.decompress(Path(path).read_bytes()).decode()
    assert old in text
    if count is not None:
        assert text.count(old) == count
    return read(text.replace(old, new), str(path))


def _refuted(rows):
    return [(r["kind"], r["at"].split(": ", 1)[0].rsplit(":", 1)[1], r["at"]) for r in rows if r["status"] == "refuted"]


def test_mutant_hopper_a_declared_mn_major_is_refuted_at_make_fragment_a():
    """The Hopper GEMM's wgmma declares A MN-major while sA is the K-major 128B-swizzled tile: the operand claim
    of make_fragment_A (line 708) is refuted, and nothing else is."""
    m = _mutant(DATA / "hopper_dense_gemm_sm_90a.mlir.gz", "ab_major = (k, k)", "ab_major = (mn, k)")
    _, rows = _results(m)
    assert [(k, line) for k, line, _ in _refuted(rows)] == [("operand", "708")]
    assert all(r["status"] == "proved" for r in rows if r["status"] != "refuted")


def test_mutant_blackwell_b_declared_mn_major_is_refuted_at_make_fragment_b():
    """The 2-CTA UMMA of the Blackwell GEMM with B declared MN-major against its K-major sB: refuted at
    make_fragment_B (line 681)."""
    m = _mutant(DATA / "blackwell_dense_gemm_sm_100a.mlir.gz", "ab_major = (k, k)", "ab_major = (k, mn)")
    _, rows = _results(m)
    assert [(k, line) for k, line, _ in _refuted(rows)] == [("operand", "681")]


def test_mutant_ampere_wrong_permutation_is_refuted_at_partition_b():
    """A tiled MMA whose N permutation is not the kernel's: cuteverify's partition_B of sB no longer equals the
    partition the DSL printed for the kernel's real MMA (line 587), while A's is unchanged."""
    m = _mutant(DATA / "ampere_tensorop_gemm_sm_80.mlir.gz", '[32:1;32:1;16:1]', '[32:1;(8,2,2):(1,16,8);16:1]')
    _, rows = _results(m)
    got = {(k, line) for k, line, _ in _refuted(rows)}
    assert ("equal", "587") in got and ("equal", "586") not in got, got


def test_mutant_wrong_atom_layout_is_refuted_at_partition():
    """FA4 sm90's QK MMA with its two warpgroups along N instead of M: the partition of sA the DSL printed
    (line 231) is not the mutated MMA's."""
    old = 'frag_kind = ss>, atom_layout_MNK = <"(2,1,1):(1,0,0)">'
    m = _mutant(DATA / "fa4_fwd_sm_90a.mlir.gz", old, 'frag_kind = ss>, atom_layout_MNK = <"(1,2,1):(0,1,0)">')
    _, rows = _results(m)
    got = {(k, line) for k, line, _ in _refuted(rows)}
    assert ("equal", "231") in got, (got, [r for r in rows if r["status"] != "proved"][:3])


def test_unknown_atoms_are_capture_errors_naming_them():
    sm70 = parse_type('!cute.tiled_mma<!cute_nvgpu.sm70.mma<8x8x4>, atom_layout_MNK = <"(1,1,1):(0,0,0)">, '
                      'permutation_MNK = <"[_;_;_]">>')
    with pytest.raises(CaptureError, match="cute_nvgpu.sm70.mma is not mapped"):
        tiled_mma_expr(sm70)
    scaled = parse_type('!cute.tiled_mma<!cute_nvgpu.sm100.mma<128x128x16, num_cta = 1, ab_major = (k, k), '
                        'elem_type = (f16, f16, f32), frag_kind = ss, c_scale_exp = 2>, atom_layout_MNK = '
                        '<"(1,1,1):(0,0,0)">, permutation_MNK = <"[_;_;_]">>')
    with pytest.raises(CaptureError, match="c_scale_exp = 2"):
        tiled_mma_expr(scaled)
    with pytest.raises(CaptureError, match="not a !cute.tiled_mma"):
        tiled_mma_expr(parse_type("f16"))
    with pytest.raises(CaptureError, match="operand_id"):
        operand_name("3 : i32")


def test_mutant_hopper_wrong_pointer_swizzle_is_refuted_at_make_fragment_a():
    """sA allocated with the 64B swizzle S<2,4,3> while the MMA's K-major tile has 128-byte rows: the
    descriptor cannot read it, refuted at make_fragment_A (line 708)."""
    layout = '"((8,16),(64,1),(1,4)):((64,512),(1,0),(0,8192))"'
    m = _mutant(DATA / "hopper_dense_gemm_sm_90a.mlir.gz", f"S<3,4,3>, {layout}", f"S<2,4,3>, {layout}", count=1)
    _, rows = _results(m)
    assert [(k, line) for k, line, _ in _refuted(rows)] == [("operand", "708")]


def test_operand_smem_is_the_element_domain_layout():
    """NOTES.md pitfall 12: sA's pointer swizzle S<3,4,3> acts on bytes; the operand claim reads the f16 tile in
    elements, S<3,3,3>. Read as an element swizzle, the same tile is not what the descriptor reads (so the
    conversion is what makes the unmodified kernel prove, and a regression that dropped it would fail here)."""
    m = _module(DATA / "hopper_dense_gemm_sm_90a.mlir.gz")
    doc = Doc("k", "capture")
    emit(m, doc)
    ops = [c["operand"] for c in doc.claims if "operand" in c]
    assert [o["operand"] for o in ops] == ["A", "B"] and all(o["dtype"] == "f16" for o in ops)
    a = doc.layouts[ops[0]["smem"]]
    assert a == "S<3,3,3> o 0 o ((8,16),(64,1),(1,4)):((64,512),(1,0),(0,8192))"
    wrong = dict(doc.layouts, **{ops[0]["smem"]: a.replace("S<3,3,3>", "S<3,4,3>")})
    doc.layouts = wrong
    rows = mf.run(mf.load_text(doc.yaml(), "capture"))
    assert [r["status"] for r in rows if r["kind"] == "operand"] == ["refuted", "proved"]


def test_universal_fma_maps():
    """The Ampere SIMT GEMM's 16x16-thread UniversalFMA MMA with its strided permutation
    [(16,4):(4,1);(16,4):(4,1);_] maps to the shipped UniversalFMA<float, float, float, float> spec: its
    partitions and fragments equal the DSL's, and its claims prove."""
    path = DATA / "ampere_sgemm_sm_80.mlir.gz"
    m = _module(path)
    (t, op), = tiled_mmas(m).values()
    expr = tiled_mma_expr(t)
    assert expr == ("make_tiled_mma(UniversalFMA<float, float, float, float>, (16,16,1):(16,1,0), "
                    "[(16,4):(4,1);(16,4):(4,1);_])")
    tm = evaluate(expr, {})
    assert tm.size == 256 and tm.tile_shape_mnk == (64, 64, 1)
    compared = 0
    for op in m.of(*MMA_OPS):
        operand, src, dst = operand_name(op.props["operand_id"]), op.in_types[1], op.out_types[0]
        where = f"{op.loc.describe()} ({op.name})"
        if op.name == "cute.tiled.mma.partition":
            assert _same_layout(_layout(dst), tm.get_slice(0).partition(operand, _layout(src)).layout), where
        else:
            compared += _fragment(m, op, tm, operand, src, dst, where) - 1
        compared += 1
    assert compared == 7
    doc, rows = _results(m)
    assert not doc.unknowns and rows and all(r["status"] == "proved" for r in rows), rows
    assert {next(iter(c)) for c in doc.claims} == {"agrees", "covers", "equal"}


@pytest.mark.parametrize("atom, name", [
    ("!cute_nvgpu.sm80.mma<16x8x16, elem_type = (bf16, bf16, f32) >", "SM80_16x8x16_F32BF16BF16F32_TN"),
    ("!cute_nvgpu.sm80.mma<16x8x8, elem_type = (f16, f16, f16) >", "SM80_16x8x8_F16F16F16F16_TN"),
    ("!cute_nvgpu.sm80.mma<16x8x8, elem_type = (tf32, tf32, f32) >", "SM80_16x8x8_F32TF32TF32F32_TN"),
    ("!cute_nvgpu.sm90.mma<64x64x16, ab_major = (mn, mn), elem_type = (bf16, bf16, f32), frag_kind = ss>",
     "SM90_64x64x16_F32BF16BF16_SS<GMMA::Major::MN,GMMA::Major::MN>"),
    ("!cute_nvgpu.sm90.mma<64x128x8, ab_major = (k, k), elem_type = (tf32, tf32, f32), frag_kind = ss>",
     "SM90_64x128x8_F32TF32TF32_SS_TN"),
    ("!cute_nvgpu.sm90.mma<64x256x32, ab_major = (k, k), elem_type = (f8E4M3FN, f8E4M3FN, f32), frag_kind = ss>",
     "SM90_64x256x32_F32E4M3E4M3_SS_TN"),
    ("!cute_nvgpu.sm100.mma<128x256x16, num_cta = 1, ab_major = (mn, k), elem_type = (bf16, bf16, f32), "
     "frag_kind = ss, c_scale_exp = 0>",
     "SM100_MMA_F16BF16_SS<bfloat16_t, bfloat16_t, float, 128, 256, UMMA::Major::MN, UMMA::Major::K>"),
    ("!cute_nvgpu.sm100.mma<256x64x16, num_cta = 2, ab_major = (k, mn), elem_type = (f16, f16, f32), "
     "frag_kind = ts, c_scale_exp = 0>",
     "SM100_MMA_F16BF16_2x1SM_TS<half_t, half_t, float, 256, 64, UMMA::Major::K, UMMA::Major::MN>"),
])
def test_atom_names_as_cutlass_spells_them(atom, name):
    """Atoms the captures do not hold, named as CUTLASS's headers name them (written here from
    mma_sm80.hpp / mma_sm90_gmma.hpp / mma_sm100_umma.hpp), and each resolvable by the spec library."""
    t = parse_type(f'!cute.tiled_mma<{atom}, atom_layout_MNK = <"(1,1,1):(0,0,0)">, permutation_MNK = '
                   '<"[_;_;_]">>')
    assert tiled_mma_expr(t) == f"make_tiled_mma({name}, (1,1,1):(0,0,0))"
    assert evaluate(tiled_mma_expr(t), {}).size > 0


def test_wgmma_majors_an_atom_cannot_take_are_capture_errors():
    t = parse_type('!cute.tiled_mma<!cute_nvgpu.sm90.mma<64x128x8, ab_major = (mn, k), elem_type = (tf32, tf32, '
                   'f32), frag_kind = ss>, atom_layout_MNK = <"(1,1,1):(0,0,0)">, permutation_MNK = <"[_;_;_]">>')
    with pytest.raises(CaptureError, match=r"no wgmma atom SM90_64x128x8_F32TF32TF32_SS with majors \(MN, K\)"):
        tiled_mma_expr(t)
    rs = parse_type('!cute.tiled_mma<!cute_nvgpu.sm90.mma<64x64x16, ab_major = (mn, k), elem_type = (bf16, bf16, '
                    'f32), frag_kind = rs>, atom_layout_MNK = <"(1,1,1):(0,0,0)">, permutation_MNK = <"[_;_;_]">>')
    with pytest.raises(CaptureError, match="Register source operand A must have K major"):
        tiled_mma_expr(rs)  # a name the resolver refuses is refused here, never emitted


def test_descriptor_view_of_a_composed_layout_is_unknown_not_guessed():
    """A descriptor view of a tensor whose layout text is a composed layout (``S<3,4,3> o 0 o ...``, no pointer
    swizzle): bytes or elements cannot be told from the text, so no operand claim is made, and the unknown
    names the op."""
    old = '!cute.memref<f16, smem, align<1024>, S<3,4,3>, "((8,16),(64,1),(1,4)):((64,512),(1,0),(0,8192))">'
    new = '!cute.memref<f16, smem, align<1024>, "S<3,4,3> o 0 o ((8,16),(64,1),(1,4)):((64,512),(1,0),(0,8192))">'
    m = _mutant(DATA / "hopper_dense_gemm_sm_90a.mlir.gz", old, new, count=1)
    doc = Doc("k", "capture")
    emit(m, doc)
    assert [c["operand"]["operand"] for c in doc.claims if "operand" in c] == ["B"]
    assert [(u.loc.line, "composed layout" in u.why) for u in doc.unknowns] == [(708, True)]
