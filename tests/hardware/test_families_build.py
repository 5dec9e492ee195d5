"""Spec families build atoms and tiled MMAs from every front end (issue 25): CUTLASS's class templates with their
arguments, family names with keywords (Python, manifests) or --param (CLI), and concrete names
(SM90::GMMA::MMA_64x128x16_..., SM100_TMEM_LOAD_32dp32b8x), all through the one resolver. The tcgen05 tiled MMAs
(1-CTA and the 2-CTA split) are compared with CuTe C++ (g++ against the CUTLASS headers, no GPU): thr_layout_vmnk,
the tiled TV layouts and every CTA's partition_A/B/C with its offset. A parameter that contradicts the name is an
input error everywhere."""
from __future__ import annotations

import json
import re
import textwrap

import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.core.layout import Layout
from cuteverify.errors import CuteVerifyError, SpecError
from cuteverify.frontend.manifest.expr import environment
from sm100_oracle import run_lines

K, MN = "UMMA::Major::K", "UMMA::Major::MN"
# (CUTLASS's struct as C++ spells it, atom_layout_mnk)
TCGEN05 = [
    (f"SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, {K}, {K}>", (1, 1, 1)),
    (f"SM100_MMA_F16BF16_2x1SM_SS<half_t, half_t, float, 256, 128, {K}, {K}>", (1, 1, 1)),
    (f"SM100_MMA_TF32_2x1SM_SS<tfloat32_t, tfloat32_t, float, 128, 64, {K}, {MN}>", (2, 1, 1)),  # 2 pairs
]
# the tensor each operand is partitioned over: (tile mode 0, tile mode 1 times this)
OPERANDS = {"A": (0, 2, 2), "B": (1, 2, 2), "C": (0, 1, 1)}


def _cpp_program() -> list:
    body = ["  static int buf[1 << 20];"]
    for i, (atom, (am, an, ak)) in enumerate(TCGEN05):
        body.append(f"  {{ auto tm = make_tiled_mma({atom}{{}}, Layout<Shape<_{am},_{an},_{ak}>>{{}});")
        body.append(f'    printf("@{i} vmnk "); print(tm.get_thr_layout_vmnk()); printf("\\n");')
        for op in "ABC":
            body.append(f'    printf("@{i} tv{op} "); print(tm.get_layout{op}_TV()); printf("\\n");')
        for op, (m0, m1, rep) in OPERANDS.items():
            body.append(f"    {{ auto t = make_tensor(make_gmem_ptr(buf), make_layout(make_shape(tile_size<{m0}>(tm), "
                        f"tile_size<{m1}>(tm) * Int<{rep}>{{}})));")
            body.append(f"      for (int r = 0; r < int(size(tm)); ++r) {{ auto p = tm.get_slice(r).partition_{op}(t);")
            body.append(f'        printf("@{i} part{op} %d ", r); print(p.layout()); '
                        'printf(" %d\\n", int(raw_pointer_cast(p.data()) - buf)); } }')
        body.append("  }")
    body += ['  printf("@tmem "); print(typename Copy_Atom<SM100_TMEM_LOAD_32dp32b8x, float>::ValLayoutSrc{});',
             '  printf(" "); print(typename Copy_Atom<SM100_TMEM_LOAD_32dp32b8x, float>::ValLayoutDst{});',
             '  printf(" "); print(typename Copy_Atom<SM100_TMEM_LOAD_32dp32b8x, float>::ThrID{}); printf("\\n");']
    return body


@pytest.fixture(scope="module")
def cute_cpp(tmp_path_factory) -> dict:
    """CuTe C++'s answers, keyed by (config, what): one compile for every case."""
    out = {}
    for line in run_lines(tmp_path_factory.mktemp("families"), _cpp_program(), "families"):
        key, _, rest = line.partition(" ")
        out.setdefault(key, []).append(rest.replace("_", ""))
    return out


def _tiled(i):
    atom, atom_layout = TCGEN05[i]
    return cv.make_tiled_mma(atom, atom_layout)


@pytest.mark.differential
@pytest.mark.parametrize("i", range(len(TCGEN05)))
def test_tcgen05_tiled_mma_equals_cute_cpp(cute_cpp, i):
    tm = _tiled(i)
    got = cute_cpp[f"@{i}"]
    want = {ln.split(" ", 1)[0]: ln.split(" ", 1)[1] for ln in got if not ln.startswith("part")}
    assert str(tm.thr_layout_vmnk) == want["vmnk"]
    for op in "ABC":
        assert str(tm.tv_layout_tiled(op)) == want["tv" + op], op
    assert sum(ln.startswith("part") for ln in got) == 3 * tm.size
    for op, (m0, m1, rep) in OPERANDS.items():
        tensor = Layout((tm.get_tile_size(m0), tm.get_tile_size(m1) * rep))
        for r in range(tm.size):
            lay, off = _part(got, op, r)
            mine = tm.get_slice(r).partition(op, tensor)
            assert (str(mine.layout), mine.offset) == (lay, int(off)), (op, r)


def _part(lines, op, r):
    for ln in (x for x in lines if x.startswith("part")):
        head, rank, rest = ln.split(" ", 2)
        if head == "part" + op and int(rank) == r:
            lay, off = rest.rsplit(" ", 1)
            return lay, off
    raise AssertionError(f"no partition_{op} of rank {r} in CuTe's output")


@pytest.mark.differential
def test_two_cta_split_gives_each_cta_its_half(cute_cpp):
    """The 2-CTA atom's thr_id (2:1) splits A and C by rows, B by columns: CTA 1's partition of A starts at row
    M/2, of B at column N/2 (offsets into column-major tiles), as CuTe C++ partitions them."""
    tm = _tiled(1)  # M=256, N=128
    assert tm.size == 2 and str(tm.thr_id) == "2:1"
    offsets = {op: [tm.get_slice(r).partition(op, Layout((tm.get_tile_size(OPERANDS[op][0]),
                                                         tm.get_tile_size(OPERANDS[op][1])))).offset
                    for r in range(2)] for op in "ABC"}
    assert offsets == {"A": [0, 128], "B": [0, 64], "C": [0, 128]}


@pytest.mark.differential
def test_tmem_copy_atom_from_its_concrete_name(cute_cpp):
    src, dst, thr = cute_cpp["@tmem"][0].split(" ")
    a = cv.make_copy_atom("SM100_TMEM_LOAD_32dp32b8x", "f32")
    assert (str(a.layout_src_tv), str(a.layout_dst_tv), str(a.thr_id)) == (src, dst, thr)
    b = cv.make_copy_atom("SM100_TMEM_LOAD_32dp32bRx", "f32", R=8)
    assert (str(b.layout_dst_tv), b.name) == (dst, "SM100_TMEM_LOAD_32dp32b8x")
    assert str(cv.make_copy_atom(a, "f32").layout_dst_tv) == dst  # re-typing keeps the instance


# ------------------------------------------------------------------ every front end builds the same atom

def _cli(*args):
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output


def _cli_json(*args):
    code, out = _cli("tiled-mma", *args, "--json")
    assert code == 0, out
    return json.loads(out)


def _manifest_env(layouts: str) -> dict:
    doc = "version: 1\nkernels:\n  k:\n    layouts:\n" + textwrap.indent(textwrap.dedent(layouts), " " * 6) + \
        "    claims:\n      - bijective: \"4:1\"\n"
    c = mf.load_text(doc, "t.cute.yaml")[0]
    return environment(tuple(c.layouts.items()), tuple(c.assume), c.symbols)


def _same(tm, info):
    assert info["thr_layout_vmnk"] == str(tm.thr_layout_vmnk)
    for op in "ABC":
        assert info[f"tv_layout_{op}_tiled"] == str(tm.tv_layout_tiled(op))


def test_wgmma_family_with_param_equals_the_concrete_name():
    tm = cv.make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS")
    assert tm.shape_mnk == (64, 128, 16)
    _same(tm, _cli_json("SM90_64xNx16_F32BF16BF16_SS", "--param", "N=128"))
    _same(tm, _cli_json("SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::K>"))
    for other in (cv.make_tiled_mma("SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS"),
                  cv.make_tiled_mma("SM90_64xNx16_F32BF16BF16_SS", N=128)):
        assert str(other.tv_layout_C_tiled) == str(tm.tv_layout_C_tiled)
    env = _manifest_env("m: make_tiled_mma(SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS)\n"
                        "f: make_tiled_mma(SM90_64xNx16_F32BF16BF16_SS, N=128)\n")
    assert str(env["m"].tv_layout_C_tiled) == str(env["f"].tv_layout_C_tiled) == str(tm.tv_layout_C_tiled)
    v = cv.agrees(str(tm.tv_layout_C), "SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS", "C")
    assert v.status == "proved"


def test_umma_family_from_params_keywords_and_template():
    tm = _tiled(0)  # the C++ template, checked against CuTe above
    _same(tm, _cli_json("SM100_MMA_F16BF16_SS", "--param", "M=128", "--param", "N=256", "--param", "a_major=0",
                        "--param", "b_major=0"))
    _same(tm, _cli_json("SM100_MMA_F16BF16_SS", "--param", "M=128", "--param", "N=256", "--param", "a_major=K",
                        "--param", "b_major=UMMA::Major::K"))
    atom = cv.make_mma_atom("SM100_MMA_F16BF16_SS", M=128, N=256, a_major="K", b_major="K")
    assert atom.params == {"M": 128, "N": 256, "a_major": 0, "b_major": 0}
    assert str(cv.make_tiled_mma(atom).tv_layout_B_tiled) == str(tm.tv_layout_B_tiled)
    two = _tiled(1)
    env = _manifest_env(f"t: make_tiled_mma({TCGEN05[1][0]})\n"
                        "k: make_tiled_mma(SM100_MMA_F16BF16_2x1SM_SS, M=256, N=128, a_major=K, "
                        "b_major=UMMA::Major::K)\n")
    for name in "tk":
        for op in "ABC":
            assert str(env[name].tv_layout_tiled(op)) == str(two.tv_layout_tiled(op))
    assert env["k"].params == {"M": 256, "N": 128, "a_major": 0, "b_major": 0}


@pytest.mark.parametrize("name, params, match", [
    ("SM90_64x128x16_F32BF16BF16_SS", {"N": 64}, "N=64 contradicts the name"),
    ("SM100_TMEM_LOAD_32dp32b8x", {"R": 4}, "R=4 contradicts the name"),
    ("SM100_MMA_F16BF16_SS", {"M": 128, "N": 255, "a_major": 0, "b_major": 0}, "N=255"),
    ("SM100_MMA_F16BF16_SS", {"M": 128, "N": 256, "a_major": "KK", "b_major": 0}, "a_major"),
    (f"SM100_MMA_F16BF16_SS<float, half_t, float, 128, 256, {K}, {K}>", {}, "operand A"),
    (f"SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, 8, {K}, {K}>", {}, "integer argument 8"),
    ("SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::Q, UMMA::Major::K>", {}, "Major is one"),
])
def test_bad_parameters_are_input_errors(name, params, match):
    with pytest.raises(SpecError, match=re.escape(match)):
        (cv.make_copy_atom(name, "f32", **params) if "TMEM" in name else cv.make_mma_atom(name, **params))


def test_contradicting_param_is_an_input_error_on_every_front_end():
    code, out = _cli("tiled-mma", "SM90_64x128x16_F32BF16BF16_SS", "--param", "N=64")
    assert code == 2 and "N=64 contradicts the name" in out
    code, out = _cli("tiled-mma", "SM100_MMA_F16BF16_SS", "--param", "M=128")
    assert code == 2 and "N, a_major, b_major" in out
    with pytest.raises(CuteVerifyError, match="N=64 contradicts"):
        _manifest_env("m: make_tiled_mma(SM90_64x128x16_F32BF16BF16_SS, N=64)\n")
    with pytest.raises(SpecError, match="N=64 contradicts"):
        cv.agrees("((4,8,4),(2,2,8)):((128,1,16),(64,8,512))", "SM90_64x128x16_F32BF16BF16_SS", "C", N=64)
    assert cv.agrees("((4,8,4),(2,2,8)):((128,1,16),(64,8,512))", "SM90_64x64x16_F32BF16BF16_SS", "C").status \
        == "proved"
