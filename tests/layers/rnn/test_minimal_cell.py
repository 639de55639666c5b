"""keras.layers.RNN with Keras's documented minimal cell: only `call` and `state_size`."""
import numpy as np

import kerasish as keras
from kerasish import ops


class MinimalCell(keras.layers.Layer):
    """The cell of Keras's RNN guide: no `output_size`, no `get_initial_state`."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units),
                                                initializer="ones")

    def call(self, inputs, states):
        output = ops.matmul(inputs, self.kernel) + ops.matmul(states[0], self.recurrent_kernel)
        return output, [output]


class TwoStateCell(MinimalCell):
    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)
        self.state_size = [units, units]

    def call(self, inputs, states):
        output = ops.matmul(inputs, self.kernel) + ops.matmul(states[0], self.recurrent_kernel)
        return output, [output, output * 2.0]


def _reference(x, units):
    """h_t = x_t @ 1 + h_{t-1} @ 1 from zero states, in numpy."""
    h = np.zeros((x.shape[0], units))
    for t in range(x.shape[1]):
        h = x[:, t].sum(-1, keepdims=True) + h.sum(-1, keepdims=True) + np.zeros_like(h)
    return h


def test_forward_from_zero_states():
    x = np.random.default_rng(0).random((3, 4, 2)).astype("float32")
    layer = keras.layers.RNN(MinimalCell(5))
    np.testing.assert_allclose(layer(x).numpy(), _reference(x, 5), rtol=1e-5)
    out, state = keras.layers.RNN(MinimalCell(5), return_state=True)(x)
    np.testing.assert_allclose(state.numpy(), out.numpy())


def test_output_size_falls_back_to_first_state_size():
    inputs = keras.Input((None, 2))
    outputs = keras.layers.RNN(TwoStateCell(3), return_sequences=True)(inputs)
    assert outputs.shape == (None, None, 3)
    seq, s1, s2 = keras.layers.RNN(TwoStateCell(3), return_sequences=True,
                                   return_state=True)(np.ones((2, 4, 2), "float32"))
    assert seq.shape == (2, 4, 3) and s1.shape == (2, 3) and s2.shape == (2, 3)
    np.testing.assert_allclose(s2.numpy(), 2.0 * s1.numpy())


def test_stateful_minimal_cell_keeps_state():
    layer = keras.layers.RNN(MinimalCell(2), stateful=True)
    x = np.ones((1, 1, 1), "float32")
    first = layer(x).numpy()
    second = layer(x).numpy()
    assert first.tolist() == [[1.0, 1.0]] and second.tolist() == [[3.0, 3.0]]
    layer.reset_states()
    np.testing.assert_allclose(layer(x).numpy(), first)


def test_stacked_minimal_cells_run_and_return_states_as_keras():
    # Keras 3.15.1 (probe /tmp/probe5/t/stk.py, probe5 session): stacked cells without
    # output_size / get_initial_state run (kerasish raised AttributeError); eagerly, a
    # single-state cell without get_initial_state gives a bare state tensor, GRUCell a
    # one-element list, LSTMCell a list of two; symbolically single states are bare.
    x = np.ones((2, 3, 4), "float32")

    def kinds(outputs):
        return [("list", len(t)) if isinstance(t, list) else "tensor" for t in outputs]

    for cells, eager, symbolic in [
            ([keras.layers.GRUCell(2), MinimalCell(3)],
             ["tensor", ("list", 1), "tensor"], ["tensor"] * 3),
            ([MinimalCell(3), keras.layers.LSTMCell(2)],
             ["tensor", "tensor", ("list", 2)], ["tensor", "tensor", ("list", 2)])]:
        assert kinds(keras.layers.RNN(cells, return_state=True)(x)) == eager
        assert kinds(keras.layers.RNN(cells, return_state=True)(keras.Input((3, 4)))) == symbolic
    out, first, second = keras.layers.RNN([MinimalCell(3), MinimalCell(2)],
                                          return_state=True)(x)
    assert out.shape == (2, 2) and first.shape == (2, 3) and second.shape == (2, 2)
