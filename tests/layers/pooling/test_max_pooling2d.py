"""MaxPooling2D / MaxPooling1D layers: values, shapes, config, gradients, errors."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients


def test_max_pooling2d_values_and_default_strides():
    x = np.arange(2 * 5 * 5 * 3, dtype="float32").reshape(2, 5, 5, 3)
    layer = layers.MaxPooling2D()
    y = layer(x).numpy()
    assert layer.name == "max_pooling2d" and layer.strides == (2, 2)
    expected = x[:, :4, :4].reshape(2, 2, 2, 2, 2, 3).max(axis=(2, 4))   # floor: drops row 5
    np.testing.assert_array_equal(y, expected)
    assert layer.compute_output_shape((None, 5, 5, 3)) == (None, 2, 2, 3)


@pytest.mark.parametrize("kwargs, shape", [
    (dict(pool_size=3, strides=2, padding="same"), (2, 4, 4, 2)),
    (dict(pool_size=(2, 3), strides=1), (2, 6, 5, 2)),
    (dict(pool_size=2, data_format="channels_first"), (2, 2, 3, 3)),
])
def test_shapes_and_gradients(kwargs, shape):
    layer = layers.MaxPooling2D(**kwargs, dtype="float64")
    x = np.random.default_rng(0).standard_normal((2, 7, 7, 2) if "data_format" not in kwargs
                                                 else (2, 2, 7, 7))
    y = layer(x)
    assert y.shape == shape == layer.compute_output_shape(x.shape)
    check_gradients(lambda x: layer(x), [x])


def test_max_pooling1d():
    x = np.random.default_rng(1).standard_normal((2, 9, 3))
    layer = layers.MaxPooling1D(3, strides=2, padding="same", dtype="float64")
    y = layer(x).numpy()
    padded = np.pad(x, ((0, 0), (1, 1), (0, 0)), constant_values=-np.inf)
    expected = np.stack([padded[:, 2 * i:2 * i + 3].max(axis=1) for i in range(5)], axis=1)
    np.testing.assert_allclose(y, expected)
    assert layers.MaxPooling1D().compute_output_shape((None, 9, 3)) == (None, 4, 3)
    check_gradients(lambda x: layer(x), [x])


def test_config_and_errors():
    config = layers.MaxPooling2D(3, 2, "same", name="p").get_config()
    assert config["pool_size"] == (3, 3) and config["strides"] == (2, 2)
    assert config["padding"] == "same" and config["data_format"] == "channels_last"
    assert layers.MaxPooling2D.from_config(config).pool_size == (3, 3)
    with pytest.raises(ValueError, match=r"MaxPooling2D layer 'max_pooling2d'.*pool size "
                                         r"\(3, 3\) is larger than the input"):
        layers.MaxPooling2D(3)(keras.Input((2, 2, 1)))
    with pytest.raises(ValueError, match="unknown padding 'full'"):
        layers.MaxPooling2D(padding="full")
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        layers.MaxPooling2D()(np.zeros((1, 4, 4)))
