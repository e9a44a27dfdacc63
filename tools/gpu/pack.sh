#!/usr/bin/env bash
# Builds the GPU binaries (every cc_test, the benchmarks and the CLI) with
# --config=cuda, strips them and packs them with the data they read into
# .gpu_pack/ (git-ignored), under the 64 MiB a device run may carry:
#   bash tools/gpu/pack.sh [extra bazel flags]
# Then, on the GPU host: bash .gpu_pack/run.sh   (see docs/gpu_testing.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
flags=(--config=cuda "$@")

# ROCm targets build only with --config=rocm; the pack is for CUDA hosts.
tests=$(bazel query 'kind("cc_test", //...) except //stream_executor/rocm/...' 2>/dev/null)
benches=$(bazel query 'attr(tags, "gpu_benchmark", kind("cc_binary", //...))' 2>/dev/null || true)
bazel build "${flags[@]}" $tests $benches //xla_lite/tools:xla_lite //configs/models:model_list
bin=$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)

stage=$(mktemp -d)
mkdir -p "$stage/bin" "$stage/lib"
for target in $tests $benches //xla_lite/tools:xla_lite; do
  path=${target#//}; path=${path/://}
  name=$(echo "${target#//}" | tr '/:' '__')
  strip -o "$stage/bin/$name" "$bin/$path"
done
# Shared libraries Debian ships no static archive of.
for lib in libbenchmark.so.1debian libunwind.so.8 liblzma.so.5; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" "$stage/lib/"
done
cp -r configs "$stage/"
cp "$bin/configs/models/models.txt" "$stage/configs/models/"
# Sources the tests read as data (the shared float16 text).
mkdir -p "$stage/xla_lite" && cp xla_lite/*.inc "$stage/xla_lite/"
# The CLI where its runfile path puts it (bench_isolation_test starts it).
mkdir -p "$stage/xla_lite/tools"
ln -s ../../bin/xla_lite_tools_xla_lite "$stage/xla_lite/tools/xla_lite"
# Test data the suites read by relative path, as under bazel's runfiles.
for dir in $(find tests -type d -name testdata); do
  mkdir -p "$stage/$dir" && cp -r "$dir/." "$stage/$dir/"
done
cp tools/gpu/run_tests.sh tools/gpu/measure.sh tools/gpu/first_step.sh "$stage/"

rm -rf .gpu_pack && mkdir -p .gpu_pack
tar -C "$stage" -cJf .gpu_pack/xla_lite_gpu.tar.xz .
cp tools/gpu/run.sh .gpu_pack/run.sh
rm -rf "$stage"
size=$(du -sm .gpu_pack | cut -f1)
echo "packed $(echo $tests $benches | wc -w) binaries + CLI into .gpu_pack (${size} MiB)"
[ "$size" -lt 64 ] || { echo "pack is over 64 MiB" >&2; exit 1; }
