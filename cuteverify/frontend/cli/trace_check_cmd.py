"""``cuteverify trace check CAPTURE...`` and ``cuteverify trace manifest CAPTURE -o FILE``: a CuTe DSL kernel's
capture checked, or written as the manifest that is checked (``cuteverify.frontend.trace``)."""
from __future__ import annotations

import sys
import time

import click

from cuteverify.frontend.trace.check import check_captures, document

from .check_cmd import check_writable, progress_option_value, progress_printer, render, report_options
from .common import fail, guarded

__all__ = ["trace_check_cmd", "trace_manifest_cmd", "kernel_summary", "run_check"]


def kernel_summary(results, docs=()) -> list:
    """Per kernel (capture; every one of ``docs``, even without rows): claims, proved, refuted, unknown,
    unmapped constructs, constructs with nothing to check (n/a), errors and seconds."""
    rows = {}

    def row(file, kernel):
        return rows.setdefault(file, {"kernel": kernel or file, "claims": 0, "proved": 0, "refuted": 0,
                                      "unknown": 0, "unmapped": 0, "n/a": 0, "error": 0, "seconds": 0.0})
    for d in docs:
        row(d.source, d.kernel)
    for r in results:
        k = row(r["file"], r.get("kernel"))
        if r["kind"] in ("unmapped", "note"):
            k["unmapped" if r["kind"] == "unmapped" else "n/a"] += 1
            continue
        k["seconds"] += r.get("elapsed") or 0.0
        if r["kind"] == "load":
            k["error"] += 1
            continue
        k["claims"] += 1
        k[r["status"] if r["status"] in ("proved", "refuted", "unknown") else "error"] += 1
    return list(rows.values())


def print_summary(rows):
    cols = ("kernel", "claims", "proved", "refuted", "unknown", "unmapped", "n/a", "error", "seconds")
    cells = [cols] + [tuple(f"{r[c]:.2f}" if c == "seconds" else str(r[c]) for c in cols) for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    click.echo("")
    for row in cells:
        click.echo("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)))


def run_check(paths, jobs=1, junit=None, html_path=None, as_json=False, quiet=False, verbose=False,
              progress=None) -> int:
    """Check the captures ``paths`` and print the results as ``check`` does, with a summary per kernel; the
    exit code."""
    check_writable(html_path, junit)
    t0 = time.perf_counter()
    results, claims, docs = check_captures(paths, jobs=jobs,
                                           progress=progress_printer(progress_option_value(progress)))
    summary = kernel_summary(results, docs)
    code = render(results, claims, time.perf_counter() - t0, junit=junit, html_path=html_path, as_json=as_json,
                  quiet=quiet, verbose=verbose, extra={"kernels": summary})
    if not as_json:
        print_summary(summary)
    return code


@click.command("check", help="Check CuTe DSL captures (CAPTURE...: .mlir / .mlir.gz files written by `cuteverify "
               "trace capture`, or directories of them; no DSL needed): every smem tensor, tiled MMA, tiled "
               "copy, TMA atom and layout-algebra op the kernel built, each result naming the source line "
               "that built it. A construct cuteverify cannot map is a row of its own (status unknown).\n\n"
               "\b\nExit codes (the worst, 4 > 2 > 1 > 3 > 0): 0 every claim proved, 1 a claim refuted,\n"
               "2 a capture that cannot be read, 3 something unknown or not mapped, 4 internal error.")
@click.argument("captures", nargs=-1, required=True, type=click.Path())
@report_options
@guarded
def trace_check_cmd(captures, jobs, junit, html_path, progress, as_json, quiet, verbose):
    sys.exit(run_check(captures, jobs, junit, html_path, as_json, quiet, verbose, progress))


@click.command("manifest", help="Write what the capture CAPTURE holds as a kernel manifest (YAML): every entry "
               "and claim `trace check` runs, each claim with `at:` (the source line), so that `cuteverify "
               "check`, the pytest plugin and `expect:` apply and a layout change shows up in review as a diff.")
@click.argument("capture", type=click.Path())
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write here (default: stdout).")
@guarded
def trace_manifest_cmd(capture, output):
    text = document(capture).yaml()
    if not output:
        click.echo(text, nl=False)
        return
    check_writable(output)
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        fail(f"cannot write {output}: {e.strerror or e}")
    click.echo(f"wrote {output}")
