"""CuTe text notation in and out.

Accepted: CuTe DSL prints (``((2,2),(4,2)):((1,8),(2,16))``), CUTLASS C++ prints (``(_4,_8):(_1,_4)``),
shape-only forms (``(4,8)``: compact column-major), coordinate strides (``1@0``, nested ``1@0@1``, or
``E<0>``), symbolic entries (``(M,(8,K)):(1,(M,8*M))``), swizzled layouts
(``S<3,3,3> o 0 o (8,64):(64,1)``, C++ ``Sw<3,3,3> o _0 o ...``) and composed layouts with any outer layout
(``(2,3):(3,1) o 2 o (3,4):(4,1)``, coordinate offsets ``(4,5):(1,4) o (0,0) o (2,3):(1@0,1@1)``, chains
``A o 0 o S<3,4,3> o 0 o L`` read right-nested). Printing is exactly CuTe DSL's form.
"""
from __future__ import annotations

import itertools
import re

from ...errors import NotAdmissibleError, ParseError
from ...symbolic import Assumptions, parse_expr, symbol
from ..layout import Layout, compact_col_major
from ..strides import F2, ScaledBasis
from ..swizzle import ComposedLayout, Swizzle
from .format import format_tuple, format_value
from .scan import has_top, matching, split_top
from . import cute_ir as cute_ir_text
from ..tuples import congruent, flatten
from ...symbolic.conditions import Condition, Obligation
from ...symbolic.lazy import sympy

# CUTLASS prints static integers with a leading underscore, negative ones as ``_-1``
_STATIC_INT = re.compile(r"(?<![A-Za-z0-9_])_(-?\d+)\b")
_SIMPLE_INT = re.compile(r"-?\d+")
_IDENT = re.compile(r"[A-Za-z_]\w*")


MAX_DEPTH = 64  # nesting levels of a shape; deeper text is refused before Python's recursion limit


class _Parser:
    def __init__(self, text: str, source: str):
        self.text = text
        self.pos = 0
        self.source = source
        self.depth = 0
        self.dynamic = 0  # how many ``?`` entries (CuTe DSL's dynamic values) were read
        self.facts = []  # divisibility facts of ``?{div=N}`` entries, joined to the layout's assumptions

    def error(self, expected, pos=None):
        raise ParseError(self.text, (self.pos if pos is None else pos) + 1, expected, self.source)

    def ws(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self):
        self.ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch, what=None):
        if self.peek() != ch:
            self.error(what or f"'{ch}'")
        self.pos += 1

    def at_compose(self):
        """At ' o ' (the composition operator of swizzled layouts)?"""
        self.ws()
        t = self.text
        return (t.startswith("o", self.pos) and (self.pos + 1 == len(t) or t[self.pos + 1].isspace() or
                                                 t[self.pos + 1] in "(_0123456789S"))

    # htuple := '(' htuple (',' htuple)* ')' | leaf
    def htuple(self):
        if self.peek() == "(":
            start = self.pos
            if self.depth >= MAX_DEPTH:
                self.error(f"at most {MAX_DEPTH} levels of nesting")
            end = self._matching(start)
            inner = self.text[start + 1:end]
            if not _has_top_comma(inner) and self._operator_after(end):
                return self.leaf()
            self.pos += 1
            if self.peek() == ")":
                self.error("a shape or stride entry (empty tuples are not allowed)")
            self.depth += 1
            items = [self.htuple()]
            while self.peek() == ",":
                self.pos += 1
                items.append(self.htuple())
            self.expect(")", "',' or ')'")
            self.depth -= 1
            return tuple(items)
        return self.leaf()

    def _matching(self, start):
        end = matching(self.text, start)
        if end < 0:
            self.error("a matching ')'", len(self.text))
        return end

    def _operator_after(self, end):
        j = end + 1
        while j < len(self.text) and self.text[j] == " ":
            j += 1
        return j < len(self.text) and self.text[j] in "+-*/%@"

    def leaf(self):
        self.ws()
        start = self.pos
        lvl = 0
        t = self.text
        while self.pos < len(t):
            c = t[self.pos]
            if c == "(":
                lvl += 1
            elif c == ")":
                if lvl == 0:
                    break
                lvl -= 1
            elif lvl == 0 and c in ",:":
                break
            elif lvl == 0 and c.isspace():
                rest = t[self.pos:].lstrip()
                if rest.startswith("o ") or rest == "o" or rest[:1] in (",", ")", ":", ""):
                    break
            self.pos += 1
        raw = t[start:self.pos]
        if not raw.strip():
            self.error("a shape or stride entry (integer, symbol or expression)", start)
        if raw.strip().startswith("?"):
            return _dynamic_value(self, raw, start)
        return _leaf_value(raw, t, start, self.source)


# ------------------------------------------------------------------ CuTe DSL's dynamic values: ``?``

# ``?``, ``?NAME`` and the forms of CuTe's IR, ``?{div=8}`` / ``?{i64 div=8}`` (also ``?NAME{div=8}``)
_DYNAMIC = re.compile(r"\?\s*(?P<name>[A-Za-z_]\w*)?\s*(?:\{(?P<attrs>[^{}]*)\})?\s*")
# anonymous unknowns are numbered once per process, so that two ``?`` are never one symbol, even in two texts
# (``equal "(?,4)" "(?,4)"`` is about four values); a name with ``?`` cannot be written for another symbol
_ANONYMOUS = itertools.count(1)
DYNAMIC_PREFIX = "?"


def _dynamic_value(p: _Parser, raw: str, start: int):
    """A dynamic value (CuTe DSL prints one as ``?``): ``?`` is an unknown of its own, independent of every
    other (the symbol ``?N``, N counting the anonymous unknowns of this process); ``?NAME`` is the unknown
    named NAME, the same symbol wherever NAME is written, so that ``(?M,?N):(1,?M)`` states a relation; CuTe's
    IR forms ``?{div=8}`` / ``?{i64 div=8}`` / ``?{i32}`` are anonymous unknowns, ``div=N`` adding the
    assumption ``N | unknown`` to the layout's assumptions (``p.facts``). Every unknown is a positive integer
    symbol. Refused (``ParseError`` at the column): anything else after ``?``, e.g. ``?1``, which is how
    cuteverify prints an anonymous unknown and never names one."""
    s = raw.strip()
    off = start + len(raw) - len(raw.lstrip())
    m = _DYNAMIC.fullmatch(s)
    if not m:
        p.error("a dynamic value: ? (an unknown of its own), ?NAME (a named unknown, e.g. ?M), or CuTe's "
                "?{div=8} / ?{i64 div=8}" + (" (?1, ?2, ... are how cuteverify prints anonymous unknowns: write "
                                              "? for a new one, or ?NAME to name one)" if s[1:2].isdigit() else ""),
                off)
    p.dynamic += 1
    sym = symbol(m.group("name")) if m.group("name") else symbol(f"{DYNAMIC_PREFIX}{next(_ANONYMOUS)}")
    attrs = m.group("attrs")
    for tok in (attrs or "").replace(",", " ").split():
        d = re.fullmatch(r"div\s*=\s*(\d{1,18})", tok)
        if tok in ("i32", "i64"):
            continue
        if d is None or int(d.group(1)) == 0:
            p.error("i32, i64 or div=N (N a positive integer) inside ?{...}", off + s.find(tok))
        if int(d.group(1)) > 1:
            p.facts.append(Condition("divides", int(d.group(1)), sym))
    return sym


# how an anonymous unknown prints: ``?`` and its number
ANONYMOUS_NAME = re.compile(r"(?<![\w?])\?(\d+)\b")


def anonymous_names(text) -> list:
    """The anonymous unknowns (``?1``, ``?2``, ...) that ``text`` shows, in order of first appearance: for a
    printed layout, the order its ``?`` were read."""
    out = []
    for m in ANONYMOUS_NAME.finditer(str(text)):
        if m.group() not in out:
            out.append(m.group())
    return out


# a ``?`` as the user wrote it (a claim's own text): not a printed ``?1``, a ``?M`` or an IR ``?{...}``
_BARE_DYNAMIC = re.compile(r"\?(?![\w{])")


def unknowns_note(*texts) -> str | None:
    """The sentence every verdict and computed result about CuTe DSL's dynamic values carries: which anonymous
    unknowns (``?1``, ``?2``, ... for the ``?`` of the input, in the order read) occur in ``texts``, or that
    the ``?`` a text shows as written are, and that each is an independent positive integer; ``None`` when
    there is none."""
    texts = [str(t) for t in texts if t]
    seen = sorted({int(m) for t in texts for m in ANONYMOUS_NAME.findall(t)})
    if not seen:
        if any(_BARE_DYNAMIC.search(t) for t in texts):
            return ("each ? is a dynamic value (CuTe DSL's ?): an unknown positive integer of its own, no relation "
                    "between two ? assumed (write ?M to name one and state relations)")
        return None
    names = ", ".join(f"?{i}" for i in seen)
    if len(seen) == 1:
        return (f"{names} is a dynamic value (CuTe DSL's ?): an unknown positive integer (write ?M to name it "
                "and state relations)")
    return (f"{names} are dynamic values (CuTe DSL's ?, one for each ? in the order read): independent unknown "
            "positive integers, no relation between them assumed (write ?M to name one and state relations)")


def unknowns_notes(verdict) -> list:
    """:func:`unknowns_note` of a verdict-like object (its claim, counterexample, reason and obligations), as a
    list of zero or one sentence."""
    note = unknowns_note(getattr(verdict, "claim", ""), getattr(verdict, "counterexample", None),
                         getattr(verdict, "reason", None), *getattr(verdict, "obligations", ()),
                         *getattr(verdict, "discharged", ()))
    return [note] if note else []


def _with_facts(assumptions, facts):
    """The layout's assumptions with the divisibility facts of its ``?{div=N}`` entries added (to a shared
    ``Assumptions`` object itself: they are facts of the problem, about unknowns only this text has)."""
    if not facts:
        return assumptions
    out = assumptions if assumptions is not None else Assumptions()
    for f in facts:
        out.add(f)
    return out


# coordinate strides ``v@i`` denote coordinates of i+1 entries; no CuTe layout has more modes than this
MAX_BASIS_INDEX = 1024
MAX_DIGITS = 64
_LONG_INT = re.compile(r"\d{%d,}" % (MAX_DIGITS + 1))

def _has_top_comma(s):
    return has_top(s, ",")


def _leaf_value(raw, text, start, source):
    s = raw.strip()
    off = start + (len(raw) - len(raw.lstrip()))
    long = _LONG_INT.search(s)
    if long:  # Python refuses to convert past 4300 digits; no extent or stride has a tenth of them
        raise ParseError(text, off + long.start() + 1, f"an integer of at most {MAX_DIGITS} digits", source)
    if _SIMPLE_INT.fullmatch(s):
        return int(s)
    s2 = _STATIC_INT.sub(r"\1", s)
    if _SIMPLE_INT.fullmatch(s2):
        return int(s2)
    m = re.fullmatch(r"E<\s*(\d+(?:\s*,\s*\d+)*)\s*>", s2)
    if m:
        path = tuple(int(p) for p in m.group(1).split(","))
        if max(path) >= MAX_BASIS_INDEX:
            raise ParseError(text, off + 1, f"mode indices below {MAX_BASIS_INDEX} in E<...>", source)
        return ScaledBasis(1, path)
    m = re.fullmatch(r"\^\s*(\d+)", s2)
    if m:
        return F2(int(m.group(1)))
    if "@" in s2:
        parts = s2.split("@")
        path = []
        for p in parts[1:]:
            if not p.strip().isdigit():
                raise ParseError(text, off + s2.find("@") + 2, "a mode index after '@' (e.g. 1@0)", source)
            if len(p.strip()) > 4 or int(p) >= MAX_BASIS_INDEX:
                # the value is a coordinate with that many entries: refuse before anything allocates it
                raise ParseError(text, off + s2.find("@") + 2, f"a mode index below {MAX_BASIS_INDEX} after '@'",
                                 source)
            path.append(int(p))
        value = _leaf_value(parts[0], text, off, source)
        if isinstance(value, ScaledBasis):
            raise ParseError(text, off + 1, "a scalar before '@'", source)
        # ``v@j@i`` is printed innermost index first: it is ``v * E<i,j>``
        return ScaledBasis(value, tuple(reversed(path)))
    if not re.fullmatch(r"[\w\s+\-*/%()]*", s2):
        bad = next(i for i, c in enumerate(s2) if not (c.isalnum() or c in "_ +-*/%()"))
        raise ParseError(text, off + bad + 1, "an integer, a symbol or an integer expression", source)
    lone = re.search(r"(?<![A-Za-z0-9_])_(?![A-Za-z0-9_])", s2)
    if lone:
        # a bare underscore would otherwise become a symbol named "_": C++'s ``_`` is a slice marker, and
        # ``_-4`` style typos must not turn into arithmetic on it
        raise ParseError(text, off + lone.start() + 1, "an integer, a symbol or an expression ('_' alone is "
                         "CuTe's slice marker, not a value; static integers are written _4 or _-1)", source)
    return _expr(s2, text, off, source)


def _expr(s, text, off, source):
    try:
        value = parse_expr(s)
    except ParseError as e:
        raise ParseError(text, off + e.column, e.expected, source) from None
    if not isinstance(value, int) and not value.free_symbols:
        # a constant that is not an integer (``1/2``): no layout has such an entry
        raise ParseError(text, off + 1, f"an integer entry (got {format_value(value)})", source)
    return value


def _layout_body(p: _Parser):
    start = p.pos
    shape = p.htuple()
    if p.peek() == ":":
        p.pos += 1
        sp = p.pos
        stride = p.htuple()
        if not congruent(shape, stride):
            p.error(f"a stride with the same profile as the shape {format_tuple(shape)}", sp)
        _check_shape(shape, p, start)
        return shape, stride
    _check_shape(shape, p, start)
    return shape, compact_col_major(shape)


def _check_shape(shape, p, start):
    for x in flatten(shape):
        if type(x) is int and x <= 0:
            p.error(f"positive shape entries (got {x})", start)
        if hasattr(x, "path"):
            p.error("integer or symbolic shape entries (coordinate strides belong after ':')", start)
        if hasattr(x, "is_positive") and x.is_positive is False:
            p.error(f"positive shape entries (got {format_value(x)})", start)


# the swizzle functor in every print: ``S<3,3,3>`` (CuTe DSL), ``Sw<3,3,3>`` (C++'s print), ``Swizzle<3,3,3>{}`` /
# ``cute::Swizzle<3,3,3>`` (C++ source, as ``composition(Swizzle<3,3,3>{}, L)`` writes it)
_SWZ = re.compile(r"\s*(?:S|Sw|(?:cute::)?Swizzle)\s*<\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*>\s*(?:\{\s*\}\s*)?")
_COMPOSITION = re.compile(r"\s*(?:cute::)?composition\s*\(")


def read_swizzle(text: str, source: str = "swizzle"):
    """The swizzle functor ``text`` names, or None when it is no swizzle print.

    Admissible: ``S<B,M,S>``, ``Sw<B,M,S>``, ``Swizzle<B,M,S>`` or ``Swizzle<B,M,S>{}`` (optionally ``cute::``),
    surrounded by blanks. Post-condition: the :class:`Swizzle` with those three parameters; parameters no
    swizzle has raise :class:`ParseError` (an input error) naming ``source``."""
    m = _SWZ.fullmatch(text)
    if not m:
        return None
    try:
        return Swizzle(*(int(x) for x in m.groups()))
    except NotAdmissibleError as e:
        raise ParseError(text, 1, f"a valid swizzle: {e.condition}", source) from None


# ``Sw<3,4,3> o smem_ptr[16b](unset) o L``: CUTLASS's print of a swizzle on the byte address of elements of 16 bits
_SMEM_PTR = re.compile(r"smem_ptr\[(\d+)b\]\([^)]*\)")


def parse(text, assume=None, *, source: str = "layout"):
    """Parse CuTe notation into a ``Layout`` or ``ComposedLayout`` (docs/model.md section 2.5).

    ``assume``: assumption strings or an ``Assumptions`` object for the symbols in the text. CuTe IR's type
    texts (``!cute.layout<"...">``, ``!cute.tile<"[...]">``, ...) are read by ``core.cute_ir_text``: a tile,
    shape or coordinate gives its tuple. A CUTLASS print
    ``Sw<B,M,S> o smem_ptr[Nb](...) o L`` swizzles byte addresses of N-bit elements; it is read as the same
    function on element indices, ``S<B, M - log2(N/8), S> o 0 o L``.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse reads CuTe text, got {type(text).__name__} (cv.parse and as_layout read objects)")
    if cute_ir_text.is_cute_ir(text):
        # CuTe IR's type texts (!cute.layout<"...">, !cute.tile<"[...]">, ...): their bodies are read here
        shared = as_assumptions(assume)
        return cute_ir_text.read(text, lambda body: parse(body, shared, source=source), parse_tuple, source=source)
    if _COMPOSITION.match(text):
        return _composition(text, assume, source)
    assumptions = as_assumptions(assume)
    p = _Parser(text, source)
    if not text.strip():
        p.error("a layout such as (4,8):(1,4)")
    # CuTe nests composed layouts: ``Sw<1,0,2> o _0 o Sw<1,5,2> o _0 o _2:_16``; any layout may be an outer
    # function, ``(2,3):(3,1) o 2 o (3,4):(4,1)``; the chain is read right-nested (the same function either way)
    prefixes = []
    while True:
        start = p.pos
        prefix = _swizzle_prefix(p)
        if prefix is not None:
            prefixes.append(prefix + (start,))
            continue
        shape, stride = _layout_body(p)
        if not p.at_compose():
            break
        prefixes.append(((shape, stride),) + _compose_offset(p))
    _finish(p)
    assumptions = _with_facts(assumptions, p.facts)
    L = _make_parsed(shape, stride, assumptions)
    for fn, offset, at in reversed(prefixes):
        if type(fn) is tuple:
            fn = _make_parsed(*fn, assumptions)
        try:
            L = ComposedLayout(fn, offset, L)
        except NotAdmissibleError as e:
            raise ParseError(text, at + 1, f"a composed layout: {e.condition}", source) from None
    _check_names(L, assumptions, text, shared=not isinstance(assume, (list, tuple, str)))
    return L


def _composition(text, assume, source):
    """``composition(Swizzle<B,M,S>{}, L)``: CuTe C++'s construction of the swizzled layout ``S<B,M,S> o 0 o L``
    (the text ``cuteverify why`` suggests); any other composition is an algebra call, not layout text."""
    m = _COMPOSITION.match(text)
    deep = [c.start() for c in _COMPOSITION.finditer(text)]
    if len(deep) > MAX_DEPTH:  # each nests one parse: refuse before Python's recursion limit
        raise ParseError(text, text.find("composition", deep[MAX_DEPTH]) + 1, f"at most {MAX_DEPTH} nested "
                         "compositions", source)
    close = matching(text, m.end() - 1)
    if close < 0:
        raise ParseError(text, len(text) + 1, "a closing ')'", source)
    if text[close + 1:].strip():
        raise ParseError(text, close + 2, "end of layout after composition(...)", source)
    pieces = split_top(text, ",", "(<[{", m.end(), close)
    if len(pieces) != 2:
        raise ParseError(text, m.end() + 1, "composition(Swizzle<B,M,S>{}, LAYOUT): a swizzle and a layout "
                         "(other compositions are computed by the algebra verb)", source)
    (fn, _), (inner, at) = pieces
    sw = read_swizzle(fn, source)
    if sw is None:
        raise ParseError(text, m.end() + len(fn) - len(fn.lstrip()) + 1, "a swizzle Swizzle<B,M,S>{} (other "
                         "compositions are computed by the algebra verb)", source)
    try:
        L = parse(inner, assume, source=source)
    except ParseError as e:
        raise ParseError(text, at + e.column, e.expected, source) from None
    try:
        return ComposedLayout(sw, 0, L)
    except NotAdmissibleError as e:
        raise ParseError(text, at + 1, f"a composed layout: {e.condition}", source) from None


def _make_parsed(shape, stride, assumptions):
    probe = Layout._make(shape, stride)
    # entries like N/8 exist only where they are integers: the algebra carries that forward
    obligations = () if probe.is_concrete else tuple(integrality_obligations(probe))
    return Layout(shape, stride, obligations=obligations, assumptions=assumptions)


def _compose_offset(p: _Parser):
    """``o offset o`` after an outer function (a layout): ``(offset, position)``, the offset an integer, a
    symbol, ``?``, or a coordinate such as ``(0,0)``; the parser moved past the second ``o``."""
    p.pos += 1
    p.ws()
    ostart = p.pos
    offset = p.htuple() if p.peek() == "(" else p.leaf()
    while type(offset) is tuple and len(offset) == 1:  # ``(2)`` is the integer 2
        offset = offset[0]
    if any(hasattr(x, "path") for x in flatten(offset)):
        p.error("an integer or coordinate offset (e.g. 2 or (0,0))", ostart)
    if not p.at_compose():
        p.error("' o ' before the inner layout (an offset is followed by ' o ')")
    p.pos += 1
    return offset, ostart


def _swizzle_prefix(p: _Parser):
    """``S<B,M,S> o offset o`` (or C++'s ``Sw<...> o _0 o`` / ``o smem_ptr[Nb](...) o``): ``(Swizzle, offset)``
    with the parser moved past it, or ``None`` when the text has no swizzle."""
    text, source = p.text, p.source
    m = _SWZ.match(text, p.pos)
    if not m:
        return None
    bits, base, shift = int(m.group(1)), int(m.group(2)), int(m.group(3))
    p.pos = m.end()
    if not p.at_compose():
        p.error("' o ' after the swizzle")
    p.pos += 1
    p.ws()
    ostart = p.pos
    ptr = _SMEM_PTR.match(text, p.pos)
    if ptr:
        offset = 0
        p.pos = ptr.end()
        base = _element_base(int(ptr.group(1)), base, p, ostart)
    else:
        if p.peek() == "(" and _has_top_comma(text[p.pos + 1:max(p.pos + 1, matching(text, p.pos))]):
            p.error("an integer offset (a swizzle reads integers, not a coordinate)", ostart)
        offset = p.leaf()
        if hasattr(offset, "path"):
            p.error("an integer offset", ostart)
    try:
        sw = Swizzle(bits, base, shift)
    except NotAdmissibleError as e:
        raise ParseError(text, 1, f"a valid swizzle: {e.condition}", source) from None
    if not p.at_compose():
        p.error("' o ' before the layout")
    p.pos += 1
    return sw, offset


def _element_base(elem_bits: int, byte_base: int, p: _Parser, at: int) -> int:
    """The swizzle base on element indices for a swizzle whose base ``byte_base`` counts bytes."""
    if elem_bits < 8 or elem_bits & (elem_bits - 1):
        p.error(f"an element width of 8, 16, 32 or 64 bits (a swizzle of byte addresses of {elem_bits}-bit "
                "elements is not a swizzle of element indices)", at)
    shift = (elem_bits // 8).bit_length() - 1
    if byte_base < shift:
        p.error(f"a swizzle base of at least {shift} for {elem_bits}-bit elements (the swizzle would move bits "
                "inside one element)", at)
    return byte_base - shift


def _finish(p):
    p.ws()
    if p.pos != len(p.text):
        p.error("end of layout (or ':' before the stride)" if p.text[p.pos] != ")" else "end of layout (unbalanced ')')")


def as_assumptions(assume):
    if assume is None:
        return None
    if isinstance(assume, Assumptions):
        return assume
    if isinstance(assume, str):
        assume = [assume]
    return Assumptions(assume)


def _check_names(L, assumptions, text, shared=False):
    """Assumptions given with one layout must speak of its symbols (a typo would silently assume nothing);
    a shared ``Assumptions`` object may mention symbols of other layouts."""
    if assumptions is None or shared:
        return
    check_assumption_names(assumptions, {s.name for s in L.free_symbols()}, text)


def check_assumption_names(assumptions, present: set, text: str):
    """Refuse assumptions about symbols that appear nowhere in the problem, and contradictory ones."""
    unknown = sorted(assumptions.names() - set(present))
    if unknown:
        raise ParseError(text, 1, f"assumptions about symbols that appear in it; unknown name(s): "
                         f"{', '.join(unknown)}", "assumption")
    assumptions.check_consistent()


def parse_tuple(text: str, source: str = "tuple"):
    """Parse an HTuple (shape or coordinate) such as ``(2,(3,4))``."""
    p = _Parser(text, source)
    t = p.htuple()
    _finish(p)
    return t


def integrality_obligations(layout) -> list:
    """Entries such as ``N/8`` must be integers for the layout to exist: one obligation ``8 | N`` each (of a
    composed layout: of its plain layouts, the inner layout and every layout of the chain)."""
    if hasattr(layout, "outer"):
        out = integrality_obligations(layout.inner) if isinstance(layout.inner, Layout) else []
        return out + [o for o in integrality_obligations(layout.outer) if o not in out]
    outer = layout
    out = []
    for x in list(flatten(outer.shape)) + [getattr(d, "value", d) for d in flatten(outer.stride)]:
        if isinstance(x, sympy.Basic) and not x.is_Integer:
            num, den = sympy.together(x).as_numer_denom()
            if den.is_Integer and int(den) == 1:
                continue
            cond = Condition("divides", int(den) if den.is_Integer else den,
                             sympy.expand(num) if den.is_Integer else num)
            ob = Obligation(cond, f"the entry {format_value(x)} of {format_tuple(outer.shape)}:{format_tuple(outer.stride)} must be an integer")
            if ob not in out:
                out.append(ob)
    return out
