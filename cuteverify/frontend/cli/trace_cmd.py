"""``cuteverify trace``: verify a CuTe DSL kernel from its own traced program (issue 28).

    cuteverify trace capture --arch sm_90a -o captures/ -- python my_kernel.py ARGS...
    cuteverify trace capture --arch sm_90a --stub-torch -- ~/fa4/bin/python fa4_driver.py

``capture`` runs the compile script in a subprocess with the DSL's CPU tracing on and writes one ``.mlir``
capture per ``cute.compile`` (cuteverify.frontend.trace.capture); it prints the files written, one a line
(``--json``: ``{"files": [...]}``). A script that fails, an interpreter without the DSL, a script that compiles
nothing: input errors (exit 2), the message quoting the script's last lines of stderr. ``check`` and ``manifest``
(``trace_check_cmd``) read captures; ``trace FILE.py`` (``run``) captures and checks; ``cpp`` (``trace_cpp_cmd``)
captures and checks a CUTLASS C++ source.
"""
from __future__ import annotations

import json
import os
import sys

import click

from cuteverify.frontend.trace.capture import ARCHES, DEFAULT_ARCH, DEFAULT_TIMEOUT, capture

from .common import guarded, json_option
from .trace_check_cmd import run_check, trace_check_cmd, trace_manifest_cmd
from .trace_cpp_cmd import trace_cpp_cmd


class _TraceGroup(click.Group):
    """``trace [OPTIONS] FILE.py ...`` is ``trace run [OPTIONS] FILE.py ...`` (capture, then check): arguments
    that do not start with a subcommand's name and name a ``.py`` script are a run."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and any(a.endswith(".py") for a in args):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group("trace", cls=_TraceGroup)
def trace_group():
    """Verify a CuTe DSL kernel from its own traced program: `trace capture`, `trace check`, `trace manifest`,
    or `trace FILE.py` for capture and check in one go."""


trace_group.add_command(trace_check_cmd)
trace_group.add_command(trace_manifest_cmd)
trace_group.add_command(trace_cpp_cmd)


def _shown(path) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


@trace_group.command("capture", context_settings={"ignore_unknown_options": True},
                     short_help="Trace a CuTe DSL compile script: one MLIR capture per cute.compile.")
@click.option("--arch", default=DEFAULT_ARCH, show_default=True, metavar="SM",
              help=f"The CuTe DSL target (CUTE_DSL_ARCH: {', '.join(ARCHES)}, ...); a kernel built for another "
                   "arch fails to trace.")
@click.option("-o", "--out", "out_dir", default="captures", show_default=True, metavar="DIR",
              help="Folder for the .mlir captures (created if missing).")
@click.option("--stub-torch", is_flag=True,
              help="Serve inert torch / triton stubs to the script (kernels that import torch only to load).")
@click.option("--timeout", default=DEFAULT_TIMEOUT, show_default=True, type=click.FloatRange(min=1),
              help="Seconds the script may run.")
@json_option
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@guarded
def capture_cmd(arch, out_dir, stub_torch, timeout, as_json, command):
    """Run COMMAND (`-- python my_kernel.py ARGS...` or `-- my_kernel.py ARGS...`) and capture every kernel it
    compiles: one MLIR file per cute.compile, with file, line and source text on every op.

    \b
    Exit codes: 0 captured, 2 usage or input error (the script failed, no DSL, no kernel compiled),
    4 internal error.
    """
    files = capture(list(command), arch=arch, out_dir=out_dir, stub_torch=stub_torch, timeout=timeout)
    if as_json:
        click.echo(json.dumps({"files": [str(p) for p in files], "arch": arch}))
    else:
        for p in files:
            click.echo(_shown(str(p)))


@trace_group.command("run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
                     short_help="Capture SCRIPT's kernels and check them (also: `trace SCRIPT.py`).")
@click.option("--arch", default=DEFAULT_ARCH, show_default=True, metavar="SM", help="The CuTe DSL target.")
@click.option("-o", "--out", "out_dir", default="captures", show_default=True, metavar="DIR",
              help="Folder for the .mlir captures.")
@click.option("--stub-torch", is_flag=True, help="Serve inert torch / triton stubs to the script.")
@click.option("--timeout", default=DEFAULT_TIMEOUT, show_default=True, type=click.FloatRange(min=1),
              help="Seconds the script may run.")
@click.option("--junit-xml", "junit", type=click.Path(dir_okay=False, writable=True), help="Write JUnit XML here.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, writable=True), help="Write the HTML report.")
@json_option
@click.option("-q", "--quiet", is_flag=True, help="Only the failures and the summaries.")
@click.argument("script")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@guarded
def run_cmd(arch, out_dir, stub_torch, timeout, junit, html_path, as_json, quiet, script, args):
    """Run SCRIPT (a CuTe DSL compile script, with ARGS) under `trace capture`, then `trace check` what it
    compiled. Exit codes as `trace check` (2 also when the script fails)."""
    files = capture([script, *args], arch=arch, out_dir=out_dir, stub_torch=stub_torch, timeout=timeout)
    sys.exit(run_check([str(p) for p in files], junit=junit, html_path=html_path, as_json=as_json, quiet=quiet))
