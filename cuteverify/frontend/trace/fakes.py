"""Fake kernel arguments for compile scripts traced by ``cuteverify trace capture``: tensors and streams that
``cute.compile`` accepts with no GPU and no torch.

For user scripts only: this module imports the CuTe DSL (``cutlass``) at module level, so no module of
cuteverify imports it (cuteverify itself never needs the DSL)::

    from cuteverify.frontend.trace.fakes import fake_tensor, fake_stream, sym
    a = fake_tensor(cutlass.Float16, ("m", "k", "l"), major=1)   # (m,k,l), k contiguous
    cute.compile(my_gemm, a, b, c, fake_stream())
"""
from __future__ import annotations

import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream

__all__ = ["sym", "fake_tensor", "fake_stream", "stride_order_for"]


def sym(divisibility: int = 8):
    """A dynamic 32-bit extent the kernel may assume divisible by ``divisibility`` (printed ``?{div=N}``)."""
    return cute.sym_int32(divisibility=divisibility)


def stride_order_for(rank: int, major: int) -> tuple:
    """The DSL's ``stride_order`` (entry i = the rank of mode i's stride, 0 = the stride-1 mode) of a compact
    tensor whose mode ``major`` is contiguous and whose other modes follow in increasing mode order (CUTLASS's
    convention: (m,k,l) with k contiguous is ``(1,0,2)``). ``major`` may be negative (-1 = the last mode).
    Raises ``IndexError`` for a mode outside the rank."""
    if not -rank <= major < rank:
        raise IndexError(f"major mode {major} is outside a rank-{rank} tensor")
    major %= rank
    order, nxt = [0] * rank, 1
    for i in range(rank):
        if i != major:
            order[i], nxt = nxt, nxt + 1
    return tuple(order)


def fake_tensor(dtype, shape, major: int = 0, *, stride_order=None, divisibility: int = 8,
                assumed_align: int = 16):
    """A fake compact gmem tensor of ``dtype`` and ``shape`` for ``cute.compile``.

    ``shape`` entries: an ``int`` is a static extent; a string (a name for the reader) or ``None`` is a dynamic
    extent divisible by ``divisibility`` (``cute.sym_int32``); a ``SymInt`` is used as given. The strides are
    compact: mode ``major`` contiguous and the others in mode order (:func:`stride_order_for`), unless
    ``stride_order`` gives the DSL's order directly. ``assumed_align`` is the base pointer's byte alignment.
    Post-condition: ``make_fake_compact_tensor(dtype, extents, stride_order=..., assumed_align=...)``."""
    extents = tuple(sym(divisibility) if (e is None or isinstance(e, str)) else e for e in shape)
    order = tuple(stride_order) if stride_order is not None else stride_order_for(len(extents), major)
    return make_fake_compact_tensor(dtype, extents, stride_order=order, assumed_align=assumed_align)


def fake_stream(use_tvm_ffi_env_stream: bool = False):
    """A fake CUDA stream argument (``cute.runtime.make_fake_stream``)."""
    return make_fake_stream(use_tvm_ffi_env_stream=use_tvm_ffi_env_stream)
