#!/usr/bin/env bash
# `train` and `bench` on the host platform: a short training run ends with
# its summary and a falling loss, with given and with seeded arguments;
# bench writes valid JSON and SVG, its exact counter checks hold, and a
# baseline it cannot meet makes it fail.
set -u
bin=xla_lite/tools/xla_lite
model=configs/models/mlp_softmax_small
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }

out=$("$bin" train --platform=host --hlo=$model/train_step.hlo --steps=6 2>&1) \
  || fail "train failed: $out"
grep -q "^summary: loss" <<<"$out" || fail "no summary: $out"
grep -q "step 6/6" <<<"$out" || fail "no progress: $out"
# After step 2 the moving batch (x, y) is copied, nothing recorded again.
steady=$(grep "after step 2: " <<<"$out")
for zero in command_buffer_records command_buffer_updates \
    command_buffer_node_updates command_buffer_traces; do
  grep -q " $zero=0 " <<<"$steady" || fail "steady state not stable: $out"
done
first=$(sed -n 's/^summary: loss \([^ ]*\) -> .*/\1/p' <<<"$out")
last=$(sed -n 's/^summary: loss [^ ]* -> \(.*\)/\1/p' <<<"$out")
python3 -c "import sys; sys.exit(0 if float('$last') < float('$first') else 1)" \
  || fail "loss did not decrease: $first -> $last"

out=$("$bin" train --platform=host --hlo=$model/train_step.hlo --steps=4 \
  --batch=staged --inputs=$model 2>&1) || fail "staged train failed: $out"
all=$(grep "all steps: " <<<"$out")
grep -q " parameter_copies=0 " <<<"$all" && grep -q " stabilization_copies=0 " <<<"$all" \
  || fail "staged copied: $out"

# Without --inputs, the seeded arguments train any exported step: Adam's
# state starts at zero (not random, whose negative second moments made NaN)
# and token and trip-count inputs are small non-negative integers.
for seeded in transformer_tiny mlp_adam fori_steps_input; do
  out=$("$bin" train --platform=host --hlo=configs/models/$seeded/train_step.hlo \
    --steps=6 2>&1) || fail "$seeded: seeded train failed: $out"
  first=$(sed -n 's/^summary: loss \([^ ]*\) -> .*/\1/p' <<<"$out")
  last=$(sed -n 's/^summary: loss [^ ]* -> \(.*\)/\1/p' <<<"$out")
  python3 -c "import sys; sys.exit(0 if float('$last') < float('$first') else 1)" \
    || fail "$seeded: loss did not decrease: $first -> $last"
done

# Data parallel over the host's two devices: the global step trains, and
# the devices' counters added up show nothing recorded again after step 2.
dp=configs/models/dp2_mlp
out=$("$bin" train --platform=host --hlo=$dp/train_step.hlo --devices=2 \
  --steps=5 --batch=fixed 2>&1) || fail "data-parallel train failed: $out"
grep -q "on 2 host devices" <<<"$out" || fail "not on 2 devices: $out"
steady=$(grep "after step 2: " <<<"$out")
grep -q " executions=6 " <<<"$steady" || fail "not 3 steps x 2 devices: $out"
grep -q " command_buffer_records=0 " <<<"$steady" || fail "re-recorded: $out"
first=$(sed -n 's/^summary: loss \([^ ]*\) -> .*/\1/p' <<<"$out")
last=$(sed -n 's/^summary: loss [^ ]* -> \(.*\)/\1/p' <<<"$out")
python3 -c "import sys; sys.exit(0 if float('$last') < float('$first') else 1)" \
  || fail "data-parallel loss did not decrease: $first -> $last"
out=$("$bin" bench --platform=host --models=$dp --devices=2 --modes=cached_fixed \
  --steps=3 --blocks=2 --block_steps=2 --out="$tmp/bench_dp" 2>&1) \
  || fail "data-parallel bench failed: $out"
grep -q "bench dp2_mlp on 2 x " <<<"$out" || fail "bench not on 2 devices: $out"
python3 - "$tmp/bench_dp" <<'PY' || fail "bad data-parallel bench output"
import json, sys
mode = json.load(open(sys.argv[1] + "/bench.json"))["models"][0]["modes"][0]
assert mode["mode"] == "cached_fixed" and mode["median_us"] > 0, mode
PY
out=$("$bin" train --platform=host --hlo=$dp/train_step.hlo --devices=3 2>&1) \
  && fail "--devices=3 accepted on a 2-device platform"
grep -q "devices=3" <<<"$out" || fail "unclear --devices error: $out"

out=$("$bin" train --platform=host --hlo=$model/train_step.hlo --batch=sideways 2>&1) \
  && fail "bad --batch accepted"
grep -q "moving, fixed or staged" <<<"$out" || fail "unclear --batch error: $out"

out=$("$bin" bench --platform=host --models=$model --steps=4 --blocks=2 \
  --block_steps=3 --out="$tmp/bench" 2>&1) || fail "bench failed: $out"
python3 - "$tmp/bench" <<'PY' || fail "bad bench output"
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
r = json.load(open(d + "/bench.json"))
modes = {m["mode"]: m for m in r["models"][0]["modes"]}
assert set(modes) == {"op_by_op", "graphs", "cached_copy", "cached_staged",
                     "cached_fixed"}, modes
for m in modes.values():
    assert m["median_us"] > 0 and len(m["step_us"]) == 5, m
    assert m["steady"]["executions"] == 1, m
def copies(mode):
    steady = modes[mode]["steady"]
    return steady.get("stabilization_copies", 0) + steady.get("parameter_copies", 0)
assert modes["cached_copy"]["steady"].get("command_buffer_updates", 0) == 0
assert modes["graphs"]["steady"]["command_buffer_updates"] >= 1
assert copies("cached_fixed") == 0 and copies("cached_staged") == 0
assert modes["cached_copy"]["steady"]["stabilization_copies"] > 0
assert modes["op_by_op"]["steady"]["thunks_executed"] > 0
root = ET.parse(d + "/bench.svg").getroot()
assert root.tag.endswith("svg") and len(root.findall(".//{*}polyline")) == 5
PY

# A baseline nobody can meet: every median 1 ns.
python3 - "$tmp/bench/bench.json" "$tmp/fast.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for model in r["models"]:
    for mode in model["modes"]:
        mode["median_us"] = 0.001
json.dump(r, open(sys.argv[2], "w"))
PY
out=$("$bin" bench --platform=host --models=$model --steps=2 --blocks=1 \
  --block_steps=2 --baseline="$tmp/fast.json" 2>&1) && fail "regression not caught"
grep -q "regressed" <<<"$out" || fail "unclear regression report: $out"

# The checked-in GPU baseline is a valid baseline: read, matched by model
# and mode (a host run is far slower than an H100, so it fails as a
# regression, not as an unreadable file).
out=$("$bin" bench --platform=host --models=$model --modes=cached_fixed \
  --steps=2 --blocks=1 --block_steps=2 \
  --baseline=configs/bench_baselines/h100.json 2>&1) && fail "host beat an H100"
grep -q "mlp_softmax_small/cached_fixed: median .* vs baseline 20.9 us" <<<"$out" \
  || fail "baseline not read: $out"

out=$("$bin" bench --platform=host --models=$model --modes=sideways 2>&1) \
  && fail "bad --modes accepted"
grep -q "unknown bench mode 'sideways'; the modes are op_by_op, graphs" <<<"$out" \
  || fail "unclear --modes error: $out"
echo PASS
