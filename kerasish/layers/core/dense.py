"""Dense: the densely-connected layer `activation(inputs @ kernel + bias)`."""
from kerasish import activations, constraints, initializers, ops, regularizers
from kerasish.backend import keras_graph
from kerasish.ops import fused
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.lora_unsupported import LoRAUnsupported
from kerasish.utils import registry

class Dense(LoRAUnsupported, Layer):
    """Just your regular densely-connected NN layer.

    Computes `activation(dot(inputs, kernel) + bias)` over the last axis
    (relu and linear activations run fused with the matmul). Inside `fit`,
    `evaluate` and `predict`, sigmoid, tanh, elu and silu after the bias are
    computed as TensorFlow's fused kernel computes them there (oneDNN's),
    as in Keras; direct calls compute them as Keras's eager ops.

    Args:
        units: positive int, dimensionality of the output space.
        activation: activation function or name (None: linear).
        use_bias: whether to add a bias vector.
        kernel_initializer, bias_initializer: initializers (glorot_uniform, zeros).
        kernel_regularizer, bias_regularizer, activity_regularizer: regularizers.
        kernel_constraint, bias_constraint: constraints.

    Input shape: `(batch_size, ..., input_dim)`.
    Output shape: `(batch_size, ..., units)`.

    Example:
        >>> layer = keras.layers.Dense(10, activation="relu")
        >>> layer(np.ones((2, 784))).shape
        (2, 10)
    """

    # Keras saves only these (its `variable_serialization_spec`), not a subclass's extras.
    _serialized_variables = ("kernel", "bias")

    _float_inputs = True  # bool/int inputs are cast to the compute dtype

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None,
                 quantization_config=None, **kwargs):
        # checked before the base constructor, as Keras: a refused layer takes no name
        if not isinstance(units, int) or units <= 0:
            raise ValueError(
                "Received an invalid value for `units`, expected a positive integer. "
                f"Received: units={units}"
            )
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if lora_rank is not None or quantization_config is not None:
            raise NotImplementedError(
                "Dense: LoRA (`lora_rank`) and quantization (`quantization_config`) are not "
                "supported by kerasish.")
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(
                f"The last dimension of the inputs to a Dense layer should be defined. "
                f"Found None. Full input shape received: {input_shape}"
            )
        self.kernel = self.add_weight(
            name="kernel", shape=(input_dim, self.units), initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self.units,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})

    def call(self, inputs, training=None):
        if self.bias is None or not keras_graph.active():
            return ops.dense(inputs, self.kernel, self.bias, activation=self.activation)
        # in Keras's compiled functions TensorFlow fuses the activation into the product
        # and bias: relu inside the op, the others as `keras_graph.fused_activation`
        # gives them for an output marked here (as for an activation applied after)
        if self.activation in (activations.relu, ops.relu):
            return ops.dense(inputs, self.kernel, self.bias, activation=fused.GRAPH_RELU)
        out = ops.dense(inputs, self.kernel, self.bias)
        keras_graph.mark_bias_add(out)
        return self.activation(out)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        config = super().get_config()
        config.update({
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": registry.serialize_keras_object(self.kernel_initializer),
            "bias_initializer": registry.serialize_keras_object(self.bias_initializer),
            "kernel_regularizer": registry.serialize_keras_object(self.kernel_regularizer),
            "bias_regularizer": registry.serialize_keras_object(self.bias_regularizer),
            "kernel_constraint": registry.serialize_keras_object(self.kernel_constraint),
            "bias_constraint": registry.serialize_keras_object(self.bias_constraint),
            "quantization_config": None,
        })
        return config
