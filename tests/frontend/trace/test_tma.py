"""The TMA atoms of the committed CuTe DSL 4.8.1 captures (cuteverify.frontend.trace.emit_tma, the tma_atom kind of
cuteverify.frontend.manifest.claims_trace_tma).

Oracles: the capture itself is the DSL's answer: the box it computed (``tma_gbasis`` on the atom's type) and the
smem tensor its kernel's ``tma_partition`` partitions; the relation between the smem layout and the CTA tile map is
checked element by element with an evaluator of this file (no cuteverify code), and every claim on an unmodified
kernel is proved (the descriptor rules are the ones tests/hardware/test_tma_driver.py checks against the H200's
driver). Mutants of the capture text are refuted at the atom's (or the partition's) source line."""
from __future__ import annotations

import functools
import gzip
import re
from pathlib import Path

import pytest

from cuteverify.errors import ManifestError
from cuteverify.frontend import manifest as mf
from cuteverify.frontend.manifest.claims_trace_tma import derived_gbasis, multicast_box, smem_by_gmem_mode
from cuteverify.frontend.trace import emit_tma
from cuteverify.frontend.trace.document import Doc
from cuteverify.frontend.trace.mlir import read, read_file
from cuteverify.frontend.trace.types import layout_of, memref

DATA = Path(__file__).resolve().parents[1] / "trace_data"
# TMA atoms per capture: (loads, stores); the captures not listed have none (sm_80 kernels, the RMSNorm)
ATOMS = {"blackwell_dense_gemm_sm_100a": (2, 1), "fa4_fwd_sm_100a": (3, 1), "fa4_fwd_sm_90a": (3, 1),
         "hopper_dense_gemm_cluster2x2_sm_90a": (2, 1), "hopper_dense_gemm_sm_90a": (2, 1),
         "quack_gemm_sm_100a": (2, 1), "quack_gemm_sm_90a": (2, 1)}
ALL = sorted(p.name[: -len(".mlir.gz")] for p in DATA.glob("*.mlir.gz"))


@functools.lru_cache(maxsize=None)
def _module(name):
    return read_file(DATA / f"{name}.mlir.gz")


def _doc(module, name="k"):
    d = Doc(name)
    emit_tma.emit(module, d)
    return d


@functools.lru_cache(maxsize=None)
def _results(name):
    return tuple(mf.run(mf.load_text(_doc(_module(name), name).yaml())))


def _run_text(text):
    d = _doc(read(text))
    return d, mf.run(mf.load_text(d.yaml()))


@functools.lru_cache(maxsize=None)
def _text(name):
    return gzip.decompress((DATA / f"{name}.mlir.gz").read_bytes()).decode()


# ---------------------------------------------------------------- an evaluator that shares no code with cuteverify

def _tuple(s):
    """A printed nested tuple of ints / ``c@m`` / ``?``: nested Python tuples (``c@m`` -> ("b", c, m))."""
    toks = re.findall(r"\(|\)|,|[^(),]+", s.replace(" ", ""))
    pos = 0

    def item():
        nonlocal pos
        if toks[pos] == "(":
            pos += 1
            out = []
            while toks[pos] != ")":
                if toks[pos] == ",":
                    pos += 1
                    continue
                out.append(item())
            pos += 1
            return tuple(out)
        t = toks[pos]
        pos += 1
        if "@" in t:
            c, m = t.split("@")
            return ("b", int(c), int(m))
        return int(t)
    return item()


def _leaves(shape, stride):
    if isinstance(shape, tuple):
        return [x for s, d in zip(shape, stride) for x in _leaves(s, d)]
    return [(shape, stride)]


def _split(text):
    """``S<..> o off o L`` or ``L`` -> the flattened leaves of L, mode by mode."""
    body = text.split(" o ")[-1]
    sh, st = body.split("):(") if body.startswith("(") and "):(" in body else body.split(":")
    sh, st = (sh + ")", "(" + st) if body.startswith("(") and "):(" in body else (sh, st)
    shape, stride = _tuple(sh), _tuple(st)
    if not isinstance(shape, tuple):
        shape, stride = (shape,), (stride,)
    return [_leaves(s, d) for s, d in zip(shape, stride)]


def _eval(modes, x):
    """The layout given by ``modes`` (leaves per mode) at linear index ``x`` (colexicographic): an int, or for basis
    strides a dict gmem mode -> coordinate."""
    out_int, out_basis = 0, {}
    for leaves in modes:
        for n, d in leaves:
            c, x = x % n, x // n
            if isinstance(d, tuple):
                out_basis[d[2]] = out_basis.get(d[2], 0) + c * d[1]
            else:
                out_int += c * d
    return out_basis if out_basis else out_int


def _size(modes):
    n = 1
    for leaves in modes:
        for s, _ in leaves:
            n *= s
    return n


def _gbasis(text):
    return tuple((e, d[2]) for e, d in zip(_tuple(text.split("):(")[0] + ")"),
                                           _tuple("(" + text.split("):(")[1])))


def _atoms(name):
    return _module(name).of(*emit_tma.TMA_OPS)


# --------------------------------------------------------------------------------------------------- the tests

@pytest.mark.parametrize("name", ALL)
def test_every_tma_atom_maps_to_one_claim(name):
    ops = _atoms(name)
    loads = sum(op.name.endswith("_load") for op in ops)
    assert (loads, len(ops) - loads) == ATOMS.get(name, (0, 0))
    d = _doc(_module(name), name)
    claims = [c for c in d.claims if "tma_atom" in c]
    assert len(claims) == len(ops) and not d.unknowns
    # each claim at its op's source line, with the op's own objects
    for op, c in zip(ops, claims):
        assert c["at"] == op.loc.describe()
        assert c["tma_atom"]["gbasis"] == op.out_types[0].get("tma_gbasis")
        assert c["tma_atom"]["multicast"] == int(op.props.get("num_multicast", "1 : i32").split()[0])


@pytest.mark.parametrize("name", sorted(ATOMS))
def test_smem_by_gmem_mode_is_the_kernels_relation(name):
    """For every tile coordinate x of every atom: S'(cta_v_map(x)) == smem(x), evaluated here."""
    for op in _atoms(name):
        smem_text, tiler_text = op.in_types[1].args[0], op.in_types[2].args[0]
        sp, ext = smem_by_gmem_mode(layout_of(op.in_types[1]), layout_of(op.in_types[2]))
        s_modes, t_modes = _split(smem_text), _split(tiler_text)
        p_modes = _split(str(sp))
        assert _size(s_modes) == _size(t_modes) == _size(p_modes)
        for x in range(_size(s_modes)):
            g = _eval(t_modes, x)
            gi = 0  # S' is indexed by the gmem coordinate, mode m of extent ext[m], colexicographic
            for m in reversed(range(len(ext))):
                gi = gi * ext[m] + g.get(m, 0)
            assert _eval(p_modes, gi) == _eval(s_modes, x), (name, op.loc, x)
        assert str(sp).startswith(smem_text.split(" o ")[0]) or " o " not in smem_text  # the swizzle is kept


@pytest.mark.parametrize("name", sorted(ATOMS))
def test_box_equals_the_dsls_tma_gbasis(name):
    """cuteverify's box (construct_tma_gbasis's) is the box the DSL computed, on every atom of the real kernels."""
    for op in _atoms(name):
        g = memref(op.in_types[0])
        rank = len(re.findall(r"[?\d]+(?:\{[^}]*\})?", g.layout_text.split("):(")[0]))
        sp, _ = smem_by_gmem_mode(layout_of(op.in_types[1]), layout_of(op.in_types[2]))
        assert derived_gbasis(sp, rank) == _gbasis(op.out_types[0].get("tma_gbasis")), (name, op.loc)


@pytest.mark.parametrize("name", sorted(ATOMS))
def test_unmodified_kernels_prove(name):
    res = _results(name)
    assert res and all(r["status"] == "proved" for r in res), [(r["at"], r.get("reason")) for r in res
                                                                 if r["status"] != "proved"]
    for r in (r for r in res if r["kind"] == "tma_atom"):
        # the one precondition no type states: each dynamic gmem stride below 2**40 bytes
        obl = [o["text"] for o in r["obligations"]]
        assert obl and all(re.fullmatch(r"2\*\w+_stride\d+ < 1099511627776", o) for o in obl), obl
        assert {x["name"]: x["status"] for x in r["rules"]}["box_lands"] == "proved"
    # one equal claim per tma_partition of each atom: the smem the TMA writes is the smem the kernel reads
    assert sum(r["kind"] == "equal" for r in res) >= len(_atoms(name)) - (name == "quack_gemm_sm_100a")


def _mutate(name, old, new, count=1):
    text = _text(name)
    assert text.count(old) == count, (old, text.count(old))
    return text.replace(old, new)


def _mutate_line(name, marker, old, new):
    """The capture with ``old`` replaced by ``new`` on the one line that holds ``marker``."""
    lines = _text(name).split("\n")
    at = [i for i, line in enumerate(lines) if marker in line]
    assert len(at) == 1 and old in lines[at[0]], (marker, len(at))
    lines[at[0]] = lines[at[0]].replace(old, new)
    return "\n".join(lines)


def _reason(r):
    return r.get("reason") or r["counterexample"]["text"]


def _refuted(results):
    return [(r["kind"], r["at"].split("/")[-1].split(":")[1], r) for r in results if r["status"] == "refuted"]


def _failing_rules(r):
    return {x["name"] for x in r.get("rules", []) if x["status"] != "proved"}


HOPPER = "hopper_dense_gemm_cluster2x2_sm_90a"
BLACKWELL = "blackwell_dense_gemm_sm_100a"


def test_gmem_stride_not_16_byte_divisible_is_refuted_at_each_atom():
    # the f16 gmem tensors' leading stride: ?{i64 div=8} (16 bytes) -> ?{i64 div=4} (8 bytes)
    old = '!memref_gmem_f16 = !cute.memref<f16, gmem, align<16>, "(?{div=8},?{div=8},?{div=8}):(?{i64 div=8},1,'
    _, res = _run_text(_mutate(BLACKWELL, old, old.replace("?{i64 div=8},1", "?{i64 div=4},1")))
    bad = _refuted(res)
    assert sorted(line for _, line, _ in bad) == ["382", "399", "420"]
    assert all(kind == "tma_atom" and "stride_alignment" in _failing_rules(r) for kind, _, r in bad)
    assert all("bytes, not a multiple of 16" in r["counterexample"]["text"] for *_, r in bad)


def test_box_over_256_is_refuted_at_the_atom():
    # atom A's smem stage and CTA tile made 512 rows (and the DSL's box with them: the box alone is wrong)
    text = _mutate(BLACKWELL, "((128,16),1,4):((64,1),0,16)\">, !cute.layout<\"((128,16),1,4):((1@0,1@1),0,16@1)\">",
                   "((512,16),1,4):((64,1),0,16)\">, !cute.layout<\"((512,16),1,4):((1@0,1@1),0,16@1)\">")
    lines = text.split("\n")
    i = next(i for i, line in enumerate(lines) if "make_non_exec_tiled_tma_load\"(%arg0," in line)
    lines[i] = lines[i].replace('tma_gbasis = <"(64,128,1):', 'tma_gbasis = <"(64,512,1):')
    _, res = _run_text("\n".join(lines))
    atom = [(line_no, r) for kind, line_no, r in _refuted(res) if kind == "tma_atom"]
    assert [n for n, _ in atom] == ["382"] and "box_dims" in _failing_rules(atom[0][1])
    assert "box dim 1 is 512 > 256" in atom[0][1]["counterexample"]["text"]


def test_box_other_than_the_dsls_is_refuted_at_the_atom():
    text = _mutate_line(BLACKWELL, 'make_non_exec_tiled_tma_load"(%arg1,', 'tma_gbasis = <"(64,64,1):',
                        'tma_gbasis = <"(64,32,1):')
    _, res = _run_text(text)
    bad = _refuted(res)
    assert [(k, n) for k, n, _ in bad] == [("tma_atom", "399")]
    assert "(64,64,1):(1@1,1@0,1@2) differs from the DSL's tma_gbasis (64,32,1)" in _reason(bad[0][2])


def test_swizzle_of_the_atom_other_than_the_smem_tensors_is_refuted():
    # the atom's smem layout made 64B-swizzled; the kernel's smem tensor keeps the 128B swizzle on its pointer
    text = _mutate(BLACKWELL, '!cute.composed_layout<"S<3,4,3> o 0 o ((64,16),1,4):((64,1),0,16)">, !cute.layout',
                   '!cute.composed_layout<"S<2,4,3> o 0 o ((64,16),1,4):((64,1),0,16)">, !cute.layout')
    _, res = _run_text(text)
    bad = {(k, n): r for k, n, r in _refuted(res)}
    assert set(bad) == {("tma_atom", "399"), ("equal", "667")}
    assert "swizzle_span" in _failing_rules(bad[("tma_atom", "399")])


def test_smem_tensor_pointer_swizzle_other_than_the_atoms_is_refuted_at_the_partition():
    # the kernel reads sA through a 64B-swizzled pointer while the TMA writes it with the 128B swizzle
    alias = re.search(r"^(!memref_smem_f16_3 = !cute\.memref<f16, smem, align<1024>, )S<3,4,3>", _text(HOPPER), re.M)
    text = _mutate(HOPPER, alias.group(0), alias.group(1) + "S<2,4,3>")
    _, res = _run_text(text)
    bad = _refuted(res)
    assert [(k, n) for k, n, _ in bad] == [("equal", "682")]


def test_multicast_needs_the_cluster():
    text = _mutate(HOPPER, "exact_cluster_dim = array<i64: 2, 2, 1>", "exact_cluster_dim = array<i64: 1, 1, 1>")
    _, res = _run_text(text)
    bad = _refuted(res)
    assert [(k, n) for k, n, _ in bad] == [("tma_atom", "1218"), ("tma_atom", "1218")]
    assert all("num_multicast 2 divides neither cluster extent" in _reason(r) for *_, r in bad)


def test_two_sm_load_needs_a_cta_pair():
    text = _mutate(BLACKWELL, "exact_cluster_dim = array<i64: 2, 1, 1>", "exact_cluster_dim = array<i64: 1, 1, 1>")
    _, res = _run_text(text)
    bad = _refuted(res)
    assert [(k, n) for k, n, _ in bad] == [("tma_atom", "382"), ("tma_atom", "399")]
    assert all("odd x extent 1" in _reason(r) for *_, r in bad)


@pytest.mark.parametrize("name", sorted(ATOMS))
def test_atom_swizzle_is_the_pointer_swizzle_of_the_tensor_it_fills(name):
    """Provenance of the unit: the swizzle in the atom's composed smem layout is, as printed, the byte swizzle on the
    pointer of the smem tensor its kernel's tma_partition partitions (so both act on byte addresses)."""
    m = _module(name)
    for op in _atoms(name):
        uses = emit_tma.kernel_uses(m, op)
        assert len(uses) == 1
        atom_sw = re.match(r"(S<\d+,\d+,\d+>) o ", op.in_types[1].args[0]).group(1)
        tensor_sw = re.search(r"S<\d+,\d+,\d+>", uses[0][0].in_types[3].text).group(0)
        assert atom_sw == tensor_sw, (name, op.loc)


def test_element_smem_lowers_the_byte_swizzle():
    """The DSL's sm90 smem atom S<3,4,3> o 0 o ... handed to the A / B TMA atoms of the Hopper GEMM: its swizzle
    is a pointer (byte) swizzle by the kernel's own use of it (smem_units), lowered to S<3,3,3> for f16."""
    m = read_file(DATA / "hopper_dense_gemm_sm_90a.mlir.gz")
    ops = m.of("cute_nvgpu.atom.make_non_exec_tiled_tma_load")
    texts = [emit_tma.element_smem(m, op, 16) for op in ops]
    assert texts and all(t.startswith("S<3,3,3> o 0 o ") for t in texts), texts
    assert all(t.split(" o ", 2)[2] == op.in_types[1].args[0].split(" o ", 2)[2] for t, op in zip(texts, ops))


def test_named_dynamic_keeps_facts_and_names_leaves_by_index():
    assert emit_tma.named_dynamic("(?{div=8},128,?):(128,1,?{i64 div=64})", "a") == \
        "(?a_shape0{div=8},128,?a_shape2):(128,1,?a_stride2{i64 div=64})"


_MANIFEST = """version: 1
kernels:
  k:
    layouts:
      g: "(?M{div=8},?K{div=8}):(?S{i64 div=8},1)"
      s: "S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))"
      t: "(128,64):(1@0,1@1)"
    claims:
    - tma_atom: {dtype: f16, gmem: g, smem: s, cta_v_map: t%s}
"""


def test_tma_atom_in_a_written_manifest():
    (r,) = mf.run(mf.load_text(_MANIFEST % ', gbasis: "(64,128):(1@1,1@0)"'))
    assert r["status"] == "proved" and [o["text"] for o in r["obligations"]] == ["2*S < 1099511627776"]
    # the facts of the text are used: without div=8 on the stride the row pitch may be 2 bytes
    (r,) = mf.run(mf.load_text((_MANIFEST % "").replace("?S{i64 div=8}", "?S")))
    assert r["status"] == "refuted" and "stride_alignment" in _failing_rules(r)


def test_tma_atom_bad_input_names_the_field():
    with pytest.raises(ManifestError, match="gbasis") as e:
        mf.load_text(_MANIFEST % ', gbasis: "(64,128):(2@1,1@0)"')
    assert e.value.line == 9
    with pytest.raises(ManifestError, match="cta_v_map"):
        mf.load_text(_MANIFEST.replace(", cta_v_map: t%s", "") % ())
    with pytest.raises(ManifestError, match="no swizzle") as e:
        mf.load_text(_MANIFEST.replace('g: "(?M{div=8}', 'g: "S<3,4,3> o 0 o (?M{div=8}') % "")
    assert e.value.line == 9
    # a CTA tile map that repeats a gmem coordinate relates no smem layout to the tile: unknown, with why
    (r,) = mf.run(mf.load_text(_MANIFEST.replace("(128,64):(1@0,1@1)", "(128,64):(1@0,0)") % ""))
    assert r["status"] == "unknown" and "repeats a gmem coordinate" in r["reason"]


def test_multicast_box_walks_from_the_outermost_dimension():
    """CUTLASS's truncation (make_tma_copy_desc), written out: (64,128,1) over 2 CTAs -> (64,64,1)."""
    assert multicast_box((64, 128, 1), 2) == ((64, 64, 1), None)
    assert multicast_box((64, 2, 1), 4) == ((32, 1, 1), None)
    assert multicast_box((64, 128, 1), 1) == ((64, 128, 1), None)
    assert multicast_box((64, 6, 1), 4)[1] == ("multicast over 4 CTAs: box dimension 1 is 6, 4 CTAs left: neither "
                                               "divides the other")
    assert "fewer elements than CTAs" in multicast_box((2, 1), 4)[1]


def test_multicast_that_cuts_the_inner_box_below_16_bytes_is_refuted():
    # a (8 x 2) f16 tile multicast over 4 CTAs: CUTLASS cuts the inner box to 4 elements, 8 bytes
    text = (_MANIFEST % ', multicast: 4, kind: sm_90_multicast, gbasis: "(8,2):(1@1,1@0)"').replace(
        "S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))", "(2,8):(8,1)").replace("(128,64):(1@0,1@1)", "(2,8):(1@0,1@1)")
    (r,) = mf.run(mf.load_text(text))
    assert r["status"] == "refuted" and "cuts the inner box to 4 elements (8 bytes)" in _reason(r)
    # over 2 CTAs the cut stops at the outer dimension (2 rows -> 1): the inner box keeps its 16 bytes
    (r,) = mf.run(mf.load_text(text.replace("multicast: 4", "multicast: 2")))
    assert r["status"] == "proved", _reason(r)
