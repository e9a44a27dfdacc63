"""Model definitions shared by tools/export_jax_hlo.py and the step-time peers.

A model is a ModelSpec: an MLP (optionally with layer norm) with a loss and an
optimizer. Parameters and batches come from NumPy's generator seeded by the
spec, so they do not depend on the JAX version. JAX is imported only by the
functions that trace a step, so specs and data also work where JAX is absent
(the PyTorch peer reuses them).

Pytree layout, which fixes the order of the HLO entry parameters:
  params        list over layers of (w[in, out], b[out]) and, for hidden layers
                of a layer-norm model, (w, b, gamma[out], beta[out])
  opt_state     Adam only: (m, v, count), m and v shaped like params, count f32[]
  train_step    SGD:  (params, x, y) -> (params, loss)
                Adam: (params, opt_state, x, y) -> (params, opt_state, loss)
"""

import dataclasses
import functools
import math

import numpy as np

ADAM_B1 = 0.9
ADAM_B2 = 0.999
# Larger than the usual 1e-8 so that an update g / (sqrt(v) + eps) of a
# gradient that is nearly zero through cancellation stays well conditioned:
# references from one backend then bound another backend's result tightly.
ADAM_EPS = 1e-4
LAYER_NORM_EPS = 1e-5

ACTIVATIONS = ("relu", "tanh", "gelu_tanh")
LOSSES = ("softmax_ce", "mse")
OPTIMIZERS = ("sgd", "adam")


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    name: str
    description: str
    sizes: tuple  # layer widths, input first, classes (or targets) last
    batch: int
    activation: str = "relu"
    layer_norm: bool = False  # before the activation of every hidden layer
    loss: str = "softmax_ce"
    optimizer: str = "sgd"
    learning_rate: float = 0.01
    seed: int = 0
    write_data: bool = True  # inputs and references as .npy

    def __post_init__(self):
        assert self.activation in ACTIVATIONS, self.activation
        assert self.loss in LOSSES, self.loss
        assert self.optimizer in OPTIMIZERS, self.optimizer
        assert len(self.sizes) >= 2, self.sizes

    @property
    def has_optimizer_state(self):
        return self.optimizer == "adam"

    @property
    def donate_argnums(self):
        return (0, 1) if self.has_optimizer_state else (0,)

    @property
    def layers_text(self):
        return "-".join(str(s) for s in self.sizes)


MODELS = {
    spec.name: spec
    for spec in [
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
}


def mlp_spec(sizes, batch, seed=0):
    """The peers' model: relu MLP, softmax cross-entropy, SGD lr 0.01."""
    sizes = tuple(int(s) for s in sizes)
    return ModelSpec(
        name="mlp_" + "-".join(str(s) for s in sizes) + "_b%d" % batch,
        description="relu MLP classifier (step-time peer)",
        sizes=sizes, batch=int(batch), seed=seed)


# ---------------------------------------------------------------------------
# Data (NumPy only)


def init_params(spec, rng):
    """He-normal weights before relu/gelu, Glorot-uniform otherwise; small
    non-zero biases so the bias path matters from the first step."""
    params = []
    num_layers = len(spec.sizes) - 1
    for i in range(num_layers):
        fan_in, fan_out = spec.sizes[i], spec.sizes[i + 1]
        hidden = i < num_layers - 1
        if hidden and spec.activation in ("relu", "gelu_tanh"):
            w = rng.standard_normal((fan_in, fan_out)) * math.sqrt(2.0 / fan_in)
        else:
            limit = math.sqrt(6.0 / (fan_in + fan_out))
            w = rng.uniform(-limit, limit, (fan_in, fan_out))
        layer = [w, rng.uniform(-0.05, 0.05, fan_out)]
        if hidden and spec.layer_norm:
            layer.append(1.0 + rng.uniform(-0.1, 0.1, fan_out))  # gamma
            layer.append(rng.uniform(-0.05, 0.05, fan_out))  # beta
        params.append(tuple(np.asarray(a, dtype=np.float32) for a in layer))
    return params


def init_optimizer_state(spec, params):
    if not spec.has_optimizer_state:
        return None
    zeros = [tuple(np.zeros_like(a) for a in layer) for layer in params]
    zeros_v = [tuple(np.zeros_like(a) for a in layer) for layer in params]
    return (zeros, zeros_v, np.zeros((), dtype=np.float32))


def make_batch(spec, rng):
    """x ~ N(0, 1); y one-hot labels (softmax_ce) or N(0, 0.25) targets."""
    x = rng.standard_normal((spec.batch, spec.sizes[0])).astype(np.float32)
    outputs = spec.sizes[-1]
    if spec.loss == "softmax_ce":
        labels = rng.integers(0, outputs, spec.batch)
        y = np.eye(outputs, dtype=np.float32)[labels]
    else:
        y = (0.5 * rng.standard_normal((spec.batch, outputs))).astype(np.float32)
    return x, y


def make_inputs(spec):
    """The train step's arguments, deterministic from spec.seed."""
    rng = np.random.default_rng(spec.seed)
    params = init_params(spec, rng)
    x, y = make_batch(spec, rng)
    opt_state = init_optimizer_state(spec, params)
    if opt_state is None:
        return (params, x, y)
    return (params, opt_state, x, y)


def parameter_count(spec):
    count = 0
    for i in range(len(spec.sizes) - 1):
        fan_in, fan_out = spec.sizes[i], spec.sizes[i + 1]
        count += fan_in * fan_out + fan_out
        if spec.layer_norm and i < len(spec.sizes) - 2:
            count += 2 * fan_out
    return count


# ---------------------------------------------------------------------------
# JAX step (JAX imported here so the data above works without it)


def _activation(spec, h):
    import jax
    import jax.numpy as jnp
    if spec.activation == "relu":
        return jax.nn.relu(h)
    if spec.activation == "tanh":
        return jnp.tanh(h)
    # Written out rather than jax.nn.gelu so the op set is fixed: the exact
    # gelu would bring erf, which the runtime does not implement.
    inner = math.sqrt(2.0 / math.pi) * (h + 0.044715 * (h * h * h))
    return 0.5 * h * (1.0 + jnp.tanh(inner))


def _layer_norm(h, gamma, beta):
    import jax
    import jax.numpy as jnp
    mean = jnp.mean(h, axis=-1, keepdims=True)
    centered = h - mean
    var = jnp.mean(centered * centered, axis=-1, keepdims=True)
    return centered * jax.lax.rsqrt(var + LAYER_NORM_EPS) * gamma + beta


def forward(spec, params, x):
    import jax
    import jax.numpy as jnp
    h = x
    for i, layer in enumerate(params):
        h = jnp.dot(h, layer[0], precision=jax.lax.Precision.HIGHEST) + layer[1]
        if i < len(params) - 1:
            if spec.layer_norm:
                h = _layer_norm(h, layer[2], layer[3])
            h = _activation(spec, h)
    return h


def loss_fn(spec, params, x, y):
    import jax
    import jax.numpy as jnp
    out = forward(spec, params, x)
    if spec.loss == "softmax_ce":
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(out), axis=-1))
    diff = out - y
    return jnp.mean(diff * diff)


def make_train_step(spec):
    """The un-jitted step; jit it with donate_argnums=spec.donate_argnums."""
    import jax
    import jax.numpy as jnp
    tree_map = jax.tree_util.tree_map
    grad_fn = jax.value_and_grad(functools.partial(loss_fn, spec))
    lr = spec.learning_rate

    if spec.optimizer == "sgd":
        def train_step(params, x, y):
            loss, grads = grad_fn(params, x, y)
            new_params = tree_map(lambda p, g: p - lr * g, params, grads)
            return new_params, loss
        return train_step

    def train_step(params, opt_state, x, y):
        m, v, count = opt_state
        loss, grads = grad_fn(params, x, y)
        t = count + 1.0
        m = tree_map(lambda m_, g: ADAM_B1 * m_ + (1.0 - ADAM_B1) * g, m, grads)
        v = tree_map(lambda v_, g: ADAM_B2 * v_ + (1.0 - ADAM_B2) * (g * g),
                     v, grads)
        m_scale = 1.0 / (1.0 - ADAM_B1 ** t)
        v_scale = 1.0 / (1.0 - ADAM_B2 ** t)
        new_params = tree_map(
            lambda p, m_, v_: p - lr * (m_ * m_scale) /
            (jnp.sqrt(v_ * v_scale) + ADAM_EPS),
            params, m, v)
        return new_params, (m, v, t), loss
    return train_step


def describe_loss(spec):
    if spec.loss == "softmax_ce":
        return ("softmax cross-entropy with one-hot labels, mean over the "
                "batch (jax.nn.log_softmax)")
    return "mean squared error over all outputs"


def describe_optimizer(spec):
    if spec.optimizer == "sgd":
        return "SGD lr %g" % spec.learning_rate
    return ("Adam lr %g b1 %g b2 %g eps %g, bias-corrected, step count an "
            "f32 scalar" % (spec.learning_rate, ADAM_B1, ADAM_B2, ADAM_EPS))


def describe_activation(spec):
    return {
        "relu": "relu (jax.nn.relu)",
        "tanh": "tanh",
        "gelu_tanh": "gelu, tanh approximation "
                     "0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3)))",
    }[spec.activation]
