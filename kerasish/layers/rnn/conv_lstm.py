"""ConvLSTM: the recurrent layer shared by ConvLSTM1D/2D/3D (Keras 3 semantics and weights)."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.rnn.state_variables import StateVariables
from kerasish.layers.rnn.conv_lstm_cell import ConvLSTMCell
from kerasish.utils import registry

_CELL_ARGS = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
              "activation", "recurrent_activation", "use_bias", "kernel_initializer",
              "recurrent_initializer", "bias_initializer", "unit_forget_bias",
              "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
              "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
              "recurrent_dropout")


class ConvLSTM(StateVariables, Layer):
    """Convolutional LSTM over (batch, time, *spatial, channels) sequences.

    The input convolution of every time step runs as one convolution over
    batch * time; each step then adds the recurrent convolution of the
    previous state. Masked steps carry the states over and repeat the
    previous output; with `go_backwards` the returned sequence is in
    processing order (last step first), as in Keras.

    Subclasses set `rank`. Arguments are those of `ConvLSTMCell` plus
    `return_sequences`, `return_state`, `go_backwards` and `stateful`.
    """

    rank = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, zero_output_for_mask=False,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.cell = ConvLSTMCell(
            self.rank, filters, kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
            recurrent_activation=recurrent_activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed,
            name="conv_lstm_cell", dtype=kwargs.get("dtype"))
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll  # Keras's RNN argument: no effect on the results
        self.zero_output_for_mask = zero_output_for_mask
        self.states = None
        self.supports_masking = True
        self.input_spec = InputSpec(ndim=self.rank + 3)

    def __getattr__(self, name):
        if name in _CELL_ARGS and "cell" in self.__dict__:
            return getattr(self.__dict__["cell"], name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def build(self, sequences_shape, initial_state_shape=None):
        sequences_shape = tuple(sequences_shape)
        if len(sequences_shape) != self.rank + 3:
            raise ValueError(f"{type(self).__name__} '{self.name}' expects {self.rank + 3}-D "
                             f"input (batch, time, ...); received shape {sequences_shape}")
        self.cell._maybe_build((sequences_shape[0],) + sequences_shape[2:])
        if self.stateful:
            if sequences_shape[0] is None:
                raise ValueError("When using `stateful=True` in a RNN, the batch size must be "
                                 f"static. Found dynamic batch size: {sequences_shape}")
            if self.states is not None:
                self.reset_states()
            else:  # as Keras (an RNN): non-trainable variables of the variable dtype
                self.states = [self._state_variable(v)
                               for v in self.cell.get_initial_state(sequences_shape[0])]

    def call(self, sequences, initial_state=None, mask=None, training=False):
        # the cell's kernels are read here, inside this layer's autocast scope (as Keras)
        with self.cell._variables_in_caller_scope():
            return self._run(sequences, initial_state, mask, training)

    def _run(self, sequences, initial_state, mask, training):
        x = ops.convert_to_tensor(sequences)
        batch, steps = x.shape[0], x.shape[1]
        cell = self.cell
        states = self._initial_states(batch, initial_state)
        z_all = self._input_projection(x, training)
        rec_masks = cell.dropout_masks(states[0], cell.recurrent_dropout) \
            if training and 0.0 < cell.recurrent_dropout < 1.0 else None
        mask = None if mask is None else ops.cast(mask, "bool")
        h, c = states
        outputs, previous = [], None
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        for t in order:
            h_new, c_new = cell.step(z_all[:, t], h, c, training, rec_masks)
            if mask is not None:
                m = ops.reshape(mask[:, t], (batch,) + (1,) * (h.ndim - 1))
                if previous is None or self.zero_output_for_mask:
                    previous = ops.zeros_like(h_new)
                out = ops.where(m, h_new, previous)
                h, c = ops.where(m, h_new, h), ops.where(m, c_new, c)
            else:
                out, h, c = h_new, h_new, c_new
            outputs.append(out)
            previous = out
        if self.stateful:
            for variable, value in zip(self.states, (h, c)):
                variable.assign(ops.stop_gradient(value))
        output = ops.stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        return (output, h, c) if self.return_state else output  # a tuple, as Keras

    def _initial_states(self, batch, initial_state):
        if initial_state is None:
            if self.stateful and self.states is not None:  # reads (copies) of the variables
                return [ops.copy(ops.cast(v, self.compute_dtype)) for v in self.states]
            return self.cell.get_initial_state(batch)
        states = [ops.convert_to_tensor(s) for s in initial_state]
        expected = self.cell.state_shape(batch)
        if len(states) != 2 or any(tuple(s.shape) != expected for s in states):
            raise ValueError(f"{type(self).__name__} '{self.name}': `initial_state` must be two "
                             f"tensors (h, c) of shape {expected}; received "
                             f"{[tuple(s.shape) for s in states]}.")
        return states

    def _input_projection(self, x, training):
        """Input convolution (with bias) of every step: (batch, time, *out_spatial, 4 * filters)."""
        cell = self.cell
        batch, steps = x.shape[0], x.shape[1]
        folded = ops.reshape(x, (batch * steps,) + x.shape[2:])
        if training and 0.0 < cell.dropout < 1.0:
            masks = cell.dropout_masks(x[:, 0], cell.dropout)
            masks = [ops.reshape(ops.repeat(ops.expand_dims(m, 1), steps, axis=1), folded.shape)
                     for m in masks]
            z = cell.per_gate(folded, cell.kernel, masks, cell.input_conv, cell.bias)
        else:
            z = cell.input_conv(folded, cell.kernel, cell.bias)
        return ops.reshape(z, (batch, steps) + z.shape[1:])

    def compute_mask(self, inputs, previous_mask=None):
        mask = previous_mask if self.return_sequences else None
        return [mask, None, None] if self.return_state else mask

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch, steps = sequences_shape[0], sequences_shape[1]
        if not getattr(self.cell, "built", False):
            self.cell._maybe_build((batch,) + tuple(sequences_shape[2:]))
        state = self.cell.state_shape(batch)
        output = (batch, steps) + state[1:] if self.return_sequences else state
        return (output, state, state) if self.return_state else output

    def get_config(self):
        """Keras 3.15.1's keys and order: the RNN's, then the cell's."""
        config = super().get_config()
        config.pop("activity_regularizer", None)
        config.update({"return_sequences": self.return_sequences,
                       "return_state": self.return_state, "go_backwards": self.go_backwards,
                       "stateful": self.stateful, "unroll": self.unroll,
                       "zero_output_for_mask": self.zero_output_for_mask})
        cell_config = self.cell.get_config()
        for key in _CELL_ARGS + ("seed",):
            config[key] = cell_config[key]
            if key == "bias_regularizer":
                config["activity_regularizer"] = registry.serialize_keras_object(
                    self._activity_regularizer)
        return config
