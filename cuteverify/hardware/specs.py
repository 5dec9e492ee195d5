"""The hardware spec library: load, validate, self-check, and compare user layouts with the hardware.

The library is a set of YAML files (shipped in ``specs/``, installed as the package data
``cuteverify.spec_data``, plus any directories named in :data:`SEARCH_PATH` or the ``CUTEVERIFY_SPEC_PATH``
environment variable).  Each file holds named specs of four kinds:

``mma``        an MMA atom: ThrID and the A/B/C TV layouts copied from CUTLASS, plus an independent PTX-ISA
               formula (row, col of element ``i`` held by a thread) per operand;
``copy``       a copy atom (ldmatrix/stmatrix): src/dst TV layouts in bits, with formulas;
``smem_atom``  a shared-memory layout atom (GMMA K/MN x INTER/SW32/SW64/SW128) in element units, with its
               CUTLASS bit-level definition and an offset formula on byte addresses;
``swizzle``    a TMA / wgmma swizzle mode with its enum encodings and a byte-address formula.

Loading validates each file against ``schema.json`` (JSON Schema 2020-12), parses every formula and layout,
and runs :func:`self_check` on every spec; any failure is a :class:`SpecError` naming file, line and reason.

All enumerations here are plain Python ints (layouts are evaluated from their int shape/stride tables and
formulas are compiled once by :mod:`cuteverify.formula`), so the whole library checks in well under a
second.  The functions are deliberately small: ``_operand_problem`` (one operand, one parameter choice)
and ``_compare`` (user vs hardware) are the places a symbolic / Z3 route would plug in.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Iterable, Mapping

import yaml

from ..core.parse import parse
from ..errors import FormulaError, SpecError, SpecInconsistent, UnknownSpec
from . import formula as _fm

__all__ = [
    "SpecError", "Spec", "Library", "AgreeResult", "Counterexample", "SEARCH_PATH", "ENV_VAR",
    "load", "get", "names", "self_check", "agrees", "resolve", "dtype_bits", "default_library", "reload",
]

ENV_VAR = "CUTEVERIFY_SPEC_PATH"
#: Extra directories (or files) searched by :func:`load` after the shipped library; append to extend.
SEARCH_PATH: list = []

# Names a formula may use, per spec kind.
_THREAD_VARS = ("thread", "tid", "lane", "warp")
_TV_VARS = _THREAD_VARS + ("i",)
_SMEM_VARS = ("row", "col")
_SWIZZLE_VARS = ("addr",)


# ------------------------------------------------------------------------------ YAML with line numbers

class _Map(dict):
    """A dict that remembers the line of its mapping (``line``) and of each key (``key_lines``)."""

    line: int | None = None
    key_lines: dict

    def line_of(self, key) -> int | None:
        return getattr(self, "key_lines", {}).get(key, self.line)


class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when available
    """SafeLoader whose mappings are :class:`_Map` objects and which refuses duplicate keys."""


def _construct_map(loader: _LineLoader, node: yaml.MappingNode):
    data = _Map()
    data.line = node.start_mark.line + 1
    data.key_lines = {}
    yield data
    seen: dict = {}
    for knode, _ in node.value:
        if knode.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(knode, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                f"duplicate key {key!r} (first at line {seen[key]})", knode.start_mark)
        seen[key] = knode.start_mark.line + 1
    value = loader.construct_mapping(node, deep=True)  # flattens `<<:` merges
    data.update(value)
    for knode, _ in node.value:
        data.key_lines[loader.construct_object(knode, deep=True)] = knode.start_mark.line + 1
    data.key_lines.update(seen)


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)


def _read_yaml(text: str, file: str):
    try:
        return yaml.load(text, Loader=_LineLoader)  # noqa: S506 - SafeLoader subclass
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else None
        raise SpecError(f"YAML error: {e.problem or e.context}", file, line) from None
    except yaml.YAMLError as e:  # pragma: no cover - defensive
        raise SpecError(f"YAML error: {e}", file) from None


# --------------------------------------------------------------------------------------------- schema

@functools.lru_cache(maxsize=1)
def _schema_validator():
    import jsonschema

    schema = json.loads(_shipped_dir().joinpath("schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)  # the schema itself is checked against its meta-schema in tests/test_specs.py


def _line_at(doc, path) -> int | None:
    """Deepest known line along a JSON path into the loaded document."""
    line = getattr(doc, "line", None)
    node = doc
    for key in path:
        if isinstance(node, _Map):
            line = node.line_of(key) or line
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
            line = getattr(node, "line", line)
        else:
            break
    return line


def _validate_schema(doc, file: str):
    errors = sorted(_schema_validator().iter_errors(doc), key=lambda e: (len(e.path), list(map(str, e.path))))
    if not errors:
        return
    import jsonschema

    err = jsonschema.exceptions.best_match(errors)
    path = list(err.absolute_path)
    spec = path[1] if len(path) > 1 and path[0] == "specs" else None
    loc = "/".join(map(str, path)) or "<top>"
    raise SpecError(f"schema: at {loc}: {err.message}", file, _line_at(doc, path), spec)


# ------------------------------------------------------------------------------- int layout evaluation

def _flatten(t) -> list:
    if isinstance(t, tuple):
        out = []
        for x in t:
            out.extend(_flatten(x))
        return out
    return [t]


def _as_int(x, what: str) -> int:
    try:
        if isinstance(x, bool):
            raise TypeError
        v = int(x)
        if v != x:
            raise ValueError
        return v
    except (TypeError, ValueError):
        raise SpecError(f"{what}: {x!r} is not a concrete integer (missing parameter?)") from None


def _offsets(shape, stride) -> list:
    """Offsets of a (possibly nested) mode in colexicographic order of its 1-D index."""
    offs = [0]
    for s, d in zip(_flatten(shape), _flatten(stride)):
        s = _as_int(s, "shape entry")
        d = _as_int(d, "stride entry")
        offs = [o + k * d for k in range(s) for o in offs]
    return offs


@dataclass(frozen=True)
class _IntLayout:
    """A concrete layout as int tables: per top-level mode offsets, and an optional swizzle + offset."""

    modes: tuple          # tuple of offset lists, one per top-level mode (rank-1 layouts: one mode)
    swizzle: tuple | None = None  # (bits, base, shift)
    base: int = 0

    @property
    def rank(self) -> int:
        return len(self.modes)

    def mode_size(self, k: int) -> int:
        return len(self.modes[k])

    @property
    def size(self) -> int:
        n = 1
        for m in self.modes:
            n *= len(m)
        return n

    def _sw(self, x: int) -> int:
        if self.swizzle is None:
            return x
        b, m, s = self.swizzle
        return _swizzle(b, m, s, x)

    def values(self) -> list:
        """All values in colex order of the 1-D index (mode 0 fastest)."""
        vals = [0]
        for offs in self.modes:
            vals = [a + b for b in offs for a in vals]
        if self.swizzle is None and not self.base:
            return vals
        return [self._sw(self.base + v) for v in vals]

    def tv_values(self, threads: Iterable[int] | None = None) -> list:
        """Rank-2 values L(t, v), t outer (ascending or the given threads), v inner."""
        t_offs, v_offs = self.modes
        ts = range(len(t_offs)) if threads is None else threads
        vals = [t_offs[t] + b for t in ts for b in v_offs]
        if self.swizzle is None and not self.base:
            return vals
        return [self._sw(self.base + v) for v in vals]

    def __call__(self, *crd: int) -> int:
        if len(crd) == 1 and self.rank > 1:
            idx, crd = crd[0], []
            for offs in self.modes[:-1]:
                crd.append(idx % len(offs))
                idx //= len(offs)
            crd.append(idx)
        return self._sw(self.base + sum(m[c] for m, c in zip(self.modes, crd)))


def _swizzle(bits: int, base: int, shift: int, x: int) -> int:
    """CuTe Swizzle<B,M,S>: XOR the B bits at [M+max(0,S), ...) into the bits S lower (S<0: higher)."""
    msk = (1 << bits) - 1
    yyy = msk << (base + max(0, shift))
    moved = x & yyy
    return x ^ (moved >> shift if shift >= 0 else moved << -shift)


def _int_layout(obj, what: str) -> _IntLayout:
    """Convert a cuteverify Layout / ComposedLayout (concrete) into int tables."""
    swz, base, lay = None, 0, obj
    if hasattr(obj, "inner") and hasattr(obj, "outer"):  # ComposedLayout: inner o offset o outer
        sw = obj.inner
        if not all(hasattr(sw, a) for a in ("bits", "base", "shift")):
            raise SpecError(f"{what}: only Swizzle o offset o Layout compositions are supported")
        swz = (int(sw.bits), int(sw.base), int(sw.shift))
        base = _as_int(obj.offset, f"{what} offset")
        lay = obj.outer
    shape, stride = lay.shape, lay.stride
    if isinstance(shape, tuple):
        modes = tuple(_offsets(s, d) for s, d in zip(shape, stride))
    else:
        modes = (_offsets(shape, stride),)
    return _IntLayout(modes, swz, base)


# ------------------------------------------------------------------------------ parameter arithmetic

def _eval_param_expr(text, params: Mapping[str, int], what: str) -> int:
    """Evaluate an int or a small exact expression over parameters (``N``, ``N/8``, ``2*N``)."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    return _eval_param_cached(str(text), tuple(sorted(params.items())), what)


@functools.lru_cache(maxsize=8192)
def _eval_param_cached(text: str, ptuple: tuple, what: str) -> int:
    params = dict(ptuple)
    try:
        tree = ast.parse(str(text).strip(), mode="eval").body
    except SyntaxError:
        raise SpecError(f"{what}: cannot parse {text!r}") from None

    def ev(n):
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return Fraction(n.value)
        if isinstance(n, ast.Name):
            if n.id not in params:
                raise SpecError(f"{what}: {text!r} needs parameter {n.id!r}")
            return Fraction(params[n.id])
        if isinstance(n, ast.BinOp) and type(n.op) in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv):
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            if b == 0:
                raise SpecError(f"{what}: division by zero in {text!r}")
            return a / b if isinstance(n.op, ast.Div) else Fraction(a // b)
        raise SpecError(f"{what}: {text!r} is not a parameter expression")

    v = ev(tree)
    if v.denominator != 1:
        raise SpecError(f"{what}: {text!r} is not an integer for {dict(params)}")
    return int(v)


# ------------------------------------------------------------------------------------------- the Spec

_OPERAND_AXES = {"A": ("m", "k"), "B": ("k", "n"), "C": ("m", "n"), "D": ("m", "n")}


@dataclass
class Spec:
    """One hardware spec.  ``data`` is the validated YAML mapping; ``helpers`` the file's parsed helpers."""

    name: str
    data: dict
    file: str
    line: int | None
    helpers: dict = field(repr=False, default_factory=dict)

    # -- plain fields ------------------------------------------------------------------------------
    @property
    def kind(self) -> str:
        return self.data["kind"]

    @property
    def arch(self) -> str | None:
        return self.data.get("arch")

    @property
    def ptx(self) -> str | None:
        return self.data.get("ptx")

    @property
    def evidence(self) -> dict | None:
        """Silicon evidence recorded for this spec (``evidence:`` in the YAML, written by
        :func:`cuteverify.hwcheck.annotate`), e.g. ``{"silicon": "sm90", "gpu": "NVIDIA H200",
        "confirmed": True, "records": 640, "operands": ["A", "B", "C"]}``; None when not probed."""
        ev = self.data.get("evidence")
        return dict(ev) if isinstance(ev, dict) else None

    @property
    def silicon_confirmed(self) -> bool:
        """True when the committed probe records confirm this spec (see :attr:`evidence`)."""
        ev = self.evidence
        return bool(ev and ev.get("confirmed"))

    @property
    def threads(self) -> int | None:
        return self.data.get("threads")

    @property
    def operands(self) -> tuple:
        if self.kind in ("mma", "copy"):
            return tuple(self.data["operands"])
        if self.kind == "smem_atom":
            return ("layout",)
        return ("swizzle",)

    @functools.cached_property
    def params(self) -> dict:
        """Family parameters: ``{name: [allowed values]}`` (empty for a single instruction)."""
        out = {}
        for name, p in (self.data.get("params") or {}).items():
            if "values" in p:
                out[name] = list(p["values"])
            else:
                lo, hi, step = p["range"]
                out[name] = list(range(lo, hi + 1, step))
        return out

    @property
    def is_family(self) -> bool:
        return bool(self.data.get("params"))

    def instances(self) -> list:
        """Every parameter assignment of a family (``[{}]`` for a single instruction)."""
        combos = [{}]
        for name, values in self.params.items():
            combos = [dict(c, **{name: v}) for c in combos for v in values]
        return combos

    def _params(self, params: Mapping[str, int]) -> dict:
        allowed = self.params
        extra = set(params) - set(allowed)
        if extra:
            raise SpecError(f"unknown parameter(s) {sorted(extra)}", self.file, self.line, self.name)
        for k, vals in allowed.items():
            if k not in params:
                raise SpecError(f"family needs parameter {k} (one of {vals[0]}..{vals[-1]})",
                                self.file, self.line, self.name)
            if params[k] not in set(vals):
                raise SpecError(f"{k}={params[k]} is not in the family's range", self.file, self.line, self.name)
        return dict(params)

    def shape_mnk(self, **params) -> tuple:
        p = self._params(params)
        return tuple(_eval_param_expr(x, p, "shape_mnk") for x in self.data["shape_mnk"])

    # -- layouts -------------------------------------------------------------------------------------
    def layout_text(self, operand: str, **params) -> str:
        """The operand's layout text in CuTe notation, with family parameters substituted if given."""
        if self.kind in ("mma", "copy"):
            text = self.data["operands"][operand]["layout"] if operand != "thr_id" else self.data["thr_id"]
        elif self.kind == "smem_atom":
            text = self.data["layout"] if operand == "layout" else self.data[operand]
        else:
            raise SpecError("swizzle specs have no layout", self.file, self.line, self.name)
        return _substitute(text, params) if params else text

    def layout(self, operand: str, **params):
        """The operand's layout as a cuteverify ``Layout`` (symbolic in family parameters unless given)."""

        if params:
            self._params(params)
        lay = parse(self.layout_text(operand))
        return lay.subs(**params) if params else lay

    def thr_id(self):

        return parse(self.data["thr_id"])

    def formula(self, operand: str) -> dict:
        """The operand's parsed formulas, e.g. ``{"row": Formula, "col": Formula}``."""
        return _operand_formulas(self, operand)

    def tile(self, operand: str, **params) -> tuple:
        """(rows, cols, order) of the tile an operand's codomain indexes, for the formula's row/col."""
        p = self._params(params)
        if self.kind == "mma":
            m, n, k = (_eval_param_expr(x, p, "shape_mnk") for x in self.data["shape_mnk"])
            return {"A": (m, k, "col"), "B": (k, n, "row_b"), "C": (m, n, "col"), "D": (m, n, "col")}[operand]
        if self.kind == "copy":
            r, c = (_eval_param_expr(x, p, "tile") for x in self.data["tile"])
            return (r, c, self.data.get("order", "row"))
        if self.kind == "smem_atom":
            lay = _int_layout(self.layout("layout"), "layout")
            return (lay.mode_size(0), lay.mode_size(1), "offset")
        raise SpecError("swizzle specs have no tile", self.file, self.line, self.name)

    def axes(self, operand: str) -> tuple:
        if self.kind == "mma":
            return _OPERAND_AXES[operand]
        return ("row", "col")


def _substitute(text: str, params: Mapping[str, int]) -> str:
    """Substitute parameters in layout text and fold each entry to an int: ``N/8`` with N=64 -> ``8``."""
    return _substitute_cached(text, tuple(sorted(params.items())))


@functools.lru_cache(maxsize=8192)
def _substitute_cached(text: str, ptuple: tuple) -> str:
    params = dict(ptuple)
    out, tok = [], []

    def flush():
        if tok:
            t = "".join(tok).strip()
            out.append(str(_eval_param_expr(t, params, "layout entry")) if any(c.isalpha() for c in t) and
                       not t.startswith("S<") else t)
            tok.clear()

    depth_angle = 0
    for ch in text:
        if ch == "<":
            depth_angle += 1
        elif ch == ">":
            depth_angle -= 1
        if depth_angle == 0 and ch in "(),:" :
            flush()
            out.append(ch)
        else:
            tok.append(ch)
    flush()
    return "".join(out)


# -------------------------------------------------------------------------------- formula compilation

def _formula_keys(spec: Spec, operand: str) -> tuple:
    if spec.kind in ("mma", "copy"):
        return ("row", "col")
    if spec.kind == "smem_atom":
        return ("offset",)
    return ("address",)


def _operand_node(spec: Spec, operand: str) -> dict:
    if spec.kind in ("mma", "copy"):
        return spec.data["operands"][operand]
    return spec.data


def _operand_formulas(spec: Spec, operand: str) -> dict:
    cache = spec.__dict__.setdefault("_formula_cache", {})
    if operand in cache:
        return cache[operand]
    node = _operand_node(spec, operand)
    if spec.kind in ("mma", "copy"):
        variables = _TV_VARS + tuple(spec.params)
    elif spec.kind == "smem_atom":
        variables = _SMEM_VARS
    else:
        variables = _SWIZZLE_VARS
    helpers = dict(spec.helpers)
    local = node.get("helpers") if isinstance(node, dict) else None
    try:
        if local:
            helpers = _fm.resolve_helpers(local, variables, helpers)
        out = {k: _fm.parse(node[k], variables, helpers) for k in _formula_keys(spec, operand)}
    except FormulaError as e:
        key = next((k for k in _formula_keys(spec, operand) if k in node and str(node[k]) == e.text), None)
        line = node.line_of(key) if isinstance(node, _Map) and key else getattr(node, "line", spec.line)
        raise SpecError(f"operand {operand}: {e}", spec.file, line, spec.name) from None
    cache[operand] = out
    return out


def _tv_rows(spec: Spec, thr: _IntLayout, threads: Iterable[int]) -> list:
    """Outer rows (thread, tid, lane, warp) for the formula tables."""
    rows = []
    for t in threads:
        tid = thr(t)
        rows.append((t, tid, tid % 32, tid // 32))
    return rows


_TABLES: dict = {}


def _tv_table(row: "_fm.Formula", col: "_fm.Formula", names: tuple):
    """Compiled table of (row, col) over ((thread, tid, lane, warp), (i,)); ``names`` are parameters."""
    key = (row.key, col.key, names)
    fn = _TABLES.get(key)
    if fn is None:
        fn = _TABLES[key] = _fm.table([row, col], _THREAD_VARS, ("i",), names)
    return fn


def _index_table(row: "_fm.Formula", col: "_fm.Formula", order: str, names: tuple):
    """Compiled table of the CuTe index the formula gives (None outside the tile), one comprehension.

    Builds ``(_r + _R*_c) if (0 <= (_r := ROW) < _R and 0 <= (_c := COL) < _C) else None`` (or the
    row-major / B variants) from the already whitelisted formula trees; the tile extents ``_R``, ``_C`` and
    the family parameters are arguments, so one compiled table serves every instance of a family.
    """
    key = ("index", row.key, col.key, order, names)
    fn = _TABLES.get(key)
    if fn is not None:
        return fn
    idx = {"col": "_r + _R*_c", "row_b": "_c + _C*_r"}.get(order, "_r*_C + _c")
    expr = ast.parse(f"({idx}) if (0 <= (_r := 0) < _R and 0 <= (_c := 0) < _C) else None", mode="eval").body
    walrus = [n for n in ast.walk(expr) if isinstance(n, ast.NamedExpr)]
    walrus[0].value, walrus[1].value = row.tree, col.tree  # splice the checked formula trees
    fn = _TABLES[key] = _fm.table([_fm.Formula("<index>", expr, row.names | col.names)],
                                  _THREAD_VARS, ("i",), names + ("_R", "_C"))
    return fn


def _hw_indices(spec: Spec, operand: str, params: dict, threads: list, nvals: int, thr: _IntLayout,
                tile: tuple) -> list:
    """Formula index (CuTe convention) for every (thread in ``threads``, value < nvals), thread outer."""
    fs = _operand_formulas(spec, operand)
    ptuple = tuple(sorted(params.items()))
    fn = _index_table(fs["row"], fs["col"], tile[2], tuple(k for k, _ in ptuple))
    return fn(_tv_rows(spec, thr, threads), [(i,) for i in range(nvals)], *(v for _, v in ptuple),
              tile[0], tile[1])


def _hw_elements(spec: Spec, operand: str, params: dict, threads: list, nvals: int, thr: _IntLayout) -> list:
    """Formula (row, col) for every (thread in ``threads``, value < nvals), thread outer."""
    fs = _operand_formulas(spec, operand)
    ptuple = tuple(sorted(params.items()))
    fn = _tv_table(fs["row"], fs["col"], tuple(k for k, _ in ptuple))
    return fn(_tv_rows(spec, thr, threads), [(i,) for i in range(nvals)], *(v for _, v in ptuple))


def _element_of(idx: int, tile) -> tuple:
    rows, cols, order = tile
    if order == "col":
        return (idx % rows, idx // rows)
    if order == "row_b":
        return (idx // cols, idx % cols)
    return (idx // cols, idx % cols)


# --------------------------------------------------------------------------------------- counterexample

@dataclass(frozen=True)
class Counterexample:
    """First disagreement: at (thread, value) the layout names element ``user`` but the hardware holds
    ``hardware`` (both as (row, col) of the operand matrix as PTX writes it, with ``axes`` naming them)."""

    thread: int | None
    value: int | None
    user_index: int | None
    hardware_index: int | None
    user: tuple | None
    hardware: tuple | None
    axes: tuple = ("row", "col")
    operand: str = ""
    coordinate: tuple | None = None  # smem atoms: the (row, col) coordinate that disagrees
    atom: tuple | None = None        # tiled TV layouts: the atom's (block row, block col) in the tile
    group: int | None = None         # tiled TV layouts: the atom's thread group (thread // atom threads)

    def _el(self, el) -> str:
        if el is None:
            return "an element outside the tile"
        return f"{self.operand}[{self.axes[0]}={el[0]}, {self.axes[1]}={el[1]}]"

    def __str__(self) -> str:
        if self.coordinate is not None:
            return (f"at coordinate {self.coordinate}: the layout gives offset {self.user_index} but the "
                    f"hardware puts that element at offset {self.hardware_index}")
        pre = "" if self.atom is None else f"atom {self.atom} (thread group {self.group}), "
        return (pre + f"thread {self.thread}, value {self.value}: the layout gives {self._el(self.user)} "
                f"(index {self.user_index}) but the hardware holds {self._el(self.hardware)} there "
                f"(index {self.hardware_index})")


@dataclass(frozen=True)
class AgreeResult:
    """Result of :func:`agrees`: ``ok``; when not ok, a ``counterexample`` or a ``reason``."""

    ok: bool
    spec: str
    operand: str
    params: dict = field(default_factory=dict)
    counterexample: Counterexample | None = None
    reason: str | None = None

    #: how the answer was reached (for cuteverify.prove's Verdict wrapper)
    method = "spec enumeration"

    @property
    def status(self) -> str:
        """Verdict-style status: "proved" (agrees at every pair) or "refuted"."""
        return "proved" if self.ok else "refuted"

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        p = "".join(f", {k}={v}" for k, v in self.params.items())
        head = f"{self.spec}{p} operand {self.operand}"
        if self.ok:
            return f"{head}: agrees"
        return f"{head}: disagrees: {self.counterexample or self.reason}"


# ----------------------------------------------------------------------------------------- comparisons

def _compare_tv(spec: Spec, operand: str, params: dict, lay: _IntLayout):
    """Compare an int TV layout with the spec's formula at every (thread, value).

    Returns (Counterexample | None, reason | None).  When the layout's thread mode has only zero strides
    and the formula does not mention the thread, both sides are the same for every thread, so thread 0
    is evaluated for all of them (exact, not a sample).
    """
    thr = _int_spec_layout(spec, "thr_id", {})
    tile = spec.tile(operand, **params)
    if lay.rank != 2:
        return None, f"expected a rank-2 (thread, value) layout, got rank {lay.rank}"
    nthr, nval = lay.mode_size(0), lay.mode_size(1)
    if nthr != spec.threads:
        return None, f"thread mode has size {nthr}, the atom has {spec.threads} threads"
    expected_vals = _expected_values(spec, operand, params, tile)
    if nval != expected_vals:
        return None, f"value mode has size {nval}, the hardware holds {expected_vals} values per thread"
    threads = list(range(nthr))
    fs = _operand_formulas(spec, operand)
    thread_free = not (fs["row"].names | fs["col"].names) & set(_THREAD_VARS)
    if thread_free and all(o == 0 for o in lay.modes[0]):
        # Broadcast operand (e.g. wgmma SS A/B): neither side depends on the thread, so thread 0 decides
        # every thread exactly.
        threads = [0]
    want = _hw_indices(spec, operand, params, threads, nval, thr, tile)
    vals = lay.tv_values(threads)
    if want == vals:
        return None, None
    pos = next(p for p, (w, g) in enumerate(zip(want, vals)) if w != g)
    got = vals[pos]
    t, v = threads[pos // nval], pos % nval
    rc = _hw_elements(spec, operand, params, [t], nval, thr)[v]
    user = _element_of(got, tile) if 0 <= got < tile[0] * tile[1] else None
    return Counterexample(t, v, got, want[pos], user, rc, spec.axes(operand), operand), None


def _expected_values(spec: Spec, operand: str, params: dict, tile) -> int:
    node = spec.data["operands"][operand]
    per_thread = node.get("values")
    if per_thread is not None:
        return _eval_param_expr(per_thread, params, "values")
    mult = spec.threads if node.get("broadcast") == "all" else int(node.get("multiplicity", 1))
    total = tile[0] * tile[1] * mult
    return total // spec.threads


@functools.lru_cache(maxsize=8192)
def _layout_by_text(text: str):

    return parse(text)


def _layout_cached(spec: Spec, operand: str, params: tuple):
    text = spec.layout_text(operand, **dict(params)) if params else spec.layout_text(operand)
    try:
        return _layout_by_text(text)
    except SpecError:
        raise
    except Exception as e:  # ParseError from the core
        node = spec.data["operands"].get(operand) if spec.kind in ("mma", "copy") else None
        line = node.line_of("layout") if isinstance(node, _Map) else spec.line
        raise SpecError(f"{operand}: cannot parse layout {text!r}: {e}", spec.file, line, spec.name) from None


def _int_spec_layout(spec: Spec, operand: str, params: dict) -> _IntLayout:
    text = spec.layout_text(operand, **params) if params else spec.layout_text(operand)
    hit = _INT_LAYOUTS.get(text)
    if hit is None:
        lay = _layout_cached(spec, operand, tuple(sorted(params.items())))
        hit = _INT_LAYOUTS[text] = _int_layout(lay, f"{spec.name} {operand}")
    return hit


_INT_LAYOUTS: dict = {}


# ------------------------------------------------------------------------------------------ self-check

_CHECKED: dict = {}


def _operand_problem(spec: Spec, operand: str, params: dict) -> str | None:
    """Self-check one TV operand for one parameter choice; a reason string, or None if consistent.

    Results are memoised on everything the check reads (layout text after substitution, formula trees,
    tile, threads, ThrID, coverage declaration), so identical operands shared by many specs (the wgmma
    accumulator of every dtype variant, say) are enumerated once.
    """
    fs = _operand_formulas(spec, operand)
    node = spec.data["operands"][operand]
    used = fs["row"].names | fs["col"].names
    key = (spec.layout_text(operand, **params), fs["row"].key, fs["col"].key, spec.tile(operand, **params),
           spec.threads, spec.data["thr_id"], node.get("broadcast"), node.get("multiplicity"),
           node.get("values"), tuple(sorted((k, v) for k, v in params.items() if k in used)))
    if key not in _CHECKED:
        _CHECKED[key] = _operand_problem_uncached(spec, operand, params)
    return _CHECKED[key]


def _operand_problem_uncached(spec: Spec, operand: str, params: dict) -> str | None:
    lay = _int_spec_layout(spec, operand, params)
    cex, reason = _compare_tv(spec, operand, params, lay)
    if reason:
        return reason
    if cex:
        return f"CuTe layout and formula disagree: {cex}"
    # Coverage: a bijection onto the tile, or a uniform broadcast when declared.
    tile = spec.tile(operand, **params)
    n = tile[0] * tile[1]
    node = spec.data["operands"][operand]
    if node.get("broadcast") == "all":
        if any(o != 0 for o in lay.modes[0]):
            return "declared broadcast over all threads but the thread mode has a non-zero stride"
        vals = lay.modes[1]
        mult = 1
    else:
        vals = lay.values()
        mult = int(node.get("multiplicity", 1))
    want = list(range(n)) if mult == 1 else sorted(list(range(n)) * mult)
    if sorted(vals) == want:
        return None
    counts: dict = {}
    for v in vals:
        counts[v] = counts.get(v, 0) + 1
    missing = sorted(set(range(n)) - set(counts))[:3]
    if missing or len(counts) != n:
        return (f"image is not the whole {tile[0]}x{tile[1]} tile"
                + (f" (missing indices {missing}...)" if missing else " (indices outside the tile)"))
    bad = next(k for k, c in counts.items() if c != mult)
    what = "not a bijection" if mult == 1 else f"not a uniform {mult}-fold broadcast"
    return f"{what}: element {_element_of(bad, tile)} is hit {counts[bad]} times"


def _check_tv_spec(spec: Spec) -> list:
    problems = []
    thr = _int_layout(_layout_cached(spec, "thr_id", ()), "thr_id")
    if thr.size != spec.threads:
        problems.append(("thr_id", f"ThrID has size {thr.size}, declared threads {spec.threads}"))
    elif len(set(thr.values())) != thr.size:
        problems.append(("thr_id", "ThrID is not injective"))
    for params in spec.instances():
        if spec.kind == "mma":
            dims = spec.shape_mnk(**params)
            if any(d <= 0 for d in dims):
                problems.append(("shape_mnk", f"non-positive shape {dims} for {params}"))
                break
        for op in spec.operands:
            reason = _operand_problem(spec, op, params)
            if reason:
                p = "".join(f" {k}={v}" for k, v in params.items())
                problems.append((op, f"operand {op}{p and ' with' + p}: {reason}"))
        if problems:
            break
    return problems


_SWIZZLE_SPAN_BITS = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}


def _check_smem_atom(spec: Spec) -> list:
    d = spec.data
    eb = d["element_bits"]
    if eb % 8 or eb & (eb - 1):
        return [("element_bits", f"element_bits {eb} is not a power-of-two number of bytes")]
    lay = _int_layout(_layout_cached_plain(spec, "layout"), "layout")
    bits = _int_layout(_layout_cached_plain(spec, "layout_bits"), "layout_bits")
    bsw = _parse_swizzle(d["swizzle_bytes"], spec)
    if lay.rank != 2:
        return [("layout", "a shared-memory atom must be rank 2 (mn, k) / (k-major rows, cols)")]
    rows, cols = lay.mode_size(0), lay.mode_size(1)
    problems = []
    want_b = _SWIZZLE_SPAN_BITS[d["swizzle"]]
    if bsw[0] != want_b or bsw[1:] != (4, 3):
        problems.append(("swizzle_bytes", f"{d['swizzle']} is Swizzle<{want_b},4,3> on bytes, not {bsw}"))
    log_eb = (eb // 8).bit_length() - 1
    if lay.swizzle is not None and lay.swizzle[0] > 0 and lay.swizzle != (bsw[0], 4 - log_eb, 3):
        problems.append(("layout", f"element-unit swizzle {lay.swizzle} should be Swizzle<{bsw[0]},"
                                   f"{4 - log_eb},3> for {eb}-bit elements (byte swizzle <{bsw[0]},4,3>)"))
    # 1) layout vs formula over every coordinate (row fastest, matching colex order).
    f = _operand_formulas(spec, "layout")["offset"]
    fn = _fm.table([f], ("col",), ("row",))
    want = fn([(c,) for c in range(cols)], [(r,) for r in range(rows)])
    got = lay.values()
    for j, (w, g) in enumerate(zip(want, got)):
        if w != g:
            r, c = j % rows, j // rows
            problems.append(("layout", f"layout and offset formula disagree at coordinate ({r}, {c}): "
                                       f"layout gives {g}, formula gives {w}"))
            break
    # 2) element layout vs CUTLASS's bit-level definition with the swizzle applied to byte addresses.
    if not problems:
        major = d["major"]
        for c in range(cols):
            for r in range(rows):
                bit = bits(r * eb, c) if major == "MN" else bits(r, c * eb)
                byte = _swizzle(*bsw, bit // 8)
                if byte * 8 // eb != lay(r, c):
                    problems.append(("layout_bits", f"bit-level CUTLASS atom puts ({r}, {c}) at element "
                                                    f"{byte * 8 // eb}, element layout says {lay(r, c)}"))
                    break
            if problems:
                break
    # 3) bijection onto [0, size).
    if not problems and sorted(got) != list(range(len(got))):
        problems.append(("layout", "layout is not a bijection onto [0, size)"))
    return problems


def _layout_cached_plain(spec: Spec, key: str):
    text = spec.data[key]
    try:
        return _layout_by_text(text)
    except Exception as e:
        raise SpecError(f"{key}: cannot parse layout {text!r}: {e}", spec.file,
                        spec.data.line_of(key) if isinstance(spec.data, _Map) else spec.line, spec.name) from None


def _parse_swizzle(text: str, spec: Spec) -> tuple:
    t = text.strip()
    for pre in ("Sw<", "S<"):
        if t.startswith(pre) and t.endswith(">"):
            try:
                b, m, s = (int(x) for x in t[len(pre):-1].split(","))
                return (b, m, s)
            except ValueError:
                break
    raise SpecError(f"cannot parse swizzle {text!r} (expected S<B,M,S>)", spec.file, spec.line, spec.name)


_CU_TENSOR_MAP = {0: 0, 32: 1, 64: 2, 128: 3}      # CUtensorMapSwizzle: NONE, 32B, 64B, 128B
_GMMA_LAYOUT = {0: 0, 128: 1, 64: 2, 32: 3}         # GMMA::LayoutType: INTERLEAVE, B128, B64, B32
_UMMA_LAYOUT = {0: 0, 128: 2, 64: 4, 32: 6}         # UMMA::LayoutType (SM100): NONE, 128B, 64B, 32B


def _check_swizzle(spec: Spec) -> list:
    d = spec.data
    b, m, s = _parse_swizzle(d["swizzle"], spec)
    span = d["span_bytes"]
    problems = []
    if (16 << b if b else 0) != span:
        problems.append(("span_bytes", f"Swizzle<{b},{m},{s}> on bytes spans {16 << b if b else 0}B, not {span}B"))
    enc = d.get("encodings", {})
    for key, table in (("cu_tensor_map_swizzle", _CU_TENSOR_MAP), ("gmma_layout_type", _GMMA_LAYOUT),
                       ("umma_layout_type", _UMMA_LAYOUT)):
        if key in enc and enc[key]["value"] != table.get(span):
            problems.append((key, f"{key} for a {span}B swizzle is {table.get(span)}, spec says {enc[key]['value']}"))
    f = _operand_formulas(spec, "swizzle")["address"]
    block = d["repeat_bytes"]
    fn = _fm.compile_formula(f, ("addr",))
    seen = set()
    for a in range(2 * block):
        want, got = fn(a), _swizzle(b, m, s, a)
        if want != got:
            problems.append(("address", f"Swizzle<{b},{m},{s}>({a}) = {got} but the address formula gives {want}"))
            break
        if got // block != a // block:
            problems.append(("swizzle", f"address {a} leaves its {block}B block"))
            break
        seen.add(got)
    if not problems and len(seen) != 2 * block:
        problems.append(("swizzle", "not a bijection on its repeat block"))
    return problems


def self_check(spec: Spec) -> None:
    """Check a spec's internal consistency; raise :class:`SpecError` (with the operand's line) if not.

    * ``mma`` / ``copy``: for every family instance and operand, at every (thread, value) the CuTe layout
      equals the PTX formula converted to the same index; the thread mode has the declared size; ThrID has
      ``threads`` distinct values; the operand covers its tile as a bijection, or as the declared uniform
      broadcast (``broadcast: all`` for wgmma SS operands, ``multiplicity`` for e.g. ldmatrix.x1 sources).
    * ``smem_atom``: layout == offset formula at every coordinate, == CUTLASS's bit-level atom with the
      swizzle on byte addresses, bijective, and swizzle parameters consistent with the mode and type.
    * ``swizzle``: the swizzle function == the address formula on two repeat blocks, stays in its block,
      is a bijection, and the enum encodings match the span.
    """
    if spec.kind in ("mma", "copy"):
        problems = _check_tv_spec(spec)
    elif spec.kind == "smem_atom":
        problems = _check_smem_atom(spec)
    else:
        problems = _check_swizzle(spec)
    if problems:
        where, reason = problems[0]
        raise SpecInconsistent(reason, spec.file, _line_for(spec, where), spec.name)


def _line_for(spec: Spec, where: str) -> int | None:
    d = spec.data
    if spec.kind in ("mma", "copy") and where in d.get("operands", {}):
        node = d["operands"][where]
        return getattr(node, "line", None) or spec.line
    if isinstance(d, _Map):
        return d.line_of(where)
    return spec.line


# ---------------------------------------------------------------------------------------------- agrees

def _user_int_layout(layout, spec: Spec, params: dict) -> _IntLayout:

    if isinstance(layout, str):
        layout = parse(_substitute(layout, params) if params else layout)
    if hasattr(layout, "free_symbols") and layout.free_symbols and params:
        layout = layout.subs(**params)
    return _int_layout(layout, "layout")


_DTYPE_BITS = {
    **dict.fromkeys(("f16", "bf16", "half", "half_t", "bfloat16", "bfloat16_t", "fp16", "float16", "b16", "u16",
                     "s16", "int16", "uint16", "uint16_t", "int16_t"), 16),
    **dict.fromkeys(("f32", "tf32", "float", "float32", "tfloat32_t", "s32", "u32", "int32", "uint32", "int32_t",
                     "uint32_t", "b32"), 32),
    **dict.fromkeys(("s8", "u8", "e4m3", "e5m2", "int8", "uint8", "int8_t", "uint8_t", "fp8", "b8",
                     "float_e4m3_t", "float_e5m2_t"), 8),
    **dict.fromkeys(("f64", "double", "float64", "b64", "s64", "u64"), 64),
}

_SMEM_SHORT = re.compile(r"^(?:GMMA[_:]+)?(?:Layout_)?(K|MN)_(INTER|SW32|SW64|SW128)(?:_Atom)?$", re.I)
_TMA_SHORT = re.compile(r"^(?:TMA_|CU_TENSOR_MAP_)?(?:SWIZZLE_|SW)?(NONE|32B?|64B?|128B?)$", re.I)


def dtype_bits(dtype) -> int:
    """Element width in bits of a dtype name (``"bf16"``, ``"half_t"``, ``"float"``, ``"e4m3"``) or an int."""
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        return dtype
    try:
        return _DTYPE_BITS[str(dtype).strip().lower()]
    except KeyError:
        raise SpecError(f"unknown dtype {dtype!r} (e.g. f16, bf16, tf32, f32, s8, e4m3, or a width in bits)") \
            from None


def resolve(name: str, dtype=None, library: "Library | None" = None) -> Spec:
    """The spec for a name, an alias, or a short name plus a dtype.

    Short names: ``GMMA_K_SW128`` / ``GMMA_MN_INTER`` / ``K_SW64`` ... with ``dtype`` pick the
    ``GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`` entry of that element width; ``TMA_SW128`` /
    ``SWIZZLE_64B`` / ``SW32`` / ``TMA_NONE`` name the ``CU_TENSOR_MAP_SWIZZLE_*`` modes.  A full smem-atom
    name with a ``dtype`` of another width is refused.
    """
    lib = library or default_library()
    if name in lib:
        spec = lib[name]
        if dtype is not None and spec.kind == "smem_atom" and dtype_bits(dtype) != spec.data["element_bits"]:
            raise SpecError(f"dtype {dtype!r} is {dtype_bits(dtype)}-bit but the atom is for "
                            f"{spec.data['element_bits']}-bit elements", spec.file, spec.line, spec.name)
        return spec
    m = _SMEM_SHORT.match(name.strip())
    if m:
        if dtype is None:
            raise SpecError(f"{name}: a short smem-atom name needs dtype= (e.g. dtype='bf16')")
        major, sw, eb = m.group(1).upper(), m.group(2).upper(), dtype_bits(dtype)
        for s in lib.values():
            d = s.data
            if s.kind == "smem_atom" and d["major"] == major and d["swizzle"] == sw and d["element_bits"] == eb:
                return s
        raise SpecError(f"{name}: no GMMA::Layout_{major}_{sw}_Atom for {eb}-bit elements")
    m = _TMA_SHORT.match(name.strip())
    if m:
        span = m.group(1).upper().rstrip("B")
        full = "CU_TENSOR_MAP_SWIZZLE_" + ("NONE" if span == "NONE" else span + "B")
        if full in lib:
            return lib[full]
    return lib.get(name)  # KeyError with suggestions


def agrees(layout, spec_name: str, operand: str | None = None, library: "Library | None" = None, *,
           dtype=None, tile=None, atom_layout=None, **params) -> AgreeResult:
    """Does ``layout`` (a cuteverify Layout, or CuTe text) match the hardware for ``operand`` of a spec?

    * ``mma``/``copy`` specs: ``layout`` is a (thread, value) layout compared at every pair with the
      hardware element.  With ``tile=`` and/or ``atom_layout=`` it is the TV layout of a *tiled* MMA over
      a whole tile made of several atoms (see :func:`_compare_tv_tiled` for the convention).
    * ``smem_atom`` specs (full name, or a short name such as ``"GMMA_K_SW128"`` with ``dtype="bf16"``):
      a (row, col) -> element offset layout covering the atom or any multiple of it; it must equal the
      atom tiled to that shape (CUTLASS ``tile_to_shape(atom, shape)``, atoms in column-major order),
      compared at every coordinate.
    * ``swizzle`` specs (``CU_TENSOR_MAP_SWIZZLE_128B`` or ``"TMA_SW128"``, with ``dtype``): a (row, col)
      layout of a TMA box in shared memory (rows of ``span`` bytes); it must equal the row-major box with
      the swizzle applied to byte offsets.

    Family parameters (``N=64``) are required for families.  Returns an :class:`AgreeResult` whose
    counterexample names the first (thread, value) and both elements as (row, col), or for shared memory
    the coordinate with the user's and the expected offset.
    """
    lib = library or default_library()
    spec = resolve(spec_name, dtype, lib)
    p = spec._params(params)
    if operand is None:
        if spec.kind in ("mma", "copy"):
            raise SpecError(f"agrees: name an operand ({', '.join(spec.operands)})", spec.file, spec.line,
                            spec.name)
        operand = spec.operands[0]
    if operand not in spec.operands:
        raise SpecError(f"agrees: no operand {operand!r} (have {', '.join(spec.operands)})", spec.file,
                        spec.line, spec.name)
    try:
        user = _user_int_layout(layout, spec, p)
    except SpecError as e:
        return AgreeResult(False, spec.name, operand, p, reason=e.reason)
    if spec.kind == "smem_atom":
        return _agrees_smem(user, spec, operand)
    if spec.kind == "swizzle":
        if dtype is None:
            raise SpecError("agrees: a swizzle mode needs dtype= (the element width of the box)", spec.file,
                            spec.line, spec.name)
        return _agrees_tma_box(user, spec, dtype_bits(dtype))
    if tile is not None or atom_layout is not None:
        cex, reason = _compare_tv_tiled(spec, operand, p, user, tile, atom_layout)
    else:
        cex, reason = _compare_tv(spec, operand, p, user)
    return AgreeResult(cex is None and reason is None, spec.name, operand, p, cex, reason)


def _compare_tv_tiled(spec: Spec, operand: str, params: dict, lay: _IntLayout, tile, atom_layout):
    """Compare the TV layout of a tiled MMA (several atoms) with the atom spec, atom by atom.

    Convention (CUTLASS ``TiledMMA`` with ``AtomLayoutMNK`` and no permutation, ALGEBRA.md section 5):

    * the operand tile is indexed as the atom's codomain is: A ``m + TM*k``, B ``n + TN*k``, C ``m + TM*n``
      (column-major in the CuTe axes (M,K), (N,K), (M,N)); ``tile`` gives those two extents;
    * ``atom_layout`` = (AM, AN) or (AM, AN, AK) atoms, column-major: thread ``t`` belongs to thread group
      ``g = t // atom_threads`` at atom coordinate ``(g % AM, (g // AM) % AN, g // (AM*AN))`` and acts as
      the atom's logical thread ``t % atom_threads``.  Operand A uses the (m, k) coordinates of the group,
      B (n, k), C (m, n): groups differing only in the other coordinate hold the same A/B data;
    * a thread's value ``v`` is the atom's value ``v % V`` of repetition ``r = v // V`` (when the tile is
      larger than the atom grid), repetition ``r`` in column-major order over the operand's two axes; the
      atom block it lands in is ``(g0 + A0*r0, g1 + A1*r1)``.

    Either argument may be omitted: ``tile`` defaults to atom grid x atom shape (one repetition);
    ``atom_layout`` is inferred when the tile has no repetition and the operand sees all atom axes.
    """
    m_, n_, k_ = spec.shape_mnk(**params)
    shape = {"A": (m_, k_), "B": (n_, k_), "C": (m_, n_), "D": (m_, n_)}[operand]
    axes_idx = {"A": (0, 2), "B": (1, 2), "C": (0, 1), "D": (0, 1)}[operand]
    if lay.rank != 2:
        return None, f"expected a rank-2 (thread, value) layout, got rank {lay.rank}"
    nthr, nval = lay.mode_size(0), lay.mode_size(1)
    T = spec.threads
    if nthr % T:
        return None, f"thread mode has size {nthr}, not a multiple of the atom's {T} threads"
    groups = nthr // T
    tile_atom = spec.tile(operand, **params)
    V = _expected_values(spec, operand, params, tile_atom)
    if nval % V:
        return None, f"value mode has size {nval}, not a multiple of the atom's {V} values per thread"
    reps = nval // V
    if atom_layout is None:
        if tile is None:
            return None, "a tiled layout needs tile= or atom_layout="
        grid = [tile[0] // shape[0], tile[1] // shape[1]]
        if grid[0] * grid[1] != groups:
            return None, (f"cannot infer the atom layout: tile {tuple(tile)} holds {grid[0]}x{grid[1]} atoms of "
                          f"{shape}, the layout has {groups} thread groups; pass atom_layout=")
        al = [1, 1, 1]
        al[axes_idx[0]], al[axes_idx[1]] = grid
    else:
        al = [int(x) for x in atom_layout] + [1] * (3 - len(atom_layout))
        if al[0] * al[1] * al[2] != groups:
            return None, (f"atom_layout {tuple(atom_layout)} has {al[0] * al[1] * al[2]} atoms, the layout has "
                          f"{groups} thread groups of {T}")
    A0, A1 = al[axes_idx[0]], al[axes_idx[1]]
    if tile is None:
        if reps != 1:
            return None, f"{reps} values-per-atom repetitions per thread: pass tile= to place them"
        tile = (A0 * shape[0], A1 * shape[1])
    T0, T1 = int(tile[0]), int(tile[1])
    if T0 % (A0 * shape[0]) or T1 % (A1 * shape[1]):
        return None, f"tile {(T0, T1)} is not a multiple of the atom grid {(A0 * shape[0], A1 * shape[1])}"
    R0, R1 = T0 // (A0 * shape[0]), T1 // (A1 * shape[1])
    if R0 * R1 != reps:
        return None, (f"value mode has size {nval} = {reps} x {V}, but tile {(T0, T1)} needs {R0 * R1} "
                      f"repetition(s) of the atom per thread")
    thr = _int_spec_layout(spec, "thr_id", {})
    atom_thr = list(range(T))
    hw = _hw_indices(spec, operand, params, atom_thr, V, thr, tile_atom)  # CuTe index in the atom, t outer
    S0 = shape[0]
    got_all = lay.tv_values()
    for t in range(nthr):
        g, lt = divmod(t, T)
        gc = (g % al[0], (g // al[0]) % al[1], g // (al[0] * al[1]))
        g0, g1 = gc[axes_idx[0]], gc[axes_idx[1]]
        base = t * nval
        for v in range(nval):
            r, va = divmod(v, V)
            b0, b1 = g0 + A0 * (r % R0), g1 + A1 * (r // R0)
            e = hw[lt * V + va]
            want = None if e is None else (e % S0 + S0 * b0) + T0 * (e // S0 + shape[1] * b1)
            got = got_all[base + v]
            if got != want:
                def el(idx):
                    if idx is None or not 0 <= idx < T0 * T1:
                        return None
                    a, b = idx % T0, idx // T0
                    return (b, a) if operand == "B" else (a, b)  # B: PTX writes (k, n)
                return Counterexample(t, v, got, want, el(got), el(want), spec.axes(operand), operand,
                                      atom=(b0, b1), group=g), None
    return None, None


def _agrees_smem(user: _IntLayout, spec: Spec, operand: str) -> AgreeResult:
    """User layout over the atom or a multiple of it == tile_to_shape(atom, shape) at every coordinate."""
    hw = _int_layout(_layout_cached_plain(spec, "layout"), "layout")
    ar, ac = hw.mode_size(0), hw.mode_size(1)
    sizes = tuple(user.mode_size(k) for k in range(user.rank))
    if user.rank != 2 or sizes[0] % ar or sizes[1] % ac:
        return AgreeResult(False, spec.name, operand, {},
                           reason=f"shape {sizes} is not a multiple of the atom's ({ar}, {ac})")
    rows, cols = sizes
    asz, nr = ar * ac, rows // ar
    f = _fm.compile_formula(_operand_formulas(spec, "layout")["offset"], ("row", "col"))
    atom = [[f(r, c) for c in range(ac)] for r in range(ar)]
    for j, got in enumerate(user.values()):
        r, c = j % rows, j // rows
        want = atom[r % ar][c % ac] + asz * (r // ar + nr * (c // ac))
        if got != want:
            cex = Counterexample(None, None, got, want, None, None, ("row", "col"), operand, (r, c))
            return AgreeResult(False, spec.name, operand, {}, cex)
    return AgreeResult(True, spec.name, operand, {})


def _agrees_tma_box(user: _IntLayout, spec: Spec, eb: int) -> AgreeResult:
    """User (row, col) layout of a TMA box == row-major box, swizzled on byte addresses."""
    if eb % 8:
        raise SpecError(f"TMA boxes need whole-byte elements, not {eb}-bit", spec.file, spec.line, spec.name)
    nb = eb // 8
    span = spec.data["span_bytes"]
    sizes = tuple(user.mode_size(k) for k in range(user.rank))
    if user.rank != 2 or (span and sizes[1] * nb != span):
        return AgreeResult(False, spec.name, "swizzle", {},
                           reason=f"shape {sizes}: a {spec.name} box has rows of {span} bytes = "
                                  f"{span // nb if span else 'any number of'} {eb}-bit elements")
    rows, cols = sizes
    f = _fm.compile_formula(_operand_formulas(spec, "swizzle")["address"], ("addr",))
    for j, got in enumerate(user.values()):
        r, c = j % rows, j // rows
        want = f((r * cols + c) * nb) // nb
        if got != want:
            cex = Counterexample(None, None, got, want, None, None, ("row", "col"), "swizzle", (r, c))
            return AgreeResult(False, spec.name, "swizzle", {}, cex)
    return AgreeResult(True, spec.name, "swizzle", {})


# --------------------------------------------------------------------------------------------- library

class Library(Mapping):
    """Specs by name (a read-only mapping), with the files they came from."""

    def __init__(self, specs: dict, files: list):
        self._specs = specs
        self.files = files
        self._aliases = {}
        for s in specs.values():
            for a in s.data.get("aliases", []) or []:
                self._aliases[a] = s.name

    def __getitem__(self, name: str) -> Spec:
        return self._specs[self._aliases.get(name, name)]

    def __iter__(self):
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name) -> bool:
        return name in self._specs or name in self._aliases

    def get(self, name: str, default=None) -> Spec:  # type: ignore[override]
        if default is None and name not in self:
            import difflib
            close = sorted(n for n in self._specs if name.lower() in n.lower())[:5] or \
                difflib.get_close_matches(name, list(self._specs), n=5, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else "; `cuteverify spec list` shows them all"
            raise UnknownSpec(f"no spec named {name!r}{hint}")
        return self[name] if name in self else default

    def names(self, filter=None) -> list:
        """Sorted spec names; ``filter`` is a substring, a callable ``Spec -> bool``, or a dict of fields
        that must be equal (e.g. ``{"kind": "mma", "arch": "sm_90"}``)."""
        out = []
        for n, s in self._specs.items():
            if filter is None:
                keep = True
            elif isinstance(filter, str):
                # a name fragment, or the PTX instruction / kind ("ldmatrix", "wgmma", "smem_atom")
                f = filter.lower()
                keep = f in n.lower() or f in (s.ptx or "").lower() or f == (s.kind or "").lower()
            elif callable(filter):
                keep = bool(filter(s))
            else:
                keep = all(s.data.get(k) == v for k, v in dict(filter).items())
            if keep:
                out.append(n)
        return sorted(out)


def _shipped_dir():
    try:
        from importlib.resources import files

        d = files("cuteverify.spec_data")
        if d.joinpath("schema.json").is_file():
            return d
    except (ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parent.parent / "specs"  # development checkout


def _expand(paths: Iterable) -> list:
    out = []
    for p in paths:
        if hasattr(p, "iterdir") and p.is_dir():
            out.extend(sorted((q for q in p.iterdir() if q.name.endswith((".yaml", ".yml"))),
                              key=lambda q: q.name))
        elif hasattr(p, "read_text"):
            out.append(p)
        else:
            out.append(Path(p))
            if Path(p).is_dir():
                out.pop()
                out.extend(sorted(Path(p).glob("*.y*ml")))
    return out


def _user_paths() -> list:
    env = [x for x in os.environ.get(ENV_VAR, "").split(os.pathsep) if x]
    return [*SEARCH_PATH, *env]


def load_file(text: str, file: str) -> list:
    """Parse one spec file's text into :class:`Spec` objects (schema + formulas; no self-check)."""
    doc = _read_yaml(text, file)
    if doc is None:
        raise SpecError("empty spec file", file, 1)
    _validate_schema(doc, file)
    try:
        helpers = _fm.resolve_helpers(doc.get("helpers") or {}, _TV_VARS)
    except FormulaError as e:
        line = doc["helpers"].line_of(next((k for k, v in doc["helpers"].items() if str(v) == e.text), None))
        raise SpecError(f"helpers: {e}", file, line) from None
    specs = []
    for name, data in doc["specs"].items():
        spec = Spec(name, data, file, doc["specs"].line_of(name), helpers)
        for op in spec.operands:
            if spec.kind != "swizzle" or op == "swizzle":
                _operand_formulas(spec, op)
        specs.append(spec)
    return specs


def load(paths=None, *, shipped: bool | None = None, check: bool = True) -> Library:
    """Load spec files and return a :class:`Library`.

    ``paths=None`` loads the shipped library plus :data:`SEARCH_PATH` and ``$CUTEVERIFY_SPEC_PATH``
    (directories of ``*.yaml``, or files).  With explicit ``paths`` only those are read unless
    ``shipped=True``.  ``check`` runs :func:`self_check` on every spec.  Raises :class:`SpecError`.
    """
    if shipped is None:
        shipped = paths is None
    sources = []
    if shipped:
        sources.extend(_expand([_shipped_dir()]))
    if paths is None:
        paths = _user_paths()
    elif isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    sources.extend(_expand(paths))
    specs: dict = {}
    files = []
    for src in sources:
        name = str(src)
        try:
            text = src.read_text()
        except OSError as e:
            raise SpecError(f"cannot read spec file: {e}", name) from None
        files.append(name)
        for spec in load_file(text, name):
            if spec.name in specs:
                other = specs[spec.name]
                raise SpecError(f"duplicate spec name (also at {other.file}:{other.line})", name, spec.line,
                                spec.name)
            specs[spec.name] = spec
    if check:
        for spec in specs.values():
            self_check(spec)
    return Library(specs, files)


_DEFAULT: list = []


def default_library() -> Library:
    """The shipped + search-path library, loaded and self-checked once per process."""
    if not _DEFAULT:
        _DEFAULT.append(load())
    return _DEFAULT[0]


def reload() -> Library:
    """Forget the cached default library (after changing the search path) and load it again."""
    _DEFAULT.clear()
    _layout_by_text.cache_clear()
    return default_library()


def get(name: str) -> Spec:
    """The spec called ``name`` (or one of its aliases) from the default library."""
    return default_library().get(name)


def names(filter=None) -> list:
    """Names in the default library; see :meth:`Library.names` for ``filter``."""
    return default_library().names(filter)
