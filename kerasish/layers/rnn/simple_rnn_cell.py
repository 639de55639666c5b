"""SimpleRNNCell: one step of a fully-connected recurrent layer."""
from kerasish import ops
from kerasish.layers.rnn.base_cell import RecurrentCell


class SimpleRNNCell(RecurrentCell):
    """`h = activation(x @ W + h_prev @ U + b)`; `h, [h] = cell(x_t, [h])`.

    Args:
        units: dimensionality of the output/state.
        activation: default tanh.
        use_bias, initializers, regularizers, constraints, dropout,
        recurrent_dropout, seed: see `RecurrentCell`.

    Example:
        >>> cell = keras.layers.SimpleRNNCell(4)
        >>> h, (h,) = cell(np.ones((2, 3)), [np.zeros((2, 4))])
    """

    def __init__(self, units, activation="tanh", **kwargs):
        super().__init__(units, activation=activation, **kwargs)
        self.state_size = units

    def build(self, input_shape):
        self._add_kernels(input_shape[-1], 1)
        self._add_bias((self.units,))

    def call(self, inputs, states, training=False):
        h_tm1 = states[0] if isinstance(states, (list, tuple)) else states
        inputs = self.dropout_inputs(inputs, training)
        h_in = self.dropout_state(h_tm1, training)
        z = ops.add(ops.matmul(inputs, self.kernel), ops.matmul(h_in, self.recurrent_kernel))
        if self.bias is not None:
            z = ops.add(z, self.bias)
        h = self.activation(z)
        return h, [h]
