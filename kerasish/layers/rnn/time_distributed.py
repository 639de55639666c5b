"""TimeDistributed: applies a layer to every time step of a sequence."""
from kerasish import ops
from kerasish.layers.call_utils import call_signature
from kerasish.layers.layer import Layer
from kerasish.utils import registry

# Layers whose output for a sample depends on that sample only and draws nothing:
# for them folding the steps into the batch gives the per-step results.
_FOLDABLE = frozenset({
    "Dense", "EinsumDense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose",
    "Conv2DTranspose", "Conv3DTranspose", "DepthwiseConv1D", "DepthwiseConv2D",
    "SeparableConv1D", "SeparableConv2D", "Flatten", "Activation", "ReLU", "Reshape",
    "Permute", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D",
    "AveragePooling2D", "AveragePooling3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D",
    "GlobalMaxPooling3D", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
    "GlobalAveragePooling3D", "LayerNormalization", "Embedding", "Rescaling",
})


class TimeDistributed(Layer):
    """Applies `layer` to each slice along axis 1 (time), sharing its weights.

    As Keras, `layer.call` runs once per time step when the number of steps
    is known, so a random layer (Dropout, ...) draws once per step and a
    BatchNormalization computes per-step batch statistics. Layers that act on
    each sample alone and draw nothing (Dense, convolutions, pooling, ...)
    run once on the steps folded into the batch: the same numbers, faster.

    Args:
        layer: the layer to apply.

    Example:
        >>> layer = keras.layers.TimeDistributed(keras.layers.Dense(8))
        >>> layer(np.ones((32, 10, 16))).shape
        (32, 10, 8)
    """

    _output_shape_known = True  # Keras implements compute_output_shape; kerasish traces `call`

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `TimeDistributed` layer with a "
                             f"`keras.layers.Layer` instance. Received: {layer}")
        self.layer = layer
        self.supports_masking = True

    def build(self, input_shape):
        if len(input_shape) < 3:
            raise ValueError(
                f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                f"dimensions, received: {input_shape}"
            )
        # as Keras: the wrapped layer is built for one step, batch size kept
        self.layer._maybe_build((input_shape[0],) + tuple(input_shape[2:]))

    def call(self, inputs, training=None, mask=None):
        inputs = ops.convert_to_tensor(inputs)
        batch, steps = inputs.shape[0], inputs.shape[1]
        if steps is not None and not self._foldable():
            return self._call_per_step(inputs, steps, training, mask)
        merged = -1 if batch is None or steps is None else batch * steps  # unknown when traced
        folded = ops.reshape(inputs, (merged,) + inputs.shape[2:])
        # as Keras: the wrapped layer's `call` runs inside this layer's scope
        outputs = self.layer._call_in_caller_scope(folded, training=training)
        return ops.reshape(outputs, (batch, steps) + outputs.shape[1:])

    def _foldable(self):
        cls = type(self.layer)
        return cls.__name__ in _FOLDABLE and cls.__module__.startswith("kerasish.layers")

    def _call_per_step(self, inputs, steps, training, mask):
        """Keras's static-time path: the layer's `call` on each step, stacked."""
        kwargs = {"training": training}
        per_step_mask = mask is not None and call_signature(type(self.layer)).has_mask
        outputs = []
        for i in range(steps):
            if per_step_mask:
                kwargs["mask"] = mask[:, i]
            outputs.append(self.layer._call_in_caller_scope(inputs[:, i], **kwargs))
        return ops.stack(outputs, axis=1)

    def get_config(self):
        config = super().get_config()
        config["layer"] = registry.serialize_object_as_keras(self.layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["layer"] = registry.deserialize_object_as_keras(config["layer"],
                                                                 custom_objects=custom_objects)
        return cls(**config)
