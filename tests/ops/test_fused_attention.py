"""The fused attention op against its per-op reference and finite differences."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
import kerasish.ops.attention as attention_by_ops
from kerasish.ops.fused_attention import attention, attention_reference
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(3)
B, T, S, N, H, HV = 2, 4, 5, 3, 4, 2


def _qkv(dtype="float64", t=T, s=S):
    return (RNG.normal(size=(B, t, N, H)).astype(dtype), RNG.normal(size=(B, s, N, H)).astype(dtype),
            RNG.normal(size=(B, s, N, HV)).astype(dtype))


def _mask(full_row=True):
    mask = RNG.random((B, 1, T, S)) > 0.35
    if full_row:
        mask[1, 0, 2] = False  # a fully masked query row
    return mask


SETTINGS = [
    dict(),
    dict(is_causal=True),
    dict(mask="m", masked_rows="uniform"),
    dict(mask="m", masked_rows="zero"),
    dict(mask="m", masked_rows="zero", dropout_rate=0.4),
    dict(mask="m", bias="b", scale=0.7),
    dict(mask="m", bias="per_item", masked_rows="zero", dropout_rate=0.3),
]


def _resolve(settings):
    settings = dict(settings)
    if settings.get("mask") == "m":
        settings["mask"] = _mask()
    if settings.get("bias") in ("b", "per_item"):
        batch = 1 if settings["bias"] == "b" else B
        settings["bias"] = ops.convert_to_tensor(RNG.normal(size=(batch, N, T, S)))
    if settings.get("dropout_rate"):
        settings["dropout_keep"] = RNG.random((B, N, T, S)) > settings["dropout_rate"]
    return settings


@pytest.fixture(params=["whole_batch", "one_item_chunks"])
def chunking(request, monkeypatch):
    """The fused op on the whole batch at once, or one batch item per chunk (on threads)."""
    if request.param == "one_item_chunks":
        from kerasish.backend.kernels import numpy_kernels
        monkeypatch.setattr(numpy_kernels, "CHUNK_BYTES", 1)
    return request.param


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("return_scores", [False, True])
def test_fused_matches_reference_forward_and_backward(settings, return_scores, chunking):
    settings = _resolve(settings)
    q, k, v = (ops.convert_to_tensor(a) for a in _qkv())
    sources = [q, k, v] + ([settings["bias"]] if "bias" in settings else [])
    results = []
    for fn in (attention, attention_reference):
        with keras.GradientTape() as tape:
            for s in sources:
                tape.watch(s)
            out = fn(q, k, v, return_scores=return_scores, **settings)
            outs = out if return_scores else (out,)
            loss = sum(ops.sum(o * np.cos(np.arange(o.size).reshape(o.shape))) for o in outs)
        results.append([o.numpy() for o in outs] + [g.numpy() for g in tape.gradient(loss, sources)])
    for fused, ref in zip(*results):
        np.testing.assert_allclose(fused, ref, rtol=1e-10, atol=1e-12)


def test_masked_rows_conventions():
    q, k, v = _qkv()
    mask = np.ones((B, 1, T, S), bool)
    mask[0, 0, 1] = False
    _, uniform = attention(q, k, v, mask=mask, return_scores=True)
    _, zero = attention(q, k, v, mask=mask, masked_rows="zero", return_scores=True)
    np.testing.assert_allclose(uniform.numpy()[0, :, 1], np.full((N, S), 1.0 / S))
    np.testing.assert_array_equal(zero.numpy()[0, :, 1], 0.0)
    np.testing.assert_allclose(zero.numpy().sum(-1)[1], 1.0)


@pytest.mark.parametrize("settings", [dict(), dict(mask="m", masked_rows="zero"),
                                      dict(is_causal=True, dropout_rate=0.3)])
def test_fused_gradients_match_finite_differences(settings):
    settings = _resolve(settings)
    check_gradients(lambda q, k, v: attention(q, k, v, **settings), list(_qkv()))


def test_fused_scores_gradient_matches_finite_differences():
    mask = _mask()
    check_gradients(lambda q, k, v: attention(q, k, v, mask=mask, masked_rows="zero",
                                              return_scores=True)[1], list(_qkv()))


@pytest.mark.parametrize("settings", [dict(), dict(mask="m", is_causal=True)])
def test_fused_second_order_matches_finite_differences(settings):
    settings = _resolve(settings)
    check_second_order(lambda q, k, v: attention(q, k, v, **settings), list(_qkv()))


def test_dot_product_attention_matches_per_op_version():
    q = RNG.normal(size=(2, 4, 4, 3)).astype("float32")
    kv = RNG.normal(size=(2, 6, 2, 3)).astype("float32")
    bias = RNG.normal(size=(2, 4, 4, 6)).astype("float32")
    mask = RNG.random((2, 1, 4, 6)) > 0.3
    for kwargs in (dict(), dict(is_causal=True), dict(mask=mask, bias=bias, scale=0.5)):
        np.testing.assert_allclose(
            ops.dot_product_attention(q, kv, kv, **kwargs).numpy(),
            attention_by_ops.dot_product_attention(q, kv, kv, **kwargs).numpy(),
            rtol=1e-5, atol=1e-6)
    unbatched = ops.dot_product_attention(q[0], kv[0], kv[0])
    np.testing.assert_allclose(unbatched.numpy(), ops.dot_product_attention(q, kv, kv).numpy()[0],
                               rtol=1e-6, atol=1e-7)


def test_bad_input_names_the_op_and_argument():
    q, k, v = _qkv()
    with pytest.raises(ValueError, match="ops.attention: query, key and value must be 4-D"):
        attention(q[0], k[0], v[0])
    with pytest.raises(ValueError, match="masked_rows"):
        attention(q, k, v, masked_rows="nan")
    with pytest.raises(ValueError, match="dropout_keep"):
        attention(q, k, v, dropout_rate=0.5)
    with pytest.raises(ValueError, match="multiple of key heads"):
        ops.dot_product_attention(q, k[:, :, :2], v[:, :, :2])
