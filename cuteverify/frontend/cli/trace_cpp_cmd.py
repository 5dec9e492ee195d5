"""``cuteverify trace cpp FILE.cu --entry NAME [-I DIR] [-D X] [--compile-commands compile_commands.json]``: a
CUTLASS C++ kernel verified from its own source (issue 29): host-only capture with g++
(cuteverify.frontend.trace.cpp_capture; the flags of FILE's compilation-database entry from
cuteverify.frontend.trace.cpp_commands), each launch's arguments read and checked as manifest claims
(cuteverify.frontend.trace.cpp_check), printed as ``trace check`` prints."""
from __future__ import annotations

import sys
import time

import click
import yaml

from cuteverify.frontend.trace.cpp_check import check_cpp
from cuteverify.frontend.trace.cpp_collective_sm90 import check_collective
from cuteverify.frontend.trace.cpp_commands import entry_flags

from .check_cmd import check_writable, progress_option_value, progress_printer, render
from .common import guarded, json_option
from .trace_check_cmd import print_summary, kernel_summary

__all__ = ["trace_cpp_cmd", "manifest_text"]


def manifest_text(docs) -> str:
    """One manifest (YAML) of every launch's document: their kernels side by side, headed by each one's
    unmapped constructs and notes as comments."""
    kernels, head = {}, []
    for d in docs:
        kernels[d.kernel] = d.to_manifest()["kernels"][d.kernel]
        head += [f"# {d.kernel}: not checked: {u}" for u in d.unknowns]
        head += [f"# {d.kernel}: nothing to check: {u}" for u in d.notes]
    src = docs[0].source if docs else ""
    body = {"version": 1, "description": f"traced from {src} by `cuteverify trace cpp`", "kernels": kernels}
    return "\n".join([f"# written by `cuteverify trace cpp` from {src}", *head]) + "\n" + \
        yaml.safe_dump(body, sort_keys=False, width=120, allow_unicode=True)


@click.command("cpp", help="Verify a CUTLASS C++ kernel from its source FILE (.cu): build it host-only with g++ "
               "against CUTLASS's and CUDA's headers (each `kernel<<<...>>>(args)` rewritten to print its "
               "arguments), run each --entry in its own process, and check every launch argument (smem "
               "layouts, tiled MMAs, tiled copies, copy atoms) with the claims `trace check` uses; each result "
               "names the launch (FILE:LINE) and the argument. Compiles are cached by content.\n\n"
               "\b\nExit codes (the worst, 4 > 2 > 1 > 3 > 0): 0 every claim proved, 1 a claim refuted,\n"
               "2 the host build failed or bad input, 3 something unknown or not mapped, 4 internal error.")
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--entry", "entries", multiple=True, metavar="NAME",
              help="A host function to run, every template argument given (`gemm_tn<cute::half_t, "
                   "cute::half_t>`); it is called with value-initialised arguments. Or a call expression "
                   "`f(args...)`, run as written (real problem sizes for a host that asserts on empty ones). "
                   "Repeatable.")
@click.option("--collective", metavar="TYPE", help="Instead of launches: the SM90 collective TYPE (a struct of FILE, "
              "every template argument given) verified from its type members, host-built TMA atoms and member "
              "functions (FlashAttention-3's mainloop).")
@click.option("--host-args", metavar="INIT", help="With --collective: the braced initializer of its Arguments "
              "for to_underlying_arguments (real problem sizes: make_tma_copy asserts on empty extents).")
@click.option("--include-first", "include_first", multiple=True, metavar="HEADER",
              help="With --collective: a header included before FILE (as the project's own include order does).")
@click.option("-I", "includes", multiple=True, metavar="DIR", help="An include directory. Repeatable.")
@click.option("-D", "defines", multiple=True, metavar="X[=V]", help="A preprocessor definition. Repeatable.")
@click.option("--compile-commands", "compile_commands", type=click.Path(exists=True, dir_okay=False),
              metavar="JSON", help="A compilation database (compile_commands.json): the -I, -D and -std of SOURCE's "
                                   "entry are used (-I given here searched first, -D given here last).")
@click.option("--manifest", "manifest", type=click.Path(dir_okay=False, writable=True),
              help="Also write the launches' manifest (YAML) here.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
@click.option("--junit-xml", "junit", type=click.Path(dir_okay=False, writable=True), help="Write JUnit XML here.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, writable=True), help="Write the HTML report.")
@click.option("--progress/--no-progress", default=None, help="Progress line on stderr (default: when a TTY).")
@json_option
@click.option("-q", "--quiet", is_flag=True, help="Only the failures and the summaries.")
@click.option("-v", "--verbose", is_flag=True, help="Under each claim, what its kind establishes.")
@guarded
def trace_cpp_cmd(source, entries, collective, host_args, include_first, includes, defines, compile_commands, manifest,
                  jobs, junit, html_path, progress, as_json, quiet, verbose):
    check_writable(html_path, junit)
    std = None
    if compile_commands:
        db = entry_flags(compile_commands, source)
        includes, defines, std = (*includes, *db.includes), (*db.defines, *defines), db.std
    if manifest:
        check_writable(manifest)
    t0 = time.perf_counter()
    printer = progress_printer(progress_option_value(progress))
    if collective:
        results, claims, docs, info = check_collective(source, collective, host_args, includes, defines,
                                                       include_first, jobs=jobs, progress=printer)
    else:
        results, claims, docs, info = check_cpp(source, list(entries), includes, defines, jobs=jobs, progress=printer,
                                                std=std)
    if manifest:
        with open(manifest, "w", encoding="utf-8") as f:
            f.write(manifest_text(docs))
    # one row per launch document: they share the source file, which kernel_summary keys captures by
    summary = [row for d in docs for row in kernel_summary([r for r in results if r.get("kernel") == d.kernel], [d])]
    capture = {"compile_s": round(info["compile_s"], 2), "cached": info["cached"], "entries": info["entries"]}
    code = render(results, claims, time.perf_counter() - t0, junit=junit, html_path=html_path, as_json=as_json,
                  quiet=quiet, verbose=verbose, extra={"kernels": summary, "capture": capture})
    if not as_json:
        print_summary(summary)
        click.echo(f"host build: {info['compile_s']:.1f} s{' (cached)' if info['cached'] else ''}; "
                   f"entries: " + ", ".join(f"{k} (exit {v['returncode']}, {v['records']} arguments)"
                                            for k, v in info["entries"].items()))
    sys.exit(code)
