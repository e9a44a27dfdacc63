"""Data-parallel training steps: an SGD model's batch split over host devices.

jax.jit(shard_map(step, mesh, in_specs=(P(), P("batch"), P("batch")),
out_specs=(P(), P()), check_vma=False)) with the parameters replicated, x and
y split along the batch, and the loss and gradients pmean'd over the "batch"
axis before the update, as a pmap-style step does. JAX lowers it to one global-view module (entry shapes are the global
shapes; collectives inside the manual region). The export runs in a process
of its own with --xla_force_host_platform_device_count set before JAX starts
and the CPU backend (tools/export_jax_hlo.py does this).

The inputs are those of the wrapped model with the same seed, so the
results equal that model's up to the order of the gradient reduction.
"""

import dataclasses

import jax_common as common
import jax_mlp

AXIS = "batch"


@dataclasses.dataclass(frozen=True)
class DataParallelSpec(common.WrapperSpecMixin):
    name: str
    description: str
    model: jax_mlp.MlpSpec  # an SGD model; its batch is the global batch
    num_devices: int = 2
    write_data: bool = True

    def __post_init__(self):
        assert self.model.optimizer == "sgd", self.model.optimizer
        assert self.model.batch % self.num_devices == 0, (
            self.model.batch, self.num_devices)

    @property
    def equivalent_model(self):
        """A single-device model whose results these must match."""
        return self.model

    def make_inputs(self):
        return self.model.make_inputs()

    def facts(self):
        return [
            ("layers", self.model.layers_text),
            ("batch", "%d global, %d per device" % (
                self.model.batch, self.model.batch // self.num_devices)),
            ("devices", "%d host devices on one mesh axis %r; params "
             "replicated (P()), x and y split along the batch "
             "(P(%r)); loss and gradients pmean'd over %r before the update"
             % (self.num_devices, AXIS, AXIS, AXIS)),
            ("lowering", "jax.jit(jax.shard_map(step, mesh=..., in_specs=..., "
             "out_specs=..., check_vma=False)).lower(...).as_text(dialect="
             "\"hlo\"): a global-view module, entry shapes global"),
            ("same_as", "%s (same inputs); references equal its references "
             "up to the gradient reduction order" % self.model.name),
            ("activation", jax_mlp.describe_activation(self.model)),
            ("loss", jax_mlp.describe_loss(self.model)),
            ("optimizer", self.optimizer_text()),
        ]

    def mesh(self):
        """A mesh of the first num_devices devices of JAX's default backend
        (the export's process runs on the CPU backend)."""
        import jax
        import numpy as np
        devices = jax.devices()
        if len(devices) < self.num_devices:
            raise RuntimeError(
                "%s needs %d devices, JAX has %d (%s): run with XLA_FLAGS="
                "--xla_force_host_platform_device_count=%d JAX_PLATFORMS=cpu"
                % (self.name, self.num_devices, len(devices),
                   jax.default_backend(), self.num_devices))
        return jax.sharding.Mesh(np.array(devices[:self.num_devices]), (AXIS,))

    def _specs(self):
        from jax.sharding import PartitionSpec as P
        return (P(), P(AXIS), P(AXIS)), (P(), P())

    def make_train_step(self):
        import jax
        grad_fn = jax_mlp.loss_and_grads_fn(self.model)
        lr = self.learning_rate

        def per_device_step(params, x, y):
            loss, grads = grad_fn(params, x, y)
            loss = jax.lax.pmean(loss, AXIS)
            grads = jax.lax.pmean(grads, AXIS)
            return common.sgd_update(params, grads, lr), loss

        in_specs, out_specs = self._specs()
        return _shard_map(per_device_step, self.mesh(), in_specs, out_specs)

    def place_inputs(self, args):
        """The arguments on the mesh as the step's in_specs lay them out (a
        jit of a shard_map refuses arguments committed to one device)."""
        import jax
        from jax.sharding import NamedSharding
        mesh = self.mesh()
        in_specs, _ = self._specs()
        return tuple(
            jax.tree_util.tree_map(
                lambda a, s=spec: jax.device_put(a, NamedSharding(mesh, s)),
                arg)
            for arg, spec in zip(args, in_specs))


def _shard_map(f, mesh, in_specs, out_specs):
    """jax.shard_map where it exists (JAX 0.6 on), else the experimental one.

    Without the varying-value checks: with them, JAX differentiates a
    replicated parameter through an implicit broadcast whose transpose is a
    psum, so the gradients would arrive summed over devices already and the
    explicit pmean (the pmap-style step this model is) would be wrong."""
    import jax
    if hasattr(jax, "shard_map"):
        return jax.shard_map(f, mesh=mesh, in_specs=in_specs,
                             out_specs=out_specs, check_vma=False)
    from jax.experimental.shard_map import shard_map
    return shard_map(f, mesh, in_specs=in_specs, out_specs=out_specs,
                     check_rep=False)
