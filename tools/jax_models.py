"""The models tools/export_jax_hlo.py exports and the step-time peers run.

Each model is a spec of one family (tools/jax_common.py describes the spec
protocol): MLPs (jax_mlp). Parameters and batches come from NumPy's generator
seeded by the spec, so they do not depend on the JAX version, and specs and
data work where JAX is absent (the PyTorch peer reuses them).
"""

import jax_mlp

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


def _registry():
    models = {}
    for spec in _mlp_models():
        assert spec.name not in models, spec.name
        models[spec.name] = spec
    return models


MODELS = _registry()

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
