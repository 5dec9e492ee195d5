"""FlashAttention-3's forward mainloop (``hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp``, Dao-AILab/flash-attention)
captured by ``cuteverify trace cpp --collective``: the configuration, the mutants, and the driver that regenerates
the committed records from a source checkout.

    CUTEVERIFY_FA3_SRC=/path/to/flash-attention python -m tests.frontend.trace.fa3_collective

(the root holding ``hopper/``). Each variant (the original, each ``cpp/fa3_mutants/NAME.patch`` applied to a copy
of ``hopper/``) is captured from ``hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp`` (paths in the records are relative
to the root) and written to ``cpp/fa3_fwd_hdim128_fp16[.NAME].records.json`` with the members and the relations
read from that variant's source, so that the tests reading them need no FlashAttention checkout.

The configuration is what ``run_mha_fwd_<90, cutlass::half_t, 128, 128, false, false, false, false>``
(``instantiations/flash_fwd_hdim128_fp16_sm90.cu``) instantiates for a non-causal, non-local, non-varlen,
no-paging, no-split, no-softcap, no-PackGQA call with an odd number of M tiles (``ClusterM = 1``):
``tile_size_fwd_sm90(128, 128, false, false, 2)`` = ``{128, 176, MmaPV_is_RS = true, IntraWGOverlap = true}``,
``kStages = 2``. The defines are FlashAttention-3's own (``hopper/setup.py``: the extended WGMMA shapes, without
which CUTLASS's ``ss_op_selector`` picks a 64x16 atom for N = 176; the device intrinsics ``utils.h`` calls outside
a template, ``__popc`` and ``__ballot_sync``, are declared by the capture's prelude, ``cpp_cuda_only``); ``utils.h``
is included first, as
``flash_fwd_launch_template.h``'s include order does (``block.h`` uses its ``flash::round_up``).
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from cuteverify.frontend.trace.cpp_capture import Record
from cuteverify.frontend.trace.cpp_collective_sm90 import CollectiveFlow, Member, capture_collective

HERE = Path(__file__).parent / "cpp"
MUTANTS = HERE / "fa3_mutants"
PATH = "hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp"
NAME = "fa3_fwd_hdim128_fp16"
TYPE = ("flash::CollectiveMainloopFwdSm90<2, cute::Shape<cute::_1, cute::_1, cute::_1>, "
        "cute::Shape<cute::Int<128>, cute::Int<176>, cute::Int<128>>, 128, cutlass::half_t, float, "
        "cutlass::arch::Sm90, false, false, false, false, false, false, false, true, true, false, false, false>")
# Arguments for to_underlying_arguments: seqlen 512, hdim 128, 16 heads, batch 2, (seqlen, d, head, batch)
# row-major strides as run_flash_fwd passes them; the other members value-initialised (no K_new, no paging)
HOST_ARGS = ("{.ptr_Q = nullptr, .shape_Q = {512, 128, 16, 2}, .stride_Q = {2048, cute::_1{}, 128, 1048576}, "
             ".ptr_K = nullptr, .shape_K = {512, 128, 16, 2}, .stride_K = {2048, cute::_1{}, 128, 1048576}, "
             ".ptr_V = nullptr, .headdim_v = 128, .stride_V = {2048, cute::_1{}, 128, 1048576}, .num_splits = 1}")
DEFINES = ["CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED", "CUTLASS_ENABLE_GDC_FOR_SM90", "CUTLASS_DEBUG_TRACE_LEVEL=0",
           "NDEBUG"]
INCLUDE_FIRST = ["utils.h"]


def mutants() -> list:
    """The mutant names (``cpp/fa3_mutants/NAME.patch``)."""
    return sorted(p.stem for p in MUTANTS.glob("*.patch"))


def fixture_path(mutant: str | None = None) -> Path:
    return HERE / (f"{NAME}.{mutant}.records.json" if mutant else f"{NAME}.records.json")


def _tuples(x):
    return tuple(_tuples(y) for y in x) if isinstance(x, list) else x


def load(mutant: str | None = None) -> tuple:
    """``(records, members, flow, info)`` of a committed fixture."""
    data = json.loads(fixture_path(mutant).read_text())
    recs = [Record(**r) for r in data["records"]]
    mems = [Member(*m) for m in data["members"]]
    f = data["flow"]
    flow = CollectiveFlow(smem={k: _tuples(v) for k, v in f["smem"].items()}, aliases=f["aliases"],
                          operands=[tuple(x) for x in f["operands"]], tma=[tuple(x) for x in f["tma"]],
                          conds=f["conds"], built={k: tuple(v) for k, v in f["built"].items()},
                          accesses=[tuple(x) for x in f["accesses"]],
                          buffers={k: _tuples(v) for k, v in f["buffers"].items()}, line=f["line"])
    return recs, mems, flow, data["info"]


def variant_root(src_root: str, mutant: str | None, work: str) -> str:
    """A copy of ``SRC/hopper``'s headers under ``work/NAME`` with the mutant's patch applied: the root to capture
    from (a fixed path per variant: cpp_build keys its cache by the include directories)."""
    root = os.path.join(work, mutant or "original")
    shutil.rmtree(root, ignore_errors=True)
    dst = os.path.join(root, "hopper")
    os.makedirs(dst)
    for f in Path(src_root, "hopper").iterdir():
        if f.suffix in (".h", ".hpp") and f.is_file():
            shutil.copy(f, dst)
    if mutant:
        subprocess.run(["patch", "-s", "-p1", "-i", str(MUTANTS / f"{mutant}.patch")], cwd=root, check=True)
    return root


def capture(root: str) -> tuple:
    """Capture the configuration from ``root`` (holding ``hopper/``): ``(records, info, members, atoms, flow)``."""
    cwd = os.getcwd()
    os.chdir(root)
    try:
        return capture_collective(PATH, TYPE, HOST_ARGS, (), DEFINES, INCLUDE_FIRST)
    finally:
        os.chdir(cwd)


def regenerate(src_root: str, only=None) -> None:
    work = os.path.join(tempfile.gettempdir(), "cuteverify_fa3_variants")
    for mutant in [None, *mutants()]:
        if only is not None and (mutant or "original") not in only:
            continue
        recs, info, mems, _, flow = capture(variant_root(src_root, mutant, work))
        info = {**info, "compile_s": None, "cached": None}
        data = {"generated_by": "tests/frontend/trace/fa3_collective.py from flash-attention HEAD 0251105a "
                                f"({PATH}{', patched with cpp/fa3_mutants/' + mutant + '.patch' if mutant else ''}), "
                                "g++ 12, nvidia-cutlass 4.2.0 headers, CUDA 13.0 headers",
                "collective": TYPE, "info": info,
                "members": [dataclasses.astuple(m) for m in mems], "flow": dataclasses.asdict(flow),
                "records": [dataclasses.asdict(r) for r in recs]}
        fixture_path(mutant).write_text(json.dumps(data, indent=1) + "\n")
        print(f"{mutant or 'original'}: {len(recs)} records", file=sys.stderr)


if __name__ == "__main__":
    if not os.environ.get("CUTEVERIFY_FA3_SRC"):
        sys.exit("set CUTEVERIFY_FA3_SRC to a flash-attention checkout (the folder holding hopper/)")
    regenerate(os.environ["CUTEVERIFY_FA3_SRC"], set(sys.argv[1:]) or None)
