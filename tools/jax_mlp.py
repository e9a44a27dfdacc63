"""MLP models: dense layers (optionally with layer norm), a loss, an optimizer.

Pytree layout, which fixes the order of the HLO entry parameters:
  params        list over layers of (w[in, out], b[out]) and, for hidden layers
                of a layer-norm model, (w, b, gamma[out], beta[out])
  opt_state     Adam only: (m, v, count), m and v shaped like params, count f32[]
  train_step    SGD:  (params, x, y) -> (params, loss)
                Adam: (params, opt_state, x, y) -> (params, opt_state, loss)
"""

import dataclasses
import functools

import numpy as np

import jax_common as common

ACTIVATIONS = ("relu", "tanh", "gelu_tanh")
LOSSES = ("softmax_ce", "mse")


@dataclasses.dataclass(frozen=True)
class MlpSpec(common.SpecMixin):
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
        assert self.optimizer in common.OPTIMIZERS, self.optimizer
        assert len(self.sizes) >= 2, self.sizes

    @property
    def layers_text(self):
        return "-".join(str(s) for s in self.sizes)

    def make_inputs(self):
        return make_inputs(self)

    def make_train_step(self):
        return make_train_step(self)

    def parameter_count(self):
        return parameter_count(self)

    def facts(self):
        return [
            ("layers", self.layers_text),
            ("batch", "%d" % self.batch),
            ("activation", describe_activation(self)),
            ("layer_norm", "before every hidden activation, eps %g"
             % common.LAYER_NORM_EPS if self.layer_norm else "none"),
            ("loss", describe_loss(self)),
            ("optimizer", self.optimizer_text()),
        ]


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
            w = common.he_normal(rng, (fan_in, fan_out), fan_in)
        else:
            w = common.glorot_uniform(rng, (fan_in, fan_out), fan_in, fan_out)
        layer = [w, common.small_bias(rng, fan_out)]
        if hidden and spec.layer_norm:
            layer.extend(common.layer_norm_params(rng, fan_out))
        params.append(tuple(layer))
    return params


def make_batch(spec, rng, batch_shape=None):
    """x ~ N(0, 1); y one-hot labels (softmax_ce) or N(0, 0.25) targets.
    batch_shape defaults to (spec.batch,)."""
    batch_shape = tuple(batch_shape or (spec.batch,))
    x = rng.standard_normal(batch_shape + (spec.sizes[0],)).astype(np.float32)
    outputs = spec.sizes[-1]
    if spec.loss == "softmax_ce":
        y = common.one_hot_labels(rng, batch_shape, outputs)
    else:
        y = (0.5 * rng.standard_normal(batch_shape + (outputs,))).astype(
            np.float32)
    return x, y


def make_inputs(spec):
    """The train step's arguments, deterministic from spec.seed."""
    rng = np.random.default_rng(spec.seed)
    params = init_params(spec, rng)
    x, y = make_batch(spec, rng)
    return spec.with_optimizer_state(params, x, y)


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
    return common.gelu_tanh(h)


def forward(spec, params, x):
    import jax
    import jax.numpy as jnp
    h = x
    for i, layer in enumerate(params):
        h = jnp.dot(h, layer[0], precision=jax.lax.Precision.HIGHEST) + layer[1]
        if i < len(params) - 1:
            if spec.layer_norm:
                h = common.layer_norm(h, layer[2], layer[3])
            h = _activation(spec, h)
    return h


def loss_fn(spec, params, x, y):
    import jax.numpy as jnp
    out = forward(spec, params, x)
    if spec.loss == "softmax_ce":
        return common.softmax_cross_entropy(out, y)
    diff = out - y
    return jnp.mean(diff * diff)


def loss_and_grads_fn(spec):
    """(params, x, y) -> (loss, grads)."""
    import jax
    return jax.value_and_grad(functools.partial(loss_fn, spec))


def make_train_step(spec):
    """The un-jitted step; jit it with donate_argnums=spec.donate_argnums."""
    return common.wrap_step_with_optimizer(spec, loss_and_grads_fn(spec))


def describe_loss(spec):
    if spec.loss == "softmax_ce":
        return common.SOFTMAX_CE_TEXT
    return "mean squared error over all outputs"


def describe_activation(spec):
    return {
        "relu": "relu (jax.nn.relu)",
        "tanh": "tanh",
        "gelu_tanh": common.GELU_TANH_TEXT,
    }[spec.activation]
