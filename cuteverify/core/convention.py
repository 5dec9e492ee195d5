"""The convention for the stride of a size-1 mode that an operation creates, where CuTe's implementations
print the same function differently (docs/model.md section 2.5).

A size-1 mode's stride never changes a layout's values on its domain (its only coordinate is 0); it shows in
the printed form and past the size (the extended domain). CuTe DSL 4.8.1 writes 0 where the complement has
nothing left (``complement(3:1, 3)`` is ``1:0``, so ``logical_divide(1:1, 1:1)`` is ``(1,1):(1,0)``); CuTe IR
keeps the stride its construction reaches (``1:3``, ``(1,1):(1,1)``). DSL's is the default; ``"keep"`` gives
CuTe IR's. The setting is read by the operations that make such a mode, so it applies to what they compute
while it is in force (a stride written 0 cannot be recovered by printing afterwards).
"""
from __future__ import annotations

import contextlib
import contextvars

from ..errors import NotAdmissibleError

SIZE1_CONVENTIONS = ("dsl", "keep")

_SIZE1 = contextvars.ContextVar("cuteverify_size1_strides", default="dsl")


def size1_convention() -> str:
    """The convention in force: ``"dsl"`` (CuTe DSL 4.8.1's, the default) or ``"keep"`` (CuTe IR's)."""
    return _SIZE1.get()


def keeps_size1() -> bool:
    return _SIZE1.get() == "keep"


@contextlib.contextmanager
def size1_strides(convention: str):
    """``with size1_strides("keep"): ...``: the operations inside follow ``convention`` (one of
    ``SIZE1_CONVENTIONS``) for the strides of the size-1 modes they make; the previous setting comes back
    after the block. Any other value is a ``NotAdmissibleError`` naming the choices."""
    if convention not in SIZE1_CONVENTIONS:
        raise NotAdmissibleError("size1_strides", f"the convention must be one of {', '.join(SIZE1_CONVENTIONS)} "
                                 f"(dsl: CuTe DSL 4.8.1's size-1 strides, the default; keep: CuTe IR's), got "
                                 f"{convention!r}")
    token = _SIZE1.set(convention)
    try:
        yield
    finally:
        _SIZE1.reset(token)


__all__ = ["SIZE1_CONVENTIONS", "size1_convention", "keeps_size1", "size1_strides"]
