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
    with pytest.raises(ValueError, match="`padding` should have two elements"):
        layers.ZeroPadding2D((1, 2, 3))
    with pytest.raises(ValueError, match=r"Values in `cropping` argument should be smaller than "
                                         r"the corresponding spatial dimension of the input\. "
                                         r"Received: input_shape=\(None, 4, 4, 1\), "
                                         r"cropping=\(\(2, 2\), \(2, 2\)\)"):
        layers.Cropping2D(2)(keras.Input((4, 4, 1)))
    with pytest.raises(ValueError, match=r"`cropping` parameter of `Cropping1D` layer must be "
                                         r"smaller than the input length\. Received: "
                                         r"inputs.shape=\(1, 5, 2\), cropping=\(3, 3\)"):
        layers.Cropping1D(3)(np.zeros((1, 5, 2)))


# Keras 3.15.1 (/tmp/probe15/pad1.py): mixed int/pair entries are accepted; the texts of
# the refused arguments
MIXED = [
    (layers.ZeroPadding3D, ((1, 0), (0, 2), 1), ((1, 0), (0, 2), (1, 1)), (1, 7, 9, 10, 2)),
    (layers.ZeroPadding3D, [1, (2, 3), 0], ((1, 1), (2, 3), (0, 0)), (1, 8, 12, 8, 2)),
    (layers.Cropping3D, ((1, 0), (0, 2), 1), ((1, 0), (0, 2), (1, 1)), (1, 5, 5, 6, 2)),
    (layers.Cropping3D, [1, (2, 3), 0], ((1, 1), (2, 3), (0, 0)), (1, 4, 2, 8, 2)),
    (layers.ZeroPadding2D, ((1, 0), 2), ((1, 0), (2, 2)), (1, 7, 11, 2)),
    (layers.Cropping2D, [1, (2, 3)], ((1, 1), (2, 3)), (1, 4, 2, 2)),
]
REFUSED = [
    (layers.ZeroPadding3D, (1, 2), "`padding` should have 3 elements. Received: (1, 2)."),
    (layers.ZeroPadding3D, ((-1, 0), 1, 1), "The `1st entry of padding` argument must be a tuple "
     "of 2 integers. Received 1st entry of padding=(-1, 0), including values {-1} that do not "
     "satisfy `value >= 0`"),
    (layers.Cropping3D, -1, "`cropping` cannot be negative. Received: cropping=-1."),
    (layers.Cropping3D, "a", "`cropping` should have 3 elements. Received: a."),
    (layers.Cropping3D, (1.5, 1, 1), "The `1st entry of cropping` argument must be a tuple of 2 "
     "integers. Received 1st entry of cropping=1.5"),
    (layers.ZeroPadding2D, ((1, 2, 3), 1), "The `1st entry of padding` argument must be a tuple "
     "of 2 integers. Received 1st entry of padding=(1, 2, 3)"),
    (layers.Cropping2D, (1, 2, 3), "`cropping` should have two elements. Received: "
     "cropping=(1, 2, 3)."),
    (layers.ZeroPadding1D, -1, "The `padding` argument must be a tuple of 2 integers. Received "
     "padding=-1, including values {-1} that do not satisfy `value >= 0`"),
    (layers.Cropping1D, [2], "The `cropping` argument must be a tuple of 2 integers. Received "
     "cropping=[2]"),
    (layers.ZeroPadding2D, 1.5, "`padding` should be either an int, a tuple of 2 ints "
     "(symmetric_height_crop, symmetric_width_crop), or a tuple of 2 tuples of 2 ints "
     "((top_crop, bottom_crop), (left_crop, right_crop)). Received: padding=1.5."),
]


@pytest.mark.parametrize("layer_class, argument, pairs, shape", MIXED)
def test_mixed_int_and_pair_entries_as_keras(layer_class, argument, pairs, shape):
    layer = layer_class(argument)
    rank = len(pairs) + 2
    x = np.ones((1, 6, 7, 8, 2)[:rank - 1] + (2,), "float32")
    assert tuple(layer(x).shape) == shape
    assert layer.get_config()["padding" if "Padding" in layer_class.__name__ else "cropping"] \
        == pairs


@pytest.mark.parametrize("layer_class, argument, message", REFUSED)
def test_refused_widths_keras_texts(layer_class, argument, message):
    with pytest.raises(ValueError) as info:
        layer_class(argument)
    assert str(info.value) == message
