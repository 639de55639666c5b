"""GRUCell: one time step of a gated recurrent unit (Keras layout)."""
from kerasish import activations, ops
from kerasish.layers.rnn import base_cell
from kerasish.layers.rnn.base_cell import RecurrentCell


class GRUCell(RecurrentCell):
    """Cell class for the GRU layer; `h, [h] = cell(x_t, [h])`.

    Gates along 3*units are ordered z (update), r (reset), h (candidate).
    With `reset_after=True` (default) the bias has shape (2, 3*units): row 0
    for the input projection, row 1 for the recurrent one, and the reset
    gate multiplies the recurrent projection `r * (h @ U_h + b_rh)`.

    Args:
        units: dimensionality of the output/state.
        activation: candidate activation (tanh); recurrent_activation: gates (sigmoid).
        use_bias: whether the cell uses a bias vector.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout, recurrent_dropout: fractions dropped from the inputs / state,
            with masks fixed for a sequence (one per gate with implementation 1,
            which `recurrent_dropout` selects, as in Keras).
        reset_after: Keras 3 / cuDNN convention (True) or the original (False).
        seed: seed of the dropout masks.
        **kwargs: base layer arguments; `implementation` (1 or 2) is accepted
            and stored as `cell.implementation`; it does not change the numbers.

    Example:
        >>> cell = keras.layers.GRUCell(4)
        >>> h, (h,) = cell(np.ones((2, 3)), [np.zeros((2, 4))])
    """

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, reset_after=True, seed=None, **kwargs):
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
            self.dropout_mask_count = 3
        self.reset_after = reset_after
        self.state_size = units

    def build(self, input_shape):
        self._add_kernels(input_shape[-1], 3)
        self._add_bias((2, 3 * self.units) if self.reset_after else (3 * self.units,))

    def call(self, inputs, states, training=False):
        h_tm1 = states[0] if isinstance(states, (list, tuple)) else states
        in_masks, rec_masks = self.active_dropout_masks(inputs, h_tm1, training)
        x = base_cell.gate_matmul(inputs, self.kernel, in_masks)
        b_in = b_rec = None
        if self.bias is not None:
            b_in, b_rec = (self.bias[0], self.bias[1]) if self.reset_after else (self.bias, None)
            x = ops.add(x, b_in)
        x_z, x_r, x_h = ops.split(x, 3, axis=-1)
        if self.reset_after:
            rec = base_cell.gate_matmul(h_tm1, self.recurrent_kernel, rec_masks)
            if b_rec is not None:
                rec = ops.add(rec, b_rec)
            r_z, r_r, r_h = ops.split(rec, 3, axis=-1)
            z = self.recurrent_activation(ops.add(x_z, r_z))
            r = self.recurrent_activation(ops.add(x_r, r_r))
            hh = self.activation(ops.add(x_h, ops.multiply(r, r_h)))
        else:
            kernels = ops.split(self.recurrent_kernel, 3, axis=-1)
            h_z, h_r, h_h = _gate_states(h_tm1, rec_masks)
            z = self.recurrent_activation(ops.add(x_z, ops.matmul(h_z, kernels[0])))
            r = self.recurrent_activation(ops.add(x_r, ops.matmul(h_r, kernels[1])))
            hh = self.activation(ops.add(x_h, ops.matmul(ops.multiply(r, h_h), kernels[2])))
        h = ops.add(ops.multiply(z, h_tm1), ops.multiply(ops.subtract(1.0, z), hh))
        return h, [h]

    def get_config(self):
        config = super().get_config()
        config.update({"recurrent_activation": activations.serialize(self.recurrent_activation),
                       "reset_after": self.reset_after})
        return base_cell.keras_order(config, base_cell.GRU_CELL_KEYS)


def _gate_states(h, masks):
    """The state as the z, r and h gates' recurrent products see it (masked per gate)."""
    if masks is None:
        return h, h, h
    if not isinstance(masks, list):
        return (ops.multiply(h, masks),) * 3
    return tuple(ops.multiply(h, m) for m in masks)
