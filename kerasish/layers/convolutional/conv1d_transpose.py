"""Conv1DTranspose: transposed 1-D convolution (a.k.a. deconvolution)."""
from kerasish.layers.convolutional.base_conv_transpose import BaseConvTranspose


class Conv1DTranspose(BaseConvTranspose):
    """1D transposed convolution layer: the gradient of a Conv1D w.r.t. its input.

    Upsamples by `strides` (see `BaseConvTranspose` for the output sizes).
    Kernel layout `(*kernel_size, filters, in_channels)`, as Keras.

    Args:
        filters: positive int, number of output channels.
        kernel_size: int or tuple of 1 ints.
        strides: int or tuple of 1 ints (default 1).
        padding: "valid" or "same".
        output_padding: None, or int/tuple of 1 ints, each smaller than its stride.
        data_format: "channels_last" (batch, steps, channels) (default) or
            "channels_first".
        dilation_rate: int or tuple of 1 ints (not combined with strides > 1).
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.

    Example:
        >>> layer = keras.layers.Conv1DTranspose(8, 3, strides=2, padding="same")
        >>> layer(np.zeros((1, 7, 4), "float32")).shape
        (1, 14, 8)
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 output_padding=None, data_format=None, dilation_rate=1,
                 activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(
            rank=1, filters=filters, kernel_size=kernel_size, strides=strides,
            padding=padding, output_padding=output_padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, **kwargs)
