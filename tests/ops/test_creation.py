"""kerasish.ops.creation: constructors and their default dtypes."""
import numpy as np

import kerasish as keras
from kerasish import device, ops


def test_default_dtypes_like_keras():
    assert ops.zeros((2,)).dtype == "float32" and ops.ones(3).shape == (3,)
    assert ops.full((2,), 3).dtype == "float32"
    assert ops.full((2,), 3, dtype="int32").numpy().tolist() == [3, 3]
    assert ops.arange(5).dtype == "int32" and ops.arange(0.5, 3).dtype == "float32"
    assert ops.arange(1, 7, 2).numpy().tolist() == [1, 3, 5]
    assert ops.arange(3, dtype="float64").dtype == "float64"
    assert ops.linspace(0, 1, 5).dtype == "float32"
    assert ops.eye(3).dtype == "float32" and ops.identity(2).numpy().tolist() == [[1, 0], [0, 1]]
    assert ops.tri(3, k=-1).numpy().tolist() == np.tri(3, k=-1).tolist()
    assert ops.array([1, 2]).dtype == "int32" and ops.array([1.0]).dtype == "float32"


def test_like_constructors_keep_shape_dtype_and_device():
    x = ops.ones((2, 3), dtype="int32")
    assert ops.zeros_like(x).dtype == "int32" and ops.ones_like(x, dtype="float16").dtype == "float16"
    assert ops.full_like(x, 7).numpy().tolist() == [[7] * 3] * 2
    assert ops.empty_like(x).shape == (2, 3)
    with device("cpu:1"):
        y = ops.ones((2,))
    assert ops.zeros_like(y).device == "cpu:1"


def test_values():
    np.testing.assert_allclose(ops.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5))
    out, step = ops.linspace(0, 1, 5, retstep=True)
    assert step == 0.25 and out.shape == (5,)
    np.testing.assert_allclose(ops.logspace(0, 2, 3).numpy(), [1, 10, 100])
    np.testing.assert_array_equal(ops.eye(2, 3, k=1).numpy(), np.eye(2, 3, k=1))


def test_arange_up_to_an_unknown_dim_in_a_layer_trace():
    # Keras 3.15.1 on TensorFlow (/tmp/probe4/s2s.py, keras-io's PositionalEmbedding):
    # `ops.arange(0, ops.shape(x)[-1], 1)` in a layer's call on Input((None,))
    # traces to a length-None range, so the layer's output is (None, None, 8);
    # it was (0,) and the summary showed (None, 0, 8).
    class Positions(keras.layers.Layer):
        def call(self, inputs):
            length = ops.shape(inputs)[-1]
            return (ops.arange(0, length, 1), ops.arange(length),
                    ops.arange(start=0, stop=length), ops.arange(4))

    outs = Positions()(keras.Input((None,), dtype="int64"))
    assert [(o.shape, o.dtype) for o in outs] == [((None,), "int32")] * 3 + [((4,), "int32")]
    embed = keras.layers.Embedding(5, 8)
    x = keras.Input((None,), dtype="int64")
    assert (embed(x) + keras.layers.Embedding(6, 8)(Positions()(x)[0])).shape == (None, None, 8)
    assert ops.arange(0, None, 1).shape == (0,)   # eagerly: as Keras, an empty range
