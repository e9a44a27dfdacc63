#!/usr/bin/env bash
# Step times of the JAX and PyTorch peers.
#   bash tests/peers/run_peers.sh OUT.jsonl [MODEL,MODEL,...]
# MODEL is LAYERS:BATCH (a relu MLP) or a model name of tools/jax_models.py
# (e.g. transformer_medium,transformer_bf16_medium,cnn_cifar); the default is
# the benchmark's three MLPs. Each model is measured by three peers, JAX,
# PyTorch eager and PyTorch CUDA graph, each in its own process that is killed
# after PEER_TIMEOUT_S seconds (default 300), so one failure or hang costs at
# most that and the rest still run. Writes one JSON line per peer and model to
# OUT.jsonl (a process that died without one gets an "error" line); progress
# and framework messages go to stderr. Exits non-zero if any measurement
# failed. PEERS=jax,torch_eager (comma-separated) measures only those peers:
# the control-flow models, for one, have a JAX peer only.
set -uo pipefail
out=${1:?usage: run_peers.sh OUT.jsonl [MODEL,MODEL,...]}
here=$(cd "$(dirname "$0")" && pwd)
default_models=48-96-80-12:24,64-128-128-10:32,1024-1024-1024-1024-1024-10:256
IFS=, read -r -a models <<<"${2:-$default_models}"
timeout_s=${PEER_TIMEOUT_S:-300}

IFS=, read -r -a peers <<<"${PEERS:-jax,torch_eager,torch_cuda_graph}"
for peer in "${peers[@]}"; do
  case $peer in
    jax|torch_eager|torch_cuda_graph) ;;
    *) echo "unknown peer '$peer' (jax, torch_eager, torch_cuda_graph)" >&2
       exit 2 ;;
  esac
done
total=$((${#models[@]} * ${#peers[@]}))
done_count=0
status=0
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT

# measure PEER MODEL COMMAND...: runs COMMAND (which prints the peer's JSON
# lines) under the timeout and appends its lines, or an error line, to $out.
measure() {
  local peer=$1 model=$2
  shift 2
  done_count=$((done_count + 1))
  printf '[%d/%d] %s %s\n' "$done_count" "$total" "$peer" "$model" >&2
  local start=$SECONDS rc error=""
  timeout -k 10 "$timeout_s" "$@" >"$lines"
  rc=$?
  cat "$lines" >>"$out"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    error="timed out after ${timeout_s} s"
  elif [ "$rc" -ne 0 ] && [ ! -s "$lines" ]; then
    error="exited with status $rc and no result"
  fi
  if [ -n "$error" ]; then
    printf '{"peer": "%s", "model": "%s", "error": "%s"}\n' \
      "$peer" "$model" "$error" >>"$out"
  fi
  [ "$rc" -eq 0 ] || status=1
  printf '[%d/%d] %s %s: %s in %d s\n' "$done_count" "$total" "$peer" \
    "$model" "$([ "$rc" -eq 0 ] && echo done || echo FAILED)" \
    $((SECONDS - start)) >&2
}

: >"$out"
for model in "${models[@]}"; do
  for peer in "${peers[@]}"; do
    case $peer in
      # JAX would otherwise take most of the GPU's memory for its process.
      jax) measure jax "$model" env XLA_PYTHON_CLIENT_PREALLOCATE=false \
             python3 "$here/jax_step.py" "$model" ;;
      torch_eager|torch_cuda_graph)
        measure "$peer" "$model" \
          python3 "$here/torch_step.py" --modes="${peer#torch_}" "$model" ;;
    esac
  done
done
cat "$out" >&2
exit "$status"
