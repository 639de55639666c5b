"""RNN: runs a recurrent cell over the time axis of a (batch, time, features) input.

Built-in cells (LSTMCell, GRUCell, SimpleRNNCell with default
activations) run through one fused sequence op (`kerasish.ops.rnn`), dropout
included; any other cell or a nested (higher-order) tape uses the
step-by-step loop over `cell.call`. As in Keras, a built-in cell's dropout
masks are drawn once per call, before the loop (training or not, so seeds
advance as in Keras), shared by all steps, and forgotten after the call.
"""
from kerasish import ops
from kerasish.backend import config
from kerasish.autodiff import tape as _tape
from kerasish.layers.keras_tensor import KerasTensor
from kerasish.layers.layer import Layer
from kerasish.layers.rnn.state_variables import StateVariables
from kerasish.layers.rnn.gru_cell import GRUCell
from kerasish.layers.rnn.lstm_cell import LSTMCell
from kerasish.layers.rnn.simple_rnn_cell import SimpleRNNCell
from kerasish.layers.rnn.stacked_rnn_cells import StackedRNNCells
from kerasish.ops import rnn as rnn_ops
from kerasish.utils import registry, tree


class RNN(StateVariables, Layer):
    """Base class for recurrent layers: `RNN(cell)` iterates `cell` over time.

    Args:
        cell: a cell (with `call(x_t, states)`, `state_size`) or a list of
            cells (stacked).
        return_sequences: return the output of every step, not just the last.
        return_state: also return the final states.
        go_backwards: process the sequence backwards (outputs in processing order).
        stateful: keep the final states as the next batch's initial states.
        unroll: accepted for Keras compatibility (the loop is always eager).
        zero_output_for_mask: masked steps output zeros instead of the previous output.

    Call arguments:
        sequences: (batch, time, features).
        initial_state: list of initial state tensors (zeros if None).
        mask: (batch, time) booleans; masked steps carry the state forward.
        training: enables the cells' dropout.

    Example:
        >>> layer = keras.layers.RNN(keras.layers.LSTMCell(4), return_sequences=True)
        >>> layer(np.ones((2, 5, 3))).shape
        (2, 5, 4)
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(
                "Argument `cell` should have a `call` method and a `state_size` attribute. "
                f"Received: cell={cell}"
            )
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.zero_output_for_mask = zero_output_for_mask
        self.supports_masking = True
        self.states = None

    def build(self, sequences_shape, initial_state_shape=None):
        if len(sequences_shape) != 3:
            raise ValueError(
                f"Layer '{self.name}' expects 3-D input (batch, time, features); received input "
                f"with shape {tuple(sequences_shape)}"
            )
        self.cell._maybe_build((sequences_shape[0], sequences_shape[-1]))
        self._feature_size = sequences_shape[-1]
        if self.stateful:
            if sequences_shape[0] is None:
                raise ValueError(
                    "When using `stateful=True` in a RNN, the batch size must be static. Found "
                    f"dynamic batch size: sequence.shape={tuple(sequences_shape)}"
                )
            if self.states is not None:
                self.reset_states()
            else:  # as Keras: non-trainable variables of the variable dtype, not weights
                self.states = [self._state_variable(v)
                               for v in self._cell_initial_state(sequences_shape[0])]

    def _cell_initial_state(self, batch):
        """The cell's `get_initial_state`, or zeros of each `state_size` (Keras's
        documented minimal cell has only `call` and `state_size`)."""
        if hasattr(self.cell, "get_initial_state"):
            return self.cell.get_initial_state(batch)
        return [ops.zeros((batch, n), dtype=self.compute_dtype) for n in self._state_sizes]

    @property
    def _output_size(self):
        """The cell's `output_size`, falling back to its (first) state size as Keras."""
        size = getattr(self.cell, "output_size", None)
        return self._state_sizes[0] if size is None else size

    @property
    def _state_sizes(self):
        size = self.cell.state_size
        return list(size) if isinstance(size, (list, tuple)) else [size]

    def call(self, sequences, initial_state=None, mask=None, training=False):
        x = ops.convert_to_tensor(sequences)
        if x.ndim != 3:
            raise ValueError(
                f"Layer '{self.name}' expects 3-D input (batch, time, features); received input "
                f"with shape {x.shape}"
            )
        features = getattr(self, "_feature_size", None)
        if features is not None and x.shape[-1] != features:
            raise ValueError(
                f"Layer '{self.name}' ({type(self).__name__}) was built for inputs with "
                f"{features} features (last axis) but received input with shape {x.shape} "
                f"({x.shape[-1]} features).")
        states = self._initial_states(x.shape[0], initial_state)
        mask = self._check_mask(mask, x)
        cell = self.cell
        drops = hasattr(cell, "active_dropout_masks") and (cell.dropout or cell.recurrent_dropout)
        if drops:  # Keras's _maybe_config_dropout_masks: drawn up front, every call
            self.cell.reset_dropout_masks()
            self.cell.get_dropout_mask(x[:, 0])
            self.cell.get_recurrent_dropout_mask(states[0])
        try:
            if self._can_fuse():
                seq, last, final = self._fused(x, states, mask, training)
                if self.zero_output_for_mask and mask is not None:
                    seq, last = self._zero_masked_outputs(seq, mask)
            else:
                seq, last, final = self._loop(x, states, mask, training)
        finally:
            if drops:
                self.cell.reset_dropout_masks()
        if self.stateful:  # the variables take the final states (cast to their dtype)
            for variable, value in zip(self.states, final):
                variable.assign(ops.stop_gradient(value))
        output = seq if self.return_sequences else last
        output, final = self._in_compute_dtype(output), [self._in_compute_dtype(s) for s in final]
        if self.return_state:  # a tuple, as Keras's `return output, *states`
            return (output, *self._nest_states(list(final)))
        return output

    def _in_compute_dtype(self, x):
        """Keras casts the outputs and final states to the layer's compute dtype (float16
        under "mixed_float16" when the cell computes in float32)."""
        if config.is_float_dtype(x.dtype) and x.dtype != self.compute_dtype:
            return ops.cast(x, self.compute_dtype)
        return x

    def _nest_states(self, flat, symbolic=None):
        """Final states as Keras returns them: flat for one cell; for stacked cells one
        entry per cell, a list of its states (a bare tensor for a single-state cell
        when traced symbolically, as Keras's output spec, or when the cell has no
        `get_initial_state`)."""
        if not isinstance(self.cell, StackedRNNCells):
            return flat
        if symbolic is None:
            symbolic = any(isinstance(s, KerasTensor) for s in flat)
        nested, start = [], 0
        for cell, count in zip(self.cell.cells, self.cell._counts()):
            group = flat[start:start + count]
            start += count
            single = not isinstance(cell.state_size, (list, tuple))
            # Keras keeps a cell's state as its initial state came: a list from the cell's
            # get_initial_state, a bare tensor from the zeros made for a cell without one
            bare = single and (symbolic or not hasattr(cell, "get_initial_state"))
            nested.append(group[0] if bare else group)
        return nested

    def _initial_states(self, batch, initial_state):
        if initial_state is None:
            if self.stateful and self.states is not None:
                # a read of each variable (a copy: the variables are assigned in place
                # while the step's backward may still need these values)
                return [ops.copy(ops.cast(v, self.compute_dtype)) for v in self.states]
            return self._cell_initial_state(batch)
        states = [ops.convert_to_tensor(s) for s in tree.flatten(initial_state)]
        sizes = self._state_sizes
        if len(states) != len(sizes):
            raise ValueError(
                f"Layer '{self.name}' expects {len(sizes)} initial state(s); received "
                f"{len(states)}."
            )
        for s, n in zip(states, sizes):
            if tuple(s.shape) != (batch, n):
                raise ValueError(
                    f"Layer '{self.name}': an initial state has shape {s.shape}, expected "
                    f"{(batch, n)} (batch, state size)."
                )
        return states

    def _check_mask(self, mask, x):
        if mask is None:
            return None
        mask = ops.convert_to_tensor(mask)
        if tuple(mask.shape) != x.shape[:2]:
            raise ValueError(
                f"Layer '{self.name}': the mask has shape {mask.shape} but the input has shape "
                f"{x.shape}; expected a mask of shape {x.shape[:2]} (batch, time)."
            )
        return ops.cast(mask, "bool")

    def _can_fuse(self):
        cell = self.cell
        if type(cell) not in (LSTMCell, GRUCell, SimpleRNNCell) or len(_tape._active) > 1:
            return False
        names = [getattr(cell.activation, "__name__", "")]
        if hasattr(cell, "recurrent_activation"):
            names.append(getattr(cell.recurrent_activation, "__name__", ""))
        return names[0] == "tanh" and names[1:] in ([], ["sigmoid"])

    def _fused(self, x, states, mask, training):
        cell = self.cell
        drop = cell.active_dropout_masks(x[:, 0], states[0], training)
        bias = cell.bias if cell.bias is not None else ops.zeros(
            (2, 3 * cell.units) if isinstance(cell, GRUCell) and cell.reset_after
            else (cell.kernel.shape[1],), dtype=x.dtype)
        # The cell's weights are read here, not in the cell's own call: cast them to the
        # compute dtype of the inputs (mixed precision keeps float32 masters).
        args = (x,) + tuple(w if w.dtype == x.dtype else ops.cast(w, x.dtype)
                            for w in (cell.kernel, cell.recurrent_kernel, bias))
        if isinstance(cell, LSTMCell):
            seq, last, h, c = rnn_ops.lstm_sequence(*args, states[0], states[1], mask=mask,
                                                    go_backwards=self.go_backwards, dropout=drop,
                                                    implementation=cell.implementation)
            return seq, last, [h, c]
        if isinstance(cell, GRUCell):
            seq, last, h = rnn_ops.gru_sequence(*args, states[0], mask=mask,
                                                go_backwards=self.go_backwards,
                                                reset_after=cell.reset_after, dropout=drop)
            return seq, last, [h]
        seq, last, h = rnn_ops.simple_rnn_sequence(*args, states[0], mask=mask,
                                                   go_backwards=self.go_backwards, dropout=drop)
        return seq, last, [h]

    def _zero_masked_outputs(self, seq, mask):
        """Outputs of masked steps set to zero (`seq` is in processing order)."""
        if self.go_backwards:
            mask = ops.flip(mask, axis=1)
        seq = ops.where(ops.expand_dims(mask, -1), seq, ops.zeros_like(seq))
        return seq, seq[:, -1]

    def _loop(self, x, states, mask, training):
        if hasattr(self.cell, "reset_dropout_masks") and \
                not hasattr(self.cell, "active_dropout_masks"):  # a built-in cell's are drawn
            self.cell.reset_dropout_masks()
        steps = range(x.shape[1] - 1, -1, -1) if self.go_backwards else range(x.shape[1])
        outputs, previous = [], None
        for t in steps:
            out, new_states = self.cell(x[:, t], states, training=training)
            new_states = list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]
            if previous is None:
                previous = ops.zeros_like(out)
            if mask is not None:
                m = ops.expand_dims(mask[:, t], -1)
                out = ops.where(m, out, ops.zeros_like(out) if self.zero_output_for_mask else previous)
                new_states = [ops.where(m, n, s) for n, s in zip(new_states, states)]
            outputs.append(out)
            states, previous = new_states, out
        return ops.stack(outputs, axis=1), outputs[-1], states

    def compute_mask(self, inputs, previous_mask=None):
        mask = previous_mask if self.return_sequences else None
        if self.return_state:
            return [mask] + [None] * len(self._nest_states(list(self._state_sizes), False))
        return mask

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch, steps = sequences_shape[0], sequences_shape[1]
        units = self._output_size
        out = (batch, steps, units) if self.return_sequences else (batch, units)
        if self.return_state:
            return (out, *self._nest_states([(batch, n) for n in self._state_sizes], True))
        return out

    def _rnn_config(self):
        return {"return_sequences": self.return_sequences, "return_state": self.return_state,
                "go_backwards": self.go_backwards, "stateful": self.stateful,
                "unroll": self.unroll, "zero_output_for_mask": self.zero_output_for_mask}

    def get_config(self):
        config = super().get_config()
        config.update(self._rnn_config())
        config["cell"] = registry.serialize_object_as_keras(self.cell)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["cell"] = registry.deserialize_object_as_keras(config["cell"],
                                                                custom_objects=custom_objects)
        return cls(**config)
