"""Tensor folding (paper section 1.3): any contraction as a batched GEMM over grouped (multi-)modes.

``fold("stupr,qtru->stqp", A=(shape, strides), B=..., C=...)`` classifies the index letters into row (A and C),
column (B and C), reduction (A and B) and batch (all three) modes and returns CuTe layouts ``A: (m,k,l)``,
``B: (n,k,l)``, ``C: (m,n,l)`` whose modes are the groups of the operands' own modes with their own strides:
views of the same data, never copies. ``batched_gemm`` is the paper's four-loop reference kernel over those
layouts, vectorised with numpy.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..algebra.coalesce import coalesce
from ..core.layout import Layout, compact_row_major, size
from ..core.notation.interop import as_layout
from ..errors import FoldError
from ..symbolic.decide import eq

__all__ = ["Folded", "fold", "fold_operands", "fold_modes", "flat_form", "batched_gemm", "parse_einsum",
           "CLASSES"]

#: Mode classes in the order of the folded layouts' modes.
CLASSES = ("row", "column", "reduction", "batch")


# --------------------------------------------------------------------------------------------------------
# grouping modes of one layout

def fold_modes(layout, groups) -> Layout:
    """Group the modes of ``layout``: ``groups`` is a list of lists of mode indices (each mode used once).

    A group of one mode is that mode; an empty group is ``1:0``. Figure 1:
    ``fold_modes((2,2,2):(2,1,4), [[0], [1, 2]]) == (2,(2,2)):(2,(1,4))``.
    """
    layout = _operand(layout, "layout")
    modes = [layout[i] for i in range(len(layout))] if type(layout.shape) is tuple else [layout]
    used = [i for g in groups for i in g]
    if sorted(used) != list(range(len(modes))):
        raise FoldError(f"fold_modes: the groups {groups} must use every mode 0..{len(modes) - 1} exactly once")
    shapes, strides = [], []
    for g in groups:
        if not g:
            shapes.append(1)
            strides.append(0)
        elif len(g) == 1:
            shapes.append(modes[g[0]].shape)
            strides.append(modes[g[0]].stride)
        else:
            shapes.append(tuple(modes[i].shape for i in g))
            strides.append(tuple(modes[i].stride for i in g))
    return Layout(tuple(shapes), tuple(strides))


def flat_form(mode: Layout):
    """The flat (single shape:stride) form of a (multi-)mode, ``cv.coalesce`` of it, or ``None``."""
    c = coalesce(mode)
    return c if type(c.shape) is not tuple else None


# --------------------------------------------------------------------------------------------------------
# einsum

def parse_einsum(spec: str):
    """``"stupr,qtru->stqp"`` -> ``("stupr", "qtru", "stqp")``; implicit output follows numpy (letters that
    occur once, sorted)."""
    if not isinstance(spec, str):
        raise FoldError(f"the einsum must be a string, got {type(spec).__name__}")
    s = re.sub(r"\s+", "", spec)
    if "." in s:
        raise FoldError(f"einsum {spec!r}: ellipses ('...') are not supported; name every index")
    if s.count("->") > 1:
        raise FoldError(f"einsum {spec!r}: more than one '->'")
    lhs, arrow, out = s.partition("->")
    ops = lhs.split(",")
    if len(ops) != 2:
        raise FoldError(f"einsum {spec!r}: expected exactly two operands 'A,B->C', got {len(ops)}")
    for name, letters in zip("ABC", ops + ([out] if arrow else [])):
        bad = [ch for ch in letters if not ch.isalpha()]
        if bad:
            raise FoldError(f"einsum {spec!r}: operand {name} has {bad[0]!r}; indices are single letters")
        dup = sorted({ch for ch in letters if letters.count(ch) > 1})
        if dup:
            raise FoldError(f"einsum {spec!r}: index {dup[0]!r} repeats within operand {name} (diagonals cannot "
                            "be folded into a GEMM)")
    if not arrow:
        counts = {}
        for ch in ops[0] + ops[1]:
            counts[ch] = counts.get(ch, 0) + 1
        out = "".join(sorted(ch for ch, n in counts.items() if n == 1))
    return ops[0], ops[1], out


def fold_operands(einsum: str, shapes=None, strides=None, layouts=None) -> dict:
    """The operands of ``fold(einsum, ...)`` from partial descriptions, each extent inferred where it is missing.

    ``shapes``: ``{name: extents}`` (one per index letter of that operand), ``strides``: ``{name: strides}``
    (absent: compact row-major, numpy's default), ``layouts``: ``{name: Layout}`` (one top-level mode per
    letter); names are ``"A"``, ``"B"``, ``"C"``. Admissible: no operand both as a layout and as a shape or
    strides; A and B described somehow; an operand given strides but no shape takes each extent from another
    operand with the same letter (given shapes first, then layouts). C may be left out entirely.
    Post-condition: ``{name: Layout or (shape, strides)}`` for A, B and (when described) C, ready for
    ``fold(einsum, **ops)``; every violation is a ``FoldError`` (an input error).
    """
    shapes, strides, layouts = dict(shapes or {}), dict(strides or {}), dict(layouts or {})
    for what, d in (("shape", shapes), ("stride", strides), ("layout", layouts)):
        for k in d:
            if k not in ("A", "B", "C"):
                raise FoldError(f"{what}: operand name must be A, B or C, got {k!r}")
    letters = dict(zip("ABC", parse_einsum(einsum)))
    known = {}
    for k in "ABC":
        if k in shapes:
            if len(shapes[k]) != len(letters[k]):
                raise FoldError(f"--shape {k} has {len(shapes[k])} extent(s) but the einsum names "
                                f"{len(letters[k])} index(es) '{letters[k]}'")
            for ch, n in zip(letters[k], shapes[k]):
                known.setdefault(ch, n)
        elif k in layouts:
            L = layouts[k]
            modes = list(L) if type(L.shape) is tuple else [L]
            for ch, m in zip(letters[k], modes):
                known.setdefault(ch, size(m))
    for k in strides:
        if k in layouts:
            raise FoldError(f"operand {k} is given both as --layout and --stride")
    ops = {}
    for k in "ABC":
        if k in layouts:
            if k in shapes:
                raise FoldError(f"operand {k} is given both as --layout and --shape")
            ops[k] = layouts[k]
            continue
        if k == "C" and k not in shapes and k not in strides:
            continue  # fold makes a compact row-major C
        if k in shapes:
            shape = tuple(shapes[k])
        else:
            missing = [ch for ch in letters[k] if ch not in known]
            if missing:
                raise FoldError(f"the extent of index '{missing[0]}' of operand {k} is not given; "
                                f"use --shape {k}=...")
            shape = tuple(known[ch] for ch in letters[k])
        ops[k] = (shape, strides.get(k))
    return ops


# --------------------------------------------------------------------------------------------------------
# folding

@dataclass
class Folded:
    """The canonical batched-GEMM form ``C(m,n,l) += A(m,k,l) * B(n,k,l)`` of a contraction.

    ``A``, ``B``, ``C`` are rank-3 layouts (modes grouped as multi-modes, views of the operands' data);
    ``modes`` maps ``row``/``column``/``reduction``/``batch`` to the letters in each group; ``extents`` maps
    letters to their extents; ``flat`` maps ``(operand, 'm'|'n'|'k'|'l')`` to the coalesced single mode of that
    multi-mode or ``None`` when no flat representation exists.
    """
    einsum: str
    letters: tuple
    modes: dict
    extents: dict
    A: Layout
    B: Layout
    C: Layout
    operands: dict = field(default_factory=dict)
    flat: dict = field(default_factory=dict)

    @property
    def M(self):
        return size(self.A[0])

    @property
    def N(self):
        return size(self.B[0])

    @property
    def K(self):
        return size(self.A[1])

    @property
    def L(self):
        return size(self.A[2])

    def classification(self) -> dict:
        """letter -> class name."""
        return {ch: cls for cls in CLASSES for ch in self.modes[cls]}

    def describe(self) -> str:
        lines = [f"einsum: {self.einsum}"]
        names = {"row": "m", "column": "n", "reduction": "k", "batch": "l"}
        for cls in CLASSES:
            ls = self.modes[cls]
            ext = ",".join(str(self.extents[c]) for c in ls)
            lines.append(f"{cls} modes ({names[cls]}): " + ("(" + "".join(ls) + ")" if ls else "none")
                         + (f" extents ({ext})" if ls else ""))
        lines.append(f"M={self.M} N={self.N} K={self.K} L={self.L}")
        for op, groups in (("A", "mkl"), ("B", "nkl"), ("C", "mnl")):
            L = getattr(self, op)
            lines.append(f"{op} ({','.join(groups)}): {L}")
            for g, i in zip(groups, range(3)):
                mode = L[i]
                if type(mode.shape) is tuple:
                    f = self.flat[(op, g)]
                    lines.append(f"  {op}.{g} = {mode}: " + (f"flat {f}" if f is not None else "no flat form"))
        return "\n".join(lines)

    __str__ = describe


def _operand(x, what: str = "operand") -> Layout:
    """An operand as ``fold`` takes it: numpy's descriptions, a ``(shape, strides)`` pair or ``{"shape",
    "strides"}`` (strides None: compact row-major) or a flat tuple of extents (compact row-major, as numpy, not
    CuTe's column-major shape), else a layout as ``as_layout`` reads it (text, Layout, other libraries' objects).
    Anything else, or a swizzled layout, is a ``FoldError``."""
    if isinstance(x, dict):
        x = (x.get("shape"), x.get("stride", x.get("strides")))
    if isinstance(x, (tuple, list)) and len(x) == 2 and isinstance(x[0], (tuple, list, int)) and \
            (x[1] is None or isinstance(x[1], (tuple, list, int))):
        shape, stride = x
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if stride is None:
            stride = compact_row_major(shape)
        stride = tuple(stride) if isinstance(stride, (tuple, list)) else (stride,)
        if len(shape) != len(stride):
            raise FoldError(f"shape {shape} and strides {stride} have different lengths")
        return Layout(tuple(shape), tuple(stride))
    if isinstance(x, (tuple, list)) and all(type(v) is int for v in x):
        shape = tuple(x)
        return Layout(shape, compact_row_major(shape))
    L = as_layout(x, what) if isinstance(x, str) or hasattr(x, "shape") else None
    if not isinstance(L, Layout):
        raise FoldError(f"an operand is a Layout or a (shape, strides) pair of flat tuples, got {x!r}")
    return L


def _modes(name, layout, letters):
    if len(letters) == 0:
        if size(layout) != 1:
            raise FoldError(f"operand {name} has no indices in the einsum but its layout {layout} has size "
                            f"{size(layout)}")
        return []
    modes = [layout[i] for i in range(len(layout))] if type(layout.shape) is tuple else [layout]
    if len(modes) != len(letters):
        raise FoldError(f"operand {name} has {len(modes)} mode(s) ({layout}) but the einsum names "
                        f"{len(letters)} index(es) '{letters}'")
    for ch, m in zip(letters, modes):
        s = size(m)
        if type(s) is int and s < 1:
            raise FoldError(f"operand {name}: index '{ch}' has extent {s}; extents must be positive")
    return modes


def fold(einsum: str, A=None, B=None, C=None) -> Folded:
    """Fold the contraction ``einsum`` (e.g. ``"stupr,qtru->stqp"``) over operands A, B, C.

    Each operand is a ``Layout`` (one top-level mode per index letter; a mode may itself be nested) or a
    ``(shape, strides)`` pair of flat tuples (strides ``None``: compact row-major, numpy's default). ``C`` may be
    omitted: a compact row-major output is made. Groups list their letters in the order of C for row, column and
    batch modes and of A for reduction modes, so the three operands' multi-modes walk the same coordinates.
    """
    la, lb, lc = parse_einsum(einsum)
    if A is None or B is None:
        raise FoldError("fold needs operands A and B")
    LA, LB = _operand(A, "operand A"), _operand(B, "operand B")
    ma, mb = _modes("A", LA, la), _modes("B", LB, lb)
    extents: dict = {}
    where: dict = {}
    for name, letters, modes in (("A", la, ma), ("B", lb, mb)):
        for ch, m in zip(letters, modes):
            _extent(extents, where, ch, size(m), name)
    for ch in lc:
        if ch not in extents:
            raise FoldError(f"index '{ch}' appears only in the output C; every output index must come from A or B")
    if C is None:
        LC = Layout(tuple(extents[ch] for ch in lc), compact_row_major(tuple(extents[ch] for ch in lc))) if lc \
            else Layout(1, 0)
    else:
        LC = _operand(C, "operand C")
    mc = _modes("C", LC, lc)
    for ch, m in zip(lc, mc):
        _extent(extents, where, ch, size(m), "C")
    sa, sb, sc = set(la), set(lb), set(lc)
    for ch in la + lb:
        n = (ch in sa) + (ch in sb) + (ch in sc)
        if n == 1:
            only = "A" if ch in sa else "B"
            raise FoldError(f"index '{ch}' appears only in {only}: every index must appear in at least two of "
                            "A, B, C (row: A and C; column: B and C; reduction: A and B; batch: all three); "
                            f"sum over it in {only} first")
    modes = {
        "row": [ch for ch in lc if ch in sa and ch not in sb],
        "column": [ch for ch in lc if ch in sb and ch not in sa],
        "reduction": [ch for ch in la if ch in sb and ch not in sc],
        "batch": [ch for ch in lc if ch in sa and ch in sb],
    }
    pos = {"A": {ch: i for i, ch in enumerate(la)}, "B": {ch: i for i, ch in enumerate(lb)},
           "C": {ch: i for i, ch in enumerate(lc)}}
    layouts = {}
    flat = {}
    for op, L, classes, gnames in (("A", LA, ("row", "reduction", "batch"), "mkl"),
                                   ("B", LB, ("column", "reduction", "batch"), "nkl"),
                                   ("C", LC, ("row", "column", "batch"), "mnl")):
        if len(pos[op]) == 0:
            base = Layout((1,), (0,))
            groups = [[], [], []]
            folded = fold_modes(base, [[0], [], []])
        else:
            groups = [[pos[op][ch] for ch in modes[cls]] for cls in classes]
            folded = fold_modes(L, groups)
        layouts[op] = folded
        for i, g in enumerate(gnames):
            flat[(op, g)] = flat_form(folded[i])
    return Folded(einsum=f"{la},{lb}->{lc}", letters=tuple(dict.fromkeys(la + lb + lc)),
                  modes={k: tuple(v) for k, v in modes.items()}, extents=extents,
                  A=layouts["A"], B=layouts["B"], C=layouts["C"], operands={"A": LA, "B": LB, "C": LC}, flat=flat)


def _extent(extents, where, ch, n, name):
    if ch in extents:
        same = extents[ch] == n if type(n) is int and type(extents[ch]) is int else eq(extents[ch], n)
        if same is not True:
            raise FoldError(f"index '{ch}' has extent {extents[ch]} in {where[ch]} but {n} in {name}")
    else:
        extents[ch] = n
        where[ch] = name


# --------------------------------------------------------------------------------------------------------
# the reference batched GEMM

def _offsets3(layout: Layout, dims):
    """Offsets of a rank-3 concrete layout as an int array of shape ``dims`` indexed ``[x, y, z]``."""
    import numpy as np
    if not layout.is_concrete:
        raise FoldError(f"batched_gemm needs concrete layouts, got {layout}")
    vals = np.asarray(layout.values() if size(layout) else [], dtype=np.int64)
    # values() is colexicographic: index = x + X*y + X*Y*z
    return vals.reshape(dims[::-1]).transpose(2, 1, 0)


def batched_gemm(folded: Folded, a_data, b_data, c_data=None, *, accumulate: bool = True):
    """``for l, m, n, k: C(m,n,l) += A(m,k,l) * B(n,k,l)`` over the folded layouts, on flat 1-D data.

    Reads ``a_data``/``b_data`` through ``folded.A``/``folded.B`` (offset arrays from ``Layout.values()``) and
    returns a new flat array: a copy of ``c_data`` (zeros of ``cosize(C)`` when ``None``) with the products
    added at C's offsets (``accumulate=False`` overwrites them instead). Aliased C offsets accumulate every
    contribution, exactly as the loops do.
    """
    import numpy as np
    M, N, K, L = folded.M, folded.N, folded.K, folded.L
    oa = _offsets3(folded.A, (M, K, L))
    ob = _offsets3(folded.B, (N, K, L))
    oc = _offsets3(folded.C, (M, N, L))
    a = np.asarray(a_data).reshape(-1)
    b = np.asarray(b_data).reshape(-1)
    for name, arr, off in (("A", a, oa), ("B", b, ob)):
        if off.size and (off.min() < 0 or off.max() >= arr.size):
            raise FoldError(f"operand {name}: layout {getattr(folded, name)} reaches offsets "
                            f"{int(off.min())}..{int(off.max())} outside the data array of {arr.size} elements")
    av = a[oa]  # (M, K, L)
    bv = b[ob]  # (N, K, L)
    prod = np.einsum("mkl,nkl->mnl", av, bv)
    if c_data is None:
        n = int(oc.max()) + 1 if oc.size else 0
        dtype = np.result_type(a.dtype, b.dtype)
        c = np.zeros(n, dtype=dtype)
    else:
        c = np.array(c_data, copy=True).reshape(-1)
        if oc.size and (oc.min() < 0 or oc.max() >= c.size):
            raise FoldError(f"operand C: layout {folded.C} reaches offsets {int(oc.min())}..{int(oc.max())} "
                            f"outside the data array of {c.size} elements")
    if not accumulate:
        c[oc.reshape(-1)] = 0
    np.add.at(c, oc.reshape(-1), prod.reshape(-1))
    return c
