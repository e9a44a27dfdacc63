"""The models tools/export_jax_hlo.py exports and the step-time peers run.

Each model is a spec of one family (tools/jax_common.py describes the spec
protocol): MLPs (jax_mlp), GPT-style decoders (jax_transformer), control flow
around an MLP (jax_control_flow), CNNs (jax_cnn) and data-parallel steps
(jax_data_parallel). Parameters and batches come from NumPy's generator
seeded by the spec, so they do not depend on the JAX version, and specs and
data work where JAX is absent (the PyTorch peer reuses them).
"""

import jax_cnn
import jax_control_flow
import jax_data_parallel
import jax_mlp
import jax_transformer

ModelSpec = jax_mlp.MlpSpec


def _mlp_models():
    return [
        ModelSpec(
            name="mlp_softmax_small",
            description="relu MLP classifier, smaller than the sample",
            sizes=(48, 96, 80, 12), batch=24, seed=1),
        ModelSpec(
            name="mlp_softmax",
            description="relu MLP classifier, the architecture of "
                        "shared/samples/jax_mlp_train_step.hlo",
            sizes=(64, 128, 128, 10), batch=32, seed=2),
        ModelSpec(
            name="mlp_tanh_mse",
            description="tanh MLP regression with mean squared error",
            sizes=(32, 64, 16), batch=16, activation="tanh", loss="mse",
            learning_rate=0.05, seed=3),
        ModelSpec(
            name="layernorm_mlp",
            description="MLP classifier with layer norm (mean/variance "
                        "reduce, rsqrt) and tanh-approximated gelu",
            sizes=(32, 64, 64, 10), batch=16, activation="gelu_tanh",
            layer_norm=True, seed=4),
        ModelSpec(
            name="mlp_adam",
            description="relu MLP classifier trained with Adam (optimizer "
                        "state m, v and an f32 step count, all donated)",
            sizes=(32, 64, 10), batch=16, optimizer="adam",
            learning_rate=1e-3, seed=5),
        ModelSpec(
            name="mlp_wide",
            description="four 1024x1024 relu layers and a 1024->10 softmax "
                        "head; no .npy data (the training CLI seeds "
                        "parameters)",
            sizes=(1024, 1024, 1024, 1024, 1024, 10), batch=256, seed=6,
            write_data=False),
    ]


def _transformer_models():
    Spec = jax_transformer.TransformerSpec
    tiny = dict(vocab=64, seq=16, d_model=32, layers=2, heads=2, batch=4,
                seed=10, data_budget_kb=1200)
    medium = dict(vocab=512, seq=128, d_model=256, layers=4, heads=4,
                  batch=16, seed=11, write_data=False)
    # Adam keeps three copies of the ~30k parameters, each written as an
    # input and in both references: about 1.1 MB, over the usual budget.
    return [
        Spec(name="transformer_tiny",
             description="GPT-style decoder, f32, small enough for "
                         "references",
             **tiny),
        Spec(name="transformer_medium",
             description="GPT-style decoder, f32, for step time; no .npy "
                         "data",
             **medium),
        Spec(name="transformer_bf16_tiny",
             description="transformer_tiny in bf16 mixed precision (same "
                         "inputs), references at bf16 tolerance",
             dtype="bf16", **tiny),
        Spec(name="transformer_bf16_medium",
             description="transformer_medium in bf16 mixed precision, for "
                         "step time; no .npy data",
             dtype="bf16", **medium),
    ]


def _control_flow_models():
    Spec = jax_control_flow.ControlFlowSpec

    def mlp(seed):
        return ModelSpec(name="", description="", sizes=(32, 64, 10),
                         batch=16, learning_rate=0.05, seed=seed)

    return [
        Spec(name="scan_grad_accum",
             description="gradient accumulation: lax.scan over 4 "
                         "micro-batches of an MLP classifier, then SGD",
             kind="scan_grad_accum", model=mlp(20), micro_batches=4),
        Spec(name="fori_steps_const",
             description="4 SGD steps of an MLP classifier per call "
                         "(lax.fori_loop, constant trip count)",
             kind="fori_const", model=mlp(21), steps=4),
        Spec(name="fori_steps16",
             description="16 SGD steps of an MLP classifier per call "
                         "(lax.fori_loop, constant trip count), for step "
                         "time; no .npy data",
             kind="fori_const", model=mlp(22), steps=16, write_data=False),
        ModelSpec(name="mlp_sgd_step",
                  description="one SGD step of the MLP that fori_steps16 "
                              "runs 16 times per call, for the time per "
                              "inner step against single steps; no .npy "
                              "data",
                  sizes=(32, 64, 10), batch=16, learning_rate=0.05, seed=22,
                  write_data=False),
        Spec(name="fori_steps_input",
             description="SGD steps of an MLP classifier per call, the "
                         "count an s32 input (lax.fori_loop)",
             kind="fori_input", model=mlp(23), steps=3),
        Spec(name="cond_skip_nonfinite",
             description="one SGD step of an MLP classifier whose update a "
                         "lax.cond skips when the loss or a gradient is not "
                         "finite",
             kind="cond_skip", model=mlp(24)),
    ]


def _cnn_models():
    Spec = jax_cnn.CnnSpec
    return [
        Spec(name="cnn_small",
             description="two 3x3 convolutions (SAME, VALID), relu, average "
                         "and max pooling, a dense head",
             image=(12, 12, 3), batch=4, learning_rate=0.05, seed=30,
             layers=(("conv", 3, 8, "SAME"), ("relu",), ("avg_pool",),
                     ("conv", 3, 16, "VALID"), ("relu",), ("max_pool",),
                     ("flatten",), ("dense", 10))),
        Spec(name="cnn_depthwise",
             description="a 3x3 convolution, then a depthwise-separable "
                         "block (3x3 depthwise with feature_group_count = "
                         "channels, 1x1 pointwise), max and global average "
                         "pooling, a dense head",
             image=(8, 8, 3), batch=4, learning_rate=0.05, seed=31,
             layers=(("conv", 3, 8, "SAME"), ("relu",),
                     ("depthwise", 3, "SAME"), ("relu",),
                     ("conv", 1, 16, "SAME"), ("relu",), ("max_pool",),
                     ("global_avg_pool",), ("dense", 10))),
        Spec(name="cnn_cifar",
             description="CIFAR-sized CNN (32x32x3, batch 64): 32-128 "
                         "channel 3x3 convolutions, a residual block, max "
                         "pooling, global average pooling, a dense head; for "
                         "step time, no .npy data",
             image=(32, 32, 3), batch=64, learning_rate=0.01, seed=32,
             write_data=False,
             layers=(("conv", 3, 32, "SAME"), ("relu",),
                     ("conv", 3, 64, "SAME"), ("relu",), ("max_pool",),
                     ("save",), ("conv", 3, 64, "SAME"), ("relu",),
                     ("conv", 3, 64, "SAME"), ("add_saved",), ("relu",),
                     ("max_pool",), ("conv", 3, 128, "SAME"), ("relu",),
                     ("global_avg_pool",), ("dense", 10))),
    ]


def _data_parallel_models(mlps):
    return [
        jax_data_parallel.DataParallelSpec(
            name="dp2_mlp",
            description="mlp_softmax data-parallel over 2 devices: batch "
                        "split, gradients and loss pmean'd (shard_map)",
            model=mlps["mlp_softmax"], num_devices=2),
    ]


def _registry():
    mlps = {spec.name: spec for spec in _mlp_models()}
    models = dict(mlps)
    for spec in (_transformer_models() + _control_flow_models() +
                 _cnn_models() + _data_parallel_models(mlps)):
        assert spec.name not in models, spec.name
        models[spec.name] = spec
    return models


MODELS = _registry()

# Models added with the transformer, control-flow, CNN and data-parallel
# families (tools/gpu/export_models.sh exports these).
NEW_MODELS = tuple(name for name in MODELS
                   if not isinstance(MODELS[name], jax_mlp.MlpSpec))


def mlp_spec(sizes, batch, seed=0):
    """The peers' model: relu MLP, softmax cross-entropy, SGD lr 0.01."""
    sizes = tuple(int(s) for s in sizes)
    return ModelSpec(
        name="mlp_" + "-".join(str(s) for s in sizes) + "_b%d" % batch,
        description="relu MLP classifier (step-time peer)",
        sizes=sizes, batch=int(batch), seed=seed)


def make_inputs(spec):
    """The train step's arguments (NumPy), deterministic from spec.seed."""
    return spec.make_inputs()


def make_train_step(spec):
    """The un-jitted step; jit it with donate_argnums=spec.donate_argnums."""
    return spec.make_train_step()
