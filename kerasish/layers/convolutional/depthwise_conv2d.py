"""DepthwiseConv2D: each input channel convolved with its own filters (2-D)."""
from kerasish.layers.convolutional.base_depthwise_conv import BaseDepthwiseConv


class DepthwiseConv2D(BaseDepthwiseConv):
    """2D depthwise convolution layer.

    Each input channel `c` is convolved with `depth_multiplier` filters of
    its own; output channel `c * depth_multiplier + m` uses
    `kernel[..., c, m]` (Keras's order and layout `(*kernel_size, channels,
    depth_multiplier)`).

    Args:
        kernel_size: int or tuple of 2 ints.
        strides: int or tuple of 2 ints (default 1).
        padding: "valid" or "same".
        depth_multiplier: positive int, filters per input channel.
        data_format: "channels_last" (batch, rows, cols, channels) (default) or
            "channels_first".
        dilation_rate: int or tuple of 2 ints (not combined with strides > 1).
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector (channels * depth_multiplier,).
        depthwise_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        depthwise_regularizer, bias_regularizer, activity_regularizer: regularizers.
        depthwise_constraint, bias_constraint: constraints.

    Example:
        >>> layer = keras.layers.DepthwiseConv2D(3, depth_multiplier=2)
        >>> layer(np.zeros((1, 8, 8, 3), "float32")).shape
        (1, 6, 6, 6)
    """

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(
            rank=2, depth_multiplier=depth_multiplier, kernel_size=kernel_size,
            strides=strides, padding=padding, data_format=data_format,
            dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
            depthwise_initializer=depthwise_initializer, bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint, bias_constraint=bias_constraint,
            **kwargs)
