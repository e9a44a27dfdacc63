#!/usr/bin/env python3
"""Numerical sanity checks of the PyTorch peers' models (torch_models.py).

  python3 tests/peers/torch_check.py [--device=cpu] [MODEL ...]

For each model (default: the transformers, CNNs and MLPs of
tools/jax_models.py that torch_models.py has) it trains an eager
model for --steps steps on the fixed batch and prints the losses, then
checks:
- a transformer's first loss is near ln(vocab): at init the targets are
  unrelated to the logits, whose variance is about 1 (a unit-variance final
  LayerNorm output times a LeCun-normal unembedding), so the expected loss
  is about ln(vocab) + 0.5;
- the loss falls over the steps;
- where configs/models/MODEL has JAX references (the same inputs: both
  start from the spec's NumPy data), the losses of steps 1 and 5 and, for
  f32 models, the parameters after 5 steps match JAX's;
- on CUDA, the CUDA-graph step (capturable Adam, replayed) gives the same
  losses as the eager one.
Ends with "N passed, N failed"; exits non-zero if a check failed.
"""

import argparse
import glob
import math
import os
import sys

import numpy as np
import torch

import torch_models
import torch_step
from torch_models import jax_models

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                          "..", "configs", "models")
DEFAULT_MODELS = ("transformer_tiny", "transformer_bf16_tiny",
                  "transformer_medium", "transformer_bf16_medium",
                  "cnn_small", "cnn_depthwise", "cnn_cifar",
                  "mlp_softmax_small", "mlp_softmax", "mlp_adam",
                  "layernorm_mlp", "mlp_tanh_mse", "mlp_wide")
REFERENCE_STEPS = 5  # the later of the JAX references (reference_step5)


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def expect(self, ok, name, detail):
        print("  %s %s: %s" % ("PASS" if ok else "FAIL", name, detail))
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def is_bf16(spec):
    return getattr(spec, "dtype", "f32") == "bf16"


def train(model, steps):
    """Losses of `steps` eager steps and the parameters (JAX layout) after
    REFERENCE_STEPS of them."""
    losses, after = [], None
    for i in range(steps):
        losses.append(model.step().item())
        if i + 1 == REFERENCE_STEPS:
            after = model.jax_params()
    return losses, after


def references(name):
    """(flat outputs after step 1, after step 5) or None."""
    out = []
    for step in (1, REFERENCE_STEPS):
        folder = os.path.join(MODELS_DIR, name, "reference_step%d" % step)
        count = len(glob.glob(os.path.join(folder, "output_*.npy")))
        if count == 0:
            return None
        out.append([np.load(os.path.join(folder, "output_%d.npy" % i))
                    for i in range(count)])
    return out


def close(a, b, rtol):
    return abs(a - b) <= rtol * max(abs(a), abs(b))


def check_against_jax(checks, spec, losses, params_after):
    refs = references(spec.name)
    if refs is None:
        return
    step1, step5 = refs
    # bf16: the references come from JAX's CPU backend, which rounds bf16
    # differently (configs/models/*/model.txt: compare at about 1e-2).
    rtol = 1e-2 if is_bf16(spec) else 1e-4
    ref_losses = (float(step1[-1].reshape(-1)[0]),
                  float(step5[-1].reshape(-1)[0]))
    ours = (losses[0], losses[REFERENCE_STEPS - 1])
    checks.expect(all(close(a, b, rtol) for a, b in zip(ours, ref_losses)),
                  "losses of steps 1 and %d match JAX's" % REFERENCE_STEPS,
                  "torch %s, jax %s" % (fmt(ours), fmt(ref_losses)))
    if is_bf16(spec):
        return  # Adam turns bf16 noise in small gradients into lr-sized steps
    worst = 0.0
    for ours_p, ref in zip(params_after, step5[:len(params_after)]):
        ref = ref.reshape(ours_p.shape)
        scale = max(float(np.max(np.abs(ref))), 1e-6)
        worst = max(worst, float(np.max(np.abs(ours_p - ref))) / scale)
    checks.expect(worst <= 1e-4,
                  "parameters after %d steps match JAX's" % REFERENCE_STEPS,
                  "largest difference %.2g of the array's largest magnitude"
                  % worst)


def check_graph(checks, spec, device, adam, eager_losses):
    """The captured step trains as the eager one does."""
    warmup = 3
    model = torch_models.build(spec, device, adam, capturable=True)
    replay, loss = torch_step.cuda_graph_step(model, warmup)
    graphed = []
    for _ in range(len(eager_losses) - warmup):
        replay()
        graphed.append(loss.item())
    eager = eager_losses[warmup:]
    # Atomics (scatter-adds, some cuDNN algorithms) may sum in another order.
    rtol = 2e-2 if is_bf16(spec) else 1e-3
    checks.expect(all(close(a, b, rtol) for a, b in zip(graphed, eager)),
                  "CUDA graph replays train as eager steps do",
                  "last replays %s, eager %s"
                  % (fmt(graphed[-2:]), fmt(eager[-2:])))


def fmt(values):
    return "[" + ", ".join("%.5f" % v for v in values) + "]"


def check_model(checks, name, device, flags):
    spec = jax_models.MODELS[name]
    model = torch_models.build(spec, device, flags.adam)
    losses, params_after = train(model, flags.steps)
    print("%s: losses over %d steps: %s" % (name, len(losses), fmt(losses)))
    if hasattr(spec, "vocab"):
        expected = math.log(spec.vocab)
        checks.expect(abs(losses[0] - expected) < 1.0,
                      "initial loss near ln(vocab)",
                      "%.4f, ln(%d) = %.4f" % (losses[0], spec.vocab,
                                               expected))
    checks.expect(losses[-1] < losses[0], "loss falls",
                  "%.4f -> %.4f" % (losses[0], losses[-1]))
    check_against_jax(checks, spec, losses, params_after)
    if device.type == "cuda":
        check_graph(checks, spec, device, flags.adam, losses)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", default=list(DEFAULT_MODELS))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--adam", default=None,
                        choices=torch_models.ADAM_IMPLEMENTATIONS,
                        help="default: fused on CUDA, foreach elsewhere")
    parser.add_argument("--steps", type=int, default=20)
    flags = parser.parse_args(argv)
    if flags.steps < REFERENCE_STEPS:
        parser.error("--steps must be at least %d" % REFERENCE_STEPS)
    device = torch.device(flags.device)
    if flags.adam is None:
        flags.adam = "fused" if device.type == "cuda" else "foreach"
    checks = Checks()
    for name in flags.models:
        try:
            check_model(checks, name, device, flags)
        except Exception as e:  # report it and go on with the next model
            checks.expect(False, name, repr(e))
    print("%d passed, %d failed" % (checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
