"""Adversarial review of ``cuteverify trace cpp`` (issue 29): wrong verdicts found by mutating the committed
records (``cpp/*.records.json``) and the kernel source texts (CUTLASS's tutorials, as the nvidia-cutlass wheel
ships them) in memory, each verdict checked against an evaluator written here (plain Python over the printed
CuTe layouts: bank counts by brute force over the threads of one copy instruction) that shares no code with
cuteverify. No test compiles: the kernel body's relations are read from the source text, the printed objects
from the records, so an edited source with the committed records is what ``trace cpp`` would see for a kernel
whose printed arguments are those.
"""
from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from cuteverify.frontend.trace import cpp_build, cpp_check, cpp_flow
from cuteverify.frontend.trace.cpp_capture import Record

HERE = Path(__file__).parent / "cpp"
cutlass_library = pytest.importorskip("cutlass_library")
ROOT = Path(cutlass_library.__file__).parent / "source"
PATH = "examples/cute/tutorial/sgemm_sm80.cu"
if not (ROOT / PATH).is_file():
    pytest.skip(f"the nvidia-cutlass wheel has no {PATH}", allow_module_level=True)
TEXT = (ROOT / PATH).read_text()
HGEMM, GENERIC_TN = ":424", ":574"   # the launches: the TN HGEMM, the generic TN SGEMM


# ------------------------------------------------------------------------------ an independent evaluator

def _tree(text: str):
    """A CuTe C++ IntTuple text (``((_8,_16),_8)``, static ``_n`` or runtime ``n``) as nested tuples of ints."""
    toks = re.findall(r"\(|\)|,|_?\d+", text)
    pos = 0

    def node():
        nonlocal pos
        if toks[pos] == "(":
            pos += 1
            out = []
            while toks[pos] != ")":
                if toks[pos] == ",":
                    pos += 1
                    continue
                out.append(node())
            pos += 1
            return tuple(out)
        v = int(toks[pos].lstrip("_"))
        pos += 1
        return v
    return node()


def _flat(t):
    return [t] if isinstance(t, int) else [x for s in t for x in _flat(s)]


class Lay:
    """A printed CuTe layout ``[Sw<B,M,S> o OFF o] shape:stride`` evaluated at a 1-D (colexicographic) index."""

    def __init__(self, text: str):
        m = re.fullmatch(r"\s*(?:Sw<(\d+),(\d+),(\d+)>\s*o\s*_?(\d+)\s*o\s*)?(.*):(.*)\s*", text)
        self.swz = tuple(int(m.group(i)) for i in (1, 2, 3)) if m.group(1) else None
        self.off = int(m.group(4)) if m.group(4) else 0
        self.shape, self.stride = _flat(_tree(m.group(5))), _flat(_tree(m.group(6)))
        self.size = 1
        for s in self.shape:
            self.size *= s

    def __call__(self, i: int) -> int:
        o = 0
        for s, d in zip(self.shape, self.stride):
            o += (i % s) * d
            i //= s
        o += self.off
        if self.swz:
            b, base, sh = self.swz
            o ^= ((o >> (base + sh)) & ((1 << b) - 1)) << base
        return o


def bank_degree(addrs_by_thread, nbytes: int) -> int:
    """The wavefronts of one warp-wide shared-memory instruction over the minimum: ``addrs_by_thread`` the byte
    address each thread accesses (``nbytes`` each, aligned). Accesses of 4 bytes or less are one phase of 32
    threads; 8-byte accesses two phases of 16; 16-byte accesses four phases of 8. In a phase, the degree is the
    largest number of distinct 4-byte words one bank holds."""
    per_phase = 32 // max(1, nbytes // 4)
    worst = 0
    for p in range(0, 32, per_phase):
        banks: dict = {}
        for a in addrs_by_thread[p:p + per_phase]:
            for w in range(a // 4, (a + max(nbytes, 4)) // 4):
                banks.setdefault(w % 32, set()).add(w)
        worst = max(worst, max(len(v) for v in banks.values()))
    return worst


# ------------------------------------------------------------------------------------------ fixtures

def _records(name="sgemm_sm80"):
    data = json.loads((HERE / f"{name}.records.json").read_text())
    return [Record(**r) for r in data["records"]], data["info"]


def _rows(text=TEXT, records=None, info=None, path=PATH):
    if records is None:
        records, info = _records()
    return cpp_check.run_documents(cpp_check.documents(path, text, records, info))[0]


def _rec(records, at, index):
    return next(r for r in records if r.at.endswith(at) and r.index == index)


def _launch(rows, at):
    return [r for r in rows if (r.get("at") or "").split(":")[1:2] == [at.lstrip(":")]
            or f"gemm_device_{at.lstrip(':')}" == r["kernel"]]


def _claims(rows, kind=None):
    return [r for r in rows if r["kind"] not in ("note", "unmapped") and (kind is None or r["kind"] == kind)]


# -------------------------------------------------- the one refuted verdict on the unmodified tutorials

def test_generic_tn_sgemm_cp_async_writes_are_4_way_by_an_independent_count():
    """sgemm_sm80.cu's generic TN SGEMM (launch at line 574): copyA = make_tiled_copy(cp.async<float>, 32x8
    k-major threads, 1x1 values) writes sA = ((128,1),(8,1),(1,3)):((1,0),(129,0),(0,1032)). Counted over every
    warp of the 256 threads, every (M-block, stage) tile the copy's partition_D places: thread t writes
    (m, k) = (t / 8, t % 8), word m + 129 k, bank (m + k) mod 32: 4 distinct words in banks 3..7 of each warp.
    cuteverify's refuted `banks` (degree 4) is right: a kernel fact, confirmed."""
    records, _ = _records()
    copy, smem = _rec(records, GENERIC_TN, 5), _rec(records, GENERIC_TN, 4)
    tv = Lay(re.search(r"TiledLayout_TV:\s*(\S+)", copy.text).group(1))
    tm, tk = (int(x.lstrip("_")) for x in re.search(r"Tiler_MN:\s*\((\S+)\)", copy.text).group(1).split(","))
    sa = Lay(smem.text)
    assert (tm, tk) == (32, 8) and sa.size == 128 * 8 * 3
    degrees = set()
    for stage in range(3):
        for mb in range(128 // tm):
            for warp in range(8):
                addrs = []
                for t in range(32 * warp, 32 * warp + 32):
                    i = tv(t)                      # (thread, value 0) -> colex index in the (32, 8) tile
                    m, k = mb * tm + i % tm, i // tm
                    addrs.append(4 * sa(m + 128 * k + 128 * 8 * stage))
                degrees.add(bank_degree(addrs, 4))
    assert degrees == {4}
    rows = _rows()
    refuted = [r for r in rows if r["status"] == "refuted"]
    assert {(r["kernel"], r["kind"], r["at"].split("`")[1], r["degree"]) for r in refuted} == {
        ("gemm_device_574", "banks", "copyA", 4), ("gemm_device_574", "banks", "copyB", 4)}


_CUTE_BANKS = r"""#include <cute/tensor.hpp>
#include <cstdio>
using namespace cute;
int main() {
  // sgemm_sm80.cu's generic TN SGEMM (gemm_tn<float, ...>): its sA and copyA as the tutorial writes them
  auto bM = Int<128>{}; auto bK = Int<8>{}; auto bP = Int<3>{};
  auto sA_atom = make_layout(make_shape(bM, bK), make_stride(Int<1>{}, bM + Int<1>{}));
  auto sA = tile_to_shape(sA_atom, make_shape(bM, bK, bP));
  TiledCopy copyA = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<float>, float>{},
                                    Layout<Shape<_32,_8>,Stride<_8,_1>>{}, Layout<Shape<_1,_1>>{});
  static float buf[cosize_v<decltype(sA)>];
  Tensor s = make_tensor(make_smem_ptr(buf), sA);
  for (int tid = 0; tid < int(size(copyA)); ++tid) {
    Tensor d = copyA.get_slice(tid).partition_D(s);   // gemm_device's tAsA: (CPY, CPY_M, CPY_K, PIPE)
    for (int i = 0; i < int(size(d)); ++i)
      std::printf("%d %d %ld\n", tid, i, long(&d(i) - buf));
  }
  return 0;
}
"""


@pytest.mark.differential
@pytest.mark.skipif(cpp_build.toolchain() is None, reason="g++, the CUTLASS headers or CUDA's headers are missing")
def test_generic_tn_sgemm_conflict_by_cute_cpp_itself():
    """The same count with the addresses CuTe C++ computes: gemm_device's `copy_a.get_slice(tid).partition_D(sA)`
    for each of the 256 threads, every element's smem offset (floats: the word). Each of the 12 cp.async
    instructions (CPY_M x PIPE) of each warp puts 4 distinct words in one bank: 4-way everywhere."""
    work = Path(tempfile.gettempdir()) / "cuteverify-trace-cpp"
    work.mkdir(exist_ok=True)
    c = cpp_build.compile_cpp(_CUTE_BANKS, str(work / "review_generic_tn_banks.cpp"),
                              str(work / "review_generic_tn_banks"))
    assert c.returncode == 0, c.stderr[-2000:]
    out = subprocess.run([c.out], capture_output=True, text=True, check=True, timeout=60).stdout
    offsets: dict = {}
    for ln in out.split("\n"):
        if ln.strip():
            tid, i, off = map(int, ln.split())
            offsets.setdefault(i, {})[tid] = off
    assert len(offsets) == 12 and all(len(v) == 256 for v in offsets.values())
    degrees = set()
    for per_thread in offsets.values():
        for warp in range(8):
            degrees.add(bank_degree([4 * per_thread[t] for t in range(32 * warp, 32 * warp + 32)], 4))
    assert degrees == {4}


def test_hgemm_cp_async_and_ldmatrix_counts_agree_with_proved():
    """The TN HGEMM's cp.async 16-byte writes of copyA and its ldmatrix reads (s2r_copy_a) through the Sw<3,3,3>
    sA (a layout swizzle in half_t elements): conflict-free in every phase of 8 threads by the independent count,
    as cuteverify proves."""
    records, _ = _records()
    copy, smem = _rec(records, HGEMM, 5), _rec(records, HGEMM, 4)
    tv = Lay(re.search(r"TiledLayout_TV:\s*(\S+)", copy.text).group(1))
    sa = Lay(smem.text)
    for warp in range(4):
        addrs = []
        for t in range(32 * warp, 32 * warp + 32):
            i = tv(t * 1)                            # value 0 of thread t (the 8 values are one 16-byte vector)
            m, k = i % 16, i // 16
            addrs.append(2 * sa(m + 128 * k))
            assert [2 * sa(m + 128 * (k + v)) for v in range(8)] == [addrs[-1] + 2 * v for v in range(8)]
        assert bank_degree(addrs, 16) == 1
    plain = Lay(smem.text.replace("Sw<3,3,3>", "Sw<0,3,3>"))     # the evaluator sees the unswizzled 8-way
    assert bank_degree([2 * plain((tv(t) % 16) + 128 * (tv(t) // 16)) for t in range(32)], 16) == 8
    # ldmatrix.x4 (s2r_copy_a, CuTe's own make_tiled_copy_A as printed): each thread gives one 16-byte row, 8
    # threads per phase; every (M, K) tile of every stage of sA, every warp: conflict-free, as proved
    s2r = _rec(records, HGEMM, 1000)
    assert s2r.source == "s2r_copy_a"
    stv = Lay(re.search(r"LayoutS_TV:\s*(\S+)", s2r.text).group(1))
    sm, sk = (int(x.lstrip("_")) for x in re.search(r"Tiler_MN:\s*\((\S+)\)", s2r.text).group(1).split(","))
    degrees = set()
    for stage in range(3):
        for mb in range(128 // sm):
            for kb in range(64 // sk):
                for warp in range(4):
                    addrs = []
                    for t in range(32 * warp, 32 * warp + 32):
                        i = stv(t)                   # (thread, value 0): the row's first element
                        m, k = mb * sm + i % sm, kb * sk + i // sm
                        row = [2 * sa(m + 128 * (k + v) + 128 * 64 * stage) for v in range(8)]
                        assert row == [row[0] + 2 * v for v in range(8)]   # one contiguous 16-byte row
                        addrs.append(row[0])
                    degrees.add(bank_degree(addrs, 16))
    assert degrees == {1}
    rows = [r for r in _rows() if r["kernel"] == "gemm_device_424" and r["kind"] == "banks"]
    assert len(rows) == 4 and {r["status"] for r in rows} == {"proved"}


# ------------------------------------------- finding 1: an unread spelling drops the smem checks silently

def _smem_rows(rows, at):
    return [r for r in rows if r["kernel"] == f"gemm_device_{at.lstrip(':')}"
            and r["kind"] in ("banks", "vector", "injective", "operand")]


@pytest.mark.parametrize("spelling", ["cute::make_tensor(cute::make_smem_ptr(", "make_tensor(make_smem_ptr<TA>(",
                                      ":: cute :: make_tensor(make_smem_ptr("])
def test_qualified_cute_spelling_keeps_the_4_way_conflict(spelling):
    """`Tensor sA = cute::make_tensor(cute::make_smem_ptr(...), sA_layout);` is the same relation as the
    unqualified spelling. Before the fix (cpp_flow._SMEM matched only the unqualified one) the generic TN
    SGEMM's refuted cp.async writes (4-way, counted above) vanished: sA_layout became a note "does not lay shared
    memory out with it" and `partition_D(sA)` a note "no shared-memory tensor": exit 0, every row proved or n/a."""
    if "<TA>" in spelling:  # the pointer's element type spelled: TA for sA, TB for sB
        text = TEXT.replace("make_smem_ptr(smem.A.begin())", "make_smem_ptr<TA>(smem.A.begin())") \
                   .replace("make_smem_ptr(smem.B.begin())", "make_smem_ptr<TB>(smem.B.begin())")
    else:
        text = TEXT.replace("make_tensor(make_smem_ptr(", spelling)
    assert text != TEXT
    got = {(r["kind"], r["status"], r["at"].split("`")[1]) for r in _smem_rows(_rows(text), GENERIC_TN)}
    assert got == {(r["kind"], r["status"], r["at"].split("`")[1]) for r in _smem_rows(_rows(), GENERIC_TN)}
    assert ("banks", "refuted", "copyA") in got and ("injective", "proved", "sA") in got


def test_qualified_cute_spelling_keeps_the_hopper_checks():
    """The same on wgmma_sm90.cu (cpp_flow_sm90._SMEM_T / _ALIAS): `cute::make_tensor(cute::make_smem_ptr(...),
    ASmemLayout{})` and `cute::as_position_independent_swizzle_tensor(sA)` dropped the `injective`, `banks`,
    `vector` and wgmma `operand` claims (8 per launch) without an unknown."""
    wg = "examples/cute/tutorial/hopper/wgmma_sm90.cu"
    text = (ROOT / wg).read_text()
    records, info = _records("wgmma_sm90")
    mutant = text.replace("= make_tensor(make_smem_ptr(", "= cute::make_tensor(cute::make_smem_ptr(")
    alias = "as_position_independent_swizzle_tensor("
    mutant = mutant.replace(f"= {alias}", f"= cute::{alias}")
    assert mutant != text

    def smem(rows):
        return sorted((r["kernel"], r["kind"], r["status"], r["at"]) for r in rows
                      if r["kind"] in ("banks", "vector", "injective", "operand"))
    want = smem(_rows(text, records, info, wg))
    assert len(want) == 16 and {w[2] for w in want} == {"proved"}
    assert smem(_rows(mutant, records, info, wg)) == want


# ------------------------------------------------ finding 2: code under `#if 0` read as the kernel's flow

def test_relations_under_if_0_are_not_the_kernels():
    """sgemm_sm80.cu already keeps code under `#if 0` (prints) in gemm_device. A relation written in such an arm
    (an old partition kept for reference, a debugging variant) is compiled by no configuration, yet
    cpp_flow read it: here `thr_copy_b.partition_D(sA)` gave copyB a `banks` / `vector` claim through sA (and
    the `#else` arm of `#if 1` likewise). A verdict about something the kernel does not do."""
    line = '    print("  mA : "); print(  mA); print("\\n");'
    assert TEXT.count(line) == 1
    text = TEXT.replace(line, "  Tensor tBsA = thr_copy_b.partition_D(sA);")   # inside `#if 0`, lines kept
    assert text.count("\n") == TEXT.count("\n") and text.count("tBsA") == 1
    rows = _rows(text)
    assert len(_claims([r for r in rows if r["kernel"] == "gemm_device_574"], "banks")) == 2  # the launch is read
    assert not [r for r in rows if "tBsA" in (r.get("claim") or "") + (r.get("reason") or "")]
    dead = ("#if 0\n  Tensor tBsA = thr_copy_b.partition_D(sA);\n#endif\n"
            "#if 1\n#else\n  Tensor tAsB = thr_copy_a.partition_D(sB);\n#endif\n")
    anchor = "  CUTE_STATIC_ASSERT_V(size<1>(tAgA) == size<1>(tAsA));"
    text = TEXT.replace(anchor, dead + anchor, 1)
    la, start, _ = cpp_flow_launch(text)
    flow = cpp_flow.kernel_flow(text, la.kernel, start)
    assert {(c, s, i) for c, s, i, _, _ in flow.accesses} == {
        (5, "dst", 4), (10, "dst", 9), ("s2r_copy_a", "src", 4), ("s2r_copy_b", "src", 9)}


def cpp_flow_launch(text):
    from cuteverify.frontend.trace.cpp_capture import find_launches
    return find_launches(text, PATH)[0]


# ------------------------------------- finding 3: the capture's runtime placeholders read as the kernel's

def _mutated(records, at, index, old, new):
    out = []
    for r in records:
        if r.at.endswith(at) and r.index == index:
            assert old in r.text
            r = Record(**{**r.__dict__, "text": r.text.replace(old, new)})
        out.append(r)
    return out


def _about(rows, kernel, source):
    return [r for r in rows if r["kernel"] == kernel and (f"`{source}`" in (r.get("at") or "")
                                                        or f"`{source}`" in (r.get("claim") or ""))]


def test_runtime_swizzle_offset_is_no_fact():
    """CuTe prints a ComposedLayout's offset as `_0` when static and `0` when it is a runtime int (a layout
    sliced at a runtime coordinate, `composition(sw, int_offset, L)`): the capture's value is its placeholder.
    cpp_read.is_dynamic dropped any `Sw<..> o N o` prefix, so `Sw<3,3,3> o 0 o L` read as static and copyA's
    16-byte cp.async writes were proved at offset 0. At the offset 4 a kernel may pass, the evaluator here
    finds the writes 8 bytes off a 16-byte boundary: the proved `vector` was no fact of the kernel."""
    records, info = _records()
    mutant = _mutated(records, HGEMM, 4, "Sw<3,3,3> o _0 o", "Sw<3,3,3> o 0 o")
    rows = _rows(TEXT, mutant, info)
    decided = [r for r in rows if r["kernel"] == "gemm_device_424" and r["status"] in ("proved", "refuted")
               and r["kind"] in ("banks", "vector", "injective")
               and ("through sA" in r["claim"] or r["at"].endswith("`sA`"))]
    assert not decided, [(r["kind"], r["claim"][:60]) for r in decided]
    unknown = [r for r in rows if r["kernel"] == "gemm_device_424" and r["status"] == "unknown"]
    assert any("`sA`" in r["at"] and "runtime values" in r["reason"] for r in unknown)
    assert sum("partition_" in r["claim"] and "sA" in r["claim"] for r in unknown) == 2  # copyA, s2r_copy_a
    # the independent evaluator: at offset 4 (half_t), thread 0's 16-byte vector starts 8 bytes past a boundary
    sa = Lay(_rec(mutant, HGEMM, 4).text.replace(" o 0 o", " o 4 o"))
    assert 2 * sa(0) % 16 == 8


def test_runtime_smem_layout_keeps_its_copies_as_unknowns():
    """An smem layout argument with a runtime stride (the capture prints the entry's placeholder) was a note
    ("a runtime value") and every copy the body partitions that tensor with was dropped without a row: on the
    generic TN SGEMM the refuted 4-way conflict of copyA just vanished (exit 0). Now the layout and each such
    access are unknowns naming why."""
    records, info = _records()
    rows = _rows(TEXT, _mutated(records, GENERIC_TN, 4, "(_129,_0)", "(129,_0)"), info)
    about = [r for r in rows if r["kernel"] == "gemm_device_574"]
    assert not [r for r in about if r["kind"] in ("banks", "vector") and "through sA" in r["claim"]]
    unknown = [r for r in about if r["status"] == "unknown"]
    assert any(r["at"].endswith("argument 4 `sA`") and "(129,_0)" in r["reason"] for r in unknown)
    assert any(r["at"].endswith("argument 5 `copyA`") and "partition_D(sA)" in r["claim"] for r in unknown)


def test_runtime_int_in_a_flagged_gmma_layout_is_no_fact():
    """cpp_emit_sm90.lower_flagged set `dynamic=False` on every `Sw<..> o smem_ptr[16b](unset) o L` it lowered,
    so a runtime stride in L (the host value the capture printed; the kernel default-constructs `ASmemLayout{}`)
    gave proved `injective`, `banks`, `vector` and wgmma `operand` claims on a placeholder."""
    wg = "examples/cute/tutorial/hopper/wgmma_sm90.cu"
    records, info = _records("wgmma_sm90")
    rows = _rows((ROOT / wg).read_text(), _mutated(records, ":463", 4, "((_64,_512),", "((64,_512),"), info, wg)
    about = [r for r in rows if r["kernel"] == "gemm_device_463"]
    decided = [r for r in about if r["status"] in ("proved", "refuted") and r["kind"] in
               ("banks", "vector", "injective", "operand") and ("sA" in r["claim"] or "`sA`" in r["at"])]
    assert not decided, [(r["kind"], r["claim"][:60]) for r in decided]
    # (the gmem copies' 16-byte vectors are unknowns of their own: an obligation on the runtime leading dimension)
    unknown = [r for r in about if r["status"] == "unknown" and not r["claim"].startswith("16-byte vectors of")]
    assert {"`sA`" in r["at"] or "partition_D(sA_)" in r["claim"] or "make_fragment_A" in r["claim"]
            for r in unknown} == {True} and len(unknown) == 3


def test_qualified_cute_spelling_keeps_the_blackwell_storage_checks():
    """01_mma_sm100.cu's storage struct method `return cute::make_tensor(cute::make_smem_ptr(A.begin()),
    ASmemLayout{});` (cpp_storage._METHOD): the storage layouts' `injective` and the UMMA descriptors' `operand`
    claims vanished without an unknown (the body's `make_fragment_A(tCsA)` of an unrecognised smem tensor is
    skipped when the kernel has no storage tensor at all: see the xfail below)."""
    bw = "examples/cute/tutorial/blackwell/01_mma_sm100.cu"
    text = (ROOT / bw).read_text()
    records, info = _records("blackwell_01_mma_sm100")
    mutant = text.replace("return make_tensor(make_smem_ptr(", "return cute::make_tensor(cute::make_smem_ptr(")
    assert mutant != text

    def smem(rows):
        return sorted((r["kind"], r["status"], r["at"]) for r in rows if r["kind"] in ("injective", "operand"))
    want = smem(_rows(text, records, info, bw))
    assert len(want) == 4 and {w[1] for w in want} == {"proved"}
    assert smem(_rows(mutant, records, info, bw)) == want


# ---------------------------------------- open findings (xfail strict: the fix spans modules, see each)

@pytest.mark.xfail(strict=True, reason="cpp_emit.layout: a layout parameter the kernel body names in an idiom "
                   "cpp_flow does not read is an n/a note 'does not lay shared memory out with it' (false), and "
                   "cpp_emit.relations: a partition of a body tensor cpp_flow did not trace is an n/a note 'no "
                   "shared-memory tensor' (false): the refuted 4-way conflict vanishes, exit 0")
def test_unread_smem_idiom_is_unknown_not_na():
    """`auto pA = make_smem_ptr(smem.A.begin()); Tensor sA = make_tensor(pA, sA_layout);` is the kernel's smem
    tensor as much as the one-line spelling. Proposed fix: cpp_flow records the parameters its body names
    (Flow.mentioned) and whether each `others` tensor is traced to make_gmem_ptr (through local_tile / slices);
    cpp_emit writes an unknown, not a note, for a static layout parameter the body names but no relation reads
    and for a partition of a tensor not traced to gmem."""
    text = TEXT.replace("  Tensor sA = make_tensor(make_smem_ptr(smem.A.begin()), sA_layout);",
                        "  auto pA = make_smem_ptr(smem.A.begin());\n  Tensor sA = make_tensor(pA, sA_layout);")
    text = text.replace("\n\n  //\n  // Partition the copying", "\n  //\n  // Partition the copying", 1)  # lines kept
    assert text.count("\n") == TEXT.count("\n")
    about = [r for r in _rows(text) if r["kernel"] == "gemm_device_574"]
    skipped = [r for r in about if r["status"] == "n/a" and ("`sA`" in r["at"] or "partition_D(sA)" in r["claim"])]
    assert not skipped, [(r["claim"][:50], r["reason"][:80]) for r in skipped]
    assert any(r["status"] in ("refuted", "unknown") and "copyA" in r["at"] and "sA" in r["claim"] for r in about)


@pytest.mark.xfail(strict=True, reason="cpp_flow._SMEM accepts any make_smem_ptr(...) operand and cpp_emit states "
                   "no align: `make_smem_ptr(smem.A.begin() + 4)` (8 bytes past a 16-byte boundary, half_t) still "
                   "proves 16-byte cp.async / ldmatrix vectors decided at an aligned base")
def test_offset_smem_pointer_vector_is_not_proved_at_an_aligned_base():
    """The `vector` claims are decided on the layout's offsets from the tensor's pointer, assuming the pointer
    is aligned to the access (cpp_emit's docstring). A pointer offset by 4 half_t elements is 8 bytes past that:
    the evaluator here puts thread 0's 16-byte cp.async at byte 8 mod 16 (cp.async.cg 16 needs 16). Proposed fix:
    cpp_flow keeps the pointer text; cpp_emit states `align` from what it can read (a storage member's
    `.begin()` / `.data()` of a 16-byte aligned ArrayEngine, a static offset times the element size) and writes
    an unknown for any other pointer expression."""
    text = TEXT.replace("make_smem_ptr(smem.A.begin()), sA_layout)", "make_smem_ptr(smem.A.begin() + 4), sA_layout)")
    assert text != TEXT
    records, _ = _records()
    sa = Lay(_rec(records, HGEMM, 4).text)
    assert (2 * 4 + 2 * sa(0)) % 16 == 8
    about = [r for r in _rows(text) if r["kernel"] == "gemm_device_424"]
    proved = [r for r in about if r["kind"] == "vector" and r["status"] == "proved" and "through sA" in r["claim"]
              and "16-byte" in r["claim"]]
    assert not proved, [r["claim"][:70] for r in proved]


@pytest.mark.xfail(strict=True, reason="cpp_flow._read_body: `partition_D(sA(_,_,0))` (a slice of a traced smem "
                   "tensor) goes to `others`; cpp_emit says 'is no shared-memory tensor made from a launch argument' "
                   "(false) and the bank check of that copy is an n/a note")
def test_partition_of_a_sliced_smem_tensor_is_checked_or_unknown():
    """Proposed fix: cpp_flow maps `X(...)` of a traced smem tensor `X` to an access of `X`'s layout restricted
    to that slice (or, simplest, to an unknown naming the slice); never to the gmem note."""
    text = TEXT.replace("Tensor tAsA = thr_copy_a.partition_D(sA);", "Tensor tAsA = thr_copy_a.partition_D(sA(_,_,0));")
    assert text != TEXT
    about = [r for r in _rows(text) if r["kernel"] == "gemm_device_574"]
    assert not [r for r in about if r["status"] == "n/a" and "sA(_,_,0)" in r["claim"]]


# --------------------------------------------- finding 4: a reused slice name attributed to the wrong copy

def test_slice_name_reused_in_two_blocks_names_each_its_own_copy():
    """`{ ThrCopy thr = copy_a.get_slice(t); ... thr.partition_D(sA); }` then `{ ThrCopy thr =
    copy_b.get_slice(t); ... thr.partition_D(sB); }`: cpp_flow kept one copy per slice name (the last one), so
    copyA's writes of sA were claimed as copyB's ("copyB (dst) through sA"): a relation the kernel does not
    have, decided with the wrong copy. Each partition now takes the slice's last definition before it."""
    old_a = ("  ThrCopy thr_copy_a = copy_a.get_slice(threadIdx.x);\n"
             "  Tensor tAgA = thr_copy_a.partition_S(gA);                            // (CPY,CPY_M,CPY_K,k)\n"
             "  Tensor tAsA = thr_copy_a.partition_D(sA);")
    old_b = ("  ThrCopy thr_copy_b = copy_b.get_slice(threadIdx.x);\n"
             "  Tensor tBgB = thr_copy_b.partition_S(gB);                            // (CPY,CPY_N,CPY_K,k)\n"
             "  Tensor tBsB = thr_copy_b.partition_D(sB);")
    assert old_a in TEXT and old_b in TEXT
    text = TEXT.replace(old_a, old_a.replace("thr_copy_a", "thr")).replace(old_b, old_b.replace("thr_copy_b", "thr"))
    la, start, _ = cpp_flow_launch(text)
    flow = cpp_flow.kernel_flow(text, la.kernel, start)
    assert {(c, s, i) for c, s, i, _, _ in flow.accesses} >= {(5, "dst", 4), (10, "dst", 9)}
    assert not {(c, s, i) for c, s, i, _, _ in flow.accesses} & {(10, "dst", 4), (5, "dst", 9)}
    rows = [r for r in _rows(text) if r["kernel"] == "gemm_device_574" and r["kind"] == "banks"]
    got = {(r["at"].split("`")[1], r["claim"].split(" has")[0]) for r in rows if "(dst)" in r["claim"]}
    assert got == {("copyA", "copyA (dst) through sA"), ("copyB", "copyB (dst) through sB")}


@pytest.mark.xfail(strict=True, reason="cpp_flow._read_body drops a partition of a traced smem tensor by a copy that "
                   "is no launch argument (one the body builds itself, `TiledCopyA copy{}` or a Kernel_traits "
                   "copy): no access, no `others` entry, so cpp_emit writes no row at all for those smem writes")
def test_partition_by_a_copy_the_body_builds_is_not_silent():
    """The generic TN SGEMM with its gmem->smem copy default-constructed in the body from its type
    (`TiledCopyA copy_l{}; ThrCopy thr_copy_a = copy_l.get_slice(...)`, the FlashAttention style) does the same
    4-way conflicting writes; trace cpp reports nothing for them (the copyA argument keeps its `covers`, exit 0
    without the refutation). Proposed fix: cpp_flow records such partitions of smem tensors (copy None) and
    cpp_emit writes an unknown naming the statement (or, when the copy is default-constructed from a launch
    argument's type, relates that argument)."""
    old = "  ThrCopy thr_copy_a = copy_a.get_slice(threadIdx.x);"
    text = TEXT.replace(old, "  TiledCopyA copy_l{}; ThrCopy thr_copy_a = copy_l.get_slice(threadIdx.x);")
    assert text != TEXT and text.count("\n") == TEXT.count("\n")
    about = [r for r in _rows(text) if r["kernel"] == "gemm_device_574"]
    assert any("partition_D(sA)" in (r["claim"] or "") and r["status"] in ("refuted", "unknown") for r in about)


# --------------------- finding 5: a TMA atom's flag-less smem swizzle read in elements (Blackwell host TMA)

def _bw02():
    bw = "examples/cute/tutorial/blackwell/02_mma_tma_sm100.cu"
    records, info = _records("blackwell_02_mma_tma_sm100")
    return bw, (ROOT / bw).read_text(), records, info


def _flag_lost(records, index, swizzle="Sw<3,4,3>"):
    out = []
    for r in records:
        if r.index == index:
            assert "Sw<3,4,3> o smem_ptr[16b](unset) o" in r.text and "cute::smem_ptr_flag_bits<16>" in r.type
            r = Record(**{**r.__dict__, "text": r.text.replace("Sw<3,4,3> o smem_ptr[16b](unset)", f"{swizzle} o _0"),
                          "type": r.type.replace("cute::smem_ptr_flag_bits<16>", "cute::C<0>")
                                        .replace("cute::Swizzle<3, 4, 3>", "cute::Swizzle<%s>" % swizzle[3:-1]
                                                 .replace(",", ", "))})
        out.append(r)
    return out


def test_flag_lost_tma_smem_swizzle_is_read_as_bytes():
    """`make_tma_atom(SM90_TMA_LOAD{}, mA, sA_layout(_,_,0), tiler)`, the Hopper tutorial's spelling, hands
    make_tma_atom a slice whose smem_ptr flag is gone: CuTe prints `Sw<3,4,3> o _0 o L`, and its TMA reads the
    swizzle as byte-address bits all the same (get_tma_swizzle_bits: M == 4 is the 16-byte base: SW128).
    cpp_emit_storage._host_tma read it in elements (Sw<3,4,3> on half_t indices), refuting two true facts: `tma`
    ("broken: swizzle_mode") and the `equal` of the atom's smem layout with the storage layout the kernel
    writes. The evaluator here: SW128 on the byte addresses of L is S<3,3,3> on its half_t offsets, the storage
    layout's element form, at every coordinate."""
    bw, text, records, info = _bw02()
    mutant = _flag_lost(records, 4001)
    rows = _rows(text, mutant, info, bw)
    bad = [(r["kind"], r["claim"][:60], (r.get("reason") or "")[:60]) for r in rows if r["status"] == "refuted"]
    assert not bad, bad
    assert {(r["kind"], r["status"]) for r in rows if "tma_atom_A" in r["at"]} >= {("tma", "proved"),
                                                                                 ("equal", "proved")}
    L = Lay(_rec(mutant, "", 4001).text.split(" o ")[-1])
    elem = Lay("Sw<3,3,3> o _0 o " + _rec(mutant, "", 4001).text.split(" o ")[-1])
    for i in range(L.size):
        byte = 2 * L(i)
        assert byte ^ (((byte >> 7) & 7) << 4) == 2 * elem(i)


_TMA_FLAG = r"""#include <cstdio>
#include <type_traits>
#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
using namespace cute;
int main() {
  using T = cute::half_t;
  auto g = make_tensor(make_gmem_ptr((T const*)nullptr), make_layout(make_shape(512, 256), make_stride(256, Int<1>{})));
  auto sA = tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, make_shape(Int<128>{}, Int<64>{}, Int<2>{}));
  auto flagged = tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, make_shape(Int<128>{}, Int<64>{}));
  auto sliced = sA(_,_,0);
  print(flagged); printf("\n"); print(sliced); printf("\n");
  using A1 = decltype(make_tma_atom(SM90_TMA_LOAD{}, g, flagged, make_shape(Int<128>{}, Int<64>{})));
  using A2 = decltype(make_tma_atom(SM90_TMA_LOAD{}, g, sliced, make_shape(Int<128>{}, Int<64>{})));
  printf("same atom type: %d\n", int(std::is_same_v<A1, A2>));
  return 0;
}
"""


@pytest.mark.differential
@pytest.mark.skipif(cpp_build.toolchain() is None, reason="g++, the CUTLASS headers or CUDA's headers are missing")
def test_flag_lost_slice_makes_the_same_tma_atom_in_cute_cpp():
    """The ground truth of the test above, from CuTe C++ itself: a slice `sA(_,_,0)` of a flagged SW128 layout
    prints `Sw<3,4,3> o _0 o L` (flag gone), and make_tma_atom of it is the very atom type (swizzle, box) that
    the flagged layout gives: its descriptor reads the swizzle as bytes either way."""
    work = Path(tempfile.gettempdir()) / "cuteverify-trace-cpp"
    work.mkdir(exist_ok=True)
    c = cpp_build.compile_cpp(_TMA_FLAG, str(work / "review_tma_flag.cpp"), str(work / "review_tma_flag"),
                              flags=[*cpp_build.CXXFLAGS, "-no-pie", "-Wl,--unresolved-symbols=ignore-all"])
    assert c.returncode == 0, c.stderr[-2000:]
    out = subprocess.run([c.out], capture_output=True, text=True, check=True, timeout=60).stdout.splitlines()
    assert out[0].startswith("Sw<3,4,3> o smem_ptr[16b](unset) o ")
    assert out[1] == out[0].replace("smem_ptr[16b](unset)", "_0")
    assert out[2] == "same atom type: 1"


def test_flag_lost_tma_smem_of_another_swizzle_still_refutes():
    """The fix reads the bytes, it does not forgive: an SW64 (`Sw<2,4,3> o _0 o L`) TMA smem layout over the
    SW128 storage's 128-byte rows is refuted at tma_atom_A: the `equal` with the storage, and `tma` (a 128-byte
    box row over a 64-byte swizzle span)."""
    bw, text, records, info = _bw02()
    rows = _rows(text, _flag_lost(records, 4001, "Sw<2,4,3>"), info, bw)
    assert {(r["kind"], r["at"].split("`")[1]) for r in rows if r["status"] == "refuted"} == {
        ("equal", "tma_atom_A"), ("tma", "tma_atom_A")}


@pytest.mark.xfail(strict=True, reason="cpp_flow.kernel_flow takes the first __global__ definition of the launched "
                   "name: another overload earlier in the file supplies the relations (by its own parameter "
                   "positions), the launched one's are lost (the 4-way refutation vanishes, exit 0)")
def test_overloaded_kernel_name_is_not_resolved_to_the_first_definition():
    """An overload `gemm_device(L sA_layout, C copy_b)` above the tutorial's kernel (the first line of the
    license comment replaced, launch lines kept). Proposed fix: kernel_flow takes the launch's argument count
    and keeps only definitions of that arity (several left: an unknown naming the ambiguity), as the compiler's
    overload resolution would for these non-defaulted kernels."""
    first = TEXT.split("\n", 1)[0]
    assert first.startswith("/*****")
    overload = ("template <class L, class C> __global__ void gemm_device(L sA_layout, C copy_b) { Tensor sA = "
                "make_tensor(make_smem_ptr((float*)0), sA_layout); ThrCopy t = copy_b.get_slice(0); Tensor x = "
                "t.partition_D(sA); } /*")
    text = overload + TEXT[len(first):]
    assert text.count("\n") == TEXT.count("\n")
    about = [r for r in _rows(text) if r["kernel"] == "gemm_device_574"]
    assert ("banks", "refuted") in {(r["kind"], r["status"]) for r in about if "copyA" in r["at"]}


def test_a_conflict_only_in_later_stages_is_found():
    """Control (no bug): sA's stage stride moved from 8192 to 8200 half_t (still 16-byte aligned) shifts the
    Sw<3,3,3> layout swizzle's input in stages 1 and 2 only; the ldmatrix reads of s2r_copy_a become 2-way
    there (the evaluator here: stage 0 conflict-free, stages 1 and 2 2-way), and cuteverify refutes with
    degree 2 in stage 1, while copyA's cp.async writes stay conflict-free in every stage for both."""
    records, info = _records()
    mut = _mutated(records, HGEMM, 4, "_8192", "_8200")
    sa, s2r = Lay(_rec(mut, HGEMM, 4).text), _rec(mut, HGEMM, 1000)
    stv = Lay(re.search(r"LayoutS_TV:\s*(\S+)", s2r.text).group(1))
    per_stage = []
    for stage in range(3):
        degrees = set()
        for mb in range(4):
            for kb in range(4):
                for warp in range(4):
                    addrs = []
                    for t in range(32 * warp, 32 * warp + 32):
                        i = stv(t)
                        addrs.append(2 * sa(mb * 32 + i % 32 + 128 * (kb * 16 + i // 32) + 128 * 64 * stage))
                    degrees.add(bank_degree(addrs, 16))
        per_stage.append(degrees)
    assert per_stage == [{1}, {2}, {2}]
    rows = [r for r in _rows(TEXT, mut, info) if r["kernel"] == "gemm_device_424" and r["kind"] == "banks"
            and "through sA" in r["claim"]]
    got = {r["claim"].split(" (")[0]: (r["status"], r.get("degree")) for r in rows}
    assert got["s2r_copy_a"] == ("refuted", 2) and got["copyA"][0] == "proved"


# ---------------------------- finding 6: a runtime unit gmem stride of a Hopper TMA atom assumed a multiple of 16 B

def test_runtime_unit_gmem_stride_of_a_tma_atom_is_the_contiguous_mode():
    """wgmma_tma_sm90.cu's gemm_tn writes `make_stride(ldA, Int<1>{})`; a kernel writing `make_stride(ldA, 1)`
    (both runtime) prints `(M,K):(128,1)`. cpp_emit_sm90 made every runtime stride a symbol `{div=8}` (16
    bytes), the unit one too, and the `tma_atom` claim failed with "no mode has stride 1 (TMA needs a
    contiguous mode)": false, CuTe's make_tma_copy_desc asserts that the gmem mode its box walks first
    (TmaGmemBasis `(_64,_128):(_1@1,_1@0)`: mode 1) has stride 1, and the descriptor encodes no stride for it."""
    tma = "examples/cute/tutorial/hopper/wgmma_tma_sm90.cu"
    records, info = _records("wgmma_tma_sm90")
    assert _rec(records, ":414", 3033).text == "(_64,_128):(_1@1,_1@0)"
    rows = _rows((ROOT / tma).read_text(), _mutated(records, ":414", 3030, "(128,_1)", "(128,1)"), info, tma)
    got = [r for r in rows if r["kernel"] == "gemm_device_414" and r["kind"] == "tma_atom" and "tmaA" in r["at"]]
    assert [r["status"] for r in got] == ["proved"], [(r["status"], r.get("reason")) for r in got]
    note = next(r for r in rows if r["kernel"] == "gemm_device_414" and r["kind"] == "note"
                and "tmaA" in r["at"] and "runtime extents" in r["claim"])
    assert "(?tmaA_stride0{div=8},1)" in note["reason"] and "gmem mode 1" in note["reason"]


# ------------------------------------------ finding 7: wgmma operand reads: one idiom missed, one guessed

def test_partition_fragment_a_is_a_descriptor_read():
    """`Tensor tCrA = thr_mma.partition_fragment_A(sA);` (make_fragment_A(partition_A(sA)) in one call, how
    FlashAttention 3 writes its wgmma SS operands) builds the same descriptors; cpp_flow_sm90 read only the
    two-step spelling, so the `operand` claim of A silently vanished (exit 0, one operand claim instead of two)."""
    wg = "examples/cute/tutorial/hopper/wgmma_sm90.cu"
    text = (ROOT / wg).read_text()
    records, info = _records("wgmma_sm90")
    old = "  Tensor tCrA = thr_mma.make_fragment_A(tCsA);"
    mutant = text.replace(old, "  Tensor tCrA = thr_mma.partition_fragment_A(sA);")
    assert mutant != text

    def operands(t):
        return sorted((r["kernel"], r["status"], r["claim"].split(" (")[0]) for r in _rows(t, records, info, wg)
                      if r["kind"] == "operand")
    want = operands(text)
    assert len(want) == 4 and {w[1] for w in want} == {"proved"}
    assert operands(mutant) == want


def test_make_fragment_of_a_register_operand_is_no_descriptor_claim():
    """An SM80 kernel laying sA out by its type (`make_tensor(make_smem_ptr(...), ASmemLayout{})`) and writing
    `thr_mma.make_fragment_A(thr_mma.partition_A(sA))` (a register fragment shaped like that partition) got an
    `operand` claim "mmaC reads A from sA through wgmma descriptors": a read the kernel does not do (SM80_16x8x16
    reads A from registers), reported as an input error of the run. Now a note saying why nothing applies."""
    text = TEXT.replace("make_smem_ptr(smem.A.begin()), sA_layout);", "make_smem_ptr(smem.A.begin()), ASmemLayout{});")
    text = text.replace("  // Clear the accumulators",
                        "  Tensor tCsA2 = thr_mma.partition_A(sA); Tensor tCrA2 = thr_mma.make_fragment_A(tCsA2);")
    assert text.count("tCrA2") == 1 and text.count("\n") == TEXT.count("\n")
    rows = [r for r in _rows(text) if r["kernel"] == "gemm_device_424"]
    assert not [r for r in rows if r["kind"] == "operand" or r["status"] == "error"]
    assert any(r["kind"] == "note" and "read from registers" in r["reason"] for r in rows)
    assert ("injective", "proved") in {(r["kind"], r["status"]) for r in rows if r["at"].endswith("`sA`")}


def test_partition_fragment_a_is_a_umma_descriptor_read():
    """The same on 01_mma_sm100.cu (cpp_storage._FRAG): `cta_mma.partition_fragment_A(tCsA)` lost the UMMA
    `operand` claim of A without an unknown."""
    bw = "examples/cute/tutorial/blackwell/01_mma_sm100.cu"
    text = (ROOT / bw).read_text()
    records, info = _records("blackwell_01_mma_sm100")
    mutant = text.replace("cta_mma.make_fragment_A(tCsA)", "cta_mma.partition_fragment_A(tCsA)")
    assert mutant != text

    def operands(t):
        return sorted((r["status"], r["at"]) for r in _rows(t, records, info, bw) if r["kind"] == "operand")
    want = operands(text)
    assert len(want) == 2 and {w[0] for w in want} == {"proved"}
    assert operands(mutant) == want


def test_smem_laid_out_by_the_layout_value_keeps_its_alias_and_descriptor_checks():
    """wgmma_sm90.cu with `make_tensor(make_smem_ptr(smem.A.begin()), sA_layout)` (the parameter's value, as
    sgemm_sm80.cu writes it) instead of `ASmemLayout{}`: cpp_flow read sA, but cpp_flow_sm90 knew only the
    type-based smem tensors, so the copy through `as_position_independent_swizzle_tensor(sA)` became the note
    "`sA_` is no shared-memory tensor made from a launch argument" (false) and the wgmma `operand` claims of
    `make_fragment_A(partition_A(sA))` vanished: 6 claims per launch gone, exit 0."""
    wg = "examples/cute/tutorial/hopper/wgmma_sm90.cu"
    text = (ROOT / wg).read_text()
    records, info = _records("wgmma_sm90")
    mutant = text
    for x in "AB":
        mutant = mutant.replace(f"make_smem_ptr(smem.{x}.begin()), {x}SmemLayout{{}});",
                                f"make_smem_ptr(smem.{x}.begin()), s{x}_layout);")
    assert mutant.count("sA_layout);") == 1 and mutant.count("sB_layout);") == 1

    def smem(rows):
        return sorted((r["kernel"], r["kind"], r["status"], r["at"], r["claim"]) for r in rows
                      if r["kind"] in ("banks", "vector", "injective", "operand"))
    want = smem(_rows(text, records, info, wg))
    assert len(want) == 16
    assert smem(_rows(mutant, records, info, wg)) == want
