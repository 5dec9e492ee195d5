"""Triton's GPU layouts (docs/model.md section 12): the layout attributes of TTGIR (``#ttg.blocked``,
``#ttg.nvidia_mma``, ``#ttg.dot_op``, ``#ttg.nvmma_shared``, ``#ttg.swizzled_shared``, ``#ttg.linear``) read as
text, converted to linear layouts as Triton's compiler does, and proved equal (or not) to CuTe layouts, atoms
and hardware specs.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``linear``, ``prover``, ``hardware``, ``atoms``,
``analysis``.

Modules: ``attrs`` (the attribute records, ``parse_attr``, ``parse_shape``), ``ttgir`` (``parse_module``: a
TTGIR file's aliases and tensor types; ``parse_tensor_type``), ``convert`` (``to_linear``: Triton's
``toLinearLayout`` for each attribute and tensor shape, with ``combineCtaCgaWithShape`` and the
``ensureLayoutNot{Larger,Smaller}Than`` rules), ``prove`` (``prove_triton_equals``: the same ownership or the
same function as a CuTe TV / smem layout, an atom's operand or another attribute, decided over F2).
"""
from .attrs import (
    Blocked,
    CtaLayout,
    DotOperand,
    LinearAttr,
    NvidiaMma,
    NvmmaShared,
    SwizzledShared,
    UnsupportedAttribute,
    parse_attr,
    parse_shape,
)
from .convert import TritonLayoutError, to_linear
from .prove import prove_triton_equals, triton_layout
from .ttgir import TensorType, TtgirModule, parse_module, parse_tensor_type

__all__ = [
    "Blocked",
    "CtaLayout",
    "DotOperand",
    "LinearAttr",
    "NvidiaMma",
    "NvmmaShared",
    "SwizzledShared",
    "TensorType",
    "TritonLayoutError",
    "TtgirModule",
    "UnsupportedAttribute",
    "parse_attr",
    "parse_module",
    "parse_shape",
    "parse_tensor_type",
    "prove_triton_equals",
    "to_linear",
    "triton_layout",
]
