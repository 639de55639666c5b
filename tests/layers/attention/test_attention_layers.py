"""Attention and AdditiveAttention beyond the Keras fixtures: float64 gradient
checks with masks, dropout, output masks and configs."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients

RNG = np.random.default_rng(21)
Q_MASK = np.array([[1, 1, 0], [1, 1, 1]], bool)
V_MASK = np.array([[1, 1, 1, 0], [0, 1, 1, 1]], bool)


@pytest.mark.parametrize("make", [
    lambda: layers.Attention(use_scale=True, dtype="float64"),
    lambda: layers.Attention(score_mode="concat", use_scale=True, dtype="float64"),
    lambda: layers.AdditiveAttention(dtype="float64"),
])
def test_gradients_with_masks_match_finite_differences(make):
    layer = make()
    q, v, k = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 4, 4)), RNG.normal(size=(2, 4, 4))
    layer([q, v, k])
    check_gradients(lambda q, v, k: layer([q, v, k], mask=[Q_MASK, V_MASK]), [q, v, k])
    check_gradients(lambda *w: layer([q, v, k], mask=[Q_MASK, V_MASK]), list(layer.weights))


def test_dropout_applies_in_training_only():
    layer = layers.Attention(dropout=0.5, seed=3)
    q, v = RNG.normal(size=(2, 6, 4)).astype("float32"), RNG.normal(size=(2, 8, 4)).astype("float32")
    infer, weights = layer([q, v], return_attention_scores=True)
    np.testing.assert_allclose(weights.numpy().sum(-1), 1.0, rtol=1e-5)
    trained, dropped = layer([q, v], return_attention_scores=True, training=True)
    assert (dropped.numpy() == 0).mean() > 0.2
    assert not np.allclose(trained.numpy(), infer.numpy())


def test_configs_round_trip():
    for layer in (layers.Attention(use_scale=True, score_mode="concat", dropout=0.1, seed=2),
                  layers.AdditiveAttention(use_scale=False)):
        config = layer.get_config()
        assert type(layer).from_config(config).get_config() == config
    assert "score_mode" not in layers.AdditiveAttention().get_config()


@pytest.mark.parametrize("cls", [keras.layers.Attention, keras.layers.AdditiveAttention])
def test_symbolic_call_returns_the_scores_too(cls):
    """Keras 3.15.1 (probe12 session, attn2.py/attn.py): on KerasTensors,
    `return_attention_scores=True` gives `(output, scores)` with scores
    `(batch, Tq, Tv)`, so `out, scores = layer([q, v], ...)` works in a functional
    model."""
    q = keras.Input((4, 3))
    v = keras.Input((6, 3))
    out, scores = cls()([q, v], return_attention_scores=True)
    assert out.shape == (None, 4, 3) and scores.shape == (None, 4, 6)
    model = keras.Model([q, v], [out, scores])
    got_out, got_scores = model.predict([np.ones((2, 4, 3)), np.ones((2, 6, 3))], verbose=0)
    assert got_out.shape == (2, 4, 3)
    np.testing.assert_allclose(got_scores, np.full((2, 4, 6), 1 / 6), rtol=1e-6)
