"""One hardware spec (:class:`Spec`) and a set of them by name (:class:`Library`); docs/model.md section 6.

A spec is a validated YAML mapping of one of four kinds:

``mma``        an MMA atom: ThrID and the A/B/C TV layouts copied from CUTLASS, plus an independent PTX-ISA
               formula (row, col of element ``i`` held by a thread) per operand;
``copy``       a copy atom (ldmatrix/stmatrix): src/dst TV layouts in bits, with formulas;
``smem_atom``  a shared-memory layout atom (GMMA K/MN x INTER/SW32/SW64/SW128) in element units, with its
               CUTLASS bit-level definition and an offset formula on byte addresses;
``swizzle``    a TMA / wgmma swizzle mode with its enum encodings and a byte-address formula.

A *family* (wgmma ``N``) has parameters; layout entries and extents may be small parameter expressions
(``N/8``), evaluated exactly here.
"""
from __future__ import annotations

import ast
import difflib
import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from ...core.notation.parse import parse
from ...errors import FormulaError, SpecError, UnknownSpec
from . import formula as _fm
from .intlayout import int_layout
from .loader import line_of

__all__ = ["Spec", "Library", "THREAD_VARS", "TV_VARS", "eval_param_expr", "substitute", "operand_formulas",
           "clear_layout_cache", "OPERAND_MODES", "TILED_OPERANDS", "operand_tile"]

# Names a formula may use, per spec kind.
THREAD_VARS = ("thread", "tid", "lane", "warp")
TV_VARS = THREAD_VARS + ("i",)
_SMEM_VARS = ("row", "col")
_SWIZZLE_VARS = ("addr",)

# The one operand map: an MMA operand -> the (M, N, K) modes of its tile (CuTe's A (M,K), B (N,K), C and D
# (M,N)). SFA / SFB: the scale factors of a block-scaled MMA, E: the sparsity metadata of a sparse one; each is
# indexed like the operand it describes. TILED_OPERANDS: the operands of a tiled MMA (tv_layout_X_tiled).
OPERAND_MODES = {"A": (0, 2), "B": (1, 2), "C": (0, 1), "D": (0, 1), "SFA": (0, 2), "SFB": (1, 2), "E": (0, 2)}
TILED_OPERANDS = ("A", "B", "C")
# the axes the PTX formulas name: (row, col) of the formula's tile, B written (k, n) as the PTX ISA draws it
_OPERAND_AXES = {op: tuple("mnk"[i] for i in (m[::-1] if m == (1, 2) else m)) for op, m in OPERAND_MODES.items()}


def operand_tile(operand: str, m, n, k) -> tuple:
    """``(rows, cols, order)`` of the tile an MMA operand's PTX formula indexes: the operand's two modes of
    ``(m, n, k)`` (:data:`OPERAND_MODES`, ints or symbolic sizes), a B-like operand written ``(k, n)`` with
    order ``"row_b"`` (as the PTX ISA draws it), the others ``"col"``. Raises KeyError for no MMA operand."""
    i, j = OPERAND_MODES[operand]
    mnk = (m, n, k)
    return (k, n, "row_b") if (i, j) == (1, 2) else (mnk[i], mnk[j], "col")


# ------------------------------------------------------------------------------ parameter arithmetic

def eval_param_expr(text, params: Mapping[str, int], what: str) -> int:
    """Evaluate an int or a small exact expression over parameters (``N``, ``N/8``, ``2*N``).

    Admissible: int literals, parameter names and ``+ - * / //``; the value must be an integer. Raises
    :class:`SpecError` naming ``what`` otherwise."""
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


def substitute(text: str, params: Mapping[str, int]) -> str:
    """Substitute parameters in layout text and fold each entry to an int: ``N/8`` with N=64 -> ``8``."""
    return _substitute_cached(text, tuple(sorted(params.items())))


@functools.lru_cache(maxsize=8192)
def _substitute_cached(text: str, ptuple: tuple) -> str:
    params = dict(ptuple)
    out, tok = [], []

    def flush():
        if tok:
            t = "".join(tok).strip()
            out.append(str(eval_param_expr(t, params, "layout entry")) if any(c.isalpha() for c in t) and
                       not t.startswith("S<") else t)
            tok.clear()

    depth_angle = 0
    for ch in text:
        if ch == "<":
            depth_angle += 1
        elif ch == ">":
            depth_angle -= 1
        if depth_angle == 0 and ch in "(),:":
            flush()
            out.append(ch)
        else:
            tok.append(ch)
    flush()
    return "".join(out)


@functools.lru_cache(maxsize=8192)
def _layout_by_text(text: str):
    return parse(text)


def clear_layout_cache() -> None:
    """Forget the layouts :meth:`Spec.layout` parsed (after the spec files changed)."""
    _layout_by_text.cache_clear()


# ------------------------------------------------------------------------------------------- the Spec

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
    def cutlass_source(self) -> str | None:
        """Where CUTLASS defines the layouts (``source: {cutlass: ...}``: header and struct)."""
        src = self.data.get("source")
        return src.get("cutlass") if isinstance(src, dict) else src

    @property
    def ptx_section(self) -> str | None:
        """The PTX ISA section the formula was read from (``source: {ptx: ...}``)."""
        src = self.data.get("source")
        return src.get("ptx") if isinstance(src, dict) else None

    @property
    def evidence(self) -> dict | None:
        """Silicon evidence recorded for this spec (``evidence:`` in the YAML, written by
        :func:`cuteverify.hardware.checks.evidence.annotate`), e.g. ``{"silicon": "sm90", "gpu": "NVIDIA H200",
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

    @functools.cached_property
    def param_names(self) -> dict:
        """Symbolic names of enum parameters as CUTLASS spells them: ``{"a_major": {"K": 0, "MN": 1}}``."""
        return {k: dict(p["names"]) for k, p in (self.data.get("params") or {}).items() if p.get("names")}

    @functools.cached_property
    def _constraint(self):
        """The family's ``constraint`` (a formula over the parameters, true for the admissible instances;
        CUTLASS's static_asserts that tie one parameter to another), compiled; None when absent."""
        text = self.data.get("constraint")
        if text is None:
            return None
        try:
            return _fm.parse(text, tuple(self.params)).compile(tuple(self.params))
        except FormulaError as e:
            raise SpecError(f"constraint: {e}", self.file, line_of(self.data, "constraint", self.line),
                            self.name) from None

    def admits(self, params: Mapping[str, int]) -> bool:
        """True when a full parameter assignment satisfies the family's ``constraint`` (always, without one)."""
        fn = self._constraint
        return fn is None or bool(fn(*(params[k] for k in self.params)))

    def instances(self) -> list:
        """Every admissible parameter assignment of a family (``[{}]`` for a single instruction)."""
        combos = [{}]
        for name, values in self.params.items():
            combos = [dict(c, **{name: v}) for c in combos for v in values]
        return [c for c in combos if self.admits(c)] if self._constraint is not None else combos

    def check_params(self, params: Mapping[str, int]) -> dict:
        """``params`` as a plain dict of ints, after checking it names every family parameter, each in its range
        (an enum parameter may be given by its name, ``a_major="MN"``), nothing else, and satisfies the family's
        ``constraint``; :class:`SpecError` otherwise."""
        allowed = self.params
        extra = set(params) - set(allowed)
        if extra:
            raise SpecError(f"unknown parameter(s) {sorted(extra)}", self.file, self.line, self.name)
        out = {}
        for k, vals in allowed.items():
            if k not in params:
                raise SpecError(f"family needs parameter {k} (one of {vals[0]}..{vals[-1]})",
                                self.file, self.line, self.name)
            v = params[k]
            if isinstance(v, str) and k in self.param_names:
                if v not in self.param_names[k]:
                    raise SpecError(f"{k}={v!r}: one of {sorted(self.param_names[k])}", self.file, self.line,
                                    self.name)
                v = self.param_names[k][v]
            if v not in set(vals):
                raise SpecError(f"{k}={v} is not in the family's range", self.file, self.line, self.name)
            out[k] = v
        if not self.admits(out):
            raise SpecError(f"{out} violates the family's constraint {self.data['constraint']!r}", self.file,
                            self.line, self.name)
        return out

    def shape_mnk(self, **params) -> tuple:
        p = self.check_params(params)
        return tuple(eval_param_expr(x, p, "shape_mnk") for x in self.data["shape_mnk"])

    # -- layouts -------------------------------------------------------------------------------------
    def layout_text(self, operand: str, **params) -> str:
        """The operand's layout text in CuTe notation, with family parameters substituted if given."""
        if self.kind in ("mma", "copy"):
            text = self.data["operands"][operand]["layout"] if operand != "thr_id" else self.data["thr_id"]
        elif self.kind == "smem_atom":
            text = self.data["layout"] if operand == "layout" else self.data[operand]
        else:
            raise SpecError("swizzle specs have no layout", self.file, self.line, self.name)
        return substitute(text, params) if params else text

    def layout(self, operand: str, **params):
        """The one spec -> Layout door: the layout the spec file writes for ``operand`` (an MMA / copy operand,
        ``thr_id``, or an smem atom's ``layout`` / ``layout_bits``) as a cuteverify ``Layout``.

        Admissibility: ``params`` is empty (the layout is then symbolic in the family parameters) or fixes
        every family parameter (checked by :meth:`check_params`; enum names allowed). Post-condition: the
        layout of the text with the parameters substituted and each entry folded to an int (so an instance
        parses without sympy), parsed once per text (layouts are shared: never mutate one). A text that
        does not parse is a :class:`SpecError` at the file's line. The int-table fast paths
        (``ptx_tables.spec_int_layout``) are tables built from this."""
        if params:
            params = self.check_params(params)
        text = self.layout_text(operand, **params)
        try:
            return _layout_by_text(text)
        except SpecError:
            raise
        except Exception as e:  # ParseError from the core
            node = self.data["operands"].get(operand) if self.kind in ("mma", "copy") else None
            line = line_of(node, "layout", self.line) if node is not None else line_of(self.data, operand, self.line)
            raise SpecError(f"{operand}: cannot parse layout {text!r}: {e}", self.file, line, self.name) from None

    def thr_id(self):
        return self.layout("thr_id")

    def formula(self, operand: str) -> dict:
        """The operand's parsed formulas, e.g. ``{"row": Formula, "col": Formula}``."""
        return operand_formulas(self, operand)

    def tile(self, operand: str, **params) -> tuple:
        """(rows, cols, order) of the tile an operand's codomain indexes, for the formula's row/col."""
        p = self.check_params(params)
        if self.kind == "mma":
            m, n, k = (eval_param_expr(x, p, "shape_mnk") for x in self.data["shape_mnk"])
            return operand_tile(operand, m, n, k)
        if self.kind == "copy":
            r, c = (eval_param_expr(x, p, "tile") for x in self.data["tile"])
            return (r, c, self.data.get("order", "row"))
        if self.kind == "smem_atom":
            lay = int_layout(self.layout("layout"), "layout")
            return (lay.mode_size(0), lay.mode_size(1), "offset")
        raise SpecError("swizzle specs have no tile", self.file, self.line, self.name)

    def axes(self, operand: str) -> tuple:
        if self.kind == "mma":
            return _OPERAND_AXES[operand]
        return ("row", "col")

    # -- what `cuteverify spec show` prints ----------------------------------------------------------
    def summary(self, **params) -> dict:
        """The spec as plain data (``spec show --json``): name, kind, arch, ptx, file, line, the family's
        ``params`` (ranges as text), per operand what the file says (``layout``, with ``params`` substituted
        when given or when the spec is not a family, and the formulas), and the silicon ``evidence``."""
        info = {"name": self.name, "kind": self.kind, "arch": self.arch, "ptx": self.ptx, "file": self.file,
                "line": self.line, "cutlass": self.cutlass_source, "ptx_section": self.ptx_section}
        try:  # enum names (a_major="MN") to their values; a bad choice still shows what the file says
            params = self.check_params(params) if params else params
        except SpecError:
            pass
        if self.is_family:
            info["params"] = {k: str(v) for k, v in self.params.items()}
        info["operands"] = {op: self._operand_summary(op, params) for op in self.operands}
        info["evidence"] = self.evidence
        return info

    def _operand_summary(self, op: str, params: dict) -> dict:
        data = self.data
        if self.kind not in ("mma", "copy"):
            return {k: data[k] for k in ("layout", "swizzle_bytes", "layout_bits", "offset", "major",
                                         "element_bits") if k in data}
        node = data["operands"][op]
        try:
            entry = {"layout": self.layout_text(op, **params) if (params or not self.is_family)
                     else node.get("layout")}
        except SpecError:  # parameters the layout cannot take: show what the file says
            entry = {"layout": node.get("layout")}
        entry.update({k: node[k] for k in ("row", "col", "from", "broadcast") if k in node})
        return entry

    def describe(self, **params) -> str:
        """:meth:`summary` as the text ``cuteverify spec show`` prints (lines joined by newlines, no final
        newline): the plain fields, the source, the evidence, the family's parameters and each operand."""
        info = self.summary(**params)
        lines = [f"{k}: {info[k]}" for k in ("name", "kind", "arch", "ptx") if info.get(k)]
        lines.append(f"source: {self.file}:{self.line}")
        lines.extend(f"{k.replace('_', ' ')}: {info[k]}" for k in ("cutlass", "ptx_section") if info.get(k))
        ev = info["evidence"]
        if isinstance(ev, dict) and ev.get("confirmed"):
            probed = ", ".join(ev.get("probed") or [])
            lines.append(f"evidence: {ev.get('silicon')} ({ev.get('gpu')}), confirmed, {ev.get('records')} records"
                         + (f" [{probed}]" if probed else ""))
        elif isinstance(self.data.get("evidence"), str):  # a note, e.g. "none, PTX formula only" (no such GPU here)
            lines.append(f"evidence: {self.data['evidence']}")
        else:
            lines.append("evidence: not probed on silicon")
        if "params" in info:
            lines.append("params: " + ", ".join(f"{k} {v}" for k, v in info["params"].items()))
        for op, entry in info["operands"].items():
            lines.append(f"{op}:")
            lines.extend(f"  {k}: {v}" for k, v in entry.items())
        return "\n".join(lines)


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


def operand_formulas(spec: Spec, operand: str) -> dict:
    """The operand's formulas parsed once per spec (``{"row": Formula, "col": Formula}``, ``{"offset": ...}``
    or ``{"address": ...}``); a malformed formula is a :class:`SpecError` naming its line."""
    cache = spec.__dict__.setdefault("_formula_cache", {})
    if operand in cache:
        return cache[operand]
    node = _operand_node(spec, operand)
    if spec.kind in ("mma", "copy"):
        variables = TV_VARS + tuple(spec.params)
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
        default = getattr(node, "line", spec.line)
        line = line_of(node, key, default) if key else default
        raise SpecError(f"operand {operand}: {e}", spec.file, line, spec.name) from None
    cache[operand] = out
    return out


# --------------------------------------------------------------------------------------------- library

class Library(Mapping):
    """Specs by name (a read-only mapping), with the files they came from.

    ``checker`` (the self-check) runs on a spec the first time it is handed out, so that a process pays only
    for the specs it uses while no spec reaches a decision unchecked; :meth:`peek` reads a spec's metadata
    (name, kind, arch, evidence) without checking it, for listings."""

    def __init__(self, specs: dict, files: list, checker=None):
        self._specs = specs
        self.files = files
        self._checker = checker
        self._checked: set = set()
        self._aliases = {}
        for s in specs.values():
            for a in s.data.get("aliases", []) or []:
                self._aliases[a] = s.name

    def __getitem__(self, name: str) -> Spec:
        spec = self._specs[self._aliases.get(name, name)]
        checker = getattr(self, "_checker", None)
        if checker is not None and spec.name not in self._checked:
            checker(spec)  # SpecInconsistent propagates, and the spec stays unchecked
            self._checked.add(spec.name)
        return spec

    def peek(self, name: str) -> Spec:
        """The spec called ``name`` (or an alias) without running its self-check: for metadata only."""
        return self._specs[self._aliases.get(name, name)]

    def __iter__(self):
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name) -> bool:
        return name in self._specs or name in self._aliases

    def get(self, name: str, default=None) -> Spec:  # type: ignore[override]
        """The spec called ``name`` (or an alias). Without a ``default``, an unknown name raises
        :class:`UnknownSpec` suggesting close names."""
        if default is None and name not in self:
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
