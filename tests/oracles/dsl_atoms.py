"""CuTe DSL oracle for the atom layer: tiled MMAs, tiled copies, partitions, evaluated by CuTe DSL 4.8.1 on the
CPU (dry run, ``CUTE_DSL_ARCH=sm_90a`` so the warpgroup ops trace), batched in one ``@cute.jit`` trace.

Same conventions as ``tests/oracles/dsl_oracle.py`` (whose interpreter choice, environment and ``DslError`` this
reuses): everything runs in a subprocess; results are ``str()`` of what DSL returns; a case DSL raises for gives
``DslError``; a case that kills the worker is blamed and the worker restarted after it.

Case (a dict, Python literals only)::

    {"mma": OP, "atom_layout": LAYOUT, "perm": None | [ENTRY, ...],
     "copies": [["A"|"B"|"C"|"Catom", COPY, DTYPE], ...],  # make_tiled_copy_A/B/C/C_atom
     "parts": [["A"|"B"|"C", tid, LAYOUT], ...],            # thread partitions of rmem / identity tensors
     "frags": [["A"|"B"|"C", tid, LAYOUT, DTYPE(, "smem")], ...],  # make_fragment_X(partition_X(rmem|smem)),
                                                            # partition_shape_X
     "cparts": [[copy index, tid, LAYOUT], ...],            # the copy's get_slice(tid).partition_S/D (+ identity)
     "retiles": [[copy index, tid, LAYOUT], ...],           # copy.retile(make_fragment_C(partition_C(rmem)))
     "tvcopies": [[COPY, DTYPE, LAYOUT, LAYOUT], ...]}       # make_tiled_copy_tv(atom, thr, val)

    OP     ["warp_f16", ab, acc, [m,n,k]] | ["warp_tf32", [m,n,k]] | ["warp_fp8", ab, acc, [m,n,k]]
           | ["wg_f16", ab, acc, [64,n,k], "SMEM"|"RMEM"] | ["wg_f8" | "wg_i8", a, b, acc, [64,n,k], src]
    COPY   ["ldsm", transpose, num_matrices] | ["stsm", transpose, num_matrices] | ["universal", bits]
    LAYOUT (shape, stride|None);  ENTRY None | int | LAYOUT;  dtypes are cutlass type names ("Float16").

Result per case: a dict of printed forms (``thr_layout_vmnk``, ``tile``, ``size``, ``A``/``B``/``C``,
``At``/``Bt``/``Ct``, ``copies``: [dict | error text], ``parts``: [[layout, identity offset] | error],
``frags``: [[fragment layout, partition shape] | error], ``cparts``: [[S layout, S identity offset, D layout,
D identity offset] | error], ``retiles``: [layout | error], ``tvcopies``) or a ``DslError``.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import threading

import dsl_oracle

DslError = dsl_oracle.DslError
available = dsl_oracle.available


def _env():
    env = dsl_oracle._worker_env()
    env["CUTE_DSL_ARCH"] = "sm_90a"
    return env


def _run_once(cases, timeout):
    r_fd, w_fd = os.pipe()
    try:
        proc = subprocess.Popen([dsl_oracle._python(), os.path.abspath(__file__), "--worker", str(w_fd)],
                                env=_env(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, pass_fds=(w_fd,))
    finally:
        os.close(w_fd)
    err = []

    def feed():
        try:
            proc.stdin.write(repr(cases).encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass

    threads = [threading.Thread(target=feed, daemon=True),
               threading.Thread(target=lambda: err.append(proc.stderr.read()[-3000:]), daemon=True)]
    for t in threads:
        t.start()
    results = {}
    with os.fdopen(r_fd, "rb") as rf:
        for line in rf:
            i, kind, payload = json.loads(line)
            results[i] = payload if kind == "ok" else DslError(payload)
    rc = proc.wait(timeout=timeout)
    threads[1].join(5)
    tail = (err[0] if err else b"").decode(errors="replace")[-400:]
    return results, rc, tail


def run(cases, timeout: float = 600.0) -> list:
    """Evaluate atom-layer cases with CuTe DSL; one result per case (see the module docstring)."""
    out = [None] * len(cases)
    start = 0
    while start < len(cases):
        res, rc, tail = _run_once(cases[start:], timeout)
        done = 0
        while done < len(cases) - start and done in res:
            out[start + done] = res[done]
            done += 1
        if start + done >= len(cases):
            break
        out[start + done] = DslError(f"WorkerCrash: rc={rc} {tail}")
        start += done + 1
    return out


# ------------------------------------------------------------------------------------------ worker side

def _worker(fd: int) -> None:  # pragma: no cover - runs in the DSL subprocess
    cases = ast.literal_eval(sys.stdin.read())
    res = os.fdopen(fd, "w", buffering=1)
    sys.stdout = sys.stderr
    import cutlass
    from cutlass import cute
    from cutlass.cute.nvgpu import CopyUniversalOp, OperandMajorMode, warp, warpgroup

    def ty(name):
        return getattr(cutlass, name)

    def lay(x):
        s, d = x
        return cute.make_layout(s) if d is None else cute.make_layout(s, stride=d)

    def mma_op(o):
        k = o[0]
        if k == "warp_f16":
            return warp.MmaF16BF16Op(ty(o[1]), ty(o[2]), tuple(o[3]))
        if k == "warp_tf32":
            return warp.MmaTF32Op(tuple(o[1]))
        if k == "warp_fp8":
            return warp.MmaFP8Op(ty(o[1]), ty(o[2]), tuple(o[3]))
        src = getattr(warpgroup.OperandSource, o[-1])
        kk = OperandMajorMode.K
        if k == "wg_f16":
            return warpgroup.MmaF16BF16Op(ty(o[1]), ty(o[2]), tuple(o[3]), src, kk, kk)
        cls = warpgroup.MmaF8Op if k == "wg_f8" else warpgroup.MmaI8Op
        return cls(ty(o[1]), ty(o[2]), ty(o[3]), tuple(o[4]), src, kk, kk)

    def copy_atom(c, dtype):
        if c[0] == "universal":
            return cute.make_copy_atom(CopyUniversalOp(), ty(dtype), num_bits_per_copy=c[1])
        cls = warp.LdMatrix8x8x16bOp if c[0] == "ldsm" else warp.StMatrix8x8x16bOp
        return cute.make_copy_atom(cls(c[1], c[2]), ty(dtype))

    def copy_info(tc):
        return {"tiled": str(tc.layout_tv_tiled), "src": str(tc.layout_src_tv_tiled),
                "dst": str(tc.layout_dst_tv_tiled), "tiler": cute.pretty_str(tc.tiler_mn),
                "atom_src": str(tc.layout_src_tv), "atom_dst": str(tc.layout_dst_tv), "size": str(tc.size)}

    def guarded(f):
        try:
            return f()
        except Exception as e:  # noqa: BLE001 - a DSL refusal is a result
            return "ERR " + f"{type(e).__name__}: {str(e).strip()[:300]}"

    def one(case):
        out = {}
        if "mma" in case:
            perm = case.get("perm")
            if perm is not None:
                perm = tuple(None if p is None else p if type(p) is int else lay(p) for p in perm)
            t = cute.make_tiled_mma(mma_op(case["mma"]), lay(case["atom_layout"]), perm)
            out.update(thr_layout_vmnk=str(t.thr_layout_vmnk), size=str(t.size),
                       tile=[str(t.get_tile_size(i)) for i in range(3)], A=str(t.tv_layout_A),
                       B=str(t.tv_layout_B), C=str(t.tv_layout_C), At=str(t.tv_layout_A_tiled),
                       Bt=str(t.tv_layout_B_tiled), Ct=str(t.tv_layout_C_tiled), shape_mnk=str(t.shape_mnk))
            mk = {"A": cute.make_tiled_copy_A, "B": cute.make_tiled_copy_B, "C": cute.make_tiled_copy_C,
                  "Catom": cute.make_tiled_copy_C_atom}
            built = [guarded(lambda c=c: mk[c[0]](copy_atom(c[1], c[2]), t)) for c in case.get("copies", [])]
            out["copies"] = [b if isinstance(b, str) else guarded(lambda b=b: copy_info(b)) for b in built]

            def cpart(p):
                tc, dtype = built[p[0]], case["copies"][p[0]][2]
                if isinstance(tc, str):
                    return tc
                s = tc.get_slice(p[1])
                rm, ident = cute.make_rmem_tensor(lay(p[2]), ty(dtype)), cute.make_identity_tensor(lay(p[2]).shape)
                ps, pd = s.partition_S(rm), s.partition_D(rm)
                return [str(ps.layout), str(s.partition_S(ident).iterator), str(pd.layout),
                        str(s.partition_D(ident).iterator)]
            out["cparts"] = [guarded(lambda p=p: cpart(p)) for p in case.get("cparts", [])]

            def frag(p):
                s = t.get_slice(p[1])
                fn = {"A": (s.partition_A, t.make_fragment_A, t.partition_shape_A),
                      "B": (s.partition_B, t.make_fragment_B, t.partition_shape_B),
                      "C": (s.partition_C, t.make_fragment_C, t.partition_shape_C)}[p[0]]
                if len(p) > 4:  # an SS wgmma operand: a shared-memory tensor, its fragment a descriptor view
                    ptr = cute.make_ptr(ty(p[3]), 0, cute.AddressSpace.smem, assumed_align=128)
                    ten = cute.make_tensor(ptr, lay(p[2]))
                else:
                    ten = cute.make_rmem_tensor(lay(p[2]), ty(p[3]))
                f = fn[1](fn[0](ten))
                return [str(f.layout), str(fn[2](lay(p[2]).shape))]
            out["frags"] = [guarded(lambda p=p: frag(p)) for p in case.get("frags", [])]

            def retile(p):
                tc = built[p[0]]
                if isinstance(tc, str):
                    return tc
                s = t.get_slice(p[1])
                f = t.make_fragment_C(s.partition_C(cute.make_rmem_tensor(lay(p[2]), cutlass.Float32)))
                return str(tc.retile(f).layout)
            out["retiles"] = [guarded(lambda p=p: retile(p)) for p in case.get("retiles", [])]

            def part(p):
                s = t.get_slice(p[1])
                fn = {"A": s.partition_A, "B": s.partition_B, "C": s.partition_C}[p[0]]
                rm = fn(cute.make_rmem_tensor(lay(p[2]), cutlass.Float16))
                ident = fn(cute.make_identity_tensor(lay(p[2]).shape))
                return [str(rm.layout), str(ident.iterator)]
            out["parts"] = [guarded(lambda p=p: part(p)) for p in case.get("parts", [])]
        out["tvcopies"] = [guarded(lambda c=c: copy_info(cute.make_tiled_copy_tv(copy_atom(c[0], c[1]), lay(c[2]),
                                                                               lay(c[3]))))
                           for c in case.get("tvcopies", [])]
        return out

    def body():
        for i, case in enumerate(cases):
            try:
                res.write(json.dumps([i, "ok", one(case)]) + "\n")
            except Exception as e:  # noqa: BLE001
                res.write(json.dumps([i, "err", f"{type(e).__name__}: {str(e).strip()[:500]}"]) + "\n")

    try:
        cute.compile(cute.jit(preprocess=False)(body))
    except Exception:  # noqa: BLE001 - results were written at trace time
        pass
    res.flush()


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--worker":
        _worker(int(sys.argv[2]))
