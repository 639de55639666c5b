"""keras.Input / InputLayer: shapes as Keras 3.15.1 accepts them."""
import pytest

import kerasish as keras


@pytest.mark.parametrize("make, text", [
    (lambda: keras.Input(4), "Cannot convert '4' to a shape."),
    (lambda: keras.Input(shape=4), "Cannot convert '4' to a shape."),
    (lambda: keras.layers.InputLayer(shape=4), "Cannot convert '4' to a shape."),
    (lambda: keras.Input(batch_shape=5), "Cannot convert '5' to a shape.")])
def test_an_int_is_no_shape_as_keras(make, text):
    # Keras 3.15.1's standardize_shape refuses a bare int (kerasish took 4 as (4,)).
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value) == text


def test_shapes_as_keras():
    assert keras.Input((None,)).shape == (None, None)
    assert keras.Input([3, 2]).shape == (None, 3, 2)
    assert keras.Input((3,), batch_size=8).shape == (8, 3)
