#!/usr/bin/env bash
# Build every probe for sm_90a and run it; evidence .jsonl files go to the directory given as $1.
#   usage: probes/run_all.sh OUTDIR        (needs an sm_90 GPU, nvcc >= 12.3)
# Binaries go to probes/build (or $PROBES_BUILD); an existing binary newer than its sources is reused.
set -u
OUTDIR=${1:?usage: run_all.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${PROBES_BUILD:-$HERE/build}
mkdir -p "$OUTDIR" "$BUILD"
NVCC=${NVCC:-nvcc}
# The -gencode form (not the -arch=sm_90a shorthand) is used so that no plain sm_90 pass rejects wgmma.
FLAGS="-gencode=arch=compute_90a,code=sm_90a -O2 -std=c++17 -lineinfo"
export PROBE_FLAGS="$FLAGS"
export PROBE_NVCC="$($NVCC --version | grep -E 'release|Build' | tr '\n' ' ')"
export PROBE_DRIVER="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
export PROBE_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
# PROBES may be overridden from the environment to run a subset
PROBES=${PROBES:-"ldstmatrix mma_sync wgmma tma wgmma_types wgmma_desc"}
pids=""
for p in $PROBES; do
  stale=0; [ -x "$BUILD/$p" ] || stale=1
  for dep in "$HERE/$p.cu" "$HERE/common.h" $(grep -o '"wgmma[0-9]*_gen.h"' "$HERE/$p.cu" | tr -d '"' | sed "s|^|$HERE/|"); do
    [ "$dep" -nt "$BUILD/$p" ] && stale=1
  done
  if [ $stale = 1 ]; then
    echo "== compiling $p"
    ( $NVCC $FLAGS -o "$BUILD/$p" "$HERE/$p.cu" || echo "!! compile of $p FAILED" ) &
    pids="$pids $!"
  else
    echo "== reusing $BUILD/$p"
  fi
done
for pid in $pids; do wait $pid; done
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv 2>/dev/null
rc=0
for p in $PROBES; do
  echo "== running $p"
  if [ ! -x "$BUILD/$p" ]; then echo "!! $p not built"; rc=1; continue; fi
  timeout 120 "$BUILD/$p" "$OUTDIR"; r=$?
  echo "== $p exit $r"
  [ $r -ne 0 ] && rc=1
done
if command -v cuobjdump >/dev/null; then
  echo "== SASS tensor/matrix instructions per binary"
  for p in $PROBES; do
    [ -x "$BUILD/$p" ] && echo "$p: $(cuobjdump --dump-sass "$BUILD/$p" 2>/dev/null | grep -oE '\b(HMMA|IMMA|DMMA|QMMA|HGMMA|QGMMA|IGMMA|BGMMA|LDSM|STSM|UTMALDG|SYNCS)[.A-Z0-9_]*' | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
  done
fi
ls -la "$OUTDIR"
exit $rc
