"""More hostile input for the verbs tests/frontend/test_hostile.py's layout matrix reaches least (loops, fold, spec list /
show / draw / check / validate-hw, check's options, tma's options, tiled-mma, desc, algebra's bare names) and
for the Python API (cv.agrees as the front ends run it, long parse errors). The cases run in test_hostile.py's
child, under its time and memory limits, and are checked there; this module holds them and checks that every
verb of ``cuteverify --help`` has cases.
"""
from __future__ import annotations

import gzip
import os
import pathlib
import tempfile

# files the cases read: written by the child (make_files) before it runs them, at a path both processes know
FILES = pathlib.Path(tempfile.gettempdir()) / f"cuteverify-hostile-{os.getuid()}"
TN = "SM80_16x8x16_F32BF16BF16F32_TN"
FAMILY = "SM90_64xNx16_F32BF16BF16_SS"
TV_A = "((4,8),(2,2,2)):((32,1),(16,8,128))"
NEST = "for i in range(4): A[i]"
DEEP = "(" * 1000 + "4" + ")" * 1000

_OK_MANIFEST = "version: 1\nkernels:\n  k:\n    claims:\n      - bijective: '(4,8):(1,4)'\n"


def make_files():
    FILES.mkdir(exist_ok=True)
    texts = {
        "ok.cute.yaml": _OK_MANIFEST, "bad_yaml.yaml": "garbage: [\n", "bad_spec.yaml": "specs:\n  - name: X\n    kind: mma\n",
        "empty.yaml": "", "no_records.jsonl": '{"x": 1}\n', "not_json.jsonl": "not json\n", "empty.jsonl": "",
        "bad.jsonl.gz": "garbage", "numbers.jsonl": "3\n[1]\n", "nest.txt": NEST + "\n", "einsum.txt": "ij,jk->ik\n",
        "tma_shape.txt": "(64,64)\n",
    }
    for name, text in texts.items():
        (FILES / name).write_text(text)
    (FILES / "binary.jsonl").write_bytes(b"\x00\x01\xff\xfe")
    with gzip.open(FILES / "truncated.jsonl.gz", "wb") as f:
        f.write(b'{"instr": "x", "thread": 0')


def _f(name):
    return str(FILES / name)


def _loops():
    bad = ["for i in range(0,10,0): A[i]", "for (int m = 2; m <= 50; m += 0) A[m];",
           "for (int m = 2; m <= 50; m -= 1) A[m];", "for i in range(4): A[i/2]",
           "for i in range(4): for i in range(4): A[i]", "for i in range(4): A[1.5*i]", "for i in range(4): B",
           "for i in range(4) A[i]", "for i in range(4): A[i", "for \u00e9 in range(4): A[\u00e9]", "for (;;) A[m];",
           "for i in range(4): A[i][i]", "for i in range(4): A[i, i]", "for i in range(4): A[B[i]]", "",
           "for", "A[i]", "for i in range(4): for j in range(i): A[i+j]", "for i in range(4): A[i*i]",
           "for i in range((((4): A[i]", "for i in range(4): A[" + "(" * 500 + "i" + ")" * 500 + "]",
           "for i in range(4): " * 300 + "A[i]", "@/nonexistent/nest", "for i in range(4): A[i]]",
           "for i in range(4): A[i] x", "for i in range(4): A[i] == 2", "for i in range(4): A[i] = f(i))",
           "for (int m = 0; m < 8; ++m) { A[m] = e(m[); }"]
    out = [(["loops", t], None, {2}) for t in bad]
    big = ["for i in range(10**18): A[i]", "for i in range(" + "9" * 60 + "): A[i]",
           "".join(f"for i{k} in range(2): " for k in range(40)) + "A[" + "+".join(f"i{k}" for k in range(40)) + "]",
           "for i in range(M): for j in range(N): A[i*N + j]", "for i in range(M): A[i*M]",
           "for i in range(65536): for j in range(65536): A[i*65536 + j]"]
    out += [(["loops", t], None, {0, 1, 3}) for t in big]
    out += [(["loops", t], None, {0}) for t in ("for i in range(4): A[i] = f(i);", "for i in range(4): A[i] += 1 // ]",
                                                 "for (int m = 0; m < 8; ++m) { A[m] = e(m); }")]
    out += [(["loops", "-"], NEST, {0}), (["loops", "@" + _f("nest.txt")], None, {0}), (["loops", "-"], "", {2})]
    return out


def _fold():
    E = "ij,jk->ik"
    bad = [[E, "--shape", "A=abc", "--shape", "B=3,4"], [E, "--shape", "A=2,3", "--shape", "B=4,4"],
           [E, "--shape", "A=2", "--shape", "B=3,4"], [E, "--shape", "A=0,3", "--shape", "B=3,4"],
           [E, "--shape", "A=-2,3", "--shape", "B=3,4"], ["ii,jk->ik", "--shape", "A=2,2", "--shape", "B=2,4"],
           ["ij,jk->iz", "--shape", "A=2,3", "--shape", "B=3,4"], ["ij,jk,kl->il", "--shape", "A=2,3"],
           [E, "--shape", "Z=2,3"], [E, "--shape", "A=2,3", "--shape", "B=3,4", "--stride", "A=x,1"],
           [E, "--shape", "A=2,3", "--shape", "B=3,4", "--stride", "A=1"], [E, "--layout", "A=((("],
           [E, "--layout", "A=(2,3,4):(12,4,1)", "--shape", "B=3,4"],
           [E, "--shape", "A=2,3", "--shape", "B=3,4", "--shape", "C=2,5"],
           [E, "--shape", "A=2,3", "--shape", "B=3,4", "--shape", "A=2,3"], [E, "--shape", "A="],
           [E, "--shape", "=2,3"], [E, "--layout", "A=S<3,3,3> o 0 o (2,3):(3,1)", "--shape", "B=3,4"],
           ["i->i", "--shape", "A=4"], ["abcdefghijklmnopqrstuvwxyz,abcdefghijklmnopqrstuvwxyz->"], [""],
           ["->"], ["ij,jk->ik" + "k" * 500], ["@/nonexistent/einsum"], [E],
           [E, "--layout", "A=(2,3):(3,1)", "--layout", "A=(2,3):(1,2)", "--shape", "B=3,4"],
           [E, "--layout", "A=(2,3):(3,1)", "--layout", "a=(2,3):(1,2)", "--shape", "B=3,4"],
           [E, "--layout", "Z=(2,3):(3,1)", "--shape", "B=3,4"]]
    out = [(["fold"] + a, None, {2}) for a in bad]
    big = [[E, "--shape", "A=" + "9" * 21 + ",3", "--shape", "B=3,4"],
           [E, "--shape", "A=65536,65536", "--shape", "B=65536,65536"],
           [E, "--shape", "A=2,3", "--shape", "B=3,4", "--stride", "A=" + "9" * 23 + ",1"],
           [E, "--layout", "A=(M,3):(3,1)", "--shape", "B=3,4"], [",->"]]  # ',->': scalars, a 1x1x1 GEMM
    out += [(["fold"] + a, None, {0, 2}) for a in big]
    out += [(["fold", "-", "--shape", "A=2,3", "--shape", "B=3,4"], "ij,jk->ik\n", {0}),
            (["fold", "@" + _f("einsum.txt"), "--shape", "A=2,3", "--shape", "B=3,4"], None, {0})]
    return out


def _spec():
    out = [(["spec", "list", "zzz"], None, {0}), (["spec", "list", "--kind", "bad"], None, {2}),
           (["spec", "list", "--arch", "sm_\x00"], None, {0, 2})]
    for args in (["show", ""], ["show", "NOPE_SPEC"], ["show", FAMILY, "--param", "N=abc"],
                 ["show", FAMILY, "--param", "N=7"], ["show", FAMILY, "--param", "N"], ["show", FAMILY, "--param", "=3"],
                 ["show", FAMILY, "--param", "N=" + "9" * 30], ["show", TN, "--param", "Q=3"],
                 ["draw", "NOPE"], ["draw", FAMILY], ["draw", FAMILY, "-p", "N=3"], ["draw", FAMILY, "-p", "N=abc"],
                 ["draw", TN, "-o", "/nonexistent/dir/x.svg"], ["draw", TN, "-o", _f("x.png")],
                 ["draw", TN, "--format", "pdf"], ["check", "/nonexistent/specs"], ["check", _f("bad_yaml.yaml")],
                 ["check", _f("bad_spec.yaml")], ["check", _f("empty.yaml")], ["validate-hw"],
                 ["validate-hw", "/nonexistent.jsonl"], ["validate-hw", _f("no_records.jsonl")],
                 ["validate-hw", _f("not_json.jsonl")], ["validate-hw", _f("empty.jsonl")],
                 ["validate-hw", _f("bad.jsonl.gz")], ["validate-hw", _f("binary.jsonl")],
                 ["validate-hw", _f("truncated.jsonl.gz")], ["validate-hw", _f("numbers.jsonl")], ["nosuchsub"]):
        out.append((["spec"] + args, None, {2}))
    return out


def _check():
    ok = _f("ok.cute.yaml")
    out = [(["check", ok, "-j", j], None, {2}) for j in ("0", "-1", "abc")]
    out += [(["check", ok, "--junit-xml", "/nonexistent/dir/x.xml"], None, {2}),
            (["check", ok, "--html", "/nonexistent/dir/x.html"], None, {2}), (["check", ok, "--html", str(FILES)], None, {2}),
            (["check"], None, {2}), (["check", str(FILES)], None, {2}), (["check", ok, ok], None, {0}),
            (["check", ok, "--html", _f("r.html"), "--junit-xml", _f("r.xml")], None, {0})]
    return out


def _tma():
    T = ["tma", "--dtype", "bf16"]
    S = T + ["--shape", "(64,64)"]
    bad = [S + ["--stride", "(1,1.5)"], S + ["--element-strides", "(abc)"], S + ["--address", "abc$"],
           S + ["--interleave", "BAD"], S + ["--l2-promotion", "BAD"], S + ["--oob-fill", "BAD"],
           S + ["--multicast", "abc"], S + ["--arch", "sm_70"], S + ["--swizzle", ""], S + ["--box", "((("],
           S + ["--gmem", "(64,64):(64,1)"], T, ["tma", "--dtype", "-16", "--shape", "(64,64)"],
           ["tma", "--dtype", "0", "--shape", "(64,64)"], ["tma", "--shape", "(64,64)"],
           T + ["--gmem", "(M,K):(K,1)", "--smem", "(((("], T + ["--shape", DEEP],
           T + ["--shape", "(K,M)", "-a", "K >= 5", "-a", "K <= 3"], T + ["--shape", "(64,64)", "-a", "garbage"],
           S + ["--multicast", "0"], S + ["--multicast", "-1"], S + ["--smem-align", "0"], S + ["--smem-align", "3"],
           S + ["--address", "-16"], S + ["--address", "1/2"], S + ["-a", "Q >= 3"], T + ["--shape", "@/nonexistent/x"],
           T + ["--gmem", "(M,K):(1,M)", "--smem", "(64,64):(1,64)", "--multicast", "0"],
           T + ["--gmem", "(M,K):(1,M)", "--smem", "(64,64):(1,64)", "-a", "Z % 8 == 0"]]
    out = [(a, None, {2}) for a in bad]
    out += [(T + ["--shape", "@" + _f("tma_shape.txt"), "--box", "-"], "(64,64)\n", {0}),
            (S + ["--address", "A*16", "-a", "A >= 1"], None, {0}),
            (T + ["--shape", "(64,W,H,N)", "--im2col", "P,8", "--lower", "(-1,-1)", "--upper", "(0,0)", "-a",
                  "P % 8 == 0"], None, {0, 1, 3})]
    # verdicts, not malformed arguments: a negative stride or dimension breaks the driver's rules
    out += [(S[:-1] + ["(64,64)", "--stride", "(1,-64)"], None, {1}), (T + ["--shape", "(-64,64)"], None, {1, 2}),
            (T + ["--shape", "(18446744073709551617,64)"], None, {1, 2}),
            (T + ["--shape", "(64,64,64,64,64,64)"], None, {1, 2}), (T + ["--shape", "()"], None, {1, 2}),
            (S + ["--element-strides", "(0,1)"], None, {1, 2}),
            (T + ["--gmem", "(4,8):(1,4)", "--smem", "(65536,65536):(65536,1)"], None, {1, 2})]
    return out


def _algebra():
    return [(["algebra", "A"], None, {2}), (["algebra", "M*N"], None, {2}), (["algebra", "A", "-s", "B"], None, {2}),
            (["algebra", " A "], None, {2}), (["algebra", "M*N", "-s", "M,N"], None, {0}),
            (["algebra", "M", "-a", "M % 8 == 0"], None, {0}), (["algebra", "A", "--let", "A=(4,8):(1,4)"], None, {0})]


def _tiled_mma():
    out = [(["tiled-mma", a], None, {2}) for a in ("NOPE", "", FAMILY, "(4,8):(1,4)")]
    for extra in (["--atom-layout", "((("], ["--atom-layout", "(0,1,1)"], ["--atom-layout", "(-2,1,1)"],
                  ["--permutation", "(7,32,16)"], ["--draw", "/nonexistent/dir/x.svg"], ["--param", "N=abc"],
                  ["--operand", "Z"], ["--atom-layout", DEEP], ["--permutation", "abc"],
                  ["--permutation", "(32,M,16)"], ["--permutation", "(32,(M,2):(1,M),16)"]):
        out.append((["tiled-mma", TN] + extra, None, {2}))
    out.append((["tiled-mma", TN, "--atom-layout", "(65536,65536,1)"], None, {0, 2}))
    return out


def _desc():
    D = ["desc", "--smem", "(64,64):(64,1)", "-d"]
    bad = [["desc", "--smem", "((((", "-d", "bf16"], D + ["nope"], ["desc", "--smem", "NOPE_ATOM", "-d", "bf16"],
           D + ["bf16", "--tile", "(0,0)"], D + ["bf16", "--mn", "0"], D + ["bf16", "--mn-block", "-1"],
           D + ["bf16", "--address", "x$"], D + ["-16"], ["desc", "-d", "bf16"], D + ["bf16", "--arch", "sm_70"],
           ["desc", "--smem", "(M,64):(64,1)", "-d", "bf16", "-a", "M >= 5", "-a", "M <= 3"],
           ["desc", "--smem", DEEP, "-d", "bf16"], D + ["bf16", "--tile", "(-1,64)"], D + ["bf16", "--tile", "(1/2,64)"],
           ["tma", "--dtype", "bf16", "--gmem", "(M,K):(1,M)", "--smem", "GMMA_MN_SW128", "--tile", "(0,64)"]]
    big = [["desc", "--smem", "(65536,65536):(65536,1)", "-d", "bf16"],
           ["desc", "--smem", "S<3,3,3> o 0 o (65536,65536):(65536,1)", "-d", "bf16", "--mn", "64", "--k", "100000"],
           ["desc", "--smem", "(65536,65536):(65536,1)", "-d", "bf16", "--mn", "256", "--mn-block", "255"]]
    return [(a, None, {2}) for a in bad] + [(a, None, {1, 2}) for a in big]


CP = "cp_async:128:thr=(16,8):(8,1)"
LD = "ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:2x2x1"


def _synthesize():
    S = ["synthesize", "-t", "128x64"]
    bad = [S, ["synthesize", "-t", "0x64", "-w", CP], ["synthesize", "-t", "100x64", "-w", CP],
           ["synthesize", "-t", "128x", "-w", CP], ["synthesize", "-t", "-128x64", "-w", CP],
           S + ["-d", "nope", "-w", CP], S + ["-w", "cp_async:128:thr=(((("], S + ["-w", "cp_async:100:thr=(16,8):(8,1)"],
           S + ["-r", "ldmatrix:C:SM80_16x8x16_F32F16F16F32_TN:2x2x1"], S + ["-r", "ldmatrix:A:NOPE_ATOM:2x2x1"],
           S + ["--require", "foo"], S + ["-r", "tv:16:(4096,4096):(4096,1)"], S + ["-r", "bogus:1:2"],
           S + ["-r", "tv:16:" + DEEP], S + ["-w", CP, "-r", "wgmma:C"], S + ["-r", "tv:3:(32,8):(8,1)"],
           S + ["-r", "ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:0x2x1"]]
    big = [["synthesize", "-t", "65536x65536", "-w", CP], S + ["-r", "ldmatrix:A:SM80_16x8x16_F32F16F16F32_TN:100000x1x1"],
           ["synthesize", "-t", "8x8", "-d", "f32", "--require", "gmma"], S + ["-w", CP, "--padding", "-d", "e4m3"]]
    return [(a, None, {2}) for a in bad] + [(a, None, {0, 1, 2}) for a in big]


def _why():
    W = ["-t", "64x64", "-r", LD]
    bad = [["why", "((((", *W], ["why", "(64,64):(64,1)", "-t", "64x64"], ["why", "(32,32):(32,1)", *W],
           ["why", "(M,64):(64,1)", *W], ["why", "(64,64):(64,1)", *W, "--require", "bogus"], ["why", DEEP, *W],
           ["why", "(64,64):(64,1)", "-t", "64x64", "-r", "tv:3:(32,8):(8,1)"], ["why", "(64,64):(-64,1)", *W],
           ["why", "(64,64):(64,1)", "-t", "6x64", "-r", LD], ["why", "(64,64):(64,1)", "-t", "64x64", "-r", "ldmatrix:A"],
           ["why", "(64,64):(1@0,1@1)", *W]]
    big = [["why", "(65536,65536):(65536,1)", "-t", "65536x65536", "-r", LD], ["why", "(64,64):(0,0)", *W],
           ["why", "(64,64):(64,1)", *W, "--padding"]]
    return [(a, None, {2}) for a in bad] + [(a, None, {0, 1, 2}) for a in big]


BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"


def _triton():
    T = ["triton", "show"]
    bad = [T + ["#ttg.blocked<{", "--shape", "16x16"], T + ["#ttg.amd_mfma<{versionMajor = 3}>", "--shape", "16x16"],
           T + [BLOCKED, "--shape", "0x16"], T + [BLOCKED, "--shape", "3x16"], T + [BLOCKED],
           ["triton", "equal", BLOCKED.replace("[8, 4]", "[8, 8]"), "--shape", "32x32", "--cute", "(256,4):(4,1)"], T + [BLOCKED.replace("order = [1, 0]", "order = [1, 1]"),
           "--shape", "32x32"], T + ["#ttg.blocked<{sizePerThread = " + "[" * 500 + "]" * 500 + "}>", "--shape", "16x16"],
           T + ["#ttg.linear<{register = [[0, 1, 2]], lane = [], warp = [], block = []}>", "--shape", "16x16"],
           ["triton", "equal", BLOCKED, "--shape", "32x32"], ["triton", "equal", BLOCKED, "--shape", "32x32", "--atom", "NOPE_ATOM",
           "--operand", "C"], ["triton", "types", "/nonexistent/file.ttgir"], ["triton", "types", _f("bad_yaml.yaml")],
           ["triton", "equal", BLOCKED, "--shape", "32x32", "--cute", "(((("], T + ["#blocked", "--shape", "32x32"],
           T + ["#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>", "--shape", "32x32"]]
    big = [T + [BLOCKED, "--shape", "1048576x1048576"], T + [BLOCKED.replace("[4, 1]", "[65536, 1]"), "--shape", "64x64"],
           ["triton", "equal", BLOCKED, "--shape", "65536x65536", "--attr", BLOCKED],
           ["triton", "equal", BLOCKED, "--shape", "32x32", "--cute", "(128,8):(8,1)"]]
    return [(a, None, {2}) for a in bad] + [(a, None, {0, 1, 2, 3}) for a in big]


def _cp_async_banks():
    C = ["cp-async-banks", "--dtype", "f16"]
    SRC, DST = ["--src", "((16,8),(8,1)):((4096,8),(1,0))"], ["--dst", "((16,8),(8,1)):((1,128),(16,0))"]
    bad = [C + SRC, C + DST, C + SRC + ["--dst", "(((("], C + ["--src", DEEP] + DST, C + SRC + DST + ["--size", "12"],
           C + SRC + DST + ["--size", "8", "--cache", "cg"], C + SRC + DST + ["--cache", "cb"],
           C + SRC + DST + ["--gmem-base", "-16"], C + SRC + DST + ["--smem-base", "3"],
           C + SRC + ["--dst", "(16,4):(4,1)"], C + SRC + DST + ["--smem", "(8,8):(8,1)"],
           ["cp-async-banks", "--dtype", "u4"] + SRC + DST, C + SRC + DST + ["-a", "Q >= 3"],
           C + ["--src", "((16,8),(8,1)):((K,8),(1,0))"] + DST + ["-a", "K >= 5", "-a", "K <= 3"],
           C + ["--src", "((16,8),(K,1)):((4096,8),(1,0))"] + DST]
    ok = [(C + SRC + DST, None, {1}), (C + ["--src", "((16,8),(8,1)):((K,8),(1,0))"] + DST + ["-a", "K % 8 == 0"],
                                       None, {1, 3}),
          (C + ["--src", "((16,8),(8,1)):((1048576,8),(1,0))", "--dst", "((16,8),(8,1)):((1,128),(16,0))",
                "--smem", "(16,64):(64,1)"], None, {0, 1})]
    return [(a, None, {2}) for a in bad] + ok


def _trace():
    """trace capture's refusals that come before any script runs (no CuTe DSL needed)."""
    C = ["trace", "capture"]
    here = str(pathlib.Path(__file__).resolve())  # an existing .py file
    bad = [C, C + ["--", "/nonexistent/kernel.py"], C + ["--arch", "hopper", "--", here], C + ["--arch", "", "--", here],
           C + ["--arch", "sm_80" * 1000, "--", here], C + ["--", "no-such-interpreter-cv", here],
           C + ["--", "/bin/sh"], C + ["--", "/bin/sh", "-c", "true"], C + ["--timeout", "0", "--", here],
           C + ["-o", "/dev/null/captures", "--", here], C + ["--", "x" * 5000 + ".py"],
           C + ["--", "/bin/sh", "/nonexistent/kernel.py"], ["trace", "no-such-subcommand"],
           C + ["--", "not_python.txt"]]
    return [(a, None, {2}) for a in bad]


GROUPS = {"cp-async-banks": _cp_async_banks, "loops": _loops, "fold": _fold, "spec": _spec, "check": _check, "tma": _tma, "algebra": _algebra,
          "tiled-mma": _tiled_mma, "desc": _desc, "synthesize": _synthesize, "why": _why, "triton": _triton, "trace": _trace}


def verb_cases():
    """(name, args, stdin, allowed exit codes) for the verbs the CLI has (a verb another change removes drops out)."""
    from cuteverify.frontend.cli.main import COMMANDS
    out = []
    for verb, make in GROUPS.items():
        if verb not in COMMANDS:
            continue
        for k, (args, stdin, codes) in enumerate(make()):
            out.append((f"verb-{verb}-{k}", args, stdin, codes))
    return out


def _long_parse_error():
    import cuteverify as cv
    try:
        cv.parse("(4,8):(1,4) " + "x" * 100000)
    except cv.ParseError as e:
        assert len(str(e)) < 400 and "^" in str(e), len(str(e))
        raise


def api_cases():
    """(name, thunk, expected) as test_hostile._api_cases."""
    import cuteverify as cv
    return [
        ("agrees_mismatch", lambda: cv.agrees("(32,4):(1,32)", TN, "A"), "input"),
        ("agrees_mismatch_layout", lambda: cv.agrees(cv.parse("(32,4):(1,32)"), TN, "A"), "input"),
        ("agrees_negative_dtype", lambda: cv.agrees(TV_A, TN, "A", dtype=-16), "input"),
        ("agrees_missing_param", lambda: cv.agrees(TV_A, FAMILY, "A"), "input"),
        ("agrees_text_hint", lambda: _hinted(cv), "ok"),
        ("long_parse_error", _long_parse_error, "input"),
        ("agrees_tiled_thread_count", lambda: cv.agrees_tiled(_tiled_a(2), TN, "A", atom_layout_mnk=(2, 2, 1)),
         "input"),
        ("agrees_tiled_rank", lambda: cv.agrees_tiled("(4,8,2):(1,4,32)", TN, "A"), "input"),
        ("agrees_tiled_ok", lambda: _proved(cv.agrees_tiled(_tiled_a(4), TN, "A", atom_layout_mnk=(2, 2, 1))), "ok"),
        ("tiled_mma_symbolic_permutation", lambda: _tiled_symbolic(), "undecided"),
        *((f"subs_not_positive[{i}]", (lambda v=v: cv.parse("(M,4):(1,M)").subs(M=v)), "input")
          for i, v in enumerate((0, -3, "abc", "N", 1.5, True, None))),
        ("subs_positive", lambda: _subs_ok(cv), "ok"),
        ("same_ownership_none", lambda: cv.same_ownership(None, None), "input"),
        ("equal_function_text", lambda: cv.equal_function("4:1", "4:1"), "input"),
        ("to_linear_none", lambda: cv.to_linear_layout(None), "input"),
        ("to_linear_symbolic", lambda: cv.to_linear_layout("(M,4):(1,M)"), "input"),
        ("from_linear_text", lambda: cv.from_linear_layout("#ttg.blocked"), "input"),
        ("linear_layout_bad_basis", lambda: cv.LinearLayout({"register": [(1, 2, 3)]}, {"dim0": 4}), "input"),
        ("synthesize_writes_int", lambda: cv.synthesize_smem_layout(tile=(64, 64), writes=5), "input"),
        # tile text is read as the CLI reads --tile (issue 25): a malformed one is the input error
        ("synthesize_tile_text", lambda: cv.synthesize_smem_layout(tile="128by64", writes=["tma"]), "input"),
        ("explain_none", lambda: cv.explain_smem_layout(None, (64, 64), reads=["tma"]), "input"),
        ("triton_other_none", lambda: cv.prove_triton_equals(BLOCKED, (32, 32), None), "input"),
        ("triton_huge_shape", lambda: cv.prove_triton_equals(BLOCKED, (1 << 40, 1 << 40), "(128,8):(8,1)"), "input"),
        ("loops_bad", lambda: cv.loops.parse_loop_nest("for i in range(0,4,0): A[i]"), "input"),
        ("loops_not_text", lambda: cv.loops.parse_loop_nest("for i in range(4) A[i]"), "input"),
    ]


def _subs_ok(cv):
    L = cv.parse("(M,4):(1,M)").subs(M=3)
    assert [L(i) for i in range(12)] == [(i % 3) + 3 * (i // 3) for i in range(12)], L
    return L


def _tiled_a(atoms):
    from cuteverify.atoms import make_tiled_mma
    return make_tiled_mma(TN, (atoms, 1, 1) if atoms == 2 else (2, 2, 1)).tv_layout_A_tiled


def _proved(v):
    assert v.proved, v
    return v


def _tiled_symbolic():
    from cuteverify.atoms import make_tiled_mma
    return make_tiled_mma(TN, (1, 1, 1), ("abc", None, None)).tv_layout_tiled("A")


def _hinted(cv):
    v = cv.agrees("S<3,4,3> o 0 o (8,64):(64,1)", "GMMA_K_SW128", dtype="bf16")
    assert v.status == "refuted" and "bytes and elements" in (v.reason or ""), v
    return v


def test_every_verb_has_hostile_cases():
    """Every command of ``cuteverify --help`` gets at least 10 hostile cases (here or in test_hostile.py)."""
    import test_hostile
    from cuteverify.frontend.cli.main import COMMANDS
    counts = {}
    for _, args, _, _ in test_hostile.cli_cases():
        counts[args[0]] = counts.get(args[0], 0) + 1
    counts["check"] = counts.get("check", 0) + len(test_hostile.manifest_cli_cases())
    thin = {v: counts.get(v, 0) for v in COMMANDS if counts.get(v, 0) < 10}
    assert not thin, thin


def test_errors_name_the_option():
    """An input error names the option it is about (not an operation deeper down)."""
    from click.testing import CliRunner

    from cuteverify.frontend.cli.main import main
    E = "ij,jk->ik"
    for args, name in ((["desc", "--smem", "(64,64):(64,1)", "-d", "bf16", "--tile", "(0,0)"], "--tile"),
                       (["fold", E, "--layout", "A=(2,3):(3,1)", "--layout", "A=(2,3):(1,2)", "--shape", "B=3,4"],
                        "--layout"),
                       (["tiled-mma", TN, "--permutation", "abc"], "--permutation"),
                       (["tma", "--dtype", "bf16", "--shape", "(64,64)", "--multicast", "0"], "multicast"),
                       (["loops", "for i in range(4): A[i]]"], "column 24")):
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 2 and name in r.output, (args, r.output)
