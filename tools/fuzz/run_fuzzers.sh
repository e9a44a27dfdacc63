#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ and reports, per target and in all,
# executions, coverage (libFuzzer's final "cov:") and crashes.
#   bash tools/fuzz/run_fuzzers.sh SECONDS JOBS OUTDIR
# SECONDS is each target's -max_total_time, JOBS the parallel workers per
# target (targets run one after another). OUTDIR/<target>/ gets the corpus
# it grew (seeded from fuzz/seeds, fuzz/regressions, and the HLO and small
# .npy files of configs/ and tests/), the logs, and crash-*/oom-*/timeout-*
# inputs. Exits 1 when any target found a crash; each such input belongs in
# fuzz/regressions/<target>/ with the fix. $BAZEL overrides the bazel
# command (e.g. "bazel --output_base=DIR" to keep the fuzz build apart).
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ $# -ne 3 ]; then
  echo "usage: $0 SECONDS JOBS OUTDIR" >&2
  exit 2
fi
seconds=$1 jobs=$2 out=$3
mkdir -p "$out"
out=$(cd "$out" && pwd)

bazel=${BAZEL:-bazel}
$bazel build --config=fuzz //fuzz:all >"$out/build.log" 2>&1 || {
  tail -n 30 "$out/build.log" >&2
  echo "fuzz targets failed to build (log: $out/build.log)" >&2
  exit 1
}
bin=$($bazel info --config=fuzz bazel-bin 2>/dev/null)/fuzz

# Seeds: copied into the corpus folder the target grows.
seed() {
  local target=$1 corpus=$2
  cp -f fuzz/seeds/"$target"/* fuzz/regressions/"$target"/* "$corpus"/ 2>/dev/null
  case "$target" in
    hlo_fuzzer)
      find configs tests fuzz -name '*.hlo' -size -64k -print0 |
        while IFS= read -r -d '' f; do
          cp -f "$f" "$corpus/$(echo "$f" | tr / _)"
        done ;;
    npy_fuzzer)
      find configs tests -name '*.npy' -size -8k -print0 |
        while IFS= read -r -d '' f; do
          cp -f "$f" "$corpus/$(echo "$f" | tr / _)"
        done ;;
  esac
}

total_execs=0 total_crashes=0
summary=()
for target in hlo_fuzzer npy_fuzzer xla_flags_fuzzer; do
  dir="$out/$target"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  seed "$target" "$dir/corpus"
  # rss_limit: the targets cap their own host allocations far below it.
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
    "$bin/$target" corpus -max_total_time="$seconds" -jobs="$jobs" \
      -workers="$jobs" -max_len=65536 -rss_limit_mb=2048 -timeout=30 \
      -artifact_prefix=artifacts/ -print_final_stats=1 \
      >"$dir/fuzz.log" 2>&1)
  # With -jobs each worker writes fuzz-<n>.log; every log ends with its
  # final stats.
  logs=("$dir"/fuzz.log "$dir"/fuzz-*.log)
  execs=$(cat "${logs[@]}" 2>/dev/null |
    sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s+=$1} END {print s+0}')
  cov=$(cat "${logs[@]}" 2>/dev/null | grep -oE 'cov: [0-9]+' |
    awk '{if ($2 > m) m = $2} END {print m+0}')
  crashes=$(find "$dir/artifacts" -type f | wc -l)
  total_execs=$((total_execs + execs))
  total_crashes=$((total_crashes + crashes))
  summary+=("$(printf '%-18s executions %10d  cov %6d  crashes %d' \
    "$target" "$execs" "$cov" "$crashes")")
done

printf '\nfuzzing: %ds per target, %d job(s), outputs in %s\n' "$seconds" "$jobs" "$out"
printf '%s\n' "${summary[@]}"
printf 'total: %d executions, %d crashes\n' "$total_execs" "$total_crashes"
if [ "$total_crashes" -gt 0 ]; then
  find "$out"/*/artifacts -type f
  exit 1
fi
