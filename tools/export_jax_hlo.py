#!/usr/bin/env python3
"""Exports the models of tools/jax_models.py as JAX training steps (HLO text).

Runs where JAX is installed:
  python3 tools/export_jax_hlo.py --out=configs/models [--models=a,b]

For each model, <out>/<name>/ receives:
  train_step.hlo        jax.jit(train_step, donate_argnums=...).lower(...)
                        .as_text(dialect="hlo")
  input_<i>.npy         the flat entry parameters, in entry order (f32 '<f4',
                        s32 '<i4'; bf16 as its bits, '<u2')
  reference_step1/output_<i>.npy, reference_step5/output_<i>.npy
                        the flat outputs after 1 and 5 steps on JAX's CPU
                        backend; each step feeds every aliased output back into
                        the parameter it aliases, other parameters keep values
  model.txt             one fact per line
Models with write_data=False get only train_step.hlo and model.txt.

The exported text is checked: every donated parameter must be aliased to the
output of the same flat index, entry shapes must match the pytree leaves,
every dot and convolution of an f32 model must carry
operand_precision={highest,highest}, and an op census warns of any opcode
outside the set the runtime implements. A failed check still writes
train_step.hlo and the errors in check_errors.txt. Where a GPU is the default
backend, the same step is also run there and compared with the references.

Models that need several devices (data parallel) are exported by a second
process of this script (--host_devices=N), which forces N host devices and
JAX's CPU backend before JAX starts. One model failing does not stop the
others; the exit status is non-zero if any failed.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hlo_text_checks as checks  # noqa: E402
import jax_models  # noqa: E402

REFERENCE_STEPS = (1, 5)
# A model and its single-device twin agree to this relative difference.
TWIN_TOLERANCE = 1e-4


# ---------------------------------------------------------------------------
# Files (NumPy only)


def save_array(path, array):
    """One .npy as xla_lite reads it: f32, s32 and pred as themselves, bf16
    as its 16-bit pattern ('<u2', read by ParseNpyWithBF16)."""
    import numpy as np
    array = np.ascontiguousarray(np.asarray(array))
    etype = checks.hlo_type(array.dtype)
    if etype == "bf16":
        array = array.view(np.uint16)
    elif etype not in ("f32", "s32", "pred"):
        raise ValueError("%s: no .npy form for %s" % (path, etype))
    np.save(path, array)


def clear_model_dir(model_dir):
    """Removes what an earlier export wrote, and nothing else."""
    if not os.path.isdir(model_dir):
        os.makedirs(model_dir)
        return
    for entry in os.listdir(model_dir):
        path = os.path.join(model_dir, entry)
        if re.fullmatch(r"reference_step\d+", entry) and os.path.isdir(path):
            shutil.rmtree(path)
        elif re.fullmatch(r"input_\d+\.npy|train_step\.hlo|model\.txt|"
                          r"check_errors\.txt", entry):
            os.remove(path)


def _fmt(etype, dims):
    return "%s[%s]" % (etype, ",".join(str(d) for d in dims))


def model_txt(spec, jax_version, backend, leaves, num_params, output_shapes,
              num_donated, dot_census):
    """model.txt: the spec's facts, then the export's."""
    num_state = num_donated - num_params
    batch = ", ".join(
        "%s %s" % (name, _fmt(checks.hlo_type(a.dtype), a.shape))
        for name, a in zip(spec.batch_names, leaves[num_donated:]))
    lines = [("name", spec.name), ("description", spec.description)]
    lines += spec.facts()
    lines += [
        ("jax_version", jax_version),
        ("lowered_for", backend),
        ("parameter_count", "%d" % spec.parameter_count()),
        ("seed", "%d (NumPy default_rng)" % spec.seed),
        ("entry_parameters", "%d (params %d, optimizer state %d, %s)"
         % (len(leaves), num_params, num_state, batch)),
        ("outputs", "%d (updated params%s, loss %s)"
         % (len(output_shapes), ", optimizer state" if num_state else "",
            _fmt(*output_shapes[-1]))),
        ("donated", "parameters 0-%d, each aliased to the output of the same "
         "index" % (num_donated - 1)),
        ("precision", spec.precision_text),
    ]
    if spec.matmul_precision != "highest":
        lines.append(("dots", "; ".join(
            "%s: %d" % kv for kv in sorted(dot_census.items()))))
    lines.append(("data", "input_<i>.npy; reference_step1/ and "
                  "reference_step5/ output_<i>.npy from JAX's CPU backend"
                  if spec.write_data else "none"))
    return "".join("%s: %s\n" % kv for kv in lines)


# ---------------------------------------------------------------------------
# Export (JAX)


def _run_steps(step_fn, placed_args, aliases, steps):
    """Flat outputs after each of `steps` steps, fed back through aliases."""
    import jax
    import numpy as np
    leaves, treedef = jax.tree_util.tree_flatten(placed_args)
    state = list(leaves)
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
        g, w = g.astype(np.float64), w.astype(np.float64)
        diff = float(np.max(np.abs(g - w))) if g.size else 0.0
        scale = (float(np.max(np.abs(w))) if w.size else 0.0) or 1.0
        worst_abs = max(worst_abs, diff)
        worst_rel = max(worst_rel, diff / scale)
    return worst_abs, worst_rel


def _place_on_cpu(spec, args):
    """Committed CPU inputs make a step run on the CPU backend."""
    import jax
    if hasattr(spec, "place_inputs"):
        return spec.place_inputs(args)
    return jax.device_put(args, jax.devices("cpu")[0])


def _lower(spec, args):
    """(hlo text, jitted donating step, un-jitted step)."""
    import jax
    step = spec.make_train_step()
    jitted = jax.jit(step, donate_argnums=spec.donate_argnums, keep_unused=True)
    abstract = jax.tree_util.tree_map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), args)
    return jitted.lower(*abstract).as_text(dialect="hlo"), jitted, step


def _write_references(spec, model_dir, step, args, aliases):
    """Inputs and CPU references; returns the CPU history."""
    import jax
    leaves = jax.tree_util.tree_leaves(args)
    for i, leaf in enumerate(leaves):
        save_array(os.path.join(model_dir, "input_%d.npy" % i), leaf)
    reference_fn = jax.jit(step, keep_unused=True)
    history = _run_steps(reference_fn, _place_on_cpu(spec, args), aliases,
                         max(REFERENCE_STEPS))
    for step_number in REFERENCE_STEPS:
        ref_dir = os.path.join(model_dir, "reference_step%d" % step_number)
        os.makedirs(ref_dir)
        for i, out in enumerate(history[step_number - 1]):
            save_array(os.path.join(ref_dir, "output_%d.npy" % i), out)
    losses = " ".join("%.6g" % float(h[-1]) for h in history)
    print("%s: cpu losses over %d steps: %s" % (spec.name, len(history),
                                                 losses))
    return history


def _compare(spec, label, history, other):
    """Prints the differences after each reference step; returns the
    largest relative one."""
    worst = 0.0
    for step_number in REFERENCE_STEPS:
        worst_abs, worst_rel = _max_difference(other[step_number - 1],
                                               history[step_number - 1])
        print("%s: %s vs cpu after step %d: max abs diff %.3g, max diff "
              "relative to the output's max %.3g" % (
                  spec.name, label, step_number, worst_abs, worst_rel))
        worst = max(worst, worst_rel)
    return worst


def _check_twin(spec, args, aliases, history):
    """A data-parallel model must reproduce its single-device model."""
    import jax
    twin = spec.equivalent_model
    twin_history = _run_steps(
        jax.jit(twin.make_train_step(), keep_unused=True),
        jax.device_put(args, jax.devices("cpu")[0]), aliases,
        max(REFERENCE_STEPS))
    worst_rel = _compare(spec, "single-device " + twin.name, history,
                         twin_history)
    if worst_rel > TWIN_TOLERANCE:
        raise RuntimeError("%s differs from %s by %.3g relative (more than "
                           "%g)" % (spec.name, twin.name, worst_rel,
                                    TWIN_TOLERANCE))


def export_model(spec, out_dir):
    """Writes one model's directory; returns its warnings."""
    import jax
    start = time.time()
    args = spec.make_inputs()
    leaves = jax.tree_util.tree_leaves(args)
    num_donated = sum(len(jax.tree_util.tree_leaves(args[i]))
                      for i in spec.donate_argnums)
    hlo_text, jitted, step = _lower(spec, args)

    leaf_shapes = [(checks.hlo_type(a.dtype), tuple(a.shape)) for a in leaves]
    errors, warnings, aliases, output_shapes, census = checks.check_hlo(
        hlo_text, leaf_shapes, num_donated,
        require_highest=spec.matmul_precision == "highest")
    partitions = checks.header_int(hlo_text, "num_partitions") or 1
    if partitions != spec.num_devices:
        warnings.append("num_partitions=%d in the module header, expected %d"
                        % (partitions, spec.num_devices))

    model_dir = os.path.join(out_dir, spec.name)
    clear_model_dir(model_dir)
    with open(os.path.join(model_dir, "train_step.hlo"), "w") as f:
        f.write(hlo_text)
    if errors:
        with open(os.path.join(model_dir, "check_errors.txt"), "w") as f:
            f.write("\n".join(errors) + "\n")
        raise RuntimeError("%s: %s" % (spec.name, "; ".join(errors)))
    dot_census = checks.dot_type_census(hlo_text)
    backend = jax.default_backend()
    with open(os.path.join(model_dir, "model.txt"), "w") as f:
        f.write(model_txt(spec, jax.__version__, backend, leaves,
                          len(jax.tree_util.tree_leaves(args[0])),
                          output_shapes, num_donated, dot_census))
    print("%s: %d params, %d outputs, %d aliases, ops %s" % (
        spec.name, len(leaves), len(output_shapes), len(aliases),
        " ".join("%s=%d" % kv for kv in sorted(census.items()))))
    print("%s: dots %s" % (spec.name, ", ".join(
        "%s x%d" % kv for kv in sorted(dot_census.items())) or "none"))
    device = jax.devices()[0]
    if spec.write_data:
        history = _write_references(spec, model_dir, step, args, aliases)
        if hasattr(spec, "equivalent_model"):
            _check_twin(spec, args, aliases, history)
        if backend != "cpu":
            _compare(spec, device.device_kind, history, _run_steps(
                jitted, jax.device_put(args, device), aliases,
                max(REFERENCE_STEPS)))
    elif backend != "cpu":
        # No references; two steps show that it runs and its loss is finite.
        history = _run_steps(jitted, jax.device_put(args, device), aliases, 2)
        print("%s: %s losses over 2 steps: %s" % (
            spec.name, device.device_kind,
            " ".join("%.6g" % float(h[-1]) for h in history)))
    print("%s: done in %.1f s" % (spec.name, time.time() - start))
    return warnings


def _start_jax(host_devices):
    """Imports JAX; with host_devices, on the CPU backend with that many
    devices (the flags must be set before JAX starts its backends)."""
    if host_devices:
        flag = "--xla_force_host_platform_device_count=%d" % host_devices
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " +
                                   flag).strip()
        os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    if host_devices:
        try:
            jax.config.update("jax_num_cpu_devices", host_devices)
        except Exception as e:  # older JAX: the XLA flag alone does it
            print("jax_num_cpu_devices not set (%r); relying on XLA_FLAGS" % e)
    jax.config.update("jax_default_matmul_precision", "highest")
    print("jax %s, default backend %s, %d devices" % (
        jax.__version__, jax.default_backend(), len(jax.devices())))
    return jax


def _export_in_subprocess(names, out, host_devices):
    """Exports `names` in a fresh process with host_devices CPU devices;
    returns its exit status."""
    command = [sys.executable, os.path.abspath(__file__), "--out=" + out,
               "--models=" + ",".join(names),
               "--host_devices=%d" % host_devices]
    print("running %s" % " ".join(command))
    sys.stdout.flush()
    return subprocess.call(command)


def export_all(names, out, host_devices):
    """Exports names whose spec needs host_devices (1 in the first process);
    returns (failed names, warnings)."""
    try:
        _start_jax(host_devices if host_devices > 1 else 0)
    except Exception as e:  # no JAX, or no backend: every model fails
        traceback.print_exc()
        print("ERROR starting JAX: %r" % e)
        return list(names), []
    failed, all_warnings = [], []
    for name in names:
        print("== %s" % name)
        sys.stdout.flush()
        try:
            warnings = export_model(jax_models.MODELS[name], out)
        except Exception as e:  # report every model, then fail
            traceback.print_exc()
            print("ERROR %s: %r" % (name, e))
            failed.append(name)
            continue
        all_warnings.extend("%s: %s" % (name, w) for w in warnings)
    return failed, all_warnings


def group_by_devices(names, host_devices=0):
    """{devices: [names]}: the process each model is exported in (all in
    this one when host_devices is given)."""
    groups = {}
    for name in names:
        devices = host_devices or jax_models.MODELS[name].num_devices
        groups.setdefault(devices, []).append(name)
    return groups


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="e.g. configs/models")
    parser.add_argument("--models", default="",
                        help="comma-separated names; default: all of " +
                        ",".join(jax_models.MODELS))
    parser.add_argument("--host_devices", type=int, default=0,
                        help="(internal) export in this process on that many "
                        "CPU devices; models needing several devices get a "
                        "process of their own with this flag")
    flags = parser.parse_args(argv)
    names = [n for n in flags.models.split(",") if n] or list(jax_models.MODELS)
    unknown = [n for n in names if n not in jax_models.MODELS]
    if unknown:
        parser.error("unknown models %s; known: %s"
                     % (unknown, ",".join(jax_models.MODELS)))

    start = time.time()
    groups = group_by_devices(names, flags.host_devices)
    failed, all_warnings = [], []
    if flags.host_devices:
        failed, all_warnings = export_all(names, flags.out, flags.host_devices)
    else:
        if 1 in groups:
            failed, all_warnings = export_all(groups[1], flags.out, 1)
        for devices, group in sorted(groups.items()):
            if devices > 1 and _export_in_subprocess(group, flags.out,
                                                     devices) != 0:
                # Its own summary above says which of them failed.
                failed.extend("%s (%d-device process)" % (name, devices)
                              for name in group)
    for warning in all_warnings:
        print("WARNING " + warning)
    print("exported %d of %d models to %s in %.0f s, %d warnings%s" % (
        len(names) - len(failed), len(names), flags.out, time.time() - start,
        len(all_warnings), "; failed: " + ",".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
