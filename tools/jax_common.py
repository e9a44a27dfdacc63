"""Pieces every model family of tools/jax_models.py shares.

A model spec (one family per module: jax_mlp, jax_transformer,
jax_control_flow, jax_cnn, jax_data_parallel) is a frozen dataclass with
  name, description, seed, write_data, batch (examples per step),
  optimizer ("sgd" | "adam"), learning_rate
and, through SpecMixin or its own definitions,
  donate_argnums        argument indices JAX donates (params, optimizer state)
  batch_names           names of the leaves after the donated ones (x, y, ...)
  matmul_precision      "highest" (f32 models) or "default" (bf16 models)
  precision_text        one line for model.txt
  num_devices           host devices the export needs (data parallel: 2)
  data_budget_kb        most .npy data (inputs and both references) it writes
  make_inputs()         the step's arguments as NumPy arrays (no JAX needed)
  make_train_step()     the un-jitted JAX step
  parameter_count()     trainable scalars
  facts()               [(key, value)] lines of model.txt about the model

NumPy data never depends on JAX, so specs, inputs and sizes work (and are
tested) where JAX is absent. JAX is imported inside the functions that trace.
"""

import math

import numpy as np

ADAM_B1 = 0.9
ADAM_B2 = 0.999
# Larger than the usual 1e-8 so that an update g / (sqrt(v) + eps) of a
# gradient that is nearly zero through cancellation stays well conditioned:
# references from one backend then bound another backend's result tightly.
ADAM_EPS = 1e-4
LAYER_NORM_EPS = 1e-5

OPTIMIZERS = ("sgd", "adam")

# About 300 KB of committed .npy per model (inputs and two references).
DEFAULT_DATA_BUDGET_KB = 350

F32_PRECISION_TEXT = "f32, jax_default_matmul_precision=highest"


class SpecMixin:
    """Defaults of the spec protocol (see the module docstring)."""

    num_devices = 1
    matmul_precision = "highest"
    precision_text = F32_PRECISION_TEXT
    data_budget_kb = DEFAULT_DATA_BUDGET_KB
    batch_names = ("x", "y")

    @property
    def has_optimizer_state(self):
        return self.optimizer == "adam"

    @property
    def donate_argnums(self):
        return (0, 1) if self.has_optimizer_state else (0,)

    def with_optimizer_state(self, params, *batch):
        """(params[, opt_state], *batch): the step's argument order."""
        if self.has_optimizer_state:
            return (params, adam_init(params)) + tuple(batch)
        return (params,) + tuple(batch)

    def make_update(self):
        """(update(params, opt_state, grads) -> (params, opt_state))."""
        if self.optimizer == "sgd":
            lr = self.learning_rate
            return lambda params, state, grads: (
                sgd_update(params, grads, lr), state)
        return lambda params, state, grads: adam_update(
            params, state, grads, self.learning_rate)

    def optimizer_text(self):
        if self.optimizer == "sgd":
            return "SGD lr %g" % self.learning_rate
        return ("Adam lr %g b1 %g b2 %g eps %g, bias-corrected, step count an "
                "f32 scalar" % (self.learning_rate, ADAM_B1, ADAM_B2,
                                ADAM_EPS))


class WrapperSpecMixin(SpecMixin):
    """A spec built around another model's spec (self.model): its seed,
    batch, optimizer and parameters are that model's."""

    @property
    def seed(self):
        return self.model.seed

    @property
    def batch(self):
        return self.model.batch

    @property
    def optimizer(self):
        return self.model.optimizer

    @property
    def learning_rate(self):
        return self.model.learning_rate

    def parameter_count(self):
        return self.model.parameter_count()


def wrap_step_with_optimizer(spec, loss_and_grads):
    """The step of a model whose gradient comes from loss_and_grads(params,
    *batch) -> (loss, grads): SGD (params, *batch) -> (params, loss), Adam
    (params, opt_state, *batch) -> (params, opt_state, loss)."""
    update = spec.make_update()
    if not spec.has_optimizer_state:
        def train_step(params, *batch):
            loss, grads = loss_and_grads(params, *batch)
            return update(params, None, grads)[0], loss
        return train_step

    def train_step(params, opt_state, *batch):
        loss, grads = loss_and_grads(params, *batch)
        params, opt_state = update(params, opt_state, grads)
        return params, opt_state, loss
    return train_step


# ---------------------------------------------------------------------------
# NumPy data


def tree_leaves(tree):
    """Leaves of nested lists and tuples in JAX's flattening order (None is
    an empty subtree, as in JAX)."""
    if tree is None:
        return []
    if isinstance(tree, (list, tuple)):
        return [leaf for sub in tree for leaf in tree_leaves(sub)]
    return [tree]


def f32(a):
    return np.asarray(a, dtype=np.float32)


def he_normal(rng, shape, fan_in):
    return f32(rng.standard_normal(shape) * math.sqrt(2.0 / fan_in))


def lecun_normal(rng, shape, fan_in):
    return f32(rng.standard_normal(shape) * math.sqrt(1.0 / fan_in))


def glorot_uniform(rng, shape, fan_in, fan_out):
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return f32(rng.uniform(-limit, limit, shape))


def small_bias(rng, size):
    """Non-zero so the bias path matters from the first step."""
    return f32(rng.uniform(-0.05, 0.05, size))


def layer_norm_params(rng, size):
    """(gamma near 1, beta near 0), perturbed so both gradients matter."""
    return (f32(1.0 + rng.uniform(-0.1, 0.1, size)), small_bias(rng, size))


def one_hot_labels(rng, batch_shape, classes):
    labels = rng.integers(0, classes, batch_shape)
    return np.eye(classes, dtype=np.float32)[labels]


def adam_init(params):
    """(m, v, count): zeros shaped like params, count an f32 scalar."""
    def zeros(tree):
        if isinstance(tree, (list, tuple)):
            return type(tree)(zeros(sub) for sub in tree)
        return np.zeros_like(tree)
    return (zeros(params), zeros(params), np.zeros((), dtype=np.float32))


# ---------------------------------------------------------------------------
# JAX pieces (JAX imported inside)


def sgd_update(params, grads, lr):
    import jax
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


def adam_update(params, opt_state, grads, lr):
    """Bias-corrected Adam; returns (params, (m, v, count))."""
    import jax
    import jax.numpy as jnp
    tree_map = jax.tree_util.tree_map
    m, v, count = opt_state
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
    return new_params, (m, v, t)


def gelu_tanh(h):
    """Written out rather than jax.nn.gelu so the op set is fixed: the exact
    gelu would bring erf, which the runtime does not implement."""
    import jax.numpy as jnp
    inner = math.sqrt(2.0 / math.pi) * (h + 0.044715 * (h * h * h))
    return 0.5 * h * (1.0 + jnp.tanh(inner))


GELU_TANH_TEXT = ("gelu, tanh approximation "
                  "0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3)))")


def layer_norm(h, gamma, beta):
    """Over the last axis, in h's type."""
    import jax
    import jax.numpy as jnp
    mean = jnp.mean(h, axis=-1, keepdims=True)
    centered = h - mean
    var = jnp.mean(centered * centered, axis=-1, keepdims=True)
    return centered * jax.lax.rsqrt(var + LAYER_NORM_EPS) * gamma + beta


def softmax_cross_entropy(logits, one_hot):
    """Mean over the leading axes of -sum(y * log_softmax(logits))."""
    import jax
    import jax.numpy as jnp
    return -jnp.mean(jnp.sum(one_hot * jax.nn.log_softmax(logits), axis=-1))


SOFTMAX_CE_TEXT = ("softmax cross-entropy with one-hot labels, mean over the "
                   "batch (jax.nn.log_softmax)")
