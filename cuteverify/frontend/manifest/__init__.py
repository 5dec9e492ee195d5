"""Kernel manifests: YAML files that name a kernel's layouts and the claims cuteverify proves about them.

Format (JSON Schema: ``specs/manifest_schema.json``, shipped as ``cuteverify.spec_data/manifest_schema.json``)::

    version: 1
    kernels:
      sgemm_sm80:                            # a kernel
        symbols: [M, K]                      # optional: the symbols its layouts may use
        assume: ["M % 128 == 0"]             # optional: assumptions on them
        layouts:                             # named entries: CuTe text or expressions (below)
          sA: "S<3,3,3> o 0 o (8,64):(64,1)"
          tiled_mma: make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN, (2,2,1), (32,32,16))
          tvA: tiled_mma.tv_layout_A_tiled
          s2r_A: make_tiled_copy_A(SM75_U32x4_LDSM_N, tiled_mma, f16)
          g2s_A: make_tiled_copy_tv(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, (16,8):(8,1), (1,8), f16)
          sAtile: tile_to_shape(sA, (128,64,3))
        claims:
          - bijective: sA                    # a layout name or inline text / expression
          - injective: "(4,8):(1,4)"
          - surjective: {layout: sA, codomain: 512}
          - equal: [sA, sA2]
          - disjoint: {layout: sA, cotarget: 8192}
          - agrees: {layout: tvA, spec: SM80_16x8x16_F32BF16BF16F32_TN, operand: A, params: {}}
          - agrees: {tiled_mma: tiled_mma, operand: A}          # layout: defaults to its tv_layout_A_tiled
          - agrees: {layout: tvA, tiled_mma: tiled_mma, operand: A}
          - agrees: {layout: tvA, spec: SM80_16x8x16_F16F16F16F16_TN, operand: A,
                     atom_layout: "(2,2,1)", permutation: "(32,32,16)"}
          - covers: {tiled_mma: tiled_mma, operand: C}          # or {layout: tv, tile: 2048 | "(128,16)"}
          - covers: {tiled_copy: g2s_A}                         # side: src | dst (default: the register side)
          - compatible: {copy: s2r_A, tiled_mma: tiled_mma, operand: A}
          - banks: {smem: sA, copy: s2r_A, dtype: f16}          # or access: TV layout (tile); vector, phases, base
          - vector: {copy: g2s_A, smem: sA, dtype: f16, require: 16}   # or layout:; alignment, flat
          - tma: {dtype: bf16, shape: "(K,M)", stride: "(1,K)", box: "(64,128)", swizzle: 128B}
          - tma: {dtype: bf16, gmem: "(M,K):(K,1)", smem: sA, multicast: 2, cta_tiler: "(128,64)"}
          - operand: {tiled_mma: wgmma, operand: B, smem: sB}   # wgmma: an SS atom named with its majors
          - prove: "bijective(composition(sA, (8,64):(1,8)))"   # layout names are bound
            expect: refuted                  # optional: proved (default) / refuted / unknown
            name: "a label"                  # optional

Layout entries (``cuteverify.frontend.manifest.expr``): CuTe text; an algebra call of the ``cuteverify algebra`` verb
(``tile_to_shape(sA, (128,64,3))``, ``composition(S<3,3,3>, (8,64):(64,1))``); a call of the atom layer
(``make_tiled_mma``, ``make_mma_atom``, ``make_copy_atom``, ``make_tiled_copy``, ``make_tiled_copy_tv``,
``make_tiled_copy_A/B/C/C_atom/S/D``, ``make_layout_tv``, ``local_tile``, ``local_partition``, ``fragment_like``, with
CuTe DSL's argument order and keywords: ``make_tiled_mma(ATOM, atom_layout_mnk=(2,2,1))``); another entry's
name, with attributes, methods and indexing (``tiled_mma.tv_layout_C_tiled``, ``tiled_mma.get_slice(0)
.partition_A(sA).layout``, ``make_layout_tv((4,8), (1,8))[1]``). Spec and dtype names are bare identifiers
where a function takes one (``atom``, ``op``, ``dtype``); ``_`` is CuTe's underscore; tuples nest and may hold
layouts (``(32,(8,2,2):(1,16,8),16)``). Entries resolve in dependency order; a cycle or an unknown name is an
error at the entry's line. Declared ``symbols:`` stay symbols; an undeclared bare name in a call is an error.

Claim kinds: ``bijective`` / ``injective`` / ``surjective`` / ``equal`` / ``disjoint`` / ``prove`` (the prover);
``agrees`` (a layout equals the hardware's: with ``spec`` a plain atom, and a layout whose thread count is not
the atom's is an input error, never refuted; with ``tiled_mma`` (or ``atom_layout`` / ``permutation``) atom by
atom through ``atoms.agrees_tiled``, the counterexample naming atom, thread, value and both elements);
``covers`` (every element of the tile held exactly once up to the thread broadcast: ``atoms.covers``;
counterexample: the element and the (thread, value) pairs); ``compatible`` (per thread, the copy's register
side holds the MMA fragment's elements: ``atoms.compatible_tv``; counterexample: thread and element);
``banks`` (conflict-free through ``smem``: ``analysis.bank_conflicts``, fields as ``cuteverify banks``:
``dtype``/``elem_bytes``, ``vector`` (bytes), ``phases`` (1, 2, 4, 8 or ldmatrix; a copy of ldmatrix /
stmatrix defaults to ldmatrix), ``base`` (bytes); counterexample: two threads, their elements and the bank);
``vector`` (every thread's values are ``require``-byte vectors: ``analysis.max_vector_width``, fields as
``cuteverify vector``; counterexample: the thread); ``tma`` (``cuTensorMapEncodeTiled`` accepts the
descriptor for every value of the symbols: fields as ``cuteverify tma``, explicit (``shape``, ``stride``,
``box``, ``element_strides``, ``swizzle``, ``interleave``, ``l2_promotion``, ``oob_fill``, ``address``) or
derived from a copy (``gmem``, ``smem``, ``multicast``, ``smem_align``, ``cta_tiler``); ``arch``). ``banks`` /
``vector`` take ``access`` / ``layout`` or ``copy`` (the copy's shared-memory side: ``side`` src / dst, by default
the side that is not registers), placed over ``smem`` tile by tile as ``partition_S/D`` places it (a copy by its
tiler, with its atom's width and value type; a TV layout by ``tile``, needed unless it indexes all of ``smem``;
shapes that cannot be related are an input error; a ``cp.async`` copy's ``banks`` with ``gmem``, the global tile it
reads, also counts its 128-byte rows per phase: ``analysis.cp_async_banks``); ``triton`` (a TTGIR layout ``attr``
on a tensor ``shape`` holds the same elements
in every thread as a CuTe ``layout`` (TV, or smem for a shared attribute; ``tile``), a ``tiled_mma``'s or a
``spec``'s ``operand``; ``exact``: the same function: ``triton.prove_triton_equals``; counterexample: lane, warp,
register and both elements); ``smem_optimal`` (the ``smem`` layout of a ``tile`` scores as well as the optimum of
the synthesis space for its ``writes`` / ``reads`` (tiled-copy entries or access text forms) and is legal for
each ``require``: ``synth.prove_smem_optimal``; counterexample: the objective term and the better layout);
``operand`` (each k-block of ``partition_A/B(smem)`` is read by the wgmma / UMMA descriptor of the declared major,
``<GMMA::Major::K,GMMA::Major::MN>`` / ``a_major`` / ``major``: ``atoms.operand_desc``; counterexample: block,
thread, element, cause), also implied by each entry ``M.get_slice(t).partition_A(S)`` (``_B``,
``partition_fragment_A/B``) naming such a tiled MMA and a layout (``operand.implicit_claims``).

A claim passes when its verdict equals ``expect``. Errors (bad YAML, schema violations, unparsable layout text,
unknown names, cycles, undeclared symbols, an entry of the wrong kind) are :class:`ManifestError` with file,
line and column taken from the YAML node marks; nothing here prints. Modules: this one (loading, the schema,
running), ``kernel`` (one kernel's entries and claims, read into evaluated values), ``expr`` (layout expressions),
``claims`` (the registry of claim kinds: each kind's schema fragment, reader, text and procedure, defined in
``claims_layout`` / ``claims_atoms`` / ``claims_smem`` / ``operand`` on ``kind``), ``yaml_guard``, ``cache``,
``junit``, ``report``.

May import: every layer below the front ends, ``draw`` and the rest of ``frontend``.
"""
from __future__ import annotations

import functools
import json
import os
import re
import time

from ... import prover as P  # noqa: F401 - the module whose procedures the claims call (tests patch it here)
from ..checked import byte_element_hint, checked_agrees, checked_equal  # noqa: F401 - re-exported
from ...errors import CuteVerifyError, ManifestError, YamlRefusal
from . import cache as manifest_cache
from .claims import KINDS, claim_schema, decide_args, register
from . import claims_trace_tma  # noqa: F401 - registers the tma_atom kind (claims.register)
from . import claims_trace_smem  # noqa: F401 - registers the trace placement kinds
from .junit import junit_xml  # noqa: F401 - re-exported
from .kernel import Claim, KernelReader, where
from .yaml_guard import compose
from ..messages import user_text

__all__ = ["ManifestError", "Claim", "load", "load_all", "load_text", "run_claim", "run", "check_files",
           "load_error_result", "exit_code", "junit_xml",
           "checked_agrees", "checked_equal", "byte_element_hint", "schema",
           "KINDS", "register", "decide", "full_schema"]

# a manifest that builds atoms or checks agreement needs the spec library (loaded once, checked per spec used)
_NAMES_SPECS = re.compile(r"\bagrees\b|\bmake_\w+\s*\(")


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
def _shipped() -> dict:
    return json.loads(_schema_path().read_text())


def full_schema() -> dict:
    """The manifest's JSON schema: the shipped file's (``specs/manifest_schema.json``) with its claim part
    (``$defs/claim``) built from the registry (``claims.claim_schema``), so that a registered kind validates.
    The shipped file equals it for the kinds cuteverify ships (tests/test_claim_registry.py)."""
    out = dict(_shipped())
    out["$defs"] = {**out["$defs"], "claim": claim_schema()}
    return out


@functools.lru_cache(maxsize=4)
def _schema_for(kinds: tuple) -> tuple:
    # keyed by the registered kinds: (schema, its text)
    s = full_schema()
    return s, json.dumps(s, sort_keys=True)


@functools.lru_cache(maxsize=4)
def _validator_for(kinds: tuple):
    # built only when a manifest is validated (jsonschema takes a while to import): None without jsonschema
    try:
        import jsonschema
    except ImportError:
        return None
    s = _schema_for(kinds)[0]
    return jsonschema.validators.validator_for(s)(s)


def _registered() -> tuple:
    return tuple(KINDS.values())


def schema() -> dict:
    """The manifest's JSON schema for the kinds registered now (:func:`full_schema`)."""
    return _schema_for(_registered())[0]


def _schema_text() -> str:
    return _schema_for(_registered())[1]



def _validate(doc, marks, file):
    v = _validator_for(_registered())
    if v is None:  # jsonschema missing: the structural checks below still run
        return False
    errors = sorted(v.iter_errors(doc), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if not errors:
        return True
    e = errors[-1]  # the deepest error is the most specific
    path = list(e.absolute_path)
    if e.validator == "oneOf" and isinstance(e.instance, dict) and path and isinstance(path[-1], int):
        present = [k for k in KINDS if k in e.instance]
        msg = (f"a claim needs exactly one of {', '.join(KINDS)}" if not present
               else f"a claim has more than one kind: {', '.join(present)}")
    elif e.validator == "oneOf" and isinstance(e.instance, dict):
        forms = [" + ".join(f["required"]) for f in e.validator_value if "required" in f]
        msg = f"{path[-1]} takes one of: {'; '.join(forms)} (got {', '.join(map(str, e.instance)) or 'nothing'})"
    else:
        msg = e.message
    at = "/".join(str(p) for p in path) or "(top level)"
    line, col = where(marks, path)
    raise ManifestError(f"schema: at {at}: {msg}", file, line, col)



def load_text(text: str, file: str = "<manifest>", remember: bool = False) -> list:
    """Parse and check a manifest's text; return its claims (:class:`Claim`) in file order.

    Admissible: YAML that satisfies the manifest schema, whose layout texts and assumptions parse, whose names
    resolve within their kernel and whose layouts use only declared symbols. Anything else raises
    ``ManifestError`` with the file, line and column of the offending node. ``remember``: skip the JSON-schema
    validation of a text that passed it before and remember one that passes (``manifest_cache``; ``load``
    does this for files)."""
    doc, marks = _compose(text, file)
    if doc is None:
        raise ManifestError("empty manifest (expected a mapping with 'kernels')", file, 1, 1)
    if not isinstance(doc, dict):
        raise ManifestError("a manifest is a mapping with 'kernels'", file, *where(marks, ()))
    if not (remember and manifest_cache.known_valid(_schema_text(), text)):
        if _validate(doc, marks, file) and remember:
            manifest_cache.remember_valid(_schema_text(), text)
    if _NAMES_SPECS.search(text):
        try:
            manifest_cache.default_library()
        except CuteVerifyError:  # a broken spec library: the claims and builders that need it report it
            pass
    kernels = doc.get("kernels")
    if not isinstance(kernels, dict) or not kernels:  # also checked without jsonschema
        raise ManifestError("'kernels' must be a non-empty mapping", file, *where(marks, ("kernels",)))
    claims = []
    for kname, k in kernels.items():
        if not isinstance(k, dict) or not isinstance(k.get("claims"), list):
            raise ManifestError(f"kernel {kname!r} needs a list of claims", file, *where(marks, ("kernels", kname)))
        claims.extend(KernelReader(kname, k, marks, file).claims())
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
    return load_text(text, p, remember=True)


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


def load_error_result(e: ManifestError, path=None) -> dict:
    """A manifest that cannot be loaded as one result row of kind ``load``: status ``error``, ``error_kind``
    ``input``, its file, line, column and reason; it is never ``ok`` (``exit_code`` counts it as an input
    error)."""
    return {"file": e.file or os.fspath(path or "<manifest>"), "kernel": "", "index": None, "line": e.line,
            "column": e.column, "claim": "(manifest not loaded)", "kind": "load", "expect": "-", "status": "error",
            "error_kind": "input", "reason": e.reason, "elapsed": 0.0, "ok": False}


def check_files(paths, jobs: int = 1, progress=None) -> tuple:
    """Load every manifest of ``paths`` and run the claims of those that load: ``(results, claims)`` in file
    order, ``claims[i]`` the ``Claim`` of ``results[i]`` or ``None`` for a file's load failure (one
    :func:`load_error_result` row where that file's claims would be). One broken file never hides another
    file's verdicts; ``exit_code(results)`` is the worst over all files."""
    per_file = []
    for path in paths:
        try:
            per_file.append(load(path))
        except ManifestError as e:
            per_file.append(e)
    ran = iter(run([c for x in per_file if isinstance(x, list) for c in x], jobs=jobs, progress=progress))
    results, claims = [], []
    for path, x in zip(paths, per_file):
        if isinstance(x, ManifestError):
            results.append(load_error_result(x, path))
            claims.append(None)
            continue
        for c in x:
            results.append(next(ran))
            claims.append(c)
    return results, claims


# ---------------------------------------------------------------------------------------- running

def decide(claim: Claim):
    """The ``Verdict`` of one loaded claim: its kind's procedure on its evaluated arguments under its kernel's
    assumptions. Raises ``CuteVerifyError`` on input that cannot be decided (:func:`run_claim` reports it)."""
    return decide_args(claim.kind, claim.args, claim.assumptions)


def run_claim(claim: Claim) -> dict:
    """Run one loaded claim; never raises. Returns a JSON-able result whose status is the verdict's, ``unknown``
    for an undecided question, or ``error`` with ``error_kind`` ``input`` (bad text, unknown spec, contradictory
    assumptions) or ``internal`` (a procedure's limit or a bug: it must not end a run of many claims, but the run
    exits 4, docs/model.md section 8)."""
    t0 = time.perf_counter()
    where = claim.location
    try:
        v = decide(claim)
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
    return dict(v.to_json(), elapsed=time.perf_counter() - t0)  # the one JSON form of a verdict


def _result(claim: Claim, r: dict) -> dict:
    out = {"file": claim.file, "kernel": claim.kernel, "index": claim.index, "line": claim.line,
           "claim": claim.label, "kind": claim.kind, "expect": claim.expect}
    if claim.at:
        out["at"] = claim.at
    out.update(r)
    out["ok"] = r["status"] == claim.expect
    return out


def _chunks(seq, n):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def _run_batch(claims):
    return [run_claim(c) for c in claims]


def run(claims: list, jobs: int = 1, progress=None) -> list:
    """Run claims (in ``jobs`` processes when > 1: each gets batches of claims, pickled with their values);
    ``progress(done, total)`` is called as results arrive. Returns one result dict per claim, in order."""
    n = len(claims)
    results: list = []
    if jobs <= 1 or n <= 1:
        for i, c in enumerate(claims):
            results.append(run_claim(c))
            if progress:
                progress(i + 1, n)
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor
        if any(c.kind == "agrees" for c in claims):
            try:  # load the spec library once; forked workers inherit it
                manifest_cache.default_library()
            except Exception:  # noqa: BLE001 - the workers report it per claim
                pass
        try:
            ctx = mp.get_context("fork")
        except ValueError:  # pragma: no cover - platforms without fork
            ctx = mp.get_context()
        size = max(1, min(64, n // (jobs * 4) or 1))
        batches = list(_chunks(claims, size))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as ex:
            for batch in ex.map(_run_batch, batches):
                results.extend(batch)
                if progress:
                    progress(len(results), n)
    return [_result(c, r) for c, r in zip(claims, results)]


def exit_code(results: list) -> int:
    """The worst outcome of the rows, in the order 4 > 2 > 1 > 3 > 0: 4 a claim failed inside cuteverify
    (``error_kind: internal``); 2 an input error (a claim's, or a manifest that did not load); 1 a claim
    refuted against expectation (or proved when it was expected to be refuted); 3 otherwise (only unknowns);
    0 all as expected. A bug outranks everything (no verdict of that run is to be trusted blindly); something
    left unchecked (2) outranks a definite failure (1), which outranks an undecided claim (3)."""
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
