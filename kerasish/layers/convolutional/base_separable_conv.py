"""BaseSeparableConv: the N-D separable convolution behind SeparableConv1D/2D."""
from kerasish import activations, constraints, initializers, regularizers
from kerasish.layers.convolutional.base_conv import (add_channel_bias, channel_input_spec,
                                                     check_positive_int, conv_arguments,
                                                     conv_output_shape, graph_activation,
                                                     input_channels,
                                                     keras_tf_bias_on_last_axis,
                                                     serialize_common)
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops.conv import depthwise_conv, fused_conv


class BaseSeparableConv(Layer):
    """Abstract N-D separable convolution: a depthwise conv, then a 1x...x1 conv mixing channels.

    Weights (Keras's order and layouts): `depthwise_kernel` (*kernel_size,
    channels, depth_multiplier), `pointwise_kernel` (1, ..., 1, channels *
    depth_multiplier, filters), `bias` (filters,).

    Args:
        rank: number of spatial axes (1 or 2).
        depth_multiplier: positive int, depthwise filters per input channel.
        filters: positive int, number of output channels.
        kernel_size: int or tuple of `rank` ints (of the depthwise step).
        strides: int or tuple (default 1).
        padding: "valid" or "same".
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: int or tuple (not combined with strides > 1).
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        depthwise_initializer, pointwise_initializer, bias_initializer: initializers.
        depthwise_regularizer, pointwise_regularizer, bias_regularizer,
            activity_regularizer: regularizers.
        depthwise_constraint, pointwise_constraint, bias_constraint: constraints.
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, rank, depth_multiplier, filters, kernel_size, strides=1,
                 padding="valid", data_format=None, dilation_rate=1, activation=None,
                 use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.depth_multiplier = check_positive_int(self, "depth_multiplier", depth_multiplier)
        self.filters = check_positive_int(self, "filters", filters)
        (self.kernel_size, self.strides, self.padding, self.data_format,
         self.dilation_rate) = conv_arguments(self, rank, kernel_size, strides, padding,
                                              data_format, dilation_rate,
                                              strided_dilation=True)  # as Keras
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2, max_ndim=rank + 2)

    def build(self, input_shape):
        channels = input_channels(self, input_shape)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel",
            shape=(1,) * self.rank + (channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.input_spec = channel_input_spec(self, channels)

    def call(self, inputs):
        self.compute_output_shape(inputs.shape)
        depthwise = depthwise_conv(inputs, self.depthwise_kernel, strides=self.strides,
                                   padding=self.padding, data_format=self.data_format,
                                   dilation_rate=self.dilation_rate)
        if self.bias is not None and keras_tf_bias_on_last_axis(
                self.data_format, self.compute_output_shape(inputs.shape)):
            outputs = add_channel_bias(fused_conv(depthwise, self.pointwise_kernel, None,
                                                  data_format=self.data_format),
                                       self.bias, self.data_format)
            return self.activation(outputs) if self.activation is not None else outputs
        return fused_conv(depthwise, self.pointwise_kernel, self.bias,
                          activation=graph_activation(self), data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        return conv_output_shape(self, input_shape, self.filters, self.kernel_size,
                                 self.padding)

    def get_config(self):
        config = super().get_config()
        config.update(serialize_common(self, (
            "depth_multiplier", "filters", "kernel_size", "strides", "padding", "data_format",
            "dilation_rate", "activation", "use_bias", "depthwise_initializer",
            "pointwise_initializer", "bias_initializer", "depthwise_regularizer",
            "pointwise_regularizer", "bias_regularizer", "activity_regularizer",
            "depthwise_constraint", "pointwise_constraint", "bias_constraint")))
        return config
