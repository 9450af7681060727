#!/usr/bin/env bash
# The #fa.wgmma (sm_90a) kernels on the GPU machine, in one call: the whole
# correctness matrix (check_gpu.py), optionally compute-sanitizer on a
# subset, then an in-process A/B of the paper shapes against other kernel
# builds (ab_compare.py, interleaved repeats, a noise-floor variant).
#
#   bash bench/run_wgmma_ab.sh KERNELS [NAME=DIR ...]
#
# KERNELS: compile_kernels.py --out KERNELS --options "chip=sm_90a atom=wgmma"
# (every configuration); each NAME=DIR another build of at least the paper
# shapes (e.g. --head-dims 64 --heads 32x32 and 128 16x16). Env: OUT (where
# the logs and JSON go), SEQLENS, REPEATS, SANITIZE=1, PHASE=check|ab|all.
# memcheck runs with --report-api-errors no: cuda-python probes driver entry
# points with cuGetProcAddress, which fails by design for absent versions.
set -uo pipefail
kernels=$(realpath "$1")
shift
others=()
for v in "$@"; do
  others+=("${v%%=*}=plan:$(realpath "${v#*=}")")
done
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/wgmma-ab}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
phase=${PHASE:-all}
if [[ $phase != ab ]]; then
  python3 check_gpu.py --kernels "$kernels" --json "$OUT/check.json" > "$OUT/check.log" 2>&1
  echo "check exit $?"
  tail -4 "$OUT/check.log"
fi
if [[ ${SANITIZE:-0} == 1 ]]; then
  timeout 200 compute-sanitizer --tool racecheck --racecheck-report hazard \
      --kernel-name kns=fa_d --error-exitcode 9 python3 check_gpu.py --kernels "$kernels" \
      --only d128_bf16_causal --max-seqlen 300 > "$OUT/racecheck.log" 2>&1
  echo "racecheck exit $?"
  tail -3 "$OUT/racecheck.log"
  timeout 200 compute-sanitizer --tool memcheck --report-api-errors no --kernel-name kns=fa_d --error-exitcode 9 \
      python3 check_gpu.py --kernels "$kernels" --only d64_f16 --max-seqlen 300 \
      > "$OUT/memcheck.log" 2>&1
  echo "memcheck exit $?"
  tail -3 "$OUT/memcheck.log"
fi
if [[ $phase != check ]]; then
  variants=(--variant "new=plan:$kernels")
  for v in "${others[@]}"; do
    variants+=(--variant "$v")
  done
  # shellcheck disable=SC2086
  python3 ab_compare.py "${variants[@]}" --seqlens ${SEQLENS:-1024 4096 16384} \
      --repeats "${REPEATS:-3}" --json "$OUT/ab.json" > "$OUT/ab.log" 2>&1
  echo "ab exit $?"
  tail -70 "$OUT/ab.log"
fi
