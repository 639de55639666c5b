"""ConvLSTMCell: the convolutional LSTM step (Shi et al., 2015), Keras 3's weights."""
from kerasish import activations, constraints, initializers, ops, random, regularizers
from kerasish.layers.convolutional.base_conv import layer_padding
from kerasish.layers.layer import Layer
from kerasish.ops.conv import conv_output_length, standardize_data_format, standardize_tuple
from kerasish.utils import registry


class ConvLSTMCell(Layer):
    """One step of a convolutional LSTM; gates i, f, c, o in that order along the last kernel axis.

    Weights: "kernel" `kernel_size + (input_channels, 4 * filters)`,
    "recurrent_kernel" `kernel_size + (filters, 4 * filters)` and "bias"
    `(4 * filters,)` (forget part initialised to ones with `unit_forget_bias`).
    The input convolution uses `strides`, `padding` and `dilation_rate`; the
    recurrent one is stride 1, "same".

    Args:
        rank: 1, 2 or 3 spatial axes.
        filters, kernel_size, strides, padding, data_format, dilation_rate:
            as the convolution layers.
        activation, recurrent_activation: tanh and sigmoid by default.
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
        unit_forget_bias, kernel_regularizer, recurrent_regularizer,
        bias_regularizer, kernel_constraint, recurrent_constraint,
        bias_constraint: as LSTMCell.
        dropout, recurrent_dropout: input / state dropout rates (training only).
        seed: int seed for the dropout masks.
    """

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        label = f"{type(self).__name__} '{self.name}'"
        if rank not in (1, 2, 3):
            raise ValueError(f"Rank {rank} convolutions are not currently implemented. "
                             f"Received: rank={rank}")
        if not isinstance(filters, int) or filters <= 0:
            raise ValueError(f"{label}: `filters` must be a positive int. Received: "
                             f"filters={filters}")
        self.rank = rank
        self.filters = filters
        self.kernel_size = standardize_tuple(kernel_size, rank, "kernel_size", label)
        self.strides = standardize_tuple(strides, rank, "strides", label)
        self.padding = layer_padding(padding)
        self.data_format = standardize_data_format(data_format, label)
        self.dilation_rate = standardize_tuple(dilation_rate, rank, "dilation_rate", label)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{label}: specifying `strides > 1` is not compatible with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}")
        self.seed = seed
        self.seed_generator = random.SeedGenerator(seed)  # drawn before the initializers, as Keras
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = unit_forget_bias
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.state_size = -1

    @property
    def _channel_axis(self):
        return -1 if self.data_format == "channels_last" else 1

    def build(self, inputs_shape, states_shape=None):
        spatial = inputs_shape[1:-1] if self.data_format == "channels_last" else inputs_shape[2:]
        if None in spatial:
            raise ValueError("ConvLSTM layers only support static input shapes for the spatial "
                             f"dimension. Received invalid input shape: input_shape={inputs_shape}")
        channels = inputs_shape[self._channel_axis]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found None. "
                             f"Full input shape received: input_shape={inputs_shape}")
        self.spatial_dims = tuple(spatial)
        self.input_dim = channels
        self.kernel = self.add_weight(
            name="kernel", shape=self.kernel_size + (channels, 4 * self.filters),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel", shape=self.kernel_size + (self.filters, 4 * self.filters),
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(4 * self.filters,), initializer=self._bias_init(),
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)

    def _bias_init(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, n = self.bias_initializer, self.filters

        def init(shape, dtype=None):
            return ops.concatenate([base((n,), dtype=dtype), ops.ones((n,), dtype=dtype),
                                    base((2 * n,), dtype=dtype)])
        return init

    def state_shape(self, batch_size):
        """The (h, c) state shape for a batch: the input convolution's output shape."""
        spatial = tuple(conv_output_length(n, k, s, self.padding, d) for n, k, s, d in zip(
            self.spatial_dims, self.kernel_size, self.strides, self.dilation_rate))
        if self.data_format == "channels_last":
            return (batch_size,) + spatial + (self.filters,)
        return (batch_size, self.filters) + spatial

    def get_initial_state(self, batch_size=None):
        shape = self.state_shape(batch_size)
        return [ops.zeros(shape, dtype=self.compute_dtype), ops.zeros(shape, dtype=self.compute_dtype)]

    def input_conv(self, x, kernel, bias=None):
        """The input convolution (any leading batch size), plus the bias."""
        out = ops.conv(x, kernel, strides=self.strides, padding=self.padding,
                       data_format=self.data_format, dilation_rate=self.dilation_rate)
        if bias is not None:
            shape = (1,) * (self.rank + 1) + (-1,) if self.data_format == "channels_last" \
                else (1, -1) + (1,) * self.rank
            out = ops.add(out, ops.reshape(bias, shape))
        return out

    def recurrent_conv(self, h, kernel):
        return ops.conv(h, kernel, strides=1, padding="same", data_format=self.data_format)

    def gates(self, z_x, z_h, c_prev):
        """New (h, c) from the input and recurrent pre-activations (4 * filters channels)."""
        zi, zf, zc, zo = ops.split(ops.add(z_x, z_h), 4, axis=self._channel_axis)
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        c = ops.add(ops.multiply(f, c_prev), ops.multiply(i, self.activation(zc)))
        o = self.recurrent_activation(zo)
        return ops.multiply(o, self.activation(c)), c

    def dropout_masks(self, like, rate):
        """Four inverted-dropout masks shaped like `like` (one per gate)."""
        ones = ops.ones_like(like)
        return [random.dropout(ones, rate, seed=self.seed_generator) for _ in range(4)]

    def per_gate(self, x, kernel, masks, conv, bias=None):
        """Sum over gates of conv(x * mask_g, kernel_g) concatenated on the channel axis."""
        kernels = ops.split(kernel, 4, axis=self.rank + 1)
        biases = ops.split(bias, 4) if bias is not None else [None] * 4
        outs = [conv(ops.multiply(x, m), k, b) if b is not None else conv(ops.multiply(x, m), k)
                for m, k, b in zip(masks, kernels, biases)]
        return ops.concatenate(outs, axis=self._channel_axis)

    def call(self, inputs, states, training=False):
        h_prev, c_prev = states
        if training and 0.0 < self.dropout < 1.0:
            z_x = self.per_gate(inputs, self.kernel, self.dropout_masks(inputs, self.dropout),
                                self.input_conv, self.bias)
        else:
            z_x = self.input_conv(inputs, self.kernel, self.bias)
        h, c = self.step(z_x, h_prev, c_prev, training)
        return h, [h, c]

    def step(self, z_x, h_prev, c_prev, training=False, recurrent_masks=None):
        if recurrent_masks is None and training and 0.0 < self.recurrent_dropout < 1.0:
            recurrent_masks = self.dropout_masks(h_prev, self.recurrent_dropout)
        if recurrent_masks is not None:
            z_h = self.per_gate(h_prev, self.recurrent_kernel, recurrent_masks,
                                self.recurrent_conv)
        else:
            z_h = self.recurrent_conv(h_prev, self.recurrent_kernel)
        return self.gates(z_x, z_h, c_prev)

    def get_config(self):
        config = super().get_config()
        ser = registry.serialize_keras_object
        config.update({
            "filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias, "kernel_initializer": ser(self.kernel_initializer),
            "recurrent_initializer": ser(self.recurrent_initializer),
            "bias_initializer": ser(self.bias_initializer),
            "unit_forget_bias": self.unit_forget_bias,
            "kernel_regularizer": ser(self.kernel_regularizer),
            "recurrent_regularizer": ser(self.recurrent_regularizer),
            "bias_regularizer": ser(self.bias_regularizer),
            "kernel_constraint": ser(self.kernel_constraint),
            "recurrent_constraint": ser(self.recurrent_constraint),
            "bias_constraint": ser(self.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed})
        return config
