#!/usr/bin/env bash
# On the GPU host, after run.sh unpacked the pack: the step-time benchmark
# of the given models (with the peers' JSON lines beside them, when given)
# and a per-thunk profile of each, into $OUT (or ./gpu_logs).
#   measure.sh MODEL[,MODEL...] [PEERS.jsonl] [BASELINE.json]
# MODEL is a folder name under configs/models. Prints the bench table and
# each profile's ten longest thunks last.
set -uo pipefail
cd "$(dirname "$0")"
logs=${OUT:-$PWD/gpu_logs}
mkdir -p "$logs"
IFS=, read -r -a models <<<"${1:?usage: measure.sh MODEL[,MODEL...] [PEERS.jsonl] [BASELINE.json]}"
peers=${2:-}
baseline=${3:-}
export LD_LIBRARY_PATH="$PWD/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
cli=bin/xla_lite_tools_xla_lite
status=0

dirs=()
for m in "${models[@]}"; do dirs+=("configs/models/$m"); done
args=(--platform=cuda --models="$(IFS=,; echo "${dirs[*]}")" --out="$logs/bench")
[ -n "$peers" ] && args+=(--peers="$peers")
[ -n "$baseline" ] && args+=(--baseline="$baseline")
"$cli" bench "${args[@]}" >"$logs/bench.log" 2>&1 || status=1

for m in "${models[@]}"; do
  "$cli" profile --platform=cuda --hlo="configs/models/$m/train_step.hlo" \
    --top=40 >"$logs/profile_$m.txt" 2>&1 || status=1
done

for m in "${models[@]}"; do
  echo "== profile $m"
  head -13 "$logs/profile_$m.txt"
  sed -n '/^by kind/,$p' "$logs/profile_$m.txt"
done
echo "== bench"
tail -5 "$logs/bench.log"
cat "$logs/bench/bench.md" 2>/dev/null
exit $status
