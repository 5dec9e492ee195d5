"""The bank-conflict analysis' answers: prover ``Verdict``s with the exact numbers (docs/model.md section 7).

``BankVerdict`` (conflict-free?) and ``VectorVerdict`` (widest vector access) are thin subclasses of the
prover's ``Verdict``: same status / claim / method / counterexample / reason, plus documented attributes.
Their witnesses ``BankConflict`` and ``VectorBreak`` are ``Counterexample``s.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...core.tuples import flatten, is_tuple
from ...prover.verdict import Counterexample, NotVectorizable, Verdict

__all__ = ["BankConflict", "BankVerdict", "VectorBreak", "VectorVerdict", "BANK_BYTES", "assignment_text"]

#: Width of one shared-memory bank word in bytes.
BANK_BYTES = 4


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class BankConflict(Counterexample):
    """Two threads of one phase touching different words of one bank (kind ``bank-conflict``).

    ``threads``, ``elements`` (tile element indices), ``addresses`` (byte addresses), ``words`` (4-byte words),
    ``crds`` (the elements as coordinates of the smem shape, when it is hierarchical): pairs, one per thread;
    ``bank``, ``warp``, ``iteration`` (vector index), ``phase`` and ``degree`` (distinct words on that bank)."""

    kind = "bank-conflict"
    threads: tuple
    elements: tuple
    addresses: tuple
    bank: int
    warp: int
    iteration: int
    phase: int
    degree: int
    crds: tuple = ()

    def __post_init__(self):
        for name in ("threads", "elements", "addresses", "crds"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "coords", self.threads)
        object.__setattr__(self, "values", self.addresses)
        super().__post_init__()

    @property
    def words(self):
        return tuple(a // BANK_BYTES for a in self.addresses)

    def to_json(self):
        d = super().to_json()
        d.update({"threads": list(self.threads), "elements": list(self.elements),
                  "element_coords": [list(flatten(c)) if is_tuple(c) else c for c in self.crds],
                  "byte_addresses": list(self.addresses), "words": list(self.words), "bank": self.bank,
                  "warp": self.warp, "iteration": self.iteration, "phase": self.phase, "degree": self.degree})
        return d

    def __str__(self):
        (t0, t1), (e0, e1), (a0, a1) = self.threads, self.elements, self.addresses
        c = self.crds
        el0 = f"element {e0}" + (f" {_fmt(c[0])}" if c else "")
        el1 = f"element {e1}" + (f" {_fmt(c[1])}" if c else "")
        asg = assignment_text(self.assignment)
        return (f"threads {t0} and {t1} (warp {self.warp}, iteration {self.iteration}, phase {self.phase}) touch "
                f"{el0} at byte {a0} (word {a0 // 4}) and {el1} at byte {a1} (word {a1 // 4}), both in bank "
                f"{self.bank}; {self.degree} distinct words on that bank{asg}")

    __repr__ = __str__


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class BankVerdict(Verdict):
    """A ``Verdict`` on "conflict-free" with the exact numbers.

    ``degree``: the largest number of distinct words on one bank in one phase (1 = conflict-free, the
    "n-way" of an n-way conflict); ``vector_bytes``/``lanes_per_phase``: the access model used;
    ``wavefronts``: total wavefronts over all phases; ``ideal_wavefronts``: the number of phases (each would
    take one wavefront without conflicts); ``instances``: per symbol assignment, ``(assignment, degree)``.
    """

    degree: int | None = None
    vector_bytes: int | None = None
    lanes_per_phase: int | None = None
    wavefronts: int | None = None
    ideal_wavefronts: int | None = None
    elem_bytes: int | None = None
    instances: tuple = ()

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "instances", tuple(self.instances))

    @property
    def conflict_free(self):
        return self.status == "proved"

    def to_json(self):
        d = super().to_json()
        d.update({"degree": self.degree, "vector_bytes": self.vector_bytes, "lanes_per_phase": self.lanes_per_phase,
                  "wavefronts": self.wavefronts, "ideal_wavefronts": self.ideal_wavefronts,
                  "elem_bytes": self.elem_bytes})
        if self.instances:
            d["instances"] = [{"assignment": a, "degree": g} for a, g in self.instances]
        return d

    def __str__(self):
        s = super().__str__()
        if self.degree is not None:
            s += (f"\n  degree: {self.degree}-way ({self.vector_bytes}-byte accesses, {self.lanes_per_phase} "
                  f"threads per phase; {self.wavefronts} wavefronts for {self.ideal_wavefronts} phases)")
        return s


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class VectorBreak(NotVectorizable):
    """Why a thread's values cannot be read as one ``width``-byte vector (kind ``not-vectorizable``): ``thread``,
    ``width``, ``why`` (in words), ``value_indices`` and their element ``offsets``."""

    thread: int
    width: int
    why: str
    value_indices: tuple = ()
    offsets: tuple = ()

    @classmethod
    def at(cls, width, place, assignment=None):
        """The break of ``width``-byte vectors at ``place`` = (thread, why, value_indices, offsets, ...)."""
        return cls(thread=place[0], width=width, why=place[1], value_indices=place[2], offsets=place[3],
                   assignment=assignment)

    def __post_init__(self):
        object.__setattr__(self, "value_indices", tuple(self.value_indices))
        object.__setattr__(self, "offsets", tuple(self.offsets))
        object.__setattr__(self, "coords", (self.thread,))
        object.__setattr__(self, "values", self.offsets)
        super().__post_init__()

    def to_json(self):
        d = super().to_json()
        d.update({"thread": self.thread, "width": self.width, "why": self.why,
                  "value_indices": list(self.value_indices), "offsets": list(self.offsets)})
        return d

    def __str__(self):
        return f"{self.width}-byte vectors: thread {self.thread}: {self.why}"

    __repr__ = __str__


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class VectorVerdict(Verdict):
    """A ``Verdict`` on the widest vector access, with the numbers: ``width``: the widest access in bytes;
    ``elems``: elements per vector; ``elem_bytes``: the element width; ``blocker``: why the next width up fails
    (a ``VectorBreak``, or ``None``)."""

    width: int | None = None
    elems: int | None = None
    blocker: VectorBreak | None = None
    elem_bytes: int | None = None

    def to_json(self):
        d = super().to_json()
        d.update({"width": self.width, "elems": self.elems, "elem_bytes": self.elem_bytes,
                  "blocker": self.blocker.to_json() if self.blocker is not None else None})
        return d

    def __str__(self):
        s = super().__str__()
        if self.width is not None:
            s += f"\n  width: {self.width} bytes ({self.elems} elements per vector)"
        return s


def assignment_text(assignment) -> str:
    """`` with K=64, M=128`` for a counterexample found at that assignment of the symbols, else ``""``."""
    if not assignment:
        return ""
    return " with " + ", ".join(f"{k}={v}" for k, v in sorted(assignment.items()))


def _fmt(x):
    if type(x) is tuple:
        return "(" + ",".join(_fmt(v) for v in x) + ")"
    return str(x)

