"""LSTMCell: one time step of a long short-term memory layer (Keras layout)."""
from kerasish import activations, ops
from kerasish.layers.rnn import base_cell
from kerasish.layers.rnn.base_cell import RecurrentCell


class LSTMCell(RecurrentCell):
    """Cell class for the LSTM layer; callable on one step: `h, [h, c] = cell(x_t, [h, c])`.

    Gates along the 4*units axis are ordered i, f, c, o as in Keras, so
    Keras weights load unchanged.

    Args:
        units: dimensionality of the output/state.
        activation: for the candidate and the output (default tanh).
        recurrent_activation: for the gates (default sigmoid).
        use_bias: whether the cell uses a bias vector.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers
            (glorot_uniform, orthogonal, zeros).
        unit_forget_bias: initialise the forget-gate bias to 1 (default True).
        kernel_regularizer, recurrent_regularizer, bias_regularizer: regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout, recurrent_dropout: fractions dropped from the inputs / state,
            with masks fixed for a sequence.
        seed: seed of the dropout masks.
        **kwargs: base layer arguments; `implementation` (1 or 2) is accepted
            and stored as `cell.implementation`. As in Keras, implementation 1
            (forced by `recurrent_dropout`) draws one dropout mask per gate.

    Example:
        >>> cell = keras.layers.LSTMCell(4)
        >>> h, (h, c) = cell(np.ones((2, 3)), [np.zeros((2, 4)), np.zeros((2, 4))])
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, **kwargs):
        # Keras's `implementation` (1 or 2) only batched the gate matmuls differently.
        self.implementation = kwargs.pop("implementation", 2)
        super().__init__(
            units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        if self.recurrent_dropout != 0.0:  # as Keras: per-gate masks
            self.implementation = 1
        if self.implementation == 1:
            self.dropout_mask_count = 4
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [units, units]

    def build(self, input_shape):
        u = self.units
        self._add_kernels(input_shape[-1], 4)
        init = None
        if self.unit_forget_bias:
            def init(shape, dtype=None, base=self.bias_initializer):
                return ops.concatenate([base((u,), dtype=dtype), ops.ones((u,), dtype=dtype),
                                        base((2 * u,), dtype=dtype)])
        self._add_bias((4 * u,), init)

    def call(self, inputs, states, training=False):
        h_tm1, c_tm1 = states[0], states[1]
        in_masks, rec_masks = self.active_dropout_masks(inputs, h_tm1, training)
        z = ops.add(base_cell.gate_matmul(inputs, self.kernel, in_masks),
                    base_cell.gate_matmul(h_tm1, self.recurrent_kernel, rec_masks))
        if self.bias is not None:
            z = ops.add(z, self.bias)
        z_i, z_f, z_c, z_o = ops.split(z, 4, axis=-1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = ops.add(ops.multiply(f, c_tm1), ops.multiply(i, self.activation(z_c)))
        o = self.recurrent_activation(z_o)
        h = ops.multiply(o, self.activation(c))
        return h, [h, c]

    def get_config(self):
        config = super().get_config()
        config.update({"recurrent_activation": activations.serialize(self.recurrent_activation),
                       "unit_forget_bias": self.unit_forget_bias})
        return base_cell.keras_order(config, base_cell.LSTM_CELL_KEYS)
