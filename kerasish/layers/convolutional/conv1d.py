"""Conv1D: 1-D convolution over sequences (with causal padding)."""
from kerasish.layers.convolutional.base_conv import BaseConv


class Conv1D(BaseConv):
    """1D convolution layer (e.g. temporal convolution).

    Computes `activation(conv1d(inputs, kernel) + bias)`. With
    `padding="causal"` the input is padded on the left only, so output `t`
    sees inputs `<= t` (WaveNet style). Kernel layout
    `(kernel_size, in_channels // groups, filters)`.

    Args:
        filters: positive int, number of output channels.
        kernel_size: int or tuple of 1 int.
        strides: int or tuple of 1 int (default 1).
        padding: "valid", "same" or "causal".
        data_format: "channels_last" (batch, steps, c) (default) or "channels_first".
        dilation_rate: int or tuple of 1 int (not combined with strides > 1).
        groups: positive int; input channels and `filters` must be divisible by it.
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.

    Input shape: `(batch, steps, channels)` (or channels_first).
    Output shape: `(batch, new_steps, filters)` (or channels_first).

    Example:
        >>> layer = keras.layers.Conv1D(8, 3, padding="causal", dilation_rate=2)
        >>> layer(np.zeros((2, 10, 4), "float32")).shape
        (2, 10, 8)
    """

    _calls_convolution_op = False  # as Keras: Conv1D.call convolves by itself

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(
            rank=1, filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, groups=groups,
            activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, **kwargs)
