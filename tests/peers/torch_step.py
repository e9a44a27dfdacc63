#!/usr/bin/env python3
"""Step time of a PyTorch training step, eager and replayed as a CUDA graph.

  python3 tests/peers/torch_step.py 48-96-80-12:24 [64-128-128-10:32 ...]

The same model as tests/peers/jax_step.py (relu MLP, softmax cross-entropy
with one-hot targets, SGD lr 0.01, f32 without TF32, parameters from
tools/jax_models.py). "torch_eager" runs forward, backward and the update
from Python every step; "torch_cuda_graph" captures one whole step (static
input buffers, the update inside the graph) and replays it. Timing as in
jax_step.py: blocks of steps ending with a device synchronize, median of the
per-step times. Prints one JSON line per configuration and mode.
"""

import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import jax_models  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")


def parse_config(text):
    layers, _, batch = text.partition(":")
    if not batch:
        raise ValueError("expected LAYERS:BATCH, got %r" % text)
    return tuple(int(s) for s in layers.split("-")), int(batch)


class Mlp:
    """Weights stored [in, out] as in the JAX model; y = x @ w + b."""

    def __init__(self, spec, device):
        params, x, y = jax_models.make_inputs(spec)
        self.params = [torch.tensor(a, device=device, requires_grad=True)
                       for layer in params for a in layer]
        self.x = torch.tensor(x, device=device)
        self.y = torch.tensor(y, device=device)
        self.lr = spec.learning_rate

    def loss(self):
        h = self.x
        num_layers = len(self.params) // 2
        for i in range(num_layers):
            h = torch.addmm(self.params[2 * i + 1], h, self.params[2 * i])
            if i < num_layers - 1:
                h = torch.relu(h)
        return F.cross_entropy(h, self.y)

    def step(self):
        for p in self.params:
            p.grad = None
        loss = self.loss()
        loss.backward()
        with torch.no_grad():
            torch._foreach_add_(self.params, [p.grad for p in self.params],
                                alpha=-self.lr)
        return loss


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


def cuda_graph_step(model):
    """Captures model.step() once; the returned callable replays it."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the capture stream, as required
        for _ in range(3):
            model.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model.step()
    return graph.replay


def time_config(text, blocks, steps, warmup):
    sizes, batch = parse_config(text)
    spec = jax_models.mlp_spec(sizes, batch)
    device = torch.device("cuda")
    common = {
        "model": spec.layers_text,
        "batch": batch,
        "steps": steps,
        "blocks": blocks,
        "device": torch.cuda.get_device_name(device),
        "version": torch.__version__,
    }
    results = []
    for peer in ("torch_eager", "torch_cuda_graph"):
        try:
            model = Mlp(spec, device)
            step = model.step if peer == "torch_eager" else cuda_graph_step(model)
            median, best = median_step_us(step, blocks, steps, warmup)
            results.append(dict(peer=peer, median_step_us=round(median, 2),
                                min_step_us=round(best, 2), **common))
        except Exception as e:  # one broken mode must not hide the other
            results.append(dict(peer=peer, error=repr(e), **common))
    return results


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("configs", nargs="+", help="LAYERS:BATCH")
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=50)
    flags = parser.parse_args(argv)
    failed = False
    for text in flags.configs:
        try:
            results = time_config(text, flags.blocks, flags.steps, flags.warmup)
        except Exception as e:
            results = [{"peer": "torch", "model": text, "error": repr(e)}]
        for result in results:
            failed = failed or "error" in result
            print(json.dumps(result), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
