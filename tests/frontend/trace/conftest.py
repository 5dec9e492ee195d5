"""The C++ trace tests' translation units, built ahead and in parallel (issue 29: the whole C++ trace suite <= 8
minutes of CI time on 2 cores, from a cold cache).

Each test module that captures C++ defines ``cpp_units()``: its differential tests' names mapped to the
``cpp_batch.Unit`` s they capture. Before the first test of this folder runs, the session fixture below collects the
units of the selected differential tests and builds them all with ``cpp_batch.build_all`` (``os.cpu_count()``
g++ processes at a time, the slowest first); the tests' own captures then hit cpp_build's content-hash cache and
only run the entries. A unit missing from ``cpp_units()`` is still captured by its test, one after the other:
slower, never wrong. Nothing is built when no such test is selected (``-m "not differential"``), the cache is
off, or g++ / the headers are missing. The terminal summary says what was built and how long it took.
"""
from __future__ import annotations

import os
import time

import pytest

from cuteverify.frontend.trace import cpp_batch

_REPORT = []


def _cost(unit) -> int:
    """The order of the build: sources with more text first (the Hopper / Blackwell tutorials take the longest;
    the small stage programs the least), and a unit with more entries instantiates more."""
    path = unit.source if os.path.isabs(unit.source) or unit.cwd is None else os.path.join(unit.cwd, unit.source)
    try:
        return os.path.getsize(path) * (1 + len(unit.entries))
    except OSError:
        return 0


@pytest.fixture(scope="session", autouse=True)
def cpp_units_built(request):
    """Build the translation units of the selected differential C++ trace tests ahead, in parallel."""
    names, makers = {}, {}
    for item in request.session.items:
        module = getattr(item, "module", None)
        make = getattr(module, "cpp_units", None)
        if make is not None and item.get_closest_marker("differential") is not None:
            makers[module.__name__] = make
            names.setdefault(module.__name__, set()).add(getattr(item, "originalname", item.name))
    units = []
    for mod, make in makers.items():
        for test, us in make().items():
            if test in names[mod]:
                units += us
    if not units:
        return
    t = time.perf_counter()
    jobs = os.cpu_count() or 1
    done = cpp_batch.build_all(sorted(dict.fromkeys(units), key=_cost, reverse=True), jobs=jobs)
    _REPORT.append((done, jobs, time.perf_counter() - t))


def _two_cores(cpu) -> float:
    """The wall seconds the builds would take on 2 idle cores: their CPU seconds in build_all's order, each to
    the core that frees first (as its 2 workers take them)."""
    cores = [0.0, 0.0]
    for c in cpu:
        cores[cores.index(min(cores))] += c
    return max(cores)


def pytest_terminal_summary(terminalreporter):
    for done, jobs, wall in _REPORT:
        cpu = [d.get("cpu_s", 0.0) for d in done]
        hit = sum(d.get("cached") is True for d in done)
        failed = sum(d.get("outcome") not in ("ok", "cached") for d in done)  # a build expected to fail, or broken
        terminalreporter.write_line(
            f"C++ trace units built ahead: {len(done)} ({hit} already cached, {failed} failed builds) in {wall:.0f} s, "
            f"{jobs} at a time; slowest " + ", ".join(
                f"{os.path.basename(d['unit'].source)} {d['seconds']:.0f} s"
                for d in sorted(done, key=lambda d: -d["seconds"])[:3])
            + f"; {sum(cpu):.0f} CPU s (g++ and entries), {_two_cores(cpu):.0f} s on 2 idle cores")
