"""The atom layer on the command line: ``cuteverify tiled-mma`` (printed forms against CuTe DSL's, drawings that
parse as SVG and place every (thread, value) where DSL's TV layout does) and ``agrees`` with a tiled MMA
(``--atom-layout`` / ``--permutation``; a tiled layout given to a plain atom is an input error, not REFUTED)."""
from __future__ import annotations

import functools
import json
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner
from cuteverify.frontend.cli.main import main

import cuteverify as cv

SM80 = "SM80_16x8x16_F32F16F16F32_TN"

# (our atom, DSL op, atom layout text, DSL atom layout, permutation text, DSL permutation)
CONFIGS = [
    (SM80, ["warp_f16", "Float16", "Float32", [16, 8, 16]], "(2,2,1)", ((2, 2, 1), None), "(32,32,16)",
     [32, 32, 16]),
    (SM80, ["warp_f16", "Float16", "Float32", [16, 8, 16]], "(2,2,1)", ((2, 2, 1), None),
     "(32,(8,2,2):(1,16,8),16)", [32, ((8, 2, 2), (1, 16, 8)), 16]),
    ("SM80_16x8x8_F32TF32TF32F32_TN", ["warp_tf32", [16, 8, 8]], "(2,2,1):(2,1,4)", ((2, 2, 1), (2, 1, 4)),
     "(_,32,_)", [None, 32, None]),
    ("SM90_64x64x16_F32BF16BF16_RS", ["wg_f16", "BFloat16", "Float32", [64, 64, 16], "RMEM"], "(2,1,1)",
     ((2, 1, 1), None), None, None),
]


def run(*args):
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output


def _args(cfg):
    atom, _, alay, _, perm, _ = cfg
    out = [atom, "--atom-layout", alay]
    return out + (["--permutation", perm] if perm is not None else [])


@functools.cache
def _dsl():
    dsl_atoms = pytest.importorskip("dsl_atoms")
    if not dsl_atoms.available():
        pytest.skip("CuTe DSL not installed")
    cases = [{"mma": op, "atom_layout": dl, "perm": dp} for _, op, _, dl, _, dp in CONFIGS]
    res = dsl_atoms.run(cases)
    for r in res:
        assert not isinstance(r, dsl_atoms.DslError), r
    return res


@pytest.mark.differential
@pytest.mark.parametrize("i", range(len(CONFIGS)))
def test_tiled_mma_prints_cute_dsl_forms(i):
    code, out = run("tiled-mma", *_args(CONFIGS[i]), "--json")
    assert code == 0, out
    info = json.loads(out)
    dsl = _dsl()[i]
    assert info["thr_layout_vmnk"] == dsl["thr_layout_vmnk"]
    assert str(info["size"]) == dsl["size"]
    assert [str(x) for x in info["tile_size"]] == dsl["tile"]
    for op in "ABC":
        assert info[f"tv_layout_{op}"] == dsl[op], op
        assert info[f"tv_layout_{op}_tiled"] == dsl[op + "t"], op
    # the text form prints the same lines
    code, text = run("tiled-mma", *_args(CONFIGS[i]))
    assert code == 0
    lines = dict(line.split(": ", 1) for line in text.splitlines())
    assert lines["tv_layout_C_tiled"] == dsl["Ct"] and lines["thr_layout_vmnk"] == dsl["thr_layout_vmnk"]


def _cells(svg_text, panel=None):
    """(row, col, thread, value, holders) of every drawn cell (of one panel): ``holders`` is how many
    (thread, value) pairs the drawing says hold the cell (A and B are replicated over the other mode's
    threads)."""
    root = ET.fromstring(svg_text)
    assert root.tag.endswith("svg")
    out = []
    for p in root.iter():
        if p.attrib.get("class") != "panel" or panel not in (None, p.attrib.get("data-name")):
            continue
        for g in p.iter():
            a = g.attrib
            if a.get("class", "").split(" ")[0] == "cell" and "data-thread" in a:
                hits = len(a["data-hits"].split()) if "data-hits" in a else 1
                out.append((int(a["data-row"]), int(a["data-col"]), int(a["data-thread"]), int(a["data-value"]),
                            hits))
    return out


@pytest.mark.differential
@pytest.mark.parametrize("i", [1, 2])
def test_draw_places_every_cell_where_dsl_does(i, tmp_path):
    """Each drawn cell (row, col) labelled (thread, value) is DSL's tiled C layout at (thread, value)."""
    path = tmp_path / "c.svg"
    code, out = run("tiled-mma", *_args(CONFIGS[i]), "--operand", "C", "--draw", str(path))
    assert code == 0, out
    dsl = _dsl()[i]
    ct = cv.parse(dsl["Ct"])
    tm_ = int(dsl["tile"][0])
    cells = _cells(path.read_text())
    assert len(cells) == tm_ * int(dsl["tile"][1])
    for r, c, t, v, hits in cells:
        assert ct(t, v) == r + tm_ * c and hits == 1, (r, c, t, v)


def test_draw_all_operands_and_tikz(tmp_path):
    path = tmp_path / "all.svg"
    code, _ = run("tiled-mma", *_args(CONFIGS[0]), "--draw", str(path))
    assert code == 0
    text = path.read_text()
    # A (MxK) replicated over the 2 N-threads, B (drawn KxN) over the 2 M-threads, C (MxN) once
    for name, n, rep in (("A", 32 * 16, 2), ("B", 16 * 32, 2), ("C", 32 * 32, 1)):
        cells = _cells(text, name)
        assert len(cells) == n and {c[4] for c in cells} == {rep}, name
    tex = tmp_path / "c.tex"
    code, _ = run("tiled-mma", *_args(CONFIGS[0]), "--operand", "A", "--draw", str(tex))
    assert code == 0 and "\\begin{tikzpicture}" in tex.read_text()


@pytest.mark.parametrize("args,needle", [
    (["NOPE_16x8x16"], "no spec"),
    ([SM80, "--atom-layout", "(2,2,1)", "--permutation", "(16,16,16)"], "not a multiple"),
    ([SM80, "--permutation", "(32,(8,2,16)"], "unbalanced"),
    ([SM80, "--permutation", "(32,32,16,8)"], "at most 3"),
    ([SM80, "--atom-layout", "(2,2"], ""),
    (["SM75_U32x4_LDSM_N"], "copy"),
])
def test_tiled_mma_input_errors_exit_2(args, needle):
    code, out = run("tiled-mma", *args)
    assert code == 2, out
    assert needle in out and "Traceback" not in out


@pytest.mark.differential
def test_agrees_tiled_proves_dsl_layouts_and_refutes_a_wrong_permutation():
    """The TV layouts come from CuTe DSL (not from our builder): agrees with the same tiled MMA proves them,
    with another permutation refutes them naming thread and element."""
    for i, cfg in enumerate(CONFIGS[:3]):
        dsl = _dsl()[i]
        for op in "ABC":
            code, out = run("agrees", dsl[op + "t"], "--spec", cfg[0], "--operand", op,
                            *_args(cfg)[1:])
            assert code == 0, (cfg, op, out)
    dsl = _dsl()[1]  # permutation (32,(8,2,2):(1,16,8),16)
    code, out = run("agrees", dsl["Bt"], "--spec", SM80, "--operand", "B", "--atom-layout", "(2,2,1)",
                    "--permutation", "(32,32,16)")
    assert code == 1, out
    assert "REFUTED" in out and "thread" in out and "n=" in out
    code, out = run("agrees", dsl["Bt"], "--spec", SM80, "--operand", "B", "--atom-layout", "(2,2,1)",
                    "--permutation", "(32,32,16)", "--json")
    d = json.loads(out)
    assert code == 1 and d["status"] == "refuted" and d["exit_code"] == 1


@pytest.mark.differential
def test_agrees_tiled_layout_on_a_plain_atom_is_an_input_error():
    dsl = _dsl()[0]
    code, out = run("agrees", dsl["At"], "--spec", SM80, "--operand", "A")
    assert code == 2, out
    assert "REFUTED" not in out and "--atom-layout" in out
    # the atom's own layout still agrees without the options
    code, out = run("agrees", dsl["A"], "--spec", SM80, "--operand", "A")
    assert code == 0, out


@pytest.mark.differential
@pytest.mark.parametrize("extra,needle", [
    (["--atom-layout", "(4,1,1)"], "values"),           # shape of another tiled MMA: input error
    (["--atom-layout", "(2,2,1)", "--dtype", "f16"], "--dtype"),
    (["--permutation", "(32,32,16)", "--operand", "X"], "operand"),
])
def test_agrees_tiled_input_errors(extra, needle):
    dsl = _dsl()[0]
    args = ["agrees", dsl["Bt"], "--spec", SM80]
    if "--operand" not in extra:
        args += ["--operand", "B"]
    code, out = run(*args, *extra)
    assert code == 2, out
    assert needle in out and "Traceback" not in out
