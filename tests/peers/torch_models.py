"""PyTorch versions of the step-time peers' models (tools/jax_models.py).

Each model starts from the spec's own NumPy inputs (spec.make_inputs(), the
numbers the JAX export uses), keeps every parameter in the JAX layout where
PyTorch computes with it directly (dense weights [in, out], y = x @ w + b),
and computes the JAX model's loss; the optimizer is the spec's:

- SGD: torch._foreach_add_(params, grads, alpha=-lr).
- Adam: torch.optim.Adam with the JAX model's lr, betas and eps (its update
  p - lr * (m / (1 - b1^t)) / (sqrt(v) / sqrt(1 - b2^t) + eps) is the JAX
  model's), fused=True (one multi-tensor kernel) or foreach=True;
  capturable=True when the step is captured in a CUDA graph.

Families: MLPs (jax_mlp), GPT-style decoders (jax_transformer, f32 and bf16
mixed precision) and CNNs (jax_cnn, channels_last).
"""

import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import jax_cnn  # noqa: E402
import jax_common  # noqa: E402
import jax_mlp  # noqa: E402
import jax_models  # noqa: E402,F401  (the registry; torch_step uses it)
import jax_transformer  # noqa: E402

ADAM_IMPLEMENTATIONS = ("fused", "foreach")
_POOL = 2  # jax_cnn's pooling window and stride


def build(spec, device, adam="fused", capturable=False):
    """The PyTorch model of a spec of tools/jax_models.py."""
    for family, model in ((jax_mlp.MlpSpec, Mlp),
                          (jax_transformer.TransformerSpec, Transformer),
                          (jax_cnn.CnnSpec, Cnn)):
        if isinstance(spec, family):
            return model(spec, device, adam, capturable)
    raise ValueError("no PyTorch peer for %s (%s)" % (
        spec.name, type(spec).__name__))


class TrainedModel:
    """A model trained on one fixed batch, as the JAX peer trains.

    Subclasses set self.params (leaf tensors in the order of the JAX
    parameter pytree's leaves) and define loss()."""

    def __init__(self, spec, params, adam, capturable):
        self.spec = spec
        self.params = params
        self._update = _make_update(spec, params, adam, capturable)

    def loss(self):
        raise NotImplementedError

    def step(self):
        """Forward, backward, update; returns the loss before the update."""
        for p in self.params:
            p.grad = None  # backward allocates (a captured step: in its pool)
        loss = self.loss()
        loss.backward()
        with torch.no_grad():
            self._update()
        return loss

    def jax_params(self):
        """The parameters as NumPy arrays in the JAX pytree's leaf order
        and layouts."""
        return [p.detach().to("cpu", copy=True).numpy() for p in self.params]


def _make_update(spec, params, adam, capturable):
    if spec.optimizer == "sgd":
        lr = spec.learning_rate

        def sgd():
            torch._foreach_add_(params, [p.grad for p in params], alpha=-lr)
        return sgd
    if adam not in ADAM_IMPLEMENTATIONS:
        raise ValueError("Adam implementation %r is not one of %s"
                         % (adam, ADAM_IMPLEMENTATIONS))
    optimizer = torch.optim.Adam(
        params, lr=spec.learning_rate,
        betas=(jax_common.ADAM_B1, jax_common.ADAM_B2),
        eps=jax_common.ADAM_EPS, capturable=capturable,
        fused=(adam == "fused"), foreach=(adam == "foreach"))
    return optimizer.step


def _params_and_batch(spec, device, layout=lambda t: t):
    """(parameter leaves as trainable tensors, batch tensors); layout(t)
    turns a parameter from the JAX layout into the one computed with."""
    args = spec.make_inputs()
    params = [layout(torch.tensor(a, device=device)).requires_grad_()
              for a in jax_common.tree_leaves(args[0])]
    batch = [torch.tensor(a, device=device)
             for a in args[len(spec.donate_argnums):]]
    return params, batch


def _softmax_cross_entropy(logits, one_hot):
    """-mean over the batch of sum(one_hot * log_softmax(logits))."""
    return F.cross_entropy(logits, one_hot)


# ---------------------------------------------------------------------------
# MLP


class Mlp(TrainedModel):
    """jax_mlp: per layer w[in, out], b[out] (and gamma, beta of the hidden
    layers of a layer-norm model)."""

    def __init__(self, spec, device, adam, capturable):
        params, (self.x, self.y) = _params_and_batch(spec, device)
        super().__init__(spec, params, adam, capturable)
        per_hidden = 4 if spec.layer_norm else 2
        self.layers = []
        for i in range(len(spec.sizes) - 1):
            last = i == len(spec.sizes) - 2
            count = 2 if last else per_hidden
            start = i * per_hidden
            self.layers.append(params[start:start + count])

    def _activation(self, h):
        if self.spec.activation == "relu":
            return torch.relu(h)
        if self.spec.activation == "tanh":
            return torch.tanh(h)
        return F.gelu(h, approximate="tanh")

    def loss(self):
        h = self.x
        for i, layer in enumerate(self.layers):
            h = torch.addmm(layer[1], h, layer[0])
            if i < len(self.layers) - 1:
                if self.spec.layer_norm:
                    h = F.layer_norm(h, h.shape[-1:], layer[2], layer[3],
                                     eps=jax_common.LAYER_NORM_EPS)
                h = self._activation(h)
        if self.spec.loss == "softmax_ce":
            return _softmax_cross_entropy(h, self.y)
        return torch.mean((h - self.y) ** 2)


# ---------------------------------------------------------------------------
# Transformer


class Transformer(TrainedModel):
    """jax_transformer: a pre-LayerNorm GPT-style decoder.

    bf16 mixed precision follows the JAX model's casts one by one (explicit
    casts rather than torch.autocast, which would keep the residual stream
    in f32 where the JAX model rounds it to bf16): f32 master weights, each
    matmul on bf16 operands accumulating in f32; the residual stream, the
    qkv, attention output and mlp activations in bf16; layer norm, the
    attention softmax, log-softmax and the loss in f32. A bf16 matmul here
    rounds its result to bf16 where the JAX einsum returns f32 before the
    next cast, which differs in three places: the bias is added to the
    f32 accumulator in bf16 (the JAX model adds it in f32, then rounds),
    and the attention scores and the logits are rounded to bf16 before
    their f32 softmax. In f32 every cast is a no-op."""

    def __init__(self, spec, device, adam, capturable):
        params, (tokens, targets) = _params_and_batch(spec, device)
        super().__init__(spec, params, adam, capturable)
        self.tokens = tokens.long()
        self.targets = targets.long().unsqueeze(-1)
        self.dtype = torch.float32 if spec.dtype == "f32" else torch.bfloat16
        self.emb, self.pos = params[0], params[1]
        per_block = 12
        self.blocks = [params[2 + i * per_block:2 + (i + 1) * per_block]
                       for i in range(spec.layers)]
        self.lnf_gamma, self.lnf_beta, self.w_unembed = params[-3:]
        seq = spec.seq
        # True where a query may not see a key (a later position).
        self.hidden = ~torch.tril(torch.ones(seq, seq, dtype=torch.bool,
                                             device=device))

    def _dense(self, x, w, b):
        """x @ w + b on compute-type operands, f32 accumulation."""
        lead = x.shape[:-1]
        y = torch.addmm(b.to(self.dtype), x.reshape(-1, x.shape[-1]),
                        w.to(self.dtype))
        return y.reshape(*lead, w.shape[1])

    def _layer_norm(self, x, gamma, beta):
        y = F.layer_norm(x.float(), x.shape[-1:], gamma, beta,
                         eps=jax_common.LAYER_NORM_EPS)
        return y.to(self.dtype)

    def _attention(self, block, x):
        w_qkv, b_qkv, w_out, b_out = block[2:6]
        spec = self.spec
        batch, seq, d = x.shape
        q, k, v = self._dense(x, w_qkv, b_qkv).split(d, dim=-1)
        # [batch, heads, seq, head_dim]
        q, k, v = (t.reshape(batch, seq, spec.heads, spec.head_dim)
                   .transpose(1, 2) for t in (q, k, v))
        scores = torch.matmul(q, k.transpose(-1, -2)).float()
        scores = scores * (1.0 / math.sqrt(spec.head_dim))
        scores = scores.masked_fill(self.hidden, jax_transformer.MASK_VALUE)
        probs = torch.softmax(scores, dim=-1)
        out = torch.matmul(probs.to(self.dtype), v)
        out = out.transpose(1, 2).reshape(batch, seq, d)
        return self._dense(out, w_out, b_out)

    def _mlp(self, block, x):
        w_fc, b_fc, w_proj, b_proj = block[8:12]
        h = F.gelu(self._dense(x, w_fc, b_fc), approximate="tanh")
        return self._dense(h, w_proj, b_proj)

    def logits(self):
        """f32 logits [batch, seq, vocab]."""
        x = (F.embedding(self.tokens, self.emb) + self.pos).to(self.dtype)
        for block in self.blocks:
            x = x + self._attention(block, self._layer_norm(x, *block[0:2]))
            x = x + self._mlp(block, self._layer_norm(x, *block[6:8]))
        x = self._layer_norm(x, self.lnf_gamma, self.lnf_beta)
        return torch.matmul(x, self.w_unembed.to(self.dtype)).float()

    def loss(self):
        log_probs = torch.log_softmax(self.logits(), dim=-1)
        picked = torch.take_along_dim(log_probs, self.targets, dim=-1)
        return -picked.mean()


# ---------------------------------------------------------------------------
# CNN


def _kernel_layout(t):
    """A JAX HWIO kernel as a PyTorch conv weight [out, in, kh, kw] stored
    channels_last; other parameters as they are."""
    if t.dim() != 4:
        return t
    return t.permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)


class Cnn(TrainedModel):
    """jax_cnn on channels_last tensors (logically NCHW, stored NHWC as the
    JAX model's arrays are). Conv weights are PyTorch's [out, in, kh, kw]
    (channels_last); dense weights stay [in, out]."""

    def __init__(self, spec, device, adam, capturable):
        params, (x, self.y) = _params_and_batch(spec, device, _kernel_layout)
        super().__init__(spec, params, adam, capturable)
        self.x = x.permute(0, 3, 1, 2).contiguous(
            memory_format=torch.channels_last)

    def jax_params(self):
        arrays = super().jax_params()
        return [a.transpose(2, 3, 1, 0) if a.ndim == 4 else a for a in arrays]

    def _logits(self):
        x = self.x
        remaining = list(self.params)
        saved = None
        for layer in self.spec.layers:
            kind = layer[0]
            if kind in ("conv", "depthwise"):
                w, b = remaining.pop(0), remaining.pop(0)
                padding = (layer[3] if kind == "conv" else layer[2]).lower()
                groups = 1 if kind == "conv" else x.shape[1]
                x = F.conv2d(x, w, b, padding=padding, groups=groups)
            elif kind == "max_pool":
                x = F.max_pool2d(x, _POOL)
            elif kind == "avg_pool":
                x = F.avg_pool2d(x, _POOL)
            elif kind == "global_avg_pool":
                x = x.mean(dim=(2, 3))
            elif kind == "flatten":  # in the JAX model's (h, w, c) order
                x = x.permute(0, 2, 3, 1).reshape(x.shape[0], -1)
            elif kind == "dense":
                w, b = remaining.pop(0), remaining.pop(0)
                x = torch.addmm(b, x, w)
            elif kind == "save":
                saved = x
            elif kind == "add_saved":
                x = x + saved
            else:
                x = torch.relu(x)
        return x

    def loss(self):
        return _softmax_cross_entropy(self._logits(), self.y)
