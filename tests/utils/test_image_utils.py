"""kerasish.utils.image_utils.smart_resize against values printed by Keras 3.15.1
(TensorFlow backend)."""
import numpy as np
import pytest

import kerasish as keras

IMAGE = np.arange(20, dtype="uint8").reshape(5, 4, 1) * 7

# keras.preprocessing.image.smart_resize(IMAGE, (3, 3), interpolation=...)[..., 0]
KERAS = {
    "bilinear": ("float32", [[5.833333969116211, 15.166666984558105, 24.500001907348633],
                             [43.16666793823242, 52.5, 61.833335876464844],
                             [80.5, 89.83333587646484, 99.16667175292969]]),
    "nearest": ("uint8", [[0, 14, 21], [56, 70, 77], [84, 98, 105]]),
    "area": ("float32", [[8.75, 17.5, 26.249998092651367], [43.75, 52.5, 61.24999237060547],
                         [78.74999237060547, 87.49999237060547, 96.2499771118164]]),
}


@pytest.mark.parametrize("interpolation", sorted(KERAS))
def test_smart_resize_of_integer_image_is_float32_unrounded_as_keras(interpolation):
    # Keras calls the backend's resize (tf.image.resize) directly: float32 out,
    # not rounded back to uint8 as ops.image.resize does; "nearest" keeps the dtype.
    dtype, expected = KERAS[interpolation]
    out = keras.preprocessing.image.smart_resize(IMAGE, (3, 3), interpolation=interpolation)
    assert isinstance(out, np.ndarray) and out.dtype == dtype
    np.testing.assert_allclose(out[..., 0], expected, rtol=1e-6)


def test_smart_resize_of_float64_tensor_gives_float32():
    out = keras.preprocessing.image.smart_resize(
        keras.ops.convert_to_tensor(IMAGE.astype("float64")), (3, 3))
    assert keras.backend.standardize_dtype(out.dtype) == "float32"
    np.testing.assert_allclose(keras.ops.convert_to_numpy(out)[..., 0], KERAS["bilinear"][1],
                               rtol=1e-6)
