#!/usr/bin/env bash
# On the GPU host: unpacks the pack next to this script into a scratch folder
# and runs the GPU tests there. Logs go to $OUT (or ./gpu_logs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${XLA_LITE_GPU_WORK:-/tmp/xla_lite_gpu}
rm -rf "$work" && mkdir -p "$work"
tar -C "$work" -xJf "$here/xla_lite_gpu.tar.xz"
exec bash "$work/run_tests.sh" "$@"
