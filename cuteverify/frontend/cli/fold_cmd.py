"""``cuteverify fold`` and ``cuteverify loops``: tensor folding and canonical loops (paper sections 1.2, 1.3).

Exit codes: 0 ok, 1 a repeated element found (loops), 2 bad input, 3 unknown, 4 internal error.
"""
from __future__ import annotations

import json
import sys

import click

from cuteverify.analysis.fold import fold, fold_operands
from cuteverify.analysis.loops import check_no_repeat, loop_layout
from cuteverify.core.notation.format import format_tuple
from cuteverify.core.notation.interop import as_layout
from cuteverify.core.notation.tiles import read_extents

from .common import EXIT_FOR, EXIT_OK, fail, guarded, json_option, text_input


def _ints(text: str, what: str):
    """``2,3,4`` / ``(2,3,4)`` / ``2x3x4``: the one extents reader (any integer: strides may be 0 or negative)."""
    return read_extents(text, what, positive=False)


def _named(items, what):
    out = {}
    for item in items:
        if "=" not in item:
            fail(f"--{what} expects NAME=v0,v1,... (NAME one of A, B, C), got {item!r}")
        k, v = item.split("=", 1)
        k = k.strip().upper()
        if k not in ("A", "B", "C"):
            fail(f"--{what}: operand name must be A, B or C, got {k!r}")
        if k in out:
            fail(f"--{what}: operand {k} given twice")
        out[k] = _ints(v, f"--{what} {k}")
    return out


def _layouts(items):
    out = {}
    for item in items:
        k, eq, v = item.partition("=")
        if not eq:
            fail(f"--layout expects NAME=LAYOUT, got {item!r}")
        k = k.strip().upper()
        if k not in ("A", "B", "C"):
            fail(f"--layout: operand name must be A, B or C, got {k!r}")
        if k in out:
            fail(f"--layout: operand {k} given twice")
        out[k] = as_layout(v, f"--layout {k}")
    return out


@click.command("fold")
@click.argument("einsum", callback=text_input)
@click.option("--shape", "shapes", multiple=True, help="Operand extents: --shape A=2,3,4 (one per index letter).")
@click.option("--stride", "strides", multiple=True,
              help="Operand strides: --stride A=12,4,1 (default compact row-major, as numpy).")
@click.option("--layout", "layouts", multiple=True, help="An operand as a CuTe layout: --layout A='(2,3):(3,1)'.")
@json_option
@guarded
def fold_cmd(einsum, shapes, strides, layouts, as_json):
    """Fold the contraction EINSUM (e.g. "stupr,qtru->stqp") into batched-GEMM layouts A:(m,k,l), B:(n,k,l),
    C:(m,n,l), classify its modes and say which multi-modes have a flat form.

    Extents missing from --shape are taken from the other operands (C may be left out entirely)."""
    ops = fold_operands(einsum, shapes=_named(shapes, "shape"), strides=_named(strides, "stride"),
                        layouts=_layouts(layouts))
    f = fold(einsum, A=ops["A"], B=ops["B"], C=ops.get("C"))
    if as_json:
        groups = {"A": "mkl", "B": "nkl", "C": "mnl"}
        out = {"einsum": f.einsum, "modes": {k: "".join(v) for k, v in f.modes.items()},
               "extents": {k: v for k, v in f.extents.items()}, "M": f.M, "N": f.N, "K": f.K, "L": f.L}
        for k in "ABC":
            out[k] = str(getattr(f, k))
            out[f"{k}_flat"] = {g: (str(f.flat[(k, g)]) if f.flat[(k, g)] is not None else None)
                                for g in groups[k]}
        click.echo(json.dumps(out))
        return
    click.echo(f.describe())


@click.command("loops")
@click.argument("nest", callback=text_input)
@json_option
@click.option("--no-check", is_flag=True, help="Skip the no-repeat check.")
@guarded
def loops_cmd(nest, as_json, no_check):
    """Canonical form of the affine loop NEST, e.g.
    "for n in range(3,43,2): for m in range(4,23,5): A[p*m+q*n]" or
    "for (int m = 2; m <= 50; m += 3) A[m];": accessor, Shape:Stride (mode 0 = innermost loop), coalesced
    form, the canonical nest, and (for concrete strides) whether any element is touched twice.

    \b
    Exit codes: 0 ok (no repeat proved, or not checked), 1 a repeat found, 3 repeat check unknown."""
    r = loop_layout(nest)
    info = {"accessor": r.accessor, "shape": format_tuple(r.layout.shape), "stride": format_tuple(r.layout.stride),
            "layout": str(r.layout), "coalesced": str(r.coalesced), "one_loop": r.one_loop,
            "canonical": r.canonical()}
    if r.one_loop:
        info["single_loop"] = r.one_d()
    if r.obligations:
        info["obligations"] = [str(o) for o in r.obligations]
    code, v = EXIT_OK, None
    if not no_check and r.layout.is_concrete:
        v = check_no_repeat(r)
        info["no_repeat"] = v.to_json()
        code = EXIT_FOR[v.status]
    elif not no_check:
        info["no_repeat"] = None
        info["no_repeat_note"] = "not checked (symbolic strides)"
    if as_json:
        click.echo(json.dumps(info))
    else:
        click.echo(f"accessor: {info['accessor']}")
        click.echo(f"shape:stride: {info['layout']}")
        click.echo(f"coalesced: {info['coalesced']}" + ("  (one loop)" if r.one_loop else ""))
        for o in info.get("obligations", []):
            click.echo(f"obligation: {o}")
        click.echo("canonical:")
        for line in info["canonical"].splitlines():
            click.echo("  " + line)
        if r.one_loop:
            click.echo("single loop:")
            for line in info["single_loop"].splitlines():
                click.echo("  " + line)
        if v is not None:
            line = f"no repeat: {v.status} ({v.method})"
            if v.witness is not None:
                fmt = lambda d: "(" + ", ".join(f"{k}={x}" for k, x in d.items()) + ")"  # noqa: E731
                line += f": iterations {fmt(v.witness[0])} and {fmt(v.witness[1])} both touch offset {v.offset}"
            elif v.reason and v.status != "proved":
                line += f": {v.reason}"
            click.echo(line)
        elif "no_repeat_note" in info:
            click.echo(f"no repeat: {info['no_repeat_note']}")
    if code != EXIT_OK:
        sys.exit(code)


def register(group):
    """Add ``fold`` and ``loops`` to the click ``group`` (the CLI owner calls ``register(main)``)."""
    group.add_command(fold_cmd)
    group.add_command(loops_cmd)
