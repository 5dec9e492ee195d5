"""The prover's answer: ``Verdict`` (proved / refuted / unknown) and its ``Counterexample``."""
from __future__ import annotations

from ..core.notation.parse import ANONYMOUS_NAME, unknowns_notes

STATUSES = ("proved", "refuted", "unknown")


def _jsonable(x):
    if x is None or type(x) in (bool, int, float, str):
        return x
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [_jsonable(v) for v in x]
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


class Counterexample:
    """A witness that a claim is false, re-evaluated on the concrete layout(s) before it is reported.

    ``kind``: ``collision`` (two coordinates with the same value), ``missed`` (a value of the codomain no
    coordinate reaches), ``out-of-range`` (a coordinate whose value leaves the codomain), ``differ`` (a
    coordinate where two layouts differ), ``overlap`` (a non-zero value two images share).
    ``coords``: integer coordinates (indices into the domain, colexicographic), ``natural``: the same as
    natural coordinates of the layout's shape, ``values``: what they map to, ``value``: the missed value,
    ``assignment``: symbol values for symbolic layouts. Spec agreement (``cv.agrees``): ``disagree`` (coords
    ``(thread, value)`` or the (row, col) coordinate, values ``(user element, hardware element)``, named in
    ``detail``: thread, value_index, user, hardware, ...), ``mismatch`` (the shapes cannot agree; the reason in ``note``).
    ``__str__`` never fails, whatever was filled in.
    """

    __slots__ = ("kind", "coords", "natural", "values", "value", "assignment", "note", "detail")

    def __init__(self, kind, coords=(), values=(), value=None, assignment=None, natural=(), note="", detail=None):
        self.kind = kind
        self.coords = tuple(coords)
        self.values = tuple(values)
        self.value = value
        self.assignment = dict(assignment or {})
        self.natural = tuple(natural)
        self.note = note
        self.detail = dict(detail or {})

    def __getattr__(self, name):
        # spec disagreements: cex.thread, cex.user, cex.hardware, ... from ``detail``
        if name != "detail":
            try:
                return object.__getattribute__(self, "detail")[name]
            except (AttributeError, KeyError):
                pass
        raise AttributeError(name)

    def to_dict(self):
        d = {"kind": self.kind, "coords": _jsonable(self.coords), "natural": _jsonable(self.natural),
             "values": _jsonable(self.values), "assignment": _jsonable(self.assignment)}
        if self.value is not None:
            d["value"] = _jsonable(self.value)
        if self.note:
            d["note"] = self.note
        if self.detail:
            d["detail"] = _jsonable(self.detail)
            # spec disagreements: the named fields also at the top (thread, value, user, hardware, ...)
            d.update({k: _jsonable(v) for k, v in self.detail.items() if k not in d and v is not None})
        if self.kind in ("disagree", "mismatch"):
            d["text"] = str(self)
        return d

    def __str__(self):
        try:
            return self._text()
        except Exception:  # noqa: BLE001 (a partly filled witness still prints)
            parts = [self.kind] + [f"{k}={_fmt(v)}" for k, v in (("coords", self.coords), ("values", self.values))
                                   if v] + ([f"value={_fmt(self.value)}"] if self.value is not None else [])
            return " ".join(parts) + (f" ({self.note})" if self.note else "")

    def _text(self):
        if self.kind in ("disagree", "mismatch") and self.note:
            return self.note
        if self.kind in ("missed", "overlap") and self.value is None:
            raise ValueError("no value")
        asg = ""
        if self.assignment:
            asg = " with " + ", ".join(f"{k}={v}" for k, v in sorted(self.assignment.items(), key=_by_name))
            if any(_ANONYMOUS.fullmatch(str(k)) for k in self.assignment):
                asg += " (each ?N an independent unknown)"
        where = self.natural or self.coords
        if self.kind == "collision":
            s = (f"coordinates {self.coords[0]} {_fmt(where[0])} and {self.coords[1]} {_fmt(where[1])} both map to "
                 f"{_fmt(self.values[0])}")
        elif self.kind == "missed":
            s = f"value {_fmt(self.value)} is not reached"
        elif self.kind == "out-of-range":
            s = f"coordinate {self.coords[0]} {_fmt(where[0])} maps to {_fmt(self.values[0])}, outside the codomain"
        elif self.kind == "differ":
            s = f"at coordinate {self.coords[0]} {_fmt(where[0])}: {_fmt(self.values[0])} != {_fmt(self.values[1])}"
        elif self.kind == "overlap":
            s = f"value {_fmt(self.value)} is in both images (coordinates {self.coords[0]} and {self.coords[1]})"
        else:
            s = self.kind + (f": coords {self.coords}" if self.coords else "") + \
                (f" values {self.values}" if self.values else "")
        return s + asg + (f" ({self.note})" if self.note else "")

    __repr__ = __str__


class Verdict:
    """``status`` in proved / refuted / unknown; ``bool(v)`` is True only when proved."""

    __slots__ = ("status", "claim", "method", "counterexample", "reason", "obligations", "discharged", "elapsed")

    def __init__(self, status, claim="", method="", counterexample=None, reason=None, obligations=(),
                 discharged=(), elapsed=0.0):
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        self.status = status
        self.claim = claim
        self.method = method
        self.counterexample = counterexample
        self.reason = reason
        self.obligations = tuple(obligations)
        self.discharged = tuple(discharged)
        self.elapsed = elapsed

    @property
    def proved(self):
        return self.status == "proved"

    @property
    def refuted(self):
        return self.status == "refuted"

    def __bool__(self):
        return self.status == "proved"

    def to_dict(self):
        return {
            "status": self.status, "claim": self.claim, "method": self.method,
            "counterexample": self.counterexample.to_dict() if self.counterexample is not None else None,
            "reason": self.reason,
            "obligations": [{"condition": o.text() if hasattr(o, "text") else str(o),
                             "reason": getattr(o, "reason", "")} for o in self.obligations],
            "discharged": [{"condition": o.text() if hasattr(o, "text") else str(o),
                            "reason": getattr(o, "reason", "")} for o in self.discharged],
            "elapsed": self.elapsed,
            "notes": unknowns_notes(self),
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
        return f"Verdict({self.status!r}, {self.claim!r}, method={self.method!r})"


__all__ = ["Verdict", "Counterexample"]
