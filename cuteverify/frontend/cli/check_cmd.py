"""``cuteverify check MANIFEST...``: run the claims of kernel manifests and print a summary table."""
from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
import time

import click

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.manifest.report import html_report

from .common import fail, guarded, json_option, style, tty

# the progress line waits this long before it appears (short runs print nothing) and redraws at most this often
_PROGRESS_DELAY_S, _PROGRESS_EVERY_S = 0.5, 0.1


def progress_printer(enabled: bool):
    if not enabled:
        return None
    t0 = time.perf_counter()
    state = {"last": 0.0}

    def progress(done, total):
        now = time.perf_counter()
        if done < total and (now - t0 < _PROGRESS_DELAY_S or now - state["last"] < _PROGRESS_EVERY_S):
            return
        state["last"] = now
        rate = done / max(now - t0, 1e-9)
        sys.stderr.write(f"\r[{done}/{total}] {rate:.0f} claims/s")
        if done == total:
            sys.stderr.write("\r" + " " * 40 + "\r")
        sys.stderr.flush()

    return progress


#: what a claim of each kind establishes, and why a kernel author cares (``check -v``)
MEANINGS = {
    "bijective": "a permutation of [0, size): every element stored exactly once, none shared, none left out",
    "injective": "distinct coordinates reach distinct elements: no two (thread, value) pairs write one element",
    "surjective": "every element of [0, N) is reached: no element of the buffer is left unread or unwritten",
    "equal": "the two layouts are the same function at every coordinate: either may replace the other",
    "disjoint": "the layout and its complement never meet and together cover [0, M): the tiles partition it",
    "agrees": "every (thread, value) sits where the instruction's PTX formula puts it: the MMA / copy reads "
              "and writes the elements the layout says",
    "prove": "the stated property holds for every value of the symbols allowed by the assumptions",
    "covers": "the TV layout reaches each element of its tile exactly once: nothing computed twice or skipped",
    "compatible": "the copy leaves in each thread's registers exactly the values the MMA reads there",
    "banks": "the exact shared-memory bank-conflict degree of the access (the wavefronts a warp request costs)",
    "vector": "each thread's values are contiguous and aligned at the stated width: the copy issues wide "
              "loads / stores",
    "operand": "the wgmma / UMMA descriptor of every K block reads the smem tile as the declared major-ness",
    "tma": "cuTensorMapEncodeTiled accepts the descriptor make_tma_copy derives, for every allowed size",
    "triton": "Triton's layout attribute and the CuTe layout give each thread the same elements",
    "smem_optimal": "no layout of the synthesis space has fewer bank conflicts or wider vectors on these copies",
}


def _claim_width(rows) -> int:
    """The claim column's width: the terminal's columns left by the other columns (a claim longer than that
    wraps onto continuation lines: it is never cut)."""
    longest = max(len(row[2]) for row in rows)
    others = sum(max(len(row[i]) for row in rows) for i in (0, 1, 3, 4, 5)) + 2 * 5
    return max(min(longest, shutil.get_terminal_size((120, 24)).columns - others - 1), 30)


def _wrapped(text, width):
    return textwrap.wrap(" ".join(str(text).split()), width, break_long_words=False, break_on_hyphens=False) or [""]


def _source_line(at: str) -> str:
    """``dir/file.py:123: source`` -> ``file.py:123`` (the table's column; failures print it whole)."""
    head = at.split(": ", 1)[0]
    return head.rsplit("/", 1)[-1]


def _print_rows(results, verbose=False):
    """One row per claim, grouped under its file's name; unexpected results coloured by status; a claim wider
    than its column continues on the next lines; ``verbose``: each claim's meaning under it."""
    traced = any(r.get("at") for r in results)  # a traced kernel: say where its source built each object
    rows = [("", "source line" if traced else "kernel", "claim", "expect", "result", "ms")]
    for r in results:
        where = _source_line(r["at"]) if r.get("at") else r["kernel"]
        rows.append(("ok" if r["ok"] else "FAIL", where, " ".join(str(r["claim"]).split()), r["expect"],
                     r["status"], f"{r['elapsed'] * 1e3:.1f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    widths[2] = _claim_width(rows)
    indent = " " * (widths[0] + widths[1] + 4)
    cur = None
    for k, row in enumerate(rows):
        if k and results[k - 1]["file"] != cur:
            cur = results[k - 1]["file"]
            click.echo(click.style(cur, bold=True) if tty() else cur)
        parts = _wrapped(row[2], widths[2])
        first = (*row[:2], parts[0], *row[3:])
        lines = ["  ".join(c.ljust(widths[i]) if i != 5 else c.rjust(widths[i]) for i, c in enumerate(first)).rstrip()]
        lines += [indent + p for p in parts[1:]]
        r = results[k - 1] if k else None
        if verbose and r is not None and r.get("kind") in MEANINGS:
            how = f" [{r['method']}]" if r.get("method") else ""
            lines.append(f"{indent}  {r['kind']}: {MEANINGS[r['kind']]}{how}")  # one line: grep finds it whole
        for line in lines:
            if r is None or r["ok"]:
                click.echo(line)
            else:
                click.echo(style(line, r["status"] if r["status"] != "proved" else "refuted"))


def _print_failures(bad):
    click.echo("")
    click.echo("failures:")
    for r in bad:
        loc = f"{r['file']}:{r['line']}" if r.get("line") else r["file"]
        if r.get("at"):  # a traced claim: the kernel's own source line that built its objects
            loc = r["at"]
        if r.get("kind") == "load":  # the file's own error, with its column; none of its claims ran
            loc += f":{r['column']}" if r.get("line") and r.get("column") else ""
            click.echo(f"  {loc}: error: " + str(r["reason"]).replace("\n", "\n    "))
            continue
        click.echo(f"  {loc}: [{r['kernel']}] {r['claim']}: expected {r['expect']}, got {r['status']}")
        for n in r.get("notes") or ():
            click.echo(f"    note: {n}")
        if r.get("counterexample"):
            click.echo(f"    counterexample: {r['counterexample']['text']}")
        if r.get("reason"):
            click.echo(f"    reason: {r['reason']}")
        for o in r.get("obligations") or ():
            click.echo(f"    obligation: {o['text']}")


def _print_table(results, total_s, verbose=False):
    _print_rows(results, verbose)
    bad = [r for r in results if not r["ok"]]
    if bad:
        _print_failures(bad)
    claims = [r for r in results if r.get("kind") != "load"]
    broken = len(results) - len(claims)
    n, nbad = len(claims), sum(1 for r in claims if not r["ok"])
    files = len({r["file"] for r in results})
    counts = {s: sum(1 for r in claims if r["status"] == s) for s in ("proved", "refuted", "unknown", "error")}
    summary = (f"{n} claim(s) in {files} file(s): {n - nbad} as expected, {nbad} not; "
               + ", ".join(f"{v} {k}" for k, v in counts.items() if v)
               + (f"; {broken} file(s) not loaded" if broken else "") + f"  ({total_s:.2f} s)")
    click.echo(style(summary, "proved" if not bad else "refuted"))


def report_options(f):
    """The options ``check`` and ``trace check`` share: workers, JUnit, HTML, progress, JSON, quiet, verbose."""
    for opt in reversed((
            click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
                         help="Worker processes."),
            click.option("--junit-xml", "junit", type=click.Path(dir_okay=False, writable=True),
                         help="Write JUnit XML here (linking to the --html page when both are given)."),
            click.option("--html", "html_path", type=click.Path(dir_okay=False, writable=True),
                         help="Write a self-contained HTML report here: every claim, its verdict and time, and the "
                              "drawing of each refuted layout with its counterexample outlined."),
            click.option("--progress/--no-progress", default=None,
                         help="Progress line on stderr (default: when a TTY)."),
            json_option,
            click.option("-q", "--quiet", is_flag=True, help="Only the failures and the summary line."),
            click.option("-v", "--verbose", is_flag=True,
                         help="Under each claim, what its kind establishes (and by which method).")),):
        f = opt(f)
    return f


@click.command("check", help="Run every claim of the kernel manifests MANIFEST... (YAML; see "
               "specs/manifest_schema.json) and print a summary table.\n\n"
               "Every file is reported: a manifest that cannot be read is one error row (file, line,\n"
               "reason) and the claims of the other files still run.\n\n"
               "\b\nExit codes (the worst over all files and claims, 4 > 2 > 1 > 3 > 0):\n"
               "0 every claim as expected (proved, or refuted where `expect: refuted`),\n"
               "1 a claim refuted (or proved against `expect: refuted`), 2 a manifest or layout is malformed,\n"
               "3 otherwise (some claim unknown), 4 internal error.")
@click.argument("manifests", nargs=-1, required=True, type=click.Path(dir_okay=False))
@report_options
@guarded
def check_cmd(manifests, jobs, junit, html_path, progress, as_json, quiet, verbose):
    check_writable(html_path, junit)
    t0 = time.perf_counter()
    progress = progress_option_value(progress)
    results, claims = mf.check_files(manifests, jobs=jobs, progress=progress_printer(progress))
    sys.exit(render(results, claims, time.perf_counter() - t0, junit=junit, html_path=html_path, as_json=as_json,
                    quiet=quiet, verbose=verbose))


def check_writable(*paths):
    """Refuse an output file whose directory does not exist, before a run rather than after it."""
    for out in paths:
        if out and not os.path.isdir(os.path.dirname(os.path.abspath(out))):
            fail(f"cannot write {out}: no directory {os.path.dirname(os.path.abspath(out))}")


def progress_option_value(progress):
    """``--progress/--no-progress`` resolved: the given value, else whether stderr is a terminal."""
    if progress is not None:
        return progress
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def render(results, claims, total, *, junit=None, html_path=None, as_json=False, quiet=False, verbose=False,
           extra=None) -> int:
    """Print the result rows of ``check`` (or ``trace check``) as a table, ``--json`` or ``-q``; write the
    HTML report and JUnit XML when asked; return the exit code. ``extra``: more fields of the JSON object."""
    code = mf.exit_code(results)
    total = float(total)
    if html_path:
        _write(html_path, html_report(results, claims, total))
    if junit:
        link = os.path.relpath(html_path, os.path.dirname(os.path.abspath(junit)) or ".") if html_path else None
        _write(junit, mf.junit_xml(results, total, report=link))
    if as_json:
        errors = [{k: r.get(k) for k in ("file", "line", "column", "reason")} for r in results if r["kind"] == "load"]
        click.echo(json.dumps({"ok": code == 0, "exit_code": code, "elapsed": total, "results": results,
                               "errors": errors, **(extra or {})}, default=str))
    elif quiet:
        bad = [r for r in results if not r["ok"]]
        _print_table(bad, total, verbose) if bad else click.echo(f"{len(results)} claim(s) as expected ({total:.2f} s)")
    else:
        _print_table(results, total, verbose)
    return code


def _write(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        fail(f"cannot write {path}: {e.strerror or e}")


def register(group):
    """Add ``check`` to a click group."""
    group.add_command(check_cmd)
