"""The prover's verbs: injective, surjective, bijective, equal, disjoint, agrees, prove, spec, check.

Every verb reads CuTe notation (symbols allowed, with ``--assume``), prints the verdict, the counterexample in
the layout's own coordinates, the obligations and the time (``--json`` for machines) and exits with
0 proved / 1 refuted / 2 input error / 3 unknown. Heavy modules (sympy, z3, yaml, jsonschema) load inside
the commands so ``cuteverify --help`` stays fast.
"""
from __future__ import annotations

import functools
import json
import sys
import time

import click

EXIT_OK, EXIT_REFUTED, EXIT_INPUT, EXIT_UNKNOWN = 0, 1, 2, 3
EXIT_FOR = {"proved": EXIT_OK, "refuted": EXIT_REFUTED, "unknown": EXIT_UNKNOWN}
COLOURS = {"proved": "green", "refuted": "red", "unknown": "yellow", "error": "magenta"}

EXIT_HELP = "\b\nExit codes: 0 proved, 1 refuted, 2 usage or input error, 3 unknown."


def _fail(message: str, as_json: bool = False):
    click.echo(f"error: {message}", err=True)
    if as_json:
        # machines reading stdout get the error too
        click.echo(json.dumps({"error": message, "exit_code": EXIT_INPUT}))
    sys.exit(EXIT_INPUT)


def _guard(fn):
    """Input errors -> message + exit 2; never a traceback."""

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        from cuteverify.errors import CuteVerifyError
        as_json = bool(kw.get("as_json"))
        try:
            return fn(*a, **kw)
        except (CuteVerifyError, KeyError) as e:
            _fail(str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e), as_json)
        except (ValueError, TypeError, IndexError, ZeroDivisionError, RecursionError) as e:
            _fail(f"{type(e).__name__}: {e}", as_json)

    return wrapper


def _tty() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _style(text: str, status: str) -> str:
    if not _tty():
        return text
    return click.style(text, fg=COLOURS.get(status), bold=True)


def _parse(text: str, assume, source: str, shared: bool = False):
    """Parse CuTe text. With ``shared`` the assumptions may name symbols of other arguments too."""
    import cuteverify as cv
    asm = list(assume) or None
    if shared and asm:
        from cuteverify.core.parse import _assumptions
        asm = _assumptions(asm)
    return cv.parse(text, assume=asm, source=source)


def _check_names(assumptions, things, text):
    """Shared assumptions must name symbols of at least one of the arguments."""
    if assumptions is None:
        return
    from cuteverify.core.parse import check_assumption_names
    present = set()
    for t in things:
        fs = getattr(t, "free_symbols", None)
        present |= {s.name for s in (fs() if callable(fs) else (fs or ()))}
    check_assumption_names(assumptions, present, text)


def _num(x):
    if x is None:
        return None
    s = str(x).strip()
    try:
        return int(s)
    except ValueError:
        from cuteverify.symbolic import parse_expr
        parse_expr(s)  # raises ParseError on nonsense
        return s


def _run_verdict(thunk, claim: str):
    """Call the prover; a crash inside it becomes an unknown verdict, not a traceback."""
    from cuteverify.errors import CuteVerifyError
    from cuteverify.prover.verdict import Verdict
    t0 = time.perf_counter()
    try:
        return thunk()
    except CuteVerifyError:
        raise
    except Exception as e:  # noqa: BLE001
        return Verdict("unknown", claim=claim, method="", reason=f"internal error: {type(e).__name__}: "
                       f"{str(e)[:300]}", elapsed=time.perf_counter() - t0)


def _report(v, as_json: bool, extra: dict | None = None):
    """Print a verdict and exit with its code."""
    if as_json:
        d = v.to_dict()
        cex = v.counterexample
        if cex is not None:
            d["counterexample_text"] = str(cex)
        if extra:
            d.update(extra)
        d["exit_code"] = EXIT_FOR[v.status]
        click.echo(json.dumps(d, default=str))
    else:
        head = _style(v.status.upper(), v.status)
        click.echo(f"{head}: {v.claim}" if v.claim else head)
        if v.counterexample is not None:
            click.echo(f"  counterexample: {v.counterexample}")
        if v.reason:
            click.echo(f"  reason: {v.reason}")
        if v.obligations:
            click.echo("  under obligations:")
            for o in v.obligations:
                click.echo(f"    - {o}")
        if getattr(v, "discharged", ()):
            click.echo("  discharged from the assumptions:")
            for o in v.discharged:
                click.echo(f"    - {o}")
        method = f"{v.method}, " if v.method else ""
        click.echo(f"  time: {method}{v.elapsed * 1e3:.1f} ms")
    sys.exit(EXIT_FOR[v.status])


def _assume_option(f):
    return click.option("--assume", "-a", multiple=True, metavar="COND",
                        help="An assumption on the symbols, e.g. 'M % 128 == 0' (repeatable).")(f)


def _json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")(f)


def _verb(name, help_text):
    def deco(f):
        return click.command(name, help=(help_text + "\n\n" + EXIT_HELP))(f)
    return deco


# ------------------------------------------------------------------------------------------ verbs

@_verb("injective", "Is LAYOUT injective: distinct coordinates of [0, size) map to distinct values?")
@click.argument("layout")
@_assume_option
@_json_option
@_guard
def injective_cmd(layout, assume, as_json):
    from cuteverify.prover import is_injective
    L = _parse(layout, assume, "LAYOUT")
    _report(_run_verdict(lambda: is_injective(L), f"injective({L})"), as_json)


@_verb("surjective", "Does LAYOUT reach every value of [0, N) (default N = cosize)?")
@click.argument("layout")
@click.option("--codomain", metavar="N", help="The codomain size (an integer or an expression in the symbols).")
@_assume_option
@_json_option
@_guard
def surjective_cmd(layout, codomain, assume, as_json):
    from cuteverify.prover import is_surjective
    L = _parse(layout, assume, "LAYOUT")
    cd = _num(codomain)
    _report(_run_verdict(lambda: is_surjective(L, cd), f"surjective({L})"), as_json)


@_verb("bijective", "Is LAYOUT a bijection onto [0, size)?")
@click.argument("layout")
@_assume_option
@_json_option
@_guard
def bijective_cmd(layout, assume, as_json):
    from cuteverify.prover import is_bijective
    L = _parse(layout, assume, "LAYOUT")
    _report(_run_verdict(lambda: is_bijective(L), f"bijective({L})"), as_json)


@_verb("equal", "Are A and B the same function on [0, size)?")
@click.argument("a")
@click.argument("b")
@_assume_option
@_json_option
@_guard
def equal_cmd(a, b, assume, as_json):
    from cuteverify.prover import are_equal
    A, B = _parse(a, assume, "A", shared=True), _parse(b, assume, "B", shared=True)
    _check_names(A.assumptions, (A, B), f"{a} == {b}")
    _report(_run_verdict(lambda: are_equal(A, B), f"{A} == {B}"), as_json)


@_verb("disjoint", "Do A and complement(A, M) meet only at 0 and together cover [0, M)?")
@click.argument("a")
@click.option("--cotarget", "-m", metavar="M", help="The cotarget M (default cosize(A)); integer or expression.")
@_assume_option
@_json_option
@_guard
def disjoint_cmd(a, cotarget, assume, as_json):
    from cuteverify.prover import complement_disjoint
    A = _parse(a, assume, "A", shared=cotarget is not None)
    m = _num(cotarget)
    if cotarget is not None:
        from cuteverify.symbolic import parse_expr
        _check_names(A.assumptions, (A, parse_expr(str(m))), a)
    _report(_run_verdict(lambda: complement_disjoint(A, m), f"disjoint({A})"), as_json)


def _params(items):
    out = {}
    for item in items:
        if "=" not in item:
            _fail(f"--param expects NAME=INT, got {item!r}")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = int(v)
        except ValueError:
            _fail(f"--param {k.strip()}: expected an integer, got {v!r}")
    return out


@_verb("agrees", "Does LAYOUT (a TV layout, or an smem atom) agree with the hardware spec NAME?\n\n"
       "Compares at every (thread, value) (or coordinate) with the spec's PTX formula; the counterexample "
       "names the thread, the value and both (row, col) elements.")
@click.argument("layout")
@click.option("--spec", "spec_name", required=True, metavar="NAME", help="A spec name (see `cuteverify spec list`).")
@click.option("--operand", metavar="A|B|C", help="The operand (A, B, C; src/dst for copy atoms; none for smem atoms).")
@click.option("--param", "params", multiple=True, metavar="NAME=INT", help="A family parameter, e.g. N=128.")
@_assume_option
@_json_option
@_guard
def agrees_cmd(layout, spec_name, operand, params, assume, as_json):
    from cuteverify.hardware.specs import SpecError
    from cuteverify.manifest import agrees_verdict
    L = _parse(layout, assume, "LAYOUT")
    p = _params(params)
    try:
        v = agrees_verdict(L, spec_name, operand, **p)
    except SpecError as e:
        _fail(str(e))
    _report(v, as_json)


@_verb("prove", "Prove or refute CLAIM, e.g. \"bijective(composition(A, B))\" or "
       "\"composition(A, B) == C\".\n\nPredicates: injective, surjective, bijective, disjoint, equal; terms are "
       "algebra operations, layouts, integers and names bound with --let.")
@click.argument("claim")
@click.option("--let", "lets", multiple=True, metavar="NAME=LAYOUT", help="Bind a name: --let A='(4,8):(1,4)'.")
@_assume_option
@_json_option
@_guard
def prove_cmd(claim, lets, assume, as_json):
    from cuteverify.prover import prove
    bindings = {}
    for item in lets:
        if "=" not in item:
            _fail(f"--let expects NAME=LAYOUT, got {item!r}")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k.isidentifier():
            _fail(f"--let: {k!r} is not a name")
        bindings[k] = _parse(v, assume, f"--let {k}", shared=True)
    from cuteverify.errors import ParseError
    try:
        v = _run_verdict(lambda: prove(claim, assume=list(assume) or None, **bindings), claim)
    except ParseError:
        raise
    _report(v, as_json)


# ------------------------------------------------------------------------------------------- spec

@click.group("spec", help="The hardware spec library: list, show, check.")
def spec_group():
    pass


def _library():
    from cuteverify.hardware import specs
    return specs.default_library()


def _silicon(spec):
    """``"sm90 (NVIDIA H200)"`` when the committed GPU probes confirmed the spec, else None."""
    ev = getattr(spec, "evidence", None)
    if isinstance(ev, dict) and ev.get("confirmed"):
        return f"{ev.get('silicon')} ({ev.get('gpu')})"
    return None


@spec_group.command("list")
@click.argument("filter", required=False)
@click.option("--kind", type=click.Choice(["mma", "copy", "smem_atom", "swizzle"]), help="Only this kind.")
@click.option("--arch", help="Only this architecture, e.g. sm_80.")
@_json_option
@_guard
def spec_list(filter, kind, arch, as_json):
    """List spec names (FILTER: a substring)."""
    lib = _library()
    names = lib.names(filter)
    rows = []
    for n in names:
        s = lib[n]
        if kind and s.kind != kind or arch and s.arch != arch:
            continue
        rows.append({"name": n, "kind": s.kind, "arch": s.arch, "silicon": _silicon(s)})
    if as_json:
        click.echo(json.dumps(rows))
        return
    w = max([len(r["name"]) for r in rows] + [4])
    for r in rows:
        mark = f"  confirmed on {r['silicon']}" if r["silicon"] else ""
        click.echo(f"{r['name']:<{w}}  {r['kind']:<9}  {r['arch'] or '':<6}{mark}")
    click.echo(f"{len(rows)} spec(s)", err=True)


@spec_group.command("show")
@click.argument("name")
@click.option("--param", "params", multiple=True, metavar="NAME=INT", help="A family parameter, e.g. N=128.")
@_json_option
@_guard
def spec_show(name, params, as_json):
    """Show spec NAME: kind, architecture, PTX, operand layouts and formulas."""
    lib = _library()
    s = lib.get(name)
    p = _params(params)
    info = {"name": s.name, "kind": s.kind, "arch": s.arch, "ptx": s.ptx, "file": s.file, "line": s.line}
    if s.is_family:
        info["params"] = {k: str(v) for k, v in s.params.items()}
    ops = {}
    data = s.data
    for op in s.operands:
        node = (data.get("operands") or {}).get(op) if isinstance(data.get("operands"), dict) else None
        entry = {}
        if s.kind in ("mma", "copy"):
            try:
                entry["layout"] = s.layout_text(op, **p) if (p or not s.is_family) else node.get("layout")
            except Exception:  # noqa: BLE001 - show what the file says
                entry["layout"] = node.get("layout") if node else None
            if node:
                for k in ("row", "col", "from", "broadcast"):
                    if k in node:
                        entry[k] = node[k]
        else:
            for k in ("layout", "swizzle_bytes", "layout_bits", "offset", "major", "element_bits"):
                if k in data:
                    entry[k] = data[k]
        ops[op] = entry
    info["operands"] = ops
    info["evidence"] = s.evidence
    if as_json:
        click.echo(json.dumps(info, default=str))
        return
    for k in ("name", "kind", "arch", "ptx"):
        if info.get(k):
            click.echo(f"{k}: {info[k]}")
    click.echo(f"source: {s.file}:{s.line}")
    ev = s.evidence
    if isinstance(ev, dict) and ev.get("confirmed"):
        probed = ", ".join(ev.get("probed") or [])
        click.echo(f"evidence: {ev.get('silicon')} ({ev.get('gpu')}), confirmed, {ev.get('records')} records"
                   + (f" [{probed}]" if probed else ""))
    else:
        click.echo("evidence: not probed on silicon")
    if "params" in info:
        click.echo("params: " + ", ".join(f"{k} {v}" for k, v in info["params"].items()))
    for op, e in ops.items():
        click.echo(f"{op}:")
        for k, v in e.items():
            click.echo(f"  {k}: {v}")


@spec_group.command("check")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, dir_okay=True))
@_json_option
def spec_check(paths, as_json):
    """Load and self-check the spec library (plus PATHS: extra spec files or directories).

    \b
    Exit codes: 0 every spec is consistent, 1 a self-check failed, 2 a file could not be loaded."""
    from cuteverify.hardware import specs
    t0 = time.perf_counter()
    try:
        lib = specs.load(list(paths), shipped=True) if paths else specs.load()
    except specs.SpecError as e:
        code = EXIT_INPUT if str(e.reason).startswith(("YAML", "schema", "cannot read", "empty")) else EXIT_REFUTED
        if as_json:
            click.echo(json.dumps({"ok": False, "file": e.file, "line": e.line, "spec": e.spec,
                                   "reason": e.reason, "exit_code": code}))
        else:
            click.echo(_style("FAILED", "refuted") + f": {e}")
        sys.exit(code)
    dt = time.perf_counter() - t0
    if as_json:
        click.echo(json.dumps({"ok": True, "specs": len(lib), "files": lib.files, "elapsed": dt, "exit_code": 0}))
    else:
        click.echo(_style("OK", "proved") + f": {len(lib)} specs in {len(lib.files)} files self-checked "
                   f"({dt:.2f} s)")


@spec_group.command("validate-hw")
@click.argument("results", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@_json_option
def spec_validate_hw(results, as_json):
    """Compare GPU probe RESULTS (probes/*.jsonl[.gz]) with the spec library: per spec, confirmed,
    contradicted (with the first differing thread/slot) or not probed.

    \b
    Exit codes: 0 nothing contradicted, 1 a spec is contradicted by silicon, 2 unreadable input."""
    from cuteverify.hardware import evidence as hwcheck
    from cuteverify.hardware import specs
    try:
        res = hwcheck.validate(list(results))
    except (ValueError, OSError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(EXIT_INPUT)
    unmatched = res.pop("_unmatched")
    if not res and not unmatched:
        _fail("no probe records in " + ", ".join(results) + " (expected JSON lines with instr, thread, slot, "
              "row, col, as probes/run_all.sh writes them)", as_json)
    probed = set(res)
    not_probed = [n for n in specs.names() if n not in probed]
    bad = {n: r for n, r in res.items() if r["status"] != "confirmed"}
    if as_json:
        click.echo(json.dumps({"results": res, "not_probed": not_probed, "no_spec_for": unmatched,
                               "exit_code": EXIT_REFUTED if bad else EXIT_OK}, default=list))
    else:
        for n in sorted(res):
            r = res[n]
            line = f"{n}: {r['status']} ({r['records']} records)"
            if r["first"]:
                f = r["first"]
                line += (f"; first difference: thread {f['thread']} slot {f['slot']}: spec says "
                         f"{tuple(f['spec_says'])}, silicon {tuple(f['silicon'])}")
            click.echo(_style(line, "refuted" if r["status"] != "confirmed" else "proved"))
        click.echo(f"{len(res)} specs probed, {len(bad)} contradicted, {len(not_probed)} not probed")
        if unmatched:
            click.echo("probed instructions with no spec: " + ", ".join(f"{i} {o}" for i, o in unmatched))
    sys.exit(EXIT_REFUTED if bad else EXIT_OK)


# ------------------------------------------------------------------------------------------ check

def _progress_printer(enabled: bool):
    if not enabled:
        return None
    t0 = time.perf_counter()
    state = {"last": 0.0}

    def progress(done, total):
        now = time.perf_counter()
        if now - t0 < 0.5 and done < total:
            return
        if now - state["last"] < 0.1 and done < total:
            return
        state["last"] = now
        rate = done / max(now - t0, 1e-9)
        sys.stderr.write(f"\r[{done}/{total}] {rate:.0f} claims/s")
        if done == total:
            sys.stderr.write("\r" + " " * 40 + "\r")
        sys.stderr.flush()

    return progress


def _print_table(results, total_s):
    rows = [("", "kernel", "claim", "expect", "result", "ms")]
    for r in results:
        mark = "ok" if r["ok"] else "FAIL"
        rows.append((mark, r["kernel"], _clip(r["claim"], 70), r["expect"], r["status"], f"{r['elapsed'] * 1e3:.1f}"))
    files = []
    for r in results:
        if r["file"] not in files:
            files.append(r["file"])
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    cur = None
    for k, row in enumerate(rows):
        if k and results[k - 1]["file"] != cur:
            cur = results[k - 1]["file"]
            click.echo(click.style(cur, bold=True) if _tty() else cur)
        line = "  ".join(c.ljust(widths[i]) if i != 5 else c.rjust(widths[i]) for i, c in enumerate(row))
        if k == 0:
            click.echo(line.rstrip())
            continue
        r = results[k - 1]
        status = "proved" if r["ok"] else (r["status"] if r["status"] != "proved" else "refuted")
        click.echo(_style(line.rstrip(), status) if not r["ok"] else line.rstrip())
    bad = [r for r in results if not r["ok"]]
    if bad:
        click.echo("")
        click.echo("failures:")
        for r in bad:
            loc = f"{r['file']}:{r['line']}" if r.get("line") else r["file"]
            click.echo(f"  {loc}: [{r['kernel']}] {r['claim']}: expected {r['expect']}, got {r['status']}")
            if r.get("counterexample"):
                click.echo(f"    counterexample: {r['counterexample']}")
            if r.get("reason"):
                click.echo(f"    reason: {r['reason']}")
            for o in r.get("obligations") or ():
                click.echo(f"    obligation: {o}")
    n = len(results)
    counts = {s: sum(1 for r in results if r["status"] == s) for s in ("proved", "refuted", "unknown", "error")}
    summary = (f"{n} claim(s) in {len(files)} file(s): {n - len(bad)} as expected, {len(bad)} not; "
               + ", ".join(f"{v} {k}" for k, v in counts.items() if v) + f"  ({total_s:.2f} s)")
    click.echo(_style(summary, "proved" if not bad else "refuted"))


def _clip(s, n):
    s = s.replace("\n", " ")
    return s if len(s) <= n else s[:n - 3] + "..."


@click.command("check", help="Run every claim of the kernel manifests MANIFEST... (YAML; see "
               "specs/manifest_schema.json) and print a summary table.\n\n"
               "\b\nExit codes: 0 every claim as expected (proved, or refuted where `expect: refuted`),\n"
               "1 a claim refuted (or proved against `expect: refuted`), 2 a manifest or layout is malformed,\n"
               "3 otherwise (some claim unknown).")
@click.argument("manifests", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes.")
@click.option("--junit-xml", "junit", type=click.Path(dir_okay=False, writable=True), help="Write JUnit XML here.")
@click.option("--progress/--no-progress", default=None, help="Progress line on stderr (default: when a TTY).")
@_json_option
@click.option("-q", "--quiet", is_flag=True, help="Only the failures and the summary line.")
def check_cmd(manifests, jobs, junit, progress, as_json, quiet):
    from cuteverify import manifest as mf
    t0 = time.perf_counter()
    claims = []
    errors = []
    for path in manifests:
        try:
            claims.extend(mf.load(path))
        except mf.ManifestError as e:
            errors.append(e)
    if errors:
        if as_json:
            click.echo(json.dumps({"ok": False, "exit_code": EXIT_INPUT, "errors": [
                {"file": e.file, "line": e.line, "column": e.column, "reason": e.reason} for e in errors]}))
        for e in errors:
            click.echo(f"error: {e}", err=True)
        sys.exit(EXIT_INPUT)
    if progress is None:
        try:
            progress = sys.stderr.isatty()
        except (AttributeError, ValueError):
            progress = False
    results = mf.run(claims, jobs=jobs, progress=_progress_printer(progress))
    total = time.perf_counter() - t0
    code = mf.exit_code(results)
    if junit:
        try:
            with open(junit, "w", encoding="utf-8") as f:
                f.write(mf.junit_xml(results, total))
        except OSError as e:
            _fail(f"cannot write {junit}: {e.strerror or e}")
    if as_json:
        click.echo(json.dumps({"ok": code == 0, "exit_code": code, "elapsed": total, "results": results},
                              default=str))
    elif quiet:
        bad = [r for r in results if not r["ok"]]
        _print_table(bad, total) if bad else click.echo(f"{len(results)} claim(s) as expected ({total:.2f} s)")
    else:
        _print_table(results, total)
    sys.exit(code)


def register(group):
    """Add the verbs to the top-level click ``group``."""
    for cmd in (injective_cmd, surjective_cmd, bijective_cmd, equal_cmd, disjoint_cmd, agrees_cmd, prove_cmd,
                spec_group, check_cmd):
        group.add_command(cmd)
