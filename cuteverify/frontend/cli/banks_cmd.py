"""``cuteverify banks`` and ``cuteverify vector``: shared-memory bank conflicts and vector width (issue 10).

    cuteverify banks "S<3,3,3> o 0 o (64,64):(64,1)" --access "((8,2,2),(8,4,4)):((1,512,8),(64,16,1024))" \\
        --dtype bf16 --vector 16
    cuteverify vector "((8,16),(8,8)):((1024,1),(128,16))" --dtype bf16 --smem "S<3,3,3> o 0 o (128,64):(64,1)"
    cuteverify banks "S<3,3,3> o 0 o (128,64):(64,1)" --access "((8,16),8):((128,1),16)" --tile 16x64

An access with integer strides indexes a tile (column-major over its shape). When its codomain (largest index
+ 1) is not the smem layout's size, ``--tile`` gives the tile's shape and the access is placed over the smem
tensor tile by tile, as ``partition_S/D`` places a copy (each tile one more instruction); without it the two
index spaces cannot be related and the command exits 2 naming both shapes. Coordinate strides (``E<i>``)
name smem coordinates and are evaluated directly.

Exit codes: 0 conflict-free (proved / width ok), 1 conflicts (refuted), 2 bad input, 3 unknown, 4 internal error.
"""
from __future__ import annotations


import click

from cuteverify.analysis.banks import bank_conflicts, max_vector_width, read_tile
from cuteverify.core.layout import size
from cuteverify.core.notation.interop import as_layout
from cuteverify.errors import CommandLineError, NotAdmissibleError
from cuteverify.synth.access import access_kind, natural_role, parse_access

from .common import (assume_option, check_names, echo_verdict, guarded, json_option, shared_assumptions,
                     text_input)


def _phases(text):
    if text is None:
        return None
    return text if not text.strip().isdigit() else int(text)


def _tile(text, option):
    """``--tile`` read as a tile shape; bad text is an input error naming the option."""
    if text is None:
        return None
    try:
        return read_tile(text, option)
    except NotAdmissibleError as e:
        raise CommandLineError(f"{option}: {e.condition}") from None




@click.command("banks")
@click.argument("smem", callback=text_input)
@click.option("--access", "-t", required=True, callback=text_input,
              help="TV layout (thread, value) -> element index of the tile, or an access form as `synthesize` "
                   "and `why` read it: ldmatrix:A:<atom>:2x2x1, stmatrix:..., cp_async:128:thr=..., tv:16:<layout> "
                   "(over SMEM's (MN,K) tile).")
@click.option("--dtype", "-d", default="bf16", show_default=True, help="Element type (bf16, f16, f32, e4m3, ...).")
@click.option("--elem-bytes", type=int, default=None, help="Element width in bytes (instead of --dtype).")
@click.option("--vector", "-v", "vector_bytes", type=int, default=None,
              help="Bytes per thread per access (1..16); default: the widest the layout allows.")
@click.option("--tile", default=None, help="The access's tile shape (16x64 or (16,64)): place it over SMEM tile by "
              "tile; needed when the access does not index the whole SMEM.")
@click.option("--phases", "-p", default=None,
              help="Phases per warp request (1, 2, 4, 8) or 'ldmatrix'; default from the access width.")
@click.option("--base", "base_bytes", type=int, default=0, show_default=True, help="Byte address of the buffer.")
@assume_option
@json_option
@guarded
def banks_cmd(smem, access, dtype, elem_bytes, vector_bytes, tile, phases, base_bytes, assume, as_json):
    """Is ACCESS through the shared-memory layout SMEM free of bank conflicts? Prints the verdict, the exact
    conflict degree and, on a conflict, two threads of one phase on one bank.

    \b
    Exit codes: 0 conflict-free, 1 conflicts, 2 bad input, 3 unknown.
    """
    asm = shared_assumptions(assume)
    S = as_layout(smem, "SMEM", assume=asm)
    phases, tile = _phases(phases), _tile(tile, "--tile")
    if access_kind(access) is not None:  # synthesize's and why's access forms: one reader, synth.access
        T, form_bytes, form_phases, tile = _access_form(S, access, dtype, elem_bytes, tile)
        vector_bytes = vector_bytes if vector_bytes is not None else form_bytes
        phases = phases if phases is not None else form_phases
    else:
        T = as_layout(access, "--access", assume=asm)
    check_names(asm, (S, T), smem)
    v = bank_conflicts(S, T, dtype=None if elem_bytes else dtype, elem_bytes=elem_bytes,
                       vector_bytes=vector_bytes, phases=phases, base_bytes=base_bytes, tile=tile)
    echo_verdict(v, as_json)


def _access_form(S, text, dtype, elem_bytes, tile):
    """``(tv, vector bytes, phases, tile size)`` of an access form over SMEM's (MN, K) tile, read by
    ``synth.access.parse_access`` as ``synthesize`` and ``why`` read it (the copy's smem side for its role)."""
    if tile is not None:
        raise CommandLineError("--tile: an access form is placed over SMEM's (MN,K) tile by its own copy; "
                               "give no --tile")
    if elem_bytes is not None:
        raise CommandLineError("--elem-bytes: an access form builds its copy for an element type: give --dtype")
    shape = getattr(S, "shape", None)
    if not (isinstance(shape, tuple) and len(shape) == 2 and all(type(size(m)) is int for m in shape)):
        raise CommandLineError(f"SMEM {S}: an access form indexes a rank-2 (MN,K) tile of known extents")
    mn, k = (size(m) for m in shape)
    acc = parse_access(text, natural_role(access_kind(text)), (mn, k), dtype)
    if not acc.threads:
        raise CommandLineError(f"--access {text}: a {acc.kind} consumer reads through a descriptor, with no "
                               f"thread bank model; `cuteverify why SMEM -t {mn}x{k} --require {acc.kind}` "
                               "checks it")
    vb = acc.vector_bytes if acc.vector_bytes is not None or acc.phases != "ldmatrix" else 16
    return acc.tv, vb, acc.phases, mn * k


@click.command("vector")
@click.argument("layout", callback=text_input)
@click.option("--dtype", "-d", default="bf16", show_default=True, help="Element type (bf16, f16, f32, e4m3, ...).")
@click.option("--elem-bytes", type=int, default=None, help="Element width in bytes (instead of --dtype).")
@click.option("--smem", default=None, help="Compose LAYOUT (thread, value) -> element index with this smem layout.",
              callback=text_input)
@click.option("--tile", default=None, help="LAYOUT's tile shape (16x64 or (16,64)) with --smem: place it over the "
              "smem tile by tile.")
@click.option("--alignment", type=int, default=16, show_default=True, help="Byte alignment of the buffer.")
@click.option("--require", "-r", type=int, default=None, help="Check this width in bytes (exit 1 if it fails).")
@click.option("--flat", is_flag=True, help="Read LAYOUT as one thread's values, not (thread, value).")
@assume_option
@json_option
@guarded
def vector_cmd(layout, dtype, elem_bytes, smem, tile, alignment, require, flat, assume, as_json):
    """The widest vector access (bytes, power of two, <= 16) for LAYOUT: each thread's consecutive values
    contiguous and aligned. A rank-2 LAYOUT is (thread, value) -> offset unless --flat.

    \b
    Exit codes: 0 proved (or --require met), 1 --require refuted, 2 bad input, 3 unknown.
    """
    asm = shared_assumptions(assume)
    L = as_layout(layout, "LAYOUT", assume=asm)
    S = as_layout(smem, "--smem", assume=asm) if smem else None
    check_names(asm, (L, S), layout)
    v = max_vector_width(L, dtype=None if elem_bytes else dtype, elem_bytes=elem_bytes, alignment=alignment,
                         smem=S, require=require, tv=False if flat else None, tile=_tile(tile, "--tile"))
    echo_verdict(v, as_json)


def register(group):
    """Add ``banks`` and ``vector`` to the top-level click group."""
    group.add_command(banks_cmd)
    group.add_command(vector_cmd)


__all__ = ["banks_cmd", "vector_cmd", "register"]
