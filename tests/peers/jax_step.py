#!/usr/bin/env python3
"""Step time of a JAX training step, the peer for xla_lite's benchmark.

  python3 tests/peers/jax_step.py 48-96-80-12:24 [64-128-128-10:32 ...]

Each argument is LAYERS:BATCH. The step is the one tools/export_jax_hlo.py
exports (relu MLP, softmax cross-entropy, SGD lr 0.01, f32, highest matmul
precision), jitted with the parameters donated. After compilation and warm-up
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
    layers, _, batch = text.partition(":")
    if not batch:
        raise ValueError("expected LAYERS:BATCH, got %r" % text)
    return tuple(int(s) for s in layers.split("-")), int(batch)


def time_config(sizes, batch, blocks, steps, warmup):
    import jax
    spec = jax_models.mlp_spec(sizes, batch)
    params, x, y = jax_models.make_inputs(spec)
    device = jax.devices()[0]
    params, x, y = jax.device_put((params, x, y), device)
    step = jax.jit(jax_models.make_train_step(spec),
                   donate_argnums=spec.donate_argnums)

    def run(n, params):
        loss = None
        for _ in range(n):
            params, loss = step(params, x, y)
        jax.tree_util.tree_map(lambda a: a.block_until_ready(), (params, loss))
        return params

    params = run(warmup, params)
    samples = []
    for _ in range(blocks):
        start = time.perf_counter()
        params = run(steps, params)
        samples.append((time.perf_counter() - start) / steps * 1e6)
    return {
        "peer": "jax",
        "model": spec.layers_text,
        "batch": batch,
        "median_step_us": round(statistics.median(samples), 2),
        "min_step_us": round(min(samples), 2),
        "steps": steps,
        "blocks": blocks,
        "device": device.device_kind,
        "version": jax.__version__,
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("configs", nargs="+", help="LAYERS:BATCH")
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=50)
    flags = parser.parse_args(argv)

    import jax
    jax.config.update("jax_default_matmul_precision", "highest")
    failed = False
    for text in flags.configs:
        try:
            sizes, batch = parse_config(text)
            result = time_config(sizes, batch, flags.blocks, flags.steps,
                                 flags.warmup)
        except Exception as e:  # one broken configuration must not hide others
            failed = True
            result = {"peer": "jax", "model": text, "error": repr(e)}
        print(json.dumps(result), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
