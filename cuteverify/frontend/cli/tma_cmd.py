"""``cuteverify tma``: is a TMA descriptor legal for every value of the problem sizes? (issue 16)

    cuteverify tma --dtype bf16 --shape "(K,M)" --stride "(1,K)" --box "(64,128)" --swizzle 128B -a "K % 8 == 0"
    cuteverify tma --gmem "(M,K):(K,1)" --smem "S<3,3,3> o 0 o (128,64):(64,1)" --dtype bf16 --multicast 2
    cuteverify tma --gmem "(M,K):(1,M)" --smem GMMA_MN_SW128 --tile "(128,64)" --dtype f16 -a "M % 8 == 0"

Shape, stride and box in elements, innermost first, as cuTensorMapEncodeTiled takes them; or derived from a
CuTe copy (``--gmem`` and ``--smem``) the way make_tma_copy derives them, with CUTLASS's checks added.
Exit codes: 0 legal for every value, 1 refuted, 2 bad input, 3 unknown.
"""
from __future__ import annotations


import click

from cuteverify.hardware.descriptors.smem_rules import smem_layout
from cuteverify.hardware.tma.tiled import TmaDescriptor
from cuteverify.hardware.tma.copy import check_copy_options, from_copy
from cuteverify.hardware.tma.im2col import TmaIm2colDescriptor

from .desc_cmd import parse_tile_option
from .common import assume_option, check_names, echo_verdict, guarded, json_option, shared_assumptions, text_input


@click.command("tma")
@click.option("--dtype", "-d", required=True, help="Element type (bf16, f16, f32, e4m3, FLOAT16, ...).")
@click.option("--shape", default=None, callback=text_input, help="Global dims in elements, innermost first: \"(K,M)\".")
@click.option("--stride", default=None, callback=text_input, help="Global strides in elements, innermost first (default packed).")
@click.option("--box", default=None, callback=text_input, help="Box dims in elements, innermost first (default the shape).")
@click.option("--element-strides", default=None, callback=text_input, help="Element strides (default all 1).")
@click.option("--swizzle", default="NONE", show_default=True, help="NONE, 32B, 64B, 128B, 128B_ATOM_32B, ...")
@click.option("--interleave", default="NONE", show_default=True, help="NONE, 16B, 32B.")
@click.option("--l2-promotion", default="NONE", show_default=True, help="NONE, L2_64B, L2_128B, L2_256B.")
@click.option("--oob-fill", default="NONE", show_default=True, help="NONE or NAN_REQUEST_ZERO_FMA.")
@click.option("--address", default=None, help="Global address (bytes; an expression) to check its alignment.")
@click.option("--gmem", default=None, help="Derive from a copy: the gmem layout, e.g. \"(M,K):(K,1)\".", callback=text_input)
@click.option("--smem", default=None, callback=text_input,
              help="Derive from a copy: the smem tile layout (with its swizzle) or a smem atom name.")
@click.option("--tile", default=None, help="With --smem: tile the layout / atom to this shape first: \"(128,64)\".")
@click.option("--multicast", type=int, default=1, show_default=True, help="CTAs a multicast copy spans.")
@click.option("--smem-align", type=int, default=None, help="Byte alignment of the smem buffer to check.")
@click.option("--cta-tiler", default=None,
              help="With --gmem/--smem: make_tma_copy's CTA tile, \"(128,64)\" (the smem tile's shape).")
@click.option("--im2col", "im2col", default=None, metavar="CHANNELS,PIXELS",
              help="Im2col mode: channelsPerPixel,pixelsPerColumn (then --lower / --upper, no --box).")
@click.option("--lower", default=None, help="Im2col: pixelBoxLowerCorner, innermost spatial dim first: \"(-1,-1)\".")
@click.option("--upper", default=None, help="Im2col: pixelBoxUpperCorner: \"(-1,-1)\".")
@click.option("--arch", default="sm_90", show_default=True, type=click.Choice(["sm_90", "sm_100"]))
@assume_option
@json_option
@guarded
def tma_cmd(dtype, shape, stride, box, element_strides, swizzle, interleave, l2_promotion, oob_fill, address,
            gmem, smem, tile, multicast, smem_align, cta_tiler, im2col, lower, upper, arch, assume, as_json):
    """Does cuTensorMapEncodeTiled accept this descriptor for every value of the symbols? Prints every rule
    (ok / FAIL / ??) and, on a failure, the rule and the smallest violating assignment.

    \b
    Exit codes: 0 legal for every value, 1 refuted, 2 bad input, 3 unknown.
    """
    asm = shared_assumptions(assume)
    if asm is not None:
        asm.check_consistent()
    check_copy_options(multicast, smem_align)
    if gmem is not None or smem is not None:
        if gmem is None or smem is None:
            raise click.UsageError("--gmem and --smem go together")
        smem = smem_layout(smem, dtype, parse_tile_option(tile))
        desc, verdict = from_copy(gmem, smem, dtype, multicast=multicast, smem_address_align=smem_align,
                                  assume=asm, arch=arch, cta_tiler=cta_tiler)
    elif cta_tiler is not None:
        raise click.UsageError("--cta-tiler belongs to a copy: give --gmem and --smem")
    elif im2col is not None:
        if shape is None:
            raise click.UsageError("--im2col needs --shape (and --stride, --lower, --upper)")
        parts = [p for p in im2col.split(",") if p.strip()]
        if len(parts) != 2:
            raise click.UsageError("--im2col CHANNELS,PIXELS")
        desc = TmaIm2colDescriptor(dtype, shape, stride, lower or (), upper or (), parts[0], parts[1],
                                   element_strides, interleave=interleave, swizzle=swizzle,
                                   l2_promotion=l2_promotion, oob_fill=oob_fill, address=address, assume=asm,
                                   arch=arch)
        verdict = desc.check()
    else:
        if shape is None:
            raise click.UsageError("give --shape (and --stride, --box), or --gmem and --smem")
        desc = TmaDescriptor(dtype, shape, stride, box, element_strides, interleave=interleave, swizzle=swizzle,
                             l2_promotion=l2_promotion, oob_fill=oob_fill, address=address, assume=asm, arch=arch)
        verdict = desc.check()
    named = [desc.address, *desc.shape, *desc.stride, *desc.box, *desc.element_strides,
             getattr(desc, "channels", None), getattr(desc, "pixels", None), *getattr(desc, "lower", ()),
             *getattr(desc, "upper", ())]
    check_names(asm, [x for x in named if x is not None] + [x for x in (gmem, smem) if hasattr(x, "shape")],
                "the descriptor")
    text = str(verdict)
    if gmem is not None:  # derive mode: what make_tma_copy would hand the driver
        text = "\n".join([text, *_derived_lines(verdict.fields or {}, multicast)])
    echo_verdict(verdict, as_json, text=text)


def _derived_lines(f: dict, multicast: int):
    """The descriptor ``from_copy`` derived, innermost dimension first, as cuTensorMapEncodeTiled takes it."""
    def tup(x):
        return "(" + ", ".join(str(v) for v in x) + ")" if isinstance(x, tuple) else str(x)

    yield "descriptor (as make_tma_copy derives it; innermost dimension first):"
    yield f"  dtype {f.get('dtype')}, rank {f.get('rank')}"
    yield f"  global dims {tup(f.get('global_dim'))}, global strides in bytes of dims 1.. " \
          f"{tup(f.get('global_strides_bytes'))}"
    yield f"  box {tup(f.get('box_dim'))}, element strides {tup(f.get('element_strides'))}"
    copies = f", boxes per tile {f['box_copies']}" if f.get("box_copies") is not None else ""
    yield f"  swizzle {f.get('swizzle')}, smem alignment {f.get('smem_alignment')} bytes, multicast {multicast}{copies}"
