"""SeparableConv2D: depthwise convolution followed by a pointwise one (2-D)."""
from kerasish.layers.convolutional.base_separable_conv import BaseSeparableConv


class SeparableConv2D(BaseSeparableConv):
    """2D separable convolution: a depthwise conv, then a pointwise conv mixing channels.

    Weights (Keras's order and layouts): `depthwise_kernel` (*kernel_size,
    channels, depth_multiplier), `pointwise_kernel` (1, 1, channels *
    depth_multiplier, filters), `bias` (filters,).

    Args:
        filters: positive int, number of output channels.
        kernel_size: int or tuple of 2 ints (of the depthwise step).
        strides: int or tuple of 2 ints (default 1).
        padding: "valid" or "same".
        data_format: "channels_last" (batch, rows, cols, channels) (default) or
            "channels_first".
        dilation_rate: int or tuple of 2 ints (not combined with strides > 1).
        depth_multiplier: positive int, depthwise filters per input channel.
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        depthwise_initializer, pointwise_initializer, bias_initializer: initializers.
        depthwise_regularizer, pointwise_regularizer, bias_regularizer,
            activity_regularizer: regularizers.
        depthwise_constraint, pointwise_constraint, bias_constraint: constraints.

    Example:
        >>> layer = keras.layers.SeparableConv2D(16, 3, padding="same")
        >>> layer(np.zeros((1, 8, 8, 3), "float32")).shape
        (1, 8, 8, 16)
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(
            rank=2, depth_multiplier=depth_multiplier, filters=filters,
            kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
            use_bias=use_bias, depthwise_initializer=depthwise_initializer,
            pointwise_initializer=pointwise_initializer, bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer,
            pointwise_regularizer=pointwise_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint,
            pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint,
            **kwargs)
