"""Kernel manifests: YAML files that name a kernel's layouts and the claims cuteverify proves about them.

Format (JSON Schema: ``specs/manifest_schema.json``, shipped as ``cuteverify.spec_data/manifest_schema.json``)::

    version: 1
    kernels:
      fa2_fwd_sm80:                          # a kernel
        symbols: [M]                         # optional: the symbols its layouts may use
        assume: ["M % 64 == 0"]              # optional: assumptions on them
        layouts:                             # named layouts, CuTe text
          sK: "S<3,3,3> o 0 o ((8,8),64):((64,512),1)"
          tvA: "((4,8),(2,2,2)):((32,1),(16,8,128))"
        claims:
          - bijective: sK                    # a layout name or inline CuTe text
          - injective: "(4,8):(1,4)"
          - surjective: {layout: sK, codomain: 4096}
          - equal: [sK, sK2]
          - disjoint: {layout: sK, cotarget: 8192}
          - agrees: {layout: tvA, spec: SM80_16x8x16_F32BF16BF16F32_TN, operand: A, params: {}}
          - prove: "bijective(composition(sK, (64,64):(1,64)))"   # layout names are bound
            expect: refuted                  # optional: proved (default) / refuted / unknown
            name: "a label"                  # optional

A claim passes when its verdict equals ``expect``. Errors (bad YAML, schema violations, unparsable layout text,
unknown names, undeclared symbols) are :class:`ManifestError` with file, line and column taken from the YAML
node marks; nothing here prints.
"""
from __future__ import annotations

import functools
import json
import os
import re
import time
from dataclasses import dataclass, field

from . import hardware
from . import prover as P
from .core.parse import as_assumptions, parse
from .errors import CuteVerifyError, ParseError
from .checked import ShapeMismatch, byte_element_hint, checked_agrees, checked_equal  # noqa: F401 - re-exported
from .hardware import agrees
from .manifest_yaml import YamlRefusal, compose
from .messages import user_text

__all__ = ["ManifestError", "Claim", "load", "load_all", "load_text", "run_claim", "run", "exit_code", "junit_xml",
           "agrees_verdict", "checked_agrees", "checked_equal", "byte_element_hint", "ShapeMismatch", "schema"]

KINDS = ("bijective", "injective", "surjective", "equal", "disjoint", "agrees", "prove")
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")


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


# ----------------------------------------------------------------------------------- YAML with marks

def _compose(text: str, file: str):
    """YAML text -> (python data, {path tuple: Mark}), within the budgets of ``manifest_yaml`` (alias bombs,
    alias cycles and deep nesting are refused with their line)."""
    import yaml
    try:
        return compose(text)
    except YamlRefusal as e:
        raise ManifestError(f"YAML refused: {e.reason}", file, e.line, e.column) from None
    except yaml.MarkedYAMLError as e:
        m = e.problem_mark or e.context_mark
        raise ManifestError(f"YAML error: {e.problem or e.context}", file, m.line + 1 if m else None,
                            m.column + 1 if m else None) from None
    except yaml.YAMLError as e:  # pragma: no cover - defensive
        raise ManifestError(f"YAML error: {e}", file) from None
    except RecursionError:  # a nesting the depth budget did not see (e.g. inside one flow scalar)
        raise ManifestError("YAML refused: nested too deeply", file) from None


def _schema_path():
    try:
        from importlib.resources import files
        p = files("cuteverify.spec_data").joinpath("manifest_schema.json")
        if p.is_file():
            return p
    except (ModuleNotFoundError, TypeError):
        pass
    from pathlib import Path
    return Path(__file__).resolve().parent.parent / "specs" / "manifest_schema.json"


@functools.lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(_schema_path().read_text())


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema
    cls = jsonschema.validators.validator_for(schema())
    return cls(schema())


def _where(marks, path):
    path = tuple(path)
    while path not in marks and path:
        path = path[:-1]
    m = marks.get(path)
    return (m.line, m.column) if m else (None, None)


def _validate(doc, marks, file):
    try:
        v = _validator()
    except ImportError:  # jsonschema missing: the structural checks below still run
        return
    errors = sorted(v.iter_errors(doc), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if not errors:
        return
    e = errors[-1]  # the deepest error is the most specific
    if e.validator == "oneOf" and isinstance(e.instance, dict):
        present = [k for k in KINDS if k in e.instance]
        msg = (f"a claim needs exactly one of {', '.join(KINDS)}" if not present
               else f"a claim has more than one kind: {', '.join(present)}")
    elif e.validator == "additionalProperties":
        msg = e.message
    else:
        msg = e.message
    path = list(e.absolute_path)
    where = "/".join(str(p) for p in path) or "(top level)"
    line, col = _where(marks, path)
    raise ManifestError(f"schema: at {where}: {msg}", file, line, col)


# ----------------------------------------------------------------------------------------- claims

@dataclass
class Claim:
    """One claim, self-contained (picklable): it carries its kernel's layouts (text) and assumptions."""

    file: str
    kernel: str
    index: int
    kind: str
    args: dict
    expect: str = "proved"
    name: str = ""
    line: int | None = None
    column: int | None = None
    layouts: dict = field(default_factory=dict)
    assume: tuple = ()

    @property
    def text(self) -> str:
        a = self.args
        if self.kind in ("bijective", "injective"):
            s = f"{self.kind} {a['layout']}"
        elif self.kind == "surjective":
            s = f"surjective {a['layout']}" + (f" onto [0, {a['codomain']})" if a.get("codomain") is not None else "")
        elif self.kind == "equal":
            s = f"equal {a['a']} == {a['b']}"
        elif self.kind == "disjoint":
            s = f"disjoint {a['layout']}" + (f" cotarget {a['cotarget']}" if a.get("cotarget") is not None else "")
        elif self.kind == "agrees":
            p = "".join(f", {k}={v}" for k, v in (a.get("params") or {}).items())
            s = f"agrees {a['layout']} ~ {a['spec']}" + (f" operand {a['operand']}" if a.get("operand") else "") + p
        else:
            s = f"prove {a['claim']}"
        return s

    @property
    def label(self) -> str:
        return self.name or self.text

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    def to_payload(self) -> dict:
        return {"kind": self.kind, "args": self.args, "layouts": self.layouts, "assume": list(self.assume),
                "location": self.location}


def _mark_of(marks, path):
    return marks.get(tuple(path))


def _text_error(pe: ParseError, mark, file, what):
    line = col = None
    if mark is not None:
        line = mark.line
        col = mark.column + (1 if mark.quoted else 0) + max(pe.column - 1, 0)
    return ManifestError(f"cannot parse {what}: expected {pe.expected}\n  {pe.text}\n  {' ' * (pe.column - 1)}^",
                         file, line, col)


class _Kernel:
    """Reads one kernel of a manifest: its assumptions, its named layouts and its claims, each checked where it
    stands so that an error carries the line and column of the offending YAML node."""

    def __init__(self, name, body, marks, file):
        self.name, self.body, self.marks, self.file = str(name), body, marks, file
        self.path = ("kernels", name)
        self.assume = tuple(str(a) for a in (body.get("assume") or []))
        self.symbols = body.get("symbols")
        self.layouts = {str(n): str(t) for n, t in (body.get("layouts") or {}).items()}
        self.asm = self._assumptions()
        self._resolve_aliases()
        for n, t in self.layouts.items():
            self.check_text(t, self.path + ("layouts", n), f"layout {n}")

    def _resolve_aliases(self):
        """A layout whose text is another layout's name is that layout (``B: A``); a name that is neither a
        layout nor a declared symbol is refused (it would silently become a symbolic shape), and so is a
        cycle of names (``{A: B, B: A}``)."""
        for n in list(self.layouts):
            seen = [n]
            t = self.layouts[n].strip()
            while _IDENT.match(t) and t not in (self.symbols or ()):
                if t not in self.layouts:
                    have = ", ".join(x for x in self.layouts if x != n) or "none"
                    raise self.error(f"layout {n} names {t!r}, which is not a layout of this kernel (its layouts: "
                                     f"{have}) nor a declared symbol", self.path + ("layouts", n))
                if t in seen:
                    raise self.error(f"layouts name each other in a cycle: {' -> '.join(seen + [t])}",
                                     self.path + ("layouts", n))
                seen.append(t)
                t = self.layouts[t].strip()
            self.layouts[n] = t

    def error(self, reason, path):
        return ManifestError(reason, self.file, *_where(self.marks, path))

    def _assumptions(self):
        if not self.assume:
            return None
        for i, a in enumerate(self.assume):
            where = self.path + ("assume", i)
            try:
                as_assumptions([a])
            except ParseError as pe:
                raise _text_error(pe, _mark_of(self.marks, where), self.file, "assumption") from None
            except CuteVerifyError as e:
                raise self.error(f"assumption {a!r}: {e}", where) from None
        try:
            asm = _shared_assumptions(self.assume)
            asm.check_consistent()  # a contradiction proves anything: refuse it here, with its line
            return asm
        except CuteVerifyError as e:
            raise self.error(f"assumptions: {e}", self.path + ("assume",)) from None

    def check_text(self, t, path, what):
        """Layout text parses under the kernel's assumptions and uses only its declared symbols."""
        try:
            L = parse(t, assume=self.asm, source=what)
        except ParseError as pe:
            raise _text_error(pe, _mark_of(self.marks, path), self.file, what) from None
        except CuteVerifyError as e:
            raise self.error(f"{what}: {e}", path) from None
        if self.symbols is not None:
            free = sorted(str(s) for s in L.free_symbols()) if hasattr(L, "free_symbols") else []
            extra = [s for s in free if s not in self.symbols]
            if extra:
                raise self.error(f"{what} uses undeclared symbol(s) {', '.join(extra)} "
                                 f"(declared: {', '.join(self.symbols) or 'none'})", path)

    def ref(self, v, path):
        """A layout argument: one of the kernel's names, or inline CuTe text (checked)."""
        v = str(v).strip()
        if v in self.layouts:
            return v
        if _IDENT.match(v):
            have = ", ".join(self.layouts) or "none"
            raise self.error(f"unknown layout name {v!r} (this kernel's layouts: {have})", path)
        self.check_text(v, path, "layout")
        return v

    def _args(self, kind, body, bp):
        ref = self.ref
        if kind in ("bijective", "injective"):
            return {"layout": ref(body, bp)}
        if kind == "surjective":
            if isinstance(body, dict):
                return {"layout": ref(body["layout"], bp + ("layout",)), "codomain": body.get("codomain")}
            return {"layout": ref(body, bp), "codomain": None}
        if kind == "equal":
            if not isinstance(body, list) or len(body) != 2:
                raise self.error("equal takes a list of two layouts", bp)
            return {"a": ref(body[0], bp + (0,)), "b": ref(body[1], bp + (1,))}
        if kind == "disjoint":
            return {"layout": ref(body["layout"], bp + ("layout",)), "cotarget": body.get("cotarget")}
        if kind == "agrees":
            return {"layout": ref(body["layout"], bp + ("layout",)), "spec": str(body["spec"]),
                    "operand": body.get("operand"), "params": dict(body.get("params") or {})}
        if not isinstance(body, str) or not body.strip():
            raise self.error("prove takes the claim text", bp)
        return {"claim": body}

    def claims(self):
        out = []
        for i, c in enumerate(self.body["claims"]):
            cp = self.path + ("claims", i)
            if not isinstance(c, dict):
                raise self.error("a claim is a mapping such as {bijective: NAME}", cp)
            kinds = [x for x in KINDS if x in c]
            if len(kinds) != 1:
                raise self.error(f"a claim needs exactly one of {', '.join(KINDS)}", cp)
            kind = kinds[0]
            args = self._args(kind, c[kind], cp + (kind,))
            m = self.marks.get(cp)
            out.append(Claim(self.file, self.name, i, kind, args, str(c.get("expect", "proved")),
                             str(c.get("name", "")), m.line if m else None, m.column if m else None,
                             self.layouts, self.assume))
        return out


def load_text(text: str, file: str = "<manifest>") -> list:
    """Parse and check a manifest's text; return its claims (:class:`Claim`) in file order.

    Admissible: YAML that satisfies the manifest schema, whose layout texts and assumptions parse, whose names
    resolve within their kernel and whose layouts use only declared symbols. Anything else raises
    ``ManifestError`` with the file, line and column of the offending node."""
    doc, marks = _compose(text, file)
    if doc is None:
        raise ManifestError("empty manifest (expected a mapping with 'kernels')", file, 1, 1)
    if not isinstance(doc, dict):
        raise ManifestError("a manifest is a mapping with 'kernels'", file, *_where(marks, ()))
    _validate(doc, marks, file)
    kernels = doc.get("kernels")
    if not isinstance(kernels, dict) or not kernels:  # also checked without jsonschema
        raise ManifestError("'kernels' must be a non-empty mapping", file, *_where(marks, ("kernels",)))
    claims = []
    for kname, k in kernels.items():
        if not isinstance(k, dict) or not isinstance(k.get("claims"), list):
            raise ManifestError(f"kernel {kname!r} needs a list of claims", file, *_where(marks, ("kernels", kname)))
        claims.extend(_Kernel(kname, k, marks, file).claims())
    return claims


def load(path) -> list:
    """Read and check one manifest file; return its claims."""
    p = os.fspath(path)
    try:
        with open(p, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ManifestError(f"cannot read manifest: {e.strerror or e}", p) from None
    except UnicodeDecodeError as e:
        raise ManifestError(f"not UTF-8 text: {e}", p) from None
    return load_text(text, p)


def load_all(paths) -> tuple:
    """Read and check several manifest files: ``(claims of all of them in order, [ManifestError per
    malformed file])``, so that a front end can report every broken file at once."""
    claims, errors = [], []
    for path in paths:
        try:
            claims.extend(load(path))
        except ManifestError as e:
            errors.append(e)
    return claims, errors


# ---------------------------------------------------------------------------------------- running

@functools.lru_cache(maxsize=256)
def _shared_assumptions(assume: tuple):
    """One ``Assumptions`` object per kernel: shared by its layouts, so an assumption may speak of symbols
    that only some of them use."""
    if not assume:
        return None
    return as_assumptions(list(assume))


@functools.lru_cache(maxsize=4096)
def _parsed(text: str, assume: tuple):
    return parse(text, assume=_shared_assumptions(assume))


def _num(x):
    if x is None or isinstance(x, int):
        return x
    s = str(x).strip()
    return int(s) if re.fullmatch(r"-?\d+", s) else s


def agrees_verdict(layout, spec_name: str, operand=None, **params):
    """``cuteverify.hardware.agrees`` under its older name: proved when the layout agrees with the hardware
    at every (thread, value) / coordinate, refuted with the first disagreement otherwise (a shape mismatch is
    refuted with its reason)."""
    return agrees(layout, spec_name, operand, **params)


def verdict_for(kind: str, args: dict, layouts: dict, assume=()):
    """Run one claim; returns a Verdict. Raises CuteVerifyError (ParseError...) on bad input."""
    assume = tuple(assume)

    def lay(ref):
        return _parsed(layouts.get(ref, ref), assume)

    asm = _shared_assumptions(assume)
    if kind == "bijective":
        return P.is_bijective(lay(args["layout"]), assume=asm)
    if kind == "injective":
        return P.is_injective(lay(args["layout"]), assume=asm)
    if kind == "surjective":
        return P.is_surjective(lay(args["layout"]), _num(args.get("codomain")), assume=asm)
    if kind == "equal":
        return checked_equal(lay(args["a"]), lay(args["b"]), assume=asm)
    if kind == "disjoint":
        return P.complement_disjoint(lay(args["layout"]), _num(args.get("cotarget")), assume=asm)
    if kind == "agrees":
        return checked_agrees(lay(args["layout"]), args["spec"], args.get("operand"), **(args.get("params") or {}))
    if kind == "prove":
        text = args["claim"]
        words = set(re.findall(r"[A-Za-z_]\w*", text))
        bindings = {n: lay(n) for n in layouts if n in words}
        return P.prove(text, assume=asm, **bindings)
    raise ManifestError(f"unknown claim kind {kind!r} (one of {', '.join(KINDS)})")


def run_claim(payload: dict) -> dict:
    """Run one claim payload (``Claim.to_payload()``); never raises. Returns a JSON-able result whose status is
    the verdict's, ``unknown`` for an undecided question, or ``error`` with ``error_kind`` ``input`` (bad text,
    unknown spec, contradictory assumptions) or ``internal`` (a procedure's limit or a bug: it must not end a
    run of many claims, but the run exits 4, docs/model.md section 8)."""
    t0 = time.perf_counter()
    where = payload.get("location", "")
    try:
        v = verdict_for(payload["kind"], payload["args"], payload["layouts"], payload.get("assume", ()))
    except CuteVerifyError as e:
        if e.kind == "undecided":
            return {"status": "unknown", "reason": f"{where}: {e}", "elapsed": time.perf_counter() - t0}
        kind = "input" if e.kind in ("input", "refuted") else "internal"
        text = user_text(e)
        reason = f"{where}: {text}" if kind == "input" else f"{where}: internal error: {type(e).__name__}: {text}"
        return {"status": "error", "error_kind": kind, "reason": reason, "elapsed": time.perf_counter() - t0}
    except (RecursionError, MemoryError) as e:
        return {"status": "error", "error_kind": "internal",
                "reason": f"{where}: internal error: {type(e).__name__} (the input is too large or too deep)",
                "elapsed": time.perf_counter() - t0}
    except Exception as e:  # noqa: BLE001 - see the docstring
        return {"status": "error", "error_kind": "internal",
                "reason": f"{where}: internal error: {type(e).__name__}: {str(e)[:300]}",
                "elapsed": time.perf_counter() - t0}
    cex = v.counterexample
    cex_text = str(cex) if cex is not None else None
    return {"status": v.status, "method": v.method, "verdict": v.claim, "counterexample": cex_text,
            "counterexample_data": cex.to_dict() if cex is not None and hasattr(cex, "to_dict") else None,
            "reason": v.reason if v.reason != cex_text else None,  # said once, as the counterexample
            "obligations": [str(o) for o in v.obligations],
            "elapsed": time.perf_counter() - t0}


def _result(claim: Claim, r: dict) -> dict:
    out = {"file": claim.file, "kernel": claim.kernel, "index": claim.index, "line": claim.line,
           "claim": claim.label, "kind": claim.kind, "expect": claim.expect}
    out.update(r)
    out["ok"] = r["status"] == claim.expect
    return out


def _chunks(seq, n):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def _run_batch(payloads):
    return [run_claim(p) for p in payloads]


def run(claims: list, jobs: int = 1, progress=None) -> list:
    """Run claims (in ``jobs`` processes when > 1); ``progress(done, total)`` is called as results arrive.
    Returns one result dict per claim, in order."""
    n = len(claims)
    payloads = [c.to_payload() for c in claims]
    results: list = []
    if jobs <= 1 or n <= 1:
        for i, p in enumerate(payloads):
            results.append(run_claim(p))
            if progress:
                progress(i + 1, n)
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor
        if any(c.kind == "agrees" for c in claims):
            try:  # load and self-check the spec library once; forked workers inherit it
                hardware.default_library()
            except Exception:  # noqa: BLE001 - the workers report it per claim
                pass
        try:
            ctx = mp.get_context("fork")
        except ValueError:  # pragma: no cover - platforms without fork
            ctx = mp.get_context()
        size = max(1, min(64, n // (jobs * 4) or 1))
        batches = list(_chunks(payloads, size))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as ex:
            for batch in ex.map(_run_batch, batches):
                results.extend(batch)
                if progress:
                    progress(len(results), n)
    return [_result(c, r) for c, r in zip(claims, results)]


def exit_code(results: list) -> int:
    """0 all claims as expected; 4 a claim failed inside cuteverify (``error_kind: internal``); 2 an input
    error; 1 a claim refuted against expectation (or proved when it was expected to be refuted); 3 otherwise
    (only unknowns). A bug outranks everything: no verdict of that run is to be trusted blindly."""
    bad = [r for r in results if not r["ok"]]
    if not bad:
        return 0
    errors = [r for r in bad if r["status"] == "error"]
    if any(r.get("error_kind") == "internal" for r in errors):
        return 4
    if errors:
        return 2
    if any(r["status"] in ("refuted", "proved") for r in bad):
        return 1
    return 3


def junit_xml(results: list, elapsed: float | None = None, report: str | None = None) -> str:
    """JUnit XML: a testsuite per manifest file, a testcase per claim. With ``report`` (the HTML page's path or
    URL), the testsuites carry a ``report`` property and each testcase one linking to its claim's anchor."""
    import xml.etree.ElementTree as ET
    root = ET.Element("testsuites", name="cuteverify")
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
            tc = ET.SubElement(s, "testcase", classname=r["kernel"], name=r["claim"],
                               file=r["file"], line=str(r.get("line") or 0), time=f"{r.get('elapsed', 0.0):.6f}")
            if report:
                props = ET.SubElement(tc, "properties")
                ET.SubElement(props, "property", name="report", value=f"{report}#claim-{r['_index']}")
            if r["ok"]:
                continue
            detail = _detail(r)
            tag = "error" if r["status"] == "error" else "failure"
            el = ET.SubElement(tc, tag, type=r.get("error_kind", r["status"]),
                               message=f"expected {r['expect']}, got {r['status']}")
            el.text = detail
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _detail(r: dict) -> str:
    lines = []
    if r.get("counterexample"):
        lines.append(f"counterexample: {r['counterexample']}")
    if r.get("reason"):
        lines.append(f"reason: {r['reason']}")
    for o in r.get("obligations") or ():
        lines.append(f"obligation: {o}")
    return "\n".join(lines)
