#!/usr/bin/env bash
# On the GPU host (JAX with CUDA), from the repository root: exports the
# transformer, control-flow, CNN and data-parallel models into one archive.
#   OUT=/path/to/out bash tools/gpu/export_models.sh [model,model,...]
# Writes $OUT/models.tgz (the folder models/<name>/ per model, as
# tools/export_jax_hlo.py writes it; unpack into configs/) and $OUT/export.log.
# References are computed on JAX's CPU backend; dp2_mlp is exported by a
# process of its own on 2 forced host devices (export_jax_hlo.py starts it).
# Ends with a table: model, parameters, files, size, opcodes outside the set
# xla_lite implements. Exits non-zero if a model failed (the others are
# still exported and packed).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
: "${OUT:?set OUT to the folder that comes back}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
# JAX would otherwise take most of the GPU's memory for its whole process.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
# Stays well under the 8 minutes a run may take (the export itself should
# need a minute or two).
limit_s=${EXPORT_TIME_LIMIT_S:-360}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/models"
models=${1:-$(python3 -c 'import sys; sys.path.insert(0, "tools"); import jax_models; print(",".join(jax_models.NEW_MODELS))')}
[ -n "$models" ] || { echo "no models to export (tools/jax_models.py failed to load)" >&2; exit 1; }

{
  echo "== versions"
  python3 -c "import jax, jaxlib; print(jax.__version__)"
  python3 -c "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, 'backend', jax.default_backend(), jax.devices())"
  for module in flax optax; do
    python3 -c "import importlib.util as u; print('$module:', 'present' if u.find_spec('$module') else 'absent')"
  done
  python3 --version
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

  echo; echo "== export: $models"
  start=$(date +%s)
  timeout --kill-after=10 "$limit_s" \
    python3 tools/export_jax_hlo.py --out="$work/models" --models="$models"
  rc=$?
  [ $rc -eq 124 ] && echo "export stopped after ${limit_s} s"
  echo "export exit status $rc after $(( $(date +%s) - start )) s"
  echo "$rc" >"$work/rc"

  echo; echo "== summary"
  python3 tools/summarize_models.py "$work/models" --models="$models"
} 2>&1 | tee "$OUT/export.log"

rc=$(cat "$work/rc" 2>/dev/null || echo 1)
tar -C "$work" -czf "$OUT/models.tgz" models
echo "packed $(du -k "$OUT/models.tgz" | cut -f1) KB into $OUT/models.tgz" | tee -a "$OUT/export.log"
exit "$rc"
