"""LSTM: long short-term memory layer (Hochreiter 1997), Keras layout."""
from kerasish.layers.rnn import recurrent_layer
from kerasish.layers.rnn.lstm_cell import LSTMCell
from kerasish.layers.rnn.recurrent_layer import RecurrentLayer


class LSTM(RecurrentLayer):
    """Long Short-Term Memory layer.

    Weights live in the cell: `lstm/lstm_cell/{kernel, recurrent_kernel,
    bias}`, gates ordered i, f, c, o as in Keras. With tanh/sigmoid
    activations and no active dropout the whole sequence runs as one fused op.

    Args:
        units: positive int, dimensionality of the output space.
        activation: for the candidate and the output (default "tanh").
        recurrent_activation: for the gates (default "sigmoid").
        use_bias: whether the layer uses a bias vector.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers
            (glorot_uniform, orthogonal, zeros).
        unit_forget_bias: add 1 to the forget-gate bias at initialisation.
        kernel_regularizer, recurrent_regularizer, bias_regularizer,
            activity_regularizer: regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout, recurrent_dropout: fractions dropped from the inputs / states.
        seed: seed of the dropout masks.
        return_sequences, return_state, go_backwards, stateful, unroll: see `RNN`.
        use_cudnn: "auto" (default) or False run kerasish's fused op; True
            raises when called, since kerasish has no cuDNN kernel (Keras
            raises the same wherever cuDNN cannot be used).
        **kwargs: base layer arguments; `implementation` (1 or 2) is accepted
            and stored on the cell; it does not change the numbers.

    Example:
        >>> keras.layers.LSTM(4)(np.ones((32, 10, 8))).shape
        (32, 4)
    """

    config_keys = recurrent_layer.layer_keys(
        "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
        "bias_initializer", "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer",
        "bias_regularizer", "activity_regularizer", "kernel_constraint", "recurrent_constraint",
        "bias_constraint", "dropout", "recurrent_dropout", "seed")
    input_ndim = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, return_sequences=False,
                 return_state=False, go_backwards=False, stateful=False, unroll=False,
                 use_cudnn="auto", **kwargs):
        cell = LSTMCell(
            units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed,
            implementation=kwargs.pop("implementation", 2), name="lstm_cell",
            **recurrent_layer.cell_kwargs(kwargs))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.use_cudnn = recurrent_layer.check_use_cudnn(self, use_cudnn)
