#!/usr/bin/env bash
# Runs the test suite and ends with one line "tests: N passed, N failed".
#   bash tools/test.sh                 host tests (what CI runs first)
#   bash tools/test.sh --config=asan   the same under ASan + UBSan + LSan
#   bash tools/test.sh --config=tsan //tests:concurrency_tests
# Extra arguments go to `bazel test`; targets default to //... .
set -uo pipefail
cd "$(dirname "$0")/.."

args=() targets=()
for a in "$@"; do
  case "$a" in
    //*|:*) targets+=("$a") ;;
    *) args+=("$a") ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(//...)

log=$(mktemp)
bazel test "${args[@]}" "${targets[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

passed=$(grep -cE '^//.* PASSED( |$)' "$log")
failed=$(grep -cE '^//.* (FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)( |$)' "$log")
rm -f "$log"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi  # build broke before tests ran
echo "tests: $passed passed, $failed failed"
exit "$rc"
