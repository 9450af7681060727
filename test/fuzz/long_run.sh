#!/usr/bin/env bash
# The fuzzer's long run: several fa_fuzz.py processes side by side, one seed
# each, and a summary of their last lines (docs/reliability.md records the
# result).
#
#   test/fuzz/long_run.sh FA_OPT FIRST_SEED PROCESSES CASES_EACH OUT_DIR
#
# e.g. test/fuzz/long_run.sh build/bin/fa-opt 3001 16 7000 /tmp/fuzz-long
# Each process writes OUT_DIR/log-SEED.txt and its reproducers under
# OUT_DIR/repro-SEED/; the exit status is non-zero if any process found a
# crash or a hang of ours.
set -u
if [ $# -ne 5 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
fa_opt=$1 first=$2 procs=$3 cases=$4 out=$5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
pids=()
for ((i = 0; i < procs; i++)); do
  seed=$((first + i))
  python3 "$here/fa_fuzz.py" --fa-opt "$fa_opt" --seed "$seed" --cases "$cases" \
    --batch 20 --timeout 10 --minimize-seconds 60 --out "$out/repro-$seed" \
    > "$out/log-$seed.txt" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
tail -qn1 "$out"/log-*.txt
exit $status
