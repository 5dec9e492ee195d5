#!/bin/bash
# On the device: build banks.cu, run it under ncu for every pattern, leave the CSV and logs in $OUT.
set -x
cd "$(dirname "$0")"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvcc -O2 -arch=sm_90a -o /tmp/banks banks.cu || exit 1
python3 patterns.py > /tmp/patterns.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
$NCU --version > "$OUT/ncu_version.txt" 2>&1
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
timeout 200 $NCU --csv --metrics $M /tmp/banks < /tmp/patterns.txt > "$OUT/ncu.csv" 2> "$OUT/ncu_err.txt"
echo "ncu rc=$?"
head -c 3000 "$OUT/ncu.csv"; tail -5 "$OUT/ncu_err.txt"
