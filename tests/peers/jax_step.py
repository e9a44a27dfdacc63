#!/usr/bin/env python3
"""Step time of a JAX training step, the peer for xla_lite's benchmark.

  python3 tests/peers/jax_step.py 48-96-80-12:24 [64-128-128-10:32 ...]
  python3 tests/peers/jax_step.py transformer_medium cnn_cifar ...

Each argument is LAYERS:BATCH or the name of a single-device model of
tools/jax_models.py. LAYERS:BATCH is the step tools/export_jax_hlo.py exports
for a relu MLP (softmax cross-entropy, SGD lr 0.01, f32, highest matmul
precision); a name is that model's exported step. The step is jitted with
the parameters (and optimizer state) donated. After compilation and warm-up
steps, blocks of steps run back to back; a block ends when its last outputs
are ready on the device, and a block's time divided by its steps is one
sample. Prints one JSON line per configuration with the median sample.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import jax_models  # noqa: E402


def parse_config(text):
    """(spec, model label) of LAYERS:BATCH or a model name."""
    if text in jax_models.MODELS:
        spec = jax_models.MODELS[text]
        if spec.num_devices != 1:
            raise ValueError("%s needs %d devices" % (text, spec.num_devices))
        return spec, spec.name
    layers, _, batch = text.partition(":")
    if not batch:
        raise ValueError("expected LAYERS:BATCH or a model name, got %r"
                         % text)
    spec = jax_models.mlp_spec(tuple(int(s) for s in layers.split("-")),
                               int(batch))
    return spec, spec.layers_text


def time_config(spec, label, blocks, steps, warmup):
    import jax
    device = jax.devices()[0]
    args = jax.device_put(jax_models.make_inputs(spec), device)
    step = jax.jit(jax_models.make_train_step(spec),
                   donate_argnums=spec.donate_argnums)
    # The donated arguments lead; the step returns their new values first.
    donated = len(spec.donate_argnums)
    batch_args = tuple(args[donated:])

    def run(n, state):
        outs = None
        for _ in range(n):
            outs = step(*state, *batch_args)
            state = tuple(outs[:donated])
        jax.tree_util.tree_map(lambda a: a.block_until_ready(), outs)
        return state

    state = run(warmup, tuple(args[:donated]))
    samples = []
    for _ in range(blocks):
        start = time.perf_counter()
        state = run(steps, state)
        samples.append((time.perf_counter() - start) / steps * 1e6)
    return {
        "peer": "jax",
        "model": label,
        "batch": spec.batch,
        "median_step_us": round(statistics.median(samples), 2),
        "min_step_us": round(min(samples), 2),
        "steps": steps,
        "blocks": blocks,
        "device": device.device_kind,
        "version": jax.__version__,
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("configs", nargs="+", help="LAYERS:BATCH or a model")
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=50)
    flags = parser.parse_args(argv)

    import jax
    jax.config.update("jax_default_matmul_precision", "highest")
    failed = False
    for text in flags.configs:
        try:
            spec, label = parse_config(text)
            result = time_config(spec, label, flags.blocks, flags.steps,
                                 flags.warmup)
        except Exception as e:  # one broken configuration must not hide others
            failed = True
            result = {"peer": "jax", "model": text, "error": repr(e)}
        print(json.dumps(result), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
