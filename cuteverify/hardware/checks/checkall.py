"""The self-check of a whole library spread over worker processes (``spec check`` cold, issue 30).

Definition: :func:`check_all` runs :func:`~.selfcheck.self_check` on every spec, as the eager
``load(check=True)`` does, and returns how each family was checked (``selfcheck.METHODS`` entries). With
``jobs > 1`` (and ``fork`` available) the specs are split by file into ``jobs`` groups of about equal size,
each checked in a forked process; the parent meanwhile runs ``side()`` (the Blackwell module checks).
Post-condition: the same outcome as checking in load order in one process: every spec passes, or the
failure raised is the first failing spec in load order (each worker stops at its own first failure, and the
earliest of those is the earliest overall). A worker that dies is no verdict: its group is checked again
in this process.
"""
from __future__ import annotations

import multiprocessing
import os

from ...errors import SpecError, SpecInconsistent
from . import selfcheck

__all__ = ["check_all", "default_jobs"]

_ERRORS = {"SpecInconsistent": SpecInconsistent, "SpecError": SpecError}


def _check_group(specs: list, first_index: dict):
    """``(methods, failure)``: failure is ``(index, kind, reason, file, line, spec)`` of the first failing
    spec of ``specs`` (in their order), or None."""
    for spec in specs:
        try:
            selfcheck.self_check(spec)
        except (SpecInconsistent, SpecError) as e:
            kind = "SpecInconsistent" if isinstance(e, SpecInconsistent) else "SpecError"
            return _methods(specs), (first_index[spec.name], kind, e.reason, e.file, e.line, e.spec)
    return _methods(specs), None


def _methods(specs: list) -> dict:
    return {s.name: selfcheck.METHODS[s.name] for s in specs if s.name in selfcheck.METHODS}


def _groups(specs: list, jobs: int) -> list:
    """Specs of one file stay together (families of one file share proofs); files go to the lightest group."""
    by_file: dict = {}
    for s in specs:
        by_file.setdefault(s.file, []).append(s)
    groups = [[] for _ in range(jobs)]
    for chunk in sorted(by_file.values(), key=len, reverse=True):
        min(groups, key=len).extend(chunk)
    order = {s.name: i for i, s in enumerate(specs)}
    return [sorted(g, key=lambda s: order[s.name]) for g in groups if g]


def _worker(conn, specs, index):
    try:
        conn.send(_check_group(specs, index))
    except BaseException:  # noqa: BLE001 - the parent re-checks this group itself
        conn.send(None)
    finally:
        conn.close()


def check_all(specs: list, jobs: int = 1, side=None):
    """Self-check ``specs`` (in load order); ``(methods, side())``. Raises the first failure (module doc)."""
    index = {s.name: i for i, s in enumerate(specs)}
    try:
        ctx = multiprocessing.get_context("fork") if jobs > 1 else None
    except ValueError:
        ctx = None
    groups = _groups(specs, jobs) if ctx is not None else [specs]
    if len(groups) < 2:
        methods, failure = _check_group(specs, index)
        side_result = side() if side is not None and failure is None else None
        _raise(failure)
        return methods, side_result
    procs = []
    for g in groups:
        recv, send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_worker, args=(send, g, index), daemon=True)
        p.start()
        send.close()
        procs.append((p, recv, g))
    side_result = side() if side is not None else None
    methods, failures = {}, []
    for p, recv, g in procs:
        try:
            got = recv.recv()
        except EOFError:
            got = None
        p.join()
        if got is None:  # the worker died: no verdict from it, check here
            got = _check_group(g, index)
        methods.update(got[0])
        if got[1] is not None:
            failures.append(got[1])
    selfcheck.METHODS.update(methods)
    _raise(min(failures) if failures else None)
    return methods, side_result


def _raise(failure) -> None:
    if failure is None:
        return
    _, kind, reason, file, line, spec = failure
    raise _ERRORS[kind](reason, file, line, spec)


def default_jobs() -> int:
    """Worker processes for a whole-library check: the CPUs this process may use, at most 4."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(4, n))
