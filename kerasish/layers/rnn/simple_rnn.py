"""SimpleRNN: a fully-connected recurrent layer."""
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
