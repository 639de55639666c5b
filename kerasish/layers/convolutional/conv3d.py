"""Conv3D: 3-D convolution over volumes."""
from kerasish.layers.convolutional.base_conv import BaseConv


class Conv3D(BaseConv):
    """3D convolution layer (e.g. spatial convolution over volumes or video).

    Computes `activation(conv3d(inputs, kernel) + bias)` by im2col + one GEMM.
    The kernel has Keras's layout `(kd, kh, kw, in_channels // groups, filters)`.

    Args:
        filters: positive int, number of output channels.
        kernel_size: int or tuple of 3 ints.
        strides: int or tuple of 3 ints (default 1).
        padding: "valid" or "same".
        data_format: "channels_last" (batch, dim1, dim2, dim3, channels) (default) or
            "channels_first".
        dilation_rate: int or tuple of 3 ints (not combined with strides > 1).
        groups: positive int; input channels and `filters` must be divisible by it.
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.

    Input shape: `(batch, dim1, dim2, dim3, channels)` (or channels_first).
    Output shape: `(batch, new_dim1, new_dim2, new_dim3, filters)` (or channels_first).

    Example:
        >>> layer = keras.layers.Conv3D(4, 3)
        >>> layer(np.zeros((2, 6, 6, 6, 1), "float32")).shape
        (2, 4, 4, 4, 4)
    """

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1, 1), groups=1,
                 activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(
            rank=3, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, groups=groups,
            activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, **kwargs)
