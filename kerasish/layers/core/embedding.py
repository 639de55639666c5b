"""Embedding: turns integer indices into dense vectors."""
from kerasish import constraints, initializers, ops, regularizers
from kerasish.autodiff.capture import host_check
from kerasish.autodiff.keras_tensor import KerasTensor
from kerasish.backend.devices import to_host
from kerasish.layers.layer import Layer
from kerasish.layers.lora_unsupported import LoRAUnsupported
from kerasish.utils import registry


class Embedding(LoRAUnsupported, Layer):
    """Maps each integer index in [0, input_dim) to a learned vector.

    The gradient is a scatter-add into the looked-up rows (never a dense
    one-hot matmul). Indices out of range raise an error instead of wrapping.

    Args:
        input_dim: vocabulary size (max index + 1).
        output_dim: embedding size.
        embeddings_initializer: default "uniform" (RandomUniform(-0.05, 0.05)).
        embeddings_regularizer, embeddings_constraint: as usual.
        mask_zero: treat index 0 as padding and emit a mask (`inputs != 0`).

    Input shape: integer tensor of any rank `(batch, ...)`.
    Output shape: `(batch, ..., output_dim)`.

    Example:
        >>> layer = keras.layers.Embedding(1000, 64)
        >>> layer(np.array([[4, 20, 0]])).shape
        (1, 3, 64)
    """

    # Keras saves only these (its `variable_serialization_spec`), not a subclass's extras.
    _serialized_variables = ("embeddings",)

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 weights=None, lora_rank=None, lora_alpha=None, quantization_config=None,
                 **kwargs):
        kwargs.pop("input_length", None)
        super().__init__(**kwargs)
        if quantization_config is not None:
            raise NotImplementedError("Embedding: quantization (`quantization_config`) is not "
                                      "supported by kerasish.")
        for arg, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"Embedding: `{arg}` must be a positive integer. Received: {arg}={value}")
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.autocast = False
        self._initial_weights = None
        if weights is not None:  # as Keras: built at once, from an array or a 1-item list
            self._maybe_build(None)
            self.set_weights(weights if isinstance(weights, (list, tuple)) else [weights])

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(
            shape=(self.input_dim, self.output_dim), initializer=self.embeddings_initializer,
            name="embeddings", regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint)

    def call(self, inputs):
        inputs = ops.convert_to_tensor(inputs)
        traced = isinstance(inputs, KerasTensor)  # (inside TimeDistributed): no values
        if inputs.dtype.startswith("float"):
            if not traced and not bool(ops.all(ops.equal(ops.floor(inputs), inputs))):
                raise ValueError(
                    f"Layer '{self.name}' (Embedding) expects integer indices; received float "
                    f"inputs with non-integer values (dtype {inputs.dtype}, shape {inputs.shape})."
                )
            inputs = ops.cast(inputs, "int32")
        elif not inputs.dtype.startswith(("int", "uint")):
            raise ValueError(
                f"Layer '{self.name}' (Embedding) expects integer indices; received dtype "
                f"{inputs.dtype}."
            )
        if not traced:
            host_check(self._check_indices, inputs)
        return ops.take(self.embeddings, inputs, axis=0)

    def _check_indices(self, indices):
        values = to_host(indices)
        if values.size and (values.min() < 0 or values.max() >= self.input_dim):
            raise ValueError(
                f"Layer '{self.name}' (Embedding): indices must be in [0, {self.input_dim}); "
                f"received min {int(values.min())}, max {int(values.max())}."
            )

    def compute_mask(self, inputs, previous_mask=None):
        if not self.mask_zero:
            return None
        return ops.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self):
        config = super().get_config()
        config.update({
            "input_dim": self.input_dim, "output_dim": self.output_dim,
            "embeddings_initializer": registry.serialize_keras_object(self.embeddings_initializer),
            "embeddings_regularizer": registry.serialize_keras_object(self.embeddings_regularizer),
            "activity_regularizer": registry.serialize_keras_object(self.activity_regularizer),
            "embeddings_constraint": registry.serialize_keras_object(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
            "quantization_config": None,  # Keras 3's key (kerasish does not quantize)
        })
        return config
