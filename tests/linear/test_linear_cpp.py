"""from_linear_layout's CuTe layouts evaluated by CuTe C++ (host g++, one translation unit): each written
layout (integer strides, or ``composition(Swizzle<B,M,S>, 0, plain)``) printed as a C++ expression, evaluated by
CuTe at every index (through ``coalesce``, which keeps the function), and compared with the linear layout's own
values (the tests' XOR of bases). Cases: every smem atom of the spec library (shared form) and a sample of the
library's TV layouts (TV form) whose written layout has integer strides (C++ has no F2 strides)."""

import pytest

from cuteverify.core.layout import Layout, size
from cuteverify.core.swizzle import ComposedLayout
from cuteverify.core.tuples import flatten
from cuteverify.errors import CuteVerifyError
from cuteverify.hardware.library.catalog import default_library
from cuteverify.linear import from_linear_layout, to_linear_layout

from cpp_oracle import harness

from cuteverify.frontend.trace import cpp_build

pytestmark = pytest.mark.differential  # compares with an outside oracle (tests/oracles/, recorded evidence)

CAP = harness.VALUE_CAP


def _tree(t, maker):
    if isinstance(t, tuple):
        return f"{maker}(" + ",".join(_tree(x, maker) for x in t) + ")"
    return f"Int<{int(t)}>{{}}"


def cpp(L):
    if isinstance(L, ComposedLayout):
        sw = L.inner
        return f"composition(Swizzle<{sw.bits},{sw.base},{sw.shift}>{{}}, Int<{L.offset}>{{}}, {cpp(L.outer)})"
    return f"make_layout({_tree(L.shape, 'make_shape')}, {_tree(L.stride, 'make_stride')})"


def xor_value(ll, point):
    out = [0] * len(ll.out_dims)
    for dim, bs in ll.bases.items():
        x = point.get(dim, 0)
        for i, b in enumerate(bs):
            if x >> i & 1:
                out = [o ^ v for o, v in zip(out, b)]
    return out


def _cases():
    lib = default_library()
    out, seen, tv = [], set(), 0
    for name in lib:
        s = lib.peek(name)
        if s.kind not in ("mma", "copy", "smem_atom"):
            continue
        for p in s.instances()[:1]:
            for op in s.operands:
                text = s.layout_text(op, **p)
                rows, cols, order = s.tile(op, **p)
                tile = None if s.kind == "smem_atom" else ((cols, rows) if order.startswith("row") else (rows, cols))
                if text in seen:
                    continue
                seen.add(text)
                try:
                    ll = to_linear_layout(text, shared=True) if tile is None else to_linear_layout(text, tile=tile)
                except CuteVerifyError:
                    continue
                back = from_linear_layout(ll)
                if size(back) > CAP:
                    continue  # up to the values C++ prints
                if tile is not None:
                    tv += 1
                    if tv % 3:
                        continue  # the TV sample: every third
                if any(not isinstance(d, int) for d in flatten((back.outer if isinstance(back, ComposedLayout)
                                                                else back).stride)):
                    continue
                out.append((text, tile, ll, back))
    return out


@pytest.mark.skipif(cpp_build.toolchain() is None, reason="g++ / CUTLASS headers / CUDA (libcu++) headers not found")
def test_written_layouts_evaluate_in_cute_cpp_as_the_linear_layout(tmp_path):
    cases = _cases()
    assert sum(t is None for _, t, _, _ in cases) >= 20 and sum(t is not None for _, t, _, _ in cases) >= 10
    assert any(isinstance(b, ComposedLayout) for _, _, _, b in cases)
    recs = [{"op": "coalesce", "cpp_args": [cpp(back)]} for _, _, _, back in cases]
    harness.run_cases(recs, batch=len(recs), jobs=1, workdir=str(tmp_path))
    for (text, tile, ll, back), r in zip(cases, recs):
        assert "values" in r, (text, back, r)
        vals = harness.cpp_values(r["values"])
        n = size(back)
        assert len(vals) == n, (text, back)
        if tile is None:
            # shared: C++ gives the offset of element (m, n); the linear layout maps that offset back to (m, n)
            M = ll.out_dims[0][1]
            for i, off in enumerate(vals):
                assert xor_value(ll, {"offset": off}) == [i % M, i // M], (text, back, i)
        else:
            T = size(Layout(back.shape[0]))
            M = tile[0]
            for i, e in enumerate(vals):
                t, v = i % T, i // T
                m, nn = xor_value(ll, {"register": v, "lane": t % 32, "warp": t // 32})
                assert e == m + M * nn, (text, back, i)
