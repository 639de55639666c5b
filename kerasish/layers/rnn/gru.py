"""GRU: gated recurrent unit layer (Cho et al. 2014), Keras layout."""
from kerasish.layers.rnn.gru_cell import GRUCell
from kerasish.layers.rnn import recurrent_layer
from kerasish.layers.rnn.recurrent_layer import RecurrentLayer


class GRU(RecurrentLayer):
    """Gated Recurrent Unit layer.

    Takes every `GRUCell` argument (including `reset_after=True`, whose bias
    has shape (2, 3*units)) and every `RNN` argument.

    Example:
        >>> keras.layers.GRU(4, return_sequences=True)(np.ones((32, 10, 8))).shape
        (32, 10, 4)
    """

    cell_class = GRUCell
    cell_name = "gru_cell"
    config_keys = recurrent_layer.layer_keys(
        "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
        "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
        "activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint",
        "dropout", "recurrent_dropout", "reset_after", "seed")
    input_ndim = 3
