"""Conv2DTranspose: output sizes (Keras's rule), scatter reference, gradients, errors."""
import itertools

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients


def scatter_reference(x, kernel, strides, padding, output_padding):
    """Each input pixel adds `kernel @ value` at stride positions; TF's crop for "same"."""
    kh, kw = kernel.shape[:2]
    sizes, lows = [], []
    for size, k, s, op in zip(x.shape[1:3], (kh, kw), strides, output_padding or (None, None)):
        if op is None:
            out = size * s + max(k - s, 0) if padding == "valid" else size * s
        else:
            out = (size - 1) * s + k - 2 * (k // 2 if padding == "same" else 0) + op
        sizes.append(out)
        lows.append(max((size - 1) * s + k - out, 0) // 2 if padding == "same" else 0)
    full = np.zeros((x.shape[0], sizes[0] + 2 * kh, sizes[1] + 2 * kw, kernel.shape[2]))
    for n, i, j in itertools.product(range(x.shape[0]), range(x.shape[1]), range(x.shape[2])):
        for a, b in itertools.product(range(kh), range(kw)):
            full[n, i * strides[0] + a - lows[0] + kh, j * strides[1] + b - lows[1] + kw] += \
                kernel[a, b] @ x[n, i, j]
    return full[:, kh:kh + sizes[0], kw:kw + sizes[1]]


@pytest.mark.parametrize("kwargs, out_hw", [
    (dict(strides=2, padding="valid"), (9, 11)),
    (dict(strides=2, padding="same"), (8, 10)),
    (dict(strides=(3, 2), padding="valid"), (12, 11)),
    (dict(strides=2, padding="same", output_padding=1), (8, 10)),
    (dict(strides=3, padding="valid", output_padding=(2, 0)), (14, 15)),
    (dict(strides=1, padding="same"), (4, 5)),
])
def test_output_shape_and_values(kwargs, out_hw):
    x = np.random.default_rng(0).standard_normal((2, 4, 5, 3)).astype("float32")
    layer = layers.Conv2DTranspose(2, 3, bias_initializer="random_normal", **kwargs)
    y = layer(x).numpy()
    assert y.shape == (2,) + out_hw + (2,) == tuple(layer.compute_output_shape(x.shape))
    # Keras 3.15.1's compute_conv_transpose_output_shape returns a list ([None, 11, 11, 4])
    assert isinstance(layer.compute_output_shape(x.shape), list)
    expected = scatter_reference(x.astype(np.float64), layer.kernel.numpy().astype(np.float64),
                                 layer.strides, layer.padding, layer.output_padding)
    np.testing.assert_allclose(y, expected + layer.bias.numpy(), rtol=1e-4, atol=1e-5)


def test_weights_gradients_and_channels_first():
    layer = layers.Conv2DTranspose(4, (3, 2), strides=2, padding="same", activation="relu",
                                   data_format="channels_first", dtype="float64",
                                   bias_initializer="random_normal")
    x = np.random.default_rng(1).standard_normal((1, 3, 3, 2))
    y = layer(x)
    assert layer.kernel.shape == (3, 2, 4, 3) and [w.name for w in layer.weights] == \
        ["kernel", "bias"]
    assert y.shape == (1, 4, 6, 4)
    check_gradients(lambda x, k, b: layer(x), [x, layer.kernel, layer.bias])


def test_config_and_errors():
    layer = layers.Conv2DTranspose(4, 3, strides=2, output_padding=1, name="up")
    config = layer.get_config()
    assert config["output_padding"] == (1, 1) and config["strides"] == (2, 2)
    assert layers.Conv2DTranspose.from_config(config).output_padding == (1, 1)
    with pytest.raises(ValueError, match="`output_padding` must be strictly less than `strides`"):
        layers.Conv2DTranspose(4, 3, strides=2, output_padding=2)
    # Keras's words (a set: either order)
    with pytest.raises(ValueError, match=r"The `padding` argument must be a list/tuple or "
                       r"one of \{'(valid|same)', '(valid|same)'\}. Received: full"):
        layers.Conv2DTranspose(4, 3, padding="full")
    with pytest.raises(ValueError, match=(  # Keras 3.15.1's words
            r"Input 0 with name 'None' of layer 'conv2d_transpose(_\d+)?' is incompatible "
            r"with the layer: expected min_ndim=4, found ndim=3. Full shape received: "
            r"\(None, 5, 5\)")):
        layers.Conv2DTranspose(4, 3)(keras.Input((5, 5)))
