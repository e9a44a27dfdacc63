#!/usr/bin/env bash
# Step times of the JAX and PyTorch peers for the benchmark's three MLPs.
#   bash tests/peers/run_peers.sh OUT.jsonl
# Writes one JSON line per peer and configuration to OUT.jsonl; progress and
# framework messages go to stderr. Exits non-zero if any measurement failed.
set -uo pipefail
out=${1:?usage: run_peers.sh OUT.jsonl}
here=$(cd "$(dirname "$0")" && pwd)
configs=(48-96-80-12:24 64-128-128-10:32 1024-1024-1024-1024-1024-10:256)

: >"$out"
status=0
# JAX would otherwise take most of the GPU's memory for its whole process.
XLA_PYTHON_CLIENT_PREALLOCATE=false python3 "$here/jax_step.py" "${configs[@]}" >>"$out" || status=1
python3 "$here/torch_step.py" "${configs[@]}" >>"$out" || status=1
cat "$out" >&2
exit "$status"
