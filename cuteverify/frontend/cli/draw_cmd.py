"""``cuteverify draw`` (and ``cuteverify spec draw``): pictures of layouts as SVG or standalone TikZ.

    cuteverify draw "((2,4),(2,4)):((1,16),(2,4))" -o L.svg
    cuteverify draw "S<3,3,3> o 0 o (8,64):(64,1)" --banks --elem-bytes 2 -o smem.svg
    cuteverify draw "((4,8),(2,2)):((32,1),(16,8))" --tile 16x8 -o tv.tex
    cuteverify draw "(8,8):(8,1)" --highlight "1,2;5,7" -o cex.svg
    cuteverify spec draw SM80_16x8x16_F16F16F16F16_TN -o mma.svg

The format follows the output's extension (``.svg``; ``.tex``/``.tikz`` for LaTeX) unless ``--format``
says otherwise; without ``-o`` the drawing goes to stdout. Input errors exit with code 2, no traceback.
The spec library is read only by ``spec draw``; ``cuteverify.frontend.cli.spec_cmd`` attaches it to its group.
"""
from __future__ import annotations


import click

from cuteverify import draw as dr
from cuteverify.core.notation.interop import as_layout
from cuteverify.core.notation.parse import parse_tuple
from cuteverify.core.notation.tiles import read_extents
from cuteverify import hardware

from .common import fail, guarded, parse_params, text_input

_FORMATS = ("svg", "tex")


def format_of(output, fmt):
    """The drawing format: ``fmt`` when given, else from the output file's extension (``.svg`` / ``.tex``,
    ``svg`` for stdout); an unknown extension is refused (exit 2)."""
    if fmt:
        return fmt
    if output and output != "-":
        low = output.lower()
        if low.endswith((".tex", ".tikz")):
            return "tex"
        if low.endswith(".svg"):
            return "svg"
        fail(f"cannot tell the format of {output!r} from its extension: use .svg or .tex, or --format")
    return "svg"


def parse_tile(text: str) -> tuple:
    """``16x8``, ``16,8`` or ``(16,8)`` -> ``(16, 8)`` (the one extents reader, as manifests and Python)."""
    return read_extents(text, "--tile", rank=2)


def _has_top_comma(s: str) -> bool:
    depth = 0
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            return True
    return False


def parse_highlight(text: str | None) -> list:
    """``"r,c;r,c"`` -> ``[(r, c), (r, c)]``; items may also be integers (``"5;9"``) or hierarchical
    coordinates (``"(1,0),3"``)."""
    if not text:
        return []
    out = []
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        src = f"({item})" if _has_top_comma(item) else item
        v = parse_tuple(src, source="--highlight")
        out.append(v)
    return out


def write_output(text: str, output):
    """Write a command's ``text`` to the file ``output`` (stdout for None or ``-``); an unwritable file is
    refused (exit 2)."""
    if not output or output == "-":
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        fail(f"cannot write {output}: {e.strerror or e}")
    click.echo(f"wrote {output}", err=True)


_output_option = click.option("-o", "--output", default=None, metavar="FILE",
                              help="Output file (.svg, or .tex for a standalone TikZ document); stdout if absent.")
_format_option = click.option("--format", "fmt", type=click.Choice(_FORMATS), default=None,
                              help="Output format (default: from the output's extension, else svg).")


@click.command("draw")
@click.argument("layout", callback=text_input)
@_output_option
@_format_option
@click.option("--tile", default=None, metavar="MxN",
              help="Treat LAYOUT as a TV layout (thread, value) -> m + M*n over an MxN tile.")
@click.option("--banks", is_flag=True, help="Colour cells by shared-memory bank (offset*elem_bytes//4 % 32).")
@click.option("--elem-bytes", type=int, default=2, show_default=True, help="Element size for --banks.")
@click.option("--highlight", default=None, metavar="'r,c;r,c'",
              help="Cells to outline in red: (row, col) pairs, integral indices or coordinates, ';'-separated.")
@click.option("--title", default=None, help="Title above the drawing (default: the layout; '' for none).")
@guarded
def draw(layout, output, fmt, tile, banks, elem_bytes, highlight, title):
    """Draw LAYOUT (CuTe notation, swizzled layouts included) as a grid of its offsets: rows = mode 0,
    columns = mode 1; as SVG or as a standalone LaTeX/TikZ document."""
    fmt = format_of(output, fmt)
    if tile is not None and banks:
        fail("--tile and --banks cannot be combined")
    if elem_bytes <= 0:
        fail(f"--elem-bytes must be positive, got {elem_bytes}")
    L = as_layout(layout, "LAYOUT")
    hl = parse_highlight(highlight)
    if tile is not None:
        t = parse_tile(tile)
        fn = dr.svg_tv if fmt == "svg" else dr.tikz_tv
        text = fn(L, t, highlight=hl, title=title)
    elif banks:
        fn = dr.svg_banks if fmt == "svg" else dr.tikz_banks
        text = fn(L, elem_bytes, highlight=hl, title=title)
    else:
        fn = dr.svg if fmt == "svg" else dr.tikz
        text = fn(L, highlight=hl, title=title)
    write_output(text, output)


@click.command("draw")
@click.argument("name")
@_output_option
@_format_option
@click.option("--param", "-p", "params", multiple=True, metavar="NAME=VALUE",
              help="Family parameter, e.g. -p N=64 (repeatable).")
@guarded
def spec_draw(name, output, fmt, params):
    """Draw the hardware spec NAME: an MMA atom's A, B, C TV layouts (A left, B above C, like CUTLASS's
    print_latex) or a shared-memory atom coloured by bank."""
    fmt = format_of(output, fmt)
    spec, p = hardware.resolve(name, **parse_params(params))  # the one resolver: spec show's names draw too
    ev = spec.data.get("evidence")
    # an entry no silicon backs says so in its picture (Blackwell: "none, PTX formula only")
    title = f"{name}  [evidence: {ev}]" if isinstance(ev, str) else name
    if spec.kind == "mma":
        ops = spec.operands
        c = "C" if "C" in ops else "D"
        args = (spec.layout("A", **p), spec.layout("B", **p), spec.layout(c, **p), spec.shape_mnk(**p))
        fn = dr.svg_mma if fmt == "svg" else dr.tikz_mma
        text = fn(*args, title=title, thr_id=spec.thr_id())
    elif spec.kind == "smem_atom":
        bits = spec.data.get("element_bits", 16)
        eb = max(1, int(bits) // 8)
        fn = dr.svg_banks if fmt == "svg" else dr.tikz_banks
        text = fn(spec.layout("layout", **p), eb, title=f"{name}  [banks, {eb}-byte elements]")
    else:
        fail(f"drawing {spec.kind} specs is not supported (mma and smem_atom specs are)")
    write_output(text, output)


def register_spec(spec_group):
    """Attach ``spec draw`` to the CLI's ``spec`` group."""
    spec_group.add_command(spec_draw)


def register(group):
    """Add ``draw`` to the top-level group, and ``draw`` to its ``spec`` group when there is one (else a
    ``spec`` group holding just ``draw``; a later ``spec`` group replaces it and should call
    ``register_spec``)."""
    group.add_command(draw)
    spec = group.commands.get("spec") if hasattr(group, "commands") else None
    if isinstance(spec, click.Group):
        register_spec(spec)
    elif spec is None:
        @click.group("spec")
        def spec_group():
            """The hardware spec library."""
        register_spec(spec_group)
        group.add_command(spec_group)
