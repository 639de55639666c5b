"""Attention and AdditiveAttention beyond the Keras fixtures: float64 gradient
checks with masks, dropout, output masks and configs."""
import numpy as np
import pytest

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
