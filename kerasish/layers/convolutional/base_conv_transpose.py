"""BaseConvTranspose: the N-D transposed convolution behind Conv1D/2D/3DTranspose."""
from kerasish import activations, constraints, initializers, ops, regularizers
from kerasish.layers.convolutional.base_conv import (add_channel_bias, channel_input_spec,
                                                     check_positive_int, conv_arguments,
                                                     conv_output_shape, input_channels,
                                                     reject_lora,
                                                     serialize_common)
from kerasish.layers.argument_validation import standardize_tuple
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer


def output_padding_tuple(layer, output_padding, strides):
    """`output_padding` as None or a tuple of `rank` ints, each smaller than its stride
    (Keras's checks and texts)."""
    if output_padding is None:
        return None
    pads = standardize_tuple(output_padding, layer.rank, "output_padding", allow_zero=True)
    for axis, (pad, stride) in enumerate(zip(pads, strides)):
        if pad >= stride:
            raise ValueError(
                "`output_padding` must be strictly less than "
                f"`strides` for all dimensions. At dimension {axis}, `output_padding` is "
                f"{pad} but `strides` is {stride}. Received: output_padding={pads}, "
                f"strides={strides}")
    return pads


class BaseConvTranspose(Layer):
    """Abstract N-D transposed convolution: the gradient of a convolution w.r.t. its input.

    Upsamples by `strides`: the output size per axis is
    `size * stride + max(kernel - stride, 0)` for "valid" and
    `size * stride` for "same" (or, with `output_padding`,
    `(size - 1) * stride + kernel - 2 * pad + output_padding`, pad = kernel // 2
    for "same"), with the dilated kernel size. The kernel has Keras's layout
    `(*kernel_size, filters, in_channels)`; weights are `kernel`, `bias`.

    Args:
        rank: number of spatial axes (1, 2 or 3).
        filters: positive int, number of output channels.
        kernel_size: int or tuple of `rank` ints.
        strides: int or tuple (default 1).
        padding: "valid" or "same".
        output_padding: None, or int/tuple of `rank` ints, each smaller than its stride.
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: int or tuple (not combined with strides > 1).
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 output_padding=None, data_format=None, dilation_rate=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        reject_lora(self, lora_rank)
        self.rank = rank
        self.filters = check_positive_int(self, "filters", filters)
        (self.kernel_size, self.strides, self.padding, self.data_format,
         self.dilation_rate) = conv_arguments(self, rank, kernel_size, strides, padding,
                                              data_format, dilation_rate)
        self.output_padding = output_padding_tuple(self, output_padding, self.strides)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2, max_ndim=rank + 2)

    def build(self, input_shape):
        channels = input_channels(self, input_shape)
        self.kernel = self.add_weight(
            name="kernel", shape=self.kernel_size + (self.filters, channels),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.input_spec = channel_input_spec(self, channels)

    def call(self, inputs):
        outputs = ops.conv_transpose(inputs, self.kernel, strides=self.strides,
                                     padding=self.padding, output_padding=self.output_padding,
                                     data_format=self.data_format,
                                     dilation_rate=self.dilation_rate)
        outputs = add_channel_bias(outputs, self.bias, self.data_format)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        # a list, as Keras's compute_conv_transpose_output_shape returns
        return list(conv_output_shape(self, input_shape, self.filters, self.kernel_size,
                                      self.padding, transpose=True,
                                      output_padding=self.output_padding))

    def get_config(self):
        config = super().get_config()
        config.update(serialize_common(self, (
            "filters", "kernel_size", "strides", "padding", "output_padding", "data_format",
            "dilation_rate", "activation", "use_bias", "kernel_initializer",
            "bias_initializer", "kernel_regularizer", "bias_regularizer",
            "activity_regularizer", "kernel_constraint", "bias_constraint")))
        return config
