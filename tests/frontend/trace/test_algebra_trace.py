"""The algebra differential (cuteverify.frontend.trace.emit_algebra) on the 12 committed CuTe DSL 4.8.1 captures:
every layout-algebra op the kernels ran is recomputed by cuteverify (or named as not recomputed, with why), and
each recomputation is claimed ``equal`` to the DSL's printed result; the manifest checker must prove them all.
A result text changed in memory must be refuted at the op's own line (the claims can fail).

Disagreements this differential found, each checked against CuTe C++ (g++, the CUTLASS headers) and fixed in
cuteverify with its own regression test: divides by a tiler with a nested tiler mode
(tests/algebra/test_nested_tiler_unzip.py), ``local_tile`` with a coordinate longer than ``proj``
(tests/atoms/test_local_tile_proj_rank.py); and ``make_ordered_layout`` / ``make_layout_like`` were added
(tests/algebra/test_ordered_layout.py)."""
import collections
import gzip
import time
from pathlib import Path

import pytest

from cuteverify.frontend import manifest
from cuteverify.frontend.trace.document import Doc
from cuteverify.frontend.trace.emit_algebra import emit
from cuteverify.frontend.trace.mlir import read, read_file

DATA = Path(__file__).resolve().parents[1] / "trace_data"
CAPTURES = sorted(DATA.glob("*.mlir.gz"))


def _check(module, name):
    doc = Doc(name, name)
    t0 = time.perf_counter()
    counts = emit(module, doc)
    t1 = time.perf_counter()
    results = manifest.run(manifest.load_text(doc.yaml(), f"{name}.cute.yaml"))
    t2 = time.perf_counter()
    return doc, counts, results, (t1 - t0, t2 - t1)


@pytest.fixture(scope="module")
def checked():
    return {p.name.split(".")[0]: _check(read_file(p), p.name.split(".")[0]) for p in CAPTURES}


def test_every_algebra_op_recomputed_or_named(checked, capsys):
    total = collections.defaultdict(lambda: [0, 0, 0])
    emit_s = check_s = 0.0
    for name, (doc, counts, results, (te, tc)) in checked.items():
        emit_s, check_s = emit_s + te, check_s + tc
        for k, v in counts.items():
            total[k] = [a + b for a, b in zip(total[k], v)]
        # each op not recomputed, or recomputed only on its static modes, is an unknown or a note (the DSL
        # printed only runtime values there) of the document, never skipped silently, with its line and why
        assert len(doc.unknowns) + len(doc.notes) == sum(p + s for _, p, s in counts.values()), name
        assert all(u.loc.file and u.why for u in doc.unknowns + doc.notes)
        assert all("runtime values (?)" in u.why for u in doc.notes)
        assert len(results) >= sum(w + p for w, p, _ in counts.values()), name
    with capsys.disabled():
        print(f"\nalgebra differential over {len(checked)} captures (distinct ops per capture): "
              f"emit {emit_s:.2f} s, check {check_s:.2f} s")
        for k, (w, p, s) in sorted(total.items()):
            print(f"  {k:28s} whole {w:4d}  static modes only {p:3d}  not recomputed {s:3d}")
        w, p, s = (sum(v[i] for v in total.values()) for i in range(3))
        print(f"  {'all':28s} whole {w:4d}  static modes only {p:3d}  not recomputed {s:3d}")
    assert len(CAPTURES) == 12 and w >= 1050 and p >= 90 and s <= 40
    # the kinds recomputed whole wherever they occur (their operands and results are static in every capture)
    for kind in ("cute.composition", "cute.raked_product", "cute.tile_to_shape", "cute.right_inverse",
                 "cute.left_inverse", "cute.make_ordered_layout", "cute.make_layout_like", "cute.recast_layout",
                 "cute.coalesce", "cute.make_composed_layout"):
        assert total[kind][0] > 0 and total[kind][1:] == [0, 0], kind


def test_every_equal_claim_is_proved(checked):
    bad = [(name, r["at"] if "at" in r else r["line"], r["claim"], r["status"], r["what"])
           for name, (_, _, results, _) in checked.items() for r in results if r["status"] != "proved"]
    assert not bad, bad[:5]
    assert all(r["kind"] == "equal" for _, _, results, _ in checked.values() for r in results)


def test_claims_carry_the_ops_line(checked):
    doc = checked["ampere_tensorop_gemm_sm_80"][0]
    ats = [c["at"] for c in doc.claims]
    assert all("ampere_tensorop_gemm.py:" in a or ".py:" in a for a in ats)
    assert any("tile_to_shape" in a for a in ats)


def _mutated(capture, op, old, new):
    """The capture with ``old`` replaced by ``new`` on the one line of op ``op`` that holds it, and that line."""
    lines = gzip.decompress(capture.read_bytes()).decode().splitlines()
    hits = [i for i, line in enumerate(lines) if f'"{op}"' in line and old in line]
    assert len(hits) == 1, hits
    lines[hits[0]] = lines[hits[0]].replace(old, new)
    return read("\n".join(lines), str(capture)), hits[0] + 1


@pytest.mark.parametrize("op,old,new", [
    # the smem A layout of the Ampere GEMM (tile_to_shape of the 8x32 atom), two strides swapped
    ("cute.tile_to_shape", '"((8,16),(32,1),(1,4)):((32,256),(1,0),(0,4096))"',
     '"((8,16),(32,1),(1,4)):((256,32),(1,0),(0,4096))"'),
    # the thread-value layout of make_tiled_copy_tv (raked_product), the value mode's strides swapped
    ("cute.raked_product", '"(32,(8,4)):(4,(128,1))"', '"(32,(8,4)):(4,(1,128))"'),
])
def test_mutated_result_is_refuted_at_its_line(op, old, new):
    capture = DATA / "ampere_tensorop_gemm_sm_80.mlir.gz"
    module, line_no = _mutated(capture, op, old, new)
    target = next(o for o in module.ops if o.line == line_no)
    assert target.name == op
    _, _, results, _ = _check(module, "mutant")
    refuted = [r for r in results if r["status"] != "proved"]
    assert [r["status"] for r in refuted] == ["refuted"], refuted
    assert refuted[0]["at"] == target.loc.describe()
    assert refuted[0]["counterexample"] is not None


_SMALL = "\n".join([
    # static: recomputed and proved
    '%2 = "cute.composition"(%0, %1) : (!cute.layout<"(4,2):(2,1)">, !cute.layout<"8:1">) -> '
    '!cute.layout<"(4,2):(2,1)"> loc("k.py":3:1)',
    # a dynamic result: each ? is a fresh unknown, named with why
    '%3 = "cute.logical_divide"(%0, %1) : (!cute.layout<"(?{div=8},4):(1,?)">, !cute.tile<"[8:1]">) -> '
    '!cute.layout<"((8,?),4):((1,8),?)"> loc("k.py":4:1)',
    # cuteverify refuses (the block does not divide the target): an unknown, not a broken document
    '%4 = "cute.tile_to_shape"(%0, %1, %2) : (!cute.layout<"(3,2):(1,3)">, !cute.shape<"(8,8)">, '
    '!cute.int_tuple<"(0,1)">) -> !cute.layout<"(8,8):(1,8)"> loc("k.py":5:1)',
    # a wrong DSL answer: refuted at its line
    '%5 = "cute.coalesce"(%0) : (!cute.layout<"(4,2):(1,4)">) -> !cute.layout<"8:2"> loc("k.py":6:1)',
    # a dynamic result: its static mode 0 is claimed (and proved), mode 1 named as an unknown
    '%6 = "cute.group_modes"(%0) <{begin = 0 : i32, end = 2 : i32}> : (!cute.layout<"(4,2,?):(1,4,8)">) -> '
    '!cute.layout<"((4,2),?):((1,4),8)"> loc("k.py":7:1)',
    # the same with a wrong static mode: refuted at its line
    '%7 = "cute.group_modes"(%0) <{begin = 0 : i32, end = 2 : i32}> : (!cute.layout<"(4,2,?):(1,4,16)">) -> '
    '!cute.layout<"((4,2),?):((4,1),16)"> loc("k.py":8:1)',
])


def test_unknowns_and_refutations_on_a_small_module():
    doc, counts, results, _ = _check(read(_SMALL, "small.mlir"), "small")
    assert counts == {"cute.composition": [1, 0, 0], "cute.logical_divide": [0, 0, 1],
                      "cute.tile_to_shape": [0, 0, 1], "cute.coalesce": [1, 0, 0], "cute.group_modes": [0, 2, 0]}
    why = {u.loc.line: u.why for u in doc.unknowns + doc.notes}
    assert [u.loc.line for u in doc.unknowns] == [5] and "refuses" in why[5] and "divide" in why[5]
    assert "runtime values" in why[4]
    assert "static modes [0] checked" in why[7] and "modes [1]" in why[7]
    assert [(r["at"], r["status"]) for r in results] == [
        ("k.py:3", "proved"), ("k.py:6", "refuted"), ("k.py:7", "proved"), ("k.py:7", "proved"),
        ("k.py:8", "refuted"), ("k.py:8", "proved")]  # each: the static mode, then mode 1's static stride


def test_static_stride_beside_a_dynamic_extent_is_compared():
    """Hopper's local_tile of the A coordinate tensor prints (128,64,?):(1@1,1@0,64@0): the k-tile mode has a
    dynamic extent but a static stride 64@0. Changing it to 32@0 is refuted at the local_tile's line (review of
    issue 28: only wholly static modes were compared)."""
    capture = DATA / "hopper_dense_gemm_sm_90a.mlir.gz"
    module, line_no = _mutated(capture, "cute.local_tile", '"(128,64,?):(1@1,1@0,64@0)"',
                               '"(128,64,?):(1@1,1@0,32@0)"')
    target = next(o for o in module.ops if o.line == line_no)
    _, _, results, _ = _check(module, "mutant")
    refuted = [r for r in results if r["status"] == "refuted"]
    assert refuted and all(r["at"] == target.loc.describe() for r in refuted), refuted
    _, _, original, _ = _check(read_file(capture), "original")
    assert not [r for r in original if r["status"] == "refuted"]
