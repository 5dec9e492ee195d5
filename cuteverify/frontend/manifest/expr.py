"""Layout expressions of kernel manifests: a ``layouts:`` entry is CuTe text, an algebra expression, a call of
the atom layer, another entry's name, or any of these with attribute access (docs: ``cuteverify.frontend.manifest``).

Grammar (``term``)::

    term     := primary postfix*  |  CuTe text  |  algebra call (cuteverify.algebra.expr, entries bound)
    primary  := ATOM_FUNCTION '(' args ')'  |  NAME  |  'composition(' SWIZZLE ', ' term ')'
    postfix  := '.' ATTR  |  '.' METHOD '(' args ')'  |  '[' int ']'  |  '[' slice ']' (tiles.read_slice)
    args     := arg (',' arg)*,  arg := [KEYWORD '='] value
    value    := '_' (None) | int | NAME | SpecName | dtype | '(' value, ... ')' (a tuple) | term

``ATOM_FUNCTION`` is one of :data:`ATOM_FUNCTIONS` (``make_tiled_mma``, ``make_tiled_copy_A``, ...). A bare
identifier in an argument is, in this order: an entry of the kernel; a spec or dtype name where the parameter
takes one (``atom``, ``op``, ``dtype``: ``SM80_16x8x16_F32F16F16F32_TN``, ``SM80_CP_ASYNC_CACHEALWAYS<uint128_t>``,
``f16``); a declared symbol; anything else is an unknown name (an input error: an undeclared name never becomes
a symbol silently). Identifiers inside CuTe text (``(M,64):(64,1)``) are symbols as before. An algebra call
whose arguments contain atom calls or attribute chains has those evaluated first and bound to fresh names, then
the algebra evaluator of ``cuteverify.algebra.expr`` (the ``cuteverify algebra`` verb's) evaluates it; a text
without any call is parsed as CuTe text (columns of errors point into it).

Entries resolve in dependency order (:func:`dependency_order`): a cycle (``{A: B, B: A}``, ``A: composition(A,
4:1)``) or an unknown name raises :class:`LayoutExprError` naming the entry, which the manifest loader reports
with the entry's YAML line. Nothing here prints.
"""
from __future__ import annotations

import functools
import inspect
import re

from ... import atoms
from ...algebra import expr as algebra_expr
from ...core.notation import scan
from ...core.layout import size
from ...core.notation.parse import as_assumptions, parse, read_swizzle
from ...core.swizzle import ComposedLayout
from ...core.notation.tiles import read_slice, tile_text
from ...errors import CuteVerifyError, LayoutExprError, ParseError
from ...hardware.library.spec import OPERAND_MODES, TILED_OPERANDS
from ...symbolic import parse_expr

__all__ = ["ATOM_FUNCTIONS", "dependency_order", "entry_tiles", "environment", "evaluate",
           "evaluate_tile", "evaluate_value", "references", "shared_assumptions", "is_layout"]

ATOM_FUNCTIONS = {name: getattr(atoms, name) for name in (
    "make_mma_atom", "make_tiled_mma", "make_copy_atom", "make_tiled_copy", "make_tiled_copy_tv",
    "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C", "make_tiled_copy_C_atom", "make_tiled_copy_S",
    "make_tiled_copy_D",
    "make_layout_tv", "local_tile", "local_partition", "fragment_like")}
#: parameters of the atom functions that take a spec or dtype name as a bare identifier
NAME_PARAMS = frozenset({"atom", "op", "dtype"})
#: the parameter name :meth:`_Eval.call` gives a keyword the function takes in ``**params`` (a family parameter:
#: ``a_major=K`` / ``a_major=UMMA::Major::K`` is an enum name, read as text for the one spec resolver)
FAMILY_PARAM = "<family parameter>"

_IDENT = re.compile(r"[A-Za-z_]\w*")
_KEYWORD = re.compile(r"\s*([A-Za-z_]\w*)\s*=(?!=)")
_SPEC_NAME = re.compile(r"[A-Za-z_][\w:]*\s*<[^()]*>\Z")
_STATIC_INT = re.compile(r"_\d+")
_QUALIFIED = re.compile(r"[A-Za-z_]\w*(?:::\w+)+\Z")
_NO = object()


def is_layout(v) -> bool:
    """A layout value (plain or swizzled): what the algebra and the prover's claims take."""
    return hasattr(v, "shape") and (hasattr(v, "stride") or isinstance(v, ComposedLayout))


@functools.lru_cache(maxsize=256)
def shared_assumptions(assume: tuple):
    """One ``Assumptions`` object per kernel: shared by its layouts, so an assumption may speak of symbols
    that only some of them use."""
    if not assume:
        return None
    return as_assumptions(list(assume))


def references(text: str, names) -> set:
    """The entries of ``names`` that ``text`` refers to: identifiers not after a ``.`` (attributes), not before
    ``(`` (functions) and not before ``=`` (keywords)."""
    out = set()
    for m in _IDENT.finditer(text):
        i, j = m.start(), m.end()
        if i and (text[i - 1].isalnum() or text[i - 1] in "_."):
            continue
        rest = text[j:].lstrip()
        if rest.startswith("(") or (rest.startswith("=") and not rest.startswith("==")):
            continue
        if m.group() in names:
            out.add(m.group())
    return out


def dependency_order(texts: dict) -> list:
    """The entry names of ``texts`` (name -> text) ordered so that each comes after the entries it refers to
    (file order otherwise). Raises :class:`LayoutExprError` at the first entry of a cycle."""
    deps = {n: references(t, texts) for n, t in texts.items()}
    order, state = [], {}

    def visit(n, trail):
        state[n] = 1
        for d in sorted(deps[n], key=list(texts).index):
            if state.get(d) == 1:
                cyc = trail[trail.index(d):] + [d]
                raise LayoutExprError(f"layouts name each other in a cycle: {' -> '.join(cyc)}", cyc[0])
            if d not in state:
                visit(d, trail + [d])
        state[n] = 2
        order.append(n)

    for n in texts:
        if n not in state:
            visit(n, [n])
    return order


def environment(layouts: tuple, assume: tuple = (), symbols: tuple | None = None) -> dict:
    """Every entry of ``layouts`` (``((name, text), ...)``) evaluated, in dependency order, under the kernel's
    shared assumptions: ``{name: value}`` (a Layout, a ComposedLayout, a TiledMma, a TiledCopy, ...).
    Raises :class:`LayoutExprError` naming the entry. Cached: the loader evaluates a kernel once and its claims
    (in this process or a forked worker) reuse the values."""
    return _evaluated(layouts, tuple(assume), symbols)[0]


def entry_tiles(layouts: tuple, assume: tuple = (), symbols: tuple | None = None) -> dict:
    """``{name: tile}`` for the entries that are a TV layout read off a tiled MMA or tiled copy (see
    :func:`evaluate_tile`): the ``(M, N)``-style extents of the tile that layout indexes."""
    return _evaluated(layouts, tuple(assume), symbols)[1]


@functools.lru_cache(maxsize=64)
def _evaluated(layouts: tuple, assume: tuple, symbols):
    texts = dict(layouts)
    asm = shared_assumptions(tuple(assume))
    env: dict = {}
    tiles: dict = {}
    for n in dependency_order(texts):
        try:
            env[n], tile = evaluate_tile(texts[n], env, asm, symbols, tiles, names=tuple(texts))
            if tile is not None:
                tiles[n] = tile
        except LayoutExprError as e:
            raise LayoutExprError(e.reason, n, e.column, e.parse_error) from None
        except ParseError as e:
            raise LayoutExprError(str(e), n, parse_error=e) from None
        except CuteVerifyError as e:
            raise LayoutExprError(str(e), n) from None
    return env, tiles


def evaluate(text: str, env: dict, assume=None, symbols=None, names=None):
    """The value of one layout expression (grammar in the module docstring), names looked up in ``env``.

    Admissible: the grammar, known functions and attributes, arguments each function admits. A text without
    calls or attributes is CuTe text, parsed as such. Raises ``ParseError`` (column in ``text``),
    :class:`LayoutExprError` (unknown name, bad attribute, bad arguments) or the called operation's own
    ``CuteVerifyError``."""
    text = str(text)
    bare = text.strip()
    if _IDENT.fullmatch(bare) and bare not in env and not (symbols is not None and bare in symbols):
        raise LayoutExprError(f"{bare!r} is not a layout of this kernel (its layouts: "
                              f"{', '.join(names or env) or 'none'}) nor a declared symbol")
    return evaluate_tile(text, env, assume, symbols, None, names)[0]


def evaluate_tile(text: str, env: dict, assume=None, symbols=None, tiles=None, names=None):
    """``(value, tile)``: :func:`evaluate`'s value, and the tile it indexes when the expression is a TV layout
    read off a tiled object (``mma.tv_layout_C_tiled`` -> ``(tile_M, tile_N)``, ``copy.layout_src_tv_tiled`` ->
    the copy's ``tiler_mn`` extents, an atom's ``tv_layout_A`` -> ``(M, K)``) or an entry that is one (``tiles``:
    entry -> tile); None for anything computed from such a layout, whose index space the claim cannot know."""
    text = str(text)
    bare = text.strip()
    if _IDENT.fullmatch(bare) and bare not in env and not (symbols is not None and bare in symbols):
        raise LayoutExprError(f"{bare!r} is not a layout of this kernel (its layouts: "
                              f"{', '.join(names or env) or 'none'}) nor a declared symbol")
    algebra_expr.check_depth(text, "layout expression")
    ev = _Eval(text, env, assume, symbols, names, tiles)
    value = ev.term(0, len(text))
    return value, ev.tile


def evaluate_value(text: str, env: dict, assume=None, symbols=None):
    """A value written as an atom function's argument (``(2,2,1)`` a tuple, ``(32,(8,2,2):(1,16,8),16)`` a
    tuple holding a layout, ``_`` None, an int): the ``atom_layout`` / ``permutation`` fields of claims."""
    text = str(text)
    return _Eval(text, env, assume, symbols).arg(0, len(text), None)


class _Eval:
    def __init__(self, text, env, asm, symbols, names=None, tiles=None):
        self.text, self.env, self.asm = text, env, asm
        self.tiles = tiles or {}
        self.tile = None  # the tile of the last chain's value, when it is a TV layout of a tiled object
        self.names = tuple(names) if names is not None else tuple(env)
        self.symbols = set(symbols) if symbols is not None else None
        self.tmp: dict = {}

    # -- helpers ---------------------------------------------------------------------------------------
    def _strip(self, a, b):
        t = self.text
        while a < b and t[a].isspace():
            a += 1
        while b > a and t[b - 1].isspace():
            b -= 1
        return a, b

    def _skip(self, j, b):
        while j < b and self.text[j].isspace():
            j += 1
        return j

    def _close(self, i, opener="("):
        j = scan.matching(self.text, i, "(<[" if opener != "<" else "<")
        if j < 0:
            raise ParseError(self.text, len(self.text) + 1, f"a closing '{scan.PAIRS[opener]}'", "layout expression")
        return j

    def _unknown(self, name, a):
        have = ", ".join(self.names) or "none"
        sym = f"; declared symbols: {', '.join(sorted(self.symbols))}" if self.symbols else ""
        return LayoutExprError(f"unknown name {name!r} (this kernel's layouts: {have}{sym}; a spec or "
                               f"dtype name goes where a function takes one)", column=a + 1)

    def _pieces(self, a, b):
        if not self.text[a:b].strip():
            return []
        return scan.split_top(self.text, ",", "(<[", a, b)

    # -- terms -----------------------------------------------------------------------------------------
    def term(self, a, b):
        a, b = self._strip(a, b)
        if a == b:
            raise ParseError(self.text, a + 1, "a layout expression", "layout expression")
        r = self.chain(a, b)
        if r is not _NO:
            return r
        return self.delegate(a, b)

    def chain(self, a, b):
        """A primary with postfixes spanning exactly ``[a, b)``, or ``_NO`` when the span is no such chain."""
        t = self.text
        m = _IDENT.match(t, a)
        if not m or m.end() > b:
            return _NO
        name, j = m.group(), self._skip(m.end(), b)
        if j < b and t[j] == "(":
            close = self._close(j)
            if name in ATOM_FUNCTIONS:
                value = self.call(name, ATOM_FUNCTIONS[name], j, close)
            elif name == "composition" and self._swizzled(j, close) is not None:
                value = self._swizzled(j, close)
            elif self._skip(close + 1, b) >= b:
                return _NO  # an algebra call: the algebra evaluator's
            else:
                value = self.delegate(a, close + 1)
            j = close + 1
            self.tile = None
        elif name in self.env:
            value = self.env[name]
            j = m.end()
            self.tile = self.tiles.get(name)
        else:
            return _NO
        return self.postfix(value, j, b)

    def postfix(self, value, j, b):
        t = self.text
        while True:
            j = self._skip(j, b)
            if j >= b:
                return value
            if t[j] == "." and _IDENT.match(t, j + 1):
                m = _IDENT.match(t, j + 1)
                attr, k = m.group(), self._skip(m.end(), b)
                if attr.startswith("_"):
                    raise LayoutExprError(f"attribute {attr!r}: private attributes are not part of a manifest",
                                          column=j + 2)
                try:
                    got = getattr(value, attr)
                except AttributeError:
                    raise LayoutExprError(f"{_what(value)} has no attribute {attr!r}", column=j + 2) from None
                if k < b and t[k] == "(":
                    close = self._close(k)
                    if not callable(got):
                        raise LayoutExprError(f"{attr} of {_what(value)} is not a method", column=j + 2)
                    owner, value = value, self.call(attr, got, k, close)
                    j = close + 1
                else:
                    if inspect.ismethod(got):
                        raise LayoutExprError(f"{attr} is a method of {_what(value)}: call it, {attr}(...)",
                                              column=j + 2)
                    owner, value, j = value, got, m.end()
                self.tile = _tv_tile(owner, attr, value)
            elif t[j] == "[":
                close = self._close(j, "[")
                idx = read_slice(t, "layout expression", j + 1, close, lambda a, b: self.arg(a, b, None))
                try:
                    value = value[idx]
                except (TypeError, IndexError, KeyError) as e:
                    raise LayoutExprError(f"cannot index {_what(value)} with {idx!r} ({e})", column=j + 1) from None
                j = close + 1
                self.tile = None
            else:
                raise ParseError(t, j + 1, "'.', '[' or the end of the expression", "layout expression")

    def _swizzled(self, open_i, close_i):
        """``composition(S<b,m,s>, L)``, CUTLASS's spelling of the swizzled layout ``S<b,m,s> o 0 o L``."""
        pieces = self._pieces(open_i + 1, close_i)
        if len(pieces) != 2:
            return None
        sw = read_swizzle(pieces[0][0], "layout expression")
        if sw is None:
            return None
        p, off = pieces[1]
        outer = self.arg(off, off + len(p), None)
        if not is_layout(outer):
            raise LayoutExprError(f"composition(S<...>, ...) takes a layout, got {_what(outer)}", column=off + 1)
        return ComposedLayout(sw, 0, outer)

    def call(self, name, fn, open_i, close_i):
        try:
            params = [p for p, v in inspect.signature(fn).parameters.items()
                      if v.kind in (v.POSITIONAL_ONLY, v.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
            params = []
        pos, kw = [], {}
        for i, (p, off) in enumerate(self._pieces(open_i + 1, close_i)):
            km = _KEYWORD.match(p)
            if km:
                key = km.group(1)
                kw[key] = self.arg(off + km.end(), off + len(p), FAMILY_PARAM if _family_keyword(fn, key)
                                   else key)
            else:
                if kw:
                    raise ParseError(self.text, off + 1, "keyword arguments after the positional ones",
                                     "layout expression")
                pos.append(self.arg(off, off + len(p), params[i] if i < len(params) else None))
        try:
            return fn(*pos, **kw)
        except CuteVerifyError:
            raise
        except (TypeError, AttributeError, ValueError, IndexError, KeyError) as e:
            raise LayoutExprError(f"{name}: invalid arguments ({e})", column=open_i + 1 - len(name)) from None

    def arg(self, a, b, param):
        """One argument: ``param`` (the parameter's name, when known) decides whether a bare identifier may be
        a spec or dtype name."""
        a, b = self._strip(a, b)
        t = self.text
        s = t[a:b]
        if not s:
            raise ParseError(t, a + 1, "an argument", "layout expression")
        if s in ("_", "None"):
            return None
        if len(s) >= 2 and s[0] in "'\"" and s[-1] == s[0]:
            return s[1:-1]
        if re.fullmatch(r"-?\d+|_\d+", s):  # _32: CuTe C++'s static integer
            return int(s.lstrip("_"))
        tile = tile_text(s)  # 128x64, C++'s Tile<...> and CuTe DSL's printed [a;b;c]
        if tile is not None:
            return tile
        if param == FAMILY_PARAM and (_IDENT.fullmatch(s) and s not in self.env or _QUALIFIED.fullmatch(s)):
            return s  # an enum name (K, UMMA::Major::MN): the spec resolver maps it or says which it takes
        if _IDENT.fullmatch(s):
            if s in self.env:
                return self.env[s]
            if param in NAME_PARAMS:
                return s
            if self.symbols is not None and s in self.symbols:
                return parse_expr(s)
            raise self._unknown(s, a)
        if param in NAME_PARAMS and (_SPEC_NAME.match(s) or _QUALIFIED.fullmatch(s)):
            return s
        if s[0] == "(" and self._close(a) == b - 1:
            pieces = self._pieces(a + 1, b - 1)
            if len(pieces) == 1 and not t[a + 1:b - 1].strip().endswith(","):
                return self.arg(a + 1, b - 1, param)
            return tuple(self.arg(off, off + len(p), None) for p, off in pieces if p.strip() or off != b - 1)
        r = self.chain(a, b)
        if r is not _NO:
            return r
        if not any(c in s for c in ":(<"):
            try:  # an integer expression over symbols: a tile extent, a coordinate
                return parse_expr(s)
            except ParseError as e:
                raise ParseError(t, a + e.column, e.expected, "layout expression") from None
        return self.delegate(a, b)

    def delegate(self, a, b):
        """Algebra calls and CuTe text: atom calls and attribute chains inside are evaluated first and bound to
        fresh names; the rest is the algebra evaluator's (a call) or the CuTe parser's (text)."""
        t = self.text
        out, last, i = [], a, a
        for m in _IDENT.finditer(t, a, b):
            if m.start() < i or (m.start() and (t[m.start() - 1].isalnum() or t[m.start() - 1] in "_.:")):
                continue
            name, j = m.group(), self._skip(m.end(), b)
            nxt = t[j] if j < b else ""
            end = None
            if (name in ATOM_FUNCTIONS and nxt == "(") or (name in self.env and nxt in (".", "[")):
                end = self._chain_end(m.start(), b)
            elif name == "composition" and nxt == "(" and self._swizzled(j, self._close(j)) is not None:
                end = self._chain_end(m.start(), b)
            elif nxt != "(" and not _STATIC_INT.fullmatch(name) and self._is_call_argument(m.start(), m.end(), b) \
                    and name not in self.env \
                    and not (self.symbols is not None and name in self.symbols) and name not in ("_", "None"):
                raise self._unknown(name, m.start())
            if end is None:
                continue
            if m.start() == a and end == b:
                return self.chain(a, b)
            key = f"__cv{len(self.tmp)}"
            self.tmp[key] = self.chain(m.start(), end)
            out.append(t[last:m.start()] + key)
            last = i = end
        self.tile = None  # a value computed from tiled objects' layouts indexes no tile the claim can know
        piece = "".join(out) + t[last:b]
        call = _IDENT.match(piece.lstrip())
        is_call = call is not None and piece.lstrip()[call.end():].lstrip().startswith("(")
        if not is_call and not self.tmp:
            try:
                return parse(piece, assume=self.asm, source="layout")
            except ParseError as e:
                raise ParseError(t, a + e.column, e.expected, "layout") from None
        bindings = dict(self.env)
        bindings.update(self.tmp)
        try:
            return algebra_expr.evaluate(piece, bindings, assume=self.asm)
        except ParseError as e:
            if not self.tmp:
                raise ParseError(t, a + e.column, e.expected, "layout expression") from None
            raise ParseError(t, a + 1, e.expected, "layout expression") from None

    def _chain_end(self, a, b):
        """Where the primary + postfix chain starting at ``a`` ends."""
        t = self.text
        m = _IDENT.match(t, a)
        j = self._skip(m.end(), b)
        if j < b and t[j] == "(":
            j = self._close(j) + 1
        else:
            j = m.end()
        while True:
            k = self._skip(j, b)
            if k < b and t[k] == "." and _IDENT.match(t, k + 1):
                m2 = _IDENT.match(t, k + 1)
                j = m2.end()
                k2 = self._skip(j, b)
                if k2 < b and t[k2] == "(":
                    j = self._close(k2) + 1
            elif k < b and t[k] == "[":
                j = self._close(k, "[") + 1
            else:
                return j

    def _is_call_argument(self, a, e, b):
        """Is ``text[a:e]`` a whole argument of a function call (not an entry of a tuple or layout text)?"""
        t = self.text
        k = a - 1
        while k >= 0 and t[k].isspace():
            k -= 1
        j = e
        while j < len(t) and t[j].isspace():
            j += 1
        if k < 0 or t[k] not in "(," or j >= len(t) or t[j] not in ",)":
            return False
        depth = 0
        while k >= 0:  # the bracket that encloses the argument, and the name before it
            c = t[k]
            if c in ")>]":
                depth += 1
            elif c in "(<[":
                if depth == 0:
                    if c != "(":
                        return False
                    q = k - 1
                    while q >= 0 and t[q].isspace():
                        q -= 1
                    r = q
                    while r >= 0 and (t[r].isalnum() or t[r] == "_"):
                        r -= 1
                    word = t[r + 1:q + 1]  # ``o (`` is CuTe's composition operator, never a call
                    return q >= 0 and _IDENT.fullmatch(word) is not None and word != "o"
                depth -= 1
            k -= 1
        return False


def _tv_tile(owner, attr, value):
    """The tile ``value`` (``owner.attr``) indexes when it is one of a tiled object's TV layouts, else None."""
    if isinstance(owner, atoms.TiledCopy):
        if attr in ("layout_tv_tiled", "layout_src_tv_tiled", "layout_dst_tv_tiled", "layout_tv"):
            return tuple(size(t) for t in owner.tiler_mn)
        return None
    if not isinstance(owner, atoms.MmaAtom):
        return None
    for op in TILED_OPERANDS:
        i, j = OPERAND_MODES[op]
        if isinstance(owner, atoms.TiledMma) and (attr == f"tv_layout_{op}_tiled" or attr == "tv_layout_tiled"
                                                  and value is _cached(owner.tv_layout_tiled, op)):
            return owner.get_tile_size(i), owner.get_tile_size(j)
        if attr == f"tv_layout_{op}" or attr == "tv_layout" and value is _cached(owner.tv_layout, op):
            return owner.shape_mnk[i], owner.shape_mnk[j]
    return None


def _cached(method, op):
    """``method(op)`` (a cached TV layout, compared by identity), or None where that operand has none."""
    try:
        return method(op)
    except CuteVerifyError:
        return None


def _family_keyword(fn, key: str) -> bool:
    """Is ``key`` a keyword that ``fn`` takes in its ``**params`` (a family parameter), not a named one?"""
    try:
        ps = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False
    return key not in ps and any(v.kind == v.VAR_KEYWORD for v in ps.values())


def _what(v) -> str:
    if is_layout(v):
        return f"the layout {v}"
    return f"{type(v).__name__} {v!r}" if not isinstance(v, (int, tuple)) else repr(v)
