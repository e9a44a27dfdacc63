#!/usr/bin/env python3
"""Step time of a PyTorch training step, eager and replayed as a CUDA graph.

  python3 tests/peers/torch_step.py 48-96-80-12:24 [64-128-128-10:32 ...]
  python3 tests/peers/torch_step.py --modes=cuda_graph transformer_medium

Each argument is LAYERS:BATCH (the relu MLP of jax_step.py: softmax
cross-entropy with one-hot targets, SGD lr 0.01) or the name of a model of
tools/jax_models.py that torch_models.py has a PyTorch version of (MLPs,
transformers, CNNs). Inputs are the JAX model's (same NumPy seed); f32
matmuls and convolutions run without TF32, bf16 ones accumulate in f32.
"torch_eager" runs forward, backward and the update from Python every step;
"torch_cuda_graph" captures one whole step (static input buffers, the update
inside the graph) and replays it. Timing as in jax_step.py: blocks of steps
ending with a device synchronize, median of the per-step times. Prints one
JSON line per configuration and mode.
"""

import argparse
import json
import statistics
import sys
import time

import torch

import torch_models
from torch_models import jax_models

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
# bf16 gemms accumulate in f32 throughout, as the JAX bf16 models ask
# (preferred_element_type=f32); by default cuBLAS may reduce split-k partial
# sums in bf16.
torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
# Pick cuDNN's fastest convolution algorithms, as XLA autotunes its own.
torch.backends.cudnn.benchmark = True

MODES = {"eager": "torch_eager", "cuda_graph": "torch_cuda_graph"}


def parse_config(text):
    """(spec, model label) of LAYERS:BATCH or a model name, as jax_step.py
    labels them."""
    if text in jax_models.MODELS:
        spec = jax_models.MODELS[text]
        return spec, spec.name
    layers, _, batch = text.partition(":")
    if not batch:
        raise ValueError("expected LAYERS:BATCH or a model name, got %r"
                         % text)
    spec = jax_models.mlp_spec(tuple(int(s) for s in layers.split("-")),
                               int(batch))
    return spec, spec.layers_text


def median_step_us(step, blocks, steps, warmup):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    samples = []
    for _ in range(blocks):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / steps * 1e6)
    return statistics.median(samples), min(samples)


def cuda_graph_step(model, warmup=3):
    """Captures model.step() once; returns (replay, the captured loss
    tensor, which each replay overwrites). Runs `warmup` eager steps first
    (they train the model) so that lazily created state (the optimizer's,
    cuBLAS/cuDNN workspaces) exists before the capture."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    # Warm-up off the capture stream, as torch.cuda.graph requires.
    with torch.cuda.stream(side):
        for _ in range(warmup):
            model.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = model.step()
    return graph.replay, loss


def time_config(text, modes, flags):
    spec, label = parse_config(text)
    device = torch.device("cuda")
    common = {
        "model": label,
        "batch": spec.batch,
        "steps": flags.steps,
        "blocks": flags.blocks,
        "device": torch.cuda.get_device_name(device),
        "version": torch.__version__,
    }
    results = []
    for mode in modes:
        peer = MODES[mode]
        try:
            graphed = mode == "cuda_graph"
            model = torch_models.build(spec, device, flags.adam,
                                       capturable=graphed)
            step = cuda_graph_step(model)[0] if graphed else model.step
            median, best = median_step_us(step, flags.blocks, flags.steps,
                                          flags.warmup)
            results.append(dict(peer=peer, median_step_us=round(median, 2),
                                min_step_us=round(best, 2), **common))
        except Exception as e:  # one broken mode must not hide the other
            results.append(dict(peer=peer, error=repr(e), **common))
    return results


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("configs", nargs="+", help="LAYERS:BATCH or a model")
    parser.add_argument("--modes", default="eager,cuda_graph",
                        help="comma-separated: eager, cuda_graph")
    parser.add_argument("--adam", default="fused",
                        choices=torch_models.ADAM_IMPLEMENTATIONS,
                        help="torch.optim.Adam(fused=True) or (foreach=True)")
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=50)
    flags = parser.parse_args(argv)
    modes = flags.modes.split(",")
    for mode in modes:
        if mode not in MODES:
            parser.error("unknown mode %r (modes: %s)"
                         % (mode, ", ".join(MODES)))
    failed = False
    for text in flags.configs:
        try:
            results = time_config(text, modes, flags)
        except Exception as e:
            results = [{"peer": "torch", "model": text, "error": repr(e)}]
        for result in results:
            failed = failed or "error" in result
            print(json.dumps(result), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
