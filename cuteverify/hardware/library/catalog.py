"""The spec library: spec files read into a :class:`~cuteverify.hardware.library.spec.Library`, self-checked, and the
default library of a process (the shipped files plus the search path); name resolution with short names.
"""
from __future__ import annotations

import re

from ...core.notation.cutlass_names import CppName, format_name, is_name, read_name
from ...errors import FormulaError, NotAdmissibleError, ParseError, SpecError, UnknownSpec
from ..checks import cache as checkcache
from . import formula as _fm
from . import lazylib
from . import ptx_tables as tables
from .swizzles import GMMA_ATOM_TAGS
from .dtypes import dtype_bits
from .loader import line_of, read_spec_document, shipped_dir, spec_sources
from ..checks.selfcheck import self_check
from .spec import TV_VARS, Library, Spec, operand_formulas

__all__ = ["load_file", "load", "read_sources", "sources_key", "default_library", "reload", "get", "names", "resolve",
           "universal_copy_bits", "instance_name", "family_name", "template_args", "wgmma_template_params", "ENUMS"]


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


def read_sources(paths=None, shipped: bool | None = None) -> list:
    """``[(name, bytes)]`` of the spec files :func:`load` reads for these arguments, in its order. Raises
    :class:`SpecError` for a file that cannot be read."""
    out = []
    for src in spec_sources(paths, shipped):
        try:
            out.append((str(src), src.read_bytes()))
        except OSError as e:
            raise SpecError(f"cannot read spec file: {e}", str(src)) from None
    return out


def sources_key(sources: list) -> str:
    """The self-check cache's key of ``read_sources``' result (:mod:`.checkcache`: the files' names and bytes,
    the schema and the checker's source)."""
    return checkcache.sources_key(sources, shipped_dir().joinpath("schema.json").read_bytes())


def load(paths=None, *, shipped: bool | None = None, check: bool | str = True, cached: bool = False,
         sources: list | None = None) -> Library:
    """Load spec files and return a :class:`Library`.

    ``paths=None`` loads the shipped library plus :data:`SEARCH_PATH` and ``$CUTEVERIFY_SPEC_PATH``
    (directories of ``*.yaml``, or files).  With explicit ``paths`` only those are read unless
    ``shipped=True``.  ``check`` runs :func:`self_check` on every spec; ``check="lazy"`` runs it on each spec
    the first time the library hands it out (``Library.__getitem__``).  ``cached``: when the self-check cache
    (:mod:`.checkcache`) holds a success for exactly these files' bytes under this checker, no spec is
    self-checked again (``Library.cached`` is then True), and an eager check that passes is stored; a lazy load
    that finds no entry stores the files' name index, and one that finds either parses only the files holding
    the names asked for.  ``sources``: the files' ``(name, bytes)`` as :func:`read_sources` returned them (read
    once by a caller that keys its own result on them); ``paths`` and ``shipped`` are then ignored.  Raises
    :class:`SpecError` for a file that cannot be read or is malformed (kind ``input``), :class:`SpecInconsistent`
    for a spec whose self-check fails (kind ``refuted``)."""
    specs: dict = {}
    files = []
    sources = read_sources(paths, shipped) if sources is None else sources
    key = sources_key(sources) if cached and check else None
    got = checkcache.lookup(key) if key is not None else None
    # an entry is a success, or (``"self_checked": False``) only the name index of these exact bytes
    hit = got is not None and got.get("self_checked", True) is not False
    if got is not None and check == "lazy" and lazylib.well_formed(got.get("index"), len(sources)):
        # each file is parsed when a name it holds is first asked for; after a cached success its specs are
        # trusted, after an index alone each is self-checked when first handed out (as a lazy load does)
        lib = lazylib.IndexedLibrary(sources, got["index"], _parse_trusted if hit else _parse_lazy,
                                     checker=self_check, trusted=hit)
        lib.cached, lib.cache_key = hit, key
        return lib
    # a lazy load trusts the shipped files' schema (an eager load, as `spec check` and the tests make,
    # validates them), and a cache hit all of them; a user's file is otherwise always validated
    shipped_root = str(shipped_dir()) if check == "lazy" else None
    for name, data in sources:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SpecError(f"cannot read spec file: not UTF-8 text ({e.reason} at byte {e.start})", name) from None
        files.append(name)
        trusted = hit or (shipped_root is not None and name.startswith(shipped_root))
        for spec in load_file(text, name, validate=not trusted):
            if spec.name in specs:
                other = specs[spec.name]
                raise SpecError(f"duplicate spec name (also at {other.file}:{other.line})", name, spec.line,
                                spec.name)
            specs[spec.name] = spec
    if hit:
        lib = Library(specs, files, checker=self_check)
        lib._checked.update(specs)  # every spec passed under this checker, these exact bytes
    elif check == "lazy":
        lib = Library(specs, files, checker=self_check)
        if key is not None and got is None:  # the next lazy load of these bytes parses only the files it needs
            checkcache.store(key, {"self_checked": False, "index": lazylib.name_index(lib)})
    else:
        if check:
            for spec in specs.values():
                self_check(spec)
        lib = Library(specs, files)
        if key is not None:
            checkcache.store(key, {"specs": len(specs), "files": files, "index": lazylib.name_index(lib)})
    lib.cached = hit
    lib.cache_key = key
    return lib


def _parse_trusted(name: str, data: bytes) -> list:
    """One file of a cached success (:class:`~.lazylib.IndexedLibrary`): parsed without the schema pass."""
    return load_file(data.decode("utf-8"), name, validate=False)


def _parse_lazy(name: str, data: bytes) -> list:
    """One file behind a cached name index alone: parsed as a lazy load parses it (a user's file against the
    schema, a shipped one without)."""
    return load_file(data.decode("utf-8"), name, validate=not name.startswith(str(shipped_dir())))


_DEFAULT: list = []


def default_library() -> Library:
    """The shipped + search-path library, loaded once per process; each spec is self-checked the first time
    it is used (``spec check`` checks them all), none when the self-check cache holds a success for exactly
    these files under this checker (:mod:`.checkcache`)."""
    if not _DEFAULT:
        _DEFAULT.append(load(check="lazy", cached=True))
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
    """The spec of the default library that :func:`resolve` reads ``name`` as (a library name or alias, or any
    CUTLASS spelling it takes), its parameters dropped; :class:`UnknownSpec` (with close names) when none."""
    return resolve(name)[0]


def names(filter=None) -> list:
    """Names in the default library; see :meth:`Library.names` for ``filter``."""
    return default_library().names(filter)


_ATOM_TAG = "|".join(GMMA_ATOM_TAGS)  # INTER|SW32|SW64|SW128, from the one swizzle table
_SMEM_SHORT = re.compile(rf"^(?:GMMA[_:]+)?(?:Layout_)?(K|MN)_({_ATOM_TAG})(?:_Atom)?$", re.I)
_SMEM_TEMPLATE = re.compile(rf"^Layout_(K|MN)_({_ATOM_TAG})_Atom$")  # the base of GMMA::Layout_K_SW128_Atom<T>
_TMA_SHORT = re.compile(r"^(?:TMA_|CU_TENSOR_MAP_)?(?:SWIZZLE_|SW)?(NONE|32B?|64B?|128B?)$", re.I)


def resolve(name: str, dtype=None, library: Library | None = None, *, kind: str | None = None,
            instance: bool = False, **params) -> tuple:
    """The one name resolver of the CLI, manifests, the atoms and the Python API: ``(Spec, params)`` for a name
    and the family parameters given as keywords.

    Names: a library name or alias; CUTLASS's concrete spellings (``SM90_64x128x16_F32BF16BF16_SS``,
    ``SM90::GMMA::MMA_64x128x16_...``, ``SM100_TMEM_LOAD_32dp32b8x``: the family instance, see
    :func:`family_name`); a class template with its arguments (``SM100_MMA_F16BF16_2x1SM_SS<half_t, half_t,
    float, 256, 128, UMMA::Major::K, UMMA::Major::K>``: types checked against the spec's dtypes, integers bound
    to the family's integer parameters in CUTLASS's order, ``Major`` / ``ScaleIn`` / ... enums to the parameters
    that take them, or checked and ignored where the family has none, as GMMA's majors select the descriptor,
    not the TV layouts); short smem-atom names with ``dtype`` (``GMMA_K_SW128``) and TMA swizzle modes
    (``TMA_SW128``).

    ``params``: family parameters (ints, or enum names as CUTLASS spells them: ``a_major="MN"`` or
    ``"UMMA::Major::MN"``). Post-condition: the returned params are the name's parameters joined with
    ``params``, each in the family's range (and the family's constraint holds when all are fixed); a parameter
    that contradicts the name (``N=64`` on ``..._64x128x16_...``), a parameter the spec lacks or a value out of
    range raises :class:`SpecError`; an unknown name raises :class:`~cuteverify.errors.UnknownSpec` whose
    suggestions are computed on the family form of the name.

    ``kind`` (``"mma"`` or ``"copy"``: an atom builder's ``make_{kind}_atom``) and ``instance=True`` (an atom
    is one instruction) add two admissibility rules, each a :class:`NotAdmissibleError`: the spec is of that
    kind, and the returned params fix every family parameter."""
    lib = library or default_library()
    name = " ".join(str(name).split())
    spec, fixed = _lookup(name, dtype, lib)
    p = _join(spec, name, fixed, params)
    what = f"make_{kind or spec.kind}_atom"
    if kind is not None and spec.kind != kind:
        raise NotAdmissibleError(what, f"{name} is a {spec.kind} spec, not a {kind} atom")
    missing = [k for k in spec.params if k not in p] if instance else ()
    if missing:
        example = ", ".join(f"{k}={v}" for k, v in spec.instances()[0].items())
        fam = "a family" if name == spec.name else f"the family {spec.name}"
        raise NotAdmissibleError(what, f"{name} is {fam}: give {', '.join(missing)} (e.g. {example}), as "
                                 "keywords, --param NAME=VALUE on the command line, or CUTLASS's template "
                                 "arguments")
    return spec, p


_UINT = re.compile(r"^u?int(\d+)_t$")


def universal_copy_bits(name: str, dtype=None, num_bits_per_copy=None):
    """The bits moved by CUTLASS's one-thread copy ``UniversalCopy<T>`` (``UniversalCopy<uint128_t>``,
    ``UniversalCopy<128>``, ``UniversalCopy``), which is no library spec; None when ``name`` is not a
    UniversalCopy. The template argument (``uint128_t``, ``half_t``, or a number of bits), else
    ``num_bits_per_copy``, else the element width of ``dtype`` (CuTe DSL's ``CopyUniversalOp`` default).
    Raises :class:`NotAdmissibleError` for a width that contradicts the name or is not given at all."""
    n = _cpp_name(name)
    n = n and n.without("cute")
    if n is None or n.qualified != "UniversalCopy" or n.value or (n.args is not None and len(n.args) not in (1, 2)) \
            or any(not isinstance(a, (int, CppName)) or isinstance(a, CppName) and a.args is not None
                   for a in n.args or ()):
        return None
    if n.args is not None:
        arg = n.args[0]
        if isinstance(arg, int):
            bits = int(arg)
        else:
            u = _UINT.match(arg.qualified)
            bits = int(u.group(1)) if u else dtype_bits(arg.qualified)
        if num_bits_per_copy is not None and num_bits_per_copy != bits:
            raise NotAdmissibleError("make_copy_atom", f"{name} moves {bits} bits, not num_bits_per_copy="
                                     f"{num_bits_per_copy}")
        return bits
    if num_bits_per_copy:
        return int(num_bits_per_copy)
    if dtype is None:
        raise NotAdmissibleError("make_copy_atom", "UniversalCopy needs a width: UniversalCopy<uint128_t>, "
                                 "num_bits_per_copy=, or a dtype")
    return dtype_bits(dtype)


def _lookup(name: str, dtype, lib: Library) -> tuple:
    """``(spec, the parameters the name fixes)``, before any caller's parameters."""
    if name in lib:
        spec = lib[name]
        if dtype is not None and spec.kind == "smem_atom" and dtype_bits(dtype) != spec.data["element_bits"]:
            raise SpecError(f"dtype {dtype!r} is {dtype_bits(dtype)}-bit but the atom is for "
                            f"{spec.data['element_bits']}-bit elements", spec.file, spec.line, spec.name)
        return spec, {}
    m = _SMEM_SHORT.match(name)
    cpp = None if m else _cpp_name(name)
    cpp = cpp and cpp.without("cute")
    if cpp is not None and cpp.scope == ("GMMA",) and len(cpp.args or ()) == 1 and not cpp.value \
            and isinstance(cpp.args[0], CppName) and cpp.args[0].args is None:
        m = _SMEM_TEMPLATE.match(cpp.base)
        if m:  # CUTLASS's template with any name of the element type (<bf16>, <half_t>)
            elem = cpp.args[0].without("cutlass").qualified
            if elem != cpp.args[0].base:  # the element type's one namespace is cutlass
                m = None
            elif dtype is not None and dtype_bits(dtype) != dtype_bits(elem):
                raise SpecError(f"{name}: dtype {dtype!r} is {dtype_bits(dtype)}-bit, the atom's {elem} is "
                                f"{dtype_bits(elem)}-bit")
            else:
                dtype = elem
    if m:
        if dtype is None:
            raise SpecError(f"{name}: a short smem-atom name needs dtype= (e.g. dtype='bf16')")
        major, sw, eb = m.group(1).upper(), m.group(2).upper(), dtype_bits(dtype)
        for n in lib:
            s = lib.peek(n)
            d = s.data
            if s.kind == "smem_atom" and d["major"] == major and d["swizzle"] == sw and d["element_bits"] == eb:
                return lib[n], {}
        raise SpecError(f"{name}: no GMMA::Layout_{major}_{sw}_Atom for {eb}-bit elements")
    m = _TMA_SHORT.match(name)
    if m:
        span = m.group(1).upper().rstrip("B")
        full = "CU_TENSOR_MAP_SWIZZLE_" + ("NONE" if span == "NONE" else span + "B")
        if full in lib:
            return lib[full], {}
    found = _specialisation(name, lib)
    if found is not None:
        return found
    fam, fixed = family_name(name)
    if fam == name or fam not in lib:
        return _unknown(name, fam, lib)
    spec = lib[fam]
    args = fixed.pop("_args", None)
    if args is not None:
        _check_wgmma_args(spec, args, name)
        fixed = _bind_args(spec, args, name, fixed)
    return spec, fixed


def _unknown(name: str, fam: str, lib: Library):
    """:class:`UnknownSpec` for ``name``, with suggestions computed on its family form ``fam``."""
    try:
        lib.get(fam)
    except UnknownSpec as e:
        if fam == name:
            raise
        raise UnknownSpec(str(e).replace(repr(fam), f"{name!r} (family {fam!r})")) from None
    raise UnknownSpec(f"no spec named {name!r}")  # pragma: no cover - fam is not in lib here


def _value(spec: Spec, key: str, v, name: str):
    """A caller's parameter value as the family stores it: an int, or an enum name (``"MN"``,
    ``"UMMA::Major::MN"``, an object whose ``name`` is one) mapped to its number."""
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v)
    if not isinstance(v, (str, int)) and isinstance(getattr(v, "name", None), str):
        v = v.name  # a Python enum member such as OperandMajorMode.K
    if isinstance(v, str):
        n = _cpp_name(v)  # UMMA::Major::MN; else Python's spelling of an enum member, OperandMajorMode.MN
        short = n.base if n is not None and n.args is None and not n.value else v.strip().rpartition(".")[2]
        names = spec.param_names.get(key)
        if not names or short not in names:
            want = f"one of {sorted(names)} or an integer" if names else "an integer"
            raise SpecError(f"{name}: {key}={v!r}: expected {want}", spec.file, spec.line, spec.name)
        return names[short]
    return v


def _join(spec: Spec, name: str, fixed: dict, params: dict) -> dict:
    """The name's parameters joined with the caller's, checked (see :func:`resolve`)."""
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        have = f"its parameters are {', '.join(spec.params)}" if spec.params else "it is no family"
        raise SpecError(f"{name}: {spec.name} has no parameter {', '.join(unknown)} ({have})", spec.file,
                        spec.line, spec.name)
    out = dict(fixed)
    for k, v in params.items():
        v = _value(spec, k, v, name)
        if k in fixed and v != fixed[k]:
            raise SpecError(f"{name}: {k}={v} contradicts the name, which fixes {k}={fixed[k]}", spec.file,
                            spec.line, spec.name)
        out[k] = v
    if out and set(out) == set(spec.params):
        return spec.check_params(out)
    for k, v in out.items():
        if type(v) is int and v not in spec.params[k]:
            raise SpecError(f"{name}: {k}={v} is not in the family's range ({_range_text(spec.params[k])})",
                            spec.file, spec.line, spec.name)
    return out


def _range_text(vals) -> str:
    vals = sorted(vals)
    if len(vals) > 3 and vals == list(range(vals[0], vals[-1] + 1, vals[1] - vals[0])):
        return f"{vals[0]}..{vals[-1]} step {vals[1] - vals[0]}"
    return "{" + ", ".join(map(str, vals)) + "}"


def instance_name(spec: Spec, params: dict) -> str:
    """An instance's CUTLASS-style name: the parameter substituted where the family's name carries it
    (``SM90_64xNx16_...`` with N=128 -> ``SM90_64x128x16_...``, ``..._32dp32bRx`` with R=8 -> ``..._32dp32b8x``),
    the others appended as ``(K=V, ...)`` (enums by name)."""
    text, rest = spec.name, {}
    for k, v in params.items():
        rx = _TOKEN.get(k)
        m = rx.search(text) if rx is not None else None
        if m and type(v) is int:
            text = text[:m.start(1)] + str(v) + text[m.end(1):]
        else:
            rest[k] = next((n for n, i in spec.param_names.get(k, {}).items() if i == v), v)
    return text + ("(" + ", ".join(f"{k}={v}" for k, v in rest.items()) + ")" if rest else "")


# where a family's own name carries its parameter (the MxNxK token of wgmma, the repeat of a TMEM copy)
_TOKEN = {"N": re.compile(r"^SM90_(?:SPARSE_)?64x(N)x\d+_"), "R": re.compile(r"^SM100_TMEM_\w+?\d+b(R)x")}

# ------------------------------------------------------------------ CUTLASS's concrete names -> family instances

# Namespaces CUTLASS puts its structs in; the spec library names them without (SM90::GMMA::MMA_64x128x16_...
# is the alias SM90_64x128x16_... of mma_traits_sm90_gmma.hpp).
_NAMESPACES = (("cute::", ""), ("SM90::GMMA::SPARSE::GMMA_", "SM90_SPARSE_"), ("SM90::GMMA::MMA_", "SM90_"),
               ("SM100::TMEM::LOAD::", ""), ("SM100::TMEM::STORE::", ""), ("SM103::", ""))
# wgmma: the instruction's N in the name (SM90_64x128x16_...) is the family parameter N (SM90_64xNx16_...).
_WGMMA = re.compile(r"^(SM90_(?:SPARSE_)?64x)(\d+)(x\d+_\w+)$")
# TMEM copies: the repeat count (SM100_TMEM_LOAD_32dp32b8x) is the family parameter R (..._32dp32bRx).
_TMEM = re.compile(r"^(SM100_TMEM_(?:LOAD|STORE)_\d+dp\d+b)(\d+)(x(?:_16b)?)$")


def _cpp_name(name: str):
    """``name`` read by the one CUTLASS-name reader, or None when it is no C++ name (a CuTe DSL name, a layout:
    each then an unknown name). A template spelling (a name, then ``<...>`` to the end) whose arguments do not
    read is a :class:`SpecError` carrying the reader's column."""
    try:
        return read_name(name)
    except ParseError as e:
        head, lt, _ = name.partition("<")
        if lt and name.rstrip().endswith(">") and is_name(head) and not read_name(head).args:
            raise SpecError(f"{' '.join(name.split())}: {e}") from None
        return None


def family_name(name: str) -> tuple:
    """CUTLASS's spelling of an operation as (family name, the parameters the spelling fixes).

    ``SM90_64x128x16_F32BF16BF16_SS`` -> (``SM90_64xNx16_F32BF16BF16_SS``, {N: 128});
    ``SM90::GMMA::MMA_64x8x32_S32S8S8_RS_TN`` -> (``SM90_64xNx32_S32S8S8_RS_TN``, {N: 8});
    ``SM100_TMEM_LOAD_16dp256b4x_16b`` -> (``SM100_TMEM_LOAD_16dp256bRx_16b``, {R: 4});
    a name with template arguments (``SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K,
    UMMA::Major::MN>``) -> the struct name and its arguments in order (see :func:`template_args`), under the
    key ``_args``. A name of no such form is returned unchanged with no parameters. Purely textual: whether the
    family exists is :func:`resolve`'s business."""
    text = " ".join(name.split())
    args = None
    n = _cpp_name(text)
    if n is not None and n.args is not None and not n.value:
        text, args = n.qualified, template_args(n.args)
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


# CUTLASS's enums of the MMA templates (cute/arch/mma_sm90_desc.hpp, mma_sm100_desc.hpp) and their values
ENUMS = {"Major": ("K", "MN"), "ScaleIn": ("One", "Neg"), "ScaleOut": ("Zero", "One"), "Saturate": ("False", "True"),
         "SparseSel": ("Zero", "One")}

# CUTLASS's element types -> the spec library's dtype names (an unlisted type is not checked)
_CPP_TYPES = {"half_t": "f16", "bfloat16_t": "bf16", "float": "f32", "tfloat32_t": "tf32", "double": "f64",
              "float_e4m3_t": "e4m3", "float_e5m2_t": "e5m2", "float_e2m3_t": "e2m3", "float_e3m2_t": "e3m2",
              "float_e2m1_t": "e2m1", "int8_t": "s8", "uint8_t": "u8", "int32_t": "s32", "uint32_t": "u32",
              "int4b_t": "s4", "uint4b_t": "u4"}


def template_args(args: tuple) -> list:
    """Template arguments as :func:`~cuteverify.core.notation.cutlass_names.read_name` reads them, classified
    in order: each ``("int", n)`` (``128``, ``Int<128>``, ``_128``), ``("enum", type, value)``
    (``UMMA::Major::MN`` -> ``("enum", "Major", "MN")``) or ``("type", name)`` (scope dropped). Raises
    :class:`SpecError` for an enum value CUTLASS does not define."""
    out = []
    for a in args:
        if isinstance(a, int):
            out.append(("int", int(a)))
        elif isinstance(a, CppName) and a.enum() is not None and a.enum()[0] in ENUMS:
            enum, value = a.enum()
            if value not in ENUMS[enum]:
                raise SpecError(f"{format_name(a.without(*_CPP_NS))}: {enum} is one of {', '.join(ENUMS[enum])}")
            out.append(("enum", enum, value))
        else:
            out.append(("type", format_name(CppName((), a.base, a.args, a.value)) if isinstance(a, CppName) else a))
    return out


# CUTLASS's namespaces the spec library names its structs without (SM120::BLOCKSCALED::SPARSE is one namespace)
_CPP_NS = ("cute", "cutlass", "SM120::BLOCKSCALED::SPARSE", "SM120::BLOCKSCALED", "SM120::SPARSE")


def _specialisation(name: str, lib: Library):
    """A class-template specialisation spelt as CUTLASS writes it (``SM120_16x8x32_TN<float_e2m1_t,
    float_e3m2_t, float>``, ``cute::SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<cutlass::float_e2m1_t, ...,
    16>``), matched to a library name of the same struct and type arguments: namespaces dropped, blanks
    ignored; an integer argument matches the family parameter the library name writes in its place (``VS``).
    ``(spec, params)``, or None when no library name has that struct and those arguments."""
    n = _cpp_name(name)
    if n is None or n.args is None or n.value:
        return None
    n = n.without(*_CPP_NS)
    head = n.qualified
    text = format_name(n)
    if text in lib:
        return lib[text], {}
    for cand in lib:
        c = _cpp_name(cand) if cand.startswith(head + "<") else None
        if c is None or c.qualified != head or c.args is None or len(c.args) != len(n.args):
            continue
        spec = lib.peek(cand)
        params = {}
        for mine, theirs in zip(n.args, c.args):
            if isinstance(theirs, CppName) and theirs.base in spec.params and format_name(theirs) == theirs.base \
                    and isinstance(mine, int):
                params[theirs.base] = int(mine)
            elif mine != theirs:
                break
        else:
            return lib[cand], params  # handed out checked
    return None


# a wgmma family (spec name): its types, SS / RS, the K-major-only _TN forms (cute/arch/mma_sm90_gmma*.hpp)
_WGMMA_FAMILY = re.compile(r"^SM90_(?:SPARSE_)?64xNx\d+_(\w+?)_(SS|RS)(_TN)?(?:_SATURATE)?(_SPARSE)?$")


def wgmma_template_params(spec_name: str):
    """The template parameters CUTLASS declares for a wgmma atom (``cute/arch/mma_sm90_gmma.hpp``, ``_ext``,
    ``_sparse``): a list of ``(enum, parameter, default)`` (default None: required), or None when
    ``spec_name`` is no wgmma family. ``_SS`` / ``_RS``: ``<Major tnspA, Major tnspB, ScaleIn scaleA = One,
    ScaleIn scaleB = One>``; the K-major-only ``_TN`` atoms take no majors: ``<ScaleIn scaleA = One, ScaleIn
    scaleB = One>`` (tf32, 8-bit float), nothing for the integer ones (no template at all); the sparse atoms
    add ``SparseSel spsel = Zero``."""
    m = _WGMMA_FAMILY.match(spec_name)
    if not m:
        return None
    types, tn, sparse = m.group(1), m.group(3), m.group(4)
    out = [] if tn else [("Major", "tnspA", None), ("Major", "tnspB", None)]
    if not (tn and re.search(r"[SU]8", types)):  # integer wgmma has no scale-in (no negation)
        out += [("ScaleIn", "scaleA", "One"), ("ScaleIn", "scaleB", "One")]
    if sparse:
        out.append(("SparseSel", "spsel", "Zero"))
    return out


def _check_wgmma_args(spec: Spec, args: list, name: str):
    """A wgmma atom's template arguments against CUTLASS's parameter list (:func:`wgmma_template_params`):
    each argument the enum of its position, the required ones (both majors) given, no more than declared, and
    an RS atom's A K-major (CUTLASS's ``static_assert(tnspA == GMMA::Major::K, "Register source operand A must
    have K major layout.")``). Raises :class:`SpecError` naming the rule; other specs are not checked here."""
    params = wgmma_template_params(spec.name)
    if params is None:
        return

    def err(msg):
        return SpecError(f"{name}: {msg}", spec.file, spec.line, spec.name)
    decl = "<" + ", ".join(f"GMMA::{e} {p}" + (f" = GMMA::{e}::{d}" if d else "") for e, p, d in params) + ">"
    if not params:
        raise err("CUTLASS declares this integer wgmma atom as a plain struct (cute/arch/mma_sm90_gmma.hpp): it "
                  "takes no template arguments")
    if len(args) > len(params):
        raise err(f"{len(args)} template arguments, the atom takes at most {len(params)}: {decl}"
                  + (" (the K-major-only _TN atoms take no Major arguments)" if params[0][0] != "Major" else ""))
    given = {}
    for i, (arg, (enum, pname, _)) in enumerate(zip(args, params)):
        if arg[0] != "enum" or arg[1] != enum:
            got = f"GMMA::{arg[1]}::{arg[2]}" if arg[0] == "enum" else str(arg[1])
            extra = " (the K-major-only _TN atoms take no Major arguments)" \
                if arg[0] == "enum" and arg[1] == "Major" else ""
            raise err(f"template argument {i + 1} is {got}, CUTLASS's parameter {i + 1} is GMMA::{enum} {pname} "
                      f"({decl}){extra}")
        given[pname] = arg[2]
    missing = [p for _, p, d in params if d is None and p not in given]
    if missing:
        raise err(f"{len(args)} template argument{'s' if len(args) != 1 else ''}, the atom needs "
                  f"{', '.join(missing)} too: {decl} (the majors have no default)")
    if "_RS" in spec.name and given.get("tnspA", "K") != "K":
        raise err("Register source operand A must have K major layout (CUTLASS's static_assert in the RS atoms: "
                  "tnspA == GMMA::Major::K): an RS atom reads A from registers, so A's major is GMMA::Major::K")


def _bind_args(spec: Spec, args: list, name: str, fixed: dict) -> dict:
    """Template arguments bound as CUTLASS's templates order them (``<a_type, b_type, c_type, [sf_type,] M, N,
    [VS,] a_major, b_major, [a_neg, b_neg | c_sat]>``): integers to the integer parameters the name does not
    fix, in order; each enum to the next parameter that takes that enum's values, or, where the family has none
    (GMMA's majors and scales: they select the descriptor and the instruction's sign, not the TV layouts),
    checked and dropped; types checked against the spec's ``dtypes`` (a, b, c in order) where it lists them."""
    def err(msg):
        return SpecError(f"{name}: {msg}", spec.file, spec.line, spec.name)
    out = dict(fixed)
    names = spec.param_names
    ints = [k for k in spec.params if k not in names and k not in fixed]
    dtypes = spec.data.get("dtypes") or {}
    slots = iter(("a", "b", "c"))
    for arg in args:
        if arg[0] == "int":
            if not ints:
                raise err(f"the integer argument {arg[1]} has no parameter to bind (the family's integer "
                          f"parameters: {', '.join(k for k in spec.params if k not in names) or 'none'})")
            out[ints.pop(0)] = arg[1]
        elif arg[0] == "enum":
            values = set(ENUMS[arg[1]])
            key = next((k for k in names if k not in out and set(names[k]) == values), None)
            if key is not None:
                out[key] = names[key][arg[2]]
            elif any(set(names[k]) == values for k in names):
                raise err(f"more {arg[1]} arguments than the family's parameters for them")
        else:
            slot = next(slots, None)
            want = _CPP_TYPES.get(arg[1])
            allowed = dtypes.get(slot) if slot is not None else None
            allowed = [allowed] if isinstance(allowed, str) else allowed
            if want is not None and allowed and want not in allowed:
                raise err(f"operand {slot.upper()} of {spec.name} is {' or '.join(allowed)}, not {arg[1]} ({want})")
    return out
