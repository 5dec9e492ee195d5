"""``cuteverify`` command line: a thin front end over the library.

Exit codes: 0 all claims proved (or the command succeeded); 1 at least one claim refuted; 2 usage or input
error; 3 none refuted but at least one unknown.
"""
from __future__ import annotations

import json
import sys

import click

EXIT_OK, EXIT_REFUTED, EXIT_INPUT, EXIT_UNKNOWN = 0, 1, 2, 3


def fail_input(message: str, as_json: bool = False):
    click.echo(f"error: {message}", err=True)
    if as_json:
        click.echo(json.dumps({"error": message, "exit_code": EXIT_INPUT}))
    sys.exit(EXIT_INPUT)


def guarded(fn):
    """Render library errors as messages with exit code 2, never as tracebacks."""
    import functools

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        from cuteverify.errors import CuteVerifyError
        as_json = bool(kw.get("as_json"))
        try:
            return fn(*a, **kw)
        except CuteVerifyError as e:
            fail_input(str(e), as_json)
        except (ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, RecursionError) as e:
            fail_input(f"{type(e).__name__}: {e}", as_json)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cuteverify")
def main():
    """cuteverify: check and prove CuTe layouts.

    \b
    Prove:   injective, surjective, bijective, equal, disjoint, agrees, prove
    Check:   check MANIFEST... (kernel manifests, -j N, --junit-xml, --json)
    Specs:   spec list | show NAME | check
    Compute: eval, algebra (and draw, fold, loops when installed)

    \b
    Exit codes: 0 proved / ok, 1 refuted, 2 usage or input error, 3 unknown.
    """


def _assume_option(f):
    return click.option("--assume", "-a", multiple=True, help="An assumption on symbols, e.g. 'M % 128 == 0'.")(f)


@main.command("eval")
@click.argument("layout")
@click.argument("coord", required=False)
@_assume_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@guarded
def eval_cmd(layout, coord, assume, as_json):
    """Evaluate LAYOUT at COORD (an integer or a coordinate such as (1,(0,2))); without COORD, print
    its size, cosize and values."""
    import cuteverify as cv
    L = cv.parse(layout, assume=list(assume) or None, source="LAYOUT")
    if coord is None:
        info = {"layout": str(L), "size": _s(cv.size(L)), "rank": cv.rank(L), "depth": cv.depth(L)}
        if L.is_concrete:
            info["cosize"] = _s(cv.cosize(L))
            if cv.size(L) <= 4096:
                info["values"] = [_s(v) for v in L.values()]
        _emit(info, as_json)
        return
    c = cv.parse_tuple(coord, source="COORD")
    v = L(c)
    _emit({"layout": str(L), "coord": coord, "value": _s(v)}, as_json)


@main.command("algebra")
@click.argument("expression")
@click.option("--let", "lets", multiple=True, help="Bind a name: --let A='(4,8):(1,4)'.")
@_assume_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@guarded
def algebra_cmd(expression, lets, assume, as_json):
    """Evaluate an algebra EXPRESSION, e.g. "composition((6,2):(8,2), (4,3):(3,1))"."""
    from cuteverify.algebra.expr import evaluate
    bindings = {}
    for item in lets:
        if "=" not in item:
            fail_input(f"--let expects NAME=LAYOUT, got {item!r}")
        k, v = item.split("=", 1)
        bindings[k.strip()] = v
    r = evaluate(expression, bindings, assume=list(assume) or None)
    out = {"expression": expression, "result": _s(r)}
    obs = getattr(r, "obligations", ())
    if obs:
        out["obligations"] = [str(o) for o in obs]
    _emit(out, as_json)


def _s(v):
    from cuteverify.core.format import format_tuple
    if isinstance(v, int):
        return v
    if isinstance(v, tuple):
        return format_tuple(v)
    return str(v)


def _emit(info: dict, as_json: bool):
    if as_json:
        click.echo(json.dumps(info))
        return
    for k, v in info.items():
        if isinstance(v, list) and k == "obligations":
            click.echo("obligations:")
            for o in v:
                click.echo(f"  - {o}")
        elif isinstance(v, list):
            click.echo(f"{k}: " + " ".join(str(x) for x in v))
        else:
            click.echo(f"{k}: {v}")


def _register_all(group):
    """Attach the verbs (cli/verbs.py) and the optional command modules; a module that is missing or fails
    to import leaves the rest of the CLI working."""
    import importlib
    for name in ("verbs", "draw_cmd", "fold_cmd", "banks_cmd"):
        try:
            mod = importlib.import_module(f"{__package__ or 'cuteverify.cli'}.{name}")
        except ImportError:
            continue
        reg = getattr(mod, "register", None)
        if reg is not None:
            reg(group)


_register_all(main)


if __name__ == "__main__":  # pragma: no cover
    main()
