"""BaseConv: the N-D convolution behind Conv1D/2D/3D, and helpers the conv families share."""
from kerasish import activations, constraints, initializers, ops, regularizers
from kerasish.backend import keras_graph
from kerasish.ops import graph_activations
from kerasish.layers.argument_validation import standardize_tuple
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.lora_unsupported import LoRAUnsupported
from kerasish.ops.conv import (conv_output_length, conv_transpose_output_length, fused_conv,
                               standardize_data_format)


def layer_label(layer):
    """"Conv2D layer 'conv2d'" for error messages."""
    return f"{type(layer).__name__} layer '{layer.name}'"


def check_positive_int(layer, name, value):
    """Raises Keras's ValueError (its text) unless `value` is a positive int."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"Invalid value for argument `{name}`. Expected a strictly positive "
                         f"value. Received {name}={value}.")
    return value


def positive_tuple(layer, value, rank, name):
    """`value` as a tuple of `rank` positive ints (Keras's `standardize_tuple`)."""
    return standardize_tuple(value, rank, name)


def layer_padding(padding, allow_causal=False):
    """A convolution layer's `padding`, lower-cased, with Keras's check and words (its
    allowed values are a set, printed in Python's hash order)."""
    value = str(padding).lower()
    allowed_values = {"valid", "same", "causal"} if allow_causal else {"valid", "same"}
    if value not in allowed_values:
        raise ValueError("The `padding` argument must be a list/tuple or one of "
                         f"{allowed_values}. Received: {value}")
    return value


def conv_arguments(layer, rank, kernel_size, strides, padding, data_format, dilation_rate,
                   allow_causal=False, strided_dilation=False):
    """Validated (kernel_size, strides, padding, data_format, dilation_rate).

    `strided_dilation=True` accepts strides and dilation above 1 together (Keras's
    depthwise and separable convolutions do; its Conv and ConvTranspose refuse).
    """
    label = layer_label(layer)
    kernel_size = positive_tuple(layer, kernel_size, rank, "kernel_size")
    strides = positive_tuple(layer, strides, rank, "strides")
    dilation_rate = positive_tuple(layer, dilation_rate, rank, "dilation_rate")
    padding = layer_padding(padding, allow_causal)
    data_format = standardize_data_format(data_format, label)
    if not strided_dilation and max(strides) > 1 and max(dilation_rate) > 1:
        raise ValueError("`strides > 1` not supported in conjunction with "
                         f"`dilation_rate > 1`. Received: strides={strides} and "
                         f"dilation_rate={dilation_rate}")
    return kernel_size, strides, padding, data_format, dilation_rate


def input_channels(layer, input_shape):
    """The channel count of `input_shape`, checking the rank first."""
    rank = layer.rank + 2
    if len(input_shape) != rank:
        raise ValueError(f"{layer_label(layer)} expects inputs of rank {rank} (batch, "
                         f"{layer.rank} spatial axes, channels); received input shape "
                         f"{tuple(input_shape)}.")
    channels = input_shape[-1] if layer.data_format == "channels_last" else input_shape[1]
    if channels is None:
        raise ValueError(f"{layer_label(layer)}: the channel dimension of the inputs must be "
                         f"defined; received input shape {tuple(input_shape)}.")
    return channels


def conv_output_shape(layer, input_shape, filters, kernel_size, padding, transpose=False,
                      output_padding=None):
    """Output shape of a (transposed) convolution; errors name the layer and shapes."""
    input_shape = tuple(input_shape)
    channels_last = layer.data_format == "channels_last"
    spatial = input_shape[1:-1] if channels_last else input_shape[2:]
    out = []
    for i, (size, k, s, d) in enumerate(zip(spatial, kernel_size, layer.strides,
                                            layer.dilation_rate)):
        if transpose:
            pad = None if output_padding is None else output_padding[i]
            out.append(conv_transpose_output_length(size, k, s, padding, pad, d))
            continue
        length = conv_output_length(size, k, s, padding, d)
        if length is not None and length <= 0:
            k_eff = tuple(dd * (kk - 1) + 1 for kk, dd in zip(kernel_size, layer.dilation_rate))
            raise ValueError(
                f"{layer_label(layer)}: the kernel (size {tuple(kernel_size)}, "
                f"{k_eff} with dilation {tuple(layer.dilation_rate)}) is larger than the "
                f"input (spatial size {tuple(spatial)}) with padding={padding!r}; the output "
                f"would be empty. Full input shape received: {input_shape}.")
        out.append(length)
    if channels_last:
        return (input_shape[0],) + tuple(out) + (filters,)
    return (input_shape[0], filters) + tuple(out)


def add_channel_bias(outputs, bias, data_format):
    """`outputs + bias` with the bias broadcast along the channel axis (with Keras-on-
    TensorFlow's channels_first quirk, see `keras_tf_bias_on_last_axis`)."""
    if bias is None:
        return outputs
    if data_format == "channels_last" or keras_tf_bias_on_last_axis(data_format,
                                                                      outputs.shape):
        return ops.add(outputs, bias)
    return ops.add(outputs, ops.reshape(bias, (1, -1) + (1,) * (len(outputs.shape) - 2)))


def channel_input_spec(layer, channels):
    """The InputSpec fixing the channel axis after build."""
    channel_axis = -1 if layer.data_format == "channels_last" else 1
    # Keras: min_ndim (its message); the max keeps other ranks refused
    return InputSpec(min_ndim=layer.rank + 2, max_ndim=layer.rank + 2,
                     axes={channel_axis: channels})


def serialize_common(layer, names):
    """The get_config entries for `names` (initializers/regularizers/constraints by kind)."""
    kinds = (("initializer", initializers), ("regularizer", regularizers),
             ("constraint", constraints))
    config = {}
    for name in names:
        value = getattr(layer, name)
        if name == "activation":
            config[name] = activations.serialize(value)
            continue
        module = next((m for suffix, m in kinds if name.endswith(suffix)), None)
        config[name] = module.serialize(value) if module is not None else value
    return config


def reject_lora(layer, lora_rank, **extra):
    if lora_rank is not None or any(v is not None for v in extra.values()):
        raise NotImplementedError(f"{layer_label(layer)}: LoRA/DoRA adapters (`lora_rank`, "
                                  "`dora_rank`) are not supported by kerasish.")


def graph_activation(layer):
    """The layer's activation as Keras's compiled functions run it: TensorFlow fuses a
    2-D/3-D convolution (plain, depthwise or separable), its bias and a relu/relu6 into
    one oneDNN kernel, whose relu makes a NaN 0 (the eager relu and the unfused 1-D
    convolutions keep it)."""
    activation = layer.activation
    if keras_graph.active() and layer.bias is not None and layer.rank in (2, 3) and \
            layer.data_format == "channels_last":
        if activation in (activations.relu, ops.relu):
            return graph_activations.relu
        if activation in (activations.relu6, ops.relu6):
            return graph_activations.relu6
    return activation


def keras_tf_bias_on_last_axis(data_format, output_shape):
    """True when Keras 3.15.1 on TensorFlow adds a channels_first bias on the LAST axis.

    Keras adds the bias with `ops.add(outputs, reshape(bias, (1, C, 1, ...)))`, and its
    TensorFlow `add` turns that into `tf.nn.bias_add` in NHWC layout whenever the last
    axis has the bias's length: a channels_first output whose last spatial size equals
    `filters` gets the bias along that spatial axis. kerasish matches it on purpose
    (docs/fidelity.md, "Deliberate matches of Keras quirks").
    """
    return data_format == "channels_first" and output_shape[-1] == output_shape[1]


class BaseConv(LoRAUnsupported, Layer):
    """Abstract N-D convolution: `activation(conv(inputs, kernel) + bias)`.

    The kernel has Keras's layout `(*kernel_size, channels // groups, filters)`.

    Args:
        rank: number of spatial axes (1, 2 or 3).
        filters: positive int, number of output channels.
        kernel_size: int or tuple of `rank` ints.
        strides: int or tuple; `strides > 1` excludes `dilation_rate > 1`.
        padding: "valid" or "same" ("causal" too for rank 1).
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: int or tuple.
        groups: positive int dividing both the input channels and `filters`.
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.
    """

    # Keras saves only these (its `variable_serialization_spec`), not a subclass's extras.
    _serialized_variables = ("kernel", "bias")

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None,
                 dora_rank=None, dora_alpha=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        reject_lora(self, lora_rank, dora_rank=dora_rank)
        self.rank = rank
        self.filters = check_positive_int(self, "filters", filters)
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError("The number of groups must be a positive "
                             f"integer. Received: groups={groups}.")
        self.groups = groups
        if filters % groups:
            raise ValueError("The number of filters must be evenly "
                             f"divisible by the number of groups. Received: groups={groups}, "
                             f"filters={filters}.")
        (self.kernel_size, self.strides, self.padding, self.data_format,
         self.dilation_rate) = conv_arguments(self, rank, kernel_size, strides, padding,
                                              data_format, dilation_rate,
                                              allow_causal=rank == 1)
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
        if channels % self.groups:
            raise ValueError(
                "The number of input channels must be evenly divisible "
                f"by the number of groups. Received groups={self.groups}, but the input has "
                f"{channels} channels (full input shape is {tuple(input_shape)}).")
        self.compute_output_shape(input_shape)  # validates the spatial sizes
        self.kernel = self.add_weight(
            name="kernel", shape=self.kernel_size + (channels // self.groups, self.filters),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.input_spec = channel_input_spec(self, channels)

    # Keras's Conv1D has its own `call`, which never reaches `convolution_op`
    _calls_convolution_op = True

    def convolution_op(self, inputs, kernel):
        """The convolution of `call` without bias or activation (Keras's hook).

        A subclass overriding it changes what `call` convolves with (e.g. a
        standardized kernel); `call` then adds the bias and applies the
        activation. As in Keras, Conv1D's `call` does not use it.

        Args:
            inputs: the input tensor.
            kernel: the kernel to convolve with (`self.kernel` from `call`).

        Returns:
            `ops.conv(inputs, kernel, ...)` with the layer's strides, padding,
            dilation and data format.

        Example:
            >>> class Doubled(keras.layers.Conv2D):
            ...     def convolution_op(self, inputs, kernel):
            ...         return super().convolution_op(inputs, kernel * 2)
        """
        return ops.conv(inputs, kernel, strides=list(self.strides), padding=self.padding,
                        dilation_rate=self.dilation_rate, data_format=self.data_format)

    def call(self, inputs):
        self._check_spatial(inputs.shape)
        if self._calls_convolution_op and \
                type(self).convolution_op is not BaseConv.convolution_op:
            outputs = add_channel_bias(self.convolution_op(inputs, self.kernel), self.bias,
                                       self.data_format)
            return self.activation(outputs) if self.activation is not None else outputs
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            axis_pad = [(0, 0), (left, 0), (0, 0)] if self.data_format == "channels_last" \
                else [(0, 0), (0, 0), (left, 0)]
            inputs = ops.pad(inputs, axis_pad)
            padding = "valid"
        if self.bias is not None and keras_tf_bias_on_last_axis(
                self.data_format, self.compute_output_shape(inputs.shape)):
            outputs = add_channel_bias(fused_conv(
                inputs, self.kernel, None, strides=self.strides, padding=padding,
                data_format=self.data_format, dilation_rate=self.dilation_rate), self.bias,
                self.data_format)
            return self.activation(outputs) if self.activation is not None else outputs
        return fused_conv(inputs, self.kernel, self.bias, activation=graph_activation(self),
                          strides=self.strides, padding=padding,
                          data_format=self.data_format, dilation_rate=self.dilation_rate)

    _checked_spatial_shape = None

    def _check_spatial(self, shape):
        """Raises the layer's own error for inputs smaller than the kernel."""
        if shape != self._checked_spatial_shape:
            self.compute_output_shape(shape)
            self._checked_spatial_shape = shape

    def compute_output_shape(self, input_shape):
        return conv_output_shape(self, input_shape, self.filters, self.kernel_size,
                                 self.padding)

    def get_config(self):
        config = super().get_config()
        config.update(serialize_common(self, (
            "filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
            "groups", "activation", "use_bias", "kernel_initializer", "bias_initializer",
            "kernel_regularizer", "bias_regularizer", "activity_regularizer",
            "kernel_constraint", "bias_constraint")))
        return config
