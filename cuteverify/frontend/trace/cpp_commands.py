"""``trace cpp --compile-commands compile_commands.json FILE.cu``: the -I / -D / -std of FILE's entry in a JSON
compilation database (CMake's ``CMAKE_EXPORT_COMPILE_COMMANDS``, Bear, ...), as the host-only capture takes them.

Definitions:
  * an entry is the database's object whose ``file`` (relative to its ``directory``) is FILE; its command line is
    ``arguments`` (a list) or ``command`` (a shell-quoted string). nvcc's and g++'s spellings are both read:
    ``-I DIR`` / ``-IDIR`` / ``-isystem DIR`` / ``--include-path DIR`` / ``--include-path=DIR``; ``-D X`` /
    ``-DX`` / ``--define-macro X`` / ``--define-macro=X``; ``-std=c++17`` / ``--std c++17`` / ``--std=c++17``.
    Relative include directories are taken relative to the entry's ``directory``.
  * :func:`entry_flags` returns :class:`CommandFlags` (includes, defines, std); everything else on the command line
    (optimisation, ``-gencode``, ``-x cu``, output files) is left out: the capture builds host-only with its own.

Admissibility: a database that does not parse, or has no entry for FILE, is a CaptureError naming the file; of
several entries for FILE (one per configuration), the first is used. Post-condition: the flags keep the entry's
order; ``std`` is the last -std given (None when none is).
"""
from __future__ import annotations

import dataclasses
import json
import os
import shlex

from ...errors import CaptureError

__all__ = ["CommandFlags", "entry_flags"]


@dataclasses.dataclass(frozen=True)
class CommandFlags:
    """What a compilation database's entry says that the capture uses: -I directories (absolute), -D definitions
    (``X`` or ``X=V``), and the language standard (``c++17``) or None."""

    includes: tuple
    defines: tuple
    std: str | None


_INC = ("-I", "-isystem", "--include-path", "-idirafter", "-iquote")
_DEF = ("-D", "--define-macro")
_STD = ("-std", "--std")


def _args(entry: dict) -> list:
    if isinstance(entry.get("arguments"), list):
        return [str(a) for a in entry["arguments"]]
    return shlex.split(str(entry.get("command", "")))


def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def entry_flags(database: str, source: str) -> CommandFlags:
    """The -I / -D / -std of ``source``'s entry in the compilation database file ``database``."""
    try:
        with open(database, encoding="utf-8") as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        raise CaptureError(f"{database}: not a readable compilation database ({e})") from None
    if not isinstance(entries, list):
        raise CaptureError(f"{database}: a compilation database is a JSON list of entries")
    for e in entries:
        if not isinstance(e, dict) or "file" not in e:
            continue
        base = str(e.get("directory") or os.path.dirname(os.path.abspath(database)))
        if _same(os.path.join(base, str(e["file"])), source):
            return _flags(_args(e), base)
    raise CaptureError(f"{database}: no entry for {source} (its `file`, relative to its `directory`)")


def _flags(args: list, base: str) -> CommandFlags:
    inc, dfn, std = [], [], None
    i = 0
    while i < len(args):
        a = args[i]
        val, kind = None, None
        for kind_, names in (("I", _INC), ("D", _DEF), ("std", _STD)):
            for n in names:
                if a == n and i + 1 < len(args):
                    val, kind = args[i + 1], kind_
                    i += 1
                elif a.startswith(n + "=") or (not n.startswith("--") and a.startswith(n) and len(a) > len(n)):
                    val, kind = a[len(n):], kind_  # joined: -IDIR, -DX=V, -std=c++17, --include-path=DIR
                    val = val[1:] if len(n) > 2 and val.startswith("=") else val
                if kind:
                    break
            if kind:
                break
        if kind == "I":
            inc.append(os.path.normpath(os.path.join(base, val)))
        elif kind == "D":
            dfn.append(val)
        elif kind == "std":
            std = val
        i += 1
    return CommandFlags(tuple(inc), tuple(dfn), std)
