#!/usr/bin/env python3
"""Regenerate tests/algebra/cute_ir/cases.json: the cases of CuTe IR's lit tests (NVIDIA/cutlass,
``cutlass_compiler/cute_ir/test``) as data.

What is read (facts only: op, operand types, the result type the test states, expected diagnostics):
  * static cases: every ``%r = cute.<op>(...)`` of the layout-algebra files (``Dialect/Cute/LayoutAlgebra``,
    ``Dialect/Cute/TilingPartitioningProducts``, non-error files) and of the ``cute-fold-static`` files
    (``Transforms/CuteFoldStatic``), with its operand types and result type (the op's ``-> T`` or, where the
    op states none, the function's ``return %r : T``); ``static`` is true when no type text has a ``?``.
    Functions of ``*_errors.mlir`` files with no diagnostic are kept too (``kind: "ok-in-errors"``).
  * error cases: every ``expected-error`` of every ``*_errors.mlir`` file (all 65 files), attached to the
    op (or, for the type parsers' tests, the function signature) on the line it points at
    (``@+N``, ``@below``), with that line's types.
Each type is kept as ``{"kind": "layout" | "composed_layout" | "shape" | "tile" | "coord" | ..., "text": ...}``
with ``text`` the string inside ``!cute.<kind><"...">`` exactly as written (``null`` where the test writes
no string, e.g. ``!cute.layout<32>``).

Usage:  python tests/algebra/cute_ir/gen_cases.py [--git-dir DIR] [--rev REV] [--out FILE]
        default --git-dir /work/.mirror/NVIDIA+cutlass/repo (a bare mirror), --rev HEAD. Needs git only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_GIT = "/work/.mirror/NVIDIA+cutlass/repo"
ROOT = "cutlass_compiler/cute_ir/test"
STATIC_DIRS = ("Dialect/Cute/LayoutAlgebra", "Dialect/Cute/TilingPartitioningProducts",
               "Transforms/CuteFoldStatic")

_STR = re.compile(r'"(?:[^"\\]|\\.)*"')
_TYPE = re.compile(r"!cute\.(\w+)<(\x00\d+\x00|[^<>]*)>")
_OP = re.compile(r"^\s*(?:%(?P<res>[\w]+)(?::\d+)?\s*=\s*)?cute\.(?P<op>\w+)\s*(?P<params><[^>]*>)?\s*"
                 r"(?:\((?P<args>[^)]*)\))?\s*(?P<attrs>\{[^}]*\})?\s*(?::\s*(?P<sig>.*))?$", re.S)
_DIAG = re.compile(r"expected-(?P<kind>error|warning|note)\s*(?P<at>@\S+)?\s*\{\{(?P<msg>.*?)\}\}")
_FUNC = re.compile(r"func\.func\s+(?:private\s+)?@(\w+)")


def git_show(git_dir, rev, path):
    return subprocess.run(["git", "-C", git_dir, "show", f"{rev}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def list_files(git_dir, rev):
    out = subprocess.run(["git", "-C", git_dir, "ls-tree", "-r", "--name-only", rev, ROOT], check=True,
                         capture_output=True, text=True).stdout.split()
    return sorted(p for p in out if p.endswith(".mlir"))


def _protect(text):
    """Quoted strings replaced by ``\\x00k\\x00`` so that brackets and commas inside them are inert."""
    strings = []
    text = re.sub(r'"(cute\.\w+)"', r"\1", text)  # the generic op form "cute.op"(...)

    def sub(m):
        strings.append(json.loads(m.group()) if "\\" in m.group() else m.group()[1:-1])
        return f"\x00{len(strings) - 1}\x00"
    return _STR.sub(sub, text), strings


def _types(text, strings):
    """The ``!cute.<kind><...>`` types of ``text`` in order, as dicts."""
    out = []
    for m in _TYPE.finditer(text):
        body = m.group(2)
        if body.startswith("\x00"):
            out.append({"kind": m.group(1), "text": strings[int(body.strip("\x00"))]})
        else:
            out.append({"kind": m.group(1), "text": None, "raw": body})
    return out


def _statements(lines, first_line):
    """Statements of a chunk: ``(line, text)`` with continuation lines joined; comments dropped."""
    out = []
    for k, raw in enumerate(lines):
        code = raw.split("//", 1)[0].rstrip()
        if not code.strip():
            continue
        s = code.strip()
        starts = (re.match(r"%[\w]+(?::\d+)?\s*=", s) is not None
                  or s.startswith(("return", "func.func", "}", "cute.", "llvm.", "arith.", "scf.")))
        if starts or not out:
            out.append([first_line + k, s])
        else:
            out[-1][1] += " " + s
    return [(ln, t) for ln, t in out]


def _split_sig(sig):
    """``(A, B) -> R`` / ``A, B`` / ``A -> R``: (operand part, result part or None) on protected text."""
    depth, i = 0, 0
    while i < len(sig):
        c = sig[i]
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        elif depth == 0 and sig.startswith("->", i):
            return sig[:i], sig[i + 2:]
        i += 1
    return sig, None


def parse_chunk(path, lines, first_line, errors_file):
    text = "\n".join(lines)
    ptext, strings = _protect(text)
    plines = ptext.split("\n")
    diags = []
    for k, raw in enumerate(lines):
        for m in _DIAG.finditer(raw):
            at = m.group("at") or "@+0"
            diags.append({"line": first_line + k, "at": at, "kind": m.group("kind"), "message": m.group("msg")})
    stmts = _statements(plines, first_line)
    cases, func, func_line, func_sig, ret_types = [], None, None, None, {}
    for ln, s in stmts:
        fm = _FUNC.match(s)
        if fm:
            func, func_line, func_sig = fm.group(1), ln, s
            continue
        if s.startswith("return"):
            m = re.match(r"return\s+(.*?)\s*:\s*(.*)$", s)
            if m:
                names = [x.strip().lstrip("%") for x in m.group(1).split(",")]
                for name, t in zip(names, _types(m.group(2), strings)):
                    ret_types[name] = t
            continue
        m = _OP.match(s)
        if not m:
            continue
        sig = m.group("sig") or ""
        ops_part, res_part = _split_sig(sig)
        if m.group("args") is None and res_part is None:  # ``cute.static : T``: T is the result
            ops_part, res_part = "", ops_part
        operands = _types(ops_part, strings)
        results = _types(res_part, strings) if res_part is not None else []
        cases.append({"line": ln, "func": func, "op": m.group("op"), "res": m.group("res"),
                      "params": [int(x) for x in re.findall(r"-?\d+", m.group("params") or "")],
                      "attrs": (m.group("attrs") or None), "operands": operands,
                      "result": results[0] if results else None,
                      "n_args": len([a for a in (m.group("args") or "").split(",") if a.strip()])})
    for c in cases:
        if c["result"] is None and c["res"] in ret_types:
            c["result"] = dict(ret_types[c["res"]], from_return=True)
    # diagnostics -> the statement on the line they point at
    stmt_lines = [ln for ln, _ in stmts]
    out_errors = []
    for d in diags:
        if d["at"] == "@below":
            target = next((ln for ln in stmt_lines if ln > d["line"]), None)
        else:
            target = d["line"] + int(d["at"][1:])
            # a multi-line statement: the diagnostic may point into it
            target = max((ln for ln in stmt_lines if ln <= target), default=target)
        d["target"] = target
    for c in cases:
        c["diagnostics"] = [d["message"] for d in diags if d["target"] == c["line"]]
    # diagnostics on a function signature (the type parsers' tests)
    sig_diags = [d for d in diags if d["target"] == func_line]
    if sig_diags:
        ptypes = _types(func_sig, strings)
        raw_types = re.findall(r"!cute\.\w+<(?:\x00\d+\x00|[^<>]*)>", func_sig)
        out_errors.append({"line": func_line, "func": func, "op": "type", "operands": ptypes,
                           "raw_types": [t.replace("\x00", "") for t in raw_types],
                           "diagnostics": [d["message"] for d in sig_diags]})
    unplaced = [d for d in diags if d["target"] != func_line and not any(d["target"] == c["line"] for c in cases)]
    if unplaced:
        raise SystemExit(f"{path}:{unplaced[0]['line']}: diagnostic not attached to a statement")
    return cases, out_errors


def read_file(git_dir, rev, path):
    text = git_show(git_dir, rev, path)
    lines = text.split("\n")
    chunks, start = [], 0
    for k, ln in enumerate(lines):
        if re.match(r"^// -----\s*$", ln):
            chunks.append((start, lines[start:k]))
            start = k + 1
    chunks.append((start, lines[start:]))
    errors_file = path.endswith("_errors.mlir")
    cases, errors = [], []
    for start, chunk in chunks:
        cs, es = parse_chunk(path, chunk, start + 1, errors_file)
        cases += cs
        errors += es
    return cases, errors


def is_static(case):
    types = list(case["operands"]) + ([case["result"]] if case.get("result") else [])
    return all(t.get("text") is not None and "?" not in t["text"] for t in types)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", default=DEFAULT_GIT)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--out", default=os.path.join(HERE, "cases.json"))
    a = ap.parse_args()
    commit = subprocess.run(["git", "-C", a.git_dir, "rev-parse", a.rev], check=True, capture_output=True,
                            text=True).stdout.strip()
    static, errors, n_diag, files = [], [], 0, {"static": [], "errors": []}
    for path in list_files(a.git_dir, a.rev):
        rel = path[len(ROOT) + 1:]
        errors_file = rel.endswith("_errors.mlir")
        if not errors_file and not rel.startswith(STATIC_DIRS):
            continue
        cases, type_errors = read_file(a.git_dir, a.rev, path)
        files["errors" if errors_file else "static"].append(rel)
        for c in cases:
            c["source"] = f"{rel}:{c['line']}"
            c["id"] = f"{rel.rsplit('/', 1)[-1][:-5]}:{c['line']}:{c['func']}"
            c["fold"] = rel.startswith("Transforms/CuteFoldStatic")
            c["static"] = is_static(c)
            for k in ("line", "res"):
                c.pop(k)
            if c["diagnostics"]:
                errors.append(c)
            elif errors_file:
                if c["result"] is not None:
                    c["kind"] = "ok-in-errors"
                    static.append(c)
            else:
                c.pop("diagnostics")
                c["kind"] = "fold-static" if c["fold"] else "round-trip"
                static.append(c)
        for e in type_errors:
            e["source"] = f"{rel}:{e['line']}"
            e["id"] = f"{rel.rsplit('/', 1)[-1][:-5]}:{e['line']}:{e['func']}"
            e.pop("line")
            errors.append(e)
    for e in errors:
        e.pop("fold", None)
        e.pop("static", None)
        n_diag += len(e["diagnostics"])
    meta = {
        "source": f"NVIDIA/cutlass {ROOT} at {commit}",
        "cutlass_commit": commit,
        "generated_by": "tests/algebra/cute_ir/gen_cases.py",
        "static_dirs": list(STATIC_DIRS),
        "n_static_files": len(files["static"]), "n_error_files": len(files["errors"]),
        "n_cases": len(static), "n_error_cases": len(errors), "n_diagnostics": n_diag,
        "note": ("type texts exactly as CuTe IR's tests write them (inside !cute.<kind><\"...\">); result = the "
                 "type the test states for the op's result (round-trip files: the type the op's verifier "
                 "accepts; cute-fold-static files: the folded constant); static = no '?' in any type"),
    }
    with open(a.out, "w") as f:
        json.dump({"meta": meta, "cases": static, "errors": errors}, f, indent=1)
        f.write("\n")
    print(f"{len(static)} cases ({sum(c['static'] for c in static)} static), {len(errors)} error cases, "
          f"{n_diag} diagnostics from {len(files['errors'])} error files -> {a.out}")


if __name__ == "__main__":
    main()
