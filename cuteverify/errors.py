"""Every exception cuteverify raises on purpose (docs/model.md section 8); the base layer: it imports nothing
of the project, and every other module may import it.

Errors are data. Each class has a machine-readable ``kind``; front ends map kinds to exit codes with
``exit_code(error)`` and never sort errors by the words of their messages. Nothing here prints.
"""
from __future__ import annotations

# exit codes shared by every front end
EXIT_PROVED, EXIT_REFUTED, EXIT_INPUT, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4


class CuteVerifyError(Exception):
    """Base class of every error cuteverify raises on purpose. ``kind`` names the family:
    ``input`` (the user's text, file or arguments are wrong), ``undecided`` (the assumptions do not settle a
    question the operation must answer), ``refuted`` (a check found a counterexample, e.g. a spec whose two
    descriptions disagree), ``internal`` (a procedure's own budget or translation limit)."""

    kind = "input"


class ParseError(CuteVerifyError, ValueError):
    """Malformed text. ``column`` is 1-based; ``expected`` says what would have been accepted."""

    def __init__(self, text: str, column: int, expected: str, source: str = "layout"):
        self.text = text
        self.column = column
        self.expected = expected
        self.source = source
        shown, pointer = _window(text, column)
        super().__init__(f"cannot parse {source} at column {column}: expected {expected}\n  {shown}\n  {pointer}")


PARSE_WINDOW = 40  # characters of the input shown on each side of an error's column


def _window(text: str, column: int) -> tuple:
    """The line of ``text`` around ``column`` (1-based, counted in the whole text) cut to ``PARSE_WINDOW``
    characters either side, and the caret line under it: a long input is not repeated whole in the message.
    Characters that would not print one column wide (tabs, control bytes) are shown as one space or ``?``
    so that the caret stays under the column."""
    text = str(text)
    i = min(max(column - 1, 0), len(text))
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\n", i)
    end = len(text) if end < 0 else end
    lo, hi = max(start, i - PARSE_WINDOW), min(end, i + PARSE_WINDOW)
    shown = "".join(" " if c == "\t" else (c if c.isprintable() else "?") for c in text[lo:hi])
    head = "..." if lo > start else ""
    tail = "..." if hi < end else ""
    return head + shown + tail, " " * (len(head) + i - lo) + "^"


class NotAdmissibleError(CuteVerifyError, ValueError):
    """An algebra operation whose admissibility condition fails (or a malformed layout).

    ``operation`` names the operation, ``condition`` the violated condition in words,
    ``modes`` the offending modes (free text, e.g. ``"mode 1 (4:6)"``).
    """

    def __init__(self, operation: str, condition: str, modes: str = ""):
        self.operation = operation
        self.condition = condition
        self.modes = modes
        where = f" at {modes}" if modes else ""
        super().__init__(f"{operation} is not admissible: {condition}{where}")


class UndecidedError(CuteVerifyError, ValueError):
    """A symbolic algebra step needs a decision (e.g. an ordering) that the assumptions do not settle
    and that cannot be carried as an obligation because both answers lead to differently shaped results."""

    kind = "undecided"


class ContradictoryAssumptions(CuteVerifyError, ValueError):
    """No assignment of the symbols satisfies the assumptions (an input error, never a proof)."""


class Untranslatable(CuteVerifyError):
    """A term outside the vocabulary a decision procedure translates (e.g. to Z3): the procedure defers."""

    kind = "internal"


class Unsupported(CuteVerifyError):
    """The input uses something a decision procedure does not model (a stride domain, a composed layout of
    another kind): the procedure defers, and a query with no other procedure answers unknown with the text."""

    kind = "internal"


class OutOfBudget(CuteVerifyError):
    """An exact procedure would exceed its size or memory budget: it defers to the next one."""

    kind = "internal"


class SpecError(CuteVerifyError, ValueError):
    """A hardware spec file or a spec lookup is wrong (docs/model.md section 6): unreadable or empty file,
    YAML or schema error, malformed formula or layout text, duplicate name, missing family parameter, unknown
    dtype. ``reason`` is the message without its place; ``file``, ``line`` and ``spec`` say where."""

    def __init__(self, reason: str, file: str | None = None, line: int | None = None, spec: str | None = None):
        self.reason = reason
        self.file = file
        self.line = line
        self.spec = spec
        where = f"{file or '<spec>'}" + (f":{line}" if line else "")
        who = f" [{spec}]" if spec else ""
        super().__init__(f"{where}:{who} {reason}")


class SpecInconsistent(SpecError):
    """A spec's self-check failed: its CUTLASS layout and its PTX formula disagree (or it does not cover its
    tile, or its encodings do not match its swizzle). The file is well formed; the spec is refuted."""

    kind = "refuted"


class UnknownSpec(CuteVerifyError, KeyError):
    """No spec of that name; the message suggests close names ("did you mean ...")."""

    def __str__(self):
        return self.args[0] if self.args else "unknown spec"


class FormulaError(CuteVerifyError, ValueError):
    """A spec formula is malformed or uses something outside the formula language. ``text`` is the formula,
    ``reason`` what is wrong, ``token`` and ``col`` (1-based) the offending token when known."""

    def __init__(self, text: str, reason: str, token: str | None = None, col: int | None = None):
        self.text = text
        self.reason = reason
        self.token = token
        self.col = col
        where = f" at column {col}" if col is not None else ""
        tok = f" (token {token!r})" if token is not None else ""
        super().__init__(f"formula {text!r}: {reason}{tok}{where}")


class TmaError(CuteVerifyError, ValueError):
    """A TMA or matrix descriptor's fields cannot be read: an unknown enum name, entries that do not match
    the rank, a layout that has no descriptor (an input error; a rule the fields break is a verdict)."""


class CaseSplit(UndecidedError):
    """Control flow of ``algebra``'s ``split_cases``: the operation needs a decision on ``condition`` and is
    run once per answer (it never leaves the operation wrapper)."""

    def __init__(self, condition):
        super().__init__(f"the operation splits on {condition}")
        self.condition = condition


class NotLinear(Unsupported):
    """A formula outside the vocabulary the hardware family proof translates (caught in
    ``symbolic_tv_agreement``)."""


class FoldError(CuteVerifyError, ValueError):
    """An einsum or an operand that cannot be folded (inconsistent letters, extents, ranks, ...)."""


class LoopNestError(CuteVerifyError, ValueError):
    """A loop nest that parses but has no canonical layout (not rectangular, not affine, step 0, ...)."""


class SynthError(CuteVerifyError, ValueError):
    """A synthesis problem that is malformed (an access, a tile, a dtype or a requirement); the message names
    the access and the field."""

    kind = "input"


class NoLegalLayout(SynthError):
    """No candidate of the searched space is legal for the problem's requirements (``kind`` refuted); the
    message gives the reasons."""

    kind = "refuted"


class InternalDisagreement(CuteVerifyError):
    """The search's score of a layout and the analysis' verdict on it differ (a bug, reported, never used)."""

    kind = "internal"


class UnsupportedAttribute(ParseError):
    """A layout attribute that is well formed but not modelled (``#ttg.amd_mfma``, ``#ttg.slice``, a
    ``hasLeadingOffset`` shared layout, another dialect's attribute): an input error naming it. ``supported``
    lists the attributes that are modelled (the message offers them)."""

    def __init__(self, text: str, column: int, name: str, why: str = "", source: str = "TTGIR attribute",
                 supported=()):
        self.name = name
        reason = why or "it is not modelled"
        super().__init__(text, column, f"one of the layouts {', '.join(supported)}; #{name} is refused: "
                                       f"{reason}", source)


class TritonLayoutError(CuteVerifyError, ValueError):
    """A layout attribute that has no linear layout for the given tensor shape (a rule Triton asserts, or a
    combination this package does not model): an input error naming the attribute and the rule."""

    kind = "input"


class ShapeMismatch(CuteVerifyError, ValueError):
    """An ``agrees`` claim whose layout cannot even be compared with the spec (a thread or value count the
    hardware does not have): the claim is malformed, an input error, not a refutation."""


class CommandLineError(CuteVerifyError, ValueError):
    """Arguments that the command line itself refuses (a malformed ``NAME=VALUE``, incompatible options, an
    unwritable output file): an input error."""

    kind = "input"


class CaptureError(CuteVerifyError, ValueError):
    """A CuTe DSL capture that cannot be read or taken: a file that is not the generic MLIR ``trace capture``
    writes (the message names ``file:line``), a type the reader does not know, or a capture script that
    failed (its exit status and the end of its error output)."""


class Planned(CaptureError):
    """What ``trace cpp``'s compile (``cpp_build.compile_cpp``) raises inside ``cpp_build.planning()`` instead of
    compiling: ``cached``, whether the compile it was asked for is in the cache already. Not an error a user sees:
    the planning caller catches it."""

    def __init__(self, cached: bool):
        self.cached = cached
        super().__init__("a compile planned, not run")


class LayoutExprError(CuteVerifyError):
    """A manifest's layout entry or inline layout that cannot be evaluated: ``name`` (the entry, or None for
    inline text), ``reason``, ``column`` (1-based into the text, or None) and ``parse_error`` (the
    ``ParseError`` behind it, when there is one, so that the loader can show its caret)."""

    kind = "input"

    def __init__(self, reason, name=None, column=None, parse_error=None):
        super().__init__(reason)
        self.reason, self.name, self.column, self.parse_error = reason, name, column, parse_error


class YamlRefusal(CuteVerifyError):
    """Raised inside the manifest's YAML composer/builder (an input error); the manifest loader turns it into
    a ManifestError (it carries the reason and the 1-based line and column)."""

    kind = "input"

    def __init__(self, reason, line=None, column=None):
        super().__init__(reason)
        self.reason, self.line, self.column = reason, line, column


class ManifestError(CuteVerifyError, ValueError):
    """A manifest is malformed. ``file``, ``line`` and ``column`` (1-based, may be None) and ``reason``."""

    def __init__(self, reason: str, file: str | None = None, line: int | None = None, column: int | None = None):
        self.reason, self.file, self.line, self.column = reason, file, line, column
        where = file or "<manifest>"
        if line:
            where += f":{line}"
            if column:
                where += f":{column}"
        super().__init__(f"{where}: {reason}")


class CuteManifestError(CuteVerifyError):
    """A manifest that pytest was asked to collect is malformed (an input error)."""

    kind = "input"


class CuteClaimFailure(CuteVerifyError):
    """A claim's verdict differs from its ``expect``; ``args`` are the claim and its result, which the pytest
    plugin's ``CuteClaimItem.repr_failure`` renders."""

    kind = "refuted"


class DslUnavailable(CaptureError):
    """The interpreter that runs the compile script cannot import the CuTe DSL (``nvidia-cutlass-dsl``)."""


class ScriptFailed(CaptureError):
    """The compile script exited with a non-zero status, or ran past its time limit; the message carries the
    exit status and the last lines of its stderr."""


class NoKernelCompiled(CaptureError):
    """The compile script finished but never called ``cute.compile``, so nothing was traced."""


def exit_code(error: BaseException) -> int:
    """The exit code front ends give an error: 2 for input errors, 1 for refutations, 3 for undecided
    questions, 4 for everything else (a bug or an internal limit)."""
    kind = getattr(error, "kind", None) if isinstance(error, CuteVerifyError) else None
    return {"input": EXIT_INPUT, "refuted": EXIT_REFUTED, "undecided": EXIT_UNKNOWN}.get(kind, EXIT_INTERNAL)
