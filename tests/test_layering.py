"""The house keeps its shape (docs/model.md section 1): imports point down the layers only, no cycles
(function-local imports counted), no hidden project imports inside functions beyond the documented few,
files under 600 lines, and every exception class of the library in the CuteVerifyError family."""
from __future__ import annotations

import ast
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = {"cuteverify": ROOT / "cuteverify"}

# bottom to top; a module may import its own layer and the layers below
LAYERS = [
    ("cuteverify.errors",),
    ("cuteverify.symbolic",),
    ("cuteverify.core",),
    ("cuteverify.algebra",),
    # F2 linear layouts: CuTe layouts in, Triton's LinearLayout model out; no prover needed (ranks decide)
    ("cuteverify.linear",),
    ("cuteverify.prover",),
    ("cuteverify.hardware",),
    # the atom layer builds tiled MMAs and copies from the spec library's atoms, so it sits above it
    ("cuteverify.atoms",),
    ("cuteverify.analysis",),
    # Triton's layouts and smem-layout synthesis use the analyses (bank conflicts, vector widths)
    ("cuteverify.triton", "cuteverify.synth"),
    ("cuteverify.frontend", "cuteverify.draw"),
]
# function-local imports of project modules that are there on purpose: (module, imported module) -> why
LOCAL_IMPORTS_ALLOWED = {
    ("cuteverify.symbolic.decide", "cuteverify.symbolic.tactics"):
        "the sympy tactics load on the first symbolic question; concrete work never pays for them",
}
MAX_LINES = 600
BASE_EXCEPTIONS = {"Exception", "ValueError", "KeyError", "TypeError", "RuntimeError", "LookupError"}


def _modules():
    out = {}
    for pkg, root in PACKAGES.items():
        for path in root.rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(root).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([pkg] + parts)] = path
    return out


MODULES = _modules()


def _layer(mod: str) -> int | None:
    if mod == "cuteverify":
        return len(LAYERS) - 1  # the public facade re-exports every layer: front ends may use it
    for i, group in enumerate(LAYERS):
        if any(mod == g or mod.startswith(g + ".") for g in group):
            return i
    return None


def _imports(mod: str):
    """(imported project module, line, is_function_local) for every import statement of ``mod``."""
    path = MODULES[mod]
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".")
                base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            cands = [target + "." + a.name for a in node.names] + [target]
        elif isinstance(node, ast.Import):
            cands = [a.name for a in node.names]
        else:
            continue
        for t in cands:
            if t in MODULES and t != mod:
                yield t, node.lineno, node.col_offset > 0
                break


def test_every_module_has_a_layer():
    assert [m for m in MODULES if _layer(m) is None] == []


def test_imports_point_down():
    bad = []
    for mod in MODULES:
        lm = _layer(mod)
        for target, line, _ in _imports(mod):
            lt = _layer(target)
            if lt > lm:
                bad.append(f"{MODULES[mod].relative_to(ROOT)}:{line} {mod} imports {target} from a higher layer")
    assert bad == []


def test_no_hidden_local_imports():
    bad = []
    for mod in MODULES:
        for target, line, local in _imports(mod):
            if local and (mod, target) not in LOCAL_IMPORTS_ALLOWED:
                bad.append(f"{MODULES[mod].relative_to(ROOT)}:{line} imports {target} inside a function")
    assert bad == []


def test_no_import_cycles():
    # package __init__ files only re-export; a cycle through one is not a dependency cycle
    edges = {m: {t for t, _, _ in _imports(m) if MODULES[t].name != "__init__.py"}
             for m in MODULES if MODULES[m].name != "__init__.py"}
    state, cycle = {}, []

    def visit(m, trail):
        state[m] = 1
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                cycle.append(trail[trail.index(t):] + [t])
            elif t not in state:
                visit(t, trail + [t])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    assert cycle == []


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_file_size(mod):
    n = MODULES[mod].read_text().count("\n")
    assert n <= MAX_LINES, f"{MODULES[mod].relative_to(ROOT)} has {n} lines"


def test_exceptions_are_cuteverify_errors():
    bad = []
    for mod, path in MODULES.items():
        if mod == "cuteverify.errors":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                if bases & BASE_EXCEPTIONS and not any(b.endswith("Error") and b not in BASE_EXCEPTIONS
                                                       for b in bases):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}{tuple(sorted(bases))}")
    assert bad == []


def test_error_kinds_map_to_exit_codes():
    import cuteverify.errors as E
    assert E.exit_code(E.ParseError("x", 1, "y")) == E.EXIT_INPUT == 2
    assert E.exit_code(E.UndecidedError("q")) == E.EXIT_UNKNOWN == 3
    assert E.exit_code(E.OutOfBudget("big")) == E.EXIT_INTERNAL == 4
    assert E.exit_code(RuntimeError("bug")) == 4


def test_package_docstrings_say_what_they_may_import():
    for mod, path in MODULES.items():
        if path.name == "__init__.py" and mod not in ("cuteverify", "cuteverify.frontend.cli"):
            doc = ast.get_docstring(ast.parse(path.read_text())) or ""
            assert "May import" in doc, f"{path.relative_to(ROOT)} does not say what it may import"


def test_every_package_is_installed():
    """A non-editable install ships exactly the packages pyproject lists: each package directory must be there."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    present = {m for m, p in MODULES.items() if p.name == "__init__.py"}
    assert present - listed == set()
