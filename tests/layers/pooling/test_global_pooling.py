"""Global average / max pooling layers (1-D and 2-D), keepdims, data_format, masks."""
import numpy as np
import pytest

from kerasish import layers
from kerasish.testing import check_gradients


@pytest.mark.parametrize("cls, reduce, axes", [
    (layers.GlobalAveragePooling2D, np.mean, (1, 2)),
    (layers.GlobalMaxPooling2D, np.max, (1, 2)),
    (layers.GlobalAveragePooling1D, np.mean, (1,)),
    (layers.GlobalMaxPooling1D, np.max, (1,)),
])
def test_values_keepdims_and_channels_first(cls, reduce, axes):
    rank = len(axes) + 2
    x = np.random.default_rng(0).standard_normal((2, 5, 4, 3)[:rank])
    np.testing.assert_allclose(cls(dtype="float64")(x).numpy(), reduce(x, axis=axes))
    kept = cls(keepdims=True)(x)
    assert kept.shape == reduce(x, axis=axes, keepdims=True).shape
    assert cls(keepdims=True).compute_output_shape(x.shape) == kept.shape
    channels_first = np.moveaxis(x, -1, 1)
    np.testing.assert_allclose(
        cls(data_format="channels_first", dtype="float64")(channels_first).numpy(),
        reduce(x, axis=axes))
    check_gradients(lambda x: cls(dtype="float64")(x), [x])
    assert cls().get_config()["keepdims"] is False


def test_global_average_pooling1d_uses_the_mask():
    x = np.random.default_rng(1).standard_normal((2, 4, 3)).astype("float32")
    mask = np.array([[True, True, False, False], [True, True, True, True]])
    y = layers.GlobalAveragePooling1D()(x, mask=mask).numpy()
    np.testing.assert_allclose(y[0], x[0, :2].mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(y[1], x[1].mean(axis=0), rtol=1e-6)


def test_names():
    assert layers.GlobalAveragePooling2D().name == "global_average_pooling2d"
    assert layers.GlobalMaxPool2D is layers.GlobalMaxPooling2D
