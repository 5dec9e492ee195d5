"""Build many ``trace cpp`` captures at once (issue 29: the C++ trace tests' budget on CI's 2 cores): each capture
in its own process, ``jobs`` at a time, so that the captures that follow in the caller hit cpp_build's
content-hash cache instead of compiling one after the other.

Definitions:
  * :class:`Unit`: one capture as :func:`.cpp_capture.capture` takes it (the source as given, the entries, -I
    directories, -D definitions) and the working directory it is given in: a relative source names the unit's
    ``#line`` file and the records' ``at``, so it is part of the cache key.
  * :func:`build_all`: runs ``capture`` of each unit whose compile is not cached yet in a child process (``python -m
    cuteverify.frontend.trace.cpp_batch UNIT_JSON``) from the unit's working directory, ``jobs`` children at a
    time (default ``os.cpu_count()``), in the given order (put the slowest first); per unit it returns the wall
    seconds, whether the compile was already cached, the CPU seconds of its g++ and entry processes, and the
    outcome (``ok`` or the first error of a failed build: a failure is cached too, and the caller's capture
    reports it from the cache).

Admissibility: the children inherit the environment (``CUTEVERIFY_TEST_CACHE``, ``CUDA_HOME``, ``CXX``), so their
cache keys are the caller's; a unit must name a source that exists when :func:`build_all` runs (a mutant is
written first). With the cache off (``CUTEVERIFY_TEST_CACHE=0``) building ahead gains nothing: nothing runs.
Post-condition: for each unit, ``capture`` in the caller with the same arguments from the same working directory
finds its compile in the cache (unless the cache could not be written), so it only runs the entries.
"""
from __future__ import annotations

import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from ...errors import CaptureError, Planned
from . import cpp_build, cpp_capture

__all__ = ["Unit", "build_all"]


@dataclasses.dataclass(frozen=True)
class Unit:
    """One capture: ``cpp_capture.capture(source, entries, includes, defines, std=std)`` run from ``cwd`` (None:
    the caller's working directory)."""

    source: str
    entries: tuple
    includes: tuple = ()
    defines: tuple = ()
    cwd: str | None = None
    std: str | None = None


def _child(unit: Unit, timeout: float) -> dict:
    t = time.perf_counter()
    spec = json.dumps(dataclasses.asdict(unit))
    try:
        p = subprocess.run([sys.executable, "-m", __name__, spec], cwd=unit.cwd or os.getcwd(), capture_output=True,
                           text=True, timeout=timeout, check=False)
        last = (p.stdout.strip().splitlines() or ["{}"])[-1]
        out = json.loads(last) if last.startswith("{") else {}
        if not out:
            out = {"outcome": f"child exited {p.returncode}: {p.stderr.strip()[-300:]}", "cached": False}
    except subprocess.TimeoutExpired:
        out = {"outcome": f"timed out after {timeout:.0f} s", "cached": False}
    return {"unit": unit, "seconds": time.perf_counter() - t, **out}


def _cached(unit: Unit) -> bool:
    """Whether ``unit``'s capture would find its compile in the cache (the capture run under
    :func:`.cpp_build.planning` from the unit's working directory, in this thread)."""
    here = os.getcwd()
    try:
        os.chdir(unit.cwd or here)
        with cpp_build.planning():
            cpp_capture.capture(unit.source, list(unit.entries), unit.includes, unit.defines, std=unit.std)
    except Planned as p:
        return p.cached
    except (CaptureError, OSError):
        return False  # the child reports it
    finally:
        os.chdir(here)
    return False


def build_all(units, jobs: int | None = None, timeout: float = 1200) -> list:
    """Capture every unit of ``units`` in child processes, ``jobs`` at a time (None: ``os.cpu_count()``), so that
    their compiles land in the cache. Returns one dict per unit, in order: ``unit``, ``seconds`` (wall, the
    child's start to its end), ``cached`` (the compile was a hit already), ``cpu_s`` (user + system seconds of the
    child's g++ and entry processes), ``outcome`` (``ok``, ``cached``, or the reason the capture failed). A unit
    whose compile is in the cache already (:func:`.cpp_build.planning`) starts no child. Nothing runs (an
    empty list) when the cache is off or the toolchain is missing."""
    units = list(dict.fromkeys(units))
    if not units or cpp_build.cache_dir() is None or cpp_build.toolchain() is None:
        return []
    hit = {u: {"unit": u, "seconds": 0.0, "cached": True, "cpu_s": 0.0, "outcome": "cached"}
           for u in units if _cached(u)}
    todo = [u for u in units if u not in hit]
    with ThreadPoolExecutor(max_workers=max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))) as pool:
        built = dict(zip(todo, pool.map(lambda u: _child(u, timeout), todo)))
    return [hit.get(u) or built[u] for u in units]


def _main(spec: str) -> None:
    u = json.loads(spec)
    try:
        _, _, info = cpp_capture.capture(u["source"], list(u["entries"]), u["includes"], u["defines"],
                                         std=u.get("std"))
        out = {"outcome": "ok", "cached": info["cached"], "compile_s": info["compile_s"]}
    except CaptureError as e:
        out = {"outcome": str(e).splitlines()[0][:300], "cached": None}
    r = resource.getrusage(resource.RUSAGE_CHILDREN)  # g++ and the entries' runs: the load-independent cost
    print(json.dumps({**out, "cpu_s": r.ru_utime + r.ru_stime}))


if __name__ == "__main__":
    _main(sys.argv[1])
