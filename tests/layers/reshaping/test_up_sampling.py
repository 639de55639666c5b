"""UpSampling1D/2D: nearest repeat, bilinear (half-pixel centres) and the resize kernels."""
import numpy as np
import pytest

from kerasish import layers
from kerasish.testing import check_gradients


def bilinear_reference(image, factor):
    """tf.image.resize bilinear (half-pixel centres) on one (h, w) image, pixel by pixel."""
    h, w = image.shape
    out = np.zeros((h * factor[0], w * factor[1]))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            y = min(max((i + 0.5) / factor[0] - 0.5, 0), h - 1)
            x = min(max((j + 0.5) / factor[1] - 0.5, 0), w - 1)
            y0, x0 = int(np.floor(y)), int(np.floor(x))
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            dy, dx = y - y0, x - x0
            out[i, j] = (image[y0, x0] * (1 - dy) * (1 - dx) + image[y0, x1] * (1 - dy) * dx
                         + image[y1, x0] * dy * (1 - dx) + image[y1, x1] * dy * dx)
    return out


def test_nearest():
    x = np.arange(8, dtype="float32").reshape(1, 2, 2, 2)
    layer = layers.UpSampling2D((2, 3))
    y = layer(x).numpy()
    np.testing.assert_array_equal(y, x.repeat(2, axis=1).repeat(3, axis=2))
    assert y.shape == layer.compute_output_shape(x.shape) == (1, 4, 6, 2)
    assert layer.name == "up_sampling2d"
    nearest = layers.UpSampling2D((2, 3), dtype="float64")
    check_gradients(lambda x: nearest(x), [x[..., :1].astype("float64")])


@pytest.mark.parametrize("size", [(2, 2), (3, 2)])
def test_bilinear_matches_half_pixel_reference(size):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 2))
    layer = layers.UpSampling2D(size, interpolation="bilinear", dtype="float64")
    y = layer(x).numpy()
    for n in range(2):
        for c in range(2):
            # TensorFlow (so Keras) computes the source positions in float32.
            np.testing.assert_allclose(y[n, :, :, c], bilinear_reference(x[n, :, :, c], size),
                                       atol=1e-6)
    channels_first = layers.UpSampling2D(size, interpolation="bilinear", dtype="float64",
                                         data_format="channels_first")
    np.testing.assert_allclose(channels_first(x.transpose(0, 3, 1, 2)).numpy(),
                               y.transpose(0, 3, 1, 2), atol=1e-12)
    # TensorFlow (so Keras) resizes float64 in float32: the op is linear, so a wide step
    # gives exact differences up to float32 rounding
    check_gradients(lambda x: layer(x), [x[:1]], atol=1e-4, rtol=1e-4, eps=1e-2)


def test_up_sampling1d_config_and_errors():
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    up = layers.UpSampling1D(3, dtype="float64")
    np.testing.assert_array_equal(up(x).numpy(), x.repeat(3, axis=1))
    check_gradients(lambda x: up(x), [x[:1]])
    config = layers.UpSampling2D(2, interpolation="bilinear").get_config()
    assert config["size"] == (2, 2) and config["interpolation"] == "bilinear"
    with pytest.raises(ValueError, match="`interpolation` must be one of"):
        layers.UpSampling2D(interpolation="cubic-ish")
    with pytest.raises(ValueError, match="`size` must be"):
        layers.UpSampling1D(0)


# Printed by Keras 3.15.1 (TensorFlow backend): UpSampling2D((2, 1), interpolation=...)
# of x = arange(12).reshape(1, 2, 3, 2) ** 1.5, channel 0.
KERAS_RESIZED = {
    "bicubic": [[-1.2968, 1.0815, 5.9156], [3.0444, 6.9296, 12.8933],
                [11.6526, 18.5262, 26.7295], [15.9937, 24.3744, 33.7071]],
    "area": [[0.0, 2.8284, 8.0], [0.0, 2.8284, 8.0],
             [14.6969, 22.6274, 31.6228], [14.6969, 22.6274, 31.6228]],
    "lanczos3": [[-2.579, -0.6459, 3.8547], [3.4225, 7.439, 13.5011],
                 [11.2745, 18.0168, 26.1217], [17.2759, 26.1017, 35.768]],
    "lanczos5": [[-3.2438, -1.5414, 2.7862], [3.5836, 7.656, 13.76],
                 [11.1134, 17.7998, 25.8628], [17.9407, 26.9973, 36.8366]],
}


@pytest.mark.parametrize("interpolation", sorted(KERAS_RESIZED))
def test_resize_interpolations_match_keras(interpolation):
    x = np.arange(12, dtype="float32").reshape(1, 2, 3, 2) ** 1.5
    y = layers.UpSampling2D((2, 1), interpolation=interpolation)(x).numpy()
    np.testing.assert_allclose(y[0, :, :, 0], KERAS_RESIZED[interpolation], atol=2e-4)


def test_bicubic_channels_first_matches_keras():
    x = np.transpose(np.arange(12, dtype="float32").reshape(1, 2, 3, 2) ** 1.5, (0, 3, 1, 2))
    y = layers.UpSampling2D(2, interpolation="bicubic", data_format="channels_first")(x).numpy()
    assert y.shape == (1, 2, 4, 6)
    # Keras 3.15.1's numbers, channel 1, first row and last row.
    np.testing.assert_allclose(y[0, 1, 0], [-0.8828, 0.0544, 2.0371, 4.791, 7.9543, 9.4485],
                               atol=2e-4)
    np.testing.assert_allclose(y[0, 1, 3], [19.2846, 21.5328, 26.2903, 31.7, 37.0512, 39.5794],
                               atol=2e-4)
