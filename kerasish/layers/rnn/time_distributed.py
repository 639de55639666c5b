"""TimeDistributed: applies a layer to every time step of a sequence."""
from kerasish import ops
from kerasish.layers.layer import Layer
from kerasish.utils import registry


class TimeDistributed(Layer):
    """Applies `layer` to each slice along axis 1 (time), sharing its weights.

    The time steps are folded into the batch for one call of `layer`.

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
            raise ValueError(f"Please initialize `TimeDistributed` with a `keras.layers.Layer` "
                             f"instance. Received: {layer}")
        self.layer = layer
        self.supports_masking = True

    def build(self, input_shape):
        if len(input_shape) < 3:
            raise ValueError(
                f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                f"dimensions, received: {input_shape}"
            )
        self.layer._maybe_build((None,) + tuple(input_shape[2:]))

    def call(self, inputs, training=None, mask=None):
        inputs = ops.convert_to_tensor(inputs)
        batch, steps = inputs.shape[0], inputs.shape[1]
        merged = -1 if batch is None or steps is None else batch * steps  # unknown when traced
        folded = ops.reshape(inputs, (merged,) + inputs.shape[2:])
        # as Keras: the wrapped layer's `call` runs inside this layer's scope
        outputs = self.layer._call_in_caller_scope(folded, training=training)
        return ops.reshape(outputs, (batch, steps) + outputs.shape[1:])

    def get_config(self):
        config = super().get_config()
        config["layer"] = registry.serialize_keras_object(self.layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["layer"] = registry.deserialize_keras_object(config["layer"],
                                                                 custom_objects=custom_objects)
        return cls(**config)
