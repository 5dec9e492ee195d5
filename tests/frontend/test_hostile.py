"""Hostile and wrong input across every verb, the manifest loader and the Python API (issue 18): each case gets
its exit code (or error kind), never a traceback, within a CPU-time limit (per case) and a memory limit (the
whole suite runs in one child process under ``RLIMIT_AS``; each case's growth of the peak RSS is bounded too).
Budgets are CPU seconds of the process doing the work, so load from other processes cannot break them; the
wall-clock limits (``signal.alarm``, ``timeout=``) are only hang guards, far above any normal run.

The cases run in one subprocess (``python tests/frontend/test_hostile.py OUT.json``: click's CliRunner in-process, a
``signal.alarm`` per case) so that hundreds of them cost one interpreter start; each pytest item then checks
its case's record. A few cases also run as real ``cuteverify`` processes under their own memory limit.
"""
from __future__ import annotations

import json
import os
import pathlib
import resource
import signal
import subprocess
import sys
import tempfile
import time

import pytest

import test_hostile_verbs as more

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASE_SECONDS = 10  # per case: CPU seconds of the child (time.process_time), not wall clock
CASE_HANG_SECONDS = 120  # wall-clock hang guard per case (signal.alarm), not a budget
SUITE_CPU_SECONDS = 240  # the child's whole run: user + system CPU seconds
SUITE_HANG_SECONDS = 1200  # wall-clock hang guard of the child process, not a budget
CASE_RSS_MIB = 512  # growth of the peak RSS a single case may cause
SUITE_AS_GIB = 6  # the child's address-space limit (z3, numpy and sympy map a lot of virtual memory)

OK = "(4,8):(1,4)"
SM80 = "SM80_16x8x16_F32BF16BF16F32_TN"
TV_A = "((4,8),(2,2,2)):((32,1),(16,8,128))"
DEEP = "(" * 10000 + "4" + ")" * 10000

# text that is no layout: every verb refuses it as an input error (exit 2)
MALFORMED = [
    "", "   ", "(", ")", "(4,8", "(4,8):(1,4", "(4,8):(1,4))", "(4,8):(1)", "(4,8):(1,4,5)", "(1/2,4):(1,4)",
    "(0,4):(1,4)", "(-2,4):(1,4)", "4:", ":1", "(4,8):(1@99999999999,1@1)", "(4,8):(E<99999999999>,1@1)", DEEP,
    "4:1:2", "S<3,3,3> o", "Sw<3,4,3> o smem_ptr[7b](unset) o (_8,_64):(_64,_1)", "(4,8):(1,_)", "abc$",
    "(4,8):(1,4) extra", "\x00", "(1e9999,2):(1,2)", "1" * 5000 + ":1", "S<3,3,3> o " * 500 + "0 o 8:1",
]
# layouts that are well formed but larger than anything enumerable: decided structurally or refused with the
# limit named, never a crash, a hang or an allocation past the budget
LARGE = ["(2147483648,4294967297):(1,5)", "(65536,65536):(65536,1)", "S<3,3,3> o 0 o (65536,65536):(65536,1)",
         "(4,8):(1@1023,1@1)", "((1048576,1048576),(4096,4096)):((1,1048576),(0,1))"]


def _verbs(L):
    return [
        ["injective", L], ["surjective", L], ["bijective", L], ["eval", L], ["eval", L, "3"], ["draw", L],
        ["equal", L, OK], ["equal", OK, L], ["disjoint", L], ["vector", L], ["banks", L, "-t", "(32,8):(8,1)"],
        ["banks", "(64,64):(64,1)", "-t", L], ["algebra", f"coalesce({L})"], ["prove", f"bijective({L})"],
        ["agrees", L, "--spec", SM80, "--operand", "A"],
        ["tma", "--dtype", "bf16", "--gmem", L, "--smem", "(64,64):(64,1)"], ["prove", "bijective(A)", "--let", f"A={L}"],
    ]


# option cases whose honest answer is not an input error, with the reason
NOT_INPUT_ERRORS = {
    # a codomain in a symbol of its own is a claim for every value of it: refuted (or refused)
    ("surjective", OK, "--codomain", "abc"): {1, 2}, ("surjective", OK, "--codomain", "K"): {1, 2},
    # pow2 facts are not translated into the satisfiability check: no assignment exists, so never proved
    **{(v, "(M,4):(1,M)", "-a", "pow2(M)", "-a", "M == 3"): {2, 3} for v in ("bijective", "injective")},
    ("prove", "equal((M,4):(1,M), (M,4):(4,1))", "-a", "pow2(M)", "-a", "M == 3"): {2, 3},
    ("eval", "(M,4):(1,M)", "-a", "pow2(M)", "-a", "M == 3"): {0, 2, 3},
    ("eval", OK, "x"): {0, 2},  # a symbolic coordinate evaluates symbolically
    # CuTe's complement of a non-injective layout exists; the result says what it lacks in its notes
    ("algebra", "complement((2,4):(1,3), 24)"): {0, 2},
    # a zero box breaks the driver's rule: a verdict (refuted), not a malformed argument
    ("tma", "--dtype", "bf16", "--shape", "(64,64)", "--box", "(0,0)"): {1, 2},
}


def _opt_cases():
    """Option values that are not what they claim (each an input error, exit 2, unless NOT_INPUT_ERRORS)."""
    out = []
    for r in ("3", "0", "-16", "17", "32", "abc"):
        out.append(["vector", "(8,64):(64,1)", "-r", r])
    for a in ("0", "3", "-1"):
        out.append(["vector", "(8,64):(64,1)", "--alignment", a])
    for e in ("0", "3", "-2", "1000"):
        out.append(["vector", "(8,64):(64,1)", "--elem-bytes", e])
    out.append(["vector", "(8,64):(64,1)", "-d", "float7"])
    B = ["banks", "(64,64):(64,1)", "-t", "(32,8):(8,1)"]
    for v in ("3", "0", "32", "-1"):
        out.append(B + ["-v", v])
    for p in ("0", "3", "x", "99"):
        out.append(B + ["--phases", p])
    out += [B + ["--base", "-1"], B + ["--elem-bytes", "0"], B + ["-d", "nope"]]
    A = ["agrees", TV_A, "--spec", SM80, "--operand", "A"]
    for p in ("dtype=-16", "dtype=abc", "N=abc", "=3", "N", "N=99999999999999999999", "M=3"):
        out.append(A + ["--param", p])
    out += [["agrees", TV_A, "--spec", "NOPE_SPEC"], ["agrees", TV_A, "--spec", SM80, "--operand", "Z"],
            ["agrees", "(32,4):(1,32)", "--spec", SM80, "--operand", "A"],
            ["agrees", TV_A, "--spec", "SM90_64xNx16_F32BF16BF16_SS", "--operand", "A"]]
    for c in ("0", "-1", "abc", "1/2", "(((", "K"):
        out.append(["surjective", OK, "--codomain", c])
    for m in ("0", "-4", "x$", "((("):
        out.append(["disjoint", OK, "-m", m])
    S = "(M,4):(1,M)"
    for asm in (["M >= 5", "M <= 3"], ["garbage"], ["K >= 1"], ["M in {}"], ["pow2(M)", "M == 3"],
                ["M % 0 == 0"], ["M in {1,2"], ["M >= 5", "M <= 3", "M in {4}"]):
        flags = [x for a in asm for x in ("-a", a)]
        out += [["bijective", S] + flags, ["injective", S] + flags, ["eval", S] + flags,
                ["prove", f"equal({S}, (M,4):(4,1))"] + flags]
    for crd in ("(1,2,3)", "-1", "99999999999999999999", DEEP, "x", "1.5", "()", "(1,"):
        out.append(["eval", OK, crd])
    for expr in ("composition(A, B)", "nosuchop(4:1)", "coalesce(4:1", "coalesce(4:1))", "composition(4:1)",
                 "complement((2,4):(1,3), 24)", "logical_divide(4:1, <>)", "coalesce(" * 3000 + "4:1" + ")" * 3000,
                 "composition(A, (2,2):(1,2))", "complement(4:1, -8)"):
        out.append(["algebra", expr])
    for claim in ("bijective(", "foo(4:1)", "bijective(A)", "equal(4:1)", "bijective(4:1, 4:1)",
                  "4:1 == 4:1 == 4:1", "bijective(" * 3000 + ")" * 3000, "injective(bijective(4:1))", ")("):
        out.append(["prove", claim])
    D = ["draw", OK]
    out += [D + ["--tile", "0x0"], D + ["--tile", "abc"], D + ["--highlight", "x"], D + ["--elem-bytes", "0"],
            D + ["--format", "bad"], D + ["--tile", "4x8", "--banks"]]
    out += [["spec", "show", "NOPE_SPEC"], ["spec", "show", ""], ["loops", ""], ["loops", "for"],
            ["loops", "for i in range(4): " * 3000 + "A[i]"], ["fold", ""], ["fold", "ij,jk->ik"],
            ["fold", "ij->"], ["fold", "a" * 1000]]
    T = ["tma", "--dtype", "bf16", "--shape", "(K,M)", "--stride", "(1,K)", "--box", "(64,128)"]
    out += [["tma", "--dtype", "nope", "--shape", "(64,64)"], ["tma", "--dtype", "bf16", "--shape", "(((("],
            ["tma", "--dtype", "bf16", "--shape", "(64,64)", "--box", "(0,0)"],
            ["tma", "--dtype", "bf16", "--shape", "(64,64)", "--swizzle", "BAD"],
            T + ["-a", "K >= 5", "-a", "K <= 3"], ["tma", "--dtype", "bf16", "--gmem", OK]]
    return out


_BOMB = ("a: &a ['x','x','x','x','x','x','x','x','x']\n"
         + "".join(f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
         + "version: 1\nkernels: {k: {claims: *i}}\n")
_MAP_BOMB = ("a: &a {x: 1, y: 2, z: 3, w: 4}\n"
             + "".join(f"{c}: &{c} {{p: *{p}, q: *{p}, r: *{p}, s: *{p}, t: *{p}, u: *{p}}}\n"
                       for p, c in zip("abcdefghij", "bcdefghijk")))


def _kernel(body):
    return "version: 1\nkernels:\n  k:\n" + body


# manifests, each an input error with its line (loader) and exit 2 (cuteverify check)
MANIFESTS = {
    "alias_bomb": (_BOMB, 2), "map_bomb": (_MAP_BOMB, 2),
    "alias_cycle": ("version: 1\nkernels:\n  k:\n    claims: &c [{bijective: '4:1'}, *c]\n", 4),
    "map_cycle": ("version: 1\nkernels: &k {k: {claims: [{bijective: '4:1'}]}, x: *k}\n", 2),
    "deep_flow": ("version: 1\nkernels: {k: {claims: " + "[" * 10000 + "]" * 10000 + "}}\n", 2),
    "deep_block": ("x:\n" + "".join("  " * i + "- \n" for i in range(1, 400)), None),
    "contradiction": (_kernel('    assume: ["M >= 5", "M <= 3"]\n    layouts: {A: "(M,4):(1,M)", B: "(M,4):(4,1)"}\n'
                              "    claims:\n      - equal: [A, B]\n"), 4),
    "names_cycle": (_kernel("    layouts: {A: B, B: A}\n    claims:\n      - bijective: A\n"), 4),
    "self_cycle": (_kernel("    layouts: {A: A}\n    claims:\n      - bijective: A\n"), 4),
    "unknown_name": (_kernel("    layouts: {A: C}\n    claims:\n      - bijective: A\n"), 4),
    "unknown_claim_name": (_kernel("    claims:\n      - bijective: Z\n"), 5),
    "bad_layout": (_kernel('    layouts: {A: "(4,8):(1,4"}\n    claims:\n      - bijective: A\n'), 4),
    "bad_assume": (_kernel('    assume: ["M >>= 3"]\n    claims:\n      - bijective: "(M,4):(1,M)"\n'), 4),
    "undeclared": (_kernel('    symbols: [N]\n    claims:\n      - bijective: "(M,4):(1,M)"\n'), 6),
    "empty": ("", 1), "not_mapping": ("- 1\n- 2\n", 1), "no_kernels": ("version: 1\n", None),
    "claims_not_list": (_kernel("    claims: 3\n"), None), "two_kinds": (_kernel("    claims:\n      - {bijective: '4:1', injective: '4:1'}\n"), None),
    "dup_key": ("version: 1\nversion: 1\nkernels: {}\n", 2), "tabs": ("version: 1\n\tkernels: {}\n", None),
    "binary": ("\x00\x01\x02garbage: [", None), "unclosed": ("version: 1\nkernels: {k: {claims: [\n", None),
    "equal_one": (_kernel("    claims:\n      - equal: ['4:1']\n"), None),
    "deep_layout": (_kernel(f"    claims:\n      - bijective: '{DEEP}'\n"), 5),
    "huge_int": (_kernel(f"    claims:\n      - bijective: '{'9' * 5000}:1'\n"), 5),
    "prove_empty": (_kernel("    claims:\n      - prove: ''\n"), None),
    "long_key": ("version: 1\nkernels:\n  " + "k" * 100000 + ":\n    claims: []\n", None),
}

# manifests that load, whose claims must end as input errors of the run (exit 2): never a verdict
RUN_ERRORS = {
    "agrees_mismatch": _kernel(f"    claims:\n      - agrees: {{layout: '(32,4):(1,32)', spec: {SM80}, operand: A}}\n"),
    "agrees_dtype": _kernel(f"    claims:\n      - agrees: {{layout: '{TV_A}', spec: {SM80}, operand: A, "
                            "params: {dtype: -16}}\n"),
    "agrees_missing_param": _kernel("    claims:\n      - agrees: {layout: '" + TV_A +
                                    "', spec: SM90_64xNx16_F32BF16BF16_SS, operand: A}\n"),
    "unknown_spec": _kernel(f"    claims:\n      - agrees: {{layout: '{TV_A}', spec: NOPE, operand: A}}\n"),
    "prove_unbound": _kernel("    claims:\n      - prove: 'bijective(Q)'\n"),
}


def _api_cases():
    """(name, thunk, expected): ``ok`` (returns), ``input`` (a CuteVerifyError of kind input), ``ok_or_input``,
    ``undecided`` (a CuteVerifyError of kind undecided)."""
    import cuteverify as cv
    P = cv.parse
    cases = [(f"parse[{i}]", (lambda t=t: P(t)), "input") for i, t in enumerate(MALFORMED)]
    cases += [(f"is_bijective[{i}]", (lambda t=t: cv.is_bijective(t)), "input") for i, t in enumerate(MALFORMED[:12])]
    cases += [(f"large_bijective[{i}]", (lambda t=t: cv.is_bijective(t)), "ok_or_input") for i, t in enumerate(LARGE)]
    cases += [
        ("composition_text", lambda: cv.composition("(6,2):(8,2)", "(4,3):(3,1)"), "ok"),
        ("size_text", lambda: cv.size("(4,8):(1,4)"), "ok"),
        ("cosize_text", lambda: cv.cosize("(4,8):(1,5)"), "ok"),
        ("divide_tiler_text", lambda: cv.logical_divide("(9,(4,8)):(59,(13,1))", "<3:3, (2,4):(1,8)>"), "ok"),
        ("complement_not_injective", lambda: cv.complement("(2,4):(1,3)", 24), "ok_or_input"),
        ("equal_contradiction", lambda: cv.are_equal("(M,4):(1,M)", "(M,4):(4,1)", assume=["M >= 5", "M <= 3"]),
         "input"),
        ("prove_contradiction", lambda: cv.prove("equal((M,4):(1,M), (M,4):(4,1))", assume=["M >= 5", "M <= 3"]),
         "input"),
        ("algebra_contradiction", lambda: cv.composition(P("(M,4):(1,M)", assume=["M >= 5", "M <= 3"]), "4:1"),
         "input"),
        ("subs_breaks_assumption", lambda: P("(M,4):(1,M)", assume=["M % 128 == 0"]).subs(M=100), "input"),
        ("subs_outside_set", lambda: P("(M,4):(1,M)", assume=["M in {8,16}"]).subs(M=12), "input"),
        ("prove_unbound", lambda: cv.prove("bijective(A)"), "input"),
        ("agrees_unknown", lambda: cv.agrees(TV_A, "NOPE_SPEC", "A"), "input"),
        ("agrees_huge", lambda: cv.agrees(LARGE[0], SM80, "A"), "ok_or_input"),  # API: refuted, mismatch
        ("eval_huge_coordinate", lambda: P(OK)(99999999999), "ok_or_input"),
        ("banks_huge", lambda: cv.banks.bank_conflicts(P("(65536,65536):(65536,1)"), P("(32,8):(8,1)")), "input"),
        ("vector_three", lambda: cv.banks.max_vector_width(P("(8,64):(64,1)"), require=3), "input"),
        ("table_text", lambda: _table_roundtrip(), "ok"),
        ("table_not_layout", lambda: _table_swizzled(), "input"),
    ]
    return cases + more.api_cases()


def _table_roundtrip():
    from cuteverify.core.notation.print_table import parse_table
    L = parse_table("(4,2):(2,1)\n  0 | 0 | 1 |\n  1 | 2 | 3 |\n  2 | 4 | 5 |\n  3 | 6 | 7 |\n")
    assert str(L) == "(4,2):(2,1)", L
    return L


def _table_swizzled():
    from cuteverify.core.notation.print_table import parse_table
    return parse_table("t\n 0 | 0 | 1 |\n 1 | 2 | 7 |\n")


def cli_cases():
    """(name, args, stdin, allowed exit codes)."""
    out = []
    for i, L in enumerate(MALFORMED):
        for args in _verbs(L):
            out.append((f"malformed[{i}]-{args[0]}-{len(out)}", args, None, {2}))
        out.append((f"malformed[{i}]-stdin", ["bijective", "-"], L, {2}))
    for i, L in enumerate(LARGE):
        for args in _verbs(L):
            out.append((f"large[{i}]-{args[0]}-{len(out)}", args, None, {0, 1, 2, 3}))
    for k, args in enumerate(_opt_cases()):
        out.append((f"option-{args[0]}-{k}", args, None, NOT_INPUT_ERRORS.get(tuple(args), {2})))
    out += [
        ("file-missing", ["bijective", "@/nonexistent/x"], None, {2}), ("file-dir", ["bijective", "@/"], None, {2}),
        ("stdin-twice", ["equal", "-", "-"], OK, {2}), ("stdin-empty", ["bijective", "-"], "", {2}),
        ("stdin-long", ["bijective", "-"], "(" * (5 << 20), {2}),
        ("stdin-table-bad", ["bijective", "-"], "t\n 0 | 0 | 1 |\n 1 | 2 | x |\n", {2}),
        ("stdin-table-swizzled", ["bijective", "-"], "t\n 0 | 0 | 1 |\n 1 | 2 | 7 |\n", {2}),
        ("stdin-table", ["bijective", "-"], "t\n 0 | 0 | 1 |\n 1 | 2 | 3 |\n", {0}),
        ("stdin-ok", ["bijective", "-"], OK + "\n", {0}),
        ("contradiction-equal-concrete", ["prove", "equal((4,8):(1,4), (4,8):(1,5))", "-a", "M >= 5", "-a", "M <= 3"],
         None, {2}),
    ]
    return out + more.verb_cases()


def manifest_cli_cases():
    return [(f"check-{k}", k, text, {2}) for k, (text, _) in MANIFESTS.items()] + \
           [(f"check-run-{k}", k, text, {2}) for k, text in RUN_ERRORS.items()] + \
           [("check-missing-file", None, None, {2})]


# ------------------------------------------------------------------------------------------ the child

def _timeout(*_):
    raise TimeoutError("case time limit")


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _children_cpu():
    """User + system CPU seconds of this process's finished, waited-for children (the work of a subprocess,
    independent of how loaded the machine is)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _record(fn):
    t0, m0 = time.process_time(), _rss_mib()
    signal.alarm(CASE_HANG_SECONDS)  # a hang guard only; the test asserts CASE_SECONDS of CPU time
    try:
        out = fn()
    except TimeoutError:
        out = {"timeout": True}
    finally:
        signal.alarm(0)
    out.update(cpu_seconds=time.process_time() - t0, rss_growth_mib=_rss_mib() - m0)
    return out


def _run_child(path):
    from click.testing import CliRunner

    from cuteverify.frontend import manifest as mf
    from cuteverify.frontend.cli.main import main
    from cuteverify.errors import CuteVerifyError
    from cuteverify import hardware
    hardware.default_library()  # loaded once before the clock runs: a case's time is its own
    more.make_files()
    signal.signal(signal.SIGALRM, _timeout)
    runner = CliRunner()
    results = {}

    def cli(args, stdin):
        r = runner.invoke(main, args, input=stdin, catch_exceptions=True)
        exc = r.exception if r.exception is not None and not isinstance(r.exception, SystemExit) else None
        if isinstance(exc, TimeoutError):
            raise exc
        text = r.output if len(r.output) <= 3000 else r.output[:1000] + " ... " + r.output[-2000:]
        return {"code": r.exit_code, "output": text, "exception": type(exc).__name__ if exc else None}

    for name, args, stdin, _ in cli_cases():
        results[name] = _record(lambda: cli(args, stdin))
    tmp = tempfile.mkdtemp()
    for name, key, text, _ in manifest_cli_cases():
        p = os.path.join(tmp, f"{key}.cute.yaml")
        if text is not None:
            with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
        results[name] = _record(lambda: cli(["check", p], None))
    for key, (text, line) in MANIFESTS.items():
        def load(text=text):
            try:
                mf.load_text(text, "m.cute.yaml")
                return {"outcome": "loaded"}
            except mf.ManifestError as e:
                return {"outcome": "ManifestError", "line": e.line, "message": str(e)[:500]}
            except Exception as e:  # noqa: BLE001 - recorded: the test fails on it
                return {"outcome": type(e).__name__, "message": str(e)[:500]}
        results[f"load-{key}"] = _record(load)
    for name, thunk, _ in _api_cases():
        def api(thunk=thunk):
            try:
                thunk()
                return {"outcome": "ok"}
            except CuteVerifyError as e:
                return {"outcome": e.kind, "message": str(e)[:300]}
            except TimeoutError:
                raise
            except Exception as e:  # noqa: BLE001
                return {"outcome": type(e).__name__, "message": str(e)[:300]}
        results[f"api-{name}"] = _record(api)
    with open(path, "w") as f:
        json.dump(results, f)


def _limit_memory(gib):
    def apply():
        lim = gib << 30
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    return apply


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile") / "records.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("CUTEVERIFY_DEBUG", None)
    c0 = _children_cpu()
    p = subprocess.run([sys.executable, str(HERE / "test_hostile.py"), str(out)], capture_output=True, text=True,
                       timeout=SUITE_HANG_SECONDS, env=env, preexec_fn=_limit_memory(SUITE_AS_GIB))
    assert p.returncode == 0, p.stderr[-4000:]
    data = json.loads(out.read_text())
    data["_suite_cpu_seconds"] = _children_cpu() - c0
    return data


def _common(rec):
    assert not rec.get("timeout"), "timed out"
    assert rec["cpu_seconds"] < CASE_SECONDS, f"{rec['cpu_seconds']:.1f} s CPU"
    assert rec["rss_growth_mib"] < CASE_RSS_MIB, f"peak RSS grew {rec['rss_growth_mib']:.0f} MiB"


CLI = cli_cases()
MCLI = manifest_cli_cases()
API_NAMES = [(n, e) for n, _, e in _api_cases()]


@pytest.mark.parametrize("name,args,stdin,codes", CLI, ids=[c[0] for c in CLI])
def test_cli(records, name, args, stdin, codes):
    rec = records[name]
    _common(rec)
    assert rec["exception"] is None, rec
    assert "Traceback" not in rec["output"], rec["output"]
    assert "site-packages" not in rec["output"], rec["output"]
    assert rec["code"] in codes, (rec["code"], rec["output"][-600:])
    if rec["code"] == 2:  # said as an error (spec check reports a broken file as "FAILED: FILE:LINE: ...")
        assert "error" in rec["output"].lower() or "failed:" in rec["output"].lower(), rec["output"]


@pytest.mark.parametrize("name,key,text,codes", MCLI, ids=[c[0] for c in MCLI])
def test_check(records, name, key, text, codes):
    rec = records[name]
    _common(rec)
    assert rec["exception"] is None and "Traceback" not in rec["output"], rec
    assert rec["code"] in codes, (rec["code"], rec["output"][-600:])


@pytest.mark.parametrize("key", list(MANIFESTS))
def test_loader(records, key):
    rec = records[f"load-{key}"]
    _common(rec)
    assert rec["outcome"] == "ManifestError", rec
    line = MANIFESTS[key][1]
    if line is not None:
        assert rec["line"] == line, rec


@pytest.mark.parametrize("name,expected", API_NAMES, ids=[n for n, _ in API_NAMES])
def test_api(records, name, expected):
    rec = records[f"api-{name}"]
    _common(rec)
    allowed = {"ok": {"ok"}, "input": {"input"}, "ok_or_input": {"ok", "input"}, "undecided": {"undecided"}}[expected]
    assert rec["outcome"] in allowed, rec


def test_suite_size_and_time(records):
    n = len(CLI) + len(MCLI) + len(MANIFESTS) + len(API_NAMES)
    assert n >= 300
    assert records["_suite_cpu_seconds"] < SUITE_CPU_SECONDS, f"{records['_suite_cpu_seconds']:.0f} s CPU"


# real processes, each under its own memory limit: the sizes that used to allocate gigabytes or run forever
@pytest.mark.parametrize("args", [
    ["eval", "(4,8):(1@99999999999,1@1)", "5"], ["banks", "(65536,65536):(65536,1)", "-t", "(32,8):(8,1)"],
    ["bijective", "(2147483648,4294967297):(1,5)"], ["vector", "(65536,65536):(65536,1)"],
])
def test_real_process_memory_limit(args):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    c0 = _children_cpu()
    p = subprocess.run([sys.executable, "-m", "cuteverify.frontend.cli.main", *args], capture_output=True, text=True,
                       timeout=300, env=env, preexec_fn=_limit_memory(3))  # hang guard, not a budget
    assert _children_cpu() - c0 < 30, "more than 30 s of CPU"
    assert "Traceback" not in p.stderr + p.stdout
    assert p.returncode in (0, 1, 2, 3), (p.returncode, p.stderr[-500:])


if __name__ == "__main__":
    _run_child(sys.argv[1])
