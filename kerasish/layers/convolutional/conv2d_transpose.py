"""Conv2DTranspose: transposed 2-D convolution (a.k.a. deconvolution)."""
from kerasish import activations, constraints, initializers, ops, regularizers
from kerasish.layers.convolutional.base_conv import (add_bias, check_positive_int, conv_arguments,
                                                     conv_output_shape, input_channels,
                                                     layer_label, reject_lora)
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer


class Conv2DTranspose(Layer):
    """2D transposed convolution layer: the gradient of a Conv2D w.r.t. its input.

    Upsamples by `strides`: the output size per axis is
    `size * stride + max(kernel - stride, 0)` for "valid" and
    `size * stride` for "same" (or, with `output_padding`,
    `(size - 1) * stride + kernel - 2 * pad + output_padding`). The kernel
    has Keras's layout `(kh, kw, filters, in_channels)`.

    Args:
        filters: positive int, number of output channels.
        kernel_size: int or tuple of 2 ints.
        strides: int or tuple of 2 ints (default 1).
        padding: "valid" or "same".
        output_padding: None, or int/tuple of 2 ints, each smaller than its stride.
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: int or tuple of 2 ints (not combined with strides > 1).
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.

    Example:
        >>> layer = keras.layers.Conv2DTranspose(8, 3, strides=2, padding="same")
        >>> layer(np.zeros((1, 7, 7, 4), "float32")).shape
        (1, 14, 14, 8)
    """

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        reject_lora(self, lora_rank)
        self.rank = 2
        self.filters = check_positive_int(self, "filters", filters)
        (self.kernel_size, self.strides, self.padding, self.data_format,
         self.dilation_rate) = conv_arguments(self, 2, kernel_size, strides, padding,
                                              data_format, dilation_rate)
        self.output_padding = None
        if output_padding is not None:
            pads = (output_padding,) * 2 if isinstance(output_padding, int) \
                else tuple(output_padding)
            if len(pads) != 2 or any(not isinstance(p, int) or p < 0 for p in pads):
                raise ValueError(f"{layer_label(self)}: `output_padding` must be None or 2 "
                                 f"non-negative ints. Received: output_padding={output_padding}")
            if any(p >= s for p, s in zip(pads, self.strides)):
                raise ValueError(f"{layer_label(self)}: `output_padding` must be < `strides`. "
                                 f"output_padding={pads}, strides={self.strides}")
            self.output_padding = pads
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=4)

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
        channel_axis = -1 if self.data_format == "channels_last" else 1
        self.input_spec = InputSpec(ndim=4, axes={channel_axis: channels})
        self.built = True

    def call(self, inputs):
        outputs = ops.conv_transpose(inputs, self.kernel, strides=self.strides,
                                     padding=self.padding, output_padding=self.output_padding,
                                     data_format=self.data_format,
                                     dilation_rate=self.dilation_rate)
        if self.use_bias:
            outputs = add_bias(self, outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        return conv_output_shape(self, input_shape, self.filters, self.kernel_size,
                                 self.padding, transpose=True,
                                 output_padding=self.output_padding)

    def get_config(self):
        config = super().get_config()
        config.update({
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "output_padding": self.output_padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        })
        return config
