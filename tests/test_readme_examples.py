"""The README's examples run as written (issue 27).

Every ```python block of README.md is executed in a fresh namespace, statement by statement; a statement whose
line ends in a comment states what it gives, read as:

* ``# proved`` / ``# refuted...`` / ``# unknown...``: the value's ``status``;
* ``# SomethingError...``: the statement raises that exception;
* ``# <value>`` where the comment starts like a printed value (``(``, a digit, ``S<``): ``str(value)`` (a tuple
  of ints: the ints space-separated) is the comment's beginning;
* any other comment is prose and states nothing.

Every ```bash / ```sh / ```console block is a list of ``cuteverify ...`` command lines (``\\`` continues a
line; ``$ `` prompts are dropped), each run in-process through click's CliRunner from the repository root.
The ``#`` lines under a command are excerpts of its output: each must occur in it (whitespace-normalised; ``...``
skips text). The exit code the README implies: 1 where an excerpt shows a refutation (``REFUTED``, an N-way
degree with N > 1), else 0. A block whose preceding line is ``<!-- readme-test: skip (REASON) -->`` is not
run, and the test says the reason (a block that installs packages needs the network).
"""
from __future__ import annotations

import ast
import io
import re
import shlex
import tokenize
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuteverify.frontend.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
_FENCE = re.compile(r"^```(\w*)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
_SKIP = re.compile(r"<!--\s*readme-test:\s*skip\s*\((.+?)\)\s*-->\s*$")
_SHELL = ("bash", "sh", "console", "shell")
_STATUS = ("proved", "refuted", "unknown")


def _blocks():
    """``(language, first line number, body, skip reason or None)`` for each fenced block of the README."""
    text = README.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = _SKIP.search(before)
        out.append((m.group(1).lower(), line, m.group(2), skip.group(1) if skip else None))
    return out


BLOCKS = _blocks()
PYTHON = [b for b in BLOCKS if b[0] == "python"]
SHELL = [b for b in BLOCKS if b[0] in _SHELL]


def _norm(text: str) -> str:
    return " ".join(text.split())


def _comments(source: str) -> dict:
    """{line: comment text} of the comments that end a line of ``source``."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string[1:].strip()
    return out


def _check_value(value, comment: str, where: str):
    word = re.match(r"[A-Za-z_]+", comment)
    if word and word.group(0) in _STATUS:
        assert getattr(value, "status", None) == word.group(0), f"{where}: README says {comment!r}, got {value}"
    elif re.match(r"[(\d]|S<|-\d", comment):
        if isinstance(value, tuple) and all(type(v) is int for v in value):
            shown = " ".join(str(v) for v in value)
        else:
            shown = str(value)
        assert comment.startswith(shown) and comment[len(shown):len(shown) + 1] in ("", " ", ","), \
            f"{where}: README shows {comment!r}, the code gives {shown!r}"


def _ids(blocks):
    return [f"README.md:{b[1]}" for b in blocks]


@pytest.mark.parametrize("lang, line, body, skip", PYTHON, ids=_ids(PYTHON))
def test_python_example(lang, line, body, skip):
    if skip:
        pytest.skip(skip)
    tree = ast.parse(body)
    comments = _comments(body)
    ns: dict = {"__name__": "readme_example"}
    for stmt in tree.body:
        where = f"README.md:{line + stmt.end_lineno}"
        comment = comments.get(stmt.end_lineno, "")
        raises = re.match(r"(\w+Error)\b", comment)
        code = compile(ast.Module([stmt], []) if not isinstance(stmt, ast.Expr) else ast.Expression(stmt.value),
                       where, "exec" if not isinstance(stmt, ast.Expr) else "eval")
        if raises:
            with pytest.raises(Exception) as info:
                eval(code, ns)  # noqa: S307 - the README's own example
            assert type(info.value).__name__ == raises.group(1), f"{where}: raised {info.value!r}"
            continue
        value = eval(code, ns)  # noqa: S307 - the README's own example
        if isinstance(stmt, ast.Expr) and comment:
            _check_value(value, comment, where)


def _commands(body: str, line: int):
    """``[(line, argv, [output excerpt])]`` of a shell block."""
    out, cur, start = [], "", line
    for k, raw in enumerate(body.splitlines(), line + 1):
        text = raw.strip()
        if not cur and text.startswith("#"):
            if out:
                out[-1][2].append(text[1:].strip())
            continue
        if not text:
            continue
        if not cur:
            start = k
            text = text[2:] if text.startswith("$ ") else text
        cur += (" " if cur else "") + text.rstrip("\\").strip()
        if not text.endswith("\\"):
            out.append((start, shlex.split(cur, comments=True), []))
            cur = ""
    return out


def _expected_code(excerpts) -> int:
    shown = " ".join(excerpts)
    return 1 if re.search(r"REFUTED|\b([2-9]|[1-9]\d+)-way\b", shown) else 0


@pytest.mark.parametrize("lang, line, body, skip", SHELL, ids=_ids(SHELL))
def test_shell_example(lang, line, body, skip, monkeypatch):
    if skip:
        pytest.skip(skip)
    monkeypatch.chdir(ROOT)
    commands = _commands(body, line)
    assert commands, f"README.md:{line}: a shell block with no command"
    for at, argv, excerpts in commands:
        assert argv[0] == "cuteverify", \
            f"README.md:{at}: runs {argv[0]!r}; mark the block <!-- readme-test: skip (REASON) --> if it cannot run here"
        r = CliRunner().invoke(main, argv[1:])
        out = _norm(r.output)
        assert "Traceback" not in r.output, f"README.md:{at}: {r.output}"
        assert r.exit_code == _expected_code(excerpts), f"README.md:{at}: exit {r.exit_code}\n{r.output}"
        for ex in excerpts:
            pos = 0
            for piece in (p for p in (_norm(x) for x in ex.split("...")) if p):
                found = out.find(piece, pos)
                assert found >= 0, f"README.md:{at}: the README shows {piece!r}; the output is\n{r.output}"
                pos = found + len(piece)


def test_the_readme_has_runnable_examples():
    """The extraction finds the examples (a changed fence style would otherwise make every test vanish)."""
    assert len(PYTHON) >= 4 and len(SHELL) >= 5
    assert sum(1 for b in SHELL if b[3] is None) >= 4


def test_excerpt_and_exit_rules_can_fail():
    """The reader's rules refuse what they should: a wrong value, a wrong status, an implied refutation."""
    with pytest.raises(AssertionError):
        _check_value((26, 26, 27), "26 26 26 (paper)", "x")
    with pytest.raises(AssertionError):
        _check_value("2:12", "2:1 as CuTe", "x")
    assert _expected_code(["8-way conflict: threads 0 and 1"]) == 1 and _expected_code(["1-way (conflict-free)"]) == 0
    assert _commands("cuteverify a \\\n  b  # note\n#   out\n", 1) == [(2, ["cuteverify", "a", "b"], ["out"])]
