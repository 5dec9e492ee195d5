#!/bin/bash
# Re-capture the 12 committed captures (tests/frontend/trace_data/*.mlir.gz) with `cuteverify trace capture`.
# Prints one row per capture: name, arch, wall seconds, bytes. See README.md for the two environments.
#   KERNELS_ROOT  folder holding kernels/ (the CUTLASS example sources; location paths print as kernels/<file>.py)
#   PROJ          python with cuteverify + nvidia-cutlass-dsl 4.8.1 (CUTLASS examples)
#   R28           python with flash-attn-4 + quack-kernels + nvidia-cutlass-dsl 4.8.1 (FA4, QuACK; torch stubbed)
#   CUTEVERIFY    the cuteverify command (default: next to $PROJ)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${DATA:-$(dirname "$HERE")}  # where the .mlir.gz files go
KERNELS_ROOT=${KERNELS_ROOT:-/work/research28}
PROJ=${PROJ:-$(cd "$HERE/../../../.." && pwd)/.venv/bin/python}
R28=${R28:-/work/research28/venv/bin/python}
CUTEVERIFY=${CUTEVERIFY:-$(dirname "$PROJ")/cuteverify}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$KERNELS_ROOT" || exit 2
run() { # name arch python driver [--stub-torch]
  local name=$1 arch=$2 py=$3 driver=$4; shift 4
  local t0=$(date +%s.%N) out
  out=$("$CUTEVERIFY" trace capture --arch "$arch" -o "$TMP/${name}_${arch}" "$@" -- "$py" "$HERE/$driver") || {
    echo "FAILED: $name $arch"; return 1; }
  local t1=$(date +%s.%N) n=$(echo "$out" | wc -l)
  [ "$n" = 1 ] || { echo "FAILED: $name $arch wrote $n captures"; return 1; }
  gzip -9 -n -c "$out" > "$DATA/${name}_${arch}.mlir.gz"
  printf "%-36s %-8s %6.2fs %9s bytes\n" "$name" "$arch" "$(echo "$t1 - $t0" | bc)" "$(stat -c %s "$out")"
}
run ampere_sgemm                 sm_80   "$PROJ" ampere_sgemm.py
run ampere_tensorop_gemm         sm_80   "$PROJ" ampere_tensorop_gemm.py
run ampere_tensorop_gemm_bkmajor sm_80   "$PROJ" ampere_tensorop_gemm_bkmajor.py
run hopper_dense_gemm            sm_90a  "$PROJ" hopper_dense_gemm.py
run hopper_dense_gemm_cluster2x2 sm_90a  "$PROJ" hopper_dense_gemm_cluster2x2.py
run blackwell_dense_gemm         sm_100a "$PROJ" blackwell_dense_gemm.py
run fa4_fwd                      sm_80   "$R28"  fa4_fwd.py        --stub-torch
run fa4_fwd                      sm_90a  "$R28"  fa4_fwd.py        --stub-torch
run fa4_fwd                      sm_100a "$R28"  fa4_fwd_sm100.py  --stub-torch
run quack_gemm                   sm_90a  "$R28"  quack_gemm.py     --stub-torch
run quack_gemm                   sm_100a "$R28"  quack_gemm.py     --stub-torch
run quack_rmsnorm                sm_90a  "$R28"  quack_rmsnorm.py  --stub-torch
