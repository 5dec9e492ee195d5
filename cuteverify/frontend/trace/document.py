"""A capture's kernel as a manifest (docs/model.md section 10.1): :class:`Doc` collects the entries (CuTe text or
manifest expressions) and claims that the ``emit_*`` modules derive from the traced ops, each claim with ``at``
(``file:line: source``, the op's :class:`~.mlir.Loc`), and the constructs they could not map (``unknowns``:
never skipped silently). :meth:`Doc.yaml` is the manifest ``trace manifest`` writes; ``trace check`` loads that
same text with the manifest loader and runs its claims, so a traced kernel and a written manifest are checked
by one mechanism.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from .mlir import Loc

__all__ = ["Doc", "Unknown", "entry_name"]

_NOT_IDENT = re.compile(r"\W+")
_ASSIGNED = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(?:,[^=]*)?=(?!=)")


@dataclass(frozen=True)
class Unknown:
    """A construct of the capture that no check covers: what it is, where, and why."""

    what: str
    loc: Loc
    why: str

    def __str__(self) -> str:
        return f"{self.loc.describe()}: {self.what}: {self.why}"


def entry_name(hint: str) -> str:
    """An identifier made of ``hint`` (``self.sA`` -> ``sA``, ``tAsA[None, 0]`` -> ``tAsA``)."""
    base = hint.rsplit(".", 1)[-1]
    name = _NOT_IDENT.sub("_", base).strip("_") or "x"
    return name if not name[0].isdigit() else f"x{name}"


class Doc:
    """One traced kernel's manifest under construction. ``kernel`` names it (the top-level function, shortened),
    ``source`` is the capture's path."""

    def __init__(self, kernel: str, source: str = "", header: dict | None = None):
        self.kernel = kernel
        self.source = source
        self.header = dict(header or {})
        self.layouts: dict = {}
        self.claims: list = []
        self.unknowns: list = []
        self.notes: list = []
        self._by_text: dict = {}
        self._keys: set = set()

    def layout(self, hint: str, text: str, loc: Loc | None = None, own: bool = False) -> str:
        """The name of the entry whose text is ``text``, added under a name made of ``hint`` (or of the variable
        the statement at ``loc`` assigns) when new. The same text gives the same entry, unless ``own``: the
        DSL's side of a comparison gets an entry of its own, so that the manifest's claim names two entries
        (editing either one can make it fail) even where the texts agree."""
        text = str(text)
        if text in self._by_text and not own:
            return self._by_text[text]
        if loc is not None and loc.text:
            m = _ASSIGNED.match(loc.text)
            hint = m.group(1) if m and not hint else hint
        base = entry_name(hint or "x")
        name, i = base, 1
        while name in self.layouts:
            i += 1
            name = f"{base}_{i}"
        self.layouts[name] = text
        if not own:  # the DSL's side stays its own: another object of the same text gets another entry
            self._by_text[text] = name
        return name

    def claim(self, body: dict, loc: Loc | None = None, name: str | None = None, expect: str | None = None) -> None:
        """Add the claim ``body`` (``{kind: arguments}``) with ``at`` from ``loc``; a claim already added (same
        body, same place) is not repeated."""
        c = dict(body)
        if name:
            c["name"] = name
        if expect:
            c["expect"] = expect
        if loc is not None and loc.file is not None:
            c["at"] = loc.describe()
        key = repr(sorted(c.items(), key=lambda kv: kv[0]))
        if key not in self._keys:
            self._keys.add(key)
            self.claims.append(c)

    def unknown(self, what: str, loc: Loc, why: str) -> None:
        """Record a construct that no check covers (reported by ``trace check``, never dropped)."""
        u = Unknown(what, loc, why)
        if u not in self.unknowns:
            self.unknowns.append(u)

    def note(self, what: str, loc: Loc, why: str) -> None:
        """Record a construct that has nothing to check, with the reason (a register-side partition taken for
        its shape, a retile of registers that feed no MMA): reported as ``n/a``, never an unknown."""
        u = Unknown(what, loc, why)
        if u not in self.notes:
            self.notes.append(u)

    def to_manifest(self) -> dict:
        """The manifest document (``version``, ``kernels``: this kernel's ``layouts`` and ``claims``)."""
        body = {"layouts": dict(self.layouts), "claims": list(self.claims)}
        return {"version": 1, "description": f"traced from {self.source}" if self.source else "traced kernel",
                "kernels": {self.kernel: body}}

    def yaml(self) -> str:
        """:meth:`to_manifest` as YAML, headed by comments naming the capture and each unmapped construct."""
        head = [f"# written by `cuteverify trace manifest` from {self.source or 'a capture'}"]
        if self.header:
            head.append("# capture: " + ", ".join(f"{k}={v}" for k, v in sorted(self.header.items())
                                                  if k in ("dsl", "arch", "function")))
        # a reason may span lines (a compiler error quoted): each line stays a comment, or the YAML breaks
        head += ["# not checked: " + "\n#   ".join(str(u).splitlines()) for u in self.unknowns]
        head += ["# nothing to check: " + "\n#   ".join(str(u).splitlines()) for u in self.notes]
        text = yaml.safe_dump(self.to_manifest(), sort_keys=False, width=120, allow_unicode=True)
        return "\n".join(head) + "\n" + text
