"""Noise and dropout layers: identity at inference, the documented statistics in
training, mask shapes, seeds, configs and argument errors."""
import numpy as np
import pytest

from kerasish import layers, ops

X = np.random.default_rng(0).normal(size=(400, 250)).astype("float32")


@pytest.mark.parametrize("layer", [
    lambda: layers.AlphaDropout(0.3), lambda: layers.GaussianDropout(0.3),
    lambda: layers.GaussianNoise(0.3), lambda: layers.SpatialDropout1D(0.3),
    lambda: layers.SpatialDropout2D(0.3), lambda: layers.SpatialDropout3D(0.3),
])
def test_identity_at_inference(layer):
    layer = layer()
    shape = {"SpatialDropout1D": (2, 5, 3), "SpatialDropout2D": (2, 4, 4, 3),
             "SpatialDropout3D": (2, 3, 3, 3, 2)}.get(type(layer).__name__, (3, 4))
    x = np.random.default_rng(1).normal(size=shape).astype("float32")
    np.testing.assert_array_equal(layer(x).numpy(), x)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)


def test_alpha_dropout_keeps_selu_statistics():
    out = layers.AlphaDropout(0.2, seed=3)(X, training=True).numpy()
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1.0) < 0.02
    saturated = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.2) * (1 + 0.2 * saturated ** 2)) ** -0.5
    dropped_value = a * saturated - a * saturated * 0.2
    assert abs(np.isclose(out, dropped_value).mean() - 0.2) < 0.01


def test_gaussian_dropout_and_noise_statistics():
    ones = np.ones((500, 400), "float32")
    out = layers.GaussianDropout(0.5, seed=1)(ones, training=True).numpy()
    assert abs(out.mean() - 1.0) < 0.01 and abs(out.std() - 1.0) < 0.01  # sqrt(.5 / .5)
    noisy = layers.GaussianNoise(0.2, seed=1)(ones, training=True).numpy() - 1.0
    assert abs(noisy.mean()) < 0.005 and abs(noisy.std() - 0.2) < 0.005


@pytest.mark.parametrize("cls,shape,spatial", [
    (layers.SpatialDropout1D, (8, 6, 5), (1,)),
    (layers.SpatialDropout2D, (8, 4, 4, 5), (1, 2)),
    (layers.SpatialDropout3D, (8, 3, 3, 3, 5), (1, 2, 3)),
])
def test_spatial_dropout_drops_whole_channels(cls, shape, spatial):
    out = cls(0.5, seed=2)(np.ones(shape, "float32"), training=True).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    per_channel = out.min(axis=spatial) == out.max(axis=spatial)
    assert per_channel.all() and 0 < (out == 0).mean() < 1


def test_spatial_dropout_channels_first():
    out = layers.SpatialDropout2D(0.5, data_format="channels_first", seed=4)(
        np.ones((6, 5, 3, 3), "float32"), training=True).numpy()
    assert (out.min(axis=(2, 3)) == out.max(axis=(2, 3))).all()


def test_seeded_layers_repeat_their_noise():
    a = layers.GaussianNoise(0.5, seed=9)(X[:4], training=True).numpy()
    b = layers.GaussianNoise(0.5, seed=9)(X[:4], training=True).numpy()
    np.testing.assert_array_equal(a, b)


def test_configs_round_trip():
    for layer in (layers.AlphaDropout(0.1, noise_shape=(None, 1), seed=3),
                  layers.GaussianDropout(0.2, seed=1), layers.GaussianNoise(0.3),
                  layers.SpatialDropout2D(0.4, data_format="channels_first"),
                  layers.ActivityRegularization(l1=0.1, l2=0.2), layers.UnitNormalization([1, 2])):
        config = layer.get_config()
        assert type(layer).from_config(config).get_config() == config
    assert "activity_regularizer" not in layers.ActivityRegularization(0.1).get_config()


def test_bad_arguments_keras_texts():
    # Keras 3.15.1's texts (/tmp/probe15/noise1.py, err5.py)
    cases = [
        (ValueError, lambda: layers.AlphaDropout(1.5), "Invalid value received for argument "
         "`rate`. Expected a float value between 0 and 1. Received: rate=1.5"),
        (ValueError, lambda: layers.GaussianDropout(-1), "Invalid value received for argument "
         "`rate`. Expected a float value between 0 and 1. Received: rate=-1"),
        (ValueError, lambda: layers.GaussianNoise(-1), "Invalid value received for argument "
         "`stddev`. Expected a float value between 0 and 1. Received: stddev=-1"),
        (TypeError, lambda: layers.UnitNormalization(axis="a"), "Invalid value for `axis` "
         "argument: expected an int or a list/tuple of ints. Received: axis=a"),
        (ValueError, lambda: layers.SpectralNormalization(layers.Dense(2), power_iterations=0),
         "`power_iterations` should be greater than zero. Received: `power_iterations=0`"),
        (ValueError, lambda: layers.SpectralNormalization(layers.Dropout(0.1))(np.ones((2, 3))),
         "Dropout object has no attribute 'kernel' nor 'embeddings'"),
        (ValueError, lambda: layers.TimeDistributed("x"), "Please initialize `TimeDistributed` "
         "layer with a `keras.layers.Layer` instance. Received: x"),
    ]
    for error, make, message in cases:
        with pytest.raises(error) as info:
            make()
        assert str(info.value) == message
    with pytest.raises(ValueError, match="Wrapper"):
        layers.Wrapper("dense")


def test_activity_regularization_penalty():
    layer = layers.ActivityRegularization(l1=0.1, l2=0.01)
    x = np.array([[1.0, -2.0], [3.0, 0.5]], "float32")
    np.testing.assert_array_equal(layer(x).numpy(), x)
    expected = (0.1 * np.abs(x).sum() + 0.01 * (x ** 2).sum()) / 2
    np.testing.assert_allclose(float(sum(layer.losses)), expected, rtol=1e-6)


def test_spectral_normalization_converges_to_unit_spectral_norm():
    sn = layers.SpectralNormalization(layers.Dense(6), power_iterations=10)
    x = np.ones((2, 4), "float32")
    sn(x)
    # a kernel with singular values 4, 2, 1, 0.5 (a clear gap) and a fixed start vector
    left, _ = np.linalg.qr(np.random.default_rng(5).normal(size=(4, 4)))
    right, _ = np.linalg.qr(np.random.default_rng(6).normal(size=(6, 6)))
    kernel = (left * np.array([4.0, 2.0, 1.0, 0.5])) @ right[:4]
    sn.layer.kernel.assign(kernel.astype("float32"))
    sn.vector_u.assign(np.ones((1, 6), "float32"))
    sn(x, training=True)
    assert abs(np.linalg.svd(sn.layer.kernel.numpy(), compute_uv=False)[0] - 1.0) < 1e-3
    before = sn.layer.kernel.numpy()
    sn(x, training=False)
    np.testing.assert_array_equal(sn.layer.kernel.numpy(), before)
    emb = layers.SpectralNormalization(layers.Embedding(10, 4))
    emb(np.array([[1, 2]]), training=True)
    assert emb.kernel is emb.layer.embeddings


def test_unit_normalization_gradient():
    from kerasish.testing import check_gradients
    layer = layers.UnitNormalization(axis=[1, 2], dtype="float64")
    check_gradients(lambda x: layer(x), [np.random.default_rng(2).normal(size=(2, 3, 4))])
    norms = ops.sum(layers.UnitNormalization()(X[:, :10]) ** 2, axis=-1).numpy()
    np.testing.assert_allclose(norms, 1.0, rtol=1e-5)


def test_adaptive_pooling_gradients_and_errors():
    from kerasish.testing import check_gradients
    x = np.random.default_rng(3).normal(size=(2, 7, 5, 2))
    for layer in (layers.AdaptiveAveragePooling2D((3, 2), dtype="float64"),
                  layers.AdaptiveMaxPooling2D((3, 2), dtype="float64")):
        check_gradients(lambda x: layer(x), [x])
    with pytest.raises(ValueError, match="output_size"):
        layers.AdaptiveMaxPooling1D((2, 2))
    with pytest.raises(ValueError, match="data_format"):
        layers.AdaptiveAveragePooling1D(2, data_format="nwc")
    with pytest.raises(ValueError, match="expects 3-D inputs"):
        layers.AdaptiveAveragePooling1D(2)(np.ones((2, 3)))
