"""ZeroPadding1D/2D and Cropping1D/2D: values, shapes, gradients, config, errors."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients


@pytest.mark.parametrize("padding, widths", [
    (1, ((1, 1), (1, 1))), ((2, 0), ((2, 2), (0, 0))), (((1, 2), (3, 0)), ((1, 2), (3, 0))),
])
def test_zero_padding2d(padding, widths):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 2))
    layer = layers.ZeroPadding2D(padding, dtype="float64")
    y = layer(x).numpy()
    np.testing.assert_array_equal(y, np.pad(x, ((0, 0),) + widths + ((0, 0),)))
    assert y.shape == layer.compute_output_shape(x.shape)
    assert layer.get_config()["padding"] == widths
    channels_first = layers.ZeroPadding2D(padding, data_format="channels_first",
                                          dtype="float64")(x.transpose(0, 3, 1, 2))
    np.testing.assert_array_equal(channels_first.numpy(), y.transpose(0, 3, 1, 2))
    check_gradients(lambda x: layer(x), [x[:1]])


@pytest.mark.parametrize("cropping, keep", [
    (1, (slice(1, -1), slice(1, -1))), ((0, 2), (slice(0, 6), slice(2, -2))),
    (((1, 2), (0, 3)), (slice(1, -2), slice(0, -3))),
])
def test_cropping2d(cropping, keep):
    x = np.random.default_rng(1).standard_normal((2, 6, 7, 2))
    layer = layers.Cropping2D(cropping, dtype="float64")
    y = layer(x).numpy()
    np.testing.assert_array_equal(y, x[(slice(None),) + keep])
    assert y.shape == layer.compute_output_shape(x.shape)
    check_gradients(lambda x: layer(x), [x[:1]])


def test_one_dimensional_variants():
    x = np.random.default_rng(2).standard_normal((2, 5, 3))
    np.testing.assert_array_equal(layers.ZeroPadding1D((1, 2), dtype="float64")(x).numpy(),
                                  np.pad(x, ((0, 0), (1, 2), (0, 0))))
    np.testing.assert_array_equal(layers.Cropping1D((1, 2), dtype="float64")(x).numpy(),
                                  x[:, 1:3])
    assert layers.Cropping1D().compute_output_shape((None, 5, 3)) == (None, 3, 3)
    assert layers.ZeroPadding1D(2).compute_output_shape((None, None, 3)) == (None, None, 3)


def test_errors():
    with pytest.raises(ValueError, match="`padding` should be"):
        layers.ZeroPadding2D((1, 2, 3))
    with pytest.raises(ValueError, match=r"Cropping2D layer 'cropping2d'.*must be smaller than "
                                         r"the input shape.*\(None, 4, 4, 1\)"):
        layers.Cropping2D(2)(keras.Input((4, 4, 1)))
    with pytest.raises(ValueError, match="`cropping` must be smaller"):
        layers.Cropping1D(3)(np.zeros((1, 5, 2)))
