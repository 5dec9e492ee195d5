"""Atom names as CUTLASS spells them, resolved to a spec of the library and its family parameters.

``SM80_16x8x16_F32F16F16F32_TN`` names a spec; ``SM90_64x128x16_F32BF16BF16_SS`` names the instance ``N=128``
of the family ``SM90_64xNx16_F32BF16BF16_SS`` (a family's name carries its parameter where CUTLASS puts the
value, in the ``MxNxK`` token); C++ template arguments (``<GMMA::Major::K,GMMA::Major::K>``) are accepted and
ignored, since the major modes change the shared-memory layout, not the atom's TV layouts.
``UniversalCopy<uint128_t>`` / ``UniversalCopy<128>`` / ``UniversalCopy`` name CUTLASS's one-thread copy.
"""
from __future__ import annotations

import functools
import re

from ..errors import NotAdmissibleError, UnknownSpec
from ..hardware import default_library, dtype_bits

__all__ = ["resolve_spec", "universal_copy_bits"]

_TEMPLATE = re.compile(r"^([^<]+?)\s*(<.*>)?\s*$")


def _strip_template(name: str) -> str:
    m = _TEMPLATE.match(name.strip())
    return m.group(1) if m else name.strip()


@functools.cache
def _family_patterns(lib_id: int):
    """(regex, spec name, parameter order) for every family spec: its ``MxNxK`` token with each parameter
    name replaced by a number group."""
    lib = default_library()
    out = []
    for name in lib:
        spec = lib.peek(name)  # a name index reads metadata; the spec used is checked when it is handed out
        if not spec.is_family:
            continue
        parts = name.split("_")
        if len(parts) < 2:
            continue
        dims = parts[1].split("x")
        params = []
        rx_dims = []
        for d in dims:
            if d in spec.params:
                params.append(d)
                rx_dims.append(r"(\d+)")
            else:
                rx_dims.append(re.escape(d))
        if not params:
            continue
        rx = "^" + re.escape(parts[0]) + "_" + "x".join(rx_dims) + "_" + re.escape("_".join(parts[2:])) + "$"
        out.append((re.compile(rx), name, tuple(params)))
    return out


def resolve_spec(name: str, kind: str):
    """``(spec, params)`` for an atom name of ``kind`` ("mma" or "copy"). Raises :class:`UnknownSpec` (with
    close names) for an unknown name and :class:`NotAdmissibleError` for a spec of another kind or a family
    instance outside the family's range."""
    lib = default_library()
    # a spec named with its template argument (SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>) is found as named
    base = name.strip() if name.strip() in lib else _strip_template(name)
    if base in lib:
        spec = lib[base]
        if spec.kind != kind:
            raise NotAdmissibleError(f"make_{kind}_atom", f"{base} is a {spec.kind} spec, not a {kind} atom")
        if spec.is_family:
            raise NotAdmissibleError(f"make_{kind}_atom", f"{base} is a family: name an instance "
                                     f"(e.g. with {', '.join(spec.params)} = {spec.instances()[0]}) or pass "
                                     "the parameters")
        return spec, {}
    for rx, fam, params in _family_patterns(id(lib)):
        m = rx.match(base)
        if m:
            spec = lib[fam]
            values = {p: int(v) for p, v in zip(params, m.groups())}
            for p, v in values.items():
                if v not in set(spec.params[p]):
                    raise NotAdmissibleError(f"make_{kind}_atom", f"{base}: {p}={v} is not in the family {fam} "
                                             f"({spec.params[p][0]}..{spec.params[p][-1]})")
            if spec.kind != kind:
                raise NotAdmissibleError(f"make_{kind}_atom", f"{base} is a {spec.kind} spec, not a {kind} atom")
            return spec, values
    lib.get(base)  # raises UnknownSpec with suggestions
    raise UnknownSpec(f"no spec named {base!r}")  # pragma: no cover - lib.get raised


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
