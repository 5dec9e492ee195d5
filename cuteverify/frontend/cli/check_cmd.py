"""``cuteverify check MANIFEST...``: run the claims of kernel manifests and print a summary table."""
from __future__ import annotations

import json
import os
import sys
import time

import click

from cuteverify.frontend import manifest as mf
from cuteverify.frontend.manifest.report import html_report

from .common import fail, guarded, json_option, style, tty

# the progress line waits this long before it appears (short runs print nothing) and redraws at most this often
_PROGRESS_DELAY_S, _PROGRESS_EVERY_S = 0.5, 0.1


def _progress_printer(enabled: bool):
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


def _clip(s, n):
    s = s.replace("\n", " ")
    return s if len(s) <= n else s[:n - 3] + "..."


def _print_rows(results):
    """One row per claim, grouped under its file's name; unexpected results coloured by status."""
    rows = [("", "kernel", "claim", "expect", "result", "ms")]
    for r in results:
        rows.append(("ok" if r["ok"] else "FAIL", r["kernel"], _clip(r["claim"], 70), r["expect"], r["status"],
                     f"{r['elapsed'] * 1e3:.1f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    cur = None
    for k, row in enumerate(rows):
        if k and results[k - 1]["file"] != cur:
            cur = results[k - 1]["file"]
            click.echo(click.style(cur, bold=True) if tty() else cur)
        line = "  ".join(c.ljust(widths[i]) if i != 5 else c.rjust(widths[i]) for i, c in enumerate(row)).rstrip()
        r = results[k - 1] if k else None
        if r is None or r["ok"]:
            click.echo(line)
        else:
            click.echo(style(line, r["status"] if r["status"] != "proved" else "refuted"))


def _print_failures(bad):
    click.echo("")
    click.echo("failures:")
    for r in bad:
        loc = f"{r['file']}:{r['line']}" if r.get("line") else r["file"]
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


def _print_table(results, total_s):
    _print_rows(results)
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


@click.command("check", help="Run every claim of the kernel manifests MANIFEST... (YAML; see "
               "specs/manifest_schema.json) and print a summary table.\n\n"
               "Every file is reported: a manifest that cannot be read is one error row (file, line,\n"
               "reason) and the claims of the other files still run.\n\n"
               "\b\nExit codes (the worst over all files and claims, 4 > 2 > 1 > 3 > 0):\n"
               "0 every claim as expected (proved, or refuted where `expect: refuted`),\n"
               "1 a claim refuted (or proved against `expect: refuted`), 2 a manifest or layout is malformed,\n"
               "3 otherwise (some claim unknown), 4 internal error.")
@click.argument("manifests", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes.")
@click.option("--junit-xml", "junit", type=click.Path(dir_okay=False, writable=True),
              help="Write JUnit XML here (linking to the --html page when both are given).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, writable=True),
              help="Write a self-contained HTML report here: every claim, its verdict and time, and the drawing "
                   "of each refuted layout with its counterexample outlined.")
@click.option("--progress/--no-progress", default=None, help="Progress line on stderr (default: when a TTY).")
@json_option
@click.option("-q", "--quiet", is_flag=True, help="Only the failures and the summary line.")
@guarded
def check_cmd(manifests, jobs, junit, html_path, progress, as_json, quiet):
    for out in (html_path, junit):  # refuse an unwritable place before the run, not after it
        if out and not os.path.isdir(os.path.dirname(os.path.abspath(out))):
            fail(f"cannot write {out}: no directory {os.path.dirname(os.path.abspath(out))}")
    t0 = time.perf_counter()
    if progress is None:
        try:
            progress = sys.stderr.isatty()
        except (AttributeError, ValueError):
            progress = False
    results, claims = mf.check_files(manifests, jobs=jobs, progress=_progress_printer(progress))
    total = time.perf_counter() - t0
    code = mf.exit_code(results)
    if html_path:
        _write(html_path, html_report(results, claims, total))
    if junit:
        link = os.path.relpath(html_path, os.path.dirname(os.path.abspath(junit)) or ".") if html_path else None
        _write(junit, mf.junit_xml(results, total, report=link))
    if as_json:
        errors = [{k: r.get(k) for k in ("file", "line", "column", "reason")} for r in results if r["kind"] == "load"]
        click.echo(json.dumps({"ok": code == 0, "exit_code": code, "elapsed": total, "results": results,
                               "errors": errors}, default=str))
    elif quiet:
        bad = [r for r in results if not r["ok"]]
        _print_table(bad, total) if bad else click.echo(f"{len(results)} claim(s) as expected ({total:.2f} s)")
    else:
        _print_table(results, total)
    sys.exit(code)


def _write(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        fail(f"cannot write {path}: {e.strerror or e}")


def register(group):
    """Add ``check`` to a click group."""
    group.add_command(check_cmd)
