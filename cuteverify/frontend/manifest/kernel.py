"""Reading one kernel of a manifest into its claims: :class:`KernelReader` evaluates the kernel's assumptions and
entries once (``manifest.expr``) and reads each claim through its kind's ``read`` (``manifest.claims``), so that
a :class:`Claim` carries evaluated values (layouts, tiled MMAs, tiled copies) and an error carries the line and
column of the offending YAML node.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...core.notation.parse import DYNAMIC_PREFIX, as_assumptions
from ...errors import CuteVerifyError, LayoutExprError, ManifestError, ParseError
from .claims import KINDS, claim_text
from .expr import entry_tiles, environment, evaluate_tile, evaluate_value, is_layout, shared_assumptions
from .kind import Ref
from .operand import implicit_claims

__all__ = ["Claim", "KernelReader", "where"]

_IDENT = re.compile(r"[A-Za-z_]\w*\Z")


def where(marks, path):
    """The (line, column) of the YAML node at ``path``, or of its nearest ancestor that has a mark."""
    path = tuple(path)
    while path not in marks and path:
        path = path[:-1]
    m = marks.get(path)
    return (m.line, m.column) if m else (None, None)



@dataclass
class Claim:
    """One claim, self-contained and picklable (``run`` sends claims to worker processes): its kind, its
    arguments evaluated (as its kind's ``read`` returned them: layouts and atom-layer objects as ``Ref``, the text
    written with its value), its kernel's shared ``assumptions`` and, for reference, the kernel's entry texts
    (``layouts``), assumption texts and declared symbols."""

    file: str
    kernel: str
    index: int
    kind: str
    args: dict
    expect: str = "proved"
    name: str = ""
    line: int | None = None
    column: int | None = None
    layouts: dict = field(default_factory=dict)
    assume: tuple = ()
    symbols: tuple | None = None
    assumptions: object = None
    at: str = ""

    @property
    def text(self) -> str:
        return claim_text(self.kind, self.args)

    @property
    def label(self) -> str:
        return self.name or self.text

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


def _mark_of(marks, path):
    return marks.get(tuple(path))


def _text_error(pe: ParseError, mark, file, what):
    line = col = None
    if mark is not None:
        line = mark.line
        col = mark.column + (1 if mark.quoted else 0) + max(pe.column - 1, 0)
    return ManifestError(f"cannot parse {what}: expected {pe.expected}\n  {pe.text}\n  {' ' * (pe.column - 1)}^",
                         file, line, col)


class KernelReader:
    """Reads one kernel of a manifest: its assumptions, its named layouts (evaluated once: ``env``) and its claims
    (:meth:`claims`), each checked where it stands so that an error carries the line and column of the offending
    YAML node (``name``: the kernel, ``body``: its YAML mapping, ``marks``: the document's node marks)."""

    def __init__(self, name, body, marks, file):
        self.name, self.body, self.marks, self.file = str(name), body, marks, file
        self.path = ("kernels", name)
        self.assume = tuple(str(a) for a in (body.get("assume") or []))
        self.symbols = tuple(body["symbols"]) if body.get("symbols") is not None else None
        self.layouts = {str(n): str(t) for n, t in (body.get("layouts") or {}).items()}
        self.asm = self._assumptions()
        self.env = self._environment()
        self.tiles = entry_tiles(tuple(self.layouts.items()), self.assume, self.symbols)
        # text -> (value, tile) of what this kernel evaluated already: an inline text that is an entry's text, or
        # that an earlier claim wrote, is that value (never a text with ``?``: each ``?`` is an unknown of its own)
        self._evaluated = {}
        for n, t in self.layouts.items():
            if "?" not in t:
                self._evaluated.setdefault(t.strip(), (self.env[n], self.tiles.get(n)))

    def error(self, reason, path):
        """A ``ManifestError`` with ``reason`` at the YAML node of ``path``."""
        return ManifestError(reason, self.file, *where(self.marks, path))

    def _assumptions(self):
        if not self.assume:
            return None
        for i, a in enumerate(self.assume):
            where = self.path + ("assume", i)
            try:
                as_assumptions([a])
            except ParseError as pe:
                raise _text_error(pe, _mark_of(self.marks, where), self.file, "assumption") from None
            except CuteVerifyError as e:
                raise self.error(f"assumption {a!r}: {e}", where) from None
        try:
            asm = shared_assumptions(self.assume)
            asm.check_consistent()  # a contradiction proves anything: refuse it here, with its line
            return asm
        except CuteVerifyError as e:
            raise self.error(f"assumptions: {e}", self.path + ("assume",)) from None

    def _expr_error(self, e, path, what):
        if e.parse_error is not None:
            return _text_error(e.parse_error, _mark_of(self.marks, path), self.file, what)
        line, col = where(self.marks, path)
        mark = _mark_of(self.marks, path)
        if mark is not None and e.column:
            col = mark.column + (1 if mark.quoted else 0) + e.column - 1
        return ManifestError(f"{what}: {e.reason}", self.file, line, col)

    def _environment(self):
        """Every entry evaluated in dependency order (a cycle, an unknown name or a failed builder is an error
        at the entry's line), each using only the declared symbols."""
        try:
            env = environment(tuple(self.layouts.items()), self.assume, self.symbols)
        except LayoutExprError as e:
            path = self.path + ("layouts", e.name) if e.name in self.layouts else self.path + ("layouts",)
            raise self._wrap(e, path, f"layout {e.name}") from None
        for n, v in env.items():
            self._check_symbols(v, self.path + ("layouts", n), f"layout {n}")
        return env

    def _wrap(self, e, path, what):
        if e.parse_error is not None or e.column:
            return self._expr_error(e, path, what)
        return self.error(f"{what}: {e.reason}", path)

    def _check_symbols(self, v, path, what):
        if self.symbols is None or not callable(getattr(v, "free_symbols", None)):
            return
        # each ``?`` of CuTe DSL text is its own unknown (``?1``, ...): never a symbol the kernel must declare
        extra = sorted(s for s in (str(x) for x in v.free_symbols())
                       if s not in self.symbols and not s.startswith(DYNAMIC_PREFIX))
        if extra:
            raise self.error(f"{what} uses undeclared symbol(s) {', '.join(extra)} "
                             f"(declared: {', '.join(self.symbols) or 'none'})", path)

    def _inline(self, v, path, what="layout"):
        """Inline text or an expression over the kernel's entries, evaluated here (an error has the claim's line
        and column): ``(value, the tile it indexes or None)``."""
        hit = self._evaluated.get(v.strip())
        if hit is not None:
            return hit
        try:
            val, tile = evaluate_tile(v, self.env, self.asm, self.symbols, self.tiles)
        except ParseError as pe:
            raise _text_error(pe, _mark_of(self.marks, path), self.file, what) from None
        except LayoutExprError as e:
            raise self._wrap(e, path, what) from None
        except CuteVerifyError as e:
            raise self.error(f"{what}: {e}", path) from None
        self._check_symbols(val, path, what)
        if "?" not in v:
            self._evaluated[v.strip()] = (val, tile)
        return val, tile

    def ref(self, v, path):
        """A layout argument: one of the kernel's names, or inline CuTe text or an expression, as a ``Ref`` (the
        text, its layout, the tile it indexes when it is a TV layout read off a tiled object)."""
        v = str(v).strip()
        if v in self.layouts:
            val, tile = self.env[v], self.tiles.get(v)
        elif _IDENT.match(v):
            have = ", ".join(self.layouts) or "none"
            raise self.error(f"unknown layout name {v!r} (this kernel's layouts: {have})", path)
        else:
            val, tile = self._inline(v, path)
        if not is_layout(val):
            raise self.error(f"{v} is a {type(val).__name__}, not a layout (an attribute such as "
                             f"tv_layout_A_tiled or layout_tv_tiled is)", path)
        return Ref(v, val, tile)

    def obj(self, v, path, cls):
        """An entry that is a ``cls`` (a tiled MMA, a tiled copy), as a ``Ref`` (its name, its value)."""
        v = str(v).strip()
        what = {"TiledMma": "a tiled MMA (make_tiled_mma(...))", "TiledCopy": "a tiled copy (make_tiled_copy"
                "_tv / _A / _B / ...)"}.get(cls.__name__, cls.__name__)
        if v not in self.layouts:
            have = ", ".join(self.layouts) or "none"
            raise self.error(f"unknown name {v!r}: expected an entry that is {what} (this kernel's layouts: "
                             f"{have})", path)
        if not isinstance(self.env[v], cls):
            raise self.error(f"{v} is a {type(self.env[v]).__name__}, not {what}", path)
        return Ref(v, self.env[v])

    def value(self, v, path):
        """A field written as an atom function's argument (an atom layout, a permutation), as a ``Ref`` (the
        text, its value)."""
        v = str(v).strip()
        if v in self.layouts:
            return Ref(v, self.env[v])
        try:
            return Ref(v, evaluate_value(v, self.env, self.asm, self.symbols))
        except ParseError as pe:
            raise _text_error(pe, _mark_of(self.marks, path), self.file, "value") from None
        except LayoutExprError as e:
            raise self._wrap(e, path, "value") from None
        except CuteVerifyError as e:
            raise self.error(f"value: {e}", path) from None

    def claims(self):
        """The kernel's claims in file order (:class:`Claim`), each read by its kind, then the ``operand`` claims
        its partition entries imply (``operand.implicit_claims``, at the entry's line)."""
        out = []
        for i, c in enumerate(self.body["claims"]):
            cp = self.path + ("claims", i)
            if not isinstance(c, dict):
                raise self.error("a claim is a mapping such as {bijective: NAME}", cp)
            kinds = [x for x in KINDS if x in c]
            if len(kinds) != 1:
                raise self.error(f"a claim needs exactly one of {', '.join(KINDS)}", cp)
            kind = kinds[0]
            args = KINDS[kind].read(self, c[kind], cp + (kind,))
            m = self.marks.get(cp)
            out.append(Claim(self.file, self.name, i, kind, args, str(c.get("expect", "proved")),
                             str(c.get("name", "")), m.line if m else None, m.column if m else None,
                             self.layouts, self.assume, self.symbols, self.asm, str(c.get("at", ""))))
        have = {(str(c.args["tiled_mma"]), c.args["operand"], str(c.args["smem"])) for c in out
                if c.kind == "operand"}
        for entry, args, name in implicit_claims(self.layouts, self.env, have):  # at the entry's line
            m = self.marks.get(self.path + ("layouts", entry))
            out.append(Claim(self.file, self.name, len(out), "operand", args, "proved", name, m.line if m else None,
                             m.column if m else None, self.layouts, self.assume, self.symbols, self.asm))
        return out

