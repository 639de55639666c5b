"""kerasish.ops.dot_product_attention against a numpy reference."""
import numpy as np
import pytest
from scipy import special

from kerasish import ops
from kerasish.testing import check_gradients

RNG = np.random.default_rng(12)


def _reference(q, k, v, mask=None, causal=False, scale=None):
    n_rep = q.shape[2] // k.shape[2]
    k, v = np.repeat(k, n_rep, axis=2), np.repeat(v, n_rep, axis=2)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    logits = np.einsum("btnh,bsnh->bnts", q, k) * scale
    keep = np.ones(logits.shape, bool) if mask is None else np.broadcast_to(mask, logits.shape)
    if causal:
        keep = keep & np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(keep, logits, -1e30)
    return np.einsum("bnts,bsnh->btnh", special.softmax(logits, -1), v)


@pytest.mark.parametrize("heads_q, heads_kv", [(2, 2), (4, 2)])
@pytest.mark.parametrize("causal", [False, True])
def test_values(heads_q, heads_kv, causal):
    q = RNG.standard_normal((2, 3, heads_q, 4))
    k, v = RNG.standard_normal((2, 3, heads_kv, 4)), RNG.standard_normal((2, 3, heads_kv, 4))
    out = ops.dot_product_attention(q, k, v, is_causal=causal)
    np.testing.assert_allclose(out.numpy(), _reference(q, k, v, causal=causal), rtol=1e-10)


def test_mask_bias_scale_unbatched_and_gradients():
    q, k, v = (RNG.standard_normal((1, 3, 2, 2)) for _ in range(3))
    mask = RNG.uniform(size=(1, 1, 3, 3)) > 0.3
    mask[..., 0] = True
    out = ops.dot_product_attention(q, k, v, mask=mask, scale=0.7)
    np.testing.assert_allclose(out.numpy(), _reference(q, k, v, mask=mask, scale=0.7), rtol=1e-10)
    bias = np.zeros((1, 2, 3, 3))
    np.testing.assert_allclose(ops.dot_product_attention(q, k, v, bias=bias).numpy(), _reference(q, k, v))
    single = ops.dot_product_attention(q[0], k[0], v[0])
    np.testing.assert_allclose(single.numpy(), _reference(q, k, v)[0])
    check_gradients(lambda q, k, v: ops.dot_product_attention(q, k, v, is_causal=True), [q, k, v])
    with pytest.raises(ValueError, match="ops.dot_product_attention.*multiple"):
        ops.dot_product_attention(RNG.standard_normal((1, 2, 3, 2)), k[:, :2], v[:, :2])
    with pytest.raises(NotImplementedError, match="flash_attention"):
        ops.dot_product_attention(q, k, v, flash_attention=True)
