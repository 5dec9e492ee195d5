"""Element types: the one table of dtype names and their widths (docs/model.md section 6).

Spec lookups (a short smem-atom name plus ``dtype="bf16"``, TMA boxes) and the bank-conflict analysis both
read it, so a name the CLI accepts for ``--dtype`` means the same width everywhere. Names are the PTX type
suffixes (``f16``, ``e4m3``), the CUTLASS type names (``half_t``, ``float_e4m3_t``) and the usual C / NumPy
spellings (``float``, ``int8``); lookups are case-insensitive.
"""
from __future__ import annotations

from ...errors import SpecError

__all__ = ["DTYPE_BITS", "DTYPE_BYTES", "dtype_bits"]

DTYPE_BITS = {
    **dict.fromkeys(("f64", "fp64", "float64", "double", "b64", "s64", "u64", "int64"), 64),
    **dict.fromkeys(("f32", "fp32", "float32", "float", "tf32", "tfloat32_t", "b32", "s32", "u32", "int32",
                     "uint32", "int32_t", "uint32_t"), 32),
    **dict.fromkeys(("f16", "fp16", "float16", "half", "half_t", "bf16", "bfloat16", "bfloat16_t", "b16", "s16",
                     "u16", "int16", "uint16", "int16_t", "uint16_t"), 16),
    **dict.fromkeys(("e4m3", "e5m2", "fp8", "f8", "float_e4m3_t", "float_e5m2_t", "b8", "s8", "u8", "int8",
                     "uint8", "int8_t", "uint8_t"), 8),
}

#: The same table in bytes (every type above is a whole number of bytes; sub-byte types are not modelled).
DTYPE_BYTES = {name: bits // 8 for name, bits in DTYPE_BITS.items()}


def dtype_bits(dtype) -> int:
    """Element width in bits of a dtype name (``"bf16"``, ``"half_t"``, ``"float"``, ``"e4m3"``) or an int.

    Admissible: a name of :data:`DTYPE_BITS` (any case, surrounding blanks ignored) or an int, which is taken
    as the width itself. Raises :class:`SpecError` (an input error) for any other name."""
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        if dtype <= 0 or dtype % 8:  # a width of -16 bits is no element (and sub-byte types are not modelled)
            raise SpecError(f"a dtype width in bits must be a positive multiple of 8, got {dtype}")
        return dtype
    try:
        return DTYPE_BITS[str(dtype).strip().lower()]
    except KeyError:
        raise SpecError(f"unknown dtype {dtype!r} (e.g. f16, bf16, tf32, f32, s8, e4m3, or a width in bits)") \
            from None
