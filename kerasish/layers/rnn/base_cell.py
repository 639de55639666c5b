"""RecurrentCell: what LSTMCell, GRUCell and SimpleRNNCell share.

Constructor arguments (initializers, regularizers, constraints, dropout),
the kernel/recurrent-kernel weights, per-sequence dropout masks (Keras uses
one mask for every step of a sequence) and the common config keys.
"""
from kerasish import activations, constraints, initializers, ops, random, regularizers
from kerasish.layers.layer import Layer
from kerasish.utils import registry


class RecurrentCell(Layer):
    """Base of the built-in recurrent cells (not used directly)."""

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Received an invalid value for argument `units`, expected a positive "
                             f"integer, got {units}.")
        if self._seed_generator_first:
            self.seed_generator = random.SeedGenerator(seed)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.seed = seed
        if not self._seed_generator_first:
            self.seed_generator = random.SeedGenerator(seed)
        self.output_size = units
        self.reset_dropout_masks()

    def _add_kernels(self, input_dim, gates):
        self.kernel = self.add_weight(shape=(input_dim, gates * self.units), name="kernel",
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, gates * self.units), name="recurrent_kernel",
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)

    def _add_bias(self, shape, initializer=None):
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=shape, name="bias",
                                        initializer=initializer or self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    # Dropout masks shared by all steps of one sequence -----------------------
    # As Keras's DropoutRNNCell: a mask is drawn once per sequence (the RNN layer
    # draws both before its loop and forgets them after); cells that set
    # `dropout_mask_count` (LSTM/GRU with implementation 1, which Keras selects
    # whenever recurrent_dropout is set) draw one independent mask per gate.
    dropout_mask_count = None
    # The SeedGenerator's seed is drawn from Python's `random` at construction:
    # before the initializers' seeds (SimpleRNNCell) or after them (LSTM/GRU), as Keras.
    _seed_generator_first = False

    def reset_dropout_masks(self):
        """Forgets the masks; the RNN layer calls it after each sequence."""
        self._input_mask = None
        self._recurrent_mask = None

    def reset_dropout_mask(self):
        """Forgets the input mask (Keras's name)."""
        self._input_mask = None

    def reset_recurrent_dropout_mask(self):
        """Forgets the recurrent mask (Keras's name)."""
        self._recurrent_mask = None

    def _draw_mask(self, x, rate, attr):
        mask = getattr(self, attr)
        first = mask[0] if isinstance(mask, list) else mask
        if rate > 0 and (first is None or tuple(first.shape) != tuple(x.shape)):
            count = self.dropout_mask_count
            draws = [random.dropout(ops.ones_like(x), rate, seed=self.seed_generator)
                     for _ in range(count or 1)]
            mask = draws if count else draws[0]
            setattr(self, attr, mask)
        return mask

    def get_dropout_mask(self, step_input):
        """The input mask(s) of this sequence (drawn on first use when `dropout` > 0).

        Args:
            step_input: one step's input, (batch, features).

        Returns:
            None, a mask, or a list of `dropout_mask_count` masks.
        """
        return self._draw_mask(step_input, self.dropout if self.dropout < 1 else 0.0,
                               "_input_mask")

    def get_recurrent_dropout_mask(self, state):
        """The recurrent mask(s) of this sequence (drawn on first use when `recurrent_dropout` > 0).

        Args:
            state: the previous output, (batch, units).

        Returns:
            None, a mask, or a list of `dropout_mask_count` masks.
        """
        return self._draw_mask(state, self.recurrent_dropout if self.recurrent_dropout < 1
                               else 0.0, "_recurrent_mask")

    def active_dropout_masks(self, inputs, state, training):
        """(input masks, recurrent masks) this step applies: None where no dropout is active."""
        in_masks = self.get_dropout_mask(inputs) if training and 0 < self.dropout < 1 else None
        rec_masks = (self.get_recurrent_dropout_mask(state)
                     if training and 0 < self.recurrent_dropout < 1 else None)
        return in_masks, rec_masks

    def get_initial_state(self, batch_size=None):
        """Zero states, one per entry of `state_size`."""
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [self.state_size]
        return [ops.zeros((batch_size, n), dtype=self.compute_dtype) for n in sizes]

    def get_config(self):
        config = super().get_config()
        ser = registry.serialize_keras_object
        config.update({
            "units": self.units, "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": ser(self.kernel_initializer),
            "recurrent_initializer": ser(self.recurrent_initializer),
            "bias_initializer": ser(self.bias_initializer),
            "kernel_regularizer": ser(self.kernel_regularizer),
            "recurrent_regularizer": ser(self.recurrent_regularizer),
            "bias_regularizer": ser(self.bias_regularizer),
            "kernel_constraint": ser(self.kernel_constraint),
            "recurrent_constraint": ser(self.recurrent_constraint),
            "bias_constraint": ser(self.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout, "seed": self.seed,
        })
        return config


def gate_matmul(x, kernel, masks):
    """`x @ kernel` with dropout: one mask for all gates, or one per gate (its kernel columns).

    Args:
        x: (batch, n).
        kernel: (n, gates * units).
        masks: None, one (batch, n) mask, or a list of one mask per gate.

    Returns:
        (batch, gates * units).
    """
    if masks is None:
        return ops.matmul(x, kernel)
    if not isinstance(masks, list):
        return ops.matmul(ops.multiply(x, masks), kernel)
    kernels = ops.split(kernel, len(masks), axis=-1)
    return ops.concatenate([ops.matmul(ops.multiply(x, m), k) for m, k in zip(masks, kernels)],
                           axis=-1)


def keras_order(config, keys):
    """`config` with the keys in `keys` first, in that order (Keras's config order)."""
    ordered = {k: config[k] for k in keys if k in config}
    ordered.update({k: v for k, v in config.items() if k not in ordered})
    return ordered


_BASE_KEYS = ("name", "trainable", "dtype")
# Keras 3's key order of the cells' configs (after name, trainable, dtype).
LSTM_CELL_KEYS = _BASE_KEYS + (
    "units", "activation", "recurrent_activation", "use_bias", "unit_forget_bias",
    "kernel_initializer", "recurrent_initializer", "bias_initializer", "kernel_regularizer",
    "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
    "bias_constraint", "dropout", "recurrent_dropout", "seed")
GRU_CELL_KEYS = _BASE_KEYS + (
    "units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
    "recurrent_initializer", "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
    "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint",
    "dropout", "recurrent_dropout", "reset_after", "seed")
