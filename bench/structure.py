"""How many of each mechanism the code holds (issue 27's "Done means"), measured from the source by AST scans.

    python bench/structure.py [CHECKOUT ...]        # default: this checkout; give an older one to compare

Each count is a definition written below, not a judgement: it names what it matches, so a reader can check a
number by reading the list it prints with ``-v``. The counts:

- ``exceptions outside errors.py``: classes deriving (by name) from an ``*Error`` / ``Exception`` base defined in
  any module but ``cuteverify/errors.py``.
- ``private cross-module imports``: ``from M import _x`` where M is another cuteverify module, plus
  ``alias._x`` attribute reads on a name bound to another cuteverify module.
- ``z3 outside the bridge``: modules other than ``symbolic/smt.py`` and ``symbolic/lazy.py`` that read an
  attribute of ``z3``.
- ``text -> layout helpers``: functions named ``as_layout``, ``_as_layout``, ``to_layout``, ``coerce``,
  ``_from_text``, ``reads_text`` or ``*_as_layout`` (the job: "text or object -> Layout").
- ``spec resolvers``: functions named ``resolve``, ``resolve_spec`` or ``resolve_instance`` (name -> Spec).
- ``verdict / result families``: classes named ``*Verdict`` or ``*Result`` or with a ``status`` field whose
  bases are none of these (a subclass that adds exact numbers belongs to its base's family).
- ``claim-kind branches``: comparisons of a name ending in ``kind`` with a claim kind's name (``kind ==
  "agrees"``, ``c.kind in ("banks", "vector")``) in the front ends outside a kind's own module
  (``frontend/manifest/claims_*.py``): the branches a new claim kind has to touch.
- ``verdict JSON shapes`` (run, not scanned): eight verbs (injective, surjective, bijective, equal, agrees,
  banks, tma, desc) on refuted inputs with ``--json`` and one ``check --json`` row of a refuted claim, run by the
  checkout's own interpreter; a shape is the set of the verdict's own keys present (status, what, verdict,
  method, reason, obligations, discharged, notes, elapsed and every ``counterexample*`` key; the exact numbers a
  kind adds, such as a bank conflict's degree, are not part of it) plus the type of each counterexample key.
- ``extents / permutation readers``: functions whose name says they read a tile, extents or a permutation
  (``*extent*``, ``*tile*`` / ``*tiler*`` with ``read``/``parse``/``_of``, ``*perm*``) and whose body splits or
  matches text (``.split(``, ``re.<function>(``), outside the notation package.
- ``swizzle-mode tables``: modules with a module-level dict or tuple whose literal keys or items spell two or
  more swizzle modes (``128B``, ``SWIZZLE_128B``, ``B128``, ``SW128``...) and no L2-promotion name (``L2_*``).
- ``operand maps``: dict literals whose keys include ``"A"``, ``"B"`` and ``"C"``, are all operand names
  (A, B, C, D, scale factors, sparsity metadata) and whose values are all tuples (the operand -> (M,N,K) modes
  map, by index or by letter).
"""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

FRONT_END = re.compile(r"cuteverify\.(frontend|cli|manifest|report|checked|testing|pytest_plugin|messages)")
CLAIM_KIND_MODULE = re.compile(r"cuteverify\.frontend\.manifest\.claims_\w+$")  # a kind's own module
CLAIM_KINDS = {"bijective", "injective", "surjective", "equal", "disjoint", "agrees", "prove", "covers", "compatible",
               "banks", "vector", "tma", "triton", "smem_optimal", "operand"}
OPERANDS = {"A", "B", "C", "D", "SFA", "SFB", "E"}
SWIZZLE_WORD = re.compile(r"^(SWIZZLE_)?(128B|64B|32B|B128|B64|B32|SW128|SW64|SW32|128B_BASE32B|INTERLEAVE)$")


def modules(root: Path) -> dict:
    out = {}
    for base, pkg in ((root / "cuteverify", "cuteverify"), (root / "cli", "cuteverify.frontend.cli")):
        if not base.is_dir():
            continue
        for p in base.rglob("*.py"):
            if "__pycache__" in p.parts:
                continue
            rel = p.relative_to(base).with_suffix("").parts
            name = ".".join([pkg] + [x for x in rel if x != "__init__"])
            out[name] = p
    return out


def _target(name, path, node):
    if node.level:
        parts = name.split(".")
        keep = len(parts) - node.level + (1 if path.name == "__init__.py" else 0)
        return ".".join(parts[:keep] + ([node.module] if node.module else []))
    return node.module or ""


def scan(root: Path) -> dict:
    mods = modules(root)
    found = {k: [] for k in ("exceptions outside errors.py", "private cross-module imports", "z3 outside the bridge",
                             "text -> layout helpers", "spec resolvers", "verdict / result families",
                             "extents / permutation readers", "swizzle-mode tables", "operand maps",
                             "claim-kind branches")}
    results = {}
    for name, path in sorted(mods.items()):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text())
        module_alias = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                tgt = _target(name, path, node)
                for a in node.names:
                    full = tgt + "." + a.name
                    if full in mods and full != name:
                        module_alias[a.asname or a.name] = full
                    elif tgt in mods and tgt != name and a.name.startswith("_") and not a.name.startswith("__"):
                        found["private cross-module imports"].append(f"{rel}: {a.name} from {tgt}")
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in mods and a.asname:
                        module_alias[a.asname] = a.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id in module_alias and node.attr.startswith("_") and not node.attr.startswith("__"):
                    found["private cross-module imports"].append(f"{rel}: {node.value.id}.{node.attr}")
                if node.value.id == "z3" and not rel.endswith(("symbolic/smt.py", "symbolic/lazy.py")):
                    found["z3 outside the bridge"].append(rel)
            if isinstance(node, ast.ClassDef):
                bases = [getattr(b, "id", getattr(b, "attr", "")) for b in node.bases]
                if not rel.endswith("cuteverify/errors.py") and any(b.endswith("Error") or b == "Exception" for b in bases):
                    found["exceptions outside errors.py"].append(f"{rel}: {node.name}")
                fields = {t.target.id for t in node.body if isinstance(t, ast.AnnAssign) and isinstance(t.target, ast.Name)}
                if node.name.endswith(("Verdict", "Result")) or "status" in fields:
                    results[node.name] = (rel, bases)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.name
                if n in ("as_layout", "_as_layout", "to_layout", "coerce", "_from_text", "reads_text") \
                        or n.endswith("_as_layout"):
                    found["text -> layout helpers"].append(f"{rel}: {n}")
                if n in ("resolve", "resolve_spec", "resolve_instance"):
                    found["spec resolvers"].append(f"{rel}: {n}")
                low = n.lower()
                reads = ("extent" in low or "perm" in low
                         or (("tile" in low or "tiler" in low) and any(w in low for w in ("read", "parse", "_of"))))
                if reads and "/core/notation/" not in rel and "/core/tiles.py" not in rel:
                    body = ast.unparse(node)
                    if ".split(" in body or re.search(r"\bre\.\w+\(", body):
                        found["extents / permutation readers"].append(f"{rel}: {n}")
            if isinstance(node, ast.Compare) and FRONT_END.match(name) and not CLAIM_KIND_MODULE.match(name):
                sides = [node.left, *node.comparators]
                names = [getattr(x, "id", getattr(x, "attr", "")) for x in sides]
                words = {c.value for x in sides for c in ast.walk(x) if isinstance(c, ast.Constant)}
                if any(n.endswith("kind") for n in names) and words & CLAIM_KINDS:
                    found["claim-kind branches"].append(f"{rel}:{node.lineno}")
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                if {"A", "B", "C"} <= keys and keys <= OPERANDS and all(isinstance(v, ast.Tuple) for v in node.values):
                    found["operand maps"].append(f"{rel}:{node.lineno}")
        for node in tree.body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if value is None:
                continue
            words = [c.value for c in ast.walk(value) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
            if sum(bool(SWIZZLE_WORD.match(w)) for w in words) >= 2 and not any(w.startswith("L2_") for w in words):
                found["swizzle-mode tables"].append(rel)
    found["verdict / result families"] = [f"{rel}: {n}" for n, (rel, bases) in sorted(results.items())
                                          if not any(b in results for b in bases)]
    for k in ("z3 outside the bridge", "swizzle-mode tables"):
        found[k] = sorted(set(found[k]))
    return found


SHAPES_SCRIPT = r"""
import json, os, sys, tempfile
from click.testing import CliRunner
try:
    from cuteverify.frontend.cli.main import main
except ImportError:
    from cuteverify.cli.main import main
SM80 = "SM80_16x8x16_F32BF16BF16F32_TN"
RUNS = [["injective", "(4,8):(1,2)"], ["surjective", "(4,8):(1,5)", "--codomain", "32"],
        ["bijective", "(4,8):(2,8)"], ["equal", "(4,8):(1,4)", "(4,8):(8,1)"],
        ["agrees", "((4,8),(2,2,2)):((32,1),(16,8,64))", "--spec", SM80, "--operand", "A"],
        ["banks", "(64,64):(64,1)", "--access", "((8,2,2),(8,(4,4))):((1,512,8),(64,(16,1024)))"],
        ["tma", "--dtype", "bf16", "--shape", "(64,64)", "--box", "(64,257)"],
        ["desc", "--smem", "(64,64):(64,1)", "-d", "bf16"]]
m = os.path.join(tempfile.mkdtemp(), "m.cute.yaml")
open(m, "w").write('version: 1\nkernels:\n  k:\n    layouts:\n      bad: "(4,8):(1,2)"\n'
                   '    claims:\n      - injective: bad\n')
VERDICT_KEYS = {"status", "what", "verdict", "method", "reason", "obligations", "discharged", "notes",
                "elapsed"}
out = []
for args in RUNS + [["check", m]]:
    r = CliRunner().invoke(main, args + ["--json"])
    try:
        d = json.loads(r.output)
    except ValueError:
        out.append([args[0], "no JSON"]); continue
    if args[0] == "check":
        d = d["results"][0] if isinstance(d, dict) and "results" in d else (d[0] if isinstance(d, list) else d)
    cex = [k for k in d if "counterexample" in k]
    out.append([args[0], sorted(k for k in d if k in VERDICT_KEYS or "counterexample" in k),
                {k: type(d[k]).__name__ for k in cex}])
print(json.dumps(out))
"""


def verdict_shapes(root: Path) -> list:
    """The JSON verdict shapes of ``root``'s CLI (module docstring), run by its own interpreter."""
    python = root / ".venv" / "bin" / "python"
    p = subprocess.run([str(python if python.exists() else sys.executable), "-c", SHAPES_SCRIPT],
                       capture_output=True, text=True, cwd=root, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    if p.returncode != 0:
        return [f"could not run: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else p.returncode}"]
    rows = json.loads(p.stdout)
    shapes = {}
    for verb, *shape in rows:
        shapes.setdefault(json.dumps(shape, sort_keys=True), []).append(verb)
    return [f"{', '.join(v)}: {k}" for k, v in shapes.items()]


def main(argv):
    verbose = "-v" in argv
    roots = [Path(a) for a in argv if a != "-v"] or [Path(__file__).resolve().parent.parent]
    results = [(r, scan(r)) for r in roots]
    for r, f in results:
        f["verdict JSON shapes"] = verdict_shapes(r)
    keys = list(results[0][1])
    width = max(len(k) for k in keys)
    print(f"{'count':<{width}}  " + "  ".join(f"{os.path.basename(str(r.resolve())) or str(r):>12}" for r, _ in results))
    for k in keys:
        print(f"{k:<{width}}  " + "  ".join(f"{len(f[k]):>12}" for _, f in results))
    if verbose:
        for r, f in results:
            print(f"\n== {r}")
            for k in keys:
                for item in f[k]:
                    print(f"  {k}: {item}")


if __name__ == "__main__":
    main(sys.argv[1:])
