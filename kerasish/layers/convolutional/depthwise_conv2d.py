"""DepthwiseConv2D: each input channel convolved with its own filters."""
from kerasish import activations, constraints, initializers, ops, regularizers
from kerasish.layers.convolutional.base_conv import (add_bias, check_positive_int, conv_arguments,
                                                     conv_output_shape, input_channels)
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer


class DepthwiseConv2D(Layer):
    """2D depthwise convolution layer.

    Each input channel `c` is convolved with `depth_multiplier` filters of
    its own; output channel `c * depth_multiplier + m` uses
    `kernel[:, :, c, m]` (Keras's order and layout `(kh, kw, channels,
    depth_multiplier)`). Computed as a grouped convolution (groups = channels).

    Args:
        kernel_size: int or tuple of 2 ints.
        strides: int or tuple of 2 ints (default 1).
        padding: "valid" or "same".
        depth_multiplier: positive int, filters per input channel.
        data_format: "channels_last" (default) or "channels_first".
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

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = 2
        self.depth_multiplier = check_positive_int(self, "depth_multiplier", depth_multiplier)
        (self.kernel_size, self.strides, self.padding, self.data_format,
         self.dilation_rate) = conv_arguments(self, 2, kernel_size, strides, padding,
                                              data_format, dilation_rate)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape):
        channels = input_channels(self, input_shape)
        self.compute_output_shape(input_shape)
        self.kernel = self.add_weight(
            name="kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(channels * self.depth_multiplier,),
                initializer=self.bias_initializer, regularizer=self.bias_regularizer,
                constraint=self.bias_constraint)
        channel_axis = -1 if self.data_format == "channels_last" else 1
        self.input_spec = InputSpec(ndim=4, axes={channel_axis: channels})
        self.built = True

    def call(self, inputs):
        self.compute_output_shape(inputs.shape)
        outputs = ops.depthwise_conv(inputs, self.kernel, strides=self.strides,
                                     padding=self.padding, data_format=self.data_format,
                                     dilation_rate=self.dilation_rate)
        if self.use_bias:
            outputs = add_bias(self, outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        channels = input_channels(self, input_shape)
        return conv_output_shape(self, input_shape, channels * self.depth_multiplier,
                                 self.kernel_size, self.padding)

    def get_config(self):
        config = super().get_config()
        config.update({
            "depth_multiplier": self.depth_multiplier,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "depthwise_initializer": initializers.serialize(self.depthwise_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "depthwise_constraint": constraints.serialize(self.depthwise_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        })
        return config
