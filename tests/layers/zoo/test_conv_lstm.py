"""ConvLSTM layers beyond the Keras fixtures: float64 gradient checks, dropout in
training, stateful and initial states, masks, configs and errors."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers
from kerasish.testing import check_gradients

RNG = np.random.default_rng(8)


def test_conv_lstm2d_gradients_match_finite_differences():
    layer = layers.ConvLSTM2D(2, 2, padding="same", return_sequences=True, dtype="float64")
    x = RNG.normal(size=(1, 3, 3, 3, 2))
    layer(x)
    check_gradients(lambda x, k, r: layer(x), [x, layer.cell.kernel, layer.cell.recurrent_kernel])


def test_conv_lstm1d_masked_gradients_match_finite_differences():
    layer = layers.ConvLSTM1D(2, 3, dtype="float64")
    x = RNG.normal(size=(2, 4, 5, 2))
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1]], bool)
    check_gradients(lambda x: layer(x, mask=mask), [x])


def test_dropout_changes_training_outputs_only():
    layer = layers.ConvLSTM1D(3, 2, dropout=0.4, recurrent_dropout=0.4, seed=1)
    x = RNG.normal(size=(2, 3, 6, 2)).astype("float32")
    infer = layer(x).numpy()
    np.testing.assert_array_equal(layer(x, training=False).numpy(), infer)
    with keras.GradientTape() as tape:
        loss = keras.ops.sum(layer(x, training=True))
    assert not np.allclose(layer(x, training=True).numpy(), infer)
    assert all(g is not None for g in tape.gradient(loss, layer.trainable_weights))


def test_stateful_and_initial_state():
    layer = layers.ConvLSTM1D(2, 3, padding="same", stateful=True, return_state=True)
    x = RNG.normal(size=(2, 3, 5, 1)).astype("float32")
    out, h, c = layer(x)
    np.testing.assert_array_equal(out.numpy(), h.numpy())
    second, _, _ = layer(x)
    fresh = layers.ConvLSTM1D(2, 3, padding="same", return_state=True)
    fresh(x)
    fresh.set_weights(layer.get_weights())
    np.testing.assert_allclose(fresh(x, initial_state=[h, c])[0].numpy(), second.numpy(),
                               rtol=1e-6)
    layer.reset_states()
    np.testing.assert_allclose(layer(x)[0].numpy(), out.numpy(), rtol=1e-6)


def test_config_round_trip_and_shapes():
    layer = layers.ConvLSTM2D(4, (3, 2), strides=2, padding="same", return_sequences=True,
                              return_state=True)
    clone = layers.ConvLSTM2D.from_config(layer.get_config())
    assert clone.kernel_size == (3, 2) and clone.strides == (2, 2) and clone.filters == 4
    assert layer.compute_output_shape((None, 5, 8, 6, 3)) == \
        ((None, 5, 4, 3, 4), (None, 4, 3, 4), (None, 4, 3, 4))


def test_bad_input_is_explained():
    with pytest.raises(ValueError, match="filters"):
        layers.ConvLSTM2D(0, 3)
    with pytest.raises(ValueError, match="strides > 1.*dilation_rate > 1"):
        layers.ConvLSTM1D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="initial_state"):
        layer = layers.ConvLSTM1D(2, 3)
        layer(np.ones((1, 2, 5, 1)), initial_state=[np.zeros((1, 5, 2))] * 2)


def test_keras_rnn_config_keys_and_zero_output_for_mask():
    # Keras 3.15.1 configs carry `unroll` and `zero_output_for_mask` (loading one
    # failed before); with zero_output_for_mask=True masked steps output 0
    # (Keras printed [0.1516, 0.2728, 0.0, 0.0] / [0.2049, 0.0, 0.0652, 0.2152]).
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 4, 5, 3)).astype("float32")
    mask = np.array([[1, 1, 0, 0], [1, 0, 1, 1]], bool)
    layer = keras.layers.ConvLSTM1D(2, 2, padding="same", return_sequences=True,
                                    zero_output_for_mask=True)
    layer.build(x.shape)
    layer.set_weights([np.random.default_rng(i).normal(0, 0.4, w.shape).astype("float32")
                       for i, w in enumerate(layer.get_weights())])
    out = keras.ops.convert_to_numpy(layer(x, mask=mask))[:, :, 0, 0]
    np.testing.assert_allclose(out, [[0.1516, 0.2728, 0.0, 0.0], [0.2049, 0.0, 0.0652, 0.2152]],
                               atol=1e-4)
    config = layer.get_config()
    assert list(config)[3:9] == ["return_sequences", "return_state", "go_backwards", "stateful",
                                 "unroll", "zero_output_for_mask"]
    assert list(config)[-8:] == ["bias_regularizer", "activity_regularizer", "kernel_constraint",
                                 "recurrent_constraint", "bias_constraint", "dropout",
                                 "recurrent_dropout", "seed"]
    assert type(layer).from_config(config).zero_output_for_mask is True
