"""GPT-style decoder language models, written as JAX users write them.

Token embedding by indexing (emb[tokens], a gather; its gradient a
scatter-add), learned position embedding, pre-LayerNorm blocks of causal
multi-head self-attention (one qkv projection split and reshaped to heads,
einsum scores and weighted values, jnp.where with a tril mask, softmax) and a
gelu MLP, a final LayerNorm, an untied unembedding, and cross-entropy over
integer targets picked with jnp.take_along_axis; Adam updates every parameter.

bf16 models keep f32 master weights and optimizer state; the step rounds
weights and activations to bf16 for every matmul (einsum with
preferred_element_type=f32: bf16 operands, f32 accumulation and result, then
rounded to bf16), and computes layer norm, the attention softmax, the logits'
log-softmax and the loss in f32.

Pytree layout (entry parameter order):
  params  (emb[vocab, d], pos[seq, d],
           blocks: list over layers of
             (ln1_gamma[d], ln1_beta[d], w_qkv[d, 3d], b_qkv[3d],
              w_out[d, d], b_out[d], ln2_gamma[d], ln2_beta[d],
              w_fc[d, m], b_fc[m], w_proj[m, d], b_proj[d]),
           lnf_gamma[d], lnf_beta[d], w_unembed[d, vocab])
  opt_state (m, v, count)  shaped like params, count f32[]
  tokens s32[batch, seq], targets s32[batch, seq] (tokens shifted by one)
  train_step (params, opt_state, tokens, targets)
             -> (params, opt_state, loss f32[])
"""

import dataclasses
import math

import numpy as np

import jax_common as common

DTYPES = ("f32", "bf16")
MASK_VALUE = -1e9  # where the causal mask hides a score; exp() gives 0


@dataclasses.dataclass(frozen=True)
class TransformerSpec(common.SpecMixin):
    name: str
    description: str
    vocab: int
    seq: int
    d_model: int
    layers: int
    heads: int
    batch: int
    mlp_ratio: int = 4
    dtype: str = "f32"  # of activations and matmul operands
    optimizer: str = "adam"
    learning_rate: float = 1e-3
    seed: int = 0
    write_data: bool = True
    data_budget_kb: int = common.DEFAULT_DATA_BUDGET_KB

    batch_names = ("tokens", "targets")

    def __post_init__(self):
        assert self.dtype in DTYPES, self.dtype
        assert self.optimizer in common.OPTIMIZERS, self.optimizer
        assert self.d_model % self.heads == 0, (self.d_model, self.heads)

    @property
    def head_dim(self):
        return self.d_model // self.heads

    @property
    def mlp_width(self):
        return self.mlp_ratio * self.d_model

    @property
    def matmul_precision(self):
        return "highest" if self.dtype == "f32" else "default"

    @property
    def precision_text(self):
        if self.dtype == "f32":
            return common.F32_PRECISION_TEXT
        return ("bf16 mixed precision: f32 master weights and Adam state; "
                "weights and activations rounded to bf16 for every matmul "
                "(einsum of bf16 operands with preferred_element_type=f32, "
                "the result rounded to bf16); layer norm, attention softmax, "
                "log-softmax and loss in f32; dots at default precision")

    def make_inputs(self):
        rng = np.random.default_rng(self.seed)
        params = init_params(self, rng)
        sequence = rng.integers(0, self.vocab, (self.batch, self.seq + 1))
        tokens = np.ascontiguousarray(sequence[:, :-1], dtype=np.int32)
        targets = np.ascontiguousarray(sequence[:, 1:], dtype=np.int32)
        return self.with_optimizer_state(params, tokens, targets)

    def make_train_step(self):
        import jax
        grad_fn = jax.value_and_grad(lambda p, t, y: loss_fn(self, p, t, y))
        return common.wrap_step_with_optimizer(self, grad_fn)

    def parameter_count(self):
        d, m = self.d_model, self.mlp_width
        block = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d + \
            (d * m + m) + (m * d + d)
        return (self.vocab * d + self.seq * d + self.layers * block + 2 * d +
                d * self.vocab)

    def facts(self):
        facts = [
            ("layers", "%d pre-LayerNorm decoder blocks, d_model %d, %d heads "
             "of %d, mlp %d, vocab %d, seq %d; learned position embedding, "
             "final LayerNorm, untied unembedding (no bias)" % (
                 self.layers, self.d_model, self.heads, self.head_dim,
                 self.mlp_width, self.vocab, self.seq)),
            ("batch", "%d sequences of %d tokens" % (self.batch, self.seq)),
            ("embedding", "emb[tokens] (gather; gradient a scatter-add) plus "
             "pos"),
            ("attention", "causal: qkv = x @ w_qkv + b split in three, "
             "reshaped to [batch, seq, heads, head_dim]; scores einsum "
             "bqhd,bkhd->bhqk times 1/sqrt(head_dim), jnp.where(tril mask, "
             "scores, %g), softmax over keys, einsum bhqk,bkhd->bqhd"
             % MASK_VALUE),
            ("activation", "mlp: " + common.GELU_TANH_TEXT),
            ("layer_norm", "scale and bias, eps %g, before attention, before "
             "the mlp and after the last block" % common.LAYER_NORM_EPS),
            ("loss", "cross-entropy over integer targets: -mean over batch "
             "and positions of take_along_axis(log_softmax(logits), targets)"),
            ("optimizer", self.optimizer_text() + ", every parameter"),
            ("inputs", "tokens and targets s32[%d,%d] uniform in [0, %d); "
             "targets are the tokens shifted by one" % (
                 self.batch, self.seq, self.vocab)),
        ]
        if self.dtype == "bf16":
            facts.append(("tolerance", "bf16: the references come from JAX's "
                          "CPU backend; another backend rounds bf16 "
                          "differently, so compare at bf16 tolerance (about "
                          "1e-2 of each output's largest magnitude)"))
        return facts


def init_params(spec, rng):
    """Embeddings N(0, 1) and N(0, 0.25); LeCun-normal matmul weights (so
    attention is not uniform from the start); small random biases and
    perturbed layer-norm scales so every gradient path matters."""
    d, m, vocab = spec.d_model, spec.mlp_width, spec.vocab
    emb = common.f32(rng.standard_normal((vocab, d)))
    pos = common.f32(0.5 * rng.standard_normal((spec.seq, d)))
    blocks = []
    for _ in range(spec.layers):
        ln1 = common.layer_norm_params(rng, d)
        w_qkv = common.lecun_normal(rng, (d, 3 * d), d)
        b_qkv = common.small_bias(rng, 3 * d)
        w_out = common.lecun_normal(rng, (d, d), d)
        b_out = common.small_bias(rng, d)
        ln2 = common.layer_norm_params(rng, d)
        w_fc = common.lecun_normal(rng, (d, m), d)
        b_fc = common.small_bias(rng, m)
        w_proj = common.lecun_normal(rng, (m, d), m)
        b_proj = common.small_bias(rng, d)
        blocks.append(ln1 + (w_qkv, b_qkv, w_out, b_out) + ln2 +
                      (w_fc, b_fc, w_proj, b_proj))
    lnf = common.layer_norm_params(rng, d)
    w_unembed = common.lecun_normal(rng, (d, vocab), d)
    return (emb, pos, blocks) + lnf + (w_unembed,)


# ---------------------------------------------------------------------------
# JAX step


class _Compute:
    """How the spec's matmuls and layer norms run."""

    def __init__(self, spec):
        import jax
        import jax.numpy as jnp
        self.dtype = jnp.float32 if spec.dtype == "f32" else jnp.bfloat16
        self.precision = (jax.lax.Precision.HIGHEST if spec.dtype == "f32"
                          else jax.lax.Precision.DEFAULT)

    def einsum(self, subscripts, a, b):
        """Operands in the compute type, f32 accumulation and result."""
        import jax.numpy as jnp
        return jnp.einsum(subscripts, a.astype(self.dtype),
                          b.astype(self.dtype), precision=self.precision,
                          preferred_element_type=jnp.float32)

    def dense(self, x, w, b):
        return (self.einsum("...d,de->...e", x, w) + b).astype(self.dtype)

    def layer_norm(self, x, gamma, beta):
        import jax.numpy as jnp
        return common.layer_norm(x.astype(jnp.float32), gamma,
                                 beta).astype(self.dtype)


def _attention(spec, c, block, x, mask):
    import jax
    import jax.numpy as jnp
    _, _, w_qkv, b_qkv, w_out, b_out = block[:6]
    batch, seq, _ = x.shape
    qkv = c.dense(x, w_qkv, b_qkv)
    q, k, v = jnp.split(qkv, 3, axis=-1)
    heads = (batch, seq, spec.heads, spec.head_dim)
    q, k, v = q.reshape(heads), k.reshape(heads), v.reshape(heads)
    scores = c.einsum("bqhd,bkhd->bhqk", q, k) * (1.0 /
                                                   math.sqrt(spec.head_dim))
    scores = jnp.where(mask, scores, MASK_VALUE)
    probs = jax.nn.softmax(scores, axis=-1)
    out = c.einsum("bhqk,bkhd->bqhd", probs, v).astype(c.dtype)
    return c.dense(out.reshape(batch, seq, spec.d_model), w_out, b_out)


def _mlp(c, block, x):
    w_fc, b_fc, w_proj, b_proj = block[8:12]
    return c.dense(common.gelu_tanh(c.dense(x, w_fc, b_fc)), w_proj, b_proj)


def forward(spec, params, tokens):
    """f32 logits [batch, seq, vocab]."""
    import jax.numpy as jnp
    c = _Compute(spec)
    emb, pos, blocks, lnf_gamma, lnf_beta, w_unembed = params
    x = (emb[tokens] + pos).astype(c.dtype)
    mask = jnp.tril(jnp.ones((spec.seq, spec.seq), dtype=jnp.bool_))
    for block in blocks:
        x = x + _attention(spec, c, block, c.layer_norm(x, *block[0:2]), mask)
        x = x + _mlp(c, block, c.layer_norm(x, *block[6:8]))
    x = c.layer_norm(x, lnf_gamma, lnf_beta)
    return c.einsum("bsd,dv->bsv", x, w_unembed)


def loss_fn(spec, params, tokens, targets):
    import jax
    import jax.numpy as jnp
    log_probs = jax.nn.log_softmax(forward(spec, params, tokens), axis=-1)
    picked = jnp.take_along_axis(log_probs, targets[..., None], axis=-1)
    return -jnp.mean(picked)
