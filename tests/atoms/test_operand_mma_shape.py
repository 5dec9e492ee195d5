"""The ``operand`` claim on the smem layouts Blackwell kernels hand to ``make_fragment_A/B`` (issue 26 review,
findings 4 and 5).

Finding 4: CuTe DSL's SM100 ``make_smem_layout_a/b`` is ``tile_to_mma_shape(atom, partition_shape_A(tiled_mma,
(M, K)) + (stages,))``, the MMA-partitioned ``((ATOM_MN, ATOM_K), REST_MN, REST_K, stages)`` tile that
``blackwell/dense_gemm.py`` passes to ``tiled_mma.make_fragment_A(sA)`` as is (CUTLASS's
``MakeTensor<UMMA::smem_desc>``: ``make_umma_desc`` of mode 0, the start address advanced over the others).
The record below is what CuTe DSL 4.8.1 prints (``CUTE_DSL_ARCH=sm_100a``, the worker ``DSL_WORKER``; rechecked
live by ``test_record_is_cute_dsl``): the smem layout (byte swizzle, element strides), ``partition_shape_A/B``
and the layout of ``make_fragment_A/B``'s descriptor tensor (start-address steps in 16-byte units).

Independent evaluators: the smem layout's byte address evaluated here from the DSL's printed text, and PTX's
canonical UMMA layouts (K-major / MN-major, 128-byte swizzle, 16-bit elements) evaluated with the descriptor
fields the claim derives: every element of every block must be read at the byte the DSL's layout puts it.

Finding 5: wgmma atoms named with template arguments CUTLASS rejects (cute/arch/mma_sm90_gmma.hpp) are input
errors naming the rule; the record of what g++ says on CUTLASS's headers is rechecked live when the toolchain
is there (``test_template_record_is_cutlass``)."""
import ast
import json
import re
import subprocess

import pytest
from click.testing import CliRunner

import cuteverify.frontend.manifest as mf
from cuteverify.algebra.tile import tile_to_mma_shape
from cuteverify.atoms import make_tiled_mma
from cuteverify.atoms.operand_desc import atom_block, check_operand, declared_major, operand_descriptors, \
    prove_operand
from cuteverify.frontend.cli.main import main
from cuteverify.core.notation.parse import parse
from cuteverify.errors import NotAdmissibleError, SpecError

import dsl_oracle
from cpp_oracle.gxx import run_cpp

# name: (CtaGroup, (M, N), A major, B major, operand)
CASES = {"2cta_A_K": ("TWO", (256, 128), "K", "K", "A"), "2cta_B_K": ("TWO", (256, 128), "K", "K", "B"),
         "2cta_A_MN": ("TWO", (256, 128), "MN", "K", "A"), "2cta_B_MN": ("TWO", (256, 128), "K", "MN", "B"),
         "1cta_A_K": ("ONE", (128, 128), "K", "K", "A"), "1cta_B_MN": ("ONE", (128, 256), "K", "MN", "B")}
# CuTe DSL 4.8.1: make_smem_layout_a/b(mma, (M, N, 64), f16, 2), partition_shape_A/B((MN, 64)), and
# make_fragment_A/B(tensor of that layout).layout
DSL_RECORD = {
    "2cta_A_K": ("S<3,4,3> o 0 o ((128,16),1,4,2):((64,1),0,16,8192)", "((128, 16), 1, 4)", "(1,1,4,2):(0,0,2,1024)"),
    "2cta_B_K": ("S<3,4,3> o 0 o ((64,16),1,4,2):((64,1),0,16,4096)", "((64, 16), 1, 4)", "(1,1,4,2):(0,0,2,512)"),
    "2cta_A_MN": ("S<3,4,3> o 0 o (((64,2),16),1,4,2):(((1,4096),64),0,1024,8192)", "((128, 16), 1, 4)",
                  "(1,1,4,2):(0,0,128,1024)"),
    "2cta_B_MN": ("S<3,4,3> o 0 o ((64,16),1,4,2):((1,64),0,1024,4096)", "((64, 16), 1, 4)",
                  "(1,1,4,2):(0,0,128,512)"),
    "1cta_A_K": ("S<3,4,3> o 0 o ((128,16),1,4,2):((64,1),0,16,8192)", "((128, 16), 1, 4)", "(1,1,4,2):(0,0,2,1024)"),
    "1cta_B_MN": ("S<3,4,3> o 0 o (((64,4),16),1,4,2):(((1,4096),64),0,1024,16384)", "((256, 16), 1, 4)",
                  "(1,1,4,2):(0,0,128,2048)"),
}
UMMA_SWIZZLE_128B = 2  # cute/arch/mma_sm100_desc.hpp: UMMA::LayoutType::SWIZZLE_128B

DSL_WORKER = r'''
import json, sys
import cutlass, cutlass.cute as cute
import cutlass.utils.blackwell_helpers as sm100
from cutlass.cute.nvgpu import tcgen05, OperandMajorMode
f16, f32 = cutlass.Float16, cutlass.Float32
MAJ = {"K": OperandMajorMode.K, "MN": OperandMajorMode.MN}
CASES = json.loads(sys.argv[1])

@cute.jit
def run():
    out = {}
    sptr = cute.make_ptr(f16, 0, cute.AddressSpace.smem, assumed_align=1024)
    for name, (grp, mn, am, bm, op) in CASES.items():
        mma = sm100.make_trivial_tiled_mma(f16, MAJ[am], MAJ[bm], f32, getattr(tcgen05.CtaGroup, grp), tuple(mn))
        make = sm100.make_smem_layout_a if op == "A" else sm100.make_smem_layout_b
        s = make(mma, tuple(mn) + (64,), f16, 2)
        ps = (mma.partition_shape_A if op == "A" else mma.partition_shape_B)((mn[0 if op == "A" else 1], 64))
        frag = (mma.make_fragment_A if op == "A" else mma.make_fragment_B)(cute.make_tensor(sptr, s.outer))
        out[name] = [str(s), str(ps), str(frag.layout)]
    print("RESULT " + json.dumps(out))
run()
'''


# ---------------------------------------------------------------- an evaluator that shares no code with cuteverify

def _split(text):
    """``shape:stride`` text -> (shape, stride) as Python tuples."""
    depth = 0
    for i, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if c == ":" and depth == 0:
            return ast.literal_eval(text[:i]), ast.literal_eval(text[i + 1:])
    raise ValueError(text)


def _size(s):
    if type(s) is int:
        return s
    n = 1
    for x in s:
        n *= _size(x)
    return n


def _at(shape, stride, coord):
    """The layout's value at a coordinate (an int into a nested mode is read colexicographically)."""
    if type(shape) is int:
        return coord * stride
    if type(coord) is int:
        out = 0
        for s, d in zip(shape, stride):
            out += _at(s, d, coord % _size(s))
            coord //= _size(s)
        return out
    return sum(_at(s, d, c) for s, d, c in zip(shape, stride, coord))


def _dsl_smem(name):
    """(byte address of coordinate, the layout's shape) from the DSL's text: the swizzle acts on bytes."""
    m = re.fullmatch(r"S<(\d+),(\d+),(\d+)> o 0 o (.*)", DSL_RECORD[name][0])
    b, base, sh = (int(x) for x in m.groups()[:3])
    shape, stride = _split(m.group(4))

    def byte(coord):
        x = 2 * _at(shape, stride, coord)
        return x ^ ((x >> sh) & (((1 << b) - 1) << base))
    return byte, shape


def _element_form(name):
    """The DSL's layout as cuteverify text: its byte swizzle S<3,4,3> on 16-bit elements is S<3,3,3>."""
    return parse(DSL_RECORD[name][0].replace("S<3,4,3>", "S<3,3,3>"))


def _ptx_byte(major, start, lbo, sbo, i, j):
    """PTX's canonical UMMA layouts, 128-byte swizzle, 16-bit elements, in bytes (swizzle applied):
    K-major ((8,m),(64,k)):((128 B, SBO),(2 B, -)); MN-major ((64,n),(8,k)):((2 B, LBO),(128 B, SBO)) (LBO
    unused, None, when the block is one swizzle atom wide)."""
    if major == "K":
        x = start + 128 * (i % 8) + sbo * (i // 8) + 2 * j
    else:
        x = start + 2 * (i % 64) + (lbo * (i // 64) if i >= 64 else 0) + 128 * (j % 8) + sbo * (j // 8)
    return x ^ ((x >> 3) & 0x70)


def _mma(name, majors=None):
    grp, (m, n), am, bm, _ = CASES[name]
    am, bm = majors or (am, bm)
    fam = "SM100_MMA_F16BF16_2x1SM_SS" if grp == "TWO" else "SM100_MMA_F16BF16_SS"
    return make_tiled_mma(f"{fam}<half_t, half_t, float, {m}, {n}, UMMA::Major::{am}, UMMA::Major::{bm}>")


# ----------------------------------------------------------------------------------------------- finding 4

@pytest.mark.parametrize("name", sorted(CASES))
def test_make_smem_layout_is_read_as_make_fragment_reads_it(name):
    grp, mn, am, bm, op = CASES[name]
    major = am if op == "A" else bm
    tm, smem = _mma(name), _element_form(name)
    v = prove_operand(tm, op, smem, "f16", name="sX")
    assert v.proved, v
    assert "MMA-partitioned" in v.method and "8 blocks" in v.method, v.method
    # the atom's block is partition_shape_A/B's first mode
    assert atom_block(tm, op) == ast.literal_eval(DSL_RECORD[name][1])[0]
    byte, shape = _dsl_smem(name)
    fshape, fstride = _split(DSL_RECORD[name][2])
    blocks = operand_descriptors(tm, op, smem, "f16")
    assert len(blocks) == _size(shape) // _size(shape[0])
    for t, rest, d, rules in blocks:
        assert t == 0 and rules.status == "proved"
        # make_fragment's descriptor tensor: the start address advances by its stride (16-byte units)
        assert d.start == 16 * _at(fshape, fstride, (0,) + tuple(rest))
        assert d.layout_type_value == UMMA_SWIZZLE_128B
        for i in range(_size(shape[0][0])):
            for j in range(_size(shape[0][1])):
                assert _ptx_byte(major, d.start, d.lbo, d.sbo, i, j) == byte(((i, j),) + tuple(rest)), \
                    (name, rest, i, j)


def test_tile_to_mma_shape_builds_the_dsls_layouts():
    # cuteverify's tile_to_mma_shape (the manifest's) gives the DSL's make_smem_layout_a/b, K- and MN-major
    k_atom, mn_atom = parse("S<3,3,3> o 0 o (8,64):(64,1)"), parse("S<3,3,3> o 0 o (64,8):(1,64)")
    for name in CASES:
        _, _, am, bm, op = CASES[name]
        major = am if op == "A" else bm
        part = ast.literal_eval(DSL_RECORD[name][1])
        ours = tile_to_mma_shape(k_atom if major == "K" else mn_atom, part + (2,),
                                 None if major == "K" else (1, 0, 2))
        byte, shape = _dsl_smem(name)
        for idx in range(_size(shape)):
            assert 2 * ours(idx) == byte(idx), (name, idx)


def test_wrong_major_is_refuted_at_the_tiles_own_coordinate():
    smem = _element_form("2cta_A_K")
    v = prove_operand(_mma("2cta_A_K", ("MN", "K")), "A", smem, name="sA")
    assert v.refuted and "declared UMMA::Major::MN but the tile is K-major" in v.reason, v
    assert "m-block 0, k-block 0, stage 0 (thread 0)" in v.reason
    cex = v.counterexample
    (i, j), *rest = cex.coords
    byte, _ = _dsl_smem("2cta_A_K")
    assert 0 <= i < 128 and 0 <= j < 16 and len(rest) == 3
    # the byte named for the layout is the DSL layout's at that coordinate; the descriptor's is another
    assert cex.values[1] == byte(cex.coords) and cex.values[0] != cex.values[1]
    assert f"sA coordinate (({i},{j}),{rest[0]},{rest[1]},{rest[2]})" in cex.note
    # the MN-major layout read with the MN-major declaration of the other operand's atom is refuted too
    v = prove_operand(_mma("2cta_A_MN", ("K", "K")), "A", _element_form("2cta_A_MN"))
    assert v.refuted and "declared UMMA::Major::K but the tile is MN-major" in v.reason, v


def test_other_shapes_are_refused_naming_both_without_flattening():
    # sB's ((64,16),1,4,2) handed over as the 2-CTA atom's A: neither reading fits
    with pytest.raises(NotAdmissibleError) as e:
        prove_operand(_mma("2cta_A_K"), "A", _element_form("2cta_B_K"), name="sB")
    msg = str(e.value)
    assert "sB has shape ((64,16),1,4,2)" in msg and "(M,K) = (256,16)" in msg
    assert "((ATOM_M,ATOM_K),REST_M,REST_K[,stages])" in msg and "block (128,16)" in msg
    assert "(1024,1,4,2)" not in msg.split("(mode sizes")[0]
    # a shape that fits both readings (an (M, K) tile whose M mode is (128,16), or the MMA-partitioned form) is
    # refused; form= decides
    both = parse("((128,16),16,2):((16,1),2048,32768)")
    tm = _mma("1cta_A_K")
    with pytest.raises(NotAdmissibleError, match=r"\(\(128,16\),16,2\).*fits both readings"):
        check_operand(tm, "A", both, "f16")
    check_operand(tm, "A", both, "f16", form="mma")
    check_operand(tm, "A", both, "f16", form="tile")
    with pytest.raises(NotAdmissibleError, match="make_fragment_A reads an MMA-partitioned tile"):
        check_operand(tm, "A", parse("(128,64):(64,1)"), "f16", form="mma")
    with pytest.raises(NotAdmissibleError, match="form is 'tile'"):
        check_operand(tm, "A", both, "f16", form="fragment")


def _doc(layouts, claims):
    return "version: 1\nkernels:\n  k:\n    layouts:\n" + "".join("      " + x + "\n" for x in layouts) + \
        "    claims:\n" + "".join("      " + x + "\n" for x in claims)


BW_LAYOUTS = [
    "mma: make_tiled_mma(SM100_MMA_F16BF16_2x1SM_SS<half_t, half_t, float, 256, 128, UMMA::Major::K, "
    "UMMA::Major::K>)",
    "mma1: make_tiled_mma(SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K, UMMA::Major::K>)",
    'sAtom: "S<3,3,3> o 0 o (8,64):(64,1)"',
    "sA: tile_to_mma_shape(sAtom, ((128,16),1,4,8))",
    "sB: tile_to_mma_shape(sAtom, ((64,16),1,4,8))",
]


def test_manifest_operand_claim_on_make_smem_layout_a():
    claims = mf.load_text(_doc(BW_LAYOUTS, ["- operand: {tiled_mma: mma, operand: A, smem: sA}",
                                            "- operand: {tiled_mma: mma, operand: B, smem: sB}",
                                            "- operand: {tiled_mma: mma1, operand: A, smem: sA}"]), "t.cute.yaml")
    assert [r["status"] for r in mf.run(claims)] == ["proved"] * 3
    # a tile that fits neither form is that claim's error, with its line (the file's other claims run)
    (r,) = mf.run(mf.load_text(_doc(BW_LAYOUTS, ["- operand: {tiled_mma: mma, operand: A, smem: sB}"]),
                               "t.cute.yaml"))
    assert r["status"] == "error" and r["line"] == 11, r
    assert re.search(r"sB has shape \(\(64,16\),1,4,8\).*\(M,K\) = \(256,16\)", r["reason"]), r["reason"]


def test_cli_desc_tiled_mma_on_make_smem_layout_a():
    smem = DSL_RECORD["2cta_A_K"][0].replace("S<3,4,3>", "S<3,3,3>")
    name = "SM100_MMA_F16BF16_2x1SM_SS<half_t, half_t, float, 256, 128, UMMA::Major::{}, UMMA::Major::K>"
    base = ["desc", "--smem", smem, "--dtype", "f16", "--operand", "A", "--tiled-mma"]
    r = CliRunner().invoke(main, base + [name.format("K")])
    assert r.exit_code == 0 and "PROVED" in r.output, r.output
    r = CliRunner().invoke(main, base + [name.format("MN")])
    assert r.exit_code == 1 and "declared UMMA::Major::MN but the tile is K-major" in r.output, r.output


@pytest.mark.differential
@pytest.mark.skipif(not dsl_oracle.available(), reason="CuTe DSL not installed")
def test_record_is_cute_dsl(tmp_path):
    script = tmp_path / "worker.py"  # the DSL traces from a source file only
    script.write_text(DSL_WORKER)
    env = dsl_oracle._worker_env()
    env["CUTE_DSL_ARCH"] = "sm_100a"
    r = subprocess.run([dsl_oracle._python(), "-W", "ignore", str(script), json.dumps(CASES)], capture_output=True,
                       text=True, env=env, timeout=600, check=False)
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, r.stderr[-3000:]
    assert json.loads(line[len("RESULT "):]) == {k: list(v) for k, v in DSL_RECORD.items()}


# ----------------------------------------------------------------------------------------------- finding 5

# (the atom as CUTLASS spells it, does CUTLASS accept it, the rule cuteverify names when it does not)
TEMPLATES = [
    ("SM90::GMMA::MMA_64x128x16_F32BF16BF16_RS<GMMA::Major::MN, GMMA::Major::K>", False,
     "Register source operand A must have K major layout"),
    ("SM90::GMMA::MMA_64x128x8_F32TF32TF32_SS_TN<GMMA::Major::MN, GMMA::Major::MN>", False,
     r"parameter 1 is GMMA::ScaleIn scaleA.*_TN atoms take no Major arguments"),
    ("SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS<GMMA::Major::K>", False, "needs tnspB too"),
    ("SM90::GMMA::MMA_64x128x32_S32S8S8_SS_TN<GMMA::ScaleIn::Neg>", False, "takes no template arguments"),
    ("SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS<GMMA::ScaleIn::Neg, GMMA::Major::K>", False,
     "argument 1 is GMMA::ScaleIn::Neg, CUTLASS's parameter 1 is GMMA::Major tnspA"),
    ("SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::MN, GMMA::ScaleIn::One, "
     "GMMA::ScaleIn::Neg, GMMA::ScaleIn::One>", False, "takes at most 4"),
    ("SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::MN, GMMA::ScaleIn::Neg>", True, None),
    ("SM90::GMMA::MMA_64x128x16_F32BF16BF16_RS<GMMA::Major::K, GMMA::Major::MN>", True, None),
    ("SM90::GMMA::MMA_64x128x8_F32TF32TF32_SS_TN<GMMA::ScaleIn::Neg>", True, None),
    ("SM90::GMMA::MMA_64x128x32_S32S8S8_SS_TN", True, None),
]


@pytest.mark.parametrize("spelling, ok, rule", TEMPLATES)
def test_wgmma_template_arguments_as_cutlass_declares_them(spelling, ok, rule):
    short = spelling.replace("SM90::GMMA::MMA_", "SM90_").replace(", ", ",")
    for name in (spelling, short):
        if ok:
            make_tiled_mma(name)
            continue
        with pytest.raises(SpecError, match=rule):
            make_tiled_mma(name)


def test_declared_majors_of_accepted_names():
    tm = make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::MN,GMMA::ScaleIn::Neg>")
    assert (declared_major(tm, "A"), declared_major(tm, "B")) == ("K", "MN")
    assert declared_major(make_tiled_mma("SM90_64x128x8_F32TF32TF32_SS_TN<GMMA::ScaleIn::Neg>"), "A") == "K"


def test_rejected_templates_are_input_errors_in_the_manifest_and_the_cli():
    bad = "SM90_64x128x16_F32BF16BF16_RS<GMMA::Major::MN,GMMA::Major::K>"
    with pytest.raises(mf.ManifestError, match="Register source operand A must have K major layout") as e:
        mf.load_text(_doc([f"mma: make_tiled_mma({bad})"], ["- covers: {tiled_mma: mma, operand: C}"]), "t.cute.yaml")
    assert e.value.line == 5
    r = CliRunner().invoke(main, ["desc", "--smem", "S<3,3,3> o 0 o (64,8):(1,64)", "--tile", "(128,64)", "--dtype",
                                  "bf16", "--operand", "B", "--tiled-mma", bad])
    assert r.exit_code == 2 and "Register source operand A must have K major layout" in r.output, r.output


@pytest.mark.differential
def test_template_record_is_cutlass(tmp_path):
    head = ["#include <cute/tensor.hpp>", "#include <cute/atom/mma_traits_sm90_gmma.hpp>", "using namespace cute;"]
    body = [f"void f{i}() {{ {s} x; (void)x; }}" for i, (s, _, _) in enumerate(TEMPLATES)]
    r = run_cpp("\n".join(head + body + ["int main() {}"]) + "\n", syntax_only=True, name="t", workdir=tmp_path)
    # an error is reported at (or instantiated from) the line of the function that names the atom
    failing = {int(m.group(1)) - len(head) - 1 for m in re.finditer(r"t\.cpp:(\d+):\d+:", r.stderr)}
    assert failing == {i for i, (_, ok, _) in enumerate(TEMPLATES) if not ok}, r.stderr[-3000:]
    assert "Register source operand A must have K major layout" in r.stderr
