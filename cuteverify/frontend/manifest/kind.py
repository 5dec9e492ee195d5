"""What a manifest claim kind is (:class:`ClaimKind`), the evaluated argument it carries (:class:`Ref`), and the
field readers the kinds share. The registry of kinds is ``cuteverify.frontend.manifest.claims``; the kinds are
defined in ``claims_layout`` / ``claims_atoms`` / ``claims_smem`` / ``operand``.

A kind's ``read(k, body, path)`` receives the kernel being read (``k``: ``k.ref`` for a layout argument, ``k.obj``
for an entry of a class, ``k.value`` for an atom function's argument, ``k.env`` the kernel's entries,
``k.error(reason, path)`` an error at the YAML node of ``path``) and returns the claim's arguments, evaluated:
layouts and atom-layer objects as :class:`Ref` (the text as written, its value, the tile it indexes). ``text``
prints those arguments as the claim's label; ``decide(args, assume)`` returns the ``Verdict`` (``assume``: the
kernel's shared ``Assumptions`` or None), raising ``CuteVerifyError`` on input that cannot be decided.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ...core.notation.tiles import read_extents
from ...errors import CuteVerifyError

__all__ = ["ClaimKind", "Ref", "OPERANDS", "one_of", "operand_field", "extents_field", "fields", "number", "side_field",
           "LAYOUT_REF", "ENTRY_REF", "OPERAND_REF", "SIDE_REF", "NONEMPTY", "POSITIVE", "EXTENTS_ARRAY"]

OPERANDS = ("A", "B", "C")

# JSON-schema pieces the kinds' fragments share (the ``$defs`` they name are the shipped schema's)
LAYOUT_REF = {"$ref": "#/$defs/layoutRef"}
ENTRY_REF = {"$ref": "#/$defs/entryRef"}
OPERAND_REF = {"$ref": "#/$defs/operand"}
SIDE_REF = {"$ref": "#/$defs/side"}
NONEMPTY = {"type": "string", "minLength": 1}
POSITIVE = {"type": "integer", "minimum": 1}
EXTENTS_ARRAY = {"type": "array", "minItems": 1, "items": POSITIVE}


@dataclass(frozen=True, eq=False)  # equal and hashed by identity: the schema is cached per registered set
class ClaimKind:
    """One claim kind of the manifest: ``name`` (the claim's YAML key), ``schema`` (the JSON-schema fragment of
    its body, under ``$defs/claim/properties/<name>``), ``read`` (YAML body -> evaluated arguments, checked with
    the node's line), ``text`` (arguments -> the claim printed whole), ``decide`` (arguments, assumptions ->
    ``Verdict``). Module docstring: the contract of each."""

    name: str
    schema: dict
    read: Callable[..., dict]
    text: Callable[[dict], str]
    decide: Callable[[dict, Any], Any]


@dataclass(frozen=True, eq=False)
class Ref:
    """An argument as the manifest wrote it (``text``: an entry's name or inline text) with its value (a layout,
    a tiled MMA, a tiled copy, a tuple) and, for a TV layout read off a tiled object, the ``tile`` it indexes
    (``manifest.expr.evaluate_tile``; None otherwise). Prints as its text."""

    text: str
    value: Any
    tile: Any = None

    def __str__(self) -> str:
        return self.text


def fields(k, kind, body, bp) -> dict:
    """``body`` when it is a mapping of fields, else an error at the claim."""
    if not isinstance(body, dict):
        raise k.error(f"{kind} takes a mapping of fields", bp)
    return body


def one_of(k, body, bp, keys, kind):
    """The one key of ``keys`` that ``body`` gives (an error naming them when none or several)."""
    given = [x for x in keys if body.get(x) is not None]
    if len(given) != 1:
        raise k.error(f"{kind} takes exactly one of {', '.join(keys)}"
                      + (f" (got {', '.join(given)})" if given else ""), bp)
    return given[0]


def operand_field(k, body, bp, required=True):
    """The ``operand`` field: A, B or C (None when absent and not ``required``)."""
    op = body.get("operand")
    if op is None and not required:
        return None
    if op not in OPERANDS:
        raise k.error(f"operand must be one of A, B, C (got {op!r})", bp + ("operand",))
    return op


def side_field(k, body, bp):
    """The ``side`` field of a copy: src, dst or None."""
    side = body.get("side")
    if side not in (None, "src", "dst"):
        raise k.error(f"side must be src or dst (got {side!r})", bp + ("side",))
    return side


def extents_field(k, v, path):
    """``128x64`` / ``(128,64)`` / ``128,64`` / ``[128, 64]`` -> ``(128, 64)`` (positive integers; the one extents
    reader, as the CLI and Python), else an error at the node."""
    try:
        return read_extents(v if isinstance(v, (list, int)) else str(v), "tile")
    except CuteVerifyError:
        raise k.error(f"expected extents such as 128x64, (128,64) or [128, 64], got {v!r}", path) from None


def number(x):
    """A count field (``codomain``, ``cotarget``): an int, an integer text as int, else the text (an expression
    over the kernel's symbols), None when absent."""
    if x is None or isinstance(x, int):
        return x
    s = str(x).strip()
    return int(s) if re.fullmatch(r"-?\d+", s) else s
