"""Convolutional classifiers on NHWC images.

Convolutions are lax.conv_general_dilated with dimension_numbers
('NHWC', 'HWIO', 'NHWC'), stride 1 and highest precision; a depthwise layer
has feature_group_count = channels (kernel HWIO [kh, kw, 1, channels]).
Pooling is lax.reduce_window over 2x2 windows with stride 2: lax.add then a
division for average pooling, lax.max from -inf for max pooling. A dense
head, softmax cross-entropy with one-hot labels, SGD.

An architecture is a tuple of layers:
  ("conv", k, out_channels, padding)   k x k, padding "SAME" or "VALID"
  ("depthwise", k, padding)            k x k, one filter per channel
  ("relu",)  ("avg_pool",)  ("max_pool",)  ("global_avg_pool",)  ("flatten",)
  ("dense", out)
  ("save",) ... ("add_saved",)         a residual connection
Pytree layout: params is a list of (w, b) over the conv, depthwise and dense
layers in order; train_step (params, x f32[batch, h, w, c], y f32[batch,
classes]) -> (params, loss).
"""

import dataclasses

import numpy as np

import jax_common as common

_POOL = 2  # window and stride of the pooling layers


@dataclasses.dataclass(frozen=True)
class CnnSpec(common.SpecMixin):
    name: str
    description: str
    image: tuple  # (height, width, channels)
    batch: int
    layers: tuple
    optimizer: str = "sgd"
    learning_rate: float = 0.01
    seed: int = 0
    write_data: bool = True

    def __post_init__(self):
        assert self.optimizer in common.OPTIMIZERS, self.optimizer
        _walk(self)  # checks the architecture

    @property
    def classes(self):
        return self.layers[-1][1]

    def make_inputs(self):
        rng = np.random.default_rng(self.seed)
        params = init_params(self, rng)
        x = common.f32(rng.standard_normal((self.batch,) + tuple(self.image)))
        y = common.one_hot_labels(rng, (self.batch,), self.classes)
        return self.with_optimizer_state(params, x, y)

    def make_train_step(self):
        import jax
        grad_fn = jax.value_and_grad(lambda p, x, y: loss_fn(self, p, x, y))
        return common.wrap_step_with_optimizer(self, grad_fn)

    def parameter_count(self):
        return sum(int(np.prod(w)) + b for w, b in param_shapes(self))

    def facts(self):
        h, w, c = self.image
        return [
            ("layers", ", ".join(text for text, _ in _walk(self))),
            ("batch", "%d images %dx%dx%d (NHWC)" % (self.batch, h, w, c)),
            ("convolution", "lax.conv_general_dilated, dimension_numbers "
             "('NHWC','HWIO','NHWC'), stride 1, precision highest; depthwise "
             "with feature_group_count = channels"),
            ("pooling", "lax.reduce_window %dx%d windows, stride %d, VALID: "
             "lax.add then /%d for average, lax.max from -inf for max"
             % (_POOL, _POOL, _POOL, _POOL * _POOL)),
            ("activation", "relu (jax.nn.relu)"),
            ("loss", common.SOFTMAX_CE_TEXT),
            ("optimizer", self.optimizer_text()),
        ]


def _walk(spec):
    """[(text, param_shape or None)] per layer, checking the shapes flow."""
    h, w, c = spec.image
    flat = None  # features once flattened
    saved = None
    out = []
    for layer in spec.layers:
        kind = layer[0]
        shape = None
        if kind in ("conv", "depthwise"):
            k = layer[1]
            cout, padding = (layer[2], layer[3]) if kind == "conv" else (
                c, layer[2])
            cin = c if kind == "conv" else 1
            shape = ((k, k, cin, cout), cout)
            if padding == "VALID":
                h, w = h - k + 1, w - k + 1
            else:
                assert padding == "SAME", layer
            text = "%s%dx%d %s %d->%d" % (kind, k, k, padding, c, cout)
            c = cout
        elif kind in ("avg_pool", "max_pool"):
            h, w = h // _POOL, w // _POOL
            text = "%s %dx%d" % (kind, _POOL, _POOL)
        elif kind == "global_avg_pool":
            flat, text = c, "global average pool (mean over h, w)"
        elif kind == "flatten":
            flat = h * w * c
            text = "flatten %d" % flat
        elif kind == "dense":
            assert flat is not None, "dense before flatten or global pool"
            shape = ((flat, layer[1]), layer[1])
            text = "dense %d->%d" % (flat, layer[1])
            flat = layer[1]
        elif kind == "save":
            saved, text = (h, w, c), "residual from here"
        elif kind == "add_saved":
            assert saved == (h, w, c), (saved, (h, w, c))
            text = "+ residual"
        else:
            assert kind == "relu", layer
            text = "relu"
        assert h > 0 and w > 0, (spec.name, layer)
        out.append((text, shape))
    assert spec.layers[-1][0] == "dense", "the head must be dense"
    return out


def param_shapes(spec):
    return [shape for _, shape in _walk(spec) if shape is not None]


def init_params(spec, rng):
    """He-normal kernels (fan-in k*k*in per group), a Glorot-uniform head,
    small random biases."""
    shapes = param_shapes(spec)
    params = []
    for i, (w_shape, b_size) in enumerate(shapes):
        fan_in = int(np.prod(w_shape[:-1]))
        if i == len(shapes) - 1:
            w = common.glorot_uniform(rng, w_shape, fan_in, w_shape[-1])
        else:
            w = common.he_normal(rng, w_shape, fan_in)
        params.append((w, common.small_bias(rng, b_size)))
    return params


# ---------------------------------------------------------------------------
# JAX step


def _pool(x, kind):
    import jax
    import jax.numpy as jnp
    window = (1, _POOL, _POOL, 1)
    if kind == "max_pool":
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, window, window,
                                     "VALID")
    summed = jax.lax.reduce_window(x, 0.0, jax.lax.add, window, window,
                                   "VALID")
    return summed / float(_POOL * _POOL)


def forward(spec, params, x):
    import jax
    import jax.numpy as jnp
    highest = jax.lax.Precision.HIGHEST
    remaining = list(params)
    saved = None
    for layer in spec.layers:
        kind = layer[0]
        if kind in ("conv", "depthwise"):
            w, b = remaining.pop(0)
            padding = layer[3] if kind == "conv" else layer[2]
            groups = 1 if kind == "conv" else x.shape[-1]
            x = jax.lax.conv_general_dilated(
                x, w, window_strides=(1, 1), padding=padding,
                dimension_numbers=("NHWC", "HWIO", "NHWC"),
                feature_group_count=groups, precision=highest) + b
        elif kind in ("avg_pool", "max_pool"):
            x = _pool(x, kind)
        elif kind == "global_avg_pool":
            x = jnp.mean(x, axis=(1, 2))
        elif kind == "flatten":
            x = x.reshape(x.shape[0], -1)
        elif kind == "dense":
            w, b = remaining.pop(0)
            x = jnp.dot(x, w, precision=highest) + b
        elif kind == "save":
            saved = x
        elif kind == "add_saved":
            x = x + saved
        else:
            x = jax.nn.relu(x)
    return x


def loss_fn(spec, params, x, y):
    return common.softmax_cross_entropy(forward(spec, params, x), y)
