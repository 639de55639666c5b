"""SimpleRNNCell: one step of a fully-connected recurrent layer."""
from kerasish import ops
from kerasish.layers.rnn import base_cell
from kerasish.layers.rnn.base_cell import RecurrentCell


class SimpleRNNCell(RecurrentCell):
    """`h = activation(x @ W + h_prev @ U + b)`; `h, [h] = cell(x_t, [h])`.

    Args:
        units: dimensionality of the output/state.
        activation: default tanh.
        use_bias: whether the cell uses a bias vector.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout, recurrent_dropout: fractions dropped from the inputs / state.
        seed: seed of the dropout masks.

    Example:
        >>> cell = keras.layers.SimpleRNNCell(4)
        >>> h, (h,) = cell(np.ones((2, 3)), [np.zeros((2, 4))])
    """

    _seed_generator_first = True

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(
            units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.state_size = units

    def build(self, input_shape):
        self._add_kernels(input_shape[-1], 1)
        self._add_bias((self.units,))

    def call(self, inputs, states, training=False):
        h_tm1 = states[0] if isinstance(states, (list, tuple)) else states
        in_masks, rec_masks = self.active_dropout_masks(inputs, h_tm1, training)
        z = ops.add(base_cell.gate_matmul(inputs, self.kernel, in_masks),
                    base_cell.gate_matmul(h_tm1, self.recurrent_kernel, rec_masks))
        if self.bias is not None:
            z = ops.add(z, self.bias)
        h = self.activation(z)
        return h, [h]
