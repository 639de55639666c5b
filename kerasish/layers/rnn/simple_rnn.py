"""SimpleRNN: a fully-connected recurrent layer."""
from kerasish.layers.rnn import recurrent_layer
from kerasish.layers.rnn.recurrent_layer import RecurrentLayer
from kerasish.layers.rnn.simple_rnn_cell import SimpleRNNCell


class SimpleRNN(RecurrentLayer):
    """Fully-connected RNN where the output is fed back as the next input.

    Weights live in the cell: `simple_rnn/simple_rnn_cell/{kernel,
    recurrent_kernel, bias}`. As in Keras, SimpleRNN takes neither
    `use_cudnn` nor `implementation`.

    Args:
        units: positive int, dimensionality of the output space.
        activation: default "tanh".
        use_bias: whether the layer uses a bias vector.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers.
        kernel_regularizer, recurrent_regularizer, bias_regularizer,
            activity_regularizer: regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout, recurrent_dropout: fractions dropped from the inputs / states.
        return_sequences, return_state, go_backwards, stateful, unroll: see `RNN`.
        seed: seed of the dropout masks.

    Example:
        >>> keras.layers.SimpleRNN(4)(np.ones((32, 10, 8))).shape
        (32, 4)
    """

    config_keys = recurrent_layer.layer_keys(
        "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
        "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "activity_regularizer",
        "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
        "recurrent_dropout")

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, seed=None, **kwargs):
        cell = SimpleRNNCell(
            units, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed, name="simple_rnn_cell",
            **recurrent_layer.cell_kwargs(kwargs))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         activity_regularizer=activity_regularizer, **kwargs)
