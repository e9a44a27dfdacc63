#!/usr/bin/env python3
"""Exports the models of tools/jax_models.py as JAX training steps (HLO text).

Runs where JAX is installed:
  python3 tools/export_jax_hlo.py --out=configs/models [--models=a,b]

For each model, <out>/<name>/ receives:
  train_step.hlo        jax.jit(train_step, donate_argnums=...).lower(...)
                        .as_text(dialect="hlo"), f32, highest matmul precision
  input_<i>.npy         the flat entry parameters, in entry order
  reference_step1/output_<i>.npy, reference_step5/output_<i>.npy
                        the flat outputs after 1 and 5 steps on JAX's CPU
                        backend; each step feeds every aliased output back into
                        the parameter it aliases, other parameters keep values
  model.txt             one fact per line
Models with write_data=False get only train_step.hlo and model.txt.

The exported text is checked: every donated parameter must be aliased to the
output of the same flat index, entry shapes must match the pytree leaves, every
dot must carry operand_precision={highest,highest}, and an op census warns of
any opcode outside the set the runtime implements. Where a GPU is the default
backend, the same step is also run there and compared with the references.
"""

import argparse
import collections
import os
import re
import shutil
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax_models  # noqa: E402

# Opcodes xla_lite's compiler takes from JAX exports.
ALLOWED_OPCODES = frozenset("""
parameter constant broadcast reshape transpose dot add subtract multiply divide
maximum minimum negate abs exponential log tanh logistic sqrt rsqrt power
compare select clamp convert iota reduce call tuple get-tuple-element
""".split())

ALLOWED_ELEMENT_TYPES = frozenset(["f32", "pred", "s32"])

_ALIAS_RE = re.compile(
    r"\{(\d*)\}:\s*\((\d+),\s*\{[\d,\s]*\},\s*(may-alias|must-alias)\)")
_SHAPE_RE = re.compile(r"\b([a-z]+\d*)\[([\d,]*)\]")
_INSTRUCTION_RE = re.compile(
    r"^\s*(?:ROOT\s+)?[\w.\-]+\s*=\s*.*?(?<![\w\-])([a-z][a-z0-9\-]*)\(")


# ---------------------------------------------------------------------------
# HLO text checks (plain Python, testable without JAX)


def _balanced(text, start):
    """Index just past the bracket group opening at text[start]."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = []
    for i in range(start, len(text)):
        c = text[i]
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
    raise ValueError("unbalanced bracket at offset %d" % start)


def _shapes(text):
    """[(element_type, dims)] of the array shapes in a layout string."""
    text = re.sub(r"/\*.*?\*/", "", text)
    return [(t, tuple(int(d) for d in dims.split(",") if d))
            for t, dims in _SHAPE_RE.findall(text)]


def parse_module_header(hlo_text):
    """(aliases {output index: parameter}, parameter shapes, output shapes)."""
    header = hlo_text.split("\n", 1)[0]
    if not header.startswith("HloModule "):
        raise ValueError("line 1: expected 'HloModule', got %r" % header[:40])
    aliases = {}
    key = "input_output_alias={"
    pos = header.find(key)
    if pos >= 0:
        group = header[pos + len(key) - 1:_balanced(header, pos + len(key) - 1)]
        for out_index, param, _ in _ALIAS_RE.findall(group):
            if not out_index:
                raise ValueError("line 1: alias of a non-tuple output")
            aliases[int(out_index)] = int(param)
    key = "entry_computation_layout={"
    pos = header.find(key)
    if pos < 0:
        raise ValueError("line 1: no entry_computation_layout")
    params_start = pos + len(key)
    params_end = _balanced(header, params_start)
    if header[params_end:params_end + 2] != "->":
        raise ValueError("line 1: expected '->' after the entry parameters")
    results_end = _balanced(header, params_end + 2)
    return (aliases, _shapes(header[params_start:params_end]),
            _shapes(header[params_end + 2:results_end]))


def opcode_census(hlo_text):
    census = collections.Counter()
    for line in hlo_text.splitlines():
        match = _INSTRUCTION_RE.match(line)
        if match:
            census[match.group(1)] += 1
    return census


def element_type_census(hlo_text):
    body = hlo_text.split("\n", 1)[1] if "\n" in hlo_text else ""
    return collections.Counter(t for t, _ in _shapes(body))


def dot_precision_counts(hlo_text):
    """(dots, dots with operand_precision={highest,highest})."""
    dots = [l for l in hlo_text.splitlines() if re.search(r"\sdot\(", l)]
    highest = [l for l in dots if "operand_precision={highest,highest}" in l]
    return len(dots), len(highest)


def check_hlo(hlo_text, leaf_shapes, num_donated):
    """Errors (fatal) and warnings (reported) for one exported step."""
    errors, warnings = [], []
    aliases, param_shapes, output_shapes = parse_module_header(hlo_text)
    if param_shapes != leaf_shapes:
        errors.append("entry parameters %s differ from the pytree leaves %s"
                      % (param_shapes, leaf_shapes))
    for param in range(num_donated):
        if aliases.get(param) != param:
            errors.append("donated parameter %d is not aliased to output %d "
                          "(aliases %s)" % (param, param, aliases))
    extra = {o: p for o, p in aliases.items() if p >= num_donated}
    if extra:
        errors.append("non-donated parameters aliased: %s" % extra)
    for out_index, param in aliases.items():
        if (out_index >= len(output_shapes) or param >= len(param_shapes) or
                output_shapes[out_index] != param_shapes[param]):
            errors.append("alias {%d}: (%d) joins different shapes"
                          % (out_index, param))
    census = opcode_census(hlo_text)
    for opcode in sorted(set(census) - ALLOWED_OPCODES):
        warnings.append("opcode outside the supported set: %s (x%d)"
                        % (opcode, census[opcode]))
    for etype in sorted(set(element_type_census(hlo_text)) -
                        ALLOWED_ELEMENT_TYPES):
        warnings.append("element type outside f32/pred/s32: %s" % etype)
    dots, highest = dot_precision_counts(hlo_text)
    if dots != highest:
        warnings.append("%d of %d dots lack operand_precision={highest,highest}"
                        % (dots - highest, dots))
    return errors, warnings, aliases, output_shapes, census


# ---------------------------------------------------------------------------
# Export (JAX)


def _clear_model_dir(model_dir):
    """Removes what an earlier export wrote, and nothing else."""
    if not os.path.isdir(model_dir):
        os.makedirs(model_dir)
        return
    for entry in os.listdir(model_dir):
        path = os.path.join(model_dir, entry)
        if re.fullmatch(r"reference_step\d+", entry) and os.path.isdir(path):
            shutil.rmtree(path)
        elif re.fullmatch(r"input_\d+\.npy|train_step\.hlo|model\.txt", entry):
            os.remove(path)


def _run_steps(step_fn, args, aliases, steps, device):
    """Flat outputs after each of `steps` steps, fed back through aliases."""
    import jax
    import numpy as np
    leaves, treedef = jax.tree_util.tree_flatten(args)
    state = [jax.device_put(a, device) for a in leaves]
    history = []
    for _ in range(steps):
        outs = jax.tree_util.tree_leaves(
            step_fn(*jax.tree_util.tree_unflatten(treedef, state)))
        history.append([np.asarray(o) for o in outs])
        for out_index, param in aliases.items():
            state[param] = outs[out_index]
    return history


def _max_difference(got, want):
    import numpy as np
    worst_abs, worst_rel = 0.0, 0.0
    for g, w in zip(got, want):
        diff = float(np.max(np.abs(g.astype(np.float64) - w)))
        scale = float(np.max(np.abs(w))) or 1.0
        worst_abs = max(worst_abs, diff)
        worst_rel = max(worst_rel, diff / scale)
    return worst_abs, worst_rel


def _model_txt(spec, jax_version, args, output_shapes, num_donated, backend):
    import jax
    leaves = jax.tree_util.tree_leaves(args)
    num_params = len(jax.tree_util.tree_leaves(args[0]))
    num_state = num_donated - num_params

    def fmt(shape):
        return "%s[%s]" % (shape[0], ",".join(str(d) for d in shape[1]))

    batch = ", ".join("%s %s" % (n, fmt(("f32", a.shape)))
                      for n, a in zip(("x", "y"), leaves[num_donated:]))
    lines = [
        "name: " + spec.name,
        "description: " + spec.description,
        "layers: " + spec.layers_text,
        "batch: %d" % spec.batch,
        "activation: " + jax_models.describe_activation(spec),
        "layer_norm: " + ("before every hidden activation, eps %g"
                          % jax_models.LAYER_NORM_EPS if spec.layer_norm
                          else "none"),
        "loss: " + jax_models.describe_loss(spec),
        "optimizer: " + jax_models.describe_optimizer(spec),
        "jax_version: " + jax_version,
        "lowered_for: " + backend,
        "parameter_count: %d" % jax_models.parameter_count(spec),
        "seed: %d (NumPy default_rng)" % spec.seed,
        "entry_parameters: %d (params %d, optimizer state %d, %s)"
        % (len(leaves), num_params, num_state, batch),
        "outputs: %d (updated params%s, loss %s)"
        % (len(output_shapes), ", optimizer state" if num_state else "",
           fmt(output_shapes[-1])),
        "donated: parameters 0-%d, each aliased to the output of the same index"
        % (num_donated - 1),
        "precision: f32, jax_default_matmul_precision=highest",
        "data: " + ("input_<i>.npy; reference_step1/ and reference_step5/ "
                    "output_<i>.npy from JAX's CPU backend"
                    if spec.write_data else "none"),
    ]
    return "\n".join(lines) + "\n"


def export_model(spec, out_dir):
    """Writes one model's directory; returns its warnings."""
    import jax
    import numpy as np
    args = jax_models.make_inputs(spec)
    leaves = jax.tree_util.tree_leaves(args)
    num_donated = sum(len(jax.tree_util.tree_leaves(args[i]))
                      for i in spec.donate_argnums)
    step = jax_models.make_train_step(spec)
    jitted = jax.jit(step, donate_argnums=spec.donate_argnums, keep_unused=True)
    abstract = jax.tree_util.tree_map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), args)
    hlo_text = jitted.lower(*abstract).as_text(dialect="hlo")

    leaf_shapes = [(str(np.dtype(a.dtype)).replace("float", "f")
                    .replace("int", "s"), tuple(a.shape)) for a in leaves]
    errors, warnings, aliases, output_shapes, census = check_hlo(
        hlo_text, leaf_shapes, num_donated)
    if errors:
        raise RuntimeError("%s: %s" % (spec.name, "; ".join(errors)))

    model_dir = os.path.join(out_dir, spec.name)
    _clear_model_dir(model_dir)
    with open(os.path.join(model_dir, "train_step.hlo"), "w") as f:
        f.write(hlo_text)
    backend = jax.default_backend()
    with open(os.path.join(model_dir, "model.txt"), "w") as f:
        f.write(_model_txt(spec, jax.__version__, args, output_shapes,
                           num_donated, backend))
    print("%s: %d params, %d outputs, %d aliases, ops %s" % (
        spec.name, len(leaves), len(output_shapes), len(aliases),
        " ".join("%s=%d" % kv for kv in sorted(census.items()))))
    if not spec.write_data:
        return warnings

    for i, leaf in enumerate(leaves):
        np.save(os.path.join(model_dir, "input_%d.npy" % i), leaf)
    cpu = jax.devices("cpu")[0]
    # Committed CPU inputs make the step run on the CPU backend.
    reference_fn = jax.jit(step, keep_unused=True)
    history = _run_steps(reference_fn, args, aliases, 5, cpu)
    for step_number in (1, 5):
        ref_dir = os.path.join(model_dir, "reference_step%d" % step_number)
        os.makedirs(ref_dir)
        for i, out in enumerate(history[step_number - 1]):
            np.save(os.path.join(ref_dir, "output_%d.npy" % i), out)
    losses = " ".join("%.6g" % float(h[-1]) for h in history)
    print("%s: cpu losses over 5 steps: %s" % (spec.name, losses))

    if backend != "cpu":
        device = jax.devices()[0]
        gpu_history = _run_steps(jitted, args, aliases, 5, device)
        for step_number in (1, 5):
            worst_abs, worst_rel = _max_difference(
                gpu_history[step_number - 1], history[step_number - 1])
            print("%s: %s vs cpu after step %d: max abs diff %.3g, max diff "
                  "relative to the output's max %.3g" % (
                      spec.name, device.device_kind, step_number, worst_abs,
                      worst_rel))
    return warnings


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="e.g. configs/models")
    parser.add_argument("--models", default="",
                        help="comma-separated names; default: all of " +
                        ",".join(jax_models.MODELS))
    flags = parser.parse_args(argv)
    names = [n for n in flags.models.split(",") if n] or list(jax_models.MODELS)
    unknown = [n for n in names if n not in jax_models.MODELS]
    if unknown:
        parser.error("unknown models %s; known: %s"
                     % (unknown, ",".join(jax_models.MODELS)))

    import jax
    jax.config.update("jax_default_matmul_precision", "highest")
    print("jax %s, default backend %s" % (jax.__version__,
                                          jax.default_backend()))
    all_warnings, failed = [], []
    for name in names:
        try:
            warnings = export_model(jax_models.MODELS[name], flags.out)
        except Exception as e:  # report every model, then fail
            traceback.print_exc()
            print("ERROR %s: %r" % (name, e))
            failed.append(name)
            continue
        all_warnings.extend("%s: %s" % (name, w) for w in warnings)
    for warning in all_warnings:
        print("WARNING " + warning)
    print("exported %d of %d models to %s, %d warnings%s" % (
        len(names) - len(failed), len(names), flags.out, len(all_warnings),
        "; failed: " + ",".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
