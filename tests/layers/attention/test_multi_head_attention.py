"""MultiHeadAttention / GroupedQueryAttention behaviour beyond the Keras fixtures:
float64 gradient checks (first and second order), fused vs einsum paths,
dropout, masks, configs and errors."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(11)


def _f64(*shape):
    return RNG.normal(size=shape).astype("float64")


def _built_mha(**kwargs):
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3, dtype="float64", **kwargs)
    layer(_f64(2, 4, 5), _f64(2, 3, 5))
    return layer


@pytest.mark.parametrize("call_kwargs", [dict(), dict(use_causal_mask=True),
                                         dict(return_attention_scores=True)])
def test_mha_gradients_match_finite_differences(call_kwargs):
    layer = _built_mha()
    mask = RNG.random((2, 4, 3)) > 0.3

    def fn(query, value):
        kwargs = dict(call_kwargs)
        if "use_causal_mask" not in kwargs:
            kwargs["attention_mask"] = mask
        out = layer(query, value, **kwargs)
        return out[0] + ops.sum(out[1]) if isinstance(out, tuple) else out

    value = _f64(2, 4, 5) if call_kwargs.get("use_causal_mask") else _f64(2, 3, 5)
    check_gradients(fn, [_f64(2, 4, 5), value])


def test_mha_weight_gradients_match_finite_differences():
    layer = _built_mha()
    q, v = _f64(2, 4, 5), _f64(2, 3, 5)
    kernel = layer.query_dense.kernel
    check_gradients(lambda k: layer(q, v), [kernel])


def test_mha_second_order_matches_finite_differences():
    layer = _built_mha()
    check_second_order(lambda q, v: layer(q, v), [_f64(2, 4, 5), _f64(2, 3, 5)])


def test_einsum_path_with_other_attention_axes_has_gradients():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(1, 2),
                                      dtype="float64")
    check_gradients(lambda x: layer(x, x), [_f64(1, 2, 3, 4)])


def test_fused_path_matches_einsum_path_inside_the_layer():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    q, v = RNG.normal(size=(2, 4, 6)), RNG.normal(size=(2, 5, 6))
    layer(q, v)
    pq, pk, pv = layer.query_dense(q), layer.key_dense(v), layer.value_dense(v)
    mask = ops.convert_to_tensor(RNG.random((2, 4, 5)) > 0.4)
    fused = layer._compute_attention(pq, pk, pv, mask, return_attention_scores=True)
    by_einsum = layer._compute_attention_by_einsum(pq, pk, pv, mask, training=False)
    for a, b in zip(fused, by_einsum):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_dropout_only_in_training_and_scores_are_before_dropout():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.5, seed=1)
    x = RNG.normal(size=(2, 6, 4)).astype("float32")
    infer, infer_scores = layer(x, x, return_attention_scores=True)
    again = layer(x, x, training=False)
    trained, train_scores = layer(x, x, return_attention_scores=True, training=True)
    np.testing.assert_allclose(infer.numpy(), again.numpy(), rtol=1e-6)
    assert not np.allclose(trained.numpy(), infer.numpy(), atol=1e-3)
    np.testing.assert_allclose(train_scores.numpy(), infer_scores.numpy(), rtol=1e-6)
    with keras.GradientTape() as tape:
        loss = ops.sum(layer(x, x, training=True))
    grads = tape.gradient(loss, layer.trainable_weights)
    assert all(g is not None and np.all(np.isfinite(g.numpy())) for g in grads)


def test_query_keras_mask_goes_to_the_output():
    tokens = np.array([[3, 4, 0, 0], [1, 2, 3, 0]])
    embedded = layers.Embedding(6, 4, mask_zero=True)(tokens)
    out = layers.MultiHeadAttention(num_heads=1, key_dim=2)(embedded, embedded)
    np.testing.assert_array_equal(ops.convert_to_numpy(out._keras_mask), tokens != 0)


def test_gqa_with_as_many_key_heads_equals_mha():
    x = RNG.normal(size=(2, 5, 6)).astype("float32")
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    gqa = layers.GroupedQueryAttention(head_dim=3, num_query_heads=2, num_key_value_heads=2)
    mha(x, x)
    gqa(x, x)
    gqa.set_weights(mha.get_weights())
    np.testing.assert_allclose(gqa(x, x, use_causal_mask=True).numpy(),
                               mha(x, x, use_causal_mask=True).numpy(), rtol=1e-5, atol=1e-6)


def test_config_round_trip_keeps_the_layout():
    layer = layers.MultiHeadAttention(num_heads=3, key_dim=2, value_dim=4, output_shape=7,
                                      use_bias=False, dropout=0.1, attention_axes=None)
    clone = layers.MultiHeadAttention.from_config(layer.get_config())
    x = np.ones((1, 2, 5), "float32")
    layer(x, x)
    clone(x, x)
    assert [tuple(w.shape) for w in clone.weights] == [tuple(w.shape) for w in layer.weights] \
        == [(5, 3, 2), (5, 3, 2), (5, 3, 4), (3, 4, 7)]
    gqa = layers.GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=2)
    assert layers.GroupedQueryAttention.from_config(gqa.get_config()).num_repeats == 2


def test_bad_arguments_name_layer_and_argument():
    with pytest.raises(ValueError, match="num_heads"):
        layers.MultiHeadAttention(num_heads=0, key_dim=2)
    with pytest.raises(ValueError, match="key_dim"):
        layers.MultiHeadAttention(num_heads=2, key_dim="4")
    with pytest.raises(ValueError, match="attention_axes"):
        layers.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes="1")
    with pytest.raises(NotImplementedError, match="flash_attention"):
        layers.MultiHeadAttention(num_heads=2, key_dim=2, flash_attention=True)
    with pytest.raises(ValueError, match="value` and `key`"):
        layers.MultiHeadAttention(num_heads=2, key_dim=2)(np.ones((1, 3, 4)), np.ones((1, 5, 4)),
                                                          np.ones((1, 6, 4)))
    with pytest.raises(ValueError, match="divisible"):
        layers.GroupedQueryAttention(head_dim=2, num_query_heads=3, num_key_value_heads=2)
    with pytest.raises(ValueError, match="list of inputs"):
        layers.Attention()(np.ones((1, 2, 3)))
    with pytest.raises(ValueError, match="score_mode"):
        layers.Attention(score_mode="bilinear")


def test_symbolic_calls_keep_known_lengths_and_accept_masks_as_keras():
    # Keras 3.15.1 printed these shapes (its compute_output_spec does not trace;
    # tracing lost the length 10 and then broke on the padding mask's 10).
    tokens = keras.Input((10,), dtype="int32")
    embedded = keras.layers.Embedding(50, 8, mask_zero=True)(tokens)
    out = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(embedded, embedded)
    assert out.shape == (None, 10, 8)
    q, v = keras.Input((5, 8)), keras.Input((7, 6))
    out, scores = keras.layers.MultiHeadAttention(num_heads=3, key_dim=4, output_shape=(11,))(
        q, v, return_attention_scores=True)
    assert out.shape == (None, 5, 11) and scores.shape == (None, 3, 5, 5)
    out, scores = keras.layers.GroupQueryAttention(
        head_dim=4, num_query_heads=4, num_key_value_heads=2)(
        q, keras.Input((7, 8)), return_attention_scores=True)
    assert out.shape == (None, 5, 8) and scores.shape == (None, 4, 5, 7)
    mask = keras.Input((5, 5), dtype="bool")
    assert keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(
        q, q, attention_mask=mask).shape == (None, 5, 8)


def test_call_deletes_the_inputs_keras_masks():
    # Keras 3.15.1 (TensorFlow), /tmp/probe4/mhaclr.py and mhaclr3.py:
    # MultiHeadAttention.call reads the masks, then sets the query/value/key
    # masks to None, so a later layer on the same tensor sees no mask; the
    # output keeps the query's mask.
    ids = np.array([[1, 2, 0, 0]])
    x = keras.layers.Embedding(10, 4, mask_zero=True)(ids)
    pool = keras.layers.GlobalAveragePooling1D()
    masked = pool(x).numpy()
    out = keras.layers.MultiHeadAttention(2, 2)(x, x)
    assert x._keras_mask is None and out._keras_mask.numpy().tolist() == [[True, True, False,
                                                                           False]]
    np.testing.assert_allclose(pool(x).numpy(), x.numpy().mean(axis=1), rtol=1e-6)
    assert not np.allclose(pool(x).numpy(), masked)
