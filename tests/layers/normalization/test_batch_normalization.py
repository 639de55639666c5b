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
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        layers.BatchNormalization(axis=3).build((None, 4))


def test_mask_with_size_one_axes_counts_every_covered_element():
    # Keras 3.15 broadcasts the mask to the inputs before summing the weights:
    # constant inputs give a zero batch variance and outputs of zero.
    bn = layers.BatchNormalization(momentum=0.0)
    y = bn(np.ones((1, 2, 3, 4), "float32"), training=True, mask=np.ones((1, 2, 1), "float32"))
    np.testing.assert_allclose(y.numpy(), 0.0, atol=1e-6)
    np.testing.assert_allclose(bn.moving_mean.numpy(), np.ones(4), atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), np.zeros(4), atol=1e-6)


def test_renorm_weights_initial_values_and_config():
    bn = layers.BatchNormalization(renorm=True,
                                   moving_variance_initializer=keras.initializers.Constant(4.0))
    bn.build((None, 5))
    assert [w.name for w in bn.non_trainable_weights] == [
        "moving_mean", "moving_variance", "moving_stddev", "renorm_mean", "renorm_stddev"]
    np.testing.assert_allclose(bn.moving_stddev.numpy(), np.full(5, 2.0))
    np.testing.assert_allclose(bn.renorm_stddev.numpy(), np.full(5, 2.0))
    np.testing.assert_allclose(bn.renorm_mean.numpy(), np.zeros(5))
    config = layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 3.0},
                                       renorm_momentum=0.95).get_config()
    assert (config["renorm"], config["renorm_clipping"], config["renorm_momentum"]) == (
        True, {"rmax": 3.0}, 0.95)
    assert layers.BatchNormalization.from_config(config).get_config() == config
    plain = layers.BatchNormalization().get_config()
    assert (plain["renorm"], plain["renorm_clipping"], plain["renorm_momentum"]) == (
        False, None, 0.99)


def test_renorm_clipping_validation():
    with pytest.raises(ValueError, match="Received invalid keys for `renorm_clipping`"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"random_key": 1.0})
    with pytest.raises(ValueError, match="rmax should be greater than rmin.*rmax=0.0, rmin=1.0"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 0.0, "rmin": 1.0})
    with pytest.raises(ValueError, match="dmax should be non-negative.*dmax=-1.0"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"dmax": -1.0})


def _renorm_layer(clipping=None):
    bn = layers.BatchNormalization(epsilon=1e-3, momentum=0.9, renorm=True,
                                   renorm_momentum=0.8, renorm_clipping=clipping)
    bn.build((None, 3))
    bn.moving_mean.assign([0.5, -0.2, 0.1])
    bn.moving_variance.assign([1.2, 0.7, 2.0])
    bn.moving_stddev.assign(np.sqrt([1.2, 0.7, 2.0]))
    bn.renorm_mean.assign([0.3, 1.0, -0.5])
    bn.renorm_stddev.assign([1.5, 0.8, 2.5])
    bn.gamma.assign([1.1, 0.9, 1.05])
    bn.beta.assign([0.1, -0.1, 0.0])
    return bn


def test_renorm_training_output_and_statistics():
    # Batch Renormalization (Ioffe 2017), as in Keras's test_renorm_correctness:
    # y = ((x - mu) / sigma * r + d) * gamma + beta, r = sigma / renorm_stddev,
    # d = (mu - renorm_mean) / renorm_stddev with the statistics before the update.
    x = np.array([[4.0, 6.0, 2.0], [8.0, -2.0, 5.0], [6.0, 4.0, 3.0]], "float32")
    bn = _renorm_layer()
    mu, sigma = x.mean(0), np.sqrt(x.var(0) + 1e-3)
    r = sigma / np.array([1.5, 0.8, 2.5])
    d = (mu - np.array([0.3, 1.0, -0.5])) / np.array([1.5, 0.8, 2.5])
    expected = ((x - mu) / sigma * r + d) * np.array([1.1, 0.9, 1.05]) + [0.1, -0.1, 0.0]
    np.testing.assert_allclose(bn(x, training=True).numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(bn.renorm_mean.numpy(), 0.8 * np.array([0.3, 1.0, -0.5]) + 0.2 * mu,
                               atol=1e-5)
    np.testing.assert_allclose(bn.renorm_stddev.numpy(),
                               0.8 * np.array([1.5, 0.8, 2.5]) + 0.2 * sigma, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.9 * np.array([0.5, -0.2, 0.1]) + 0.1 * mu,
                               atol=1e-5)
    stddev = 0.9 * np.sqrt([1.2, 0.7, 2.0]) + 0.1 * sigma
    np.testing.assert_allclose(bn.moving_stddev.numpy(), stddev, atol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), stddev ** 2 - 1e-3, atol=1e-5)
    # inference is plain batch normalization with the moving statistics
    plain = layers.BatchNormalization(epsilon=1e-3)
    plain.build((None, 3))
    for name in ("gamma", "beta", "moving_mean", "moving_variance"):
        getattr(plain, name).assign(getattr(bn, name).numpy())
    np.testing.assert_allclose(bn(x).numpy(), plain(x).numpy(), atol=1e-6)


def test_renorm_clipping_clips_r_and_d():
    x = np.array([[4.0, 6.0, 2.0], [8.0, -2.0, 5.0], [6.0, 4.0, 3.0]], "float32")
    bn = _renorm_layer({"rmax": 1.5, "rmin": 0.9, "dmax": 0.5})
    mu, sigma = x.mean(0), np.sqrt(x.var(0) + 1e-3)
    r = np.clip(sigma / np.array([1.5, 0.8, 2.5]), 0.9, 1.5)
    d = np.clip((mu - np.array([0.3, 1.0, -0.5])) / np.array([1.5, 0.8, 2.5]), -0.5, 0.5)
    expected = ((x - mu) / sigma * r + d) * np.array([1.1, 0.9, 1.05]) + [0.1, -0.1, 0.0]
    np.testing.assert_allclose(bn(x, training=True).numpy(), expected, atol=1e-5)


def test_renorm_gradient_holds_r_and_d_constant():
    # r and d carry no gradient: d/dx equals the finite-difference gradient of
    # plain batch normalization with scale gamma * r0 (r0 from this batch).
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((6, 3)), rng.standard_normal((6, 3))
    bn = layers.BatchNormalization(renorm=True, dtype="float64")
    bn.build(x.shape)
    bn.renorm_stddev.assign([1.5, 0.8, 2.5])
    r0 = np.sqrt(x.var(0) + 1e-3) / np.array([1.5, 0.8, 2.5])

    def plain(v):
        return np.sum(w * (v - v.mean(0)) / np.sqrt(v.var(0) + 1e-3) * r0)

    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = 1e-6
        numeric[i] = (plain(x + step) - plain(x - step)) / 2e-6
    xt = keras.ops.convert_to_tensor(x)
    with keras.GradientTape() as tape:
        tape.watch(xt)
        out = keras.ops.sum(keras.ops.multiply(w, bn(xt, training=True)))
    np.testing.assert_allclose(tape.gradient(out, xt).numpy(), numeric, atol=1e-6)


def test_training_output_is_rounded_as_keras_computes_it():
    # Keras (tf.nn.batch_normalization) computes x * a + (beta - mean * a) with
    # a = gamma / sqrt(var + eps); on inputs far from zero its rounding differs from
    # (x - mean) * inv by ~4e-6 (the column below). Values printed by Keras 3.15.1.
    x = (100 + np.random.RandomState(0).randn(8, 3)).astype("float32")
    keras_column_1 = [-0.1029815673828125, 1.6611251831054688, -0.7660140991210938,
                      -0.41088104248046875, -0.437774658203125, 1.212127685546875,
                      -1.61083984375, 0.455169677734375]
    y = layers.BatchNormalization()(x, training=True)
    np.testing.assert_allclose(np.asarray(y)[:, 1], keras_column_1, rtol=0, atol=2e-7)


def test_synchronized_matches_keras_on_one_replica():
    # Keras 3.15.1 on TensorFlow: synchronized=True computes the batch variance as
    # E[x^2] - E[x]^2 from sums (its cross-replica formula) even on one device.
    x = (np.random.RandomState(0).randn(4, 3) * 3 + 100).astype("float32")
    bn = layers.BatchNormalization(synchronized=True)
    out = bn(x, training=True).numpy()
    assert bn.get_config()["synchronized"] is True
    np.testing.assert_allclose(out[0], [0.5967331, -0.2122803, 0.6770325], rtol=1e-5)
    np.testing.assert_allclose(out[3], [-1.3142281, -0.5418968, 1.1796113], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(),
                               0.99 + 0.01 * np.array([4.513671875, 5.4326171875, 8.056640625]),
                               rtol=1e-7)
    strategy = keras.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
    with strategy.scope():
        synced = layers.BatchNormalization(synchronized=True)
        synced.build((None, 3))
    with pytest.raises(NotImplementedError, match="synchronized=True inside `strategy.run`"):
        strategy.run(lambda: synced(x, training=True))
