"""Pipeline: applies a list of (preprocessing) layers one after the other."""
from kerasish.layers.call_utils import call_signature, get_mask
from kerasish.layers.layer import Layer
from kerasish.utils import registry, tree


class Pipeline(Layer):
    """Calls `layers` in order, each on the previous one's output, as Keras 3.15.1's
    `keras.layers.Pipeline`: `training` (when not None) and the mask are passed to the
    layers whose `call` takes them. Unlike `Sequential` it is a plain layer, meant for
    preprocessing (dict inputs such as `{"images": ..., "labels": ...}` pass through).

    Args:
        layers: list of layers.
        name: layer name.

    Example:
        >>> augment = keras.layers.Pipeline([keras.layers.RandomFlip(seed=1),
        ...                                  keras.layers.RandomInvert(factor=(1, 1))])
        >>> augment(np.zeros((2, 4, 4, 3))).shape
        (2, 4, 4, 3)
    """

    def __init__(self, layers, name=None):
        super().__init__(name=name)
        self._pipeline_layers = list(layers)

    @property
    def layers(self):
        return self._pipeline_layers

    def call(self, inputs, training=True, mask=None):
        outputs = inputs
        for layer in self._pipeline_layers:
            signature = call_signature(type(layer))
            kwargs = {}
            if signature.has_mask:
                kwargs["mask"] = mask
            if signature.has_training and training is not None:
                kwargs["training"] = training
            outputs = layer(inputs, **kwargs)
            inputs = outputs
            mask = tree.map_structure(get_mask, outputs)
        return outputs

    def get_config(self):
        return {"layers": [registry.serialize_object_as_keras(layer)
                           for layer in self._pipeline_layers], "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError("`Pipeline` config must contain a `layers` key mapping to a list "
                             f"of serialized layers. Received config with layers={layers}.")
        return cls([registry.deserialize_object_as_keras(layer, custom_objects=custom_objects)
                    for layer in layers], name=config.get("name"))
