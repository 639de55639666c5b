"""Conv2D: 2-D convolution over images."""
from kerasish.layers.convolutional.base_conv import BaseConv


class Conv2D(BaseConv):
    """2D convolution layer (e.g. spatial convolution over images).

    Computes `activation(conv2d(inputs, kernel) + bias)` by im2col + one GEMM
    (relu and linear activations fused). The kernel has Keras's layout
    `(kh, kw, in_channels // groups, filters)`, so Keras weights load unchanged.

    Args:
        filters: positive int, number of output channels.
        kernel_size: int or tuple of 2 ints.
        strides: int or tuple of 2 ints (default 1).
        padding: "valid" (no padding) or "same" (output size = ceil(input / stride)).
        data_format: "channels_last" (batch, h, w, c) (default) or "channels_first".
        dilation_rate: int or tuple of 2 ints (not combined with strides > 1).
        groups: positive int; input channels and `filters` must be divisible by it.
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.

    Input shape: `(batch, rows, cols, channels)` (or channels_first).
    Output shape: `(batch, new_rows, new_cols, filters)` (or channels_first).

    Example:
        >>> layer = keras.layers.Conv2D(32, 3, activation="relu")
        >>> layer(np.zeros((4, 28, 28, 1), "float32")).shape
        (4, 26, 26, 32)
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(
            rank=2, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, groups=groups,
            activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, **kwargs)
