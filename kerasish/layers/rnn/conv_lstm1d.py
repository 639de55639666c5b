"""ConvLSTM1D: convolutional LSTM over sequences of 1-D feature maps."""
from kerasish.layers.rnn.conv_lstm import ConvLSTM


class ConvLSTM1D(ConvLSTM):
    """1-D convolutional LSTM (Shi et al., 2015), Keras 3's weights and semantics.

    Input shape: (batch, time, steps, channels) for channels_last.
    Weights (in the "conv_lstm_cell" sublayer): kernel
    `kernel_size + (channels, 4 * filters)`, recurrent_kernel
    `kernel_size + (filters, 4 * filters)`, bias `(4 * filters,)`; gates i, f, c, o.

    Args:
        filters: number of output channels.
        kernel_size: int or 1 ints.
        strides, padding ("valid"/"same"), data_format, dilation_rate: of the
            input convolution (the recurrent one is stride 1, "same").
        activation, recurrent_activation: tanh, sigmoid by default.
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
        unit_forget_bias, kernel_regularizer, recurrent_regularizer,
        bias_regularizer, activity_regularizer, kernel_constraint,
        recurrent_constraint, bias_constraint: as LSTM.
        dropout, recurrent_dropout: input and state dropout (training only).
        seed: int seed for the dropout masks.
        return_sequences, return_state, go_backwards, stateful: as LSTM.

    Example:
        >>> keras.layers.ConvLSTM1D(4, 3)(np.ones((2, 5, 8, 3))).shape
        (2, 6, 4)
    """

    rank = 1
