"""``trace check``: every object of a CuTe DSL capture mapped to manifest claims and checked (docs/model.md
section 10.1).

:func:`document` reads one capture (:mod:`.mlir`), checks its DSL version against the versions the reader
knows, lists every type it does not know, and lets each emitter of :data:`EMITTERS` add the entries and claims
of its area to a :class:`~.document.Doc`. :func:`check_captures` loads each document's YAML with the manifest
loader and runs its claims (one mechanism with ``cuteverify check``), adding one ``unknown`` row per construct
no emitter mapped, so that nothing captured is skipped silently: a capture whose every object mapped and whose
every claim proved exits 0; an unmapped construct alone exits 3. A construct with nothing to check (a
register-side partition taken for its shape) is a ``n/a`` row with its reason.
"""
from __future__ import annotations

import re
from pathlib import Path

from ...errors import CaptureError, CuteVerifyError, ManifestError
from .. import manifest as mf
from . import emit_algebra, emit_copy, emit_mma, emit_smem, emit_tma
from .document import Doc
from .mlir import Loc, TypeExpr, read_file

__all__ = ["EMITTERS", "KNOWN_DSL", "capture_paths", "check_captures", "document", "note_row", "run_documents",
           "unmapped_row"]

#: the emitters, in order; each ``emit(module, doc)`` adds the claims of its area
EMITTERS: tuple = (emit_mma.emit, emit_copy.emit, emit_tma.emit, emit_smem.emit, emit_algebra.emit)

#: DSL versions whose captures the reader was built and tested on
KNOWN_DSL = ("4.8.1",)
#: type names whose values carry nothing to check by themselves (indices, scalars, tuples, iterators, the
#: executable forms of atoms whose construction ops the emitters check)
VALUE_TYPES = frozenset({
    "S", "align", "index", "vector", "llvm.ptr", "cuda.launch_cfg", "cuda.result", "cuda.stream",
    "cute.arith_tuple_iter", "cute.coord", "cute.coord_tensor", "cute.fast_divmod_divisor", "cute.i32", "cute.i64",
    "cute.int_tuple", "cute.shape", "cute.stride", "cute.tile", "cute.swizzle", "cute.ptr",
    "cute_nvgpu.smem_desc", "cute_nvgpu.atom.tma_load", "cute_nvgpu.atom.tma_store",
})
#: type names an emitter maps (an object the checks cover)
OBJECT_TYPES = frozenset({
    "cute.layout", "cute.composed_layout", "cute.memref", "cute.tiled_copy", "cute.tiled_mma",
    "cute_nvgpu.atom.non_exec_tiled_tma_load", "cute_nvgpu.atom.non_exec_tiled_tma_store",
    "cute_nvgpu.smem_desc_view", "cute_nvgpu.atom.ldsm", "cute_nvgpu.atom.stsm", "cute_nvgpu.atom.simt_async_copy",
    "cute_nvgpu.atom.universal_copy", "cute_nvgpu.atom.universal_fma", "cute_nvgpu.atom.tmem_load",
    "cute_nvgpu.atom.tmem_store", "cute_nvgpu.sm80.mma", "cute_nvgpu.sm90.mma", "cute_nvgpu.sm100.mma",
})
_SCALAR = re.compile(r"^(?:[iuf]\d+|bf16|tf32|f8\w*|f6\w*|f4\w*)$")


def capture_paths(paths) -> list:
    """The capture files named by ``paths``: files as given, directories searched for ``*.mlir`` and
    ``*.mlir.gz`` (sorted). A path that does not exist, or a directory without captures, is a CaptureError."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted([*p.glob("*.mlir"), *p.glob("*.mlir.gz")])
            if not found:
                raise CaptureError(f"{p}: no capture (*.mlir, *.mlir.gz) in this directory")
            out += found
        elif p.exists():
            out.append(p)
        else:
            raise CaptureError(f"{p}: no such capture file or directory")
    return out


def kernel_name(path: Path) -> str:
    """The capture's kernel name: its file name without ``.mlir`` / ``.mlir.gz``, and without the argument
    signature the DSL appends to a function's name (``cutlass_gemm_FakeTensorFloat16div8...`` -> ``gemm``)."""
    name = path.name
    for ext in (".gz", ".mlir"):
        name = name[: -len(ext)] if name.endswith(ext) else name
    name = re.sub(r"^cutlass_+(?:call_+)?", "", name)
    name = re.split(r"_+(?:object_at|FakeTensor|tensorptr|Tensor_)", name)[0]
    return re.sub(r"\W+", "_", name) or "kernel"


def document(path) -> Doc:
    """The manifest document of the capture at ``path``: version gate, unknown types, every emitter's claims."""
    path = Path(path)
    module = read_file(path)
    doc = Doc(kernel_name(path), str(path), module.header)
    _gate_version(module.header, doc)
    if module.ops and not any(op.loc.file for op in module.ops if op.name.startswith("cute")):
        doc.unknown("source locations", Loc(doc.source), "no op of the capture names its source line (traced "
                    "without CUTE_DSL_LINEINFO=1; `cuteverify trace capture` sets it): findings cannot say where "
                    "the kernel built their objects")
    _unknown_types(module, doc)
    for emit in EMITTERS:
        emit(module, doc)
    return doc


def _gate_version(header: dict, doc: Doc) -> None:
    dsl = header.get("dsl")
    where = Loc(doc.source)
    if dsl is None:
        doc.unknown("capture header", where, "no `// cuteverify-capture:` header, so the DSL version is not "
                    f"recorded; read as {KNOWN_DSL[-1]} (capture with `cuteverify trace capture` to record it)")
    elif dsl not in KNOWN_DSL:
        doc.unknown(f"DSL {dsl}", where, f"captured with nvidia-cutlass-dsl {dsl}; the reader knows "
                    f"{', '.join(KNOWN_DSL)}: its types may print differently")


def _unknown_types(module, doc: Doc) -> None:
    seen = set()
    for op in module.ops:
        for t in op.in_types + op.out_types:
            for name in _names(t):
                if name in seen:
                    continue
                seen.add(name)
                if name not in VALUE_TYPES and name not in OBJECT_TYPES and not _SCALAR.match(name):
                    doc.unknown(f"type {name}", op.loc, "a type cuteverify's trace reader does not know "
                                f"(first at `{op.name}`)")


def _names(t):
    if isinstance(t, TypeExpr):
        yield t.name
        for a in t.args:
            yield from _names(getattr(a, "value", a))
    elif isinstance(t, tuple):
        for a in t:
            yield from _names(a)


def unmapped_row(doc: Doc, u) -> dict:
    """A construct no emitter mapped, as a result row of status ``unknown`` (exit 3 when nothing is worse)."""
    return {"file": doc.source, "kernel": doc.kernel, "index": None, "line": None, "claim": u.what,
            "kind": "unmapped", "expect": "proved", "status": "unknown", "reason": u.why, "at": u.loc.describe(),
            "elapsed": 0.0, "ok": False}


def note_row(doc: Doc, u) -> dict:
    """A construct with nothing to check (:meth:`Doc.note`), as a result row of status ``n/a``: shown, never
    a failure."""
    return dict(unmapped_row(doc, u), kind="note", status="n/a", expect="n/a", ok=True)


def check_captures(paths, jobs: int = 1, progress=None) -> tuple:
    """Check every capture of ``paths`` (:func:`capture_paths`): ``(results, claims, docs)`` with one result row
    per claim (``claims[i]`` its Claim, None for the unmapped and error rows) in capture order. A capture that
    cannot be read is one error row naming it; the others still run."""
    per = []
    for p in capture_paths(paths):
        try:
            per.append((str(p), document(p)))
        except CuteVerifyError as e:
            per.append((str(p), e))
    results, claims = run_documents(per, jobs, progress)
    return results, claims, [d for _, d in per if isinstance(d, Doc)]


def run_documents(per, jobs: int = 1, progress=None) -> tuple:
    """Load and run the documents of ``per`` (``(source, Doc)``, or ``(source, error)`` for one that could not be
    built: an input error row) in one batch: ``(results, claims)``, each document's claim rows, then its unmapped
    and ``n/a`` rows. A generated manifest that does not load is an internal error row (cuteverify's bug)."""
    loaded = []
    for source, doc in per:
        if not isinstance(doc, Doc):
            loaded.append((source, None, doc, []))
            continue
        try:
            loaded.append((source, doc, None, mf.load_text(doc.yaml(), doc.source or source) if doc.claims else []))
        except ManifestError as e:
            loaded.append((source, doc, CuteVerifyError(f"the manifest generated from {source} does not load: {e}"),
                           []))
    ran = iter(mf.run([c for *_, cs in loaded for c in cs], jobs=jobs, progress=progress))
    results, out_claims = [], []
    for source, doc, err, claims in loaded:
        if err is not None:
            results.append({"file": source, "kernel": doc.kernel if doc else "", "index": None, "line": None,
                            "claim": "(not checked)", "kind": "load", "expect": "-", "status": "error",
                            "error_kind": "internal" if doc is not None else "input", "reason": str(err),
                            "elapsed": 0.0, "ok": False})
            out_claims.append(None)
            continue
        for c in claims:
            results.append(next(ran))
            out_claims.append(c)
        for u in doc.unknowns:
            results.append(unmapped_row(doc, u))
            out_claims.append(None)
        for u in doc.notes:
            results.append(note_row(doc, u))
            out_claims.append(None)
    return results, out_claims
