"""What every command of the ``cuteverify`` CLI shares: error rendering and exit codes, the common options,
verdict printing and small argument parsers.

The CLI only parses arguments and renders results; every decision is the library's. Errors reach the user
through :func:`guarded`, the one place that turns an exception into a message and an exit code
(docs/model.md section 8): a ``CuteVerifyError`` exits with ``exit_code(error)`` (input 2, refuted 1,
undecided 3, internal 4); anything else is a bug and exits with 4. No traceback is printed unless ``--debug``
or ``CUTEVERIFY_DEBUG=1`` asks for one.

This module stays light (click and the base layers only) so that ``cuteverify --help`` starts quickly.
"""
from __future__ import annotations

import functools
import json
import os
import re
import sys
import traceback

import click

from cuteverify.core.notation.format import format_tuple, format_value
from cuteverify.core.notation.parse import as_assumptions, check_assumption_names, unknowns_notes
from cuteverify.core.notation.print_table import looks_like_table, parse_table
from cuteverify.errors import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_PROVED,
    EXIT_REFUTED,
    EXIT_UNKNOWN,
    CommandLineError,
    CuteVerifyError,
    exit_code,
)
from cuteverify.frontend.messages import user_text

EXIT_OK = EXIT_PROVED
EXIT_FOR = {"proved": EXIT_OK, "refuted": EXIT_REFUTED, "unknown": EXIT_UNKNOWN}
COLOURS = {"proved": "green", "refuted": "red", "unknown": "yellow", "error": "magenta"}
EXIT_HELP = "\b\nExit codes: 0 proved, 1 refuted, 2 usage or input error, 3 unknown, 4 internal error."

EXIT_BROKEN_PIPE = 141  # as a shell reports a process ended by SIGPIPE: outside the verdict codes on purpose
DEBUG_KEY = "cuteverify.debug"  # in click's ctx.meta, which every nested context shares

__all__ = ["EXIT_OK", "EXIT_REFUTED", "EXIT_INPUT", "EXIT_UNKNOWN", "EXIT_INTERNAL", "EXIT_FOR", "EXIT_HELP",
           "CommandLineError", "fail", "guarded", "tty", "style", "show", "emit", "report", "parse_params",
           "own_assumptions", "shared_assumptions", "check_names",
           "assume_option", "json_option", "verb", "text_input", "verdict_json", "echo_verdict"]


def fail(message: str):
    """Refuse the command's arguments: raises :class:`CommandLineError`, which :func:`guarded` renders
    (exit code 2)."""
    raise CommandLineError(message)


# ----------------------------------------------------------------------------------------------- errors

def _debugging() -> bool:
    if os.environ.get("CUTEVERIFY_DEBUG", "") not in ("", "0"):
        return True
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(DEBUG_KEY))


def _render_error(message: str, code: int, kind: str, as_json: bool):
    click.echo(f"error: {message}", err=True)
    if as_json:  # machines reading stdout get the error too
        click.echo(json.dumps({"error": message, "kind": kind, "exit_code": code}))
    sys.exit(code)


def guarded(fn):
    """Run a command; render its errors as one ``error:`` line (and a JSON object on stdout when the command
    has ``--json``) and exit with the error's code. Click's own exits and usage errors pass through."""

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        as_json = bool(kw.get("as_json"))
        try:
            return fn(*a, **kw)
        except CuteVerifyError as e:
            if _debugging():
                traceback.print_exc()
            _render_error(user_text(e), exit_code(e), e.kind, as_json)
        except (RecursionError, MemoryError) as e:  # hostile sizes no procedure refused in time: not a crash
            if _debugging():
                traceback.print_exc()
            _render_error(f"internal error: {type(e).__name__}: the input is too deep or too large for this "
                          "procedure", EXIT_INTERNAL, "internal", as_json)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except BrokenPipeError:  # the reader left (``| head``): nothing to report to, and no bug
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_BROKEN_PIPE)
        except Exception as e:  # noqa: BLE001 - the last resort: a bug, never a traceback by default
            if _debugging():
                traceback.print_exc()
                hint = ""
            else:
                hint = " (a bug in cuteverify; run with --debug or CUTEVERIFY_DEBUG=1 for the traceback)"
            _render_error(f"internal error: {type(e).__name__}: {e}{hint}", EXIT_INTERNAL, "internal", as_json)

    return wrapper


# --------------------------------------------------------------------------------------------- output

def tty() -> bool:
    """Is stdout a terminal (colour only then)?"""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def style(text: str, status: str) -> str:
    """``text`` coloured for a verdict ``status`` on a terminal, plain otherwise."""
    if not tty():
        return text
    return click.style(text, fg=COLOURS.get(status), bold=True)


def show(v):
    """A value as the CLI prints it: integers stay integers (JSON numbers), tuples in CuTe notation."""
    if isinstance(v, int):
        return v
    if isinstance(v, tuple):
        return format_tuple(v)
    return format_value(v)  # CuTe notation: never sympy's Mod / floor


def emit(info: dict, as_json: bool):
    """Print ``info`` as JSON or as ``key: value`` lines (lists space-separated, obligations one a line)."""
    if as_json:
        click.echo(json.dumps(info))
        return
    for k, v in info.items():
        if isinstance(v, list) and k in ("obligations", "notes"):
            click.echo(f"{k}:")
            for o in v:
                click.echo(f"  - {o}")
        elif isinstance(v, list):
            click.echo(f"{k}: " + " ".join(str(x) for x in v))
        else:
            click.echo(f"{k}: {v}")


def _verdict_lines(v):
    head = style(v.status.upper(), v.status)
    yield f"{head}: {v.claim}" if v.claim else head
    yield from (f"  note: {n}" for n in unknowns_notes(v))
    cex = str(v.counterexample) if v.counterexample is not None else None
    if cex is not None:
        yield f"  counterexample: {cex}"
    reason = _without_witness(v.reason, cex)
    if reason:
        yield f"  reason: {reason}"
    if v.obligations:
        yield "  under obligations:"
        yield from (f"    - {o}" for o in v.obligations)
    if getattr(v, "discharged", ()):
        yield "  discharged from the assumptions:"
        yield from (f"    - {o}" for o in v.discharged)
    method = f"{v.method}, " if v.method else ""
    yield f"  time: {method}{v.elapsed * 1e3:.1f} ms"


def _without_witness(reason, cex):
    """A verdict's reason as printed under its ``counterexample:`` line: a witness is said once. A reason that is
    the witness is dropped, and a clause ``RULE: witness`` of it (a rule list such as the TMA driver's) keeps only
    its rule's name."""
    if not reason or cex is None:
        return reason
    clauses = []
    for c in str(reason).split("; "):
        if c == cex:
            continue
        clauses.append(c[:-len(cex) - 2] if c.endswith(": " + cex) else c)
    return "; ".join(clauses)


def verdict_json(v, extra: dict | None = None) -> dict:
    """The JSON every verb with ``--json`` prints for a verdict: ``v.to_json()`` (status, what, method, the
    typed counterexample with its ``kind`` and ``text``, reason, obligations, notes, ...), the verb's ``extra``
    fields, and ``exit_code``."""
    d = v.to_json()
    d.update(extra or {})
    d["exit_code"] = EXIT_FOR[v.status]
    return d


def echo_verdict(v, as_json: bool, extra: dict | None = None, text: str | None = None):
    """Print a verdict (``verdict_json`` under ``--json``, else ``text`` or ``str(v)``) and exit with its code."""
    click.echo(json.dumps(verdict_json(v, extra), default=str) if as_json else (str(v) if text is None else text))
    sys.exit(EXIT_FOR[v.status])


def report(v, as_json: bool, extra: dict | None = None):
    """Print a prover verdict (``verdict_json`` under ``--json``, else the verdict's lines) and exit with the
    verdict's code."""
    if as_json:
        click.echo(json.dumps(verdict_json(v, extra), default=str))
    else:
        for line in _verdict_lines(v):
            click.echo(line)
    sys.exit(EXIT_FOR[v.status])


# ------------------------------------------------------------------------------------ argument parsers

def parse_params(items) -> dict:
    """``--param NAME=VALUE`` items -> ``{NAME: value}`` (a spec family's parameters). VALUE is an integer, or the
    name of an enum value as CUTLASS spells it (``a_major=MN``, ``b_major=UMMA::Major::K``: the last ``::`` part),
    passed through as a string for the family to map (:meth:`Spec.check_params` refuses a name it lacks)."""
    out = {}
    for item in items:
        if "=" not in item:
            fail(f"--param expects NAME=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = int(v)
            continue
        except ValueError:
            pass
        name = v.strip().rsplit("::", 1)[-1]
        if not name.isidentifier() or not all(part.isidentifier() for part in v.strip().split("::")):
            fail(f"--param {k.strip()}: expected an integer or an enum name (e.g. K, MN), got {v!r}")
        out[k.strip()] = name
    return out


def own_assumptions(assume):
    """``--assume`` items for a command with one layout: parsing checks that they name its symbols."""
    return list(assume) or None


def shared_assumptions(assume):
    """One ``Assumptions`` object for a command with several arguments: it may name a symbol of any of them
    (checked by :func:`check_names` once all are read)."""
    return as_assumptions(list(assume) or None)


def check_names(assumptions, things, text):
    """Shared assumptions must name only symbols that occur in at least one of ``things``."""
    if assumptions is None:
        return
    present = set()
    for t in things:
        fs = getattr(t, "free_symbols", None)
        present |= {s.name for s in (fs() if callable(fs) else (fs or ()))}
    check_assumption_names(assumptions, present, text)


# ------------------------------------------------------------------------------------- input forms

_STDIN_KEY = "cuteverify.stdin"  # ctx.meta: stdin is read once, by one argument


def _read_input(value: str, what: str) -> str:
    """``-`` -> stdin, ``@FILE`` -> the file, anything else as given; a pasted print_layout / print_latex
    table becomes the layout text it denotes (core/tables.py). ``click.BadParameter`` on failure, so that
    click reports it as the usage error it is (exit 2) before the command runs."""
    if value == "-":
        ctx = click.get_current_context(silent=True)
        if ctx is not None and ctx.meta.get(_STDIN_KEY):
            raise click.BadParameter(f"stdin was already read for {ctx.meta[_STDIN_KEY]}", param_hint=what)
        if ctx is not None:
            ctx.meta[_STDIN_KEY] = what
        text = sys.stdin.read()
    elif value.startswith("@") and len(value) > 1:
        path = value[1:]
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read(_MAX_INPUT + 1)
        except OSError as e:
            raise click.BadParameter(f"cannot read {path}: {e.strerror or e}", param_hint=what) from None
        except UnicodeDecodeError:
            raise click.BadParameter(f"{path} is not UTF-8 text", param_hint=what) from None
    elif "\n" in value:  # a table or a print pasted straight into the argument: read as from a file
        text = value
    else:
        _refuse_pasted_print(value, what)
        return value
    if len(text) > _MAX_INPUT:
        raise click.BadParameter(f"input longer than {_MAX_INPUT} characters", param_hint=what)
    _refuse_pasted_print(text, what)
    if looks_like_table(text):
        try:
            return str(parse_table(text))
        except CuteVerifyError as e:
            raise click.BadParameter(str(e) + _swizzled_table_hint(text), param_hint=what) from None
    return " ".join(text.split())


_PRINTED_OBJECT = re.compile(r"\b(TiledMMA|ThrLayoutVMNK|TiledCopy|TiledLayout_TV)\b")


def _refuse_pasted_print(text: str, what: str) -> None:
    """CuTe's ``print(tiled_mma)`` / ``print(tiled_copy)`` pasted where a layout goes: an input error saying
    which verb builds that object (a tiled MMA is built from its atom's name, not read from its print)."""
    m = _PRINTED_OBJECT.search(text)
    if m is None:
        return
    if m.group(1) in ("TiledCopy", "TiledLayout_TV"):
        tv = re.search(r"TiledLayout_TV:\s*(\S+)", text)
        use = f"`{tv.group(1)}` (its TiledLayout_TV line)" if tv else "its TiledLayout_TV line"
        raise click.BadParameter(f"this is a print(tiled_copy), not a layout; pass {use}, or check the copy "
                                 "with `cuteverify banks SMEM --access ...` / a manifest's `banks` claim",
                                 param_hint=what)
    atoms = re.search(r"ThrLayoutVMNK:\s*\(\s*[^,()]+,([^()]*?)\)\s*:", text)
    shape = "(" + ",".join(x.strip().lstrip("_") for x in atoms.group(1).split(",")) + ")" if atoms else "(AM,AN,AK)"
    raise click.BadParameter(f"this is a print(tiled_mma), not a layout; use `cuteverify tiled-mma ATOM "
                             f"--atom-layout \"{shape}\" [--permutation ...]` (ATOM: the MMA atom's CUTLASS name) "
                             "for its TV layouts, or pass one of its LayoutA_TV / LayoutB_TV / LayoutC_TV lines",
                             param_hint=what)


def _swizzled_table_hint(text: str) -> str:
    """print_layout of a swizzled layout prints the layout above its grid: that line is what to pass."""
    head = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not re.match(r"(Sw|S)<\d+,\d+,\d+>\s*o\s", head):
        return ""
    return (f"\n  hint: this is print_layout of the swizzled layout on its first line; pass that line, "
            f"\"{head}\" (every verb reads it; `cuteverify draw` draws its table)")


_MAX_INPUT = 1 << 22  # 4 MiB of layout text is no layout anybody wrote


def text_input(ctx, param, value):
    """click callback: read ``-`` / ``@FILE`` (and tables) for an argument or option, repeated or not;
    ``NAME=@FILE`` items of ``--let`` read the file for the value."""
    what = param.human_readable_name if param is not None else "input"
    if value is None:
        return None
    if isinstance(value, tuple):
        out = []
        for v in value:
            name, eq, rest = v.partition("=")
            out.append(f"{name}={_read_input(rest.strip(), what)}" if eq and param.name == "lets"
                       else _read_input(v, what))
        return tuple(out)
    return _read_input(value, what)


# -------------------------------------------------------------------------------------------- options

def assume_option(f):
    return click.option("--assume", "-a", multiple=True, metavar="COND",
                        help="An assumption on the symbols, e.g. 'M % 128 == 0' (repeatable).")(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Machine-readable output (JSON).")(f)


def verb(name, help_text):
    """A command whose help ends with the exit codes."""
    def deco(f):
        return click.command(name, help=(help_text + "\n\n" + EXIT_HELP))(f)
    return deco
