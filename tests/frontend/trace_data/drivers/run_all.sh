#!/bin/bash
# Re-capture every kernel; prints one row per capture: name, arch, wall seconds, bytes, rc.
# CuTe DSL examples run with the project venv; FA4/QuACK with /work/research28/venv (+ torch stub).
cd /work/research28/drivers
PROJ=/work/main/.venv/bin/python; R28=/work/research28/venv/bin/python
run() { # name arch python script [args]
  local name=$1 arch=$2 py=$3; shift 3
  local out=/work/research28/captures/${name}_${arch}.mlir t0=$(date +%s.%N)
  CUTE_DSL_ARCH=$arch CUTE_DSL_DRYRUN=1 CUTE_DSL_LINEINFO=1 CAPTURE_OUT=$out $py "$@" > /work/research28/logs/${name}_${arch}.log 2>&1
  local rc=$? t1=$(date +%s.%N)
  printf "%-28s %-8s %6.2fs %9s bytes rc=%s\n" $name $arch $(echo "$t1 - $t0" | bc) $(stat -c %s $out 2>/dev/null || echo -) $rc
}
mkdir -p /work/research28/logs
run ampere_sgemm          sm_80   $PROJ ampere_sgemm.py
run ampere_tensorop_gemm  sm_80   $PROJ ampere_tensorop_gemm.py
run ampere_tensorop_gemm_bkmajor sm_80 $PROJ capture_run.py user_ampere_tensorop_nohook.py
run hopper_dense_gemm     sm_90a  $PROJ hopper_dense_gemm.py
run hopper_dense_gemm_cluster2x2 sm_90a $PROJ hopper_dense_gemm_cluster2x2.py
run blackwell_dense_gemm  sm_100a $PROJ blackwell_dense_gemm.py
run fa4_fwd               sm_80   $R28 fa4_fwd.py
run fa4_fwd               sm_90a  $R28 fa4_fwd.py
run fa4_fwd               sm_100a $R28 fa4_fwd_sm100.py
run quack_gemm            sm_90a  $R28 quack_gemm.py
run quack_gemm            sm_100a $R28 quack_gemm.py
run quack_rmsnorm         sm_90a  $R28 quack_rmsnorm.py
