"""JUnit XML of a ``cuteverify check`` run: a testsuite per manifest file, a testcase per claim, and for a file
that could not be loaded one errored testcase carrying its error (file, line, reason), so that a CI page shows
every file's verdicts next to the broken one. Nothing here decides anything: it renders the results
``manifest.run`` / ``manifest.check_files`` returned.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

__all__ = ["junit_xml"]


def junit_xml(results: list, elapsed: float | None = None, report: str | None = None) -> str:
    """JUnit XML for ``results`` (result dicts in run order, load failures included as rows of kind ``load``).

    Post-condition: one ``testsuite`` per distinct ``file`` in first-seen order, one ``testcase`` per row; a row
    not as expected has a ``failure`` (a verdict other than its ``expect``) or an ``error`` (status ``error``;
    ``type`` the error kind: input / internal) whose text holds the counterexample, reason and obligations.
    With ``report`` (the HTML page's path or URL), the testsuites carry a ``report`` property and each testcase
    one linking to its row's anchor ``#claim-N``."""
    root = ET.Element("testsuites", name="cuteverify")
    if elapsed is not None:
        root.set("time", f"{elapsed:.6f}")
    if report:
        props = ET.SubElement(root, "properties")
        ET.SubElement(props, "property", name="report", value=report)
    by_file: dict = {}
    for i, r in enumerate(results):
        by_file.setdefault(r["file"], []).append(dict(r, _index=i))
    for f, rs in by_file.items():
        s = ET.SubElement(root, "testsuite", name=f, tests=str(len(rs)),
                          failures=str(sum(1 for r in rs if not r["ok"] and r["status"] != "error")),
                          errors=str(sum(1 for r in rs if r["status"] == "error")),
                          time=f"{sum(r.get('elapsed', 0.0) for r in rs):.6f}")
        for r in rs:
            tc = ET.SubElement(s, "testcase", classname=r["kernel"] or f, name=r["claim"],
                               file=r["file"], line=str(r.get("line") or 0), time=f"{r.get('elapsed', 0.0):.6f}")
            if report:
                props = ET.SubElement(tc, "properties")
                ET.SubElement(props, "property", name="report", value=f"{report}#claim-{r['_index']}")
            if r["ok"]:
                continue
            tag = "error" if r["status"] == "error" else "failure"
            message = (f"cannot load the manifest: {_first_line(r.get('reason'))}" if r.get("kind") == "load"
                       else f"expected {r['expect']}, got {r['status']}")
            el = ET.SubElement(tc, tag, type=r.get("error_kind", r["status"]), message=message)
            el.text = _detail(r)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _first_line(text) -> str:
    return str(text or "").split("\n", 1)[0]


def _detail(r: dict) -> str:
    lines = []
    if r.get("kind") == "load":
        where = ":".join(str(x) for x in (r["file"], r.get("line"), r.get("column")) if x)
        lines.append(f"{where}: {r.get('reason')}")
        return "\n".join(lines)
    lines += [f"note: {n}" for n in r.get("notes") or ()]
    if r.get("counterexample"):
        lines.append(f"counterexample: {r['counterexample']['text']}")
    if r.get("reason"):
        lines.append(f"reason: {r['reason']}")
    for o in r.get("obligations") or ():
        lines.append(f"obligation: {o['text']}")
    return "\n".join(lines)
