"""Algebra expressions in text: ``composition((6,2):(8,2), (4,3):(3,1))``.

Arguments are layouts in CuTe notation, tilers ``<3:4, 8:2>`` / ``Tile<3:4, 8:2>`` / ``[3:4;8:2]`` (a tuple of
layouts, ``_`` keeps a mode), extents ``128x64``, slices ``A[None, 0]``,
plain shapes ``(4,8)`` (read as tilers of ``n:1`` per mode, as CuTe reads them), integers, names bound by
the caller, or nested calls; after them, keyword arguments ``mode=1`` / ``mode=(0,1)`` (the operation on that
mode only), ``profile=``, ``cotarget=``, ``order=``. Used by the CLI's ``algebra`` verb and by claim text; names come from
``--let NAME=LAYOUT`` items read by :func:`parse_let`.
"""
from __future__ import annotations

import re

from .. import algebra
from ..core.notation import scan
from ..core.layout import (
    cosize,
    crd2crd,
    crd2idx,
    depth,
    idx2crd,
    make_identity_layout,
    make_layout,
    rank,
    size,
)
from ..core.notation.interop import as_layout
from ..core.notation.parse import as_assumptions, check_assumption_names, parse, parse_tuple, read_swizzle
from ..core.notation.tiles import read_slice, slice_postfix, tile_text, tiler_pieces
from ..core.swizzle import ComposedLayout
from ..errors import ParseError
from ..symbolic import parse_expr

_CALL = re.compile(r"\s*([A-Za-z_]\w*)\s*\(")
_KEYWORD = re.compile(r"\s*([A-Za-z_]\w*)\s*=(?!=)")
# ``mode=`` applies an operation to one mode (algebra.bymode); the others are the operations' own options.
_KEYWORDS = frozenset({"mode", "profile", "cotarget", "order"})


def _functions():
    table = {name: getattr(algebra, name) for name in algebra.__all__}
    table.update(size=size, cosize=cosize, rank=rank, depth=depth, make_layout=make_layout, idx2crd=idx2crd,
                 crd2idx=crd2idx, crd2crd=crd2crd, make_identity_layout=make_identity_layout)
    return table


def split_top(text: str, start: int, end: int, sep: str = ","):
    """Split ``text[start:end]`` at top-level separators (round, tiler and slice brackets nest); ``(piece,
    offset)``."""
    return scan.split_top(text, sep, "(<[", start, end)


def _matching(text, i, open_c, close_c):
    j = scan.matching(text, i, open_c)
    if j < 0:
        raise ParseError(text, len(text) + 1, f"a closing '{close_c}'", "expression")
    return j


def parse_let(items) -> dict:
    """Name bindings written ``NAME=LAYOUT`` (the CLI's ``--let``) -> ``{NAME: LAYOUT text}``, in order.

    Admissible: every item has an ``=`` and an identifier before it; the layout text is not parsed here (the
    caller parses it with the assumptions it shares). A later item with the same name replaces an earlier
    one. Raises ``ParseError`` (source ``--let``) pointing at the offending column otherwise.
    """
    out = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq:
            raise ParseError(item, len(item) + 1, "'=' as in NAME=LAYOUT", "--let")
        name = name.strip()
        if not name.isidentifier():
            raise ParseError(item, 1, f"a name before '=' (got {name!r})", "--let")
        out[name] = value
    return out


MAX_DEPTH = 200  # brackets deep; evaluation recurses once per call, and no real expression nests this far


def check_depth(text, what="expression"):
    """Refuse ``text`` nested past ``MAX_DEPTH`` brackets (``(``, ``<``, ``[``) with a ParseError at the column,
    before any evaluation recurses into it."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch in "(<["
        depth -= ch in ")>]"
        if depth > MAX_DEPTH:
            raise ParseError(text, i + 1, f"at most {MAX_DEPTH} levels of nesting", what)


def evaluate(text: str, bindings: dict | None = None, assume=None, functions: dict | None = None):
    """The value of the algebra expression ``text``: each call applied to its evaluated arguments, names
    looked up in ``bindings`` (layouts or CuTe text, parsed under the shared assumptions).

    Admissible: ``text`` follows the grammar of the module docstring and names only operations of the algebra
    (plus size, cosize, rank, depth, make_layout, the coordinate maps); ``assume`` may speak of any symbol of
    the expression or its bindings; ``functions`` adds operations of higher layers by name (the CLI adds
    ``local_tile``). An argument may be sliced, ``A[None, 0]`` / ``A[(_,0)]`` (``core.notation.tiles.read_slice``,
    CuTe's slice: ``_`` keeps a mode), and a tiler may be written ``<a, b>``, ``Tile<a,b>``, ``[a;b]`` or
    ``128x64``; ``composition(Swizzle<B,M,S>{}, L)`` is the swizzled layout ``S<B,M,S> o 0 o L``. Returns a
    Layout, an int, an expression or a tuple; malformed text raises ``ParseError`` at its column, an
    inadmissible operation its own ``CuteVerifyError``."""
    bindings = dict(bindings or {})
    check_depth(text)
    bad = scan.unbalanced(text, "([")
    if bad is not None:
        raise ParseError(text, bad[0] + 1, bad[1], "expression")
    funcs = _functions()
    funcs.update(functions or {})
    if assume is not None and not hasattr(assume, "conditions"):
        # one Assumptions object shared by every literal and binding of the expression; its names are
        # checked against the whole expression, not against each layout
        assume = as_assumptions(assume)
        words = set(re.findall(r"[A-Za-z_]\w*", text))
        for v in bindings.values():
            if isinstance(v, str):
                words |= set(re.findall(r"[A-Za-z_]\w*", v))
            else:
                words |= {s.name for s in getattr(v, "free_symbols", lambda: ())()} if callable(
                    getattr(v, "free_symbols", None)) else set()
        check_assumption_names(assume, words, text)

    def arg(piece: str, off: int):
        s = piece.strip()
        lead = off + len(piece) - len(piece.lstrip())
        if not s:
            raise ParseError(text, lead + 1, "an argument", "expression")
        sliced = slice_postfix(text, lead, off + len(piece))
        if sliced is not None:
            base = arg(text[lead:sliced[0]], lead)
            crd = read_slice(text, "expression", sliced[0] + 1, sliced[1], lambda a, b: arg(text[a:b], a))
            try:
                return base[crd]
            except (TypeError, IndexError, ValueError) as e:
                raise ParseError(text, sliced[0] + 1, f"a slice of {base} ({e})", "expression") from None
        m = _CALL.match(s)
        if m and m.group(1) in funcs:
            open_i = lead + m.end() - 1
            close_i = _matching(text, open_i, "(", ")")
            if text[close_i + 1:off + len(piece)].strip():
                raise ParseError(text, close_i + 2, "',' or ')' after the call", "expression")
            fn = funcs[m.group(1)]
            pieces = split_top(text, open_i + 1, close_i)
            if m.group(1) == "composition" and len(pieces) == 2 and read_swizzle(pieces[0][0], "expression"):
                return ComposedLayout(read_swizzle(pieces[0][0]), 0, arg(*pieces[1]))  # C++'s swizzled layout
            args, kw = [], {}
            for p, o in (split_top(text, open_i + 1, close_i) if text[open_i + 1:close_i].strip() else []):
                k = _KEYWORD.match(p)
                if k:
                    if k.group(1) not in _KEYWORDS:
                        raise ParseError(text, o + k.start(1) + 1, f"a keyword argument of the algebra (one of "
                                         f"{', '.join(sorted(_KEYWORDS))})", "expression")
                    kw[k.group(1)] = arg(p[k.end():], o + k.end())
                elif kw:
                    raise ParseError(text, o + len(p) - len(p.lstrip()) + 1, "a keyword argument (positional "
                                     "arguments come first)", "expression")
                else:
                    args.append(arg(p, o))
            try:
                return fn(*args, **kw)
            except (TypeError, AttributeError) as e:
                # an unbound name reads as a number (a symbolic size); where a layout was needed, say so
                unbound = [p.strip() for p, _ in split_top(text, open_i + 1, close_i)
                           if re.fullmatch(r"[A-Za-z_]\w*", p.strip()) and p.strip() not in bindings]
                if unbound:
                    n = unbound[0]
                    raise ParseError(text, text.find(n, open_i) + 1, f"a layout, but the name {n} is not bound "
                                     f"(bind it: --let {n}=LAYOUT on the command line, {n}=... in Python)",
                                     "expression") from None
                raise ParseError(text, lead + 1, f"valid arguments for {m.group(1)} ({e})", "expression") from None
        if m and m.group(1) not in funcs and not s.startswith(("S<", "Sw<")):
            raise ParseError(text, lead + 1, f"a known operation (one of {', '.join(sorted(funcs))})", "expression")
        if s.startswith("<"):
            _matching(text, lead, "<", ">")
        tiler = tiler_pieces(text, lead, off + len(piece))
        if tiler is not None:  # <a, b>, C++'s Tile<a,b>, CuTe DSL's [a;b]
            return tuple(None if p.strip() in ("_", "None", "X") else arg(p, o) for p, o in tiler)
        if re.fullmatch(r"_?-?\d+", s):  # _32: C++'s static integer
            return int(s.lstrip("_"))
        try:
            extents = tile_text(s, "expression")
        except ParseError as e:
            raise ParseError(text, lead + e.column, e.expected, "expression") from None
        if extents is not None:  # 128x64
            return extents
        if re.fullmatch(r"[A-Za-z_]\w*", s) and s in bindings:
            v = bindings[s]
            return as_layout(v, f"layout {s}", assume=assume, tiler=True) if isinstance(v, str) else v
        if ":" not in s and not s.startswith(("(", "S<", "Sw<")):
            # a bare entry is a number: an integer expression over symbols (a cotarget, a size, a tiler n)
            try:
                return parse_expr(s)
            except ParseError as e:
                raise ParseError(text, lead + e.column, e.expected, "expression") from None
        if ":" not in s and s.startswith("(") and not s.startswith(("S<", "Sw<")):
            try:
                return parse_tuple(s)
            except ParseError as e:
                raise ParseError(text, lead + e.column, e.expected, "expression") from None
        try:
            return parse(s, assume)
        except ParseError as e:
            raise ParseError(text, lead + e.column, e.expected, "expression") from None

    return arg(text, 0)
