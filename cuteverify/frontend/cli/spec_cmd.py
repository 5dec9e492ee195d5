"""``cuteverify spec``: the hardware spec library (list, show, check, validate-hw, draw)."""
from __future__ import annotations

import json
import sys
import time

import click

from cuteverify.errors import SpecError, exit_code
from cuteverify import hardware
from cuteverify.hardware.checks import cache as checkcache, evidence, selfcheck
from cuteverify.hardware.checks.blackwell import check_blackwell
from cuteverify.hardware.checks.checkall import check_all, default_jobs
from cuteverify.hardware.library.lazylib import name_index
from cuteverify.hardware.library.catalog import read_sources, resolve, sources_key

from .common import EXIT_OK, EXIT_REFUTED, fail, guarded, json_option, parse_params, style
from .draw_cmd import register_spec
from .progress import ticker


@click.group("spec", help="The hardware spec library: list, show, check.")
def spec_group():
    pass


def _silicon(spec):
    """``"sm90 (NVIDIA H200)"`` when the committed GPU probes confirmed the spec, else None."""
    ev = getattr(spec, "evidence", None)
    if isinstance(ev, dict) and ev.get("confirmed"):
        return f"{ev.get('silicon')} ({ev.get('gpu')})"
    return None


def _arch_matches(spec_arch, wanted: str) -> bool:
    """``--arch sm100`` / ``sm_100`` / ``100`` match sm_100 and sm_100a; ``sm_100a`` only sm_100a."""
    norm = lambda a: (a or "").lower().replace("sm_", "").replace("sm", "")  # noqa: E731
    w = norm(wanted)
    return norm(spec_arch) == w or (not w.endswith("a") and norm(spec_arch) == w + "a")


@spec_group.command("list")
@click.argument("filter", required=False)
@click.option("--kind", type=click.Choice(["mma", "copy", "smem_atom", "swizzle"]), help="Only this kind.")
@click.option("--arch", help="Only this architecture, e.g. sm_80, sm100 (also sm_100a).")
@json_option
@guarded
def spec_list(filter, kind, arch, as_json):
    """List spec names (FILTER: a substring)."""
    lib = hardware.default_library()
    rows = []
    for n in lib.names(filter):
        s = lib.peek(n)  # a listing reads metadata: no self-check of every spec
        if kind and s.kind != kind or arch and not _arch_matches(s.arch, arch):
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
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A family parameter, e.g. N=128, or an enum by name, a_major=MN.")
@json_option
@guarded
def spec_show(name, params, as_json):
    """Show spec NAME: kind, architecture, PTX, operand layouts and formulas."""
    s, implied = resolve(name)  # CUTLASS's concrete names fix family parameters
    p = {**implied, **parse_params(params)}
    _check_given(s, p)
    if as_json:
        click.echo(json.dumps(s.summary(**p), default=str))
    else:
        click.echo(s.describe(**p))


def _check_given(spec, params: dict) -> None:
    """Each given parameter names one of the family's and a value in its range (an enum by one of its names);
    a partial assignment is fine (`spec show` then shows what the file says). SpecError (exit 2) otherwise."""
    for k, v in params.items():
        if k not in spec.params:
            raise SpecError(f"--param {k}: {spec.name} has no parameter {k!r} (it has {sorted(spec.params) or 'none'})",
                            spec.file, spec.line, spec.name)
        names = spec.param_names.get(k, {})
        if isinstance(v, str) and v not in names:
            raise SpecError(f"--param {k}={v}: " + (f"one of {sorted(names)}" if names else "expected an integer"),
                            spec.file, spec.line, spec.name)
        if not isinstance(v, str) and v not in spec.params[k]:
            raise SpecError(f"--param {k}={v} is not in the family's range", spec.file, spec.line, spec.name)


@spec_group.command("check")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, dir_okay=True))
@json_option
@guarded
def spec_check(paths, as_json):
    """Load and self-check the spec library (plus PATHS: extra spec files or directories), then the Blackwell
    modules that are no specs: CUTLASS's TMEM accumulator atoms against the PTX data paths (A-G, every N)
    and the block-scaled scale-factor atoms against their formula. A success is remembered for these exact
    files' bytes and this checker's source ($CUTEVERIFY_CACHE_DIR, else ~/.cache/cuteverify;
    CUTEVERIFY_NO_CACHE=1 turns it off): an unchanged library is reported from it, and later runs of any
    command trust it.

    \b
    Exit codes: 0 every spec and module is consistent, 1 a self-check or module check failed, 2 a file
    could not be loaded."""
    t0 = time.perf_counter()
    try:
        sources = read_sources(list(paths), True) if paths else read_sources()
        key = sources_key(sources)
        got = (checkcache.lookup(key) or {}).get("spec_check")
        cached = _well_formed(got)
        if not cached:
            with ticker(f"spec check: self-checking the specs of {len(sources)} files"):
                got, index = _check_now(sources)
            if got["blackwell"]["ok"]:
                checkcache.store(key, {"specs": got["specs"], "files": got["files"], "index": index,
                                       "spec_check": got})
    except SpecError as e:  # rendered with its file, line and spec rather than as one error line
        code = exit_code(e)
        if as_json:
            click.echo(json.dumps({"ok": False, "file": e.file, "line": e.line, "spec": e.spec,
                                   "reason": e.reason, "exit_code": code}))
        else:
            click.echo(style("FAILED", "refuted") + f": {e}")
        sys.exit(code)
    dt = time.perf_counter() - t0
    n, files, families, bw = got["specs"], [name for name, _ in sources], got["families"], got["blackwell"]
    whole = sum(m.startswith("one symbolic proof") for m in families.values())
    code = EXIT_OK if bw["ok"] else EXIT_REFUTED
    if as_json:
        click.echo(json.dumps({"ok": bw["ok"], "specs": n, "files": files, "elapsed": dt, "cached": cached,
                               "exit_code": code, "families": families, "blackwell": bw}))
        sys.exit(code)
    how = "self-check result cached for these exact files and this checker" if cached else "self-checked"
    click.echo(style("OK", "proved") + f": {n} specs in {len(files)} files {how} "
               f"({dt:.2f} s); of {len(families)} families, {whole} proved for every parameter value by "
               f"one symbolic proof per operand, the others (or their other operands) instance by instance")
    click.echo(_blackwell_line(bw))
    for group in ("tmem_datapaths", "sf_atoms"):
        for case in bw[group]["refuted"] + bw[group]["unknown"]:
            click.echo(style("  FAILED", "refuted") + f": {case['claim']}: {case['reason']}")
    sys.exit(code)


def _well_formed(got) -> bool:
    """Does a cached ``spec check`` result have the fields the report reads (else: a miss, checked again)?"""
    if not isinstance(got, dict) or type(got.get("specs")) is not int or not isinstance(got.get("families"), dict):
        return False
    bw = got.get("blackwell")
    try:
        return bw["ok"] is True and all(isinstance(bw[g][k], (int, list)) for g in ("tmem_datapaths", "sf_atoms")
                                        for k in ("proved", "checked", "refuted", "unknown")) \
            and isinstance(bw["elapsed"], (int, float)) and "evidence" in bw
    except (KeyError, TypeError):
        return False


def _check_now(sources: list) -> dict:
    """Load ``sources`` eagerly (schema, formulas, every self-check; families by one symbolic proof per
    operand where it goes through) and run the Blackwell module checks: the result ``spec check`` reports
    and caches, with the name index of the files (a cached success then loads a file per name)."""
    before, selfcheck.FAMILY_PROOFS = selfcheck.FAMILY_PROOFS, True
    try:
        lib = hardware.load(sources=sources, check=False)  # schema and formulas; the self-checks next
        # every spec self-checked (spread over worker processes) while this process checks the Blackwell
        # modules that are no specs (TMEM data paths, scale-factor atoms)
        methods, bw = check_all([lib.peek(n) for n in lib], default_jobs(), side=check_blackwell)
    finally:
        selfcheck.FAMILY_PROOFS = before
    # how each family was checked: one symbolic proof for all its parameters, or instance by instance
    families = {n: methods[n] for n in lib if n in methods}
    return {"specs": len(lib), "files": list(lib.files), "families": families, "blackwell": bw}, name_index(lib)


def _blackwell_line(bw) -> str:
    dp, sf = bw["tmem_datapaths"], bw["sf_atoms"]
    ok = bw["ok"]
    text = (f": Blackwell modules: {dp['proved']} of {dp['checked']} TMEM data-path atoms (data paths A-G, "
            f"every N) and {sf['proved']} of {sf['checked']} scale-factor atoms (sm100/sm103, SFVec 16/32, "
            f"K/MN-major) agree with their PTX formulas, every coordinate enumerated ({bw['elapsed']:.2f} s; "
            f"evidence: {bw['evidence']})")
    return style("OK", "proved") + text if ok else style("FAILED", "refuted") + text


def _validation_line(name, r):
    line = f"{name}: {r['status']} ({r['records']} records)"
    if r["first"]:
        f = r["first"]
        line += (f"; first difference: thread {f['thread']} slot {f['slot']}: spec says "
                 f"{tuple(f['spec_says'])}, silicon {tuple(f['silicon'])}")
    return style(line, "refuted" if r["status"] != "confirmed" else "proved")


@spec_group.command("validate-hw")
@click.argument("results", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@json_option
@guarded
def spec_validate_hw(results, as_json):
    """Compare GPU probe RESULTS (probes/*.jsonl[.gz]) with the spec library: per spec, confirmed,
    contradicted (with the first differing thread/slot) or not probed.

    \b
    Exit codes: 0 nothing contradicted, 1 a spec is contradicted by silicon, 2 unreadable input."""
    try:
        res = evidence.validate(list(results))
    except OSError as e:
        fail(f"cannot read probe results: {e.strerror or e}")
    unmatched = res.pop("_unmatched")
    if not res and not unmatched:
        fail("no probe records in " + ", ".join(results) + " (expected JSON lines with instr, thread, slot, "
             "row, col, as probes/run_all.sh writes them)")
    not_probed = [n for n in hardware.names() if n not in res]
    bad = {n: r for n, r in res.items() if r["status"] != "confirmed"}
    code = EXIT_REFUTED if bad else EXIT_OK
    if as_json:
        click.echo(json.dumps({"results": res, "not_probed": not_probed, "no_spec_for": unmatched,
                               "exit_code": code}, default=list))
    else:
        for n in sorted(res):
            click.echo(_validation_line(n, res[n]))
        click.echo(f"{len(res)} specs probed, {len(bad)} contradicted, {len(not_probed)} not probed")
        if unmatched:
            click.echo("probed instructions with no spec: " + ", ".join(f"{i} {o}" for i, o in unmatched))
    sys.exit(code)


register_spec(spec_group)


def register(group):
    """Add the ``spec`` group to a click group."""
    group.add_command(spec_group)
