"""GRU: gated recurrent unit layer (Cho et al. 2014), Keras layout."""
from kerasish.layers.rnn import recurrent_layer
from kerasish.layers.rnn.gru_cell import GRUCell
from kerasish.layers.rnn.recurrent_layer import RecurrentLayer


class GRU(RecurrentLayer):
    """Gated Recurrent Unit layer.

    Weights live in the cell: `gru/gru_cell/{kernel, recurrent_kernel,
    bias}`; with `reset_after=True` (Keras 3's default) the bias has shape
    (2, 3*units). With tanh/sigmoid activations and no active dropout the
    whole sequence runs as one fused op.

    Args:
        units: positive int, dimensionality of the output space.
        activation: candidate activation (default "tanh").
        recurrent_activation: gate activation (default "sigmoid").
        use_bias: whether the layer uses a bias vector.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers.
        kernel_regularizer, recurrent_regularizer, bias_regularizer,
            activity_regularizer: regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout, recurrent_dropout: fractions dropped from the inputs / states.
        seed: seed of the dropout masks.
        return_sequences, return_state, go_backwards, stateful, unroll: see `RNN`.
        reset_after: apply the reset gate after the recurrent projection
            (True, Keras 3 / cuDNN convention) or before (False).
        use_cudnn: "auto" (default) or False run kerasish's fused op; True
            raises when called (kerasish has no cuDNN kernel), as Keras does
            wherever cuDNN cannot be used.
        **kwargs: base layer arguments; `implementation` (1 or 2) is accepted
            and stored on the cell; it does not change the numbers.

    Example:
        >>> keras.layers.GRU(4, return_sequences=True)(np.ones((32, 10, 8))).shape
        (32, 10, 4)
    """

    config_keys = recurrent_layer.layer_keys(
        "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
        "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
        "activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint",
        "dropout", "recurrent_dropout", "reset_after", "seed")
    input_ndim = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, reset_after=True,
                 use_cudnn="auto", **kwargs):
        cell = GRUCell(
            units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout, reset_after=reset_after,
            seed=seed, implementation=kwargs.pop("implementation", 2), name="gru_cell",
            **recurrent_layer.cell_kwargs(kwargs))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.use_cudnn = recurrent_layer.check_use_cudnn(self, use_cudnn)
