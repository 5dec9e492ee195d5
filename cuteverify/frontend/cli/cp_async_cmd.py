"""``cuteverify cp-async-banks``: the passes of a cp.async copy, global side and shared side together (issue 25).

    cuteverify cp-async-banks --src "((16,8),(8,1)):((4096,8),(1,0))" \\
        --dst "((16,8),(8,1)):((1,128),(16,0))" --smem "S<3,3,3> o 0 o (16,64):(64,1)" --dtype f16

Exit codes: 0 one pass per phase (proved), 1 more (refuted), 2 bad input, 3 unknown, 4 internal error.
"""
from __future__ import annotations


import click

from cuteverify.analysis.banks.cp_async import cp_async_banks
from cuteverify.core.notation.interop import as_layout

from .common import assume_option, check_names, echo_verdict, guarded, json_option, shared_assumptions, text_input


@click.command("cp-async-banks")
@click.option("--src", "-s", required=True, callback=text_input,
              help="TV layout (thread, value) -> global element offset the copy reads.")
@click.option("--dst", "-t", required=True, callback=text_input,
              help="TV layout (thread, value) -> element index of --smem (an element offset without --smem).")
@click.option("--smem", default=None, callback=text_input, help="The shared-memory layout the copy writes.")
@click.option("--dtype", "-d", default="bf16", show_default=True, help="Element type (bf16, f16, f32, ...).")
@click.option("--size", type=int, default=16, show_default=True, help="Bytes per cp.async: 4, 8 or 16.")
@click.option("--cache", type=click.Choice(["ca", "cg"]), default="ca", show_default=True,
              help="cp.async.ca (SM80_CP_ASYNC_CACHEALWAYS) or .cg (SM80_CP_ASYNC_CACHEGLOBAL).")
@click.option("--gmem-base", type=int, default=0, show_default=True,
              help="Byte address of global element offset 0 (modulo 128 is what matters).")
@click.option("--smem-base", type=int, default=0, show_default=True, help="Byte address of the smem buffer.")
@assume_option
@json_option
@guarded
def cp_async_banks_cmd(src, dst, smem, dtype, size, cache, gmem_base, smem_base, assume, as_json):
    """How many passes each phase of a cp.async copy takes on the H200: the shared-memory banks and the
    128-byte global rows the lanes of a phase read (specs/evidence/sm90/cp_async_rows.jsonl). Prints the
    verdict, the degree (most passes of one phase) and, above 1, two threads one pass cannot serve and why.

    \b
    Exit codes: 0 one pass per phase, 1 more, 2 bad input, 3 unknown.
    """
    asm = shared_assumptions(assume)
    S = as_layout(src, "--src", assume=asm)
    D = as_layout(dst, "--dst", assume=asm)
    M = as_layout(smem, "--smem", assume=asm) if smem else None
    check_names(asm, (S, D, M), src)
    v = cp_async_banks(S, D, dtype, size, dst_smem=M, cache=cache, gmem_base=gmem_base, smem_base=smem_base)
    echo_verdict(v, as_json)


__all__ = ["cp_async_banks_cmd"]
