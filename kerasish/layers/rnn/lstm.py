"""LSTM: long short-term memory layer (Hochreiter 1997), Keras layout."""
from kerasish.layers.rnn.lstm_cell import LSTMCell
from kerasish.layers.rnn import recurrent_layer
from kerasish.layers.rnn.recurrent_layer import RecurrentLayer


class LSTM(RecurrentLayer):
    """Long Short-Term Memory layer.

    Takes every `LSTMCell` argument (units, activation, recurrent_activation,
    use_bias, initializers, unit_forget_bias, regularizers, constraints,
    dropout, recurrent_dropout, seed) and every `RNN` argument
    (return_sequences, return_state, go_backwards, stateful, unroll).
    Weights live in the cell: `lstm/lstm_cell/{kernel, recurrent_kernel, bias}`.

    Example:
        >>> keras.layers.LSTM(4)(np.ones((32, 10, 8))).shape
        (32, 4)
    """

    cell_class = LSTMCell
    cell_name = "lstm_cell"
    config_keys = recurrent_layer.layer_keys(
        "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
        "bias_initializer", "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer",
        "bias_regularizer", "activity_regularizer", "kernel_constraint", "recurrent_constraint",
        "bias_constraint", "dropout", "recurrent_dropout", "seed")
    input_ndim = 3
