"""A progress line on stderr for long commands: elapsed seconds, redrawn in place, erased at the end.

Definition: ``ticker(label)`` is a context manager; when stderr is a terminal it starts a daemon thread that,
after ``delay`` seconds (short runs print nothing), rewrites ``\\r<label> ... <n> s`` once a second until the
block ends, then erases the line. Admissibility: any block; nothing is printed when stderr is no terminal (a
pipe, a CI log) or ``enabled`` is False. Post-condition: stdout is untouched and stderr ends where it began (the
line is blanked). The thread writes with ``os.write`` on descriptor 2, so a ``fork`` inside the block (the spec
self-check's workers) can never inherit a held lock of Python's stderr object.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

__all__ = ["stderr_is_tty", "ticker"]


def stderr_is_tty() -> bool:
    """Is stderr a terminal (a progress line only then)?"""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _write(text: str) -> None:
    try:
        os.write(2, text.encode("utf-8", "replace"))
    except OSError:
        pass


@contextlib.contextmanager
def ticker(label: str, enabled: bool | None = None, delay: float = 0.5, every: float = 1.0):
    """Show ``label ... N s`` on stderr while the block runs (module docstring)."""
    if enabled is None:
        enabled = stderr_is_tty()
    if not enabled:
        yield
        return
    done, t0, width = threading.Event(), time.perf_counter(), [0]

    def run():
        if done.wait(delay):
            return
        while not done.is_set():
            line = f"\r{label} ... {time.perf_counter() - t0:.0f} s"
            width[0] = max(width[0], len(line))
            _write(line)
            done.wait(every)

    thread = threading.Thread(target=run, name="cuteverify-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if width[0]:
            _write("\r" + " " * width[0] + "\r")
