"""``cuteverify desc``: the wgmma (SM90) / UMMA (SM100) shared-memory descriptor of one MMA block of a smem
layout, computed as CUTLASS's make_gmma_desc / make_umma_desc does, its canonical-form rules, and the proof that
it reads the elements the layout holds (issue 16).

    cuteverify desc --smem "GMMA::Layout_K_SW128_Atom<bf16>" --tile "(128,64)" --dtype bf16 --mn 64 --k-block 3
    cuteverify desc --smem "S<3,3,3> o 0 o (64,64):(64,1)" --dtype f16 --address A -a "A % 1024 == 0" -a "A < 2**17"

With ``--tiled-mma`` (and ``--operand``), the smem is that tiled MMA's operand tile: every block of its
``partition_A/B`` against the descriptor of the atom's declared major, as the manifest claim ``operand``
(issue 25; ``atoms.operand_desc.prove_operand``):

    cuteverify desc --smem "S<3,3,3> o 0 o (64,8):(1,64)" --tile "(128,64)" --dtype bf16 --operand B \
        --tiled-mma "SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::MN,GMMA::Major::MN>" --atom-layout "(2,1,1)"

Exit codes: 0 every rule holds (for every value of the symbols), 1 refuted, 2 bad input, 3 unknown.
"""
from __future__ import annotations


import click

from cuteverify.atoms import make_tiled_mma
from cuteverify.atoms.operand_desc import prove_operand
from cuteverify.core.notation.parse import parse_tuple
from cuteverify.core.notation.tiles import read_extents
from cuteverify.hardware.descriptors.smem_rules import from_layout, smem_layout

from .common import assume_option, echo_verdict, fail, guarded, json_option, shared_assumptions, show, text_input


def parse_tile_option(text, what="--tile"):
    """``--tile``: a shape of positive extents, ``(128,64)``, ``128x64`` or ``128,64`` (integers or symbols, as
    the one extents reader :func:`cuteverify.core.notation.tiles.read_extents` reads them for manifests and Python; None
    when not given); a zero, a negative or a fraction is an input error naming the option. Shared with ``tma``."""
    if text is None:
        return None
    return read_extents(text, what, symbols=True)


@click.command("desc")
@click.option("--smem", required=True, callback=text_input,
              help="The operand's smem layout (MN, K), element-level, or a smem atom name.")
@click.option("--dtype", "-d", required=True, help="Element type (bf16, f16, tf32, e4m3, ...).")
@click.option("--tile", default=None,
              help="Tile the layout / atom to this (MN, K) shape first: \"(128,64)\" or 128x64.")
@click.option("--tile-order", default=None, help="tile_to_shape's mode order, e.g. \"(1,0)\" (K first).")
@click.option("--arch", default="sm_90", show_default=True, type=click.Choice(["sm_90", "sm_100"]),
              help="sm_90: wgmma descriptor; sm_100: tcgen05 (UMMA) descriptor.")
@click.option("--major", default=None, type=click.Choice(["K", "MN"], case_sensitive=False),
              help="Operand majorness (default: the layout's stride-1 mode).")
@click.option("--mn", type=int, default=None, help="MMA block extent along MN (default the tile's).")
@click.option("--k", "k", type=int, default=None, help="MMA block extent along K (default 256 bits).")
@click.option("--mn-block", type=int, default=0, show_default=True, help="Block index along MN.")
@click.option("--k-block", type=int, default=0, show_default=True, help="Block index along K.")
@click.option("--address", default="0", show_default=True, help="The smem buffer's byte address (an expression).")
@click.option("--tiled-mma", "tiled_mma", default=None,
              help="Check SMEM as this tiled MMA's operand, every block of partition_A/B: the atom's name with its "
                   "majors, \"SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::MN>\".")
@click.option("--atom-layout", default=None, help="make_tiled_mma's atom_layout_mnk with --tiled-mma: \"(2,1,1)\".")
@click.option("--operand", default=None, type=click.Choice(["A", "B"]), help="The operand, with --tiled-mma.")
@assume_option
@json_option
@guarded
def desc_cmd(smem, dtype, tile, tile_order, arch, major, mn, k, mn_block, k_block, address, tiled_mma, atom_layout,
             operand, assume, as_json):
    """The descriptor CUTLASS builds for block (MN_BLOCK, K_BLOCK) of SMEM, with every rule (ok / FAIL / ??)
    and, on a failure, the rule and the element or the smallest violating assignment.

    \b
    Exit codes: 0 every rule holds, 1 refuted, 2 bad input, 3 unknown.
    """
    asm = shared_assumptions(assume)
    layout = smem_layout(smem, dtype, parse_tile_option(tile),
                         parse_tuple(tile_order, "--tile-order") if tile_order else None)
    if tiled_mma is not None or operand is not None or atom_layout is not None:
        given = [o for o, v in (("--mn", mn), ("--k", k), ("--mn-block", mn_block or None),
                                ("--k-block", k_block or None), ("--address", None if address == "0" else address))
                 if v is not None]
        if given:
            fail(f"{', '.join(given)} name one block; with --tiled-mma the blocks are partition_A/B's")
        _operand(layout, dtype, tiled_mma, atom_layout, operand, major, as_json)
    desc, verdict = from_layout(layout, dtype, arch, major=major, mn=mn, k=k, mn_block=mn_block,
                                k_block=k_block, address=address, assume=asm)
    if not as_json:
        click.echo(f"smem layout: {layout}")
        if desc is not None:
            for key, v in desc.fields().items():
                click.echo(f"  {key}: {'unused' if v is None and key.endswith('bytes') else show(v)}")
    echo_verdict(verdict, as_json, {"layout": str(layout)})


def _operand(layout, dtype, tiled_mma, atom_layout, operand, major, as_json):
    """``--tiled-mma``: the smem as the tiled MMA's operand (``prove_operand``), printed and exited on."""
    if tiled_mma is None or operand is None:
        fail("--tiled-mma and --operand go together (--atom-layout is optional)")
    tm = make_tiled_mma(tiled_mma, parse_tuple(atom_layout, "--atom-layout") if atom_layout else (1, 1, 1))
    v = prove_operand(tm, operand, layout, dtype, major=major, name="--smem", mma_name=tiled_mma)
    if not as_json:
        click.echo(f"smem layout: {layout}")
    echo_verdict(v, as_json, {"layout": str(layout)})
