"""``cuteverify synthesize`` and ``cuteverify why``: proved shared-memory layouts (issue 20, docs/model.md 13).

    cuteverify synthesize --tile 128x64 --dtype bf16 --write cp_async:128:thr=(16,8):(8,1) \\
        --read ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:2x2x1 --require gmma
    cuteverify why "S<2,3,3> o 0 o (8,64):(64,1)" --tile 8x64 --dtype bf16 --read ...

The access text forms are ``cuteverify.synth.access``'s (``ldmatrix:...``, ``cp_async:...``, ``tv:...``, ``tma``,
``wgmma:A``, ``umma:B``); this module only parses options and renders the answers.

Exit codes (synthesize): 0 a layout conflict-free on every access, 1 the best layout of the space still
conflicts (or no candidate is legal), 2 bad input. (why): 0 the layout is conflict-free and legal, 1 it
conflicts or a required consumer refuses it, 2 bad input.
"""
from __future__ import annotations

import json
import sys

import click

from cuteverify.core.notation.interop import as_layout
from cuteverify.core.notation.tiles import read_extents
from cuteverify.synth import explain_smem_layout, synthesize_smem_layout

from .common import EXIT_OK, EXIT_REFUTED, fail, guarded, json_option, text_input


def _tile(text):
    """``--tile``: ``128x64``, ``128,64``, ``(128,64)`` (the one extents reader, as manifests and Python)."""
    return read_extents(text, "--tile", rank=2)


def _require(items):
    out = []
    for item in items:
        out += [r.strip() for r in item.split(",") if r.strip()]
    return out


def _problem_options(f):
    for opt in reversed([
        click.option("--tile", "-t", required=True,
                     help="The smem tile (MN,K) (element index m + MN*k): 128x64, 128,64 or (128,64)."),
        click.option("--dtype", "-d", default="bf16", show_default=True, help="Element type (bf16, f16, f32, e4m3, ...)."),
        click.option("--write", "-w", "writes", multiple=True,
                     help="An access that writes the tile (repeatable): cp_async:..., tv:..., tma."),
        click.option("--read", "-r", "reads", multiple=True,
                     help="An access that reads the tile (repeatable): ldmatrix:..., tv:..., wgmma:A, umma:B."),
        click.option("--require", "require", multiple=True,
                     help="Consumers the layout must suit: tma, gmma, umma (comma-separated or repeated)."),
        click.option("--padding", "allow_padding", is_flag=True, help="Search padded row pitches too."),
    ]):
        f = opt(f)
    return f


@click.command("synthesize")
@_problem_options
@click.option("--code", type=click.Choice(["cpp", "dsl", "both"]), default=None,
              help="Print only the layout as CuTe C++, CuTe DSL, or both.")
@json_option
@guarded
def synthesize_cmd(tile, dtype, writes, reads, require, allow_padding, code, as_json):
    """The shared-memory layout of the searched space (swizzle atom, tile order, padding when asked) that every
    required consumer accepts, with the fewest bank conflicts on the given accesses and the widest vectors,
    proved: bijective, the exact conflict degree and vector width of every access, legality for each consumer,
    and optimality within the space (the runner-up and what it loses).

    \b
    Exit codes: 0 conflict-free on every access, 1 the best layout still conflicts or none is legal, 2 bad input.
    """
    if not writes and not reads and not require:
        fail("give at least one access (--write / --read) or requirement (--require)")
    syn = synthesize_smem_layout(tile=_tile(tile), dtype=dtype, writes=list(writes), reads=list(reads),
                                 require=_require(require), allow_padding=allow_padding)
    ok = syn.conflict_free
    if as_json:
        d = syn.to_json()
        d["exit_code"] = EXIT_OK if ok else EXIT_REFUTED
        click.echo(json.dumps(d, default=str))
    elif code:
        if code in ("cpp", "both"):
            click.echo(syn.cpp())
        if code in ("dsl", "both"):
            click.echo(syn.dsl())
    else:
        click.echo(str(syn))
        ret = [ln.strip()[len("return "):] for ln in syn.dsl().splitlines() if ln.strip().startswith("return ")]
        if ret:  # the whole function: --code dsl
            click.echo(f"  CuTe DSL: {ret[0]}")
    sys.exit(EXIT_OK if ok else EXIT_REFUTED)


@click.command("why")
@click.argument("layout", callback=text_input)
@_problem_options
@json_option
@guarded
def why_cmd(layout, tile, dtype, writes, reads, require, allow_padding, as_json):
    """Why does the shared-memory LAYOUT of the tile conflict? For each access: its exact conflict degree, two
    threads of one phase on one bank with their elements and addresses, and the nearest layout of the searched
    space that removes the conflict without making another access worse (or the least degree any layout of
    the space reaches).

    \b
    Exit codes: 0 conflict-free and legal for every consumer, 1 a conflict or an illegal consumer, 2 bad input.
    """
    if not writes and not reads:
        fail("give at least one access (--write / --read)")
    L = as_layout(layout, "LAYOUT")
    ex = explain_smem_layout(L, _tile(tile), dtype=dtype, writes=list(writes), reads=list(reads),
                             require=_require(require), allow_padding=allow_padding)
    ok = not ex.conflicting and all(v.proved for _, v in ex.consumers)
    if as_json:
        d = ex.to_json()
        d["exit_code"] = EXIT_OK if ok else EXIT_REFUTED
        click.echo(json.dumps(d, default=str))
    else:
        click.echo(str(ex))
    sys.exit(EXIT_OK if ok else EXIT_REFUTED)


__all__ = ["synthesize_cmd", "why_cmd"]
