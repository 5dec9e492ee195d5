"""The one result family: ``Verdict`` (proved / refuted / unknown) and its typed ``Counterexample``s.

Every answer cuteverify gives is a ``Verdict`` or a subclass carrying exact numbers (bank-conflict degree,
vector width, TMA rules, loop collisions, ...); every witness a ``Counterexample`` subclass, one per ``kind``.
Both are frozen dataclasses: a result is built once (``dataclasses.replace`` derives a changed copy).
``to_json()`` is the one JSON form, used by every ``--json`` of the CLI and by manifests' results:
``{"status", "what", "method", "counterexample": {"kind", "text", ...} | null, "reason", "obligations",
"discharged", "notes", "elapsed"}`` plus a subclass's own numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..core.notation.parse import ANONYMOUS_NAME, unknowns_notes
from ..errors import Unsupported

STATUSES = ("proved", "refuted", "unknown")


def jsonable(x):
    """``x`` as JSON data: dicts with string keys, tuples as lists, numbers kept, anything else ``int(x)`` or
    ``str(x)`` (a sympy integer, an expression)."""
    if x is None or type(x) in (bool, int, float, str):
        return x
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [jsonable(v) for v in x]
    try:
        return int(x)
    except (TypeError, ValueError):
        return str(x)


# an anonymous unknown as ``core.parse`` names it: CuTe DSL's ``?``, numbered
_ANONYMOUS = ANONYMOUS_NAME


def _by_name(item):
    """Symbols in name order, anonymous unknowns by number (``?2`` before ``?10``)."""
    m = _ANONYMOUS.fullmatch(str(item[0]))
    return (1, int(m.group(1)), "") if m else (0, 0, str(item[0]))


def _fmt(x):
    if isinstance(x, tuple) and not type(x) is tuple:  # ArithTuple
        return str(x)
    if type(x) is tuple:
        return "(" + ",".join(_fmt(v) for v in x) + ")"
    return str(x)


#: kind -> the Counterexample subclass that stands for it (filled by ``__init_subclass__``)
_KINDS: dict = {}


@dataclass(frozen=True, eq=False)
class Counterexample:
    """A witness that a claim is false, re-evaluated on the concrete layout(s) before it is reported; one
    subclass per ``kind`` (a class attribute, ``to_json``'s ``kind``).

    ``coords``: integer coordinates (indices into the domain, colexicographic), ``natural``: the same as natural
    coordinates of the layout's shape, ``values``: what they map to, ``value``: a single value (the missed one),
    ``assignment``: symbol values for symbolic layouts, ``note``: the witness in words where a kind's own
    sentence does not fit, ``detail``: named fields (``cex.thread``, ``cex.user``, ... read them as attributes).
    ``__str__`` never fails, whatever was filled in.
    """

    kind: ClassVar[str] = "counterexample"
    coords: tuple = ()
    values: tuple = ()
    value: object = None
    assignment: dict = field(default_factory=dict)
    natural: tuple = ()
    note: str = ""
    detail: dict = field(default_factory=dict)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if not cls.__name__.startswith("_"):
            _KINDS.setdefault(cls.kind, cls)

    def __post_init__(self):
        _put(self, "coords", tuple(self.coords))
        _put(self, "values", tuple(self.values))
        _put(self, "natural", tuple(self.natural))
        _put(self, "assignment", dict(self.assignment or {}))
        _put(self, "detail", dict(self.detail or {}))

    @staticmethod
    def of(kind: str, **kw) -> "Counterexample":
        """The counterexample of kind ``kind`` (its subclass) built from ``kw``; a kind no subclass stands for is
        a bug of the caller (``Unsupported``, kind ``internal``)."""
        cls = _KINDS.get(kind)
        if cls is None:
            raise Unsupported(f"no counterexample kind {kind!r} (known: {', '.join(sorted(_KINDS))})")
        return cls(**kw)

    def __getattr__(self, name):
        # named witness fields: cex.thread, cex.user, cex.hardware, ... from ``detail``
        if name != "detail" and not name.startswith("__"):
            try:
                return object.__getattribute__(self, "detail")[name]
            except (AttributeError, KeyError):
                pass
        raise AttributeError(name)

    def to_json(self) -> dict:
        """The witness as JSON: ``kind``, ``text`` (``str(self)``), ``coords``, ``natural``, ``values``,
        ``assignment``; ``value``, ``note`` and ``detail`` when set (``detail``'s fields also at the top);
        a subclass adds its own fields."""
        d = {"kind": self.kind, "text": str(self), "coords": jsonable(self.coords),
             "natural": jsonable(self.natural), "values": jsonable(self.values),
             "assignment": jsonable(self.assignment)}
        if self.value is not None:
            d["value"] = jsonable(self.value)
        if self.note:
            d["note"] = self.note
        if self.detail:
            d["detail"] = jsonable(self.detail)
            d.update({k: jsonable(v) for k, v in self.detail.items() if k not in d and v is not None})
        return d

    def __str__(self):
        try:
            return self._text()
        except Exception:  # noqa: BLE001 (a partly filled witness still prints)
            parts = [self.kind] + [f"{k}={_fmt(v)}" for k, v in (("coords", self.coords), ("values", self.values))
                                   if v] + ([f"value={_fmt(self.value)}"] if self.value is not None else [])
            return " ".join(parts) + (f" ({self.note})" if self.note else "")

    def _assignment_text(self):
        if not self.assignment:
            return ""
        asg = " with " + ", ".join(f"{k}={v}" for k, v in sorted(self.assignment.items(), key=_by_name))
        if any(_ANONYMOUS.fullmatch(str(k)) for k in self.assignment):
            asg += " (each ?N an independent unknown)"
        return asg

    def _where(self):
        return self.natural or self.coords

    def _sentence(self):
        return self.kind + (f": coords {self.coords}" if self.coords else "") + \
            (f" values {self.values}" if self.values else "")

    def _text(self):
        return self._sentence() + self._assignment_text() + (f" ({self.note})" if self.note else "")

    def __repr__(self):
        return str(self)


class Collision(Counterexample):
    """Two coordinates (``coords``, ``natural``) with the same value (``values[0]``)."""
    kind = "collision"

    def _sentence(self):
        w = self._where()
        return (f"coordinates {self.coords[0]} {_fmt(w[0])} and {self.coords[1]} {_fmt(w[1])} both map to "
                f"{_fmt(self.values[0])}")


class Missed(Counterexample):
    """A value of the codomain (``value``) that no coordinate reaches."""
    kind = "missed"

    def _sentence(self):
        if self.value is None:
            raise ValueError("no value")
        return f"value {_fmt(self.value)} is not reached"


class OutOfRange(Counterexample):
    """A coordinate (``coords[0]``) whose value (``values[0]``) leaves the codomain."""
    kind = "out-of-range"

    def _sentence(self):
        return (f"coordinate {self.coords[0]} {_fmt(self._where()[0])} maps to {_fmt(self.values[0])}, outside "
                f"the codomain")


class Differ(Counterexample):
    """A coordinate (``coords[0]``) where two layouts differ (``values``: theirs)."""
    kind = "differ"

    def _sentence(self):
        return f"at coordinate {self.coords[0]} {_fmt(self._where()[0])}: {_fmt(self.values[0])} != " \
               f"{_fmt(self.values[1])}"


class Overlap(Counterexample):
    """A non-zero value (``value``) in two images (``coords``: a coordinate of each)."""
    kind = "overlap"

    def _sentence(self):
        if self.value is None:
            raise ValueError("no value")
        return f"value {_fmt(self.value)} is in both images (coordinates {self.coords[0]} and {self.coords[1]})"


class _Said(Counterexample):
    """A witness whose ``note`` is its whole sentence (a spec, descriptor or atom check phrased it)."""
    kind = "said"

    def _text(self):
        if self.note:
            return self.note
        return super()._text()


class Disagree(_Said):
    """A (thread, value) or coordinate (``coords``) where the user's layout and the hardware's (``values``:
    user's, hardware's) disagree; named in ``detail`` (thread, value_index, user, hardware, ...)."""
    kind = "disagree"


class Mismatch(_Said):
    """The two sides cannot agree at all (sizes, shapes, thread counts): the reason in ``note``."""
    kind = "mismatch"


class NotVectorizable(Counterexample):
    """A thread's values (``coords[0]`` the thread, ``values`` their offsets) that one vector cannot move."""
    kind = "not-vectorizable"


class Misaligned(Counterexample):
    """An atom block (``coords`` its first coordinate, ``values[0]`` its offset) off the atom's alignment."""
    kind = "misaligned"


class Illegal(Counterexample):
    """An access or consumer that cannot be issued on the layout at all (``detail`` names it)."""
    kind = "illegal"


class Worse(Counterexample):
    """A layout of the searched space that scores better (``detail``: the term, both values, the better one)."""
    kind = "worse"


class RuleViolation(_Said):
    """A rule's counterexample: ``note`` is the whole sentence (``K = 4: global stride 1 is 8 bytes, not a
    multiple of 16``), ``assignment`` the symbol values, ``detail['rule']`` the rule's name."""
    kind = "rule"

    def _text(self):
        return self.note


def _put(obj, name, value):
    # frozen dataclasses normalise their fields once, in __post_init__
    object.__setattr__(obj, name, value)




@dataclass(frozen=True, eq=False)
class Verdict:
    """``status`` in proved / refuted / unknown; ``bool(v)`` is True only when proved. ``claim``: what was
    decided, in words; ``method``: how; ``counterexample``: a typed witness (refuted); ``reason``: why not proved
    (or a proof's side remark); ``obligations``: conditions the proof needs, ``discharged``: those the
    assumptions settled; ``elapsed``: seconds. Frozen: derive a changed copy with ``dataclasses.replace``."""

    status: str
    claim: str = ""
    method: str = ""
    counterexample: Counterexample | None = None
    reason: str | None = None
    obligations: tuple = ()
    discharged: tuple = ()
    elapsed: float = 0.0

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        _put(self, "obligations", tuple(self.obligations))
        _put(self, "discharged", tuple(self.discharged))

    @property
    def proved(self):
        return self.status == "proved"

    @property
    def refuted(self):
        return self.status == "refuted"

    def __bool__(self):
        return self.status == "proved"

    def to_json(self) -> dict:
        """The one JSON form of a result (module docstring): ``status``, ``what`` (the claim), ``method``,
        ``counterexample`` (``Counterexample.to_json``, with its ``kind``, or null), ``reason`` (null where it
        is the counterexample's text), ``obligations`` and ``discharged`` (``{condition, reason, text}``), ``notes``,
        ``elapsed``; a subclass adds its numbers."""
        cex = self.counterexample
        return {
            "status": self.status, "what": self.claim, "method": self.method,
            "counterexample": cex.to_json() if cex is not None else None,
            "reason": self.reason if cex is None or self.reason != str(cex) else None,  # the witness is said once
            "obligations": [_condition(o) for o in self.obligations],
            "discharged": [_condition(o) for o in self.discharged],
            "notes": unknowns_notes(self),
            "elapsed": self.elapsed,
        }

    def __str__(self):
        head = f"{self.status.upper()}: {self.claim}" if self.claim else self.status.upper()
        lines = [head + (f"  [{self.method}, {self.elapsed * 1e3:.1f} ms]" if self.method else
                         f"  [{self.elapsed * 1e3:.1f} ms]")]
        lines += [f"  note: {n}" for n in unknowns_notes(self)]
        if self.counterexample is not None:
            lines.append(f"  counterexample: {self.counterexample}")
        if self.reason:
            lines.append(f"  reason: {self.reason}")
        if self.obligations:
            lines.append("  under obligations:")
            lines += [f"    {o}" for o in self.obligations]
        if self.discharged:
            lines.append("  obligations discharged from the assumptions:")
            lines += [f"    {o}" for o in self.discharged]
        return "\n".join(lines)

    def __repr__(self):
        return f"{type(self).__name__}({self.status!r}, {self.claim!r}, method={self.method!r})"


def _condition(o):
    return {"condition": o.text() if hasattr(o, "text") else str(o), "reason": getattr(o, "reason", ""),
            "text": str(o)}


__all__ = ["Verdict", "Counterexample", "Collision", "Missed", "OutOfRange", "Differ", "Overlap", "Disagree",
           "Mismatch", "NotVectorizable", "Misaligned", "Illegal", "Worse", "RuleViolation", "jsonable"]
