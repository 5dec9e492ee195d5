"""``cuteverify tiled-mma``: a tiled MMA's thread layout, tile and TV layouts, as CuTe DSL prints them.

    cuteverify tiled-mma SM80_16x8x16_F32F16F16F32_TN --atom-layout "(2,2,1)" --permutation "(32,32,16)"
    cuteverify tiled-mma SM80_16x8x16_F32F16F16F32_TN --atom-layout "(2,2,1)" \\
        --permutation "(32,(8,2,2):(1,16,8),16)" --operand A --draw tvA.svg
    cuteverify tiled-mma SM90_64x128x16_F32BF16BF16_SS --atom-layout "(2,1,1)" --json

Prints ``thr_layout_vmnk``, ``size``, the tile sizes and ``tv_layout_X`` / ``tv_layout_X_tiled`` for X in A, B,
C (or the one ``--operand``): the text of each is what CuTe DSL's ``str()`` of the same attribute prints
(tests/frontend/test_cli_atoms.py compares them). ``--draw FILE`` (``.svg``, or ``.tex`` for TikZ) draws the tiled TV
layouts: all three like CUTLASS's ``print_latex`` (A left, B above C), or the one operand's tile.
The option parsers here (:func:`parse_atom_layout`, :func:`parse_permutation`) are shared with ``agrees``.
"""
from __future__ import annotations

import json
import sys

import click

from cuteverify import draw as dr
from cuteverify.atoms import make_tiled_mma
from cuteverify.atoms._util import format_tile
from cuteverify.core.notation.interop import as_layout
from cuteverify.core.notation.tiles import read_permutation
from cuteverify.hardware.library.spec import OPERAND_MODES

from .common import EXIT_OK, guarded, json_option, parse_params
from .draw_cmd import format_of, write_output


def parse_atom_layout(text):
    """``--atom-layout``: a shape ``(2,2,1)`` (compact column-major, as CuTe's ``make_layout``) or a layout
    ``(2,2,1):(2,1,4)``; None gives ``(1,1,1)``."""
    if text is None:
        return (1, 1, 1)
    return as_layout(text, "--atom-layout")


def parse_permutation(text):
    """``--permutation``: ``(32,32,16)``, ``(32,(8,2,2):(1,16,8),16)``, ``(_,64,_)``, C++'s
    ``Tile<32,(8,2,2):(1,16,8),16>`` or CuTe DSL's printed ``[32:1;(8,2,2):(1,16,8);16:1]``; each entry ``_``,
    an extent or a layout (the one reader, :func:`cuteverify.core.notation.tiles.read_permutation`). None: none."""
    return read_permutation(text, "--permutation")


def build(atom, atom_layout, permutation, params):
    """The tiled MMA the options describe (errors are the library's input errors)."""
    return make_tiled_mma(atom, parse_atom_layout(atom_layout), parse_permutation(permutation),
                          **parse_params(params))


def describe(tm, operands) -> dict:
    """The printed forms, keyed by CuTe DSL's attribute names."""
    info = {"atom": tm.name, "thr_layout_vmnk": str(tm.thr_layout_vmnk), "size": tm.size,
            "permutation_mnk": format_tile(tm.permutation_mnk),
            "tile_size": [tm.get_tile_size(i) for i in range(3)], "shape_mnk": list(tm.shape_mnk)}
    for op in operands:
        info[f"tv_layout_{op}"] = str(tm.tv_layout(op))
        info[f"tv_layout_{op}_tiled"] = str(tm.tv_layout_tiled(op))
    return info


def _draw(tm, operand, output, fmt):
    tiles = [tm.get_tile_size(i) for i in range(3)]
    title = f"{tm.name}  {tm.atom_layout_mnk}  {format_tile(tm.permutation_mnk)}"
    if operand is None:
        fn = dr.svg_mma if fmt == "svg" else dr.tikz_mma
        text = fn(tm.tv_layout_A_tiled, tm.tv_layout_B_tiled, tm.tv_layout_C_tiled, tuple(tiles), title=title)
    else:
        i, j = OPERAND_MODES[operand]
        fn = dr.svg_tv if fmt == "svg" else dr.tikz_tv
        text = fn(tm.tv_layout_tiled(operand), (tiles[i], tiles[j]), title=f"{operand}: {title}")
    write_output(text, output)


@click.command("tiled-mma")
@click.argument("atom")
@click.option("--atom-layout", default=None, metavar="LAYOUT",
              help="Atoms over (M,N,K): a shape \"(2,2,1)\" or a layout \"(2,2,1):(2,1,4)\" (default (1,1,1)).")
@click.option("--permutation", default=None, metavar="TILE",
              help="Permutation tile per mode: \"(32,32,16)\", \"(32,(8,2,2):(1,16,8),16)\", \"(_,64,_)\", "
                   "\"Tile<32,32,16>\", \"[32:1;32:1;16:1]\".")
@click.option("--operand", type=click.Choice(["A", "B", "C"]), default=None, help="Only this operand.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A family parameter, e.g. N=128, a_major=K (one that contradicts the atom's name is an error).")
@click.option("--draw", "draw_to", default=None, metavar="FILE",
              help="Draw the tiled TV layouts to FILE (.svg, or .tex for TikZ; '-' for stdout as SVG).")
@json_option
@guarded
def tiled_mma_cmd(atom, atom_layout, permutation, operand, params, draw_to, as_json):
    """Build CuTe's make_tiled_mma(ATOM, atom_layout_mnk, permutation_mnk) and print its thread layout,
    tile sizes and TV layouts (atom and tiled) in CuTe DSL's printed forms.

    \b
    Exit codes: 0 built, 2 input error (unknown atom, a permutation the atom does not divide, ...),
    4 internal error.
    """
    fmt = format_of(draw_to, None) if draw_to is not None else None
    tm = build(atom, atom_layout, permutation, params)
    ops = (operand,) if operand else ("A", "B", "C")
    info = describe(tm, ops)
    if draw_to is not None:
        _draw(tm, operand, draw_to, fmt)
        if draw_to == "-":
            sys.exit(EXIT_OK)
    if as_json:
        click.echo(json.dumps(info))
    else:
        for k, v in info.items():
            click.echo(f"{k}: {'(' + ','.join(map(str, v)) + ')' if isinstance(v, list) else v}")
    sys.exit(EXIT_OK)
