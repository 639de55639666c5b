import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops


def test_lookup_mask_and_shape():
    layer = layers.Embedding(10, 4, mask_zero=True)
    x = np.array([[1, 2, 0, 0]])
    y = layer(x)
    assert y.shape == (1, 4, 4)
    np.testing.assert_array_equal(y.numpy()[0, 1], layer.embeddings.numpy()[2])
    np.testing.assert_array_equal(y._keras_mask.numpy(), [[True, True, False, False]])
    assert np.abs(layer.embeddings.numpy()).max() <= 0.05


def test_gradient_is_a_scatter_add_over_looked_up_rows():
    layer = layers.Embedding(5, 2)
    x = np.array([[1, 1, 3]])
    with keras.GradientTape() as tape:
        loss = ops.sum(layer(x))
    (grad,) = tape.gradient(loss, layer.trainable_weights)
    np.testing.assert_array_equal(grad.numpy(), [[0, 0], [2, 2], [0, 0], [1, 1], [0, 0]])


def test_out_of_range_and_float_indices_are_clear_errors():
    layer = layers.Embedding(5, 2)
    with pytest.raises(ValueError, match=r"indices must be in \[0, 5\).*max 7"):
        layer(np.array([[1, 7]]))
    with pytest.raises(ValueError, match="expects integer indices"):
        layer(np.array([[0.5, 1.0]]))
    np.testing.assert_array_equal(layer(np.array([[1.0, 2.0]])).numpy(),
                                  layer(np.array([[1, 2]])).numpy())


def test_masks_reach_the_lstm():
    model = keras.Sequential([keras.Input((None,), dtype="int32"),
                              layers.Embedding(20, 4, mask_zero=True), layers.LSTM(3)])
    padded = model(np.array([[5, 6, 0, 0]])).numpy()
    short = model(np.array([[5, 6]])).numpy()
    np.testing.assert_allclose(padded, short, rtol=1e-5)


def test_bad_dims_and_from_config_errors_as_keras():
    import pytest
    for bad in (3.7, 4.0, "3", None, True, False, -1, 0):
        with pytest.raises(ValueError, match="`input_dim` must be a positive integer"):
            keras.layers.Embedding(input_dim=bad, output_dim=8)
    # Keras reports a failing constructor inside from_config as a TypeError
    with pytest.raises(TypeError, match="Error when deserializing class 'Embedding'"):
        keras.layers.Embedding.from_config({"input_dim": 3.7, "output_dim": 8})


def test_weights_argument_builds_at_once():
    import numpy as np
    layer = keras.layers.Embedding(3, 4, weights=np.full((3, 4), 2.0))
    assert layer.built and layer.embeddings.numpy().tolist() == [[2.0] * 4] * 3
    layer = keras.layers.Embedding(3, 4, weights=[np.ones((3, 4))])
    assert layer(np.array([[0, 2]])).numpy().sum() == 8.0
