"""``cp.async`` copy legality (SM80+): is a 4-, 8- or 16-byte ``cp.async.ca/cg.shared.global`` copy legal
for every value of the symbolic strides? (issue 16; docs/model.md section 7)

Definition: ``src`` and ``dst`` are TV layouts ``(thread, value) -> element offset`` into global and shared
memory (``dst`` optionally through a smem layout ``dst_smem``, as ``cuteverify vector --smem``); each thread
copies its values ``size / bytes`` at a time, in value order. PTX requires of each instruction (cp.async:
``cp-size`` 4, 8 or 16; ``.cg`` only with 16; both addresses aligned to ``cp-size``):

* ``cp_size``: ``size`` is 4, 8 or 16 bytes, and a whole number of elements;
* ``cache_mode``: ``.cg`` (L2 only) only with 16 bytes;
* ``src_vector`` / ``dst_vector``: each chunk of ``size / bytes`` consecutive values is contiguous and starts at
  an element offset whose byte offset is a multiple of ``size`` -- the vector-width analysis
  (``analysis.banks.max_vector_width`` with ``require=size``: decided by divisibility for all values of
  symbolic strides, ``analysis.vector_sym``; refuted at a small admissible assignment, ``K = 4: ...``);
* ``src_address`` / ``dst_address``: the buffers' base addresses (ints or expressions) are multiples of ``size``.

Valid for plain layouts with int or symbolic strides (and a swizzled ``dst_smem``, enumerated when concrete).
Post-condition: a :class:`~cuteverify.hardware.checks.rules.RuleVerdict`, proved only when every rule is proved for
every assignment satisfying the assumptions.
"""
from __future__ import annotations

from ..core.notation.interop import as_layout
from ..core.notation.parse import as_assumptions
from ..errors import CuteVerifyError
from ..hardware.library.dtypes import dtype_bits
from ..hardware.checks.rules import Rule, RuleVerdict, check_rules, value_at
from ..prover.verdict import Verdict
from ..symbolic import parse_expr
from ..symbolic.conditions import Condition as C
from ..symbolic.expr import normalize
from .banks import max_vector_width

__all__ = ["CP_SIZES", "cp_async"]

#: the cp-size operand of cp.async (bytes)
CP_SIZES = (4, 8, 16)
_PTX = "PTX ISA: cp.async"


def _vector_rule(name, what, layout, eb, size, smem, dtype):
    v = max_vector_width(layout, elem_bytes=eb, alignment=16, smem=smem, require=size)

    def explain(_):
        cex = v.counterexample
        a = getattr(cex, "assignment", None) or {}
        prefix = ", ".join(f"{k} = {val}" for k, val in sorted(a.items()))
        body = str(cex) if cex is not None else (v.reason or v.status)
        return (prefix + ": " if prefix else "") + f"{what}: {body}"

    text = f"every {size}-byte chunk of the {what} is contiguous and {size}-byte aligned"
    if v.status == "unknown":  # neither proved nor a witness: reported as the rule's unknown verdict
        return Verdict("unknown", claim=f"{name}: {text}", method="vector width", reason=v.reason), v
    return Rule(name, text, [(v.proved, explain)], source=_PTX + " (the vector-width analysis)"), v


def cp_async(src, dst, dtype, size=16, *, dst_smem=None, src_address=None, dst_address=None, cache="ca",
             assume=None):
    """The cp.async rules (module docstring) for copying ``src`` (gmem TV layout) to ``dst`` (smem TV layout,
    or TV -> index composed with ``dst_smem``) with ``size``-byte instructions. Layouts as objects or text
    (symbols allowed, ``assume`` the assumptions on them). Returns a ``RuleVerdict``; a refuted vector rule
    names a thread, its values and the byte offset, prefixed by the assignment (``K = 4: ...``)."""
    asm = as_assumptions(assume)
    if asm:
        asm.check_consistent()
    bits = dtype_bits(dtype)
    eb = bits // 8
    if cache not in ("ca", "cg"):
        raise CuteVerifyError(f"cache {cache!r}: ca or cg")
    if type(size) is not int:
        raise CuteVerifyError(f"size {size!r}: an integer number of bytes")
    src_l, dst_l = as_layout(src, "src", assume=asm), as_layout(dst, "dst", assume=asm)
    smem = as_layout(dst_smem, "dst_smem", assume=asm) if dst_smem is not None else None
    rules = [Rule("cp_size", "the copy size is 4, 8 or 16 bytes and a whole number of elements",
                  [(size in CP_SIZES, lambda _: f"{size} bytes is not a cp.async size (4, 8, 16)"),
                   (size % eb == 0, lambda _: f"{size} bytes is not a whole number of {bits}-bit elements")],
                  source=_PTX),
             Rule("cache_mode", "cp.async.cg copies 16 bytes only",
                  [(cache == "ca" or size == 16, lambda _: f"cp.async.cg with {size} bytes")], source=_PTX)]
    details, undecided = {}, []
    if size in CP_SIZES and size % eb == 0:
        for key, name, what, lay, sm in (("src", "src_vector", "source (global)", src_l, None),
                                         ("dst", "dst_vector", "destination (shared)", dst_l, smem)):
            r, details[key] = _vector_rule(name, what, lay, eb, size, sm, dtype)
            (undecided if isinstance(r, Verdict) else rules).append(r)
    for name, addr in (("src_address", src_address), ("dst_address", dst_address)):
        if addr is None:
            continue
        a = parse_expr(addr, name) if isinstance(addr, str) else normalize(addr)
        rules.append(Rule(name, f"the {name.split('_')[0]} buffer address is {size}-byte aligned",
                          [(C("divides", size, a), lambda v, a=a, n=name: f"{n} {value_at(a, v)} is not "
                            f"{size}-byte aligned")], source=_PTX))
    claim = f"cp.async.{cache} of {size} bytes ({dtype}) from {src_l} to {dst_l}" + \
        (f" through {smem}" if smem is not None else "") + " is legal"
    fields = {"size": size, "cache": cache, "elements_per_copy": size // eb if size % eb == 0 else None,
              "src_widest_bytes": getattr(details.get("src"), "width", None),
              "dst_widest_bytes": getattr(details.get("dst"), "width", None)}
    v = check_rules(rules, asm, claim, fields=fields)
    if not undecided or v.refuted:
        return v
    reason = "; ".join(f"{u.claim.split(':', 1)[0]}: {u.reason}" for u in undecided)
    return RuleVerdict("unknown", rules=v.rules + tuple(undecided), warnings=v.warnings, fields=fields,
                       claim=claim, method=v.method, reason=reason if v.proved else f"{v.reason}; {reason}")
