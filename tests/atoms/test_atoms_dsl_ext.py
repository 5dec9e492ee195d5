"""Differential test of the atom layer's slices against CuTe DSL 4.8.1 (CPU; tests/oracles/dsl_atoms.py): on generated
tiled MMAs (the atoms, atom layouts and permutations of tests/atoms/test_atoms_dsl.py, another seed)

* ``make_tiled_copy_C_atom`` (epilogue copies: UniversalCopy of 16..128 bits, stmatrix) and its three TV layouts
  and tiler;
* ``get_slice(tid).partition_S`` / ``partition_D`` of A, B, C and C-atom tiled copies on column- and row-major
  tensors larger than the tile (layout, and offset against DSL's identity-tensor coordinate);
* ``partition_fragment_A/B/C`` (DSL: ``make_fragment_X(partition_X(rmem))``) and ``partition_shape_X``;
* ``retile`` of the C fragment by C and C-atom copies (what an epilogue does before its copy).

Every layout is compared printed and as a function (both evaluated at every index, independently of the
library); a case CuTe DSL refuses that we build is a failure, and the converse is counted.
"""
from __future__ import annotations

import os
import random

import pytest

import cuteverify as cv
import cuteverify.atoms as at

base = pytest.importorskip("test_atoms_dsl")
dsl_atoms = pytest.importorskip("dsl_atoms")
pytestmark = pytest.mark.skipif(not dsl_atoms.available(), reason="CuTe DSL not installed")

_MK = {"A": at.make_tiled_copy_A, "B": at.make_tiled_copy_B, "C": at.make_tiled_copy_C,
       "Catom": at.make_tiled_copy_C_atom}
_TILE = {"A": (0, 2), "B": (1, 2), "C": (0, 1), "Catom": (0, 1)}


def _tensor(rng, m, n):
    """A tensor layout over (m, n) coordinates: column-major, row-major or padded."""
    r = rng.random()
    if r < 0.4:
        return ((m, n), None)
    if r < 0.8:
        return ((m, n), (n, 1))
    return ((m, n), (1, m + 8))


def _catom_copies(rng, acc):
    cbits = {"Float16": 16, "Float32": 32, "Int32": 32}[acc]
    out = [["Catom", ["universal", rng.choice([b for b in (16, 32, 64, 128) if b >= cbits])], acc]]
    if cbits == 16:
        out.append(["Catom", ["stsm", rng.random() < 0.3, rng.choice([1, 2, 4])], acc])
    return out


def _cases(seed=1515):
    rng = random.Random(seed)
    atoms = base.WARP * 12 + base._wgmma(rng)
    cases = []
    for name, op, ab, acc in atoms:
        wg = op[0].startswith("wg")
        ss = "_SS" in name
        alay = base._atom_layout(rng, wg)
        spec = at.make_mma_atom(name)
        thr = [alay[0][i] for i in range(3)]
        perm = None
        if rng.random() > 0.4:
            perm = []
            for i in range(3):
                b = spec.shape_mnk[i] * thr[i]
                x = rng.random()
                perm.append(None if x < 0.3 else b * rng.choice([1, 2]) if x < 0.7 or wg else
                            base._perm_layout(b * rng.choice([1, 2]), rng))
        copies = base._copies(rng, ab, acc, ss) + _catom_copies(rng, acc)
        t = at.make_tiled_mma(name, cv.Layout(*alay), base._ours_perm(perm))
        nthr = t.size
        tiles = [t.get_tile_size(i) for i in range(3)]
        cparts, retiles = [], []
        for ci, (opnd, _, _) in enumerate(copies):
            i, j = _TILE[opnd]
            cparts.append([ci, rng.randrange(nthr), _tensor(rng, tiles[i] * rng.choice([1, 2]), tiles[j])])
            if opnd in ("C", "Catom"):
                retiles.append([ci, rng.randrange(nthr), ((tiles[0], tiles[1] * rng.choice([1, 2])), None)])
        frags = [["C", rng.randrange(nthr), _tensor(rng, tiles[0] * 2, tiles[1]), acc]]
        if ss:  # descriptors: K-major shared memory (row-major (M,K) / (N,K)), K a multiple of 16 bytes
            for o, i in (("A", 0), ("B", 1)):
                k = tiles[2] * rng.choice([1, 2])
                frags.append([o, rng.randrange(nthr), ((tiles[i], k), (k, 1)), ab, "smem"])
        else:
            frags += [[o, rng.randrange(nthr), _tensor(rng, tiles[i], tiles[2] * rng.choice([1, 2])), ab]
                      for o, i in (("A", 0), ("B", 1)) if not (wg and o == "B")]
        cases.append(dict(name=name, mma=op, atom_layout=alay, perm=perm, copies=copies, cparts=cparts,
                          frags=frags, retiles=retiles))
    return cases


def _unit_free(shape):
    """A shape's text without size-1 entries inside its first mode (wgmma N=8: CUTLASS's CLayout_64xN<8> keeps
    a mode Int<N/8> = 1 that CuTe DSL 4.8.1 drops, see test_atoms_dsl._same)."""
    s = shape if isinstance(shape, tuple) else cv.parse_tuple(shape.replace(" ", ""))
    first = cv.parse_tuple(base._drop_unit_leaves(str(cv.Layout(s[0]))).split(":")[0])
    return (first,) + tuple(s[1:])


def _build_copy(case, t, ci):
    opnd, cop, dtype = case["copies"][ci]
    return _MK[opnd](at.make_copy_atom(base._copy_name(cop), base.DT[dtype]), t)


def _compare(case, res, failures, stats):
    label = f"{case['name']} {case['atom_layout']} {case['perm']}"
    t = at.make_tiled_mma(case["name"], cv.Layout(*case["atom_layout"]), base._ours_perm(case["perm"]))
    built = {}
    for ci, ((opnd, cop, dtype), r) in enumerate(zip(case["copies"], res["copies"])):
        clabel = f"{label} copy_{opnd} {base._copy_name(cop)} {dtype}"
        try:
            tc = _build_copy(case, t, ci)
        except cv.CuteVerifyError as e:
            if isinstance(r, str):
                stats["both_refuse"] += 1
            elif base._cxx_refuses(r, cop):
                stats["cxx_static_assert"] += 1
            else:
                failures.append(f"{clabel}: we refused ({e}) but DSL built {r['tiled']}")
            continue
        if isinstance(r, str):
            stats["dsl_only_refuses"] += 1
            continue
        built[ci] = tc
        if opnd == "Catom":
            for key, lay in (("tiled", tc.layout_tv_tiled), ("src", tc.layout_src_tv_tiled),
                             ("dst", tc.layout_dst_tv_tiled)):
                base._same(f"{clabel} {key}", lay, r[key], failures)
            if base._tiler(tc) != r["tiler"]:
                failures.append(f"{clabel}: tiler {base._tiler(tc)} vs DSL {r['tiler']}")
            stats["c_atom"] += 1
    for (ci, tid, L), r in zip(case["cparts"], res["cparts"]):
        if ci not in built or isinstance(r, str):
            stats["cpart_skipped"] += 1
            continue
        layout = cv.Layout(*L)
        thr = built[ci].get_slice(tid)
        for side, part, (lay_txt, crd) in (("S", thr.partition_S(layout), r[:2]),
                                           ("D", thr.partition_D(layout), r[2:])):
            plabel = f"{label} copy {case['copies'][ci][0]} {base._copy_name(case['copies'][ci][1])} " \
                     f"partition_{side}({tid}) of {layout}"
            base._same(plabel, part.layout, lay_txt, failures)
            if part.offset != layout(cv.parse_tuple(crd)):
                failures.append(f"{plabel}: offset {part.offset} vs DSL coordinate {crd}")
            stats["partition_SD"] += 1
    for (opnd, tid, L, *_), r in zip(case["frags"], res["frags"]):
        flabel = f"{label} partition_fragment_{opnd}({tid}) of {cv.Layout(*L)}"
        if isinstance(r, str):
            failures.append(f"{flabel}: DSL refused ({r[:100]})")
            continue
        frag = t.get_slice(tid).partition_fragment(opnd, cv.Layout(*L))
        base._same(flabel, frag, r[0], failures, stats)
        shape = t.partition_shape(opnd, cv.Layout(*L).shape)
        if str(shape) != r[1] and not ("_64x8x" in label and _unit_free(shape) == _unit_free(r[1])):
            failures.append(f"{flabel}: partition_shape {shape} vs DSL {r[1]}")
        stats["fragment"] += 1
    for (ci, tid, L), r in zip(case["retiles"], res["retiles"]):
        if ci not in built or r.startswith("ERR"):
            stats["retile_skipped"] += 1
            continue
        frag = t.get_slice(tid).partition_fragment_C(cv.Layout(*L))
        base._same(f"{label} retile {base._copy_name(case['copies'][ci][1])} of {frag}", built[ci].retile(frag),
                   r, failures)
        stats["retile"] += 1


def test_slices_and_epilogue_copies_against_cute_dsl():
    cases = _cases()
    results = dsl_atoms.run([{k: v for k, v in c.items() if k != "name"} for c in cases])
    failures = []
    stats = dict(configs=0, c_atom=0, partition_SD=0, fragment=0, retile=0, both_refuse=0, dsl_only_refuses=0,
                 cxx_static_assert=0, n8_unit_mode=0, cpart_skipped=0, retile_skipped=0)
    for case, res in zip(cases, results):
        assert not isinstance(res, dsl_atoms.DslError), (case, res)
        stats["configs"] += 1
        _compare(case, res, failures, stats)
    print("atom-layer slices differential:", stats)
    if os.environ.get("CUTEVERIFY_DIFF_OUT"):
        with open(os.environ["CUTEVERIFY_DIFF_OUT"], "w") as f:
            f.write("\n".join(failures))
    assert not failures, f"{len(failures)} differences, e.g.:\n" + "\n".join(failures[:15])
    assert stats["configs"] >= 150 and stats["c_atom"] >= 150 and stats["partition_SD"] >= 600, stats
    assert stats["dsl_only_refuses"] <= stats["configs"] // 20, stats
