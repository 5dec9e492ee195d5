"""CUTLASS / CuTe C++ names with their template arguments: the one reader and writer.

Names such as ``SM80_16x8x16_F32F16F16F32_TN``, ``GMMA::Layout_K_SW128_Atom<bf16>``,
``SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K, GMMA::Major::MN>``, ``UniversalCopy<uint128_t>`` or
``cute::SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K, UMMA::Major::MN>`` are read
into a :class:`CppName`: the scope (namespaces and enclosing names, outermost first), the base name, and the
template arguments as a tuple. Grammar (blanks are allowed between tokens)::

    name      := qualified [ '<' [ arg (',' arg)* ] '>' ] [ '{' '}' ]
    qualified := ident ('::' ident)*
    ident     := [A-Za-z_][A-Za-z0-9_]*
    arg       := static | int | name | words
    int       := ['-'] digit+
    static    := '_' ['-'] digit+                               CuTe's _64, _-1
               | ['cute::'] ('Int' | 'C') '<' int '>' ['{' '}']   Int<64>, cute::Int<64>{}, C<64>
    words     := ident ident+                                   a type in several words: unsigned int

An ``int`` argument is a Python int, a ``static`` one a :class:`StaticInt` (an int that prints as ``_64``),
a ``name`` argument a nested :class:`CppName` (``GMMA::Major::K``: scope ``("GMMA", "Major")``, base ``K``),
``words`` the text with single blanks. The name-matching grammars of the spec library (which FAMILY a base
name such as ``SM90_64x128x16_...`` belongs to) are not this module's business: it splits, it does not judge.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ...errors import ParseError

__all__ = ["CppName", "StaticInt", "format_arg", "format_name", "is_enum_name", "is_name", "is_template_name", "read_args",
           "read_int", "read_name"]

SOURCE = "CUTLASS name"
_MAX_DIGITS = 4000
_STATIC_TEMPLATES = (("Int",), ("C",), ("cute", "Int"), ("cute", "C"))


class StaticInt(int):
    """CuTe's compile-time integer (``_64``, ``Int<64>``, ``cute::Int<64>{}``: one C++ type); equal to its int."""

    def __repr__(self):
        return f"_{int(self)}"

    __str__ = __repr__


@dataclass(frozen=True)
class CppName:
    """A C++ name: ``scope`` (outermost first), ``base``, ``args`` (None when the name has no ``<...>``, else
    the template arguments: ints, :class:`StaticInt`, nested :class:`CppName`, or text of several words) and
    ``value`` (a trailing ``{}``: a value of the type, as ``Int<64>{}``)."""

    scope: tuple
    base: str
    args: tuple | None = None
    value: bool = False

    @property
    def qualified(self) -> str:
        """The namespace-qualified base name, without arguments: ``cute::GMMA::Layout_K_SW128_Atom``."""
        return "::".join(self.scope + (self.base,))

    def enum(self):
        """``(enum type, value)`` for an enum value spelt with its type (``UMMA::Major::MN`` -> ``("Major",
        "MN")``), else None."""
        return (self.scope[-1], self.base) if self.scope and self.args is None and not self.value else None

    def without(self, *namespaces) -> "CppName":
        """This name with a leading namespace dropped, here and in every nested argument: ``namespaces`` are
        ``::``-joined texts (``"cute"``, ``"SM120::BLOCKSCALED"``), the longest that leads the scope is
        dropped, then again while one leads (``cute::SM120::BLOCKSCALED::X`` -> ``X``)."""
        scope, spaces = self.scope, sorted((read_name(n).scope + (read_name(n).base,) for n in namespaces),
                                           key=len, reverse=True)
        while any(scope[:len(ns)] == ns for ns in spaces):
            ns = next(ns for ns in spaces if scope[:len(ns)] == ns)
            scope = scope[len(ns):]
        args = None if self.args is None else tuple(
            a.without(*namespaces) if isinstance(a, CppName) else a for a in self.args)
        return replace(self, scope=scope, args=args)

    def __str__(self):
        return format_name(self)


def format_arg(a) -> str:
    """One template argument as C++ text: an int in decimal, a :class:`StaticInt` as ``_N``, a name by
    :func:`format_name`, text as it is."""
    if isinstance(a, CppName):
        return format_name(a)
    if isinstance(a, StaticInt):
        return repr(a)
    return str(a)


def format_name(name: CppName) -> str:
    """The C++ text of ``name``: ``scope::base<arg, arg>{}``, arguments joined by ``", "``. Post-condition:
    ``read_name(format_name(n)) == n``."""
    text = name.qualified
    if name.args is not None:
        text += "<" + ", ".join(format_arg(a) for a in name.args) + ">"
    return text + ("{}" if name.value else "")


class _Reader:
    def __init__(self, text: str, source: str):
        self.text, self.pos, self.source = text, 0, source

    def error(self, expected, pos=None):
        raise ParseError(self.text, (self.pos if pos is None else pos) + 1, expected, self.source)

    def peek(self) -> str:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def ident(self, what="a name") -> str:
        self.peek()
        t, i = self.text, self.pos
        if i >= len(t) or not (t[i].isascii() and (t[i].isalpha() or t[i] == "_")):
            self.error(what)
        j = i + 1
        while j < len(t) and t[j].isascii() and (t[j].isalnum() or t[j] == "_"):
            j += 1
        self.pos = j
        return t[i:j]

    def integer(self):
        self.peek()
        t, i = self.text, self.pos
        j = i + (1 if t.startswith("-", i) else 0)
        k = j
        while k < len(t) and t[k].isdigit():
            k += 1
        if k == j:
            return None
        if k - j > _MAX_DIGITS:  # Python's int() refuses longer text; no C++ integer is that long
            self.error(f"an integer of at most {_MAX_DIGITS} digits", j)
        self.pos = k
        return int(t[i:k])

    def name(self, depth: int) -> CppName:
        parts = [self.ident()]
        while self.text.startswith("::", self.pos):
            self.pos += 2
            parts.append(self.ident("a name after '::'"))
        args = None
        if self.peek() == "<":
            if depth > 32:
                self.error("at most 32 levels of template arguments")
            self.pos += 1
            args = self.arglist(depth + 1, ">")
        value = False
        if self.peek() == "{":
            self.pos += 1
            if self.peek() != "}":
                self.error("'}' (a value is written T{})")
            self.pos += 1
            value = True
        return CppName(tuple(parts[:-1]), parts[-1], args, value)

    def arglist(self, depth: int, closer: str) -> tuple:
        """Arguments up to ``closer`` (``">"``, or ``""``: the end of the text), the closer consumed."""
        args = []
        if self.peek() == closer:
            self.pos += 1
            return ()
        while True:
            args.append(self.arg(depth))
            c = self.peek()
            self.pos += 1
            if c == closer:
                return tuple(args)
            if c != ",":
                self.error(f"',' or {repr(closer) if closer else 'the end'} after a template argument",
                           self.pos - 1)

    def arg(self, depth: int):
        start = self.pos
        n = self.integer()
        if n is not None:
            return n
        c = self.peek()
        if c == "_" and self.text.startswith("_-", self.pos):  # _-1: '-' ends an identifier
            self.pos += 1
            n = self.integer()
            if n is None:
                self.error("a static integer _N", start)
            return StaticInt(n)
        if not (c.isascii() and (c.isalpha() or c == "_")):
            self.error("a template argument (an integer, _N, Int<N> or a name)")
        name = self.name(depth)
        if name.args is None and not name.scope and name.base[1:].isdigit() and name.base[0] == "_":
            return StaticInt(int(name.base[1:]))
        if (name.scope, name.base) in ((s[:-1], s[-1]) for s in _STATIC_TEMPLATES) and name.args is not None \
                and len(name.args) == 1 and type(name.args[0]) is int:
            return StaticInt(name.args[0])
        words = [name]
        while self.peek() not in (",", ">", ""):  # unsigned int, float const
            if name.args is not None or name.scope or name.value:
                break
            w = self.name(depth)
            if w.args is not None or w.scope or w.value:
                self.error("',' or '>' after a template argument", start)
            words.append(w)
        return name if len(words) == 1 else " ".join(w.base for w in words)


def read_name(text: str, source: str = SOURCE) -> CppName:
    """``text`` read as one C++ name with its template arguments (grammar in the module docstring).

    Admissible: any text; surrounding blanks are ignored. Post-condition: the :class:`CppName`;
    ``format_name`` of it reads back to an equal name. Malformed text raises :class:`ParseError` with the
    1-based column of the first character that does not fit and what would have fitted there."""
    r = _Reader(str(text), source)
    out = r.name(0)
    if r.peek():
        r.error("the end of the name (one name, with its template arguments in <...>)")
    return out


def read_args(text: str, source: str = SOURCE) -> tuple:
    """A template argument list without its brackets (``half_t, float, 128, UMMA::Major::K``) as the tuple
    :func:`read_name` gives for it; the empty text is ``()``. Raises :class:`ParseError` with the column."""
    return _Reader(str(text), source).arglist(1, "")


def is_name(text) -> bool:
    """Is ``text`` one C++ name in the grammar above (a string that :func:`read_name` reads)?"""
    if not isinstance(text, str):
        return False
    try:
        read_name(text)
    except ParseError:
        return False
    return True


def read_int(text):
    """An integer as C++ / CuTe writes one (``64``, ``-1``, CuTe's static ``_64`` / ``_-1`` / ``Int<64>`` /
    ``cute::Int<64>{}``), or None when ``text`` is no such integer. Post-condition: the int (a
    :class:`StaticInt` for the static spellings)."""
    if not isinstance(text, str):
        return None
    r = _Reader(text, SOURCE)
    try:
        out = r.arg(0)
    except ParseError:
        return None
    return out if isinstance(out, int) and not r.peek() else None


def is_enum_name(text) -> bool:
    """Is ``text`` a scoped name without template arguments, as CUTLASS spells an enum value
    (``UMMA::Major::MN``, ``GMMA::Major::K``)?"""
    if not is_name(text):
        return False
    n = read_name(text)
    return n.enum() is not None


def is_template_name(text) -> bool:
    """Is ``text`` a name with template arguments (``SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K, ...>``,
    ``GMMA::Layout_K_SW128_Atom<bf16>``)?"""
    return is_name(text) and read_name(text).args is not None
