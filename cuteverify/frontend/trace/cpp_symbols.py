"""Runtime values of a captured CUTLASS C++ launch as symbols (issue 29): what the host-only capture cannot see.

The capture calls each entry with value-initialised arguments (or those its call expression passes), so an
integer CuTe prints without its static ``_`` (``(0,_1)``: a runtime ``int`` then a ``C<1>``) is the capture's
placeholder, never the kernel's value. Here each such leaf becomes a named unknown of cuteverify's notation
(``?ldA``, ``?M``; the DSL's ``?``), with the divisibility facts the source states, and CuTe's static leaves
(``_8``) stay integers.

* Names (:func:`host_leaf_names`): a launch argument that is a local of the host function, ``auto dA =
  make_stride(ldA, Int<1>{})`` / ``make_shape(M, N, K)`` / ``make_layout(make_shape(M, K), make_stride(...))``
  / ``make_tuple(...)``, names each runtime leaf by the identifier written there (``?ldA``), so that two
  arguments built from one variable share its symbol; an argument that is itself an identifier (``int M``)
  is named by it; any other leaf is ``?{argument}_{i}`` (``?dA_0``), ``_shape{i}`` / ``_stride{i}`` in a layout.
* Facts (:func:`stated_facts`): an ``int`` states no divisibility, so a symbol gets ``{div=N}`` only where the
  host function that launches states it before the launch: ``assert(x % N == 0)`` (also ``CUTE_ASSERT``,
  ``CUTLASS_ASSERT``, ``TORCH_CHECK``) or ``if (x % N != 0) { return / throw ... }`` (several facts on one
  name: their lcm). A static tile dividing a runtime extent is no fact unless written so.
* :func:`symbolic_text`: a printed layout / tuple / tensor (``gmem_ptr[16b](0x..) o L``: its layout) with its
  runtime leaves as those symbols (``(?M,?K):(?ldA{div=8},1)``); a swizzle or pointer head is kept as printed.

Admissibility: CuTe C++'s print forms (:mod:`.cpp_read`); a coordinate stride ``1@0`` is static. Post-condition:
every runtime leaf of the text is a symbol (no placeholder integer survives), every static leaf its integer,
and a symbol has a ``{div=N}`` fact only when the source states ``N | x``.
"""
from __future__ import annotations

import math
import re

from .cpp_text import blank, match_close, split_args
from .document import entry_name

__all__ = ["leaves", "host_scope", "host_leaf_names", "stated_facts", "symbolic_text", "Symbols"]

_IDENT = r"[A-Za-z_]\w*"
_LEAF = re.compile(r"(?<![\w.@?])(_?)(\d+)(?![\w.@<\[])")
_ASSERTS = r"(?:assert|CUTE_ASSERT|CUTLASS_ASSERT|TORCH_CHECK|CUTE_RUNTIME_ASSERT)"
_FACT_ASSERT = re.compile(rf"\b{_ASSERTS}\s*\(\s*\(?\s*({_IDENT})\s*%\s*(\d+)\s*\)?\s*==\s*0\b")
_FACT_IF = re.compile(rf"\bif\s*\(\s*\(?\s*({_IDENT})\s*%\s*(\d+)\s*\)?\s*(?:!=\s*0\s*)?\)\s*\{{?\s*"
                      r"(?:return|throw|exit|abort|std::abort|std::exit)\b")
_MAKERS = ("make_shape", "make_stride", "make_tuple", "make_layout")
_STATIC_ARG = re.compile(r"^(?:cute::)?(?:Int|C)\s*<\s*-?\d+\s*>\s*(?:\{\s*\}|\(\s*\))$|^(?:cute::)?_\d+\s*(?:\{\s*\}|\(\s*\))$")


def leaves(text: str) -> list:
    """The integer leaves of CuTe text ``text`` (a layout, tuple or number; no swizzle / pointer head) in
    print order: ``(start, end, value, static)`` (static: printed ``_N``)."""
    return [(m.start(), m.end(), int(m.group(2)), bool(m.group(1))) for m in _LEAF.finditer(text)]


def _head(text: str) -> tuple:
    """``(head, layout)``: a swizzled layout ``Sw<..> o _0 o L`` / a tensor ``gmem_ptr[16b](..) o L`` split
    before ``L`` (the only part with leaves to read); a plain text has an empty head."""
    t = text.strip()
    if " o " not in t:
        return "", t
    head, _, lay = t.rpartition(" o ")
    return head + " o ", lay


def host_scope(src: str, before: int) -> tuple:
    """``(start, end)`` of the body of the outermost function enclosing offset ``before`` of blanked source
    ``src`` (its ``{`` follows a ``)``), cut at ``before``; ``(0, before)`` when none encloses it."""
    stack = []
    for i in range(before):
        c = src[i]
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            stack.pop()
    for b in stack:
        j = b - 1
        while j >= 0 and src[j] in " \t\n":
            j -= 1
        k = src.rfind(")", 0, b)
        if j >= 0 and (src[j] == ")" or (k >= 0 and src[k + 1:b].split() in (["const"], ["noexcept"]))):
            return b, before
    return 0, before


def _flat_names(s: str, a: int, b: int) -> list | None:
    """The leaf names of the expression ``s[a:b]``: a maker call flattened, an identifier its name, a static
    integer ``Int<8>{}`` / ``_8{}`` None, anything else None (named by position)."""
    e = s[a:b].strip()
    for mk in _MAKERS:
        m = re.match(rf"(?:cute::)?{mk}\s*\(", e)
        if m:
            off = a + (len(s[a:b]) - len(s[a:b].lstrip())) + m.end() - 1
            close = match_close(s, off, "(", ")")
            if close < 0 or s[close:b].strip():
                return None
            out = []
            for x, y in split_args(s, off + 1, close - 1):
                sub = _flat_names(s, x, y)
                if sub is None:
                    return None
                out += sub
            return out
    if re.fullmatch(_IDENT, e):
        return [e]
    return [None]


def host_leaf_names(src: str, scope: tuple, var: str) -> list | None:
    """The per-leaf names of the launch argument ``var`` from its definition ``auto var = make_...(...)`` (the
    last one in ``scope`` of blanked ``src``), or None when it has none the reader follows."""
    if not re.fullmatch(_IDENT, var):
        return None
    found = None
    for m in re.finditer(rf"\b(?:auto|const\s+auto)\s+{re.escape(var)}\s*=\s*", src[scope[0]:scope[1]]):
        found = scope[0] + m.end()
    if found is None:
        return None
    end = src.find(";", found, scope[1])
    return None if end < 0 else _flat_names(src, found, end)


def stated_facts(src: str, scope: tuple) -> dict:
    """``{name: N}``: the divisibility ``N | name`` the source states in ``scope`` (module docstring)."""
    out: dict = {}
    body = src[scope[0]:scope[1]]
    for rx in (_FACT_ASSERT, _FACT_IF):
        for m in rx.finditer(body):
            n = int(m.group(2))
            if n > 1:
                out[m.group(1)] = math.lcm(out.get(m.group(1), 1), n)
    return out


def symbolic_text(text: str, default: str, names=None, facts=None) -> str:
    """``text`` with each runtime leaf the symbol ``?NAME`` (``names[i]`` for leaf ``i`` when given and not
    None, else ``{default}_{i}``, or ``{default}_shape{i}`` / ``_stride{i}`` in a layout, ``i`` counting that
    side's leaves), ``{div=N}`` added where ``facts`` states ``N | NAME``; static leaves lose CuTe's ``_``."""
    facts = facts or {}
    head, lay = _head(text)
    split = lay.find("):(") + 1 if "):(" in lay else (lay.find(":") if ":" in lay and not lay.startswith("(") else -1)
    out, last, counts = [], 0, {"shape": 0, "stride": 0, "": 0}
    for k, (a, b, v, static) in enumerate(leaves(lay)):
        side = "" if split < 0 else ("shape" if a < split else "stride")
        i = counts[side]
        counts[side] += 1
        out.append(lay[last:a])
        last = b
        if static:
            out.append(str(v))
            continue
        name = names[k] if names is not None and k < len(names) and names[k] else f"{default}_{side}{i}"
        name = entry_name(name)
        div = facts.get(name, 1)
        out.append(f"?{name}" + (f"{{div={div}}}" if div > 1 else ""))
    out.append(lay[last:])
    return re.sub(r"(?<![\w])_(\d+)", r"\1", head + "".join(out))


class Symbols:
    """The symbolic texts of one launch's records: the host function's names and stated facts, read once.
    ``src``: the source text, ``line``: the launch's line."""

    def __init__(self, src: str | None, line: int):
        self.src = blank(src) if src else ""
        before = 0
        if src:
            for _ in range(line - 1):
                before = self.src.find("\n", before) + 1
        self.scope = host_scope(self.src, before) if src else (0, 0)
        self.facts = stated_facts(self.src, self.scope) if src else {}

    def names(self, r) -> list | None:
        """Per-leaf names of record ``r`` (:func:`host_leaf_names`); an identifier argument with one runtime
        leaf (``int M``) is named by itself."""
        got = host_leaf_names(self.src, self.scope, r.source) if self.src else None
        n = len(leaves(_head(r.text)[1]))
        if got is not None and len(got) == n:
            return got
        if n == 1 and re.fullmatch(_IDENT, r.source.strip()):
            return [r.source.strip()]
        return None

    def text(self, r, text: str | None = None) -> str:
        """The symbolic text of record ``r`` (or of ``text``, another print of it)."""
        return symbolic_text(r.text if text is None else text, entry_name(r.source), self.names(r), self.facts)

    def stated(self, name: str) -> int:
        """The divisor the source states of ``name`` (1: none)."""
        return self.facts.get(name, 1)
