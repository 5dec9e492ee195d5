"""Every text form the one notation reader (``cuteverify.core.notation``) accepts means the same object in the
CLI (click's CliRunner, in-process), in a manifest (``load_text``) and in Python (issue 27): layouts in CuTe
DSL, CuTe C++ and pycute prints and C++'s ``composition(Swizzle<B,M,S>{}, L)``; tile extents (``16x64``,
``16,64``, ``(16,64)``, ``[16,64]``); permutation tilers (``Tile<...>``, ``<...>``, ``[a;b;c]``, tuples with
``_``, ``32x32x16``); slices (``A[None, 0]``, ``A[(None,0)]``, ``A[_,0]``) and ``local_tile``. Values are
checked against an evaluator that shares no code with cuteverify (tests/oracles/strategies.py, plus the swizzle
formula written out here), and malformed text is an input error naming its column in all three."""
from __future__ import annotations

import json
import re
import textwrap

import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify.core.notation.tiles import read_extents, read_permutation
from cuteverify.errors import ParseError
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.frontend.manifest.expr import environment
from cuteverify.hardware.descriptors.smem_rules import smem_layout

from strategies import ev, parse_plain, size_of

SM80 = "SM80_16x8x16_F32F16F16F32_TN"


def _run(*args):
    return CliRunner().invoke(main, list(args))


def _cli_json(*args) -> dict:
    r = _run(*args, "--json")
    assert r.exit_code == 0, (args, r.output)
    return json.loads(r.output)


def _load(layouts: str, claims: str = '  - bijective: "4:1"\n'):
    body = textwrap.indent(textwrap.dedent(layouts), " " * 6)
    doc = "version: 1\nkernels:\n  k:\n    layouts:\n" + body + "    claims:\n" + textwrap.indent(claims, "  ")
    return mf.load_text(doc, "forms.cute.yaml")


def _env(layouts: str) -> dict:
    c = _load(layouts)[0]
    return environment(tuple(c.layouts.items()), tuple(c.assume), c.symbols)


# --------------------------------------------------------------------- the independent evaluator, swizzled

def _swizzle(x, b, m, s):
    """``Swizzle<B,M,S>`` written out: the B bits at M+S are XORed into the B bits at M."""
    return x ^ ((x & (((1 << b) - 1) << (m + s))) >> s)


def _values(text: str) -> list:
    """The values of ``S<b,m,s> o off o PLAIN`` / ``off + PLAIN`` / ``PLAIN``, as printed by cuteverify, read
    and evaluated here (tests/oracles/strategies.py's plain evaluator)."""
    off, sw = 0, None
    m = re.fullmatch(r"S<(\d+),(\d+),(\d+)> o (\d+) o (.*)", text)
    if m:
        sw, off, text = tuple(int(g) for g in m.groups()[:3]), int(m.group(4)), m.group(5)
    m = re.fullmatch(r"(\d+) \+ (.*)", text)
    if m:
        assert sw is None
        return [int(m.group(1)) + v for v in _values(m.group(2))]
    lay = parse_plain(text)
    assert lay is not None, text
    return [_swizzle(off + ev(lay, i), *sw) if sw else off + ev(lay, i) for i in range(size_of(lay))]


# ------------------------------------------------------------------------------------------------ layouts

PLAIN = "(8,64):(64,1)"
SWIZZLED = "S<3,3,3> o 0 o (8,64):(64,1)"
LAYOUT_FORMS = [
    (PLAIN, "(8,64):(64,1)"), (PLAIN, "(_8,_64):(_64,_1)"), (PLAIN, "(8, 64):(64, 1)"),  # DSL, C++, pycute
    (SWIZZLED, "S<3,3,3> o 0 o (8,64):(64,1)"), (SWIZZLED, "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"),
    (SWIZZLED, "Swizzle<3,3,3>{} o 0 o (8,64):(64,1)"),
    (SWIZZLED, "composition(Swizzle<3,3,3>{}, (8,64):(64,1))"),  # the text `cuteverify why` suggests
    (SWIZZLED, "cute::composition(cute::Swizzle<3,3,3>{}, (_8,_64):(_64,_1))"),
    (SWIZZLED, "composition(S<3,3,3>, (8,64):(64,1))"),
]


@pytest.mark.parametrize("want, text", LAYOUT_FORMS)
def test_layout_forms(want, text):
    py = cv.parse(text)
    assert str(py) == want and py == cv.parse(want)
    assert cv.parse(want).values() == _values(want)  # the canonical print evaluates as written out here
    assert _cli_json("eval", text)["layout"] == want
    assert _env(f'L: "{text}"\n')["L"] == py
    assert str(_cli_json("algebra", "coalesce(A, mode=0)", "--let", f"A={text}")["result"]) == \
        str(cv.coalesce(py, mode=0))


def test_composition_with_a_swizzle_takes_a_bound_layout():
    want = cv.parse(SWIZZLED)
    assert _env(f'A: "{PLAIN}"\nL: composition(Swizzle<3,3,3>{{}}, A)\n')["L"] == want
    assert _cli_json("algebra", "composition(Swizzle<3,3,3>{}, A)", "--let", f"A={PLAIN}")["result"] == str(want)


# ------------------------------------------------------------------------------------------------ extents

G = "(256,128):(1,256)"
EXTENT_FORMS = ["16x64", "16X64", " 16 x 64 ", "16,64", "(16,64)", "(_16,_64)", "[16,64]", "[16, 64]",
                (16, 64), [16, 64]]


def _tile_values(g_text, tm, tn, cm, cn):
    """local_tile(g, (tm,tn), (cm,cn)) evaluated independently: g at the tile's coordinates, column-major."""
    g = parse_plain(g_text)
    return [ev(g, (cm * tm + m) + g[0][0] * (cn * tn + n)) for n in range(tn) for m in range(tm)]


@pytest.mark.parametrize("form", EXTENT_FORMS)
def test_extent_forms(form):
    assert read_extents(form) == (16, 64) == read_extents("16*64")  # 16*64: where only extents can stand
    want = cv.local_tile(cv.parse(G), (16, 64), (1, 1))
    assert _values(str(want)) == _tile_values(G, 16, 64, 1, 1)
    got = cv.local_tile(cv.parse(G), form, (1, 1))  # Python: local_tile's tiler
    assert (got.layout, got.offset) == (want.layout, want.offset)
    tv = cv.parse("(32,32):(32,1)")
    assert cv.covers(tv, form).status == "proved"  # Python: covers' tile
    atom = "GMMA::Layout_K_SW128_Atom<bf16>"  # Python: the descriptor checks' smem tile (desc / tma --tile)
    assert smem_layout(atom, None, form) == cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (16, 64))
    yaml = json.dumps(form) if not isinstance(form, str) else f'"{form}"'
    c = _load(f'g: "{G}"\ntv: "(32,32):(32,1)"\n', f"  - covers: {{layout: tv, tile: {yaml}}}\n")[0]
    assert c.args["tile"] == (16, 64)  # a manifest claim's tile
    s = form.strip() if isinstance(form, str) else ""
    if not s or ("," in s and not s.startswith(("(", "["))):
        return  # 16,64 is two arguments of a call: not a function argument
    env = _env(f'g: "{G}"\nt: local_tile(g, {form.strip()}, (1,1))\n')  # a manifest function argument
    assert (env["t"].layout, env["t"].offset) == (want.layout, want.offset)
    out = _cli_json("algebra", f"local_tile(G, {form.strip()}, (1,1))", "--let", f"G={G}")  # the CLI
    assert out["result"] == str(want)


def test_covers_tile_in_every_front_end():
    """The issue's case: ``covers``' tile ``128x256`` in a manifest, as smem_optimal's and Python's."""
    c = _load('tv: "(128,256):(1,128)"\n', '  - covers: {layout: tv, tile: 128x256}\n')[0]
    assert c.args["tile"] == (128, 256)
    assert cv.covers(cv.parse("(128,256):(1,128)"), "128x256").status == "proved"
    assert read_extents("[128,256]") == read_extents("128,256") == (128, 256)


# ---------------------------------------------------------------------------------------------- permutations

PERM_FORMS = ["(32,32,16)", "Tile<_32,_32,_16>", "<32,32,16>", "[32:1;32:1;16:1]", "32x32x16", "(32:1,32,_16)"]


def _tv(tm) -> tuple:
    return tuple(str(tm.tv_layout_tiled(op)) for op in "ABC") + (tm.tile_shape_mnk,)


@pytest.mark.parametrize("text", PERM_FORMS)
def test_permutation_forms(text):
    assert read_permutation(text) == (32, 32, 16)
    want = _tv(cv.make_tiled_mma(SM80, (2, 2, 1), (32, 32, 16)))
    assert _tv(cv.make_tiled_mma(SM80, (2, 2, 1), text)) == want
    assert _tv(_env(f"m: make_tiled_mma({SM80}, (2,2,1), {text})\n")["m"]) == want
    out = _cli_json("tiled-mma", SM80, "--atom-layout", "(2,2,1)", "--permutation", text)
    assert tuple(out[f"tv_layout_{op}_tiled"] for op in "ABC") + (tuple(out["tile_size"]),) == want


@pytest.mark.parametrize("perm", ['"<32,32,16>"', '"32x32x16"', "[32, 32, 16]"])
def test_permutation_field_of_a_manifest_claim(perm):
    """An ``agrees`` claim's ``permutation`` field reads the same forms (its tiled MMA is built from them)."""
    head = f'  - agrees: {{layout: c, spec: {SM80}, operand: C, atom_layout: "(2,2,1)", permutation: '
    claims = _load(f"c: make_tiled_mma({SM80}, (2,2,1), (32,32,16)).tv_layout_C_tiled\n",
                   f"{head}{perm}}}\n" + head + '"(32,(8,2,2):(1,16,8),16)"}\n')  # another tile: refuted
    assert [r["status"] for r in mf.run(claims)] == ["proved", "refuted"]


@pytest.mark.parametrize("text", ["Tile<_16,_64>", "<16,64>", "[16:1;64:1]", "(16,_64)"])
def test_tiler_forms_of_local_tile(text):
    want = cv.local_tile(cv.parse(G), (16, 64), (1, 1))
    got = cv.local_tile(cv.parse(G), text, (1, 1))
    assert (got.layout, got.offset) == (want.layout, want.offset)
    env = _env(f'g: "{G}"\nt: local_tile(g, {text}, (1,1))\n')
    assert (env["t"].layout, env["t"].offset) == (want.layout, want.offset)
    assert _cli_json("algebra", f"local_tile(G, {text}, (1,1))", "--let", f"G={G}")["result"] == str(want)


def test_a_layout_tiler_stays_one_layout():
    """Text that is one layout is a layout tiler (not a tuple of one), as the object is."""
    L, T = cv.parse(G), "(16,64):(1,16)"
    want = cv.local_tile(L, cv.parse(T), 3)
    got = cv.local_tile(L, T, 3)
    assert (got.layout, got.offset) == (want.layout, want.offset)


# ------------------------------------------------------------------------------------------------- slices

SLICED = [("(64,2):(1,64)", ["None, 1", "(None,1)", "_, 1", "(_,1)"], "64:1", 64),
          ("(8,64,2):(64,1,512)", ["None,None,1", "(None,None,1)", "_,_,1"], "(8,64):(64,1)", 512),
          ("S<3,3,3> o 0 o (8,64,2):(64,1,512)", ["None,None,1", "(None, None, 1)", "_,_,1"],
           "S<3,3,3> o 0 o (8,64):(64,1)", 512),
          # an offset that meets the swizzle's bits is folded into the composed layout, the swizzle kept
          ("S<3,3,3> o 0 o (8,64,2):(64,1,8)", ["None,None,1", "_,_,1"], "S<3,3,3> o 8 o (8,64):(64,1)", 0)]


@pytest.mark.parametrize("layout, forms, want, offset", SLICED)
def test_slice_forms(layout, forms, want, offset):
    L = cv.parse(layout)
    sub, off = cv.slice_and_offset(L, tuple(None if p.strip() in ("None", "_") else int(p)
                                              for p in forms[0].split(",")))
    assert (str(sub), off) == (str(cv.parse(want)), offset)
    # the post-condition, independently: L(c) == sub(rest) + off over the fixed coordinate
    full, part = _values(str(L)), _values(str(sub))
    n = len(part)
    assert full[n:2 * n] == [v + off for v in part]
    for f in forms:
        env = _env(f'sQ: "{layout}"\nA: sQ[{f}]\n')
        assert env["A"] == sub, f
        out = _cli_json("algebra", f"A[{f}]", "--let", f"A={layout}")
        assert out["result"] == str(sub), f
    assert L[(None,) * (len(forms[0].split(",")) - 1) + (1,)] == sub  # Python's L[None, ..., 1]


def test_a_slice_feeds_an_operation():
    assert _env('sQ: "(64,2):(1,64)"\nA: coalesce(sQ[None, 0])\n')["A"] == cv.parse("64:1")
    assert _cli_json("algebra", "coalesce(A[None, 0])", "--let", "A=(64,2):(1,64)")["result"] == "64:1"


# ------------------------------------------------------------------------------------------- input errors

BAD_LAYOUTS = [("composition(Swizzle<3,3,3>{}, (8,64):(64,1)", 44),  # unclosed
               ("composition(Swizzle<3,3>{}, (8,64):(64,1))", 13),  # no swizzle
               ("composition(Swizzle<3,3,3>{}, (8,64):(64,x 1))", 44),
               ("Swizzle<3,3,3>{} o (8,64):(64,1)", 20)]


@pytest.mark.parametrize("text, col", BAD_LAYOUTS)
def test_bad_layouts_name_their_column(text, col):
    with pytest.raises(ParseError) as e:
        cv.parse(text)
    assert e.value.column == col
    r = _run("eval", text)
    assert r.exit_code == 2 and f"column {col}" in r.output and "Traceback" not in r.output
    # a manifest: the value starts at column 11 of line 5 (6 spaces, `L: "`)
    with pytest.raises(mf.ManifestError, match=rf"forms.cute.yaml:5:{10 + col}:"):
        _load(f'L: "{text}"\n')


@pytest.mark.parametrize("text, col", [("16xx64", 4), ("(16,64", 7), ("16x0", 4), ("[16,64", 7)])
def test_bad_extents_name_their_column(text, col):
    with pytest.raises(ParseError) as e:
        read_extents(text)
    assert e.value.column == col
    r = _run("synthesize", "--tile", text, "--dtype", "bf16", "--require", "gmma")
    assert r.exit_code == 2 and "--tile" in r.output and f"column {col}" in r.output
    with pytest.raises(mf.ManifestError, match=r"forms.cute.yaml:7:"):
        _load('tv: "(32,32):(32,1)"\n', f'  - covers: {{layout: tv, tile: "{text}"}}\n')
    with pytest.raises(cv.CuteVerifyError):
        cv.local_tile(cv.parse(G), text, (0, 0))


@pytest.mark.parametrize("text", ["Tile<32,32", "[32:1;32:1", "(32,32,16,8)"])
def test_bad_permutations_are_input_errors(text):
    with pytest.raises(ParseError):
        read_permutation(text)
    r = _run("tiled-mma", SM80, "--atom-layout", "(2,2,1)", "--permutation", text)
    assert r.exit_code == 2 and "--permutation" in r.output and "Traceback" not in r.output
    with pytest.raises(cv.CuteVerifyError):
        cv.make_tiled_mma(SM80, (2, 2, 1), text)


@pytest.mark.parametrize("index, col", [("None, ,0", 9), ("None, 0", 3)])
def test_bad_slices_name_their_column(index, col):
    text = f"A[{index}" if index == "None, 0" else f"A[{index}]"
    r = _run("algebra", text, "--let", "A=(8,64):(64,1)")
    assert r.exit_code == 2 and "column" in r.output and "Traceback" not in r.output
    with pytest.raises(mf.ManifestError, match=r"forms.cute.yaml:6:\d+:"):
        _load(f'sQ: "(8,64):(64,1)"\nA: "s{text[0:0]}Q{text[1:]}"\n')


def test_deeply_nested_compositions_are_refused_with_a_column():
    text = "(8,64):(64,1)"
    for _ in range(3000):
        text = f"composition(S<3,3,3>, {text})"
    with pytest.raises(ParseError, match="nested compositions"):
        cv.parse(text)
    r = _run("eval", text)
    assert r.exit_code == 2 and "nested compositions" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("op", ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"])
def test_one_tiler_reading_in_every_tiler_position(op):
    """Text ``(4,8)`` in a tiler position is CuTe's Shape, by mode, as the tuple and the expression language read
    it, in the divides as in local_tile; ``(4,8):(1,4)`` stays one layout tiler (they differ here)."""
    L = cv.parse("(8,16):(16,1)")
    fn = getattr(cv, op)
    assert fn(L, "(4,8)") == fn(L, (4, 8)) == fn(L, "<4,8>") != fn(L, "(4,8):(1,4)") == fn(L, cv.parse("(4,8):(1,4)"))
    out = _cli_json("algebra", f"{op}(L, (4,8))", "--let", "L=(8,16):(16,1)")
    assert out["result"] == str(fn(L, (4, 8)))
    assert cv.local_tile(L, "(4,8)", (1, 1)) == cv.local_tile(L, (4, 8), (1, 1))
