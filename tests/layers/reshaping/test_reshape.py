"""Reshape: shapes and Keras 3.15.1's errors."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers


def test_reshape_infers_the_unknown_axis_symbolically_and_eagerly():
    assert layers.Reshape((2, -1))(keras.Input((3, 2))).shape == (None, 2, 3)
    assert layers.Reshape((3, -1)).compute_output_shape((None, None, 2)) == (None, 3, None)
    out = layers.Reshape((-1, 2, 3))(np.arange(12.0).reshape(2, 3, 2))
    assert out.shape == (2, 1, 2, 3)
    np.testing.assert_array_equal(out.numpy().reshape(-1), np.arange(12.0))
    model = keras.Sequential([keras.Input((None, 2)), layers.Reshape((-1,))])
    assert model.predict(np.ones((1, 3, 2)), verbose=0).shape == (1, 6)


@pytest.mark.parametrize("target,message", [  # Keras 3.15.1's messages
    ((5,), "The total size of the tensor must be unchanged. Received: input_shape=(3, 2), "
           "target_shape=(5,)"),
    ((-1, 4), "The total size of the tensor must be unchanged, however, the input size cannot "
              "by divided by the specified dimensions in target_shape. Received: "
              "input_shape=(3, 2), target_shape=(-1, 4)"),
])
def test_size_mismatch_is_refused_symbolically_and_eagerly(target, message):
    # raised inside `call`, so Keras reports it with the call's arguments
    head = f"Exception encountered when calling Reshape.call().\n\n\x1b[1m{message}\x1b[0m\n\n"
    inp = keras.Input((3, 2))
    with pytest.raises(ValueError) as info:
        layers.Reshape(target)(inp)
    assert str(info.value) == head + (
        f"Arguments received by Reshape.call():\n  • args=({repr(inp)!r},)\n"
        "  • kwargs=<class 'inspect._empty'>")
    with pytest.raises(ValueError) as info:
        layers.Reshape(target)(np.ones((2, 3, 2)))
    assert str(info.value) == head + (
        "Arguments received by Reshape.call():\n"
        "  • inputs=tf.Tensor(shape=(2, 3, 2), dtype=float32)")
    with pytest.raises(ValueError, match=r"^The total size"):  # compute_output_shape itself
        layers.Reshape(target).compute_output_shape((None, 3, 2))


def test_bad_target_shapes_are_refused_at_construction():
    with pytest.raises(ValueError, match=r"^There must be at most one unknown dimension \(-1\) "
                                         r"in `target_shape`. Received: target_shape=\(-1, -1\).$"):
        layers.Reshape((-1, -1))
    with pytest.raises(ValueError, match="must be a non-negative integer"):
        layers.Reshape((-2, 3))
