"""The TMA atoms of a capture as ``tma_atom`` claims (docs/model.md section 10.4;
``frontend.manifest.claims_trace_tma``).

The host function builds each atom with ``cute_nvgpu.atom.make_non_exec_tiled_tma_load`` / ``_store`` (the op
``make_tiled_tma_atom`` emits): operands the gmem tensor, the smem layout of one stage and the CTA tile's
coordinate map ``cta_v_map``; properties the kind (``tiled_tma_load<sm_90_multicast>``) and ``num_multicast``;
result type the DSL's own box ``tma_gbasis``. One claim per atom, ``at`` the op's source line, with:

* ``gmem``: the tensor's layout, its dynamic values named after the operand and mode (``?arg0_shape0{div=8}``,
  ``?arg0_stride2{i64 div=64}``) so that the divisibility facts travel with them and a proof's preconditions
  read as what they are;
* ``smem``: the smem layout in elements. The DSL's smem helpers (``sm90_utils.make_smem_layout_*``,
  ``make_smem_layout_atom``) and ``make_tiled_tma_atom`` put the **byte** swizzle into the composed layout
  (``S<3,4,3> o 0 o (8,64):(64,1)`` is the 128B pattern for f16, the swizzle the smem tensor's pointer carries),
  as CUTLASS's ``get_tma_swizzle_bits`` reads it (base 4: 16-byte units). For ``2^k``-byte elements the element
  swizzle is ``S<B, M-k, S>`` (``types.MemRef.element_layout``'s rule); ``M < k`` has no element form: unknown;
* ``cta_v_map``, ``multicast``, ``kind``, the kernel's launch ``cluster`` (``cutlass_launch_facts``), ``arch``
  and ``gbasis``.
"""
from __future__ import annotations

import re

from ...core.layout import Layout
from ...core.swizzle import ComposedLayout, Swizzle
from ...errors import CuteVerifyError
from .document import Doc
from .smem_units import element_domain_layout
from .mlir import Module, TypeExpr
from .types import elem_bits, layout_of, memref

__all__ = ["TMA_OPS", "emit", "named_dynamic", "element_smem"]

TMA_OPS = ("cute_nvgpu.atom.make_non_exec_tiled_tma_load", "cute_nvgpu.atom.make_non_exec_tiled_tma_store")
_LEAF = re.compile(r"\?(\{[^{}]*\})?|\d+")
_CLUSTER = re.compile(r"exact_cluster_dim\s*=\s*array<i64:\s*([\d,\s]+)>")
_KIND = re.compile(r"<\s*(\w+)\s*>")


def named_dynamic(text: str, name: str) -> str:
    """``text`` (a printed layout ``shape:stride``) with each ``?`` / ``?{...}`` named ``?{name}_shape{i}`` /
    ``?{name}_stride{i}`` (``i``: the leaf's index, colexicographic), its ``{...}`` facts kept."""
    shape, _, stride = text.partition("):(")
    out = []
    for side, part in (("shape", shape), ("stride", stride)):
        n = iter(range(1 << 30))

        def sub(m, side=side, n=n):
            i = next(n)
            return m.group(0) if m.group(0).isdigit() else f"?{name}_{side}{i}{m.group(1) or ''}"
        out.append(_LEAF.sub(sub, part))
    return "):(".join(out) if stride else out[0]


def element_smem(module: Module, op, bits: int) -> str:
    """The element-domain text of the smem layout operand of the TMA atom op ``op`` (module docstring): a plain
    layout as printed; a composed layout in the unit its swizzle acts on as the kernel's own use of it decides
    (``smem_units.element_domain_layout``: a byte swizzle, as the DSL's TMA atoms take, is lowered to
    ``S<B,M-k,S>``). Raises ``CuteVerifyError`` when no element form exists or the unit is not decided."""
    t = op.in_types[1]
    lay = layout_of(t)
    if lay is None:
        raise CuteVerifyError(f"{t.text}: the smem operand is no layout")
    if not isinstance(lay, ComposedLayout):
        return str(lay)
    if not isinstance(lay.inner, Swizzle):
        raise CuteVerifyError(f"{t.text}: a TMA smem layout composes a swizzle with a layout")
    # the DSL's TMA atoms take the smem layout's swizzle on byte addresses (CUTLASS's get_tma_swizzle_bits)
    return str(element_domain_layout(module, op.operands[1], op.func, bits, lay, consumer="pointer"))


def _arch(module: Module) -> str:
    arch = str(module.header.get("arch", ""))
    if arch:
        return "sm_100" if arch.startswith("sm_10") else "sm_90"
    for op in module.ops:
        if any("sm100" in t.name or "tmem" in t.name for t in op.out_types if isinstance(t, TypeExpr)):
            return "sm_100"
    return "sm_90"


def _clusters(module: Module) -> set:
    out = set()
    for op in module.ops:
        facts = op.attrs.get("cutlass_launch_facts")
        if facts is None:
            continue
        m = _CLUSTER.search(facts)
        out.add(tuple(int(x) for x in m.group(1).split(",")) if m else (1, 1, 1))
    return out


def emit(module: Module, doc: Doc) -> None:
    """Add one ``tma_atom`` claim per TMA atom of ``module`` to ``doc`` (an atom whose objects cannot be
    mapped is a ``doc.unknown`` naming why)."""
    ops = module.of(*TMA_OPS)
    if not ops:
        return
    arch = _arch(module)
    clusters = _clusters(module)
    for op in ops:
        try:
            body = _atom(module, op, doc, arch)
        except CuteVerifyError as e:
            doc.unknown(f"TMA atom `{op.name}`", op.loc, str(e))
            continue
        if len(clusters) == 1:
            body["cluster"] = list(next(iter(clusters)))
        elif clusters:
            doc.unknown(f"TMA atom `{op.name}`", op.loc, f"the capture launches kernels with clusters "
                        f"{sorted(clusters)}: the multicast is not checked against one")
        doc.claim({"tma_atom": body}, op.loc)
        _emit_partitions(module, op, doc, body["smem"])


def tensor_stage(t: TypeExpr) -> str:
    """The element-domain text of mode 0 of the smem tensor ``t`` that ``tma_partition`` partitions (its TMA
    tile, stage 0): the pointer's byte swizzle lowered to elements (``types.MemRef.element_layout``) composed
    with the layout's first mode. Raises ``CuteVerifyError`` for a tensor that is not in smem."""
    m = memref(t)
    if m is None or m.space != "smem" or m.layout_text is None:
        raise CuteVerifyError(f"{t.text}: tma_partition's smem operand is no smem tensor")
    lay = m.element_layout()
    outer = lay.outer if isinstance(lay, ComposedLayout) else lay
    shape = outer.shape if isinstance(outer.shape, tuple) else (outer.shape,)
    stride = outer.stride if isinstance(outer.stride, tuple) else (outer.stride,)
    mode0 = Layout(shape[0], stride[0])
    return str(ComposedLayout(lay.inner, lay.offset, mode0) if isinstance(lay, ComposedLayout) else mode0)


def _emit_partitions(module: Module, op, doc: Doc, smem_entry: str) -> None:
    """``equal`` of the atom's smem layout and stage 0 of each smem tensor a ``tma_partition`` of the atom
    partitions (the layout the TMA writes through and the one the kernel reads through), ``at`` the partition."""
    try:
        uses = kernel_uses(module, op)
    except CuteVerifyError as e:
        doc.unknown(f"TMA atom `{op.name}`", op.loc, f"its kernel arguments cannot be followed: {e}")
        return
    if not uses:
        doc.unknown(f"TMA atom `{op.name}`", op.loc, "no tma_partition of the kernel partitions it: the smem "
                    "tensor it writes is not compared with its smem layout")
    for part, _ in uses:
        try:
            if len(part.in_types) < 4:
                raise CuteVerifyError(f"tma_partition with {len(part.in_types)} operands (expected the atom, the "
                                      "CTA coordinate and layout, the smem tensor, the gmem tensor)")
            stage = tensor_stage(part.in_types[3])
        except CuteVerifyError as e:
            doc.unknown("tma_partition", part.loc, str(e))
            continue
        # the tensor's stage written out (not an entry: an equal text would be the atom's own entry, and the
        # claim would name one object twice)
        doc.claim({"equal": [smem_entry, stage]}, part.loc)


def _atom(module: Module, op, doc: Doc, arch: str) -> dict:
    if len(op.in_types) != 3 or not op.out_types:
        raise CuteVerifyError(f"expected (gmem tensor, smem layout, cta_v_map) -> atom, got {len(op.in_types)} "
                              "operands")
    g = memref(op.in_types[0])
    if g is None or g.space != "gmem" or g.layout_text is None:
        raise CuteVerifyError(f"operand 0 {op.in_types[0].text} is no gmem tensor")
    bits = elem_bits(g.elem)
    name = "v" + re.sub(r"\W+", "_", op.operands[0].lstrip("%"))
    gmem = doc.layout(f"g_{name}", named_dynamic(g.layout_text, name), op.loc)
    smem = doc.layout("s_tma", element_smem(module, op, bits), op.loc)
    tiler = layout_of(op.in_types[2])
    if tiler is None:
        raise CuteVerifyError(f"operand 2 {op.in_types[2].text} is no layout (the CTA tile's coordinate map)")
    cta = doc.layout("cta_v_map", str(tiler), op.loc)
    atom = op.out_types[0]
    body = {"op": "load" if op.name.endswith("_load") else "store", "dtype": g.elem, "gmem": gmem, "smem": smem,
            "cta_v_map": cta, "arch": arch}
    kind = _KIND.search(op.props.get("kind", ""))
    if kind:
        body["kind"] = kind.group(1)
    mc = re.match(r"\s*(\d+)", op.props.get("num_multicast", "1"))
    body["multicast"] = int(mc.group(1)) if mc else 1
    gb = atom.get("tma_gbasis") if isinstance(atom, TypeExpr) else None
    if gb is None:
        raise CuteVerifyError(f"the atom type {getattr(atom, 'text', atom)} has no tma_gbasis")
    body["gbasis"] = str(gb)
    return body


def _kernel_args(module: Module, func: str, n: int) -> list:
    """The first ``n`` block arguments of top-level function ``func`` (``%argN``: the printer numbers a
    function's block arguments in text order, so its entry block's come first, consecutive)."""
    start = next((i for i in range(4096) if module.type_of(f"%arg{i}", func) is not None), 0)
    return [f"%arg{start + i}" for i in range(n)]


def kernel_uses(module: Module, op) -> list:
    """The ``tma_partition`` ops that partition the atom ``op`` builds: the atom (``op``'s first result) is an
    operand of a launch (an op with a ``callee``) in ``op``'s function; the launch's operands after its
    ``cuda.launch_cfg`` are the kernel's entry arguments in order. Returns ``[(partition_op, kernel_arg)]``;
    a launch whose argument count or atom type does not match the kernel's is a CuteVerifyError."""
    atom = op.results[0]
    out = []
    for launch in module.ops:
        callee = launch.props.get("callee")
        if launch.func != op.func or callee is None or atom not in launch.operands:
            continue
        kernel = callee.rsplit("@", 1)[-1]
        passed = [(v, t) for v, t in zip(launch.operands, launch.in_types) if not t.name.startswith("cuda.launch_")]
        params = _kernel_args(module, kernel, len(passed))
        for (v, t), p in zip(passed, params):  # the launch passes what the kernel's entry block declares
            if str(module.type_of(p, kernel)) != str(t):
                raise CuteVerifyError(f"the launch of {kernel[:60]} passes {v}: {t}, the kernel's argument {p} "
                                      f"is {module.type_of(p, kernel)}")
        param = params[[v for v, _ in passed].index(atom)]
        out += [(p, param) for p in module.of("cute_nvgpu.atom.tma_partition")
                if p.func == kernel and p.operands and p.operands[0] == param]
    return out
