"""TMA im2col descriptors: the rules of ``cuTensorMapEncodeIm2col`` (cuda.h, CUDA 13.0, and the H200's driver),
each a named condition decided for every value of the symbolic sizes (issue 16, the stretch goal).

The model agrees with the H200 driver (580.159.04) on all 599 parameter sets of
specs/evidence/sm90/tma_im2col_driver_verdicts.jsonl (tests/hardware/test_tma_im2col_driver.py). Beyond the
documentation the driver also refuses (and the model follows it): channelsPerPixel x element size not a
multiple of 16 bytes (``channels_bytes``), and a box (channels x pixels x element size) over 228 KiB
(``box_bytes``: 233472 bytes accepted, 233728 refused, as in the tiled mode).

Fields as the driver takes them, innermost first: ``shape`` (globalDim: C, W, H, D, N for rank 5; C, W, N for
rank 3), ``stride`` (elements, as ``TmaDescriptor``), ``lower`` / ``upper`` (pixelBoxLowerCorner /
UpperCorner, one signed offset per spatial dimension, innermost first: W, then H, then D), ``channels``
(channelsPerPixel), ``pixels`` (pixelsPerColumn), element strides and the enums. The rules shared with the
tiled mode (global address, dims, strides, element strides, enums: ``hardware.tma_rules``) are checked as
there; the box rules are replaced by:

* ``im2col_rank``: rank 3, 4 or 5;
* ``corner_count``: rank - 2 offsets in each corner;
* ``corner_range``: each offset in [-32768, 32767] (rank 3), [-128, 127] (rank 4), [-16, 15] (rank 5);
* ``bounding_box``: the bounding box has non-zero area: along each spatial dimension
  ``globalDim + upper - lower >= 1`` (the lower corner is measured from the top/left/front, the upper from
  the bottom/right/back);
* ``channels_per_pixel``: 1..256 (128 exactly for the 16U4/16U6_ALIGN16B packed types);
* ``pixels_per_column``: 1..1024;
* ``swizzle_span``: with interleave NONE, channels x element size at most the swizzle span;
* ``channels_bytes`` and ``box_bytes`` (sm_90), from the driver's behaviour (above).

``corner_count`` is the interface's (the driver reads rank - 2 offsets whatever the caller passed).
"""
from __future__ import annotations

from ...errors import TmaError
from ...symbolic.conditions import Condition as C
from ...symbolic.expr import normalize
from ..checks.rules import Rule, check_rules, value_at
from .tiled import TmaDescriptor, as_entries
from .rules import (MAX_BOX_BYTES_SM90, SWIZZLE_SPAN, address_rule, dim_rules, element_stride_rules, enum_rules,
                    stride_rules)

__all__ = ["CORNER_RANGE", "TmaIm2colDescriptor"]

#: rank -> (lowest, highest) corner offset
CORNER_RANGE = {3: (-32768, 32767), 4: (-128, 127), 5: (-16, 15)}
_DOC = "cuda.h: cuTensorMapEncodeIm2col"
_OBSERVED = "H200 driver 580.159.04 (specs/evidence/sm90/tma_im2col_driver_verdicts.jsonl)"
_PACKED_A16 = (14, 15)


class TmaIm2colDescriptor(TmaDescriptor):
    """The parameters of one ``cuTensorMapEncodeIm2col`` call (module docstring), sizes possibly symbolic;
    ``check()`` returns a :class:`~cuteverify.hardware.checks.rules.RuleVerdict` as ``TmaDescriptor.check`` does."""

    def __init__(self, dtype, shape, stride=None, lower=(), upper=(), channels=1, pixels=1, element_strides=None,
                 **kw):
        rank = len(as_entries(shape, "shape"))
        super().__init__(dtype, shape, stride, (1,) * rank, element_strides, **kw)
        self.lower = as_entries(lower, "lower") if lower != () else ()
        self.upper = as_entries(upper, "upper") if upper != () else ()
        self.channels = normalize(as_entries(channels, "channels")[0])
        self.pixels = normalize(as_entries(pixels, "pixels")[0])
        if not isinstance(self.lower, tuple) or not isinstance(self.upper, tuple):
            raise TmaError("lower / upper corners: tuples of offsets")

    def fields(self) -> dict:
        f = super().fields()
        f.pop("box_dim", None)
        f.update(mode="im2col", pixel_box_lower_corner=self.lower, pixel_box_upper_corner=self.upper,
                 channels_per_pixel=self.channels, pixels_per_column=self.pixels)
        return f

    def rules(self) -> list:
        d = self
        out = [Rule("im2col_rank", "rank 3, 4 or 5", [(3 <= d.rank <= 5, lambda _: f"rank {d.rank} is not 3..5")],
                    source=_DOC),
               Rule("interleave_rank", "rank >= 3 with an interleaved layout", [(True, lambda _: "")], source=_DOC),
               address_rule(d)]
        for part in (dim_rules, stride_rules, element_stride_rules, enum_rules):
            out += list(part(d))
        n = d.rank - 2
        out.append(Rule("corner_count", f"{max(n, 0)} offsets in each corner (one per spatial dimension)",
                        [(len(d.lower) == n, lambda _: f"the lower corner has {len(d.lower)} offsets, not {n}"),
                         (len(d.upper) == n, lambda _: f"the upper corner has {len(d.upper)} offsets, not {n}")],
                        source="cuTensorMapEncodeIm2col's interface"))
        lo, hi = CORNER_RANGE.get(d.rank, (0, -1))
        clauses = []
        for name, corner in (("lower", d.lower), ("upper", d.upper)):
            for j, x in enumerate(corner):
                clauses.append((C("le", lo, x), lambda v, n=name, j=j, x=x: f"{n} corner offset {j} is "
                                f"{value_at(x, v)} < {lo}"))
                clauses.append((C("le", x, hi), lambda v, n=name, j=j, x=x: f"{n} corner offset {j} is "
                                f"{value_at(x, v)} > {hi}"))
        out.append(Rule("corner_range", f"each corner offset in [{lo}, {hi}] (rank {d.rank})", clauses, source=_DOC))
        area = []
        for j, (lw, up) in enumerate(zip(d.lower, d.upper)):
            if 1 + j >= len(d.shape):
                break
            ext = normalize(d.shape[1 + j] + up - lw)
            area.append((C("le", 1, ext), lambda v, j=j, e=ext: f"the bounding box is {value_at(e, v)} pixels "
                         f"along spatial dimension {j} (globalDim + upper - lower), not >= 1"))
        out.append(Rule("bounding_box", "the bounding box has non-zero area (globalDim + upper - lower >= 1)", area,
                        source=_DOC))
        ch, px = d.channels, d.pixels
        cc = [(C("le", 1, ch), lambda v: f"channelsPerPixel is {value_at(ch, v)}, not >= 1"),
              (C("le", ch, 256), lambda v: f"channelsPerPixel is {value_at(ch, v)} > 256")]
        if d.dtype in _PACKED_A16:
            cc.append((C("eq", ch, 128), lambda v: f"channelsPerPixel is {value_at(ch, v)}, not 128"))
        out.append(Rule("channels_per_pixel", "channelsPerPixel in 1..256", cc, source=_DOC))
        if d.bits is not None:
            cbits = normalize(ch * d.bits)
            out.append(Rule("channels_bytes", "channelsPerPixel x element size a multiple of 16 bytes",
                            [(C("divides", 128, cbits), lambda v: f"channelsPerPixel x element size is "
                              f"{value_at(cbits, v)} bits, not a multiple of 16 bytes")], source=_OBSERVED))
            if d.arch == "sm_90":
                tot = normalize(ch * px * d.bits)
                out.append(Rule("box_bytes", f"channels x pixels x element size fit in {MAX_BOX_BYTES_SM90} bytes",
                                [(C("le", tot, MAX_BOX_BYTES_SM90 * 8), lambda v: f"the box loads "
                                  f"{value_at(tot, v)} bits > {MAX_BOX_BYTES_SM90} bytes")], source=_OBSERVED))
        out.append(Rule("pixels_per_column", "pixelsPerColumn in 1..1024",
                        [(C("le", 1, px), lambda v: f"pixelsPerColumn is {value_at(px, v)}, not >= 1"),
                         (C("le", px, 1024), lambda v: f"pixelsPerColumn is {value_at(px, v)} > 1024")], source=_DOC))
        span = SWIZZLE_SPAN.get(d.swizzle)
        if d.interleave == 0 and span is not None and d.bits is not None:
            bits = normalize(ch * d.bits)
            out.append(Rule("swizzle_span", f"channelsPerPixel x element size at most the swizzle span ({span} bytes)",
                            [(C("le", bits, span * 8), lambda v: f"the inner dimension is {value_at(bits, v)} bits "
                              f"> the {span}-byte swizzle span")], source=_DOC))
        return out

    def check(self):
        claim = "cuTensorMapEncodeIm2col accepts " + repr(self)
        return check_rules(self.rules(), self.assumptions, claim, fields=self.fields())
