#!/usr/bin/env bash
# On the GPU host, after run.sh unpacked the pack: what a user waits for
# before the first replay, with the kernel cache warm on disk, in fresh
# processes. For each model one process fills a kernel cache, then RUNS
# processes per variant (variants alternating) train 3 steps from it.
#   first_step.sh MODEL[,MODEL...] RUNS [VARIANT...]
# VARIANT is LABEL=CLI or LABEL=CLI:XLA_FLAGS (default: the packed CLI as
# "default"); PLATFORM (default cuda) picks the platform. Logs go to $OUT (or ./gpu_logs)/first_step; the table printed
# last has, per process, the compile as Compile's VLOG(1) summary times it
# (the HLO passes to the thunks; parsing is not in it), how long it waited
# for the libraries, the BLAS warm-up's time on its own thread, step 1
# (initialization and the op-by-op warm-up), step 2 (recording), and
# compile + step 1 + step 2.
set -uo pipefail
cd "$(dirname "$0")"
logs=${OUT:-$PWD/gpu_logs}/first_step
mkdir -p "$logs"
IFS=, read -r -a models <<<"${1:?usage: first_step.sh MODEL[,MODEL...] RUNS [LABEL=CLI[:XLA_FLAGS]...]}"
runs=${2:-3}
shift 2 || shift $#
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=("default=bin/xla_lite_tools_xla_lite")
export LD_LIBRARY_PATH="$PWD/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"

# train, with VLOG(1) on stderr, in a fresh process.
train() {  # CLI XLA_FLAGS MODEL CACHE LOG
  XLA_FLAGS="--xla_gpu_kernel_cache_dir=$4 $2" GLOG_v=1 GLOG_logtostderr=1 \
    "$1" train --platform="${PLATFORM:-cuda}" --batch=fixed --steps=3 \
    --hlo="configs/models/$3/train_step.hlo" >"$5" 2>&1
}

# One table row from a train log.
row() {  # MODEL LABEL LOG
  awk -v model="$1" -v label="$2" '
    /compiled in/ { for (i = 1; i <= NF; ++i) {
                      if ($i == "in" && compile == "") compile = $(i + 1)
                      if ($i == "libraries") { wait = $(i + 1); gsub(/[,);]/, "", wait) } } }
    /BLAS warm-up/ { for (i = 1; i <= NF; ++i) if ($i == "in") warm = $(i + 1) }
    /^step 1\/3/ { step1 = $(NF - 1) / 1000 }
    /^step 2\/3/ { step2 = $(NF - 1) / 1000 }
    END { printf "| %s | %s | %s | %s | %s | %.1f | %.1f | %.1f |\n", model, label,
            compile, wait, warm == "" ? "-" : warm, step1, step2,
            compile + step1 + step2 }' "$3"
}

table=$logs/table.md
echo "| model | variant | compile ms | waited for libraries ms | BLAS warm-up ms | step 1 ms | step 2 ms | total ms |" >"$table"
echo "|---|---|---|---|---|---|---|---|" >>"$table"
status=0
for model in "${models[@]}"; do
  cache=$(mktemp -d)
  first_cli=${variants[0]#*=}
  train "${first_cli%%:*}" "" "$model" "$cache" "$logs/${model}_cold.log" || status=1
  for run in $(seq 1 "$runs"); do
    for variant in "${variants[@]}"; do
      label=${variant%%=*}
      spec=${variant#*=}
      cli=${spec%%:*}
      flags=""
      [ "$spec" != "$cli" ] && flags=${spec#*:}
      log="$logs/${model}_${label}_${run}.log"
      train "$cli" "$flags" "$model" "$cache" "$log" || status=1
      row "$model" "$label" "$log" >>"$table"
    done
  done
  rm -rf "$cache"
done
cat "$table"
exit $status
