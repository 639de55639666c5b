"""BatchNormalization: training vs inference, moving statistics, frozen layers, masks."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients


def test_defaults_weights_order_and_shapes():
    bn = layers.BatchNormalization()
    assert bn.momentum == 0.99 and bn.epsilon == 1e-3 and bn.axis == -1
    bn.build((None, 5, 5, 3))
    assert bn.name == "batch_normalization"
    assert [w.name for w in bn.weights] == ["gamma", "beta", "moving_mean", "moving_variance"]
    assert all(w.shape == (3,) for w in bn.weights)
    assert [w.name for w in bn.trainable_weights] == ["gamma", "beta"]
    np.testing.assert_array_equal(bn.moving_variance.numpy(), np.ones(3))
    np.testing.assert_array_equal(bn.moving_mean.numpy(), np.zeros(3))
    no_params = layers.BatchNormalization(center=False, scale=False)
    no_params.build((None, 4))
    assert [w.name for w in no_params.weights] == ["moving_mean", "moving_variance"]


def test_training_uses_batch_statistics_and_updates_moving_ones():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((16, 4, 4, 3)) * 3 + 2).astype("float32")
    bn = layers.BatchNormalization(momentum=0.9, epsilon=1e-3,
                                   gamma_initializer="random_normal",
                                   beta_initializer="random_normal")
    bn.build(x.shape)
    gamma, beta = bn.gamma.numpy(), bn.beta.numpy()
    y = bn(x, training=True).numpy()
    mean, var = x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2))   # biased variance
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3) * gamma + beta,
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.9 * 0 + 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 * 1 + 0.1 * var, rtol=1e-5)
    moving_mean, moving_var = bn.moving_mean.numpy(), bn.moving_variance.numpy()
    inference = bn(x, training=False).numpy()
    np.testing.assert_allclose(
        inference, (x - moving_mean) / np.sqrt(moving_var + 1e-3) * gamma + beta, rtol=1e-4,
        atol=1e-4)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), moving_mean)   # no update
    bn(x)                                                                # training=None
    np.testing.assert_array_equal(bn.moving_mean.numpy(), moving_mean)


def test_frozen_layer_runs_in_inference_mode():
    x = np.random.default_rng(1).standard_normal((8, 3)).astype("float32") + 5
    bn = layers.BatchNormalization()
    bn.build(x.shape)
    bn.trainable = False
    y = bn(x, training=True).numpy()
    np.testing.assert_allclose(y, x / np.sqrt(1 + 1e-3), rtol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), np.zeros(3))
    assert bn.trainable_weights == [] and len(bn.non_trainable_weights) == 4


def test_channels_first_axis_and_gradients():
    x = np.random.default_rng(2).standard_normal((4, 3, 2, 2))
    bn = layers.BatchNormalization(axis=1, dtype="float64", gamma_initializer="random_normal")
    bn.build(x.shape)
    y = bn(x, training=True).numpy()
    mean, var = x.mean(axis=(0, 2, 3), keepdims=True), x.var(axis=(0, 2, 3), keepdims=True)
    expected = (x - mean) / np.sqrt(var + 1e-3) * bn.gamma.numpy().reshape(1, 3, 1, 1)
    np.testing.assert_allclose(y, expected, atol=1e-10)
    check_gradients(lambda x, g, b: bn(x, training=True), [x, bn.gamma, bn.beta])
    check_gradients(lambda x, g, b: bn(x, training=False), [x, bn.gamma, bn.beta])


def test_mask_excludes_positions_from_statistics():
    x = np.random.default_rng(3).standard_normal((2, 5, 3)).astype("float32")
    mask = np.array([[True] * 3 + [False] * 2, [True] * 5])
    bn = layers.BatchNormalization(momentum=0.0)
    bn(x, training=True, mask=mask)
    kept = np.concatenate([x[0, :3], x[1]])
    np.testing.assert_allclose(bn.moving_mean.numpy(), kept.mean(axis=0), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), kept.var(axis=0), rtol=1e-4)
    with pytest.raises(ValueError, match="mask should have one dimension less"):
        bn(x, training=True, mask=mask[..., None])


def test_fit_updates_moving_stats_and_evaluate_does_not():
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((64, 4)) + 3).astype("float32")
    y = rng.standard_normal((64, 1)).astype("float32")
    model = keras.Sequential([keras.Input((4,)), layers.BatchNormalization(), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    bn = model.layers[0]
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    after_fit = bn.moving_mean.numpy()
    assert np.all(after_fit > 0.05)
    model.evaluate(x, y, verbose=0)
    model.predict(x, verbose=0)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), after_fit)


def test_config_and_errors():
    config = layers.BatchNormalization(axis=1, momentum=0.9, center=False).get_config()
    assert config["axis"] == 1 and config["momentum"] == 0.9 and config["center"] is False
    assert config["synchronized"] is False and "moving_variance_initializer" in config
    assert layers.BatchNormalization.from_config(config).momentum == 0.9
    with pytest.raises(NotImplementedError, match="synchronized=True"):
        layers.BatchNormalization(synchronized=True)
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        layers.BatchNormalization(axis=3).build((None, 4))
