"""Generate the Triton 3.9 layout corpus: random TTGIR layout attributes and the linear layouts Triton's own
``toLinearLayout`` gives them, computed on the CPU through Gluon's ``GluonOpBuilder.to_linear_layout``.

Run with a Python that has ``triton`` installed (never a dependency of cuteverify; a separate venv):

    python tests/triton/triton_data/gen_corpus.py [--n 1200] [--seed 26] [--out tests/triton/triton_data/corpus.jsonl.gz]

Each line of the output is one case: ``family``, ``attr`` (the attribute as Triton prints it), ``legacy`` (the
same attribute in the older ``CTAsPerCGA / CTASplitNum / CTAOrder`` form, when it was built from one), ``shape``,
and ``ll`` (Triton's bases: ``register, lane, warp, block`` or ``offset, block``) or ``error`` (Triton refused
the attribute or the shape: an exception or an aborted conversion). A shared layout whose CTA share is one
element is left out (Gluon's Python wrapper cannot hold Triton's answer for it). Each conversion runs in a forked child, so a
C++ assertion in Triton costs one case, not the run. ``cases(...)`` is importable: the regeneration test
recomputes a sample with it.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys

TRITON_VERSION = "3.9.0"


def _builder():
    from triton._C.libtriton import gluon_ir, ir
    ctx = ir.context()
    ir.load_dialects(ctx)
    return ctx, gluon_ir.GluonOpBuilder(ctx, "sm_90"), gluon_ir


def _pow2(lo, hi, rng):
    return 1 << rng.randint(lo, hi)


def _split(total_log2, rank, rng):
    """``rank`` powers of two whose product is 2**total_log2."""
    out = [1] * rank
    for _ in range(total_log2):
        out[rng.randrange(rank)] *= 2
    return out


def _legacy_cta(rank, rng):
    """Random CTAsPerCGA / CTASplitNum / CTAOrder (the older form), or None for one CTA."""
    if rng.random() < 0.4:
        return None
    per = _split(rng.randint(1, 3), rank, rng)
    split = [p >> rng.randint(0, p.bit_length() - 1) for p in per]
    order = list(range(rank))
    rng.shuffle(order)
    return per, split, order


def _free_cga(rank, rng):
    """CGA bases given directly (Triton 3.9's form): unit vectors or zeros, any order."""
    n = rng.randint(1, 3)
    used = [0] * rank
    bases = []
    for _ in range(n):
        if rng.random() < 0.25:
            bases.append([0] * rank)
            continue
        d = rng.randrange(rank)
        b = [0] * rank
        b[d] = 1 << used[d]
        used[d] += 1
        bases.append(b)
    return bases


def _cga(rank, rng, gl):
    """(cga bases, legacy fields or None)."""
    r = rng.random()
    if r < 0.45:
        return [], None
    if r < 0.8:
        leg = _legacy_cta(rank, rng)
        if leg is None:
            return [], None
        return [list(b) for b in gl.make_cga_layout(*leg)], leg
    return _free_cga(rank, rng), None


def _shape(rank, rng, lo=0, hi=8):
    return [_pow2(lo, hi, rng) for _ in range(rank)]


def _lst(xs):
    return "[" + ", ".join(_lst(x) if isinstance(x, (list, tuple)) else str(x) for x in xs) + "]"


def _legacy_fields(leg):
    per, split, order = leg
    return f"CTAsPerCGA = {_lst(per)}, CTASplitNum = {_lst(split)}, CTAOrder = {_lst(order)}"


def _spec(family, rng, gl):
    """One random case as plain data: (family, builder call description, shape, legacy text maker)."""
    if family == "blocked":
        rank = rng.randint(1, 3)
        cga, leg = _cga(rank, rng, gl)
        order = list(range(rank))
        rng.shuffle(order)
        p = dict(spt=[_pow2(0, 3, rng) for _ in range(rank)], tpw=_split(5, rank, rng),
                 wpc=_split(rng.randint(0, 3), rank, rng), order=order, cga=cga)
        return dict(family=family, p=p, leg=leg, shape=_shape(rank, rng))
    if family == "mma":
        v3 = rng.random() < 0.4
        rank = 2 if v3 else rng.choice([2, 2, 2, 3])
        cga, leg = _cga(rank, rng, gl)
        if v3:
            instr = [16, _pow2(3, 8, rng), 16]
            wpc = [4 * _pow2(0, 1, rng), _pow2(0, 1, rng)]
        else:
            instr = [1] * (rank - 2) + [16, 8]
            wpc = _split(rng.randint(0, 3), rank, rng)
        p = dict(version=[3 if v3 else 2, 0], wpc=wpc, cga=cga, instr=instr)
        return dict(family=family, p=p, leg=leg, shape=_shape(rank, rng, 3, 8))
    if family == "dot_op":
        parent = _spec("blocked" if rng.random() < 0.2 else "mma", rng, gl)
        rank = len(parent["shape"])
        if parent["family"] == "blocked" and rank == 1:
            return _spec("dot_op", rng, gl)
        op = rng.choice([0, 1])
        if parent["family"] == "mma" and parent["p"]["version"][0] == 3:
            op = 0
        kw = _pow2(0, 3, rng) if parent["family"] == "mma" else 0
        shape = _shape(rank, rng, 3, 8)
        return dict(family=family, p=dict(op=op, parent=parent, kw=kw), leg=parent["leg"], shape=shape)
    if family == "nvmma_shared":
        rank = rng.choice([2, 2, 2, 3])
        cga, leg = _cga(rank, rng, gl)
        fp4 = rng.random() < 0.15
        sw = 128 if fp4 else rng.choice([0, 32, 64, 128, 128])
        eb = 8 if fp4 else rng.choice([8, 16, 16, 32, 64])
        p = dict(sw=sw, eb=eb, tr=rng.random() < 0.4, fp4=fp4, cga=cga, rank=rank)
        shape = _shape(rank, rng, 3, 10)
        if rank == 3:
            shape[0] = _pow2(0, 2, rng)
        if sw and rng.random() < 0.85:  # mostly at least one swizzle atom (Triton refuses smaller)
            contig = 0 if p["tr"] else rank - 1
            atom = 8 * sw // eb // (2 if fp4 else 1)
            shape[contig] = max(shape[contig], atom * _pow2(0, 2, rng))
            outer = 1 if p["tr"] or rank == 3 else 0
            if p["tr"] and rank == 3:
                outer = 2
            shape[outer] = max(shape[outer], 8)
        return dict(family=family, p=p, leg=leg, shape=shape)
    if family == "swizzled_shared":
        rank = rng.randint(1, 3)
        cga, leg = _cga(rank, rng, gl)
        order = list(range(rank))
        rng.shuffle(order)
        p = dict(vec=_pow2(0, 3, rng), pp=_pow2(0, 2, rng), mp=_pow2(0, 3, rng), order=order, cga=cga)
        shape = _shape(rank, rng, 0, 7)
        shape[-1] = max(shape[-1], 2)  # Gluon cannot wrap the answer for a one-element tensor
        return dict(family=family, p=p, leg=leg, shape=shape)
    if family == "linear":
        rank = rng.randint(1, 3)
        shape = _shape(rank, rng, 0, 6)
        bits = [(d, 1 << k) for d in range(rank) for k in range(shape[d].bit_length() - 1)]
        rng.shuffle(bits)
        dims = {"register": [], "lane": [], "warp": [], "block": []}
        names = list(dims)
        vecs = []
        for d, v in bits:
            b = [0] * rank
            b[d] = v
            n = rng.choice(names)
            # only warp bases may move in several dims (Triton's verifier): xor in an earlier basis, which
            # keeps the layout a bijection onto the shape
            if n == "warp" and vecs and rng.random() < 0.15:
                b = [x ^ y for x, y in zip(b, rng.choice(vecs))]
            vecs.append(b)
            dims[n].append(b)
        for n in names:
            if rng.random() < 0.3:
                dims[n].insert(rng.randint(0, len(dims[n])), [0] * rank)
        return dict(family=family, p=dims, leg=None, shape=shape)
    raise ValueError(family)


FAMILIES = ("blocked", "mma", "dot_op", "nvmma_shared", "swizzled_shared", "linear")
WEIGHTS = (3, 2, 3, 3, 2, 1)


def _ir(spec, b):
    """The Triton attribute of a spec."""
    p, f = spec["p"], spec["family"]
    if f == "blocked":
        return b.get_blocked_layout(p["spt"], p["tpw"], p["wpc"], p["order"], p["cga"])
    if f == "mma":
        return b.get_mma_layout(p["version"], p["wpc"], p["cga"], p["instr"])
    if f == "dot_op":
        return b.get_dot_operand_layout(p["op"], _ir(p["parent"], b), p["kw"])
    if f == "nvmma_shared":
        return b.get_nvmma_shared_layout(p["sw"], p["eb"], p["tr"], p["fp4"], p["cga"], p["rank"])
    if f == "swizzled_shared":
        return b.get_swizzled_shared_layout(p["vec"], p["pp"], p["mp"], p["order"], p["cga"])
    if f == "linear":
        return b.get_distributed_linear_layout(p["register"], p["lane"], p["warp"], p["block"], spec["shape"])
    raise ValueError(f)


def _attr_text(type_text):
    """The layout attribute inside ``tensor<..., #attr>`` / ``!ttg.memdesc<..., #attr, #smem, mutable>``."""
    start = type_text.index("#")
    depth, i = 0, start
    while i < len(type_text):
        c = type_text[i]
        if c in "<[{(":
            depth += 1
        elif c in ">]})":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        i += 1
    return type_text[start:i].strip()


def _legacy_text(text, spec):
    """The 3.9 text with ``CGALayout = [...]`` replaced by the older CTA fields (cases built from them)."""
    leg = spec.get("leg")
    if leg is None or "CGALayout = " not in text:
        return None
    i = text.index("CGALayout = ")
    j = i + len("CGALayout = ")
    depth = 0
    while True:
        c = text[j]
        depth += c == "["
        depth -= c == "]"
        j += 1
        if depth == 0:
            break
    return text[:i] + _legacy_fields(leg) + text[j:]


def _linear_text(spec):
    """A ``#ttg.linear`` attribute as Triton prints it (for bases Triton's verifier refuses to build)."""
    p = spec["p"]
    return "#ttg.linear<{" + ", ".join(f"{n} = {_lst(p[n])}" for n in ("register", "lane", "warp", "block")) + "}>"


def convert(spec, b, out):
    """Triton's answer for one spec, filled into ``out``: ``attr`` (its text) and ``ll``; an exception from
    Triton propagates (``out`` keeps the text when Triton built the attribute)."""
    shared = spec["family"] in ("nvmma_shared", "swizzled_shared")
    if spec["family"] == "linear":
        out["attr"] = _linear_text(spec)
    attr = _ir(spec, b)
    half = b.get_int8_ty() if spec["family"] == "nvmma_shared" and spec["p"]["eb"] == 8 else b.get_half_ty()
    ty = b.get_shared_mem_desc_ty(half, spec["shape"], attr, spec["shape"]) if shared else \
        b.get_distributed_ty(half, spec["shape"], attr)
    text = _attr_text(str(ty))
    out["attr"] = text
    leg = _legacy_text(text, spec)
    if leg:
        out["legacy"] = leg
    ll = b.to_linear_layout(attr, spec["shape"])
    if shared:
        out["ll"] = {"offset": ll.offset_bases, "block": ll.block_bases}
    else:
        out["ll"] = {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases,
                     "block": ll.block_bases}
    return out


def convert_isolated(spec, b):
    """``convert`` in a forked child: a C++ assertion or fatal error in Triton becomes an ``error`` entry."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        res = {}
        with os.fdopen(w, "w") as f:
            try:
                convert(spec, b, res)
            except Exception as e:  # Triton refused the attribute: recorded as the case's answer
                res.pop("ll", None)
                res["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            f.write(json.dumps(res))
            f.flush()
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:  # Triton aborted (a C++ assertion): the text, when known, is the spec's own
        res = {"error": f"aborted (status {status})"}
        if spec["family"] == "linear":
            res["attr"] = _linear_text(spec)
        return res
    return json.loads(data)


def cases(n, seed):
    """The ``n`` specs of a seed (deterministic)."""
    ctx, b, gl = _builder()
    rng = random.Random(seed)
    out = []
    for i in range(n):
        fam = rng.choices(FAMILIES, WEIGHTS)[0]
        out.append(_spec(fam, rng, gl))
    return out, b, ctx


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1400)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "corpus.jsonl.gz"))
    a = ap.parse_args(argv)
    import triton
    if triton.__version__ != TRITON_VERSION:
        print(f"warning: triton {triton.__version__}, the corpus is of {TRITON_VERSION}", file=sys.stderr)
    specs, b, _ctx = cases(a.n, a.seed)
    with gzip.open(a.out, "wt") as f:
        f.write(json.dumps({"triton": triton.__version__, "seed": a.seed, "n": a.n}) + "\n")
        for i, s in enumerate(specs):
            res = convert_isolated(s, b)
            if "offset_bases must not be empty" in res.get("error", ""):
                continue  # a one-element share: Gluon's Python wrapper, not Triton's conversion, refuses it
            rec = {"id": i, "family": s["family"], "shape": s["shape"], **res}
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
