"""``cuteverify triton``: Triton's TTGIR layouts as linear layouts and CuTe layouts, and proofs between them.

    cuteverify triton show '#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>' \\
        --shape 64x64
    cuteverify triton equal '#mma' --ttgir kernel.ttgir --shape 64x64 \\
        --atom SM80_16x8x16_F32F16F16F32_TN --operand C --atom-layout "(2,2,1):(2,1,0)"
    cuteverify triton equal "$NVMMA" --shape 128x64 --cute "S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))"
    cuteverify triton types kernel.ttgir

``show`` prints the bases (Triton's form) and the same layout in CuTe notation: a TV layout ``((lane, warp),
register) -> m + M*n`` for register layouts, an smem layout ``(m, n) -> offset`` for shared ones. ``equal``
proves the attribute on the shape equal to a CuTe TV or smem layout (``--cute``), an MMA atom's operand
(``--atom``: a tiled MMA over the whole tensor, its permutation defaulting to the tensor's extents) or another
attribute (``--attr``); ``--exact`` asks for the same function (register order too) rather than the same
per-thread elements. Attributes are TTGIR text or ``#alias`` names of the ``--ttgir`` file. All decisions are
cuteverify.triton's; this module parses options and prints.
"""
from __future__ import annotations

import click

from cuteverify.atoms import make_mma_atom, make_tiled_mma
from cuteverify.core.notation.interop import as_layout
from cuteverify.core.notation.tiles import read_extents
from cuteverify.hardware.library.spec import OPERAND_MODES
from cuteverify.linear import from_linear_layout
from cuteverify.triton import (
    parse_attr,
    parse_module,
    prove_triton_equals,
    triton_layout,
)

from .common import EXIT_OK, emit, fail, guarded, json_option, report, text_input, verb
from .tiled_mma_cmd import parse_permutation

_MAX_TTGIR = 1 << 24


def _module(path):
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(_MAX_TTGIR + 1)
    except OSError as e:
        fail(f"--ttgir: cannot read {path}: {e.strerror or e}")
    except UnicodeDecodeError:
        fail(f"--ttgir: {path} is not UTF-8 text")
    if len(text) > _MAX_TTGIR:
        fail(f"--ttgir: {path} is longer than {_MAX_TTGIR} characters")
    return parse_module(text, path)


def _attr(text, module, what):
    t = text.strip()
    if module is not None:
        return parse_attr(t, module.aliases, source=what)
    return parse_attr(t, source=what)


def _shape(text):
    if text is None:
        fail("--shape is required (the tensor's extents, e.g. --shape 128x64)")
    return read_extents(text, "--shape")


def _bases_text(ll) -> dict:
    return {n: [list(b) for b in bs] for n, bs in ll.bases.items()}


@click.group("triton")
def triton_group():
    """Triton's TTGIR layouts: show them as linear and CuTe layouts, prove them equal to CuTe's."""


@triton_group.command("show")
@click.argument("attr", callback=text_input)
@click.option("--shape", "shape_text", default=None, metavar="MxN", help="The tensor's extents, e.g. 128x64.")
@click.option("--ttgir", default=None, metavar="FILE", help="Read #alias names from this TTGIR file.")
@json_option
@guarded
def show_cmd(attr, shape_text, ttgir, as_json):
    """The linear layout of ATTR on a tensor of --shape (Triton's bases) and its CuTe form.

    \b
    Exit codes: 0 shown, 2 usage or input error, 4 internal error."""
    module = _module(ttgir)
    a = _attr(attr, module, "ATTR")
    a, shape, ll = triton_layout(a, _shape(shape_text))
    info = {"attribute": a.text(), "shape": "x".join(map(str, shape)), "bases": _bases_text(ll),
            "out_dims": [f"{n}:{s}" for n, s in ll.out_dims]}
    try:
        info["cute"] = str(from_linear_layout(ll))
        info["cute_form"] = "smem (m, n) -> offset" if a.shared else "TV ((lane, warp, block), register) -> m + M*n"
    except Exception as e:  # noqa: BLE001 - a layout with no CuTe form is still shown as bases
        info["cute"] = f"(none: {e})"
    if as_json:
        emit(info, True)
    else:
        click.echo(f"attribute: {info['attribute']}")
        click.echo(f"shape: {info['shape']}  (dim0 = CuTe's m, dim1 = n)")
        click.echo(str(ll))
        click.echo(f"cute: {info['cute']}")
        if "cute_form" in info:
            click.echo(f"cute form: {info['cute_form']}")
    raise SystemExit(EXIT_OK)


def _tiled(atom, operand, shape, atom_layout, permutation):
    """A tiled MMA over the whole tensor: the permutation tile defaults to the tensor's extents in the
    operand's modes (``_`` in the third)."""
    if operand is None:
        fail("--atom needs --operand A, B or C")
    a = make_mma_atom(atom)  # an unknown name fails here, with the library's suggestions
    layout = as_layout(atom_layout, "--atom-layout") if atom_layout else (1, 1, 1)
    if permutation is not None:
        perm = parse_permutation(permutation)
    else:
        i, j = OPERAND_MODES[operand]
        ext = (shape[1], shape[0]) if operand == "B" else shape  # Triton's B is (k, n)
        perm = [None, None, None]
        perm[i], perm[j] = ext[0], ext[1]
        perm = tuple(perm)
    return make_tiled_mma(a.name if hasattr(a, "name") else atom, layout, perm)


@verb("equal", "Prove the Triton layout ATTR on --shape equal to a CuTe layout, an MMA atom's operand or another "
               "attribute: the same elements in every thread (or, with --exact, the same function).")
@click.argument("attr", callback=text_input)
@click.option("--shape", "shape_text", default=None, metavar="MxN", help="The tensor's extents, e.g. 128x64.")
@click.option("--cute", default=None, callback=text_input, metavar="LAYOUT",
              help="A CuTe TV layout (thread, value) -> m + M*n, or an smem layout (m, n) -> offset.")
@click.option("--tile", default=None, metavar="MxN", help="The CuTe TV layout's tile (default: the shape).")
@click.option("--atom", default=None, metavar="NAME", help="An MMA atom, e.g. SM80_16x8x16_F32F16F16F32_TN.")
@click.option("--operand", type=click.Choice(["A", "B", "C"]), default=None, help="The atom's operand.")
@click.option("--atom-layout", default=None, metavar="LAYOUT", help="Atoms over (M,N,K), e.g. \"(2,2,1):(2,1,0)\".")
@click.option("--permutation", default=None, metavar="TILE", help="The tiled MMA's permutation (default: the shape).")
@click.option("--attr", "attr2", default=None, callback=text_input, metavar="ATTR2", help="Another Triton attribute.")
@click.option("--exact", is_flag=True, help="The same function (register order too), not only ownership.")
@click.option("--transpose/--no-transpose", default=None,
              help="Read the CuTe side's coordinates as (n, m) (default: for dot_op opIdx = 1).")
@click.option("--ttgir", default=None, metavar="FILE", help="Read #alias names from this TTGIR file.")
@json_option
@guarded
def equal_cmd(attr, shape_text, cute, tile, atom, operand, atom_layout, permutation, attr2, exact, transpose,
              ttgir, as_json):
    module = _module(ttgir)
    given = [x for x in (cute, atom, attr2) if x is not None]
    if len(given) != 1:
        fail("give exactly one of --cute, --atom and --attr")
    a = _attr(attr, module, "ATTR")
    shape = _shape(shape_text)
    kw = {"exact": exact, "transpose": transpose, "aliases": module.aliases if module else None}
    if atom is not None:
        other = _tiled(atom, operand, shape, atom_layout, permutation)
        v = prove_triton_equals(a, shape, other, operand=operand, **kw)
    elif attr2 is not None:
        v = prove_triton_equals(a, shape, _attr(attr2, module, "--attr"), **kw)
    else:
        t = read_extents(tile, "--tile") if tile else None
        v = prove_triton_equals(a, shape, as_layout(cute, "--cute"), tile=t, **kw)
    report(v, as_json)


@triton_group.command("types")
@click.argument("ttgir")
@json_option
@guarded
def types_cmd(ttgir, as_json):
    """The tensor and memdesc types of a TTGIR file: line, shape, element type and layout (aliases resolved).

    \b
    Exit codes: 0 listed, 2 usage or input error, 4 internal error."""
    m = _module(ttgir)
    if not m.names() and not m.tensors:
        fail(f"{ttgir}: no TTGIR layout alias (#name = #ttg....) and no tensor or memdesc type in the file")
    rows = [{"line": t.line, "kind": t.kind, "shape": "x".join(map(str, t.shape)), "dtype": t.dtype,
             "layout": t.layout.text() if t.layout is not None else None} for t in m.tensors]
    skipped = [{"line": no, "reason": why} for no, _, why in m.skipped]
    if as_json:
        emit({"aliases": m.names(), "types": rows, "skipped": skipped}, True)
    else:
        click.echo(f"aliases: {' '.join('#' + n for n in m.names())}")
        for r in rows:
            click.echo(f"{r['line']}: {r['kind']}<{r['shape']}x{r['dtype']}> {r['layout'] or ''}")
        for s in skipped:
            click.echo(f"{s['line']}: skipped: {s['reason']}")
    raise SystemExit(EXIT_OK)


triton_group.add_command(equal_cmd)
