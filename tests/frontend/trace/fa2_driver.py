"""Regenerate the FlashAttention-2 forward captures of ``trace cpp`` (issue 29) from a FlashAttention source checkout:

    CUTEVERIFY_FA2_SRC=/path/to/flash-attention .venv/bin/python tests/frontend/trace/fa2_driver.py [CONFIG ...]

For each configuration (``hdim64``, ``hdim128``: ``csrc/flash_attn/src/flash_fwd_hdim{64,128}_fp16_sm80.cu``,
unmodified) and each mutant (:data:`MUTANTS`: (file, old, new) replacements applied to a copy of
``csrc/flash_attn/src``), the capture runs with the torch stub headers of ``cpp/fa2_stubs`` and two entries: the
value-initialised ``run_mha_fwd_`` (its ``p_dropout`` is 0, so the dropout branch: ``Kernel_traits<64, 128, 64,
4>``, ``<128, 128, 32, 4>``) and a call with inference parameters (no dropout, no local window: ``<64, 128, 128,
4>``, ``<128, 128, 64, 4>`` on SM80). It writes ``cpp/fa2_CONFIG[.MUTANT].records.json``. The capture runs in the
copy's root with relative paths, so every record's ``at`` is ``csrc/flash_attn/src/FILE:LINE`` whichever checkout
made it. The tests (``test_cpp_fa2.py``) read these files; only FlashAttention's own source is never committed.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from cuteverify.frontend.trace import cpp_capture, cpp_check

HERE = Path(__file__).parent / "cpp"
STUBS = HERE / "fa2_stubs"
SRC_DIR = "csrc/flash_attn/src"
CONFIGS = {"hdim64": 64, "hdim128": 128}
KT = f"{SRC_DIR}/kernel_traits.h"
#: name -> (edits, what the mutant breaks): each edit replaces one occurrence of ``old`` in ``file``
MUTANTS = {
    # the Q / K / V smem atom unswizzled: ldmatrix reads 8 rows of 16 bytes at a 128-byte row pitch (8-way)
    "smem_no_swizzle": ([(KT, "    using SmemLayoutAtomQ = decltype(\n        composition(Swizzle<kSwizzle, 3, 3>{},",
                          "    using SmemLayoutAtomQ = decltype(\n        composition(Swizzle<0, 3, 3>{},")],
                        "banks of SmemCopyAtom / SmemCopyAtomTransposed through SmemLayoutQ, SmemLayoutKV, "
                        "SmemLayoutVtransposed"),
    # the gmem -> smem copy's 8 values per thread down a column: no 16-byte vector of cp.async in smem
    "gmem_vals_down_rows": ([(KT, "    using GmemTiledCopyQKV = decltype(\n"
                                  "        make_tiled_copy(Copy_Atom<Gmem_copy_struct, "
                                  "Element>{},\n                        GmemLayoutAtom{},\n                        "
                                  "Layout<Shape<_1, _8>>{}));",
                              "    using GmemTiledCopyQKV = decltype(\n"
                              "        make_tiled_copy(Copy_Atom<Gmem_copy_struct, "
                              "Element>{},\n                        GmemLayoutAtom{},\n                        "
                              "Layout<Shape<_8, _1>>{}));")],
                            "vector of GmemTiledCopyQKV through SmemLayoutQ / SmemLayoutKV"),
    # V^T read with the non-transposing ldmatrix: its rows are no 16-byte runs of sVt
    "ldsm_n_for_vt": ([(KT, "    using SmemCopyAtomTransposed = Copy_Atom<SM75_U16x8_LDSM_T, elem_type>;",
                        "    using SmemCopyAtomTransposed = Copy_Atom<SM75_U32x4_LDSM_N, elem_type>;")],
                      "SmemCopyAtomTransposed through SmemLayoutVtransposed"),
}


def source(hdim: int) -> str:
    """The translation unit of a configuration, relative to the FlashAttention root."""
    return f"{SRC_DIR}/flash_fwd_hdim{hdim}_fp16_sm80.cu"


def entries(hdim: int) -> list:
    """The two entries of a configuration (module docstring)."""
    f = f"FLASH_NAMESPACE::run_mha_fwd_<cutlass::half_t, {hdim}, false>"
    return [f, ("[] { FLASH_NAMESPACE::Flash_fwd_params p{}; p.p_dropout = 1.f; p.window_size_left = "
                f"p.window_size_right = -1; p.d = {hdim}; {f}(p, nullptr); }}()")]


def fa2_root() -> Path | None:
    """The FlashAttention checkout named by ``$CUTEVERIFY_FA2_SRC`` (None when unset or without FA2's sources)."""
    env = os.environ.get("CUTEVERIFY_FA2_SRC")
    if env and (Path(env) / SRC_DIR / "kernel_traits.h").is_file():
        return Path(env)
    return None


@contextmanager
def tree(root: Path, mutant: str | None = None):
    """A copy of ``root``'s ``csrc/flash_attn/src`` with the mutant's edits applied, as the working directory
    (a relative source path then names the same file in every copy)."""
    # one fixed directory per mutant: the build's cache key names the include directories
    work = Path(tempfile.gettempdir()) / f"cv_fa2_{mutant or 'original'}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(root / SRC_DIR, work / SRC_DIR)
    for file, old, new in MUTANTS[mutant][0] if mutant else ():
        p = work / file
        text = p.read_text()
        assert text.count(old) == 1, (mutant, file, old)
        p.write_text(text.replace(old, new))
    cwd = os.getcwd()
    os.chdir(work)
    try:
        yield work
    finally:
        os.chdir(cwd)
        shutil.rmtree(work, ignore_errors=True)


def capture(root: Path, config: str, mutant: str | None = None) -> dict:
    """The records file content of one configuration / mutant."""
    hdim = CONFIGS[config]
    with tree(root, mutant):
        recs, _, info = cpp_capture.capture(source(hdim), entries(hdim), includes=[str(STUBS)])
    return {"generated_by": f"tests/frontend/trace/fa2_driver.py {config}" + (f" mutant {mutant}" if mutant else "")
            + " (g++, nvidia-cutlass headers, CUDA headers; FlashAttention 0251105a)",
            "source": source(hdim), "mutant": mutant, "entries": entries(hdim),
            "info": {"entries": info["entries"]}, "records": [dataclasses.asdict(r) for r in recs]}


def documents(root: Path, data: dict) -> list:
    """The documents of a records file, read against ``root``'s sources (with its mutant applied)."""
    recs = [cpp_capture.Record(**r) for r in data["records"]]
    with tree(root, data["mutant"]):
        return cpp_check.documents(data["source"], Path(data["source"]).read_text(), recs, data["info"])


def records_path(config: str, mutant: str | None = None) -> Path:
    return HERE / f"fa2_{config}{'.' + mutant if mutant else ''}.records.json"


def main(argv) -> int:
    root = fa2_root()
    if root is None:
        print("set CUTEVERIFY_FA2_SRC to a FlashAttention checkout (csrc/flash_attn/src)", file=sys.stderr)
        return 2
    wanted = argv or list(CONFIGS)
    for config in wanted:
        for mutant in [None, *MUTANTS]:
            data = capture(root, config, mutant)
            records_path(config, mutant).write_text(json.dumps(data, indent=1) + "\n")
            print(config, mutant, {k[:30]: v["records"] for k, v in data["info"]["entries"].items()}, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
