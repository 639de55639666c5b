"""SimpleRNN: a fully-connected recurrent layer."""
from kerasish.layers.rnn import recurrent_layer
from kerasish.layers.rnn.recurrent_layer import RecurrentLayer
from kerasish.layers.rnn.simple_rnn_cell import SimpleRNNCell


class SimpleRNN(RecurrentLayer):
    """Fully-connected RNN where the output is fed back as the next input.

    Takes every `SimpleRNNCell` argument and every `RNN` argument.

    Example:
        >>> keras.layers.SimpleRNN(4)(np.ones((32, 10, 8))).shape
        (32, 4)
    """

    cell_class = SimpleRNNCell
    cell_name = "simple_rnn_cell"
    config_keys = recurrent_layer.layer_keys(
        "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
        "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "activity_regularizer",
        "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
        "recurrent_dropout")
