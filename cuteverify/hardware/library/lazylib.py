"""A spec library that parses a file only when a name it holds is asked for (issue 30).

Built from a self-check cache entry (:mod:`.checkcache`) that carries the index of the exact files it was
computed from (each spec name and alias -> the file that defines it), so a name resolves by reading the one
file that can hold it. After a cached success every spec handed out has passed its self-check under this
checker for these bytes; after an entry holding the index alone (a lazy load's), each is self-checked the
first time it is handed out. Listing names needs no file; anything that reads every spec's data (a filtered
listing, an unknown name's suggestions, ``values()``) parses the rest.
"""
from __future__ import annotations

from ...errors import SpecError
from .spec import Library

__all__ = ["IndexedLibrary", "name_index"]


def name_index(lib: Library) -> dict:
    """The index a cache entry stores for a fully loaded ``lib``: ``{"names": {name: file position},
    "aliases": {alias: name}}``, names in load order (positions into ``lib.files``)."""
    pos = {f: i for i, f in enumerate(lib.files)}
    names = {n: pos[lib.peek(n).file] for n in lib}
    aliases = {a: n for n in lib for a in (lib.peek(n).data.get("aliases") or [])}
    return {"names": names, "aliases": aliases}


def well_formed(index, nfiles: int) -> bool:
    """Is ``index`` (read back from the cache) of the shape :func:`name_index` writes, for ``nfiles`` files?"""
    if not isinstance(index, dict):
        return False
    names, aliases = index.get("names"), index.get("aliases")
    return (isinstance(names, dict) and isinstance(aliases, dict)
            and all(isinstance(k, str) and type(v) is int and 0 <= v < nfiles for k, v in names.items())
            and all(isinstance(k, str) and v in names for k, v in aliases.items()))


class IndexedLibrary(Library):
    """A :class:`Library` over ``sources`` (``[(file, bytes)]``) whose files ``parse(file, bytes) -> [Spec]``
    reads on demand, by ``index`` (:func:`name_index` of the same bytes). With ``trusted`` every spec counts
    as checked (the index comes from a cached success); otherwise ``checker`` runs on each spec the first
    time it is handed out, as in any lazily checked :class:`Library`. Post-condition: the same names, aliases,
    specs and file order as the eager load of the same sources; a file whose specs disagree with the index
    raises :class:`SpecError` (a stale index: never a spec from the wrong file)."""

    def __init__(self, sources: list, index: dict, parse, checker=None, trusted: bool = True):
        super().__init__({}, [name for name, _ in sources], checker)
        self._trusted = trusted
        self._where = dict(index["names"])
        self._aliases = dict(index["aliases"])
        self._sources = sources
        self._parse = parse
        self._loaded: set = set()

    def _load(self, pos: int) -> None:
        if pos in self._loaded:
            return
        file, data = self._sources[pos]
        specs = self._parse(file, data)
        if sorted(s.name for s in specs) != sorted(n for n, p in self._where.items() if p == pos):
            raise SpecError("the spec library's cached name index does not match this file; run "
                            "`cuteverify spec check`", file)
        self._loaded.add(pos)
        for s in specs:
            self._specs[s.name] = s
            if self._trusted:
                self._checked.add(s.name)

    def _load_all(self) -> None:
        for pos in range(len(self._sources)):
            self._load(pos)
        self._specs = {n: self._specs[n] for n in self._where}  # load order, as an eager load has it

    def _ensure(self, name) -> None:
        pos = self._where.get(self._aliases.get(name, name))
        if pos is not None:
            self._load(pos)

    def __getitem__(self, name: str):
        self._ensure(name)
        return super().__getitem__(name)

    def peek(self, name: str):
        self._ensure(name)
        return super().peek(name)

    def __iter__(self):
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, name) -> bool:
        return name in self._where or name in self._aliases

    def get(self, name: str, default=None):  # type: ignore[override]
        if name not in self:
            self._load_all()  # suggestions read every name
        return super().get(name, default)

    def names(self, filter=None) -> list:
        if filter is None:
            return sorted(self._where)
        self._load_all()
        return super().names(filter)
