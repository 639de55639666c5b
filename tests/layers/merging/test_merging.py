"""Merge layers: Keras's lower-case functional forms and masking (vs Keras 3.15.1)."""
import numpy as np

import kerasish as keras
from kerasish import layers


def test_functional_merge_forms():
    a, b = keras.Input((3,)), keras.Input((3,))
    for fn, cls in [(layers.add, "Add"), (layers.average, "Average"), (layers.maximum, "Maximum"),
                    (layers.minimum, "Minimum"), (layers.multiply, "Multiply"),
                    (layers.subtract, "Subtract")]:
        out = fn([a, b], name=f"my_{cls.lower()}")
        assert type(out._keras_history[0]).__name__ == cls and out.shape == (None, 3)
        assert out._keras_history[0].name == f"my_{cls.lower()}"
    assert layers.concatenate([a, b]).shape == (None, 6)
    assert layers.concatenate([keras.Input((2, 3)), keras.Input((4, 3))], axis=1).shape == \
        (None, 6, 3)
    assert layers.dot([a, b], axes=1).shape == (None, 1)
    x = np.ones((2, 3), "float32")
    np.testing.assert_allclose(layers.add([x, 2 * x]).numpy(), 3 * x)
    np.testing.assert_allclose(layers.average([x, 3 * x]).numpy(), 2 * x)


def test_dot_accepts_masked_inputs_and_outputs_no_mask():
    dot = layers.Dot(axes=-1)
    assert dot.supports_masking
    x = keras.ops.convert_to_tensor(np.ones((2, 3), "float32"))
    x._keras_mask = keras.ops.convert_to_tensor(np.array([True, False]))
    out = dot([x, x])
    assert out._keras_mask is None


def test_unknown_sizes_stay_unknown_against_broadcast_ones():
    """As Keras: (None, None, None, 16) * (None, 1, 1, 16) is (None, None, None, 16)
    (MobileNetV3's squeeze-excitation on a free-size input)."""
    a = keras.layers.Input((None, None, 16))
    b = keras.layers.Input((1, 1, 16))
    assert keras.layers.Multiply()([a, b]).shape == (None, None, None, 16)
    assert keras.layers.Add()([b, a]).shape == (None, None, None, 16)
    c = keras.layers.Input((5, 1, 16))
    assert keras.layers.Multiply()([c, keras.layers.Input((1, 7, 16))]).shape == (None, 5, 7, 16)


def test_average_of_integers_takes_tensorflow_division_dtype():
    # Keras 3.15.1 divides with the tensor's `/`: TensorFlow gives float64 for int32/int64
    # and float32 for int16; a functional model's symbolic output says float32.
    a, b = np.arange(6).reshape(2, 3), np.ones((2, 3))
    for dtype, expected in [("int32", "float64"), ("int64", "float64"), ("int16", "float32")]:
        out = layers.Average()([a.astype(dtype), b.astype(dtype)])
        assert out.dtype == expected
        np.testing.assert_allclose(out.numpy(), (a + 1) / 2)
    i1, i2 = keras.Input((3,), dtype="int32"), keras.Input((3,), dtype="int32")
    out = layers.Average()([i1, i2])
    assert out.dtype == "float32"
    assert keras.Model([i1, i2], out).predict([a, b], verbose=0).dtype == "float64"
