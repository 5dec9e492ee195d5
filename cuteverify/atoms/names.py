"""What is atom-specific in naming an atom: the kind an atom builder needs, a family's parameters all given, and
CUTLASS's ``UniversalCopy``. Every name itself is read by the one resolver, :func:`cuteverify.hardware.library.catalog.
resolve` (CUTLASS's concrete names, ``SM90::GMMA::MMA_...``, class templates with their arguments, family
parameters as keywords), so the CLI, manifests and the Python API accept the same names.
``UniversalCopy<uint128_t>`` / ``UniversalCopy<128>`` / ``UniversalCopy`` name CUTLASS's one-thread copy.
"""
from __future__ import annotations

import re

from ..errors import NotAdmissibleError
from ..hardware import dtype_bits
from ..hardware.library.catalog import instance_name, resolve

__all__ = ["resolve_spec", "universal_copy_bits", "instance_name"]


def resolve_spec(name: str, kind: str, **params):
    """``(spec, params)`` for an atom name of ``kind`` ("mma" or "copy") and family parameters given as
    keywords (see :func:`~cuteverify.hardware.library.catalog.resolve`). Post-condition: ``params`` fixes every family
    parameter (an atom is one instruction), each in range. Raises :class:`~cuteverify.errors.UnknownSpec` (with
    close names) for an unknown name, :class:`~cuteverify.errors.SpecError` for a parameter that contradicts
    the name or lies outside the family, and :class:`NotAdmissibleError` for a spec of another kind or a family
    whose parameters are not all given."""
    spec, p = resolve(name, **params)
    if spec.kind != kind:
        raise NotAdmissibleError(f"make_{kind}_atom", f"{name} is a {spec.kind} spec, not a {kind} atom")
    missing = [k for k in spec.params if k not in p]
    if missing:
        example = ", ".join(f"{k}={v}" for k, v in spec.instances()[0].items())
        what = "a family" if name.strip() == spec.name else f"the family {spec.name}"
        raise NotAdmissibleError(f"make_{kind}_atom", f"{name} is {what}: give "
                                 f"{', '.join(missing)} (e.g. {example}), as keywords, --param NAME=VALUE on the "
                                 "command line, or CUTLASS's template arguments")
    return spec, spec.check_params(p) if p else p


_UNIVERSAL = re.compile(r"^(?:cute::)?UniversalCopy\s*(?:<\s*([A-Za-z0-9_:]+)\s*(?:,\s*[A-Za-z0-9_:]+\s*)?>)?$")
_UINT = re.compile(r"^(?:cute::)?u?int(\d+)_t$")


def universal_copy_bits(name: str, dtype=None, num_bits_per_copy=None):
    """The bits moved by ``UniversalCopy<T>`` (None when ``name`` is not a UniversalCopy): the template
    argument (``uint128_t``, ``half_t``, or a number of bits), else ``num_bits_per_copy``, else the element
    width of ``dtype`` (CuTe DSL's ``CopyUniversalOp`` default)."""
    m = _UNIVERSAL.match(name.strip())
    if not m:
        return None
    arg = m.group(1)
    if arg is not None:
        if arg.isdigit():
            bits = int(arg)
        else:
            u = _UINT.match(arg)
            bits = int(u.group(1)) if u else dtype_bits(arg.replace("cute::", ""))
        if num_bits_per_copy is not None and num_bits_per_copy != bits:
            raise NotAdmissibleError("make_copy_atom", f"{name} moves {bits} bits, not num_bits_per_copy="
                                     f"{num_bits_per_copy}")
        return bits
    if num_bits_per_copy:
        return int(num_bits_per_copy)
    if dtype is None:
        raise NotAdmissibleError("make_copy_atom", "UniversalCopy needs a width: UniversalCopy<uint128_t>, "
                                 "num_bits_per_copy=, or a dtype")
    return dtype_bits(dtype)
