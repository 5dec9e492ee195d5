"""``trace cpp``: a CUTLASS C++ source captured host-only, its launches as manifest documents, checked by the
manifest checker (issue 29).

:func:`documents` turns a capture's records (:mod:`.cpp_capture`) into one :class:`~.document.Doc` per launch
an entry reached (kernel name ``KERNEL_LINE``, plus the entry when several reach one launch), with the
kernel-body relations of :mod:`.cpp_flow`; an entry that exited abnormally before printing (an
``assert(false && "Not implemented")``) is an unknown of its own document, and a launch no entry reached is a
note. :func:`check_cpp` captures, builds the documents and runs their claims with the rows of
:func:`.check.check_captures` (one mechanism with ``trace check`` and ``check``).
"""
from __future__ import annotations

import re
from pathlib import Path

from .check import run_documents as check_run_documents
from .cpp_capture import BUILT, capture, find_launches
from .cpp_emit import emit_launch
from .cpp_emit_traits import emit_traits_launch
from .cpp_flow import kernel_flow, resolve_kernel
from .cpp_headers import launch_headers, user_headers
from .cpp_flow_sm90 import resolve_accesses, sm90_flow
from .cpp_replay import replay_plan
from .cpp_storage import storage_flow
from .cpp_text import blank
from .cpp_traits import traits_flow
from .document import Doc
from .mlir import Loc

__all__ = ["documents", "check_cpp", "run_documents"]


def _signal(code: int) -> str:
    return f"signal {-code}" if code < 0 else f"exit code {code}"


def documents(path: str, text: str, records, info: dict) -> list:
    """The documents of one capture: ``records`` of the source ``text`` at ``path``, ``info`` from
    :func:`.cpp_capture.capture` (per entry: exit code, records printed, last stderr line)."""
    launches = {f"{path}:{la.line}": (la, a, path) for la, a, _ in find_launches(text, path)}
    by_line = {int(at.rsplit(":", 1)[1]): v for at, v in launches.items()}
    # launches in the user headers the source includes (cpp_headers), their kernels' type members (cpp_traits)
    headers = user_headers(path, text)
    sources = {path: text, **headers}
    for hp, found in launch_headers(path, headers, find_launches).items():
        launches.update({f"{hp}:{la.line}": (la, a, hp) for la, a, _ in found})
    groups: dict = {}
    for r in records:
        groups.setdefault((r.entry, r.at), []).append(r)
    per_line: dict = {}
    for entry, at in groups:
        per_line.setdefault(at, []).append(entry)
    docs, reached = [], set()
    for (entry, at), recs in groups.items():
        line = int(at.rsplit(":", 1)[1])
        la, offset, lpath = launches.get(at) or by_line.get(line, (None, 0, path))
        reached.add(f"{lpath}:{la.line}" if la is not None else at)
        ltext = sources.get(lpath, text)
        flow = kernel_flow(ltext, la.kernel, offset) if la is not None else None
        tflow = (traits_flow(sources, resolve_kernel(blank(ltext), la.kernel, offset), la.kernel, ltext, offset)
                 if la is not None and flow is None else None)
        name = f"{flow.kernel if flow else tflow.kernel if tflow else recs[0].kernel}_{line}"
        if len(per_line[at]) > 1:
            name += "_" + re.sub(r"\W+", "_", entry).strip("_")
        doc = Doc(name, path, {"function": entry})
        n = sum(1 for r in recs if r.index < BUILT)
        if la is not None and n != len(la.args):
            doc.unknown(f"launch {at}", Loc(lpath, line), f"{len(la.args)} arguments in the source, "
                        f"{n} printed: the capture lost some")
        if flow is None and tflow is None:
            doc.unknown(f"kernel of {at}", Loc(lpath, line), "its __global__ definition is not in this file: "
                        "the relations its body states (smem layouts, copies) are not read")
        sm90 = sm90_flow(ltext, flow)
        if sm90 is not None:
            resolve_accesses(flow, sm90)
        sflow = storage_flow(ltext, flow.kernel, la.kernel, offset) if flow is not None else None
        if sflow is not None:  # the kernel body's TMEM objects and cluster the capture replayed (cpp_replay)
            sflow.replay, sflow.replay_error = replay_plan(ltext, flow, sm90), info.get("replay_error")
        if tflow is not None:
            docs.append(emit_traits_launch(doc, recs, flow, path, sm90, sflow, tflow, ltext))
        else:
            docs.append(emit_launch(doc, recs, flow, path, sm90, sflow, ltext))
    for entry, e in info.get("entries", {}).items():
        if e["returncode"] != 0:
            doc = Doc(re.sub(r"\W+", "_", entry).strip("_"), path, {"function": entry})
            doc.unknown(f"entry {entry}", Loc(path), f"the host run stopped with {_signal(e['returncode'])} after "
                        f"{e['records']} printed arguments: {e['stderr'] or 'no message'}")
            docs.append(doc)
    for at, (la, _, lpath) in launches.items():
        if at not in reached:
            doc = Doc(f"{la.kernel}_{la.line}", path)
            doc.note(f"launch of {la.kernel}", Loc(lpath, la.line), "no --entry reached this launch")
            docs.append(doc)
    return docs


def run_documents(docs, jobs: int = 1, progress=None) -> tuple:
    """Run every document's claims: ``(results, claims)`` as :func:`.check.check_captures` returns them."""
    return check_run_documents([(doc.source, doc) for doc in docs], jobs, progress)


def check_cpp(source, entries, includes=(), defines=(), jobs: int = 1, progress=None, std=None) -> tuple:
    """Capture ``source`` host-only with ``entries``, build its documents, run them: ``(results, claims, docs,
    info)``; ``info`` adds ``check_s`` to the capture's figures."""
    path = str(source)
    records, _, info = capture(path, entries, includes, defines, std=std)
    docs = documents(path, Path(path).read_text(), records, info)
    results, claims = run_documents(docs, jobs, progress)
    return results, claims, docs, info
