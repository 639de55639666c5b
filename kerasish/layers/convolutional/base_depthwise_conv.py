"""BaseDepthwiseConv: the N-D depthwise convolution behind DepthwiseConv1D/2D."""
from kerasish import activations, constraints, initializers, ops, regularizers
from kerasish.layers.convolutional.base_conv import (add_channel_bias, channel_input_spec,
                                                     check_positive_int, conv_arguments,
                                                     conv_output_shape, graph_activation,
                                                     input_channels, serialize_common)
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer


class BaseDepthwiseConv(Layer):
    """Abstract N-D depthwise convolution: each input channel convolved with its own filters.

    Output channel `c * depth_multiplier + m` is input channel `c` convolved
    with `kernel[..., c, m]` (Keras's order and layout `(*kernel_size,
    channels, depth_multiplier)`); weights are `kernel`, `bias`. Computed as
    a grouped convolution with groups == channels.

    Args:
        rank: number of spatial axes (1 or 2).
        depth_multiplier: positive int, filters per input channel.
        kernel_size: int or tuple of `rank` ints.
        strides: int or tuple (default 1).
        padding: "valid" or "same".
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: int or tuple (not combined with strides > 1).
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector (channels * depth_multiplier,).
        depthwise_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        depthwise_regularizer, bias_regularizer, activity_regularizer: regularizers.
        depthwise_constraint, bias_constraint: constraints.
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, rank, depth_multiplier, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.depth_multiplier = check_positive_int(self, "depth_multiplier", depth_multiplier)
        (self.kernel_size, self.strides, self.padding, self.data_format,
         self.dilation_rate) = conv_arguments(self, rank, kernel_size, strides, padding,
                                              data_format, dilation_rate,
                                              strided_dilation=True)  # as Keras
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2, max_ndim=rank + 2)

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
        self.input_spec = channel_input_spec(self, channels)

    def call(self, inputs):
        self.compute_output_shape(inputs.shape)
        outputs = ops.depthwise_conv(inputs, self.kernel, strides=self.strides,
                                     padding=self.padding, data_format=self.data_format,
                                     dilation_rate=self.dilation_rate)
        outputs = add_channel_bias(outputs, self.bias, self.data_format)
        activation = graph_activation(self)
        return activation(outputs) if activation is not None else outputs

    def compute_output_shape(self, input_shape):
        channels = input_channels(self, input_shape)
        return conv_output_shape(self, input_shape, channels * self.depth_multiplier,
                                 self.kernel_size, self.padding)

    def get_config(self):
        config = super().get_config()
        config.update(serialize_common(self, (
            "depth_multiplier", "kernel_size", "strides", "padding", "data_format",
            "dilation_rate", "activation", "use_bias", "depthwise_initializer",
            "bias_initializer", "depthwise_regularizer", "bias_regularizer",
            "activity_regularizer", "depthwise_constraint", "bias_constraint")))
        return config
