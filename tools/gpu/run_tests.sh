#!/usr/bin/env bash
# Runs every packed test binary on the CUDA platform and prints a table.
# XLA_LITE_TEST_REQUIRE_PLATFORM=cuda turns "platform unavailable, skipped"
# into a failure, so a run without a working GPU cannot pass.
#   run_tests.sh [--filter=REGEX]   only binaries whose name matches
set -uo pipefail
cd "$(dirname "$0")"
logs=${OUT:-$PWD/gpu_logs}
mkdir -p "$logs"
arg=${1:-}
filter=.
[ "$arg" != "${arg#--filter=}" ] && filter=${arg#--filter=}

export LD_LIBRARY_PATH="$PWD/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export XLA_LITE_TEST_REQUIRE_PLATFORM=cuda,cudnn
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  | tee "$logs/device.txt"

rows=() failed=0 passed=0
for t in bin/*_test; do
  name=$(basename "$t")
  [[ "$name" =~ $filter ]] || continue
  log="$logs/$name.log"
  start=$(date +%s%N)
  "$t" --gtest_color=no >"$log" 2>&1; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  ran=$(grep -c '^\[       OK \]' "$log")
  cuda=$(grep -c '^\[       OK \].*/cuda' "$log")
  skipped=$(grep -c '^\[  SKIPPED \]' "$log")
  if [ $rc -eq 0 ]; then status=PASS; passed=$((passed+1)); else status=FAIL; failed=$((failed+1)); grep -E '^\[  FAILED|Failure|error' "$log" | head -5; fi
  rows+=("$(printf '%-52s %-4s %4d ok %4d on cuda %3d skipped %7d ms' "$name" "$status" "$ran" "$cuda" "$skipped" "$ms")")
done

# compute-sanitizer: memcheck with leak checking on the suites that own
# device memory across runs (executables, command buffers), CUDA cases only.
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$sanitizer" ] && [ "$filter" = . ]; then
  for t in tests_runtime_gpu_executable_test tests_runtime_lifetime_test \
           tests_runtime_cached_allocations_test tests_runtime_cached_faults_test \
           tests_runtime_allocations_cache_test \
           tests_runtime_donation_test tests_stream_executor_command_buffer_test \
           tests_stream_executor_command_buffer_conformance_test \
           tests_stream_executor_programmatic_launch_test \
           tests_runtime_command_buffer_thunk_test tests_runtime_control_flow_thunk_test \
           tests_service_dnn_convolution_test; do
    [ -x "bin/$t" ] || continue
    # Refused graph updates are API errors by design; memory errors and
    # leaks are what this checks.
    "$sanitizer" --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 \
      "bin/$t" --gtest_filter='*cuda*' >"$logs/memcheck_$t.log" 2>&1; rc=$?
    summary=$(grep -E "ERROR SUMMARY|LEAK SUMMARY" "$logs/memcheck_$t.log" | tr '\n' ' ')
    rows+=("$(printf 'memcheck %-43s %s %s' "$t" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$summary")")
    [ $rc -eq 0 ] || failed=$((failed+1))
  done
fi

for b in bin/*_benchmark; do
  [ -x "$b" ] && [ "$filter" = . ] || continue
  echo; echo "== $(basename "$b")"
  "$b" --platform=cuda --benchmark_min_time=0.2 2>&1 | tee "$logs/$(basename "$b").txt" | grep -E "^BM_|^Benchmark"
done

echo; echo "== CLI device check"
bin/xla_lite_tools_xla_lite info --platform=cuda 2>&1 | tee "$logs/cli_info.txt"

echo; echo "== GPU tests ($(head -1 "$logs/device.txt"))"
printf '%s\n' "${rows[@]}" | tee "$logs/summary.txt"
echo "gpu tests: $passed passed, $failed failed" | tee -a "$logs/summary.txt"
[ $failed -eq 0 ]
