"""The spec library: spec files read into a :class:`~cuteverify.hardware.spec.Library`, self-checked, and the
default library of a process (the shipped files plus the search path); name resolution with short names.
"""
from __future__ import annotations

import re

from ..core.scan import ALL, split_top
from ..errors import FormulaError, SpecError, UnknownSpec
from . import formula as _fm
from . import tables
from .dtypes import dtype_bits
from .loader import line_of, read_spec_document, shipped_dir, spec_sources
from .selfcheck import self_check
from .spec import TV_VARS, Library, Spec, operand_formulas

__all__ = ["load_file", "load", "default_library", "reload", "get", "names", "resolve", "resolve_instance",
           "family_name"]


def load_file(text: str, file: str, validate: bool = True) -> list:
    """Parse one spec file's text into :class:`Spec` objects (schema + formulas; no self-check).

    Raises :class:`SpecError` (kind ``input``) naming ``file`` and the line for anything malformed.
    ``validate=False`` skips the JSON-schema pass and defers parsing the formulas to the self-check (shipped
    files under a lazy load, see :func:`load`)."""
    doc = read_spec_document(text, file, validate)
    try:
        helpers = _fm.resolve_helpers(doc.get("helpers") or {}, TV_VARS)
    except FormulaError as e:
        key = next((k for k, v in doc["helpers"].items() if str(v) == e.text), None)
        raise SpecError(f"helpers: {e}", file, line_of(doc["helpers"], key)) from None
    specs = []
    for name, data in doc["specs"].items():
        spec = Spec(name, data, file, line_of(doc["specs"], name), helpers)
        for op in spec.operands if validate else ():  # a trusted file's formulas parse at the self-check
            if spec.kind != "swizzle" or op == "swizzle":
                operand_formulas(spec, op)
        specs.append(spec)
    return specs


def load(paths=None, *, shipped: bool | None = None, check: bool | str = True) -> Library:
    """Load spec files and return a :class:`Library`.

    ``paths=None`` loads the shipped library plus :data:`SEARCH_PATH` and ``$CUTEVERIFY_SPEC_PATH``
    (directories of ``*.yaml``, or files).  With explicit ``paths`` only those are read unless
    ``shipped=True``.  ``check`` runs :func:`self_check` on every spec; ``check="lazy"`` runs it on each spec
the first time the library hands it out (``Library.__getitem__``).  Raises :class:`SpecError` for a file
    that cannot be read or is malformed (kind ``input``), :class:`SpecInconsistent` for a spec whose self-check
    fails (kind ``refuted``).
    """
    specs: dict = {}
    files = []
    # a lazy load trusts the shipped files' schema (an eager load, as `spec check` and the tests make,
    # validates them); a user's file is always validated
    shipped_root = str(shipped_dir()) if check == "lazy" else None
    for src in spec_sources(paths, shipped):
        name = str(src)
        try:
            text = src.read_text()
        except OSError as e:
            raise SpecError(f"cannot read spec file: {e}", name) from None
        files.append(name)
        trusted = shipped_root is not None and name.startswith(shipped_root)
        for spec in load_file(text, name, validate=not trusted):
            if spec.name in specs:
                other = specs[spec.name]
                raise SpecError(f"duplicate spec name (also at {other.file}:{other.line})", name, spec.line,
                                spec.name)
            specs[spec.name] = spec
    if check == "lazy":
        return Library(specs, files, checker=self_check)
    if check:
        for spec in specs.values():
            self_check(spec)
    return Library(specs, files)


_DEFAULT: list = []


def default_library() -> Library:
    """The shipped + search-path library, loaded once per process; each spec is self-checked the first time
    it is used (``spec check`` checks them all)."""
    if not _DEFAULT:
        _DEFAULT.append(load(check="lazy"))
    return _DEFAULT[0]


def install_default(lib: Library) -> Library:
    """Make ``lib`` the process's default library (a test or front end that loaded the default sources
    itself, checked eagerly or lazily)."""
    _DEFAULT[:] = [lib]
    return lib


def reload() -> Library:
    """Forget the cached default library (after changing the search path) and load it again."""
    _DEFAULT.clear()
    tables.clear_caches()
    return default_library()


def get(name: str) -> Spec:
    """The spec called ``name`` (or one of its aliases) from the default library."""
    return default_library().get(name)


def names(filter=None) -> list:
    """Names in the default library; see :meth:`Library.names` for ``filter``."""
    return default_library().names(filter)


_SMEM_SHORT = re.compile(r"^(?:GMMA[_:]+)?(?:Layout_)?(K|MN)_(INTER|SW32|SW64|SW128)(?:_Atom)?$", re.I)
_TMA_SHORT = re.compile(r"^(?:TMA_|CU_TENSOR_MAP_)?(?:SWIZZLE_|SW)?(NONE|32B?|64B?|128B?)$", re.I)


def resolve(name: str, dtype=None, library: Library | None = None) -> Spec:
    """The spec for a name, an alias, or a short name plus a dtype.

    Short names: ``GMMA_K_SW128`` / ``GMMA_MN_INTER`` / ``K_SW64`` ... with ``dtype`` pick the
    ``GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`` entry of that element width; ``TMA_SW128`` /
    ``SWIZZLE_64B`` / ``SW32`` / ``TMA_NONE`` name the ``CU_TENSOR_MAP_SWIZZLE_*`` modes.  A full smem-atom
    name with a ``dtype`` of another width is refused (:class:`SpecError`); an unknown name raises
    :class:`~cuteverify.errors.UnknownSpec` with suggestions.
    """
    lib = library or default_library()
    if name in lib:
        spec = lib[name]
        if dtype is not None and spec.kind == "smem_atom" and dtype_bits(dtype) != spec.data["element_bits"]:
            raise SpecError(f"dtype {dtype!r} is {dtype_bits(dtype)}-bit but the atom is for "
                            f"{spec.data['element_bits']}-bit elements", spec.file, spec.line, spec.name)
        return spec
    m = _SMEM_SHORT.match(name.strip())
    if m:
        if dtype is None:
            raise SpecError(f"{name}: a short smem-atom name needs dtype= (e.g. dtype='bf16')")
        major, sw, eb = m.group(1).upper(), m.group(2).upper(), dtype_bits(dtype)
        for n in lib:
            d, s = lib.peek(n).data, lib.peek(n)
            if s.kind == "smem_atom" and d["major"] == major and d["swizzle"] == sw and d["element_bits"] == eb:
                return lib[n]
        raise SpecError(f"{name}: no GMMA::Layout_{major}_{sw}_Atom for {eb}-bit elements")
    m = _TMA_SHORT.match(name.strip())
    if m:
        span = m.group(1).upper().rstrip("B")
        full = "CU_TENSOR_MAP_SWIZZLE_" + ("NONE" if span == "NONE" else span + "B")
        if full in lib:
            return lib[full]
    fam = family_name(name)[0]
    if fam != name and fam in lib:  # a concrete CUTLASS name: its family (resolve_instance keeps the params)
        return lib[fam]
    return _unknown(name, fam, lib)


def _unknown(name: str, fam: str, lib: Library):
    """:class:`UnknownSpec` for ``name``, with suggestions computed on its family form ``fam``."""
    try:
        lib.get(fam)
    except UnknownSpec as e:
        if fam == name:
            raise
        raise UnknownSpec(str(e).replace(repr(fam), f"{name!r} (family {fam!r})")) from None
    raise UnknownSpec(f"no spec named {name!r}")  # pragma: no cover - fam is not in lib here


# ------------------------------------------------------------------ CUTLASS's concrete names -> family instances

# Namespaces CUTLASS puts its structs in; the spec library names them without (SM90::GMMA::MMA_64x128x16_...
# is the alias SM90_64x128x16_... of mma_traits_sm90_gmma.hpp).
_NAMESPACES = (("cute::", ""), ("SM90::GMMA::SPARSE::GMMA_", "SM90_SPARSE_"), ("SM90::GMMA::MMA_", "SM90_"),
               ("SM100::TMEM::LOAD::", ""), ("SM100::TMEM::STORE::", ""), ("SM103::", ""))
# wgmma: the instruction's N in the name (SM90_64x128x16_...) is the family parameter N (SM90_64xNx16_...).
_WGMMA = re.compile(r"^(SM90_(?:SPARSE_)?64x)(\d+)(x\d+_\w+)$")
# TMEM copies: the repeat count (SM100_TMEM_LOAD_32dp32b8x) is the family parameter R (..._32dp32bRx).
_TMEM = re.compile(r"^(SM100_TMEM_(?:LOAD|STORE)_\d+dp\d+b)(\d+)(x(?:_16b)?)$")
_TEMPLATE = re.compile(r"^([\w:]+)\s*<(.*)>\s*$", re.S)


def family_name(name: str) -> tuple:
    """CUTLASS's spelling of an operation as (family name, the parameters the spelling fixes).

    ``SM90_64x128x16_F32BF16BF16_SS`` -> (``SM90_64xNx16_F32BF16BF16_SS``, {N: 128});
    ``SM90::GMMA::MMA_64x8x32_S32S8S8_RS_TN`` -> (``SM90_64xNx32_S32S8S8_RS_TN``, {N: 8});
    ``SM100_TMEM_LOAD_16dp256b4x_16b`` -> (``SM100_TMEM_LOAD_16dp256bRx_16b``, {R: 4});
    a name with template arguments (``SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K,
    UMMA::Major::MN>``) -> the struct name and its non-type arguments in order, under the key ``_args``.
    A name of no such form is returned unchanged with no parameters. Purely textual: whether the family
    exists is :func:`resolve_instance`'s business."""
    text = " ".join(name.split())
    args = None
    m = _TEMPLATE.match(text)
    if m:
        text, args = m.group(1), _template_args(m.group(2))
    for pre, rep in _NAMESPACES:
        if text.startswith(pre):
            text = rep + text[len(pre):]
    params: dict = {}
    m = _WGMMA.match(text)
    if m:
        text, params = m.group(1) + "N" + m.group(3), {"N": int(m.group(2))}
    m = _TMEM.match(text)
    if m:
        text, params = m.group(1) + "R" + m.group(3), {"R": int(m.group(2))}
    if args is not None:
        params["_args"] = args
    return text, params


def _template_args(text: str) -> list:
    """The non-type template arguments in order: ints and enum values (``UMMA::Major::MN`` -> ``"MN"``);
    type arguments (``half_t``, ``float``) are skipped."""
    out = []
    for a in (x.strip() for x in text.split(",")):
        a = re.sub(r"^(?:cute::)?(?:Int|C)<(\d+)>(?:\{\})?$", r"\1", a)
        if re.fullmatch(r"-?\d+", a):
            out.append(int(a))
        elif "Major::" in a:
            out.append(a.rsplit("::", 1)[1])
    return out


# longest first: SM120::BLOCKSCALED::SPARSE:: is one namespace, not SM120::BLOCKSCALED:: and a stray SPARSE::
_CPP_NS = re.compile(r"\b(?:cute|cutlass|SM120::BLOCKSCALED::SPARSE|SM120::BLOCKSCALED|SM120::SPARSE)::")


def _specialisation(name: str, lib: Library):
    """A class-template specialisation spelt as CUTLASS writes it (``SM120_16x8x32_TN<float_e2m1_t,
    float_e3m2_t, float>``, ``cute::SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<cutlass::float_e2m1_t, ...,
    16>``), matched to a library name of the same struct and type arguments: namespaces dropped, blanks
    ignored; an integer argument matches the family parameter the library name writes in its place (``VS``).
    ``(spec, params)``, or None when no library name has that struct and those arguments."""
    m = _TEMPLATE.match(" ".join(name.split()))
    if not m:
        return None
    head = _CPP_NS.sub("", m.group(1))
    args = [_CPP_NS.sub("", a.strip()) for a, _ in split_top(m.group(2), ",", ALL)]
    text = f"{head}<{', '.join(args)}>"
    if text in lib:
        return lib[text], {}
    for cand in lib:
        cm = _TEMPLATE.match(cand) if cand.startswith(head + "<") else None
        if not cm or cm.group(1) != head:
            continue
        spec = lib.peek(cand)
        cargs = [a.strip() for a, _ in split_top(cm.group(2), ",", ALL)]
        if len(cargs) != len(args):
            continue
        params = {}
        for mine, theirs in zip(args, cargs):
            if theirs in spec.params and re.fullmatch(r"-?\d+", mine):
                params[theirs] = int(mine)
            elif mine != theirs:
                break
        else:
            return lib[cand], params  # handed out checked
    return None


def _bind_args(spec: Spec, args: list, name: str) -> dict:
    """Positional non-type template arguments bound to the family's parameters in their order (CUTLASS's
    template order: M, N, [VS,] a_major, b_major)."""
    keys = list(spec.params)
    if len(args) > len(keys):
        raise SpecError(f"{name}: {len(args)} template arguments for the parameters {keys}", spec.file, spec.line,
                        spec.name)
    return dict(zip(keys, args))


def resolve_instance(name: str, dtype=None, library: Library | None = None) -> tuple:
    """The spec a name denotes and the family parameters the name fixes: ``(Spec, params)``.

    Accepts every name :func:`resolve` does, plus CUTLASS's concrete spellings (see :func:`family_name`):
    ``resolve_instance("SM90_64x128x16_F32BF16BF16_SS")`` is ``(SM90_64xNx16_F32BF16BF16_SS, {"N": 128})``.
    Post-condition: the parameters are in the family's ranges (checked with :meth:`Spec.check_params` when the
    name fixes all of them). An unknown name raises :class:`~cuteverify.errors.UnknownSpec` whose suggestions
    are computed on the family form of the name, so a misspelt concrete name gets its family suggested."""
    lib = library or default_library()
    if name in lib:
        return resolve(name, dtype, lib), {}
    found = _specialisation(name, lib)
    if found is not None:
        spec, params = found
        return spec, (spec.check_params(params) if params else params)
    fam, params = family_name(name)
    if fam == name or fam not in lib:  # short names (GMMA_K_SW128 + dtype), or unknown: resolve's answer
        return resolve(name, dtype, lib), {}
    spec = lib[fam]
    args = params.pop("_args", None)
    if args:
        params.update(_bind_args(spec, args, name))
    if params:
        unknown = set(params) - set(spec.params)
        if unknown:
            raise SpecError(f"{name}: {fam} has no parameter {sorted(unknown)}", spec.file, spec.line, spec.name)
        if set(params) == set(spec.params):
            params = spec.check_params(params)
        else:
            for k, v in params.items():
                if v not in spec.params[k] and not (k in spec.param_names and v in spec.param_names[k]):
                    raise SpecError(f"{name}: {k}={v} is not in the family's range", spec.file, spec.line,
                                    spec.name)
    return spec, params
