"""UpSampling1D/2D: nearest repeat and bilinear (half-pixel centres) interpolation."""
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
            np.testing.assert_allclose(y[n, :, :, c], bilinear_reference(x[n, :, :, c], size),
                                       atol=1e-12)
    channels_first = layers.UpSampling2D(size, interpolation="bilinear", dtype="float64",
                                         data_format="channels_first")
    np.testing.assert_allclose(channels_first(x.transpose(0, 3, 1, 2)).numpy(),
                               y.transpose(0, 3, 1, 2), atol=1e-12)
    check_gradients(lambda x: layer(x), [x[:1]])


def test_up_sampling1d_config_and_errors():
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    up = layers.UpSampling1D(3, dtype="float64")
    np.testing.assert_array_equal(up(x).numpy(), x.repeat(3, axis=1))
    check_gradients(lambda x: up(x), [x[:1]])
    config = layers.UpSampling2D(2, interpolation="bilinear").get_config()
    assert config["size"] == (2, 2) and config["interpolation"] == "bilinear"
    with pytest.raises(NotImplementedError, match="interpolation='bicubic'"):
        layers.UpSampling2D(interpolation="bicubic")
    with pytest.raises(ValueError, match="`interpolation` must be one of"):
        layers.UpSampling2D(interpolation="cubic-ish")
    with pytest.raises(ValueError, match="`size` must be"):
        layers.UpSampling1D(0)
