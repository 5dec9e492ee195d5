"""The CLI, manifests and the Python API accept the same text for the same thing (issue 25): layouts (CuTe's and
CuTe C++'s printed forms), tiles (``128x64``, ``128,64``, ``(128,64)``, ``[128, 64]``), permutation tiles
(``(32,32,16)``, ``Tile<...>``, CuTe DSL's ``[a;b;c]``) and CUTLASS names. Every form is fed to all three front
ends (the CLI in-process through click's CliRunner) and each must give the object the canonical form gives,
which is computed here from plain Python values (tuples, ints) by the Python API."""
from __future__ import annotations

import functools
import json
import textwrap

import pytest
from click.testing import CliRunner

import cuteverify as cv
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.cli.main import main
from cuteverify.core.layout import Layout
from cuteverify.frontend.manifest.expr import environment

SM80 = "SM80_16x8x16_F32F16F16F32_TN"


def _cli(*args) -> str:
    r = CliRunner().invoke(main, list(args))
    assert r.exit_code == 0, (args, r.output)
    return r.output


def _load(layouts: str = "", claims: str = "  - bijective: \"4:1\"\n"):
    body = textwrap.indent(textwrap.dedent(layouts or 'x: "4:1"\n'), " " * 6)
    doc = "version: 1\nkernels:\n  k:\n    layouts:\n" + body + "    claims:\n" + \
        textwrap.indent(textwrap.dedent(claims), " " * 4)
    return mf.load_text(doc, "forms.cute.yaml")


def _env(layouts: str) -> dict:
    c = _load(layouts)[0]
    return environment(tuple(c.layouts.items()), tuple(c.assume), c.symbols)


# ----------------------------------------------------------------------------------------------- layouts

SWIZZLED = ["S<3,3,3> o 0 o (8,64):(64,1)", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
            "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"]  # a byte swizzle


@pytest.mark.parametrize("text", SWIZZLED + ["(8,64):(64,1)", "(_8,_64):(_64,_1)"])
def test_layout_forms(text):
    want = str(cv.parse(text))
    assert want in ("S<3,3,3> o 0 o (8,64):(64,1)", "(8,64):(64,1)")
    out = json.loads(_cli("eval", text, "--json"))
    assert out["layout"] == want
    assert str(_env(f'L: "{text}"\n')["L"]) == want


# ------------------------------------------------------------------------------------------------- tiles

@functools.lru_cache(maxsize=None)
def _synth(tile: tuple):
    return cv.synthesize_smem_layout(tile=tile, dtype="bf16", require=["gmma"])


TILES = ["16x64", "16,64", "(16,64)", " 16 x 64 ", "(_16,_64)"]
ATOM = "GMMA::Layout_K_SW128_Atom<bf16>"


@pytest.mark.parametrize("tile", TILES + [[16, 64]])
def test_tile_forms(tile):
    text = tile if isinstance(tile, str) else None
    want = _synth((16, 64))
    # Python: the synthesis and the manifest-expression tiler take the text as the tuple
    got = cv.synthesize_smem_layout(tile=tile if text is None else text, dtype="bf16", require=["gmma"])
    assert str(got.layout) == str(want.layout)
    # a manifest: a claim's tile field, and a tile argument of an atom function
    yaml_tile = json.dumps(tile) if text is None else f'"{text}"'
    claims = _load("sQ: \"S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))\"\n",
                   f"  - smem_optimal: {{smem: sQ, tile: {yaml_tile}, dtype: bf16, require: [gmma]}}\n")
    assert claims[0].args["tile"] == (16, 64)
    if text is not None and "," not in text.replace("(", "").split(")")[-1]:  # a function argument (not 128,64)
        env = _env(f'g: "(256,128):(1,256)"\nt: local_tile(g, {text.strip()}, (1,1))\n')
        ref = cv.local_tile(Layout((256, 128), (1, 256)), (16, 64), (1, 1))
        assert (str(env["t"].layout), env["t"].offset) == (str(ref.layout), ref.offset)
    if text is None:
        return
    # the CLI: synthesize, desc and draw read --tile with the same reader
    out = json.loads(_cli("synthesize", "--tile", text, "--dtype", "bf16", "--require", "gmma", "--json"))
    assert out["layout"] == str(want.layout)
    out = json.loads(_cli("desc", "--smem", ATOM, "--tile", text, "--dtype", "bf16", "--json"))
    assert out["layout"] == str(cv.tile_to_shape(cv.parse("S<3,3,3> o 0 o (8,64):(64,1)"), (16, 64)))
    svg = _cli("draw", "((4,8),(2,2)):((32,1),(16,8))", "--tile", text.replace("64", "8"),
               "-o", "-")
    assert svg == _cli("draw", "((4,8),(2,2)):((32,1),(16,8))", "--tile", "16x8", "-o", "-")


@pytest.mark.parametrize("bad", ["128by64", "0x64", "(128,-64)", "(128,64"])
def test_bad_tiles_are_input_errors_everywhere(bad):
    r = CliRunner().invoke(main, ["synthesize", "--tile", bad, "--dtype", "bf16", "--require", "gmma"])
    assert r.exit_code == 2 and "--tile" in r.output and "Traceback" not in r.output
    with pytest.raises(cv.CuteVerifyError):
        cv.synthesize_smem_layout(tile=bad, dtype="bf16", require=["gmma"])
    with pytest.raises(mf.ManifestError, match=r"forms.cute.yaml:7:37: expected extents"):
        _load("", f'  - smem_optimal: {{smem: x, tile: "{bad}", dtype: bf16, require: [gmma]}}\n')


# ------------------------------------------------------------------------------------- permutation tiles

PERMS = {
    "plain": (32, 32, 16),
    "layout": (32, Layout((8, 2, 2), (1, 16, 8)), 16),
}
PERM_FORMS = [
    ("plain", "(32,32,16)"), ("plain", "Tile<32,32,16>"), ("plain", "Tile<_32, _32, _16>"), ("plain", "(_32,_32,_16)"),
    ("plain", "[32:1;32:1;16:1]"),
    ("layout", "(32,(8,2,2):(1,16,8),16)"), ("layout", "Tile<_32,(_8,_2,_2):(_1,_16,_8),_16>"),
    ("layout", "[32:1;(8,2,2):(1,16,8);16:1]"),
]


def _tv(tm) -> tuple:
    return tuple(str(tm.tv_layout_tiled(op)) for op in "ABC") + (tm.tile_shape_mnk,)


@pytest.mark.parametrize("which, text", PERM_FORMS)
def test_permutation_forms(which, text):
    want = _tv(cv.make_tiled_mma(SM80, (2, 2, 1), PERMS[which]))
    assert _tv(cv.make_tiled_mma(SM80, (2, 2, 1), text)) == want
    assert _tv(_env(f"m: make_tiled_mma({SM80}, (2,2,1), {text})\n")["m"]) == want
    out = json.loads(_cli("tiled-mma", SM80, "--atom-layout", "(2,2,1)", "--permutation", text, "--json"))
    assert tuple(out[f"tv_layout_{op}_tiled"] for op in "ABC") + (tuple(out["tile_size"]),) == want


# ---------------------------------------------------------------------------------------------- CUTLASS names

NAMES = ["SM90_64x128x16_F32BF16BF16_SS", "SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS",
         "SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::K>",
         "cute::SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::MN, GMMA::ScaleIn::One>"]


@pytest.mark.parametrize("name", NAMES)
def test_name_forms(name):
    want = _tv(cv.make_tiled_mma("SM90_64xNx16_F32BF16BF16_SS", (2, 1, 1), N=128))
    assert _tv(cv.make_tiled_mma(name, (2, 1, 1))) == want
    assert _tv(_env(f"m: make_tiled_mma({name}, (2,1,1))\n")["m"]) == want
    out = json.loads(_cli("tiled-mma", name, "--atom-layout", "(2,1,1)", "--json"))
    assert tuple(out[f"tv_layout_{op}_tiled"] for op in "ABC") + (tuple(out["tile_size"]),) == want
    assert out["atom"] == "SM90_64x128x16_F32BF16BF16_SS"
