"""Re-export of slicing for ``Layout.__getitem__`` (kept separate so layout.py imports stay one-way)."""
from .tile import slice_and_offset, slice_layout  # noqa: F401
