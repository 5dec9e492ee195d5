"""The bank-conflict analysis' answers: prover ``Verdict``s with the exact numbers (docs/model.md section 7).

``BankVerdict`` (conflict-free?) and ``VectorVerdict`` (widest vector access) are thin subclasses of the
prover's ``Verdict``: same status / claim / method / counterexample / reason, plus documented attributes.
Their witnesses ``BankConflict`` and ``VectorBreak`` are ``Counterexample``s.
"""
from __future__ import annotations

from ...core.tuples import flatten, is_tuple
from ...prover.verdict import Counterexample, Verdict

__all__ = ["BankConflict", "BankVerdict", "VectorBreak", "VectorVerdict", "BANK_BYTES", "assignment_text"]

#: Width of one shared-memory bank word in bytes.
BANK_BYTES = 4


class BankConflict(Counterexample):
    """Two threads of one phase touching different words of one bank (kind ``bank-conflict``).

    ``threads``, ``elements`` (tile element indices), ``addresses`` (byte addresses), ``words`` (4-byte words),
    ``crds`` (the elements as coordinates of the smem shape, when it is hierarchical): pairs, one per thread;
    ``bank``, ``warp``, ``iteration`` (vector index), ``phase`` and ``degree`` (distinct words on that bank)."""

    __slots__ = ("threads", "elements", "addresses", "bank", "words", "warp", "iteration", "phase", "degree",
                 "crds")

    def __init__(self, threads, elements, addresses, bank, warp, iteration, phase, degree, crds=(),
                 assignment=None):
        super().__init__("bank-conflict", coords=threads, values=addresses, assignment=assignment)
        self.threads = tuple(threads)
        self.elements = tuple(elements)
        self.addresses = tuple(addresses)
        self.bank = bank
        self.words = tuple(a // BANK_BYTES for a in addresses)
        self.warp, self.iteration, self.phase, self.degree = warp, iteration, phase, degree
        self.crds = tuple(crds)

    def to_dict(self):
        d = super().to_dict()
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


class BankVerdict(Verdict):
    """A ``Verdict`` on "conflict-free" with the exact numbers.

    ``degree``: the largest number of distinct words on one bank in one phase (1 = conflict-free, the
    "n-way" of an n-way conflict); ``vector_bytes``/``lanes_per_phase``: the access model used;
    ``wavefronts``: total wavefronts over all phases; ``ideal_wavefronts``: the number of phases (each would
    take one wavefront without conflicts); ``instances``: per symbol assignment, ``(assignment, degree)``.
    """

    __slots__ = ("degree", "vector_bytes", "lanes_per_phase", "wavefronts", "ideal_wavefronts", "elem_bytes",
                 "instances")

    def __init__(self, status, *, degree=None, vector_bytes=None, lanes_per_phase=None, wavefronts=None,
                 ideal_wavefronts=None, elem_bytes=None, instances=(), **kw):
        super().__init__(status, **kw)
        self.degree, self.vector_bytes, self.lanes_per_phase = degree, vector_bytes, lanes_per_phase
        self.wavefronts, self.ideal_wavefronts, self.elem_bytes = wavefronts, ideal_wavefronts, elem_bytes
        self.instances = tuple(instances)

    @property
    def conflict_free(self):
        return self.status == "proved"

    def to_dict(self):
        d = super().to_dict()
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


class VectorBreak(Counterexample):
    """Why a thread's values cannot be read as one ``width``-byte vector (kind ``not-vectorizable``): ``thread``,
    ``width``, ``why`` (in words), ``value_indices`` and their element ``offsets``."""

    __slots__ = ("thread", "width", "why", "value_indices", "offsets")

    def __init__(self, thread, width, why, value_indices=(), offsets=(), assignment=None):
        super().__init__("not-vectorizable", coords=(thread,), values=offsets, assignment=assignment)
        self.thread, self.width, self.why = thread, width, why
        self.value_indices, self.offsets = tuple(value_indices), tuple(offsets)

    def to_dict(self):
        d = super().to_dict()
        d.update({"thread": self.thread, "width": self.width, "why": self.why,
                  "value_indices": list(self.value_indices), "offsets": list(self.offsets)})
        return d

    def __str__(self):
        return f"{self.width}-byte vectors: thread {self.thread}: {self.why}"

    __repr__ = __str__


class VectorVerdict(Verdict):
    """A ``Verdict`` on the widest vector access, with the numbers: ``width``: the widest access in bytes;
    ``elems``: elements per vector; ``elem_bytes``: the element width; ``blocker``: why the next width up fails
    (a ``VectorBreak``, or ``None``)."""

    __slots__ = ("width", "elems", "blocker", "elem_bytes")

    def __init__(self, status, *, width=None, elems=None, blocker=None, elem_bytes=None, **kw):
        super().__init__(status, **kw)
        self.width, self.elems, self.blocker, self.elem_bytes = width, elems, blocker, elem_bytes

    def to_dict(self):
        d = super().to_dict()
        d.update({"width": self.width, "elems": self.elems, "elem_bytes": self.elem_bytes,
                  "blocker": self.blocker.to_dict() if self.blocker is not None else None})
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

