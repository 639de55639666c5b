"""AveragePooling2D / AveragePooling1D layers."""
import numpy as np
import pytest

from kerasish import layers
from kerasish.testing import check_gradients


def test_average_pooling2d_values():
    x = np.random.default_rng(0).standard_normal((2, 6, 4, 3)).astype("float32")
    layer = layers.AveragePooling2D((3, 2))
    expected = x.reshape(2, 2, 3, 2, 2, 3).mean(axis=(2, 4))
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-6)
    assert layer.name == "average_pooling2d"


def test_same_padding_divides_by_real_elements_and_gradients():
    x = np.random.default_rng(1).standard_normal((1, 3, 3, 1))
    y = layers.AveragePooling2D(2, padding="same", dtype="float64")(x).numpy()[0, :, :, 0]
    expected = [[x[0, :2, :2, 0].mean(), x[0, :2, 2, 0].mean()],
                [x[0, 2, :2, 0].mean(), x[0, 2, 2, 0]]]
    np.testing.assert_allclose(y, expected)
    layer = layers.AveragePooling2D(3, strides=1, padding="same", data_format="channels_first",
                                     dtype="float64")
    check_gradients(lambda x: layer(x), [np.random.default_rng(2).standard_normal((1, 2, 4, 4))])


def test_average_pooling1d_and_config():
    x = np.random.default_rng(3).standard_normal((2, 8, 3))
    layer = layers.AveragePooling1D(4, strides=2, dtype="float64")
    expected = np.stack([x[:, 2 * i:2 * i + 4].mean(axis=1) for i in range(3)], axis=1)
    np.testing.assert_allclose(layer(x).numpy(), expected)
    config = layer.get_config()
    assert config["pool_size"] == (4,) and config["strides"] == (2,)
    with pytest.raises(ValueError, match="`pool_size` must be"):
        layers.AveragePooling1D(0)


@pytest.mark.parametrize("name", ["AveragePooling1D", "AveragePooling2D", "AveragePooling3D"])
def test_pool_size_is_required_as_in_keras(name):
    # Keras 3.15.1: AveragePooling*D.__init__() missing 1 required positional argument
    with pytest.raises(TypeError, match="pool_size"):
        getattr(layers, name)()
