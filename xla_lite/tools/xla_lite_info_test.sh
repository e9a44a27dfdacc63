#!/usr/bin/env bash
# The CLI runs its device check on the host platform, applies XLA_FLAGS, and
# fails clearly on bad input.
set -u
bin=xla_lite/tools/xla_lite
fail() { echo "FAIL: $*"; exit 1; }

out=$("$bin" info --platform=host 2>&1) || fail "info failed: $out"
grep -q "platform host" <<<"$out" || fail "no host platform line: $out"
grep -q "check .*OK" <<<"$out" || fail "no device check: $out"

out=$(XLA_FLAGS="--xla_gpu_graph_min_graph_size=3" "$bin" info --platform=host 2>&1) || fail "$out"
grep -q "xla_gpu_graph_min_graph_size=3" <<<"$out" || fail "XLA_FLAGS not applied: $out"

out=$(XLA_FLAGS="--no_such_flag=1" "$bin" info 2>&1) && fail "bad XLA_FLAGS accepted"
grep -q "no_such_flag" <<<"$out" || fail "error does not name the flag: $out"

out=$("$bin" info --platform=tpu 2>&1) && fail "unknown platform accepted"
grep -q "not built into this binary" <<<"$out" || fail "unclear error: $out"
# Help is an answer, not an error: usage and flags on stdout, exit 0.
for ask in --help -h help "train --help"; do
  out=$("$bin" $ask 2>/dev/null) || fail "'$ask' exited non-zero"
  grep -q "^usage: xla_lite <subcommand>" <<<"$out" || fail "'$ask': no usage: $out"
  grep -q -- "--platform" <<<"$out" || fail "'$ask': flags not listed: $out"
done
out=$("$bin" frobnicate 2>&1) && fail "unknown subcommand accepted"
grep -q "frobnicate" <<<"$out" || fail "error does not name the subcommand: $out"
echo PASS
