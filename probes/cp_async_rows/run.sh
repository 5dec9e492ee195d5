#!/bin/bash
# On the device (through the `run` tool): build cp_async_rows.cu, time every pattern with clock64 (also checks the
# copied bytes), then profile one launch per pattern under ncu with every shared-memory / LDGSTS counter this
# ncu knows. Leaves gpu.txt, sass.txt, timing.txt, metrics.txt, ncu_<chunk>.csv and logs in $OUT.
set -x
cd "$(dirname "$0")"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o /tmp/cpa cp_async_rows.cu || exit 1
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv > "$OUT/gpu.txt" 2>&1
nvcc --version >> "$OUT/gpu.txt"; $NCU --version > "$OUT/ncu_version.txt" 2>&1
cuobjdump -sass /tmp/cpa | grep -E "Function|LDGSTS|DEPBAR|LDGDEPBAR" > "$OUT/sass.txt"
python3 patterns.py > /tmp/patterns.txt
timeout 60 /tmp/cpa time 64 < /tmp/patterns.txt > "$OUT/timing.txt" 2>&1; echo "timing rc=$?"
$NCU --query-metrics > /tmp/query.txt 2>&1
grep -iE "ldgsts|shared|lsu_wavefronts|bank_conflicts" /tmp/query.txt > "$OUT/metrics_query.txt"
M=$(awk '{print $1}' /tmp/query.txt | grep -E '^(l1tex|smsp|sm)__' | grep -iE \
  'ldgsts|^l1tex__data_pipe_lsu_wavefronts(_mem_shared(_op_st|_cmd_write)?)?$|^l1tex__data_bank_conflicts_pipe_lsu_mem_shared(_op_st)?$|^smsp__inst_executed_op_shared_st$' \
  | sort -u | sed 's/$/.sum/' | paste -sd, -)
[ -n "$M" ] || M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
echo "$M" | tr , '\n' > "$OUT/metrics.txt"
for pre in ca16 cg16 ca8 ca4; do
  python3 patterns.py $pre > /tmp/p_$pre.txt
  timeout 120 $NCU --csv --metrics $M /tmp/cpa < /tmp/p_$pre.txt > "$OUT/ncu_$pre.csv" 2> "$OUT/ncu_err_$pre.txt"
  echo "ncu $pre rc=$?"
done
head -c 1500 "$OUT/ncu_ca16.csv"; tail -3 "$OUT"/ncu_err_*.txt; grep -c PASS "$OUT/timing.txt"; grep -v PASS "$OUT/timing.txt" | head
