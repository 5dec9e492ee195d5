#!/usr/bin/env python3
"""Regenerate tests/algebra/cutlass_unit/cases.json: CuTe C++'s own results for the inputs of CUTLASS's
layout-algebra unit tests.

How: each CUTLASS test file (test/unit/cute/core/*.cpp, read from a bare git mirror of
NVIDIA/cutlass) is compiled *unchanged* except that
  * `#include "cutlass_unit_test.h"` is replaced by a tiny gtest shim (TEST/EXPECT_*/ASSERT_*
    count failures and print `#FAIL` lines instead of aborting), and
  * inside the TEST bodies, calls to the file's `test_xxx(...)` helper are redirected to a
    recorder `REC_xxx(__LINE__, ...)` that prints the inputs and the C++ result with cute::print()
    and then runs the original helper (so the C++ post-condition is checked too).
`#line` keeps __LINE__ equal to the line in the original file.  The pycute tests
(test/python/pycute/*.py) have their inputs transcribed below (PYCUTE_CASES) and are evaluated by
the same C++ operations.

Usage:  python tests/algebra/cutlass_unit/gen_cpp_outputs.py [--git-dir DIR] [--include DIR]
        defaults: --git-dir /work/.mirror/NVIDIA+cutlass/repo (HEAD), --include = the git mirror's
        include/ at HEAD (extracted to a temp dir); `--include venv` uses the cutlass_library
        headers of the installed nvidia-cutlass wheel.  Needs g++ >= 11 (-std=c++17), no GPU.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# g++ runs through the tests' one runner (tests/oracles/cpp_oracle/gxx.py), found beside the tests when this
# script runs on its own
sys.path.insert(0, os.path.join(HERE, "..", "..", "oracles"))
from cpp_oracle.gxx import run_cpp  # noqa: E402
DEFAULT_GIT = "/work/.mirror/NVIDIA+cutlass/repo"
VENV_INCLUDE = os.path.join(sys.prefix, "lib", "python%d.%d" % sys.version_info[:2],
                            "site-packages", "cutlass_library", "source", "include")

CORE_FILES = ["coalesce", "complement", "composition", "logical_divide", "logical_product",
              "inverse_left", "inverse_right", "swizzle_layout", "compact_xmajor", "nullspace",
              "domain_distribute"]

SHIM = r'''
#pragma once
#include <cstdio>
#include <vector>
#include <utility>
static int g_fail = 0;
struct ShimReg {
  static std::vector<std::pair<const char*, void(*)()>>& all() {
    static std::vector<std::pair<const char*, void(*)()>> v; return v; }
  ShimReg(const char* n, void(*f)()) { all().push_back({n, f}); }
};
#define TEST(a,b) static void a##_##b##_fn(); static ShimReg a##_##b##_reg(#a "." #b, a##_##b##_fn); static void a##_##b##_fn()
#define SHIM_CHK(c, ret) do { if (!(c)) { ++g_fail; printf("#FAIL\t%d\t%s\n", __LINE__, #c); ret; } } while (0)
#define EXPECT_TRUE(x)  SHIM_CHK(bool(x), (void)0)
#define EXPECT_FALSE(x) SHIM_CHK(!bool(x), (void)0)
#define EXPECT_EQ(a,b)  SHIM_CHK(bool((a) == (b)), (void)0)
#define EXPECT_NE(a,b)  SHIM_CHK(bool((a) != (b)), (void)0)
#define EXPECT_LT(a,b)  SHIM_CHK(bool((a) <  (b)), (void)0)
#define EXPECT_LE(a,b)  SHIM_CHK(bool((a) <= (b)), (void)0)
#define EXPECT_GT(a,b)  SHIM_CHK(bool((a) >  (b)), (void)0)
#define EXPECT_GE(a,b)  SHIM_CHK(bool((a) >= (b)), (void)0)
#define ASSERT_TRUE(x)  SHIM_CHK(bool(x), return)
#define ASSERT_FALSE(x) SHIM_CHK(!bool(x), return)
#define ASSERT_EQ(a,b)  SHIM_CHK(bool((a) == (b)), return)
#define ASSERT_NE(a,b)  SHIM_CHK(bool((a) != (b)), return)
#define ASSERT_LT(a,b)  SHIM_CHK(bool((a) <  (b)), return)
#define ASSERT_LE(a,b)  SHIM_CHK(bool((a) <= (b)), return)
#define ASSERT_GE(a,b)  SHIM_CHK(bool((a) >= (b)), return)
int main() { for (auto& t : ShimReg::all()) t.second(); printf("#TOTAL_FAIL\t%d\n", g_fail); return 0; }
'''

# Recorders, injected right before the first TEST( of a file (after the helpers, so that their
# unqualified names resolve).  Format of a record line:  @CASE \t line \t op \t in... \t => \t out
REC_COMMON = r'''
namespace rec {
using namespace cute;
inline void sep() { printf("\t"); }
template <class... T> void ins(T const&... x) { ((print(x), sep()), ...); }
inline void head(int line, const char* op) { printf("@CASE\t%d\t%s\t", line, op); }
template <class R> void out(R const& r) { printf("=>\t"); print(r); printf("\n"); }
}
'''


def rec(name, op, params, result_expr, helper_call):
    """A recorder REC_<name>(line, params...) printing inputs and result, then the helper."""
    tparams = ", ".join(f"class T{i}" for i in range(len(params)))
    args = ", ".join(f"T{i} const& {p}" for i, p in enumerate(params))
    return (f"template <{tparams}> void REC_{name}(int line, {args}) {{ using namespace cute; "
            f"rec::head(line, \"{op}\"); rec::ins({', '.join(params)}); rec::out({result_expr}); "
            f"{helper_call}; }}\n")


RECORDERS = {
    "coalesce": [rec("coalesce", "coalesce", ["l"], "coalesce(l)", "test_coalesce(l)")],
    "complement": [
        rec("complement", "complement", ["l", "c"], "complement(l, c)", "test_complement(l, c)"),
        "template <class T0> void REC_complement(int line, T0 const& l) { using namespace cute; "
        "rec::head(line, \"complement\"); rec::ins(l); printf(\"-\\t\"); rec::out(complement(l)); "
        "test_complement(l); }\n"],
    "composition": [rec("composition", "composition", ["a", "b"], "composition(a, b)",
                        "test_composition(a, b)")],
    "logical_divide": [rec("logical_divide", "logical_divide", ["a", "b"], "logical_divide(a, b)",
                           "test_logical_divide(a, b)")],
    "logical_product": [rec("logical_product", "logical_product", ["a", "b"],
                            "logical_product(a, b)", "test_logical_product(a, b)")],
    "inverse_left": [rec("left_inverse", "left_inverse", ["l"], "left_inverse(l)",
                         "test_left_inverse(l)")],
    "inverse_right": [rec("right_inverse", "right_inverse", ["l"], "right_inverse(l)",
                          "test_right_inverse(l)")],
    "nullspace": [rec("nullspace", "nullspace", ["l"], "nullspace(l)", "test_nullspace(l)")],
    "domain_distribute": [rec("distribute", "domain_distribute", ["a", "b"],
                              "domain_distribute(shape(a), shape(b))", "test_distribute(a, b)")],
    # swizzle_layout: the op is composition(Swizzle, Layout); the helper then checks slicing.
    "swizzle_layout": [
        "template <class S, class L> auto REC_swcomp(int line, S const& s, L const& l) { "
        "using namespace cute; auto r = composition(s, l); rec::head(line, \"composition\"); "
        "rec::ins(s, l); rec::out(r); return r; }\n"],
    # compact_xmajor: the op is compact_{col,row}_major(shape[, current]); the asserts follow.
    "compact_xmajor": [
        "template <class... T> auto REC_ccm(int line, T const&... x) { using namespace cute; "
        "auto r = compact_col_major(x...); rec::head(line, \"compact_col_major\"); rec::ins(x...); "
        "rec::out(r); return r; }\n",
        "template <class... T> auto REC_crm(int line, T const&... x) { using namespace cute; "
        "auto r = compact_row_major(x...); rec::head(line, \"compact_row_major\"); rec::ins(x...); "
        "rec::out(r); return r; }\n",
        # evaluate the (normally unevaluated) static assertions so that the recorder runs
        "#undef CUTE_STATIC_ASSERT_V\n"
        "#define CUTE_STATIC_ASSERT_V(x, ...) do { auto _v = (x); "
        "static_assert(decltype(_v)::value); } while (0)\n"],
}

CALL_RENAMES = {
    "coalesce": [("test_coalesce(", "REC_coalesce(__LINE__, ")],
    "complement": [("test_complement(", "REC_complement(__LINE__, ")],
    "composition": [("test_composition(", "REC_composition(__LINE__, ")],
    "logical_divide": [("test_logical_divide(", "REC_logical_divide(__LINE__, ")],
    "logical_product": [("test_logical_product(", "REC_logical_product(__LINE__, ")],
    "inverse_left": [("test_left_inverse(", "REC_left_inverse(__LINE__, ")],
    "inverse_right": [("test_right_inverse(", "REC_right_inverse(__LINE__, ")],
    "nullspace": [("test_nullspace(", "REC_nullspace(__LINE__, ")],
    "domain_distribute": [("test_distribute(", "REC_distribute(__LINE__, ")],
    "swizzle_layout": [("composition(", "REC_swcomp(__LINE__, ")],
    "compact_xmajor": [("compact_col_major(", "REC_ccm(__LINE__, "),
                       ("compact_row_major(", "REC_crm(__LINE__, ")],
}

# Post-condition each CUTLASS helper checks (what tests/algebra/test_cutlass_unit.py re-checks).
POSTCONDITION = {
    "coalesce": "depth(R) <= 1; size(R) == size(L); R(i) == L(i) for i < size(L)",
    "complement": "cosize((L,R)) >= size(cotarget); cosize(R) <= round_up(size(cotarget), "
                  "cosize(L)); R(i-1) < R(i) (ordered); R(i) != L(j) for i >= 1 (disjoint); "
                  "size(R) >= size(cotarget)/size(filter(L)); cosize(R) >= size(cotarget)/size(filter(L))",
    "composition": "compatible(B, R); R(c) == A(B(c)) for c < size(B)",
    "logical_divide": "rank(R) == 2; compatible(B, R<0>)",
    "logical_product": "rank(R) == 2; A == R<0>; compatible(B, R<1>)",
    "left_inverse": "L(R(L(i))) == L(i) for i < size(L)",
    "right_inverse": "L(R(i)) == i for i < size(R)",
    "nullspace": "size(K) == size(L)/size(filter(L)); L(K(i)) == 0 for i < size(K)",
    "domain_distribute": "size(R) divides B; R divides A; R(i) < R(j) for i < j",
    "swizzle_2d": "T(i,j) == T(i,_)(j) == T(_,j)(i) (slicing); here: R(i + j*size<0>) == Sw(off + L(i,j))",
    "compact_col_major": "strides == column-major compact strides of the shape",
    "compact_row_major": "strides == row-major compact strides of the shape",
}

PYCUTE_POSTCONDITION = {
    "coalesce": "size(R) == size(L); R(i) == L(i) for i < size(L)",
    "complement": "L(a) != R(b) unless both are 0 (disjoint codomains)",
    "composition": "R(i) == A(B(i)) for i < size(R)",
    "left_inverse": "R(L(i)) == i for i < size(L)",
    "right_inverse": "L(R(i)) == i for i < size(R)",
}

# test/python/pycute/*.py inputs, transcribed as (line, op, CuTe C++ constructor expressions).
# pycute's Layout(shape) is column-major (make_layout(shape)); Python ((4,2)) is (4,2).
PYCUTE_CASES = {
    "test_coalesce.py": [(57, "coalesce", ["Layout<_1,_0>{}"]),
                         (60, "coalesce", ["Layout<_1,_1>{}"]),
                         (63, "coalesce", ["make_layout(make_shape(2,4))"]),
                         (66, "coalesce", ["make_layout(make_shape(2,4,6))"]),
                         (69, "coalesce", ["make_layout(make_shape(2,4,6), make_stride(1,6,2))"]),
                         (72, "coalesce", ["make_layout(make_shape(2,1,6), make_stride(1,7,2))"]),
                         (75, "coalesce", ["make_layout(make_shape(2,1,6), make_stride(4,7,8))"]),
                         (78, "coalesce", ["make_layout(make_shape(2,make_shape(4,6)))"]),
                         (81, "coalesce", ["make_layout(make_shape(2,4), make_stride(4,1))"]),
                         (84, "coalesce", ["make_layout(make_shape(2,4,6), make_stride(24,6,1))"]),
                         (87, "coalesce", ["make_layout(make_shape(2,1,3), make_stride(2,4,4))"]),
                         (90, "coalesce", ["make_layout(make_shape(make_shape(2,2),make_shape(2,2)), make_stride(make_stride(1,4),make_stride(8,32)))"])],
    "test_complement.py": [(57, "complement", ["make_layout(1,0)"]),
                           (60, "complement", ["make_layout(1,1)"]),
                           (63, "complement", ["make_layout(4,0)"]),
                           (66, "complement", ["make_layout(make_shape(2,4), make_stride(1,2))"]),
                           (69, "complement", ["make_layout(make_shape(2,3), make_stride(1,2))"]),
                           (72, "complement", ["make_layout(make_shape(2,4), make_stride(1,4))"]),
                           (75, "complement", ["make_layout(make_shape(2,4,8), make_stride(8,1,64))"]),
                           (78, "complement", ["make_layout(make_shape(make_shape(2,2),make_shape(2,2)), make_stride(make_stride(1,4),make_stride(8,32)))"]),
                           (81, "complement", ["make_layout(make_shape(2,make_shape(3,4)), make_stride(3,make_stride(1,6)))"]),
                           (84, "complement", ["make_layout(make_shape(4,6), make_stride(1,6))"]),
                           (87, "complement", ["make_layout(make_shape(4,10), make_stride(1,10))"])],
    "test_composition.py": [
        (58, "composition", ["make_layout(1,0)", "make_layout(1,0)"]),
        (62, "composition", ["make_layout(1,0)", "make_layout(1,1)"]),
        (66, "composition", ["make_layout(1,1)", "make_layout(1,0)"]),
        (70, "composition", ["make_layout(1,1)", "make_layout(1,1)"]),
        (74, "composition", ["make_layout(4)", "make_layout(4)"]),
        (78, "composition", ["make_layout(4,2)", "make_layout(4)"]),
        (82, "composition", ["make_layout(4)", "make_layout(4,2)"]),
        (86, "composition", ["make_layout(4,0)", "make_layout(4)"]),
        (90, "composition", ["make_layout(4)", "make_layout(4,0)"]),
        (94, "composition", ["make_layout(1,0)", "make_layout(4)"]),
        (98, "composition", ["make_layout(4)", "make_layout(1,0)"]),
        (102, "composition", ["make_layout(4)", "make_layout(2)"]),
        (106, "composition", ["make_layout(4,2)", "make_layout(2)"]),
        (110, "composition", ["make_layout(4)", "make_layout(2,2)"]),
        (114, "composition", ["make_layout(4,2)", "make_layout(2,2)"]),
        (118, "composition", ["make_layout(12)", "make_layout(make_shape(4,3))"]),
        (122, "composition", ["make_layout(12,2)", "make_layout(make_shape(4,3))"]),
        (126, "composition", ["make_layout(12)", "make_layout(make_shape(4,3), make_stride(3,1))"]),
        (130, "composition", ["make_layout(12,2)", "make_layout(make_shape(4,3), make_stride(3,1))"]),
        (134, "composition", ["make_layout(12)", "make_layout(make_shape(2,3), make_stride(2,4))"]),
        (138, "composition", ["make_layout(make_shape(4,3))", "make_layout(make_shape(4,3))"]),
        (142, "composition", ["make_layout(make_shape(4,3))", "make_layout(12)"]),
        (146, "composition", ["make_layout(make_shape(4,3))", "make_layout(6,2)"]),
        (150, "composition", ["make_layout(make_shape(4,3))", "make_layout(make_shape(6,2), make_stride(2,1))"]),
        (154, "composition", ["make_layout(make_shape(4,3), make_stride(3,1))", "make_layout(make_shape(4,3))"]),
        (158, "composition", ["make_layout(make_shape(4,3), make_stride(3,1))", "make_layout(12)"]),
        (162, "composition", ["make_layout(make_shape(4,3), make_stride(3,1))", "make_layout(6,2)"]),
        (166, "composition", ["make_layout(make_shape(4,3), make_stride(3,1))", "make_layout(make_shape(6,2), make_stride(2,1))"]),
        (170, "composition", ["make_layout(make_shape(8,8))", "make_layout(make_shape(make_shape(2,2,2),make_shape(2,2,2)), make_stride(make_stride(1,16,4),make_stride(8,2,32)))"]),
        (174, "composition", ["make_layout(make_shape(8,8), make_stride(8,1))", "make_layout(make_shape(make_shape(2,2,2),make_shape(2,2,2)), make_stride(make_stride(1,16,4),make_stride(8,2,32)))"]),
        (178, "composition", ["make_layout(make_shape(make_shape(2,2,2),make_shape(2,2,2)), make_stride(make_stride(1,16,4),make_stride(8,2,32)))", "make_layout(8,4)"]),
        (182, "composition", ["make_layout(make_shape(4,2), make_stride(1,16))", "make_layout(make_shape(4,2), make_stride(2,1))"]),
        (186, "composition", ["make_layout(make_shape(2,2), make_stride(2,1))", "make_layout(make_shape(2,2), make_stride(2,1))"]),
        (190, "composition", ["make_layout(make_shape(4,8,2))", "make_layout(make_shape(2,2,2), make_stride(2,8,1))"]),
        (194, "composition", ["make_layout(make_shape(4,8,2), make_stride(2,8,1))", "make_layout(make_shape(2,2,2), make_stride(1,8,2))"]),
        (198, "composition", ["make_layout(make_shape(4,8,2), make_stride(2,8,1))", "make_layout(make_shape(4,2,2), make_stride(2,8,1))"]),
        (203, "composition", ["make_layout(make_shape(4,6,8), make_stride(1,4,7))", "make_layout(6,1)"]),
        (208, "composition", ["make_layout(make_shape(4,6,8,10), make_stride(2,3,5,7))", "make_layout(6,12)"])],
    "test_left_inverse.py": [(55, "left_inverse", ["make_layout(1,0)"]),
                             (58, "left_inverse", ["make_layout(make_shape(1,1), make_stride(0,0))"]),
                             (61, "left_inverse", ["make_layout(1,1)"]),
                             (64, "left_inverse", ["make_layout(4,1)"]),
                             (67, "left_inverse", ["make_layout(4,2)"]),
                             (70, "left_inverse", ["make_layout(make_shape(8,4), make_stride(1,8))"]),
                             (73, "left_inverse", ["make_layout(make_shape(8,4), make_stride(4,1))"]),
                             (76, "left_inverse", ["make_layout(make_shape(2,4,6), make_stride(1,2,8))"]),
                             (79, "left_inverse", ["make_layout(make_shape(2,4,6), make_stride(4,1,8))"]),
                             (82, "left_inverse", ["make_layout(make_shape(4,2), make_stride(1,16))"])],
    "test_right_inverse.py": [(55, "right_inverse", ["make_layout(1,0)"]),
                              (58, "right_inverse", ["make_layout(make_shape(1,1), make_stride(0,0))"]),
                              (61, "right_inverse", ["make_layout(make_shape(3,7), make_stride(0,0))"]),
                              (64, "right_inverse", ["make_layout(1,1)"]),
                              (67, "right_inverse", ["make_layout(4,0)"]),
                              (70, "right_inverse", ["make_layout(4,1)"]),
                              (73, "right_inverse", ["make_layout(4,2)"]),
                              (76, "right_inverse", ["make_layout(make_shape(2,4), make_stride(0,2))"]),
                              (79, "right_inverse", ["make_layout(make_shape(8,4), make_stride(1,8))"]),
                              (82, "right_inverse", ["make_layout(make_shape(8,4), make_stride(4,1))"]),
                              (85, "right_inverse", ["make_layout(make_shape(2,4,6), make_stride(1,2,8))"]),
                              (88, "right_inverse", ["make_layout(make_shape(2,4,6), make_stride(4,1,8))"]),
                              (91, "right_inverse", ["make_layout(make_shape(4,2), make_stride(1,16))"])],
}


def make_static(expr):
    """pycute layouts are plain ints; CuTe C++ needs static ints for static post-processing of
    e.g. complement(complement(..)).  Use static ints (Int<n>{}) throughout."""
    return re.sub(r"(?<![\w<])(-?\d+)(?![\w>])", lambda m: f"Int<{m.group(1)}>{{}}", expr)


def to_cv_text(s):
    """C++ print form -> cuteverify text: static marks dropped (`_4` -> `4`, `_-1` -> `-1`),
    `Sw<B,M,S>` -> `S<B,M,S>`."""
    if s is None:
        return None
    return re.sub(r"_(?=-?\d)", "", s).replace("Sw<", "S<")


def is_static(s):
    """Every integer of a C++ print form is static (`_`-prefixed)."""
    if s is None:
        return True
    t = re.sub(r"Sw<[^>]*>", "", s)
    t = re.sub(r"@\d+", "", t)
    return all(tok.startswith("_") for tok in re.findall(r"_?-?\d+", t))


# Cases whose CUTLASS test additionally asserts the exact shape/stride of the result
# (logical_divide.cpp "Enforcement for dynamic cases" blocks).
EXACT_STRUCTURE = {("test/unit/cute/core/logical_divide.cpp", 187),
                   ("test/unit/cute/core/logical_divide.cpp", 201),
                   ("test/unit/cute/core/logical_divide.cpp", 222),
                   ("test/unit/cute/core/logical_divide.cpp", 236)}


def _static_tuple(t, i=0):
    """Printed int tuple at t[i:] -> (C++ expression with every integer static, next index)."""
    if t[i] == "(":
        items, i = [], i + 1
        while True:
            e, i = _static_tuple(t, i)
            items.append(e)
            if t[i] == ",":
                i += 1
                continue
            assert t[i] == ")", t
            return f"make_tuple({', '.join(items)})", i + 1
    m = re.compile(r"_?(-?\d+)").match(t, i)
    assert m, (t, i)
    return f"Int<{m.group(1)}>{{}}", m.end()


def static_expr(printed):
    """A C++ print form (layout `S:D` or int tuple) rebuilt with static integers only."""
    t = printed.replace(" ", "")
    a, i = _static_tuple(t)
    if i == len(t):
        return a
    assert t[i] == ":", t
    b, j = _static_tuple(t, i + 1)
    assert j == len(t), t
    return f"make_layout({a}, {b})"


STATIC_OP = {"coalesce": "coalesce", "complement": "complement", "composition": "composition",
             "logical_divide": "logical_divide", "logical_product": "logical_product",
             "left_inverse": "left_inverse", "right_inverse": "right_inverse",
             "nullspace": "nullspace", "compact_col_major": "compact_col_major",
             "compact_row_major": "compact_row_major", "domain_distribute": "domain_distribute"}


def static_variants_tu(cases):
    """One TU: for each case with dynamic integers, the same op on all-static inputs."""
    body = []
    for k, c in enumerate(cases):
        args = [static_expr(x) for x in c["inputs"] if x is not None]
        body.append(f'  printf("@STATIC\\t{k}\\t"); print({STATIC_OP[c["op"]]}({", ".join(args)})); '
                    f'printf("\\n");')
    return ("#include <cute/tensor.hpp>\nusing namespace cute;\nint main() {\n"
            + "\n".join(body) + "\n  return 0;\n}\n")


def git_show(git_dir, rev_path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", rev_path], check=True,
                          capture_output=True, text=True).stdout


def instrument(name, src):
    lines = src.split("\n")
    inc = [i for i, l in enumerate(lines) if '#include "cutlass_unit_test.h"' in l]
    assert inc, name
    lines[inc[0]] = '#include "shim_gtest.h"'
    first_test = next(i for i, l in enumerate(lines) if l.startswith("TEST("))
    body = lines[first_test:]
    out = []
    for l in body:
        stripped = l.lstrip()
        if not stripped.startswith("//"):
            for old, new in CALL_RENAMES[name]:
                l = re.sub(r"(?<![\w:])" + re.escape(old), new, l)
        out.append(l)
    inject = REC_COMMON + "".join(RECORDERS[name]) + f'#line {first_test + 1} "{name}.cpp"'
    return "\n".join(lines[:first_test] + [inject] + out)


def pycute_tu():
    recs = []
    body = []
    for fname, cases in PYCUTE_CASES.items():
        for line, op, args in cases:
            args = [make_static(a) for a in args]
            dash = 'printf("-\\t"); ' if op == "complement" else ""
            body.append(f'  printf("@FILE\\t{fname}\\n"); rec::head({line}, "{op}"); '
                        f'{{ auto x = std::make_tuple({", ".join(args)}); '
                        f'std::apply([](auto const&... a) {{ rec::ins(a...); {dash}'
                        f'rec::out({op}(a...)); }}, x); }}')
    return ("#include <tuple>\n#include <cute/tensor.hpp>\n#include <cute/swizzle_layout.hpp>\n"
            + REC_COMMON + "int main() {\n  using namespace cute;\n" + "\n".join(body) + "\n  return 0;\n}\n")


def cuda_include(workdir):
    """cute/util/debug.hpp includes <cuda_runtime_api.h> (host code only needs it to exist):
    use a CUDA toolkit's include dir when there is one, else an empty stub."""
    for d in [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"] + sorted(
            glob.glob("/usr/local/cuda-*"), reverse=True):
        if d and os.path.exists(os.path.join(d, "include", "cuda_runtime_api.h")):
            return os.path.join(d, "include")
    stub = os.path.join(workdir, "cuda_stub")
    os.makedirs(stub, exist_ok=True)
    open(os.path.join(stub, "cuda_runtime_api.h"), "w").close()
    return stub


def compile_run(workdir, tu_name, text, include):
    incs = ["-I", workdir, "-I", include]
    cuda = cuda_include(workdir)
    incs += ["-isystem", cuda]
    if os.path.isdir(os.path.join(cuda, "cccl")):  # libcu++ (cuda/std/...), needed by CUTLASS >= 4.3
        incs += ["-isystem", os.path.join(cuda, "cccl")]
    r = run_cpp(text, flags=["-std=c++17", "-O1", "-w"], includes=incs, name=tu_name, workdir=workdir,
                run_timeout=None)
    if r.returncode != 0:
        raise RuntimeError(f"compile {tu_name} failed:\n{r.stderr[-4000:]}")
    if r.run_returncode != 0:
        raise RuntimeError(f"{tu_name} exited with {r.run_returncode}")
    return r.stdout


def parse_output(stdout, source_of):
    cases, cur, total = [], None, None
    for l in stdout.splitlines():
        if l.startswith("@FILE\t"):
            source_of = l.split("\t")[1]
        elif l.startswith("@CASE\t"):
            parts = l.split("\t")
            line, op = int(parts[1]), parts[2]
            arrow = parts.index("=>")
            ins = [p for p in parts[3:arrow]]
            ins = [None if p == "-" else p for p in ins if p != ""]
            cur = {"line": line, "op": op, "inputs": ins, "cpp_result": parts[arrow + 1],
                   "cpp_failures": [], "file": source_of}
            cases.append(cur)
        elif l.startswith("#FAIL\t"):
            (cur["cpp_failures"] if cur is not None else []).append(l.split("\t", 2)[2])
        elif l.startswith("#TOTAL_FAIL"):
            total = int(l.split("\t")[1])
    return cases, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", default=DEFAULT_GIT)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--include", default=None, help="CuTe include dir, or 'venv'")
    ap.add_argument("--out", default=os.path.join(HERE, "cases.json"))
    a = ap.parse_args()
    commit = subprocess.run(["git", "--git-dir", a.git_dir, "rev-parse", a.rev], check=True,
                            capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as work:
        if a.include == "venv":
            include, include_desc = VENV_INCLUDE, "nvidia-cutlass wheel (cutlass_library) headers"
        elif a.include:
            include, include_desc = a.include, a.include
        else:
            include = os.path.join(work, "include")
            os.makedirs(include)
            arch = subprocess.run(["git", "--git-dir", a.git_dir, "archive", a.rev, "include"],
                                  check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", work], input=arch, check=True)
            include_desc = f"NVIDIA/cutlass include/ at {commit}"
        ver = open(os.path.join(include, "cutlass", "version.h")).read()
        version = ".".join(re.search(rf"#define CUTLASS_{k} (\d+)", ver).group(1)
                           for k in ("MAJOR", "MINOR", "PATCH"))
        with open(os.path.join(work, "shim_gtest.h"), "w") as f:
            f.write(SHIM)
        all_cases, per_file_fail = [], {}
        for name in CORE_FILES:
            try:
                src = git_show(a.git_dir, f"{a.rev}:test/unit/cute/core/{name}.cpp")
            except subprocess.CalledProcessError:
                continue
            path = f"test/unit/cute/core/{name}.cpp"
            stdout = compile_run(work, name, instrument(name, src), include)
            cases, total = parse_output(stdout, path)
            per_file_fail[path] = total
            all_cases += cases
            print(f"{path}: {len(cases)} cases, C++ post-condition failures: {total}",
                  file=sys.stderr)
        stdout = compile_run(work, "pycute_cases", pycute_tu(), include)
        cases, _ = parse_output(stdout, None)
        for c in cases:
            c["file"] = "test/python/pycute/" + c["file"]
        all_cases += cases
        print(f"pycute: {len(cases)} cases", file=sys.stderr)
        dyn = [c for c in all_cases
               if not all(is_static(x) for x in c["inputs"] + [c["cpp_result"]])]
        stdout = compile_run(work, "static_variants", static_variants_tu(dyn), include)
        for l in stdout.splitlines():
            if l.startswith("@STATIC\t"):
                _, k, r = l.split("\t", 2)
                dyn[int(k)]["cpp_result_static"] = r
        print(f"static variants: {len(dyn)} cases", file=sys.stderr)
    out = []
    seen = {}
    for c in all_cases:
        base = os.path.splitext(os.path.basename(c["file"]))[0]
        cid = f"{base}:{c['line']}:{c['op']}"
        seen[cid] = seen.get(cid, 0) + 1
        if seen[cid] > 1:
            cid += f"#{seen[cid]}"
        pyc = c["file"].startswith("test/python")
        op = c["op"]
        post_key = "swizzle_2d" if base == "swizzle_layout" else op
        out.append({
            "id": cid,
            "source": f"{c['file']}:{c['line']}",
            "op": op,
            "inputs": c["inputs"],
            "inputs_cv": [to_cv_text(x) for x in c["inputs"]],
            "cpp_result": c["cpp_result"],
            "cpp_result_static": c.get("cpp_result_static"),
            "all_static": all(is_static(x) for x in c["inputs"] + [c["cpp_result"]]),
            "exact_structure": (c["file"], c["line"]) in EXACT_STRUCTURE,
            "postcondition": (PYCUTE_POSTCONDITION if pyc else POSTCONDITION)[post_key],
            "postcondition_kind": ("pycute_" if pyc else "") + post_key,
            "cpp_postcondition_failures": c["cpp_failures"],
        })
    meta = {"cutlass_commit": commit, "headers": include_desc, "cutlass_version": version,
            "compiler": subprocess.run(["g++", "--version"], capture_output=True,
                                       text=True).stdout.splitlines()[0],
            "generated_by": "tests/algebra/cutlass_unit/gen_cpp_outputs.py",
            "cpp_failures_per_file": per_file_fail,
            "headers_note": "CUTLASS 4.2.0 wheel headers (--include venv) give identical "
                            "results for every case (checked when this file was generated)",
            "note": "inputs and cpp_result are CuTe C++ print() forms (`_n` static, `n` dynamic); "
                    "a null input = argument omitted (complement(L) == complement(L, cosize(L))); "
                    "cpp_result_static (cases with dynamic integers only): C++'s result for the "
                    "same values with every integer made static (cuteverify has no dynamic ints)"}
    with open(a.out, "w") as f:
        json.dump({"meta": meta, "cases": out}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(out)} cases to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
