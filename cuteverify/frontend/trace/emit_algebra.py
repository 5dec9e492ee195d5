"""The algebra differential (issue 28): every layout-algebra op a traced kernel ran, recomputed by cuteverify's
algebra and claimed ``equal`` to the result the CuTe DSL printed.

A capture records each algebra op with its operand and result types (``"cute.logical_divide"(%a, %t) :
(!cute.memref<f32, smem, "(4,2):(1,64)">, !cute.tile<"[4:1]">) -> !cute.memref<..., "(4,2):(1,64)">``). For each
distinct (op, operand texts, properties) :func:`emit` adds the operands as manifest entries and one claim
``equal: [EXPR, RESULT]`` at the op's source line, where ``EXPR`` is the op written in the manifest expression
language over those entries (``logical_divide(tCsA, [4:1])``) and ``RESULT`` the entry holding the DSL's printed
result. ``equal`` compares functions on ``[0, size)``: a result that differs from cuteverify's in form only
(coalesced or not, regrouped modes) proves; a different function refutes, naming the coordinate.

What an op acts on: a tensor operand (``!cute.memref``, ``!cute.coord_tensor``, a wgmma / UMMA descriptor view
``!cute_nvgpu.smem_desc_view``) contributes its printed layout
(the op maps the layout; the pointer, its byte swizzle and the coordinate tensor's base stay with the iterator
and are not part of the claim). A slice's integer coordinates only move the iterator of a plain layout, so a
dynamic ``?`` coordinate is recomputed at 0 (the sliced layout does not depend on it).

Dynamic values: an operand's ``?`` are unknowns with their divisibility, which cuteverify's symbolic algebra
carries (the claim then holds for every value of them, or is not proved). A result's ``?`` are fresh unknowns
that the text does not relate to the operands', so a result with ``?`` is claimed only on its static top-level
modes: ``X`` (an entry holding ``EXPR``) and ``equal: [X[i], mode i]`` for each mode ``i`` without ``?`` (a
result's modes are positional in CuTe; cuteverify's result must have the DSL's rank, else an unknown); the
dynamic modes hold no DSL value to compare with and are a ``doc.note`` (``n/a``, with the reason).

Admissibility (what is recomputed, else ``doc.unknown`` names the op and why, never a silent skip): operands
of the kinds each op reads (layouts, tilers ``[..]`` or one layout, shapes, integer tuples) that cuteverify
can read; a result with a static part; the expression evaluates (a refusal by cuteverify's algebra where the
DSL computed a result is reported as an unknown with the algebra's reason, so that it is seen). Ops on integer
tuples (``ceil_div``, ``shape_div``, ``size``) are not layout algebra and are not read here.
Post-condition: each emitted claim is decided by the manifest checker on the same text ``trace manifest``
writes; :func:`emit` adds nothing for ops of other names.
"""
from __future__ import annotations

import functools
import re

from ...core.notation.parse import parse, read_swizzle
from ...errors import CuteVerifyError, Unsupported as _Skip  # an op not recomputed: why -> doc.unknown
from ..manifest.expr import evaluate
from .document import Doc
from .mlir import Module, Op, TypeExpr

__all__ = ["emit", "ALGEBRA_OPS"]

#: the ops read here: op name -> how its operands make the expression (see :func:`_expression`)
ALGEBRA_OPS = tuple("cute." + n for n in (
    "composition", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "local_tile",
    "tile_to_shape", "raked_product", "logical_product", "blocked_product", "zipped_product", "tiled_product",
    "flat_product", "right_inverse", "left_inverse", "coalesce", "filter", "filter_zeros", "complement",
    "recast_layout", "select", "get", "group_modes", "append_to_rank", "dice", "slice",
    "composed_get_outer", "composed_get_inner", "composed_get_offset", "make_composed_layout",
    "make_identity_layout", "make_ordered_layout", "make_layout_like"))

_BINARY = {"cute.composition": "composition", "cute.logical_divide": "logical_divide",
           "cute.zipped_divide": "zipped_divide", "cute.tiled_divide": "tiled_divide",
           "cute.flat_divide": "flat_divide", "cute.raked_product": "raked_product",
           "cute.logical_product": "logical_product", "cute.blocked_product": "blocked_product",
           "cute.zipped_product": "zipped_product", "cute.tiled_product": "tiled_product",
           "cute.flat_product": "flat_product"}
_UNARY = {"cute.right_inverse": "right_inverse", "cute.left_inverse": "left_inverse",
          "cute.coalesce": "coalesce", "cute.filter": "filter", "cute.filter_zeros": "filter_zeros",
          "cute.complement": "complement"}
_LAYOUT_KINDS = ("cute.layout", "cute.composed_layout", "cute.memref", "cute.coord_tensor",
                 "cute_nvgpu.smem_desc_view")
_DYN = re.compile(r"\?(\{[^}]*\})?")
_INTS = re.compile(r"-?\d+")


def emit(module: Module, doc: Doc) -> dict:
    """Add to ``doc`` one ``equal`` claim per distinct algebra op of ``module`` (module docstring), at the op's
    loc (the first op with those operand, property and result texts); for a result with dynamic values, one
    claim per static top-level mode (``R[i]``) and a note naming the dynamic modes; for an op not recomputed,
    a ``doc.unknown`` with why (a note where the DSL printed no static value at all). Returns
    ``{op name: [whole, by static modes, not recomputed]}``, counted over distinct ops."""
    counts: dict = {}
    seen: set = set()
    env: dict = {}
    for op in module.ops:
        if op.name not in ALGEBRA_OPS:
            continue
        key = (op.name, tuple(t.text for t in op.in_types), tuple(sorted(op.props.items())),
               tuple(t.text for t in op.out_types))
        if key in seen:
            continue
        seen.add(key)
        c = counts.setdefault(op.name, [0, 0, 0])
        modes = _dynamic_result(op)
        try:
            expr, result, names = _expression(op, doc, whole=modes is None)
            value = _check(expr, names, env, doc)
            if modes is not None:
                c[1 if _by_modes(op, doc, expr, value, modes) else 2] += 1
                continue
        except CuteVerifyError as e:  # _Skip, or an operand text that cuteverify cannot read
            doc.unknown(f"{op.name} ({_short(op)})", op.loc, str(e))
            c[2] += 1
            continue
        before = len(doc.claims)
        doc.claim({"equal": [expr, result]}, op.loc)
        c[0] += len(doc.claims) > before  # the same claim from another op at the same line counts once
    return counts


def _dynamic_result(op: Op):
    """The top-level modes ``[(shape, stride) text]`` of a layout result that has dynamic values, else None."""
    if len(op.out_types) != 1 or op.out_types[0].name not in _LAYOUT_KINDS:
        return None
    text = _text_of(op.out_types[0])
    if text is None or "?" not in text:
        return None
    return _top_modes(text) or []


def _by_modes(op: Op, doc: Doc, expr: str, value, modes: list) -> bool:
    """A result with dynamic values: each ``?`` is a fresh unknown, so the whole result is no claim; its static
    top-level modes are (a result's modes are positional in CuTe): ``equal: [X[i], mode i]`` with ``X`` the
    entry holding cuteverify's expression. The dynamic modes hold no value of the DSL's to compare with: a
    note (``n/a``). False when no mode is static (a note only); a rank that differs from cuteverify's is an
    unknown (``_Skip``)."""
    outer = getattr(value, "outer", value)
    shape = getattr(outer, "shape", None)
    rank = len(shape) if type(shape) is tuple else 1
    static = [i for i, (sh, st) in enumerate(modes) if "?" not in sh + st]
    what = f"{op.name} ({_short(op)})"
    why = (f"the DSL printed runtime values (?) in the result {_text_of(op.out_types[0])}: each is a fresh unknown "
           f"that the capture does not relate to the operands', so it holds no value to compare cuteverify's with")
    if not static or rank < 2:
        doc.note(what, op.loc, why)
        return False
    if rank != len(modes):
        raise _Skip(f"cuteverify's result {value} has rank {rank}, the DSL's {_text_of(op.out_types[0])} has "
                    f"rank {len(modes)}: their modes do not correspond")
    x = doc.layout(_hint(op) + "_cv", expr, op.loc)
    for i in static:
        sh, st = modes[i]
        r = doc.layout(_hint(op) + "_dsl", f"{sh}:{st}", op.loc, own=True)
        doc.claim({"equal": [f"{x}[{i}]", r]}, op.loc)
    dyn = [i for i in range(rank) if i not in static]
    leaves = []
    for i in dyn:  # the static leaves of a dynamic mode (a stride beside a ? extent) are compared too
        pair = _static_leaves(outer, i, modes[i])
        if pair is not None:
            a = doc.layout(_hint(op) + "_cv", pair[0], op.loc, own=True)
            b = doc.layout(_hint(op) + "_dsl", pair[1], op.loc, own=True)
            doc.claim({"equal": [a, b]}, op.loc, name=f"{op.name} mode {i}: its static leaves equal the DSL's "
                                                      f"(each leaf dynamic on either side written as {_WILD})")
            leaves.append(i)
    done = f"; the static leaves of modes {leaves} checked" if leaves else ""
    doc.note(what, op.loc, f"static modes {static} checked{done}; modes {dyn}: {why}")
    return True


_WILD = 9973  # a leaf that is dynamic on either side of a mode comparison, written the same on both


def _static_leaves(outer, i: int, dsl_mode):
    """``(cuteverify's text, the DSL's text)`` of mode ``i`` with every leaf that is dynamic on either side
    written as :data:`_WILD` (so the comparison is of the static leaves only), or None when the two modes do
    not have the same nesting (nothing to pair)."""
    try:
        mine = (outer.shape[i], outer.stride[i])
        theirs = parse(f"{dsl_mode[0]}:{dsl_mode[1]}", source="captured mode")
    except (CuteVerifyError, IndexError, TypeError):
        return None
    out = ([], [])
    for x, y in ((mine[0], theirs.shape), (mine[1], theirs.stride)):
        pair = _pair(x, y)
        if pair is None:
            return None
        out[0].append(pair[0])
        out[1].append(pair[1])
    return tuple(f"{_text(sh)}:{_text(st)}" for sh, st in out)


def _pair(x, y):
    if isinstance(x, tuple) or isinstance(y, tuple):
        if not (isinstance(x, tuple) and isinstance(y, tuple)) or len(x) != len(y):
            return None
        pairs = [_pair(a, b) for a, b in zip(x, y)]
        if any(p is None for p in pairs):
            return None
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if _static_leaf(x) and _static_leaf(y):
        return x, y
    return _WILD, _WILD


def _static_leaf(v) -> bool:
    """An integer or a coordinate stride ``c@m`` with an integer ``c``: no dynamic value in it."""
    return not re.search(r"[?A-Za-z_]", str(v).replace("@", ""))


def _text(t) -> str:
    return "(" + ",".join(_text(x) for x in t) + ")" if isinstance(t, tuple) else str(t)


def _top_modes(text: str):
    """``"(A,B):(a,b)"`` -> ``[("A", "a"), ("B", "b")]``; None for a text that is not a rank >= 1 tuple pair."""
    t = text.strip()
    depth, colon = 0, -1
    for i, ch in enumerate(t):
        depth += ch == "("
        depth -= ch == ")"
        if ch == ":" and depth == 0:
            colon = i
            break
    if colon < 0:
        return None
    sh, st = t[:colon], t[colon + 1:]
    if not (sh.startswith("(") and _outer_parens(sh) and st.startswith("(") and _outer_parens(st)):
        return None
    a, b = _split_top(sh[1:-1]), _split_top(st[1:-1])
    return list(zip(a, b)) if len(a) == len(b) else None


def _split_top(s: str) -> list:
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += ch in "({"
        depth -= ch in ")}"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def _check(expr: str, names: list, env: dict, doc: Doc):
    """``expr`` evaluated as the manifest will, so that an op cuteverify refuses becomes an unknown with the
    algebra's reason instead of an input error of the whole document."""
    for n in names:
        if n not in env:
            try:
                env[n] = evaluate(doc.layouts[n], env)
            except CuteVerifyError as e:
                raise _Skip(f"cuteverify cannot read the operand {doc.layouts[n]}: {e}") from None
    try:
        return evaluate(expr, env)
    except CuteVerifyError as e:
        raise _Skip(f"cuteverify's algebra refuses {expr}: {e}") from None


def _short(op: Op) -> str:
    ins = ", ".join(_text_of(t) or t.text for t in op.in_types)
    return f"({ins}) -> {', '.join(_text_of(t) or t.text for t in op.out_types)}"


def _text_of(t: TypeExpr) -> str | None:
    """The CuTe text an operand or result contributes: a layout's, a composed layout's, a tensor's layout, a
    tiler's / shape's / tuple's text; None for any other type."""
    if t.name in ("cute.layout", "cute.composed_layout", "cute.tile", "cute.shape", "cute.int_tuple",
                  "cute.coord", "cute.stride", "cute.swizzle"):
        strs = [a for a in t.args if isinstance(a, str)]
        return strs[0] if strs else None
    if t.name in ("cute.memref", "cute_nvgpu.smem_desc_view"):
        strs = [a for a in t.args if isinstance(a, str) and not _bare(a)]
        return strs[-1] if strs else None
    if t.name == "cute.coord_tensor":
        strs = [a for a in t.args if isinstance(a, str)]
        return strs[1] if len(strs) == 2 else None
    return None


def _bare(a) -> bool:
    return type(a).__name__ == "Bare"


def _static(text: str, what: str) -> str:
    """``text`` when the claim can use it: a result without ``?`` (each ``?`` of a printed result is a fresh
    unknown, unrelated by the text to the operands'); an operand's ``?`` are unknowns with their divisibility,
    which cuteverify's symbolic algebra carries (the claim then holds for every value of them, or is not
    proved)."""
    if "?" in text and what == "result":
        raise _Skip(f"the result {text} has dynamic values (?): each is a fresh unknown that the text does not "
                    f"relate to the operands', so no equality with cuteverify's result is decidable")
    return text


def _layout_entry(op: Op, i: int, doc: Doc, role: str) -> str:
    t = op.in_types[i] if role != "result" else op.out_types[0]
    if t.name not in _LAYOUT_KINDS:
        raise _Skip(f"the {role} is a {t.name}, not a layout or tensor")
    text = _text_of(t)
    if text is None:
        raise _Skip(f"the {role} type {t.text} holds no layout text")
    text = _static(text, role)
    if text.replace(" ", "") == "():()":
        text = "1:0"  # a rank-0 layout (a point): the function {0 -> 0}
    why = _unreadable(text)
    if why:  # checked before the entry is added: an entry cuteverify cannot read would fail the whole document
        raise _Skip(f"cuteverify cannot read the {role} {text}: {why}")
    hint = _hint(op) + ("_dsl" if role == "result" else "")
    return doc.layout(hint, text, op.loc, own=role == "result")


@functools.lru_cache(maxsize=4096)
def _unreadable(text: str) -> str:
    try:
        parse(text, source="captured layout")
    except CuteVerifyError as e:
        return str(e)
    return ""


def _hint(op: Op) -> str:
    m = re.match(r"^\s*([A-Za-z_]\w*)\s*(?:,[^=]*)?=(?!=)", op.loc.text or "")
    return m.group(1) if m else op.name.rsplit(".", 1)[-1]


def _operand_text(op: Op, i: int, kinds: tuple, what: str) -> str:
    t = op.in_types[i]
    if t.name not in kinds:
        raise _Skip(f"the {what} is a {t.name}, expected one of {', '.join(kinds)}")
    text = _text_of(t)
    if text is None:
        raise _Skip(f"the {what} {t.text} holds no CuTe text")
    return _static(text, what)


def _tiler(op: Op, i: int) -> str:
    t = op.in_types[i]
    if t.name in ("cute.layout",):
        return _static(_text_of(t), "tiler")
    text = _operand_text(op, i, ("cute.tile", "cute.shape", "cute.int_tuple"), "tiler")
    if text.strip() == "_":
        raise _Skip("the tiler is _ (keeps every mode): nothing to recompute")
    return text


def _ints(text: str) -> list:
    return [int(x) for x in _INTS.findall(text)]


def _prop_ints(op: Op, key: str) -> list:
    v = op.props.get(key) or op.attrs.get(key)
    if v is None:
        raise _Skip(f"the property {key} is missing")
    return _ints(v.split(":", 1)[1] if v.startswith("array<") else v.split(":", 1)[0])


def _prop_coord(op: Op, key: str) -> str:
    v = op.props.get(key) or op.attrs.get(key) or ""
    m = re.match(r'^#cute\.coord<"(.*)">$', v.strip())
    if not m:
        raise _Skip(f"the property {key} = {v!r} is not a coordinate")
    return m.group(1)


def _expression(op: Op, doc: Doc, whole: bool = True):
    """``(EXPR, RESULT entry, operand entries)`` for ``op`` (RESULT None unless ``whole``); raises ``_Skip``
    with the reason."""
    n = op.name
    if len(op.out_types) != 1:
        raise _Skip(f"{len(op.out_types)} results; one layout result expected")
    if n in ("cute.composed_get_inner", "cute.composed_get_offset"):
        return _accessor(op, doc)
    result = _layout_entry(op, 0, doc, "result") if whole else None
    if n in _BINARY:
        a = _layout_entry(op, 0, doc, "operand")
        if op.in_types[1].name in ("cute.layout", "cute.composed_layout"):
            b = _layout_entry(op, 1, doc, "operand")
            return f"{_BINARY[n]}({a}, {b})", result, [a, b]
        return f"{_BINARY[n]}({a}, {_tiler(op, 1)})", result, [a]
    if n in _UNARY:
        a = _layout_entry(op, 0, doc, "operand")
        return f"{_UNARY[n]}({a})", result, [a]
    if n == "cute.local_tile":
        a = _layout_entry(op, 0, doc, "operand")
        coord = _coordinate(op, 2)
        proj = op.props.get("proj") or op.attrs.get("proj")
        tail = f", proj={_prop_coord(op, 'proj')}" if proj else ""
        return f"local_tile({a}, {_tiler(op, 1)}, {coord}{tail}).layout", result, [a]
    if n == "cute.tile_to_shape":
        a = _layout_entry(op, 0, doc, "operand")
        shape = _operand_text(op, 1, ("cute.shape", "cute.int_tuple"), "target shape")
        tail = ""
        if len(op.in_types) > 2:
            tail = f", order={_operand_text(op, 2, ('cute.int_tuple', 'cute.shape'), 'order')}"
        return f"tile_to_shape({a}, {shape}{tail})", result, [a]
    if n == "cute.recast_layout":
        a = _layout_entry(op, 0, doc, "operand")
        old, new = _prop_ints(op, "old_type_bits"), _prop_ints(op, "new_type_bits")
        return f"recast({a}, {old[0]}, {new[0]})", result, [a]
    if n in ("cute.select", "cute.get"):
        a = _layout_entry(op, 0, doc, "operand")
        modes = _prop_ints(op, "mode")
        if n == "cute.get":  # a path of mode indices into the hierarchy
            return a + "".join(f"[{m}]" for m in modes), result, [a]
        return _make_layout([f"{a}[{m}]" for m in modes]), result, [a]
    if n == "cute.group_modes":
        a = _layout_entry(op, 0, doc, "operand")
        r = _rank(doc.layouts[a])
        b, e = _prop_ints(op, "begin")[0], _prop_ints(op, "end")[0]
        modes = [f"{a}[{i}]" for i in range(r)]
        return _make_layout(modes[:b] + [_make_layout(modes[b:e])] + modes[e:]), result, [a]
    if n == "cute.append_to_rank":
        a = _layout_entry(op, 0, doc, "operand")
        fill = _layout_entry(op, 1, doc, "operand") if len(op.in_types) > 1 else None
        r, have = _prop_ints(op, "rank")[0], _rank(doc.layouts[a])
        if have >= r:
            return a, result, [a]
        extra = [fill or "1:0"] * (r - have)
        return _make_layout([f"{a}[{i}]" for i in range(have)] + extra), result, [a] + ([fill] if fill else [])
    if n == "cute.dice":
        a = _layout_entry(op, 0, doc, "operand")
        kept = _dice(_prop_coord(op, "coord"), a)
        if not kept:
            raise _Skip("the dice keeps no mode")
        return _make_layout(kept), result, [a]
    if n == "cute.slice":
        a = _layout_entry(op, 0, doc, "operand")
        crd = _coordinate(op, 1).strip()
        if not crd.startswith("("):
            # one integer: a 1-D index that consumes every mode (the sliced layout is a point); ``A[i]`` would
            # read as mode i, so the point is written as a full coordinate of zeros
            r = _rank(doc.layouts[a])
            if crd == "_":
                return a, result, [a]
            if r < 2:
                raise _Skip("a 1-D index into a rank-1 layout: the result is a point, which no slice expression "
                            "of a rank-1 layout writes")
            crd = "(" + ",".join(["0"] * r) + ")"
        inner = crd[1:-1] if _outer_parens(crd) else crd
        return f"{a}[{inner}]", result, [a]
    if n == "cute.composed_get_outer":
        a = _layout_entry(op, 0, doc, "operand")
        if op.in_types[0].name != "cute.composed_layout":
            raise _Skip("the operand is not a composed layout")
        return f"{a}.outer", result, [a]
    if n == "cute.make_composed_layout":
        sw = _operand_text(op, 0, ("cute.swizzle",), "inner swizzle")
        off = _operand_text(op, 1, ("cute.int_tuple", "cute.shape"), "offset")
        if off.strip() != "0" or read_swizzle(sw) is None:
            raise _Skip(f"inner {sw} with offset {off}: only a swizzle at offset 0 is written as an expression")
        b = _layout_entry(op, 2, doc, "operand")
        return f"composition({sw}, {b})", result, [b]
    if n == "cute.make_identity_layout":
        shape = _operand_text(op, 0, ("cute.shape", "cute.int_tuple"), "shape")
        return f"make_identity_layout({shape})", result, []
    if n == "cute.make_ordered_layout":
        shape = _operand_text(op, 0, ("cute.shape", "cute.int_tuple"), "shape")
        order = _operand_text(op, 1, ("cute.int_tuple", "cute.shape"), "order")
        return f"make_ordered_layout({shape}, {order})", result, []
    if n == "cute.make_layout_like":
        a = _layout_entry(op, 0, doc, "operand")
        return f"make_layout_like({a})", result, [a]
    raise _Skip("no recomputation is written for this op")


def _accessor(op: Op, doc: Doc):
    """``composed_get_inner`` / ``get_offset``: the DSL's swizzle or offset, reassembled with cuteverify's reading
    of the other two parts, equals the composed operand (a function claim: a swizzle or an offset alone is no
    layout)."""
    t = op.in_types[0]
    if t.name != "cute.composed_layout":
        raise _Skip("the operand is not a composed layout")
    a = _layout_entry(op, 0, doc, "operand")
    parts = [p.strip() for p in doc.layouts[a].split(" o ")]
    if len(parts) != 3:
        raise _Skip(f"{doc.layouts[a]} is not written inner o offset o outer")
    got = _text_of(op.out_types[0])
    if got is None:
        raise _Skip(f"the result type {op.out_types[0].text} holds no text")
    got = _static(got, "result")
    if op.name == "cute.composed_get_inner":
        text = f"{got} o {parts[1]} o {parts[2]}"
        expr = f"{a}"
    else:
        text = f"{parts[0]} o {got} o {parts[2]}"
        expr = f"{a}"
    result = doc.layout(_hint(op) + "_dsl", text, op.loc, own=True)
    return expr, result, [a]


def _make_layout(items: list) -> str:
    return f"make_layout({', '.join(items)})"


def _rank(text: str) -> int:
    L = parse(text, source="captured layout")
    outer = getattr(L, "outer", L)
    return len(outer.shape) if type(outer.shape) is tuple else 1


def _dice(coord: str, a: str) -> list:
    """The modes of ``a`` that CuTe's ``dice(coord, a)`` keeps: those at an integer coordinate (``_`` drops a
    mode), flattened one level per tuple coordinate, as C++'s ``dice`` (``filter_tuple``)."""
    from_text = _tuple(coord)

    def walk(c, path):
        if c == "_":
            return []
        if isinstance(c, list):
            return [x for i, ci in enumerate(c) for x in walk(ci, path + f"[{i}]")]
        return [a + path]
    return walk(from_text, "")


def _tuple(text: str):
    """A coordinate text ``(1,(_,1))`` -> nested lists of ``'1'`` / ``'_'``."""
    stack, cur, tok = [], [], ""
    for ch in text.replace(" ", ""):
        if ch == "(":
            stack.append(cur)
            cur = []
        elif ch in ",)":
            if tok:
                cur.append(tok)
                tok = ""
            if ch == ")":
                done, cur = cur, stack.pop()
                cur.append(done)
        else:
            tok += ch
    if tok:
        cur.append(tok)
    return cur[0] if len(cur) == 1 else cur


def _coordinate(op: Op, i: int) -> str:
    """The slice / tile coordinate operand ``i`` with each dynamic ``?`` read as 0: the integer entries of a
    coordinate move only the iterator of a plain layout, never its layout. Not for a composed layout, whose
    inner function sees the offset (C++ slices ``Sw o off o L`` to ``Sw o (off + L(c)) o L'``)."""
    text = _operand_text(op, i, ("cute.coord", "cute.int_tuple"), "coordinate")
    if "?" in text and op.in_types[0].name == "cute.composed_layout":
        raise _Skip(f"the coordinate {text} has dynamic values and the operand is a composed layout, whose "
                    f"sliced function depends on them (through the offset)")
    return _DYN.sub("0", text)


def _outer_parens(s: str) -> bool:
    depth = 0
    for i, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(s) - 1:
            return False
    return True
