"""Training steps with control flow around a small MLP (tools/jax_mlp.py).

Kinds:
  scan_grad_accum  loss and gradient summed over micro-batches by lax.scan
                   (x shaped [micro, batch, features]), then one SGD update
                   with their mean
  fori_const       lax.fori_loop over a constant number of SGD steps on the
                   same batch
  fori_input       the same with the number of steps an s32[] input
  cond_skip        one SGD step whose update lax.cond skips when the loss or
                   any gradient is not finite

Pytree layout: (params, x, y[, steps]) -> (params, loss), params as the
MLP's (list over layers of (w, b)); the loss is the last step's (before its
update) or the mean over the micro-batches.
"""

import dataclasses

import numpy as np

import jax_common as common
import jax_mlp

KINDS = ("scan_grad_accum", "fori_const", "fori_input", "cond_skip")


@dataclasses.dataclass(frozen=True)
class ControlFlowSpec(common.WrapperSpecMixin):
    name: str
    description: str
    kind: str
    model: jax_mlp.MlpSpec  # the MLP, its loss and SGD learning rate
    micro_batches: int = 4  # scan_grad_accum
    steps: int = 4  # fori_const: the trip count; fori_input: the input's value
    write_data: bool = True

    def __post_init__(self):
        assert self.kind in KINDS, self.kind
        assert self.model.optimizer == "sgd", self.model.optimizer

    @property
    def batch_names(self):
        return ("x", "y", "steps") if self.kind == "fori_input" else ("x", "y")

    def make_inputs(self):
        rng = np.random.default_rng(self.seed)
        params = jax_mlp.init_params(self.model, rng)
        if self.kind == "scan_grad_accum":
            x, y = jax_mlp.make_batch(self.model, rng,
                                      (self.micro_batches, self.model.batch))
        else:
            x, y = jax_mlp.make_batch(self.model, rng)
        if self.kind == "fori_input":
            return (params, x, y, np.array(self.steps, dtype=np.int32))
        return (params, x, y)

    def make_train_step(self):
        return {
            "scan_grad_accum": _scan_grad_accum_step,
            "fori_const": _fori_const_step,
            "fori_input": _fori_input_step,
            "cond_skip": _cond_skip_step,
        }[self.kind](self)

    def facts(self):
        mlp = self.model
        batch = "%d" % mlp.batch
        if self.kind == "scan_grad_accum":
            batch = "%d micro-batches of %d (x f32[%d,%d,%d])" % (
                self.micro_batches, mlp.batch, self.micro_batches, mlp.batch,
                mlp.sizes[0])
        return [
            ("layers", mlp.layers_text),
            ("batch", batch),
            ("control_flow", self._control_flow_text()),
            ("activation", jax_mlp.describe_activation(mlp)),
            ("loss", jax_mlp.describe_loss(mlp)),
            ("optimizer", self.optimizer_text()),
        ]

    def _control_flow_text(self):
        if self.kind == "scan_grad_accum":
            return ("lax.scan over the %d micro-batches sums loss and "
                    "gradients; one SGD update with their mean; the loss "
                    "output is the mean loss" % self.micro_batches)
        if self.kind == "fori_const":
            return ("lax.fori_loop(0, %d) of SGD steps on the same batch (a "
                    "constant trip count); one call is %d optimizer steps; "
                    "the loss output is the last step's, before its update"
                    % (self.steps, self.steps))
        if self.kind == "fori_input":
            return ("lax.fori_loop(0, steps) of SGD steps on the same batch, "
                    "steps an s32[] input (%d in input_<last>.npy); the loss "
                    "output is the last step's, before its update"
                    % self.steps)
        return ("lax.cond(loss and every gradient finite, SGD update, keep "
                "the parameters): the references take the update branch; "
                "x with a NaN takes the other (parameters returned unchanged, "
                "loss NaN)")


def _sgd_step_fn(spec):
    """(params, x, y) -> (new params, loss)."""
    grad_fn = jax_mlp.loss_and_grads_fn(spec.model)
    lr = spec.learning_rate

    def sgd_step(params, x, y):
        loss, grads = grad_fn(params, x, y)
        return common.sgd_update(params, grads, lr), loss
    return sgd_step


def _scan_grad_accum_step(spec):
    import jax
    import jax.numpy as jnp
    tree_map = jax.tree_util.tree_map
    grad_fn = jax_mlp.loss_and_grads_fn(spec.model)
    lr = spec.learning_rate

    def train_step(params, x, y):
        def accumulate(carry, micro_batch):
            loss_sum, grad_sum = carry
            loss, grads = grad_fn(params, *micro_batch)
            return (loss_sum + loss, tree_map(jnp.add, grad_sum, grads)), None

        init = (jnp.zeros((), jnp.float32), tree_map(jnp.zeros_like, params))
        (loss_sum, grad_sum), _ = jax.lax.scan(accumulate, init, (x, y))
        count = x.shape[0]
        grads = tree_map(lambda g: g / count, grad_sum)
        return common.sgd_update(params, grads, lr), loss_sum / count
    return train_step


def _fori_loop_of_steps(spec, params, x, y, steps):
    import jax
    import jax.numpy as jnp
    sgd_step = _sgd_step_fn(spec)

    def body(_, carry):
        return sgd_step(carry[0], x, y)
    return jax.lax.fori_loop(0, steps, body,
                             (params, jnp.zeros((), jnp.float32)))


def _fori_const_step(spec):
    def train_step(params, x, y):
        return _fori_loop_of_steps(spec, params, x, y, spec.steps)
    return train_step


def _fori_input_step(spec):
    def train_step(params, x, y, steps):
        return _fori_loop_of_steps(spec, params, x, y, steps)
    return train_step


def _cond_skip_step(spec):
    import jax
    import jax.numpy as jnp
    grad_fn = jax_mlp.loss_and_grads_fn(spec.model)
    lr = spec.learning_rate

    def train_step(params, x, y):
        loss, grads = grad_fn(params, x, y)
        finite = jnp.isfinite(loss)
        for g in jax.tree_util.tree_leaves(grads):
            finite = finite & jnp.all(jnp.isfinite(g))
        new_params = jax.lax.cond(
            finite, lambda p, g: common.sgd_update(p, g, lr),
            lambda p, g: p, params, grads)
        return new_params, loss
    return train_step
