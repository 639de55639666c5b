"""The RNN layer's return structure for stacked cells (Keras 3.15.1's nesting)."""
import numpy as np

import kerasish as keras
from kerasish import layers


def test_stacked_cells_return_states_nested_per_cell_like_keras():
    # Keras 3.15.1 (TF backend): RNN([GRUCell(3), LSTMCell(2)], return_state=True) returns
    # (out, [h_gru], [h, c]) eagerly and (out, h_gru, [h, c]) symbolically: one entry per
    # cell; a single stacked cell gives (out, [h, c]).
    x = np.random.default_rng(0).random((3, 6, 4)).astype("float32")
    rnn = layers.RNN([layers.GRUCell(3), layers.LSTMCell(2)], return_state=True)
    out, gru_states, lstm_states = rnn(x)
    assert tuple(out.shape) == (3, 2)
    assert [tuple(s.shape) for s in gru_states] == [(3, 3)]
    assert [tuple(s.shape) for s in lstm_states] == [(3, 2), (3, 2)]
    nested = rnn(x, initial_state=[gru_states, lstm_states])
    flat = rnn(x, initial_state=[*gru_states, *lstm_states])
    for a, b in zip(keras.tree.flatten(nested), keras.tree.flatten(flat)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.allclose(nested[0].numpy(), out.numpy())       # the states were used

    inputs = keras.Input((6, 4))
    out, gru_h, lstm_states = layers.RNN([layers.GRUCell(3), layers.LSTMCell(2)],
                                         return_state=True)(inputs)
    assert tuple(gru_h.shape) == (None, 3)
    assert [tuple(s.shape) for s in lstm_states] == [(None, 2), (None, 2)]
    single = layers.RNN([layers.LSTMCell(3)], return_state=True)(x)
    assert len(single) == 2 and len(single[1]) == 2


def test_return_state_outputs_and_shapes_are_tuples_as_keras():
    # Keras 3.15.1 (probe program /tmp/probe5/rnnst.py of the probe5 session): with
    # return_state, eager and symbolic calls return tuples, compute_output_shape a tuple
    # (a stacked cell's states nested in a list); Bidirectional and ConvLSTM1D alike.
    x = np.ones((2, 4, 3), "float32")
    stacked = layers.RNN(layers.StackedRNNCells([layers.LSTMCell(2), layers.GRUCell(3)]),
                         return_state=True)
    cases = [(layers.GRU(3, return_state=True), ((None, 3), (None, 3))),
             (layers.LSTM(2, return_state=True), ((None, 2), (None, 2), (None, 2))),
             (stacked, ((None, 3), [(None, 2), (None, 2)], (None, 3))),
             (layers.Bidirectional(layers.LSTM(2, return_state=True)),
              ((None, 4), (None, 2), (None, 2), (None, 2), (None, 2)))]
    for layer, shapes in cases:
        assert type(layer(keras.Input((4, 3)))) is tuple
        assert type(layer(x)) is tuple
        assert layer.compute_output_shape((None, 4, 3)) == shapes
    conv = layers.ConvLSTM1D(2, 2, return_state=True)
    assert type(conv(x[..., None])) is tuple and type(conv(keras.Input((4, 3, 1)))) is tuple
    both = layers.Bidirectional(layers.GRU(2, return_sequences=True), merge_mode=None)
    assert type(both(x)) is tuple


def test_stateful_states_are_variables_as_keras():
    # Keras 3.15.1 (probes /tmp/probe5/stf.py and mp8.py, probe5 session): a stateful
    # layer's states are non-trainable Variables of the variable dtype (float32 under
    # "mixed_float16"), not among the weights, assigned the final states of each call.
    x = np.random.default_rng(0).random((2, 3, 2)).astype("float32")
    layer = layers.GRU(2, stateful=True)
    model = keras.Sequential([keras.Input((3, 2), batch_size=2), layer, layers.Dense(1)])
    assert len(model.weights) == 5 and len(layer.weights) == 3
    (state,) = layer.states
    assert isinstance(state, keras.Variable) and not state.trainable
    assert state.dtype == "float32" and state.shape == (2, 2)
    out = layer(x)
    np.testing.assert_allclose(state.numpy(), np.asarray(out))
    layer.reset_state()
    assert not state.numpy().any() and layer.states[0] is state
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        lstm = layers.LSTM(2, stateful=True, return_state=True)
        outputs = lstm(x)
        assert [keras.backend.standardize_dtype(t.dtype) for t in outputs] == ["float16"] * 3
        assert [s.dtype for s in lstm.states] == ["float32", "float32"]
    finally:
        keras.mixed_precision.set_global_policy("float32")


def test_stateful_conv_lstm_states_are_variables_as_keras():
    # Keras 3.15.1 (probe /tmp/probe5/stf2.py): a stateful ConvLSTM2D's (h, c) are
    # non-trainable float32 Variables, not weights, refreshed by each call.
    x = np.random.default_rng(1).random((2, 3, 5, 5, 2)).astype("float32")
    layer = layers.ConvLSTM2D(2, 3, stateful=True, padding="same", return_state=True)
    model = keras.Sequential([keras.Input((3, 5, 5, 2), batch_size=2), layer])
    assert len(model.weights) == 3 and len(layer.states) == 2
    h_var, c_var = layer.states
    assert isinstance(h_var, keras.Variable) and not h_var.trainable
    assert h_var.dtype == "float32" and tuple(h_var.shape) == (2, 5, 5, 2)
    _, h, c = layer(x)
    np.testing.assert_allclose(h_var.numpy(), np.asarray(h))
    np.testing.assert_allclose(c_var.numpy(), np.asarray(c))
    layer.reset_state()
    assert not c_var.numpy().any()


def test_mask_is_not_passed_when_initial_state_is_a_second_tensor_argument():
    # Keras's Layer.__call__ fills `mask` from the inputs only when the call has one tensor
    # argument; with several (`lstm(x, initial_state=[h, c])`) only `<arg>_mask`
    # parameters get masks, so a seq2seq decoder on Embedding(mask_zero=True) runs
    # unmasked. The probe /tmp/probe5/s2s2.py (such a model's predict and fit) matches
    # Keras 3.15.1 only with this rule.
    ids = np.array([[1, 2, 0, 0], [3, 0, 0, 0]])
    embedded = layers.Embedding(5, 2, mask_zero=True)(ids)
    assert embedded._keras_mask is not None
    lstm = layers.LSTM(3, return_sequences=True)
    state = [np.full((2, 3), 0.1, "float32"), np.full((2, 3), -0.2, "float32")]
    plain = keras.ops.convert_to_tensor(np.asarray(embedded))  # the same values, no mask
    with_state = np.asarray(lstm(embedded, initial_state=state))
    np.testing.assert_allclose(with_state, np.asarray(lstm(plain, initial_state=state)))
    masked = np.asarray(lstm(embedded))  # one tensor argument: masked (steps repeat)
    np.testing.assert_allclose(masked[1, 1:], np.repeat(masked[1, :1], 3, axis=0))
    assert not np.allclose(masked, np.asarray(lstm(plain)))


def test_config_nests_the_cells_with_their_build_config():
    """Keras 3.15.1: RNN.get_config and StackedRNNCells.get_config serialize the
    built cells with `build_config` (batch size kept; the second stacked cell is
    built on the first one's output). Probe12 session, nest.py."""
    x = np.ones((2, 4, 5), "float32")
    single = keras.layers.RNN(keras.layers.SimpleRNNCell(3))
    single(x)
    assert single.get_config()["cell"]["build_config"] == {"input_shape": (2, 5)}
    stacked = keras.layers.RNN([keras.layers.GRUCell(3), keras.layers.LSTMCell(2)])
    stacked(x)
    cell = stacked.get_config()["cell"]
    assert cell["build_config"] == {"input_shape": (2, 5)}
    assert [c["build_config"] for c in cell["config"]["cells"]] == [
        {"input_shape": (2, 5)}, {"input_shape": (2, 3)}]
    again = keras.layers.RNN.from_config(single.get_config())
    assert again.cell.built and not again.built   # as Keras: the cell from its build_config
