import numpy as np
import pytest

from kerasish import layers, ops
from kerasish.testing import check_gradients

from reference import gru as reference_gru
from reference import simple_rnn as reference_simple_rnn


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_matches_reference_and_bias_layout(reset_after):
    x = np.random.randn(2, 4, 3).astype("float32")
    layer = layers.GRU(5, return_sequences=True, reset_after=reset_after)
    seq = layer(x)
    kernel, rec, bias = [w.numpy().astype("float64") for w in layer.weights]
    assert bias.shape == ((2, 15) if reset_after else (15,))
    ref_seq, _ = reference_gru(x.astype("float64"), kernel, rec, bias, reset_after)
    np.testing.assert_allclose(seq.numpy(), ref_seq, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_gradients(reset_after):
    layer = layers.GRU(3, return_sequences=True, reset_after=reset_after, dtype="float64")
    x = np.random.randn(2, 4, 2)
    check_gradients(lambda x: layer(x, mask=np.array([[1, 0, 1, 1], [1, 1, 1, 0]], bool)), [x])


def test_simple_rnn_matches_reference_and_gradients():
    x = np.random.randn(2, 4, 3)
    layer = layers.SimpleRNN(3, return_sequences=True, dtype="float64")
    seq = layer(x)
    ref, _ = reference_simple_rnn(x, *[w.numpy() for w in layer.weights])
    np.testing.assert_allclose(seq.numpy(), ref, rtol=1e-7)
    check_gradients(lambda x: layer(x), [x])


def test_generic_rnn_with_stacked_cells_and_custom_cell():
    class MinimalCell(layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.state_size = units
            self.output_size = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units), name="w")

        def call(self, inputs, states):
            h = ops.add(ops.matmul(inputs, self.w), states[0])
            return h, [h]

        def get_initial_state(self, batch_size=None):
            return [ops.zeros((batch_size, self.units))]

    x = np.random.randn(2, 3, 4).astype("float32")
    cell = MinimalCell(2)
    out = layers.RNN(cell)(x)
    np.testing.assert_allclose(out.numpy(), (x @ cell.w.numpy()).sum(axis=1), rtol=1e-5)
    stacked = layers.RNN([layers.LSTMCell(4), layers.GRUCell(3)], return_state=True)
    y, (h1, c1), (h2,) = stacked(x)       # one list of states per cell, as Keras
    assert y.shape == (2, 3) and h1.shape == (2, 4) and h2.shape == (2, 3)
