"""Triton's GPU layouts (docs/model.md section 12): the layout attributes of TTGIR (``#ttg.blocked``,
``#ttg.nvidia_mma``, ``#ttg.dot_op``, ``#ttg.nvmma_shared``, ``#ttg.swizzled_shared``, ``#ttg.linear``) read as
text, converted to linear layouts as Triton's compiler does, and proved equal (or not) to CuTe layouts, atoms
and hardware specs.

The conversions follow Triton 3.9 (``TRITON_VERSION``): its ``toLinearLayout`` as Gluon's
``GluonOpBuilder.to_linear_layout`` computes it, checked case by case against a corpus of attributes that
Triton 3.9 itself converted (tests/triton/triton_data). Both spellings of the CTA split are read: 3.9's
``CGALayout = [[...]]`` and the older ``CTAsPerCGA / CTASplitNum / CTAOrder``. When a ``triton`` package is
installed, importing this package checks its version (:func:`check_triton_version`): another major.minor gets
a :class:`TritonVersionWarning`, since its conversions may differ from the ones modelled here.

May import: ``errors``, ``symbolic``, ``core``, ``algebra``, ``linear``, ``prover``, ``hardware``, ``atoms``,
``analysis``.

Modules: ``attrs`` (the attribute records, ``parse_attr``; a shape's text is read by ``core.notation.tiles``),
``ttgir`` (``parse_module``: a TTGIR file's aliases and tensor types; ``parse_tensor_type``), ``convert`` (``to_linear``: Triton's
``toLinearLayout`` for each attribute and tensor shape, with ``combineCtaCgaWithShape`` and the
``ensureLayoutNot{Larger,Smaller}Than`` rules), ``prove`` (``prove_triton_equals``: the same ownership or the
same function as a CuTe TV / smem layout, an atom's operand or another attribute, decided over F2).
"""
import warnings
from importlib import metadata

from .attrs import (
    Blocked,
    CtaLayout,
    DotOperand,
    LinearAttr,
    NvidiaMma,
    NvmmaShared,
    SwizzledShared,
    parse_attr,
)
from .convert import to_linear
from .prove import prove_triton_equals, triton_layout
from .ttgir import TensorType, TtgirModule, parse_module, parse_tensor_type

__all__ = [
    "TRITON_VERSION",
    "TritonVersionWarning",
    "check_triton_version",
    "Blocked",
    "CtaLayout",
    "DotOperand",
    "LinearAttr",
    "NvidiaMma",
    "NvmmaShared",
    "SwizzledShared",
    "TensorType",
    "TtgirModule",
    "parse_attr",
    "parse_module",
    "parse_tensor_type",
    "prove_triton_equals",
    "to_linear",
    "triton_layout",
]

#: the Triton release whose ``toLinearLayout`` the conversions follow
TRITON_VERSION = "3.9.0"


class TritonVersionWarning(UserWarning):
    """The installed ``triton`` is another release than the one the conversions follow."""


def check_triton_version(installed=None):
    """A note (str) when the installed ``triton`` (``installed``, default: the package's metadata, read
    without importing triton) differs in major.minor from ``TRITON_VERSION``, also issued as a
    :class:`TritonVersionWarning`; None when they agree or no triton is installed."""
    if installed is None:
        try:
            installed = metadata.version("triton")
        except metadata.PackageNotFoundError:
            return None
    if installed.split(".")[:2] == TRITON_VERSION.split(".")[:2]:
        return None
    note = (f"triton {installed} is installed; cuteverify.triton's conversions follow Triton {TRITON_VERSION} "
            "and may differ from this release's toLinearLayout")
    warnings.warn(note, TritonVersionWarning, stacklevel=2)
    return note


check_triton_version()
