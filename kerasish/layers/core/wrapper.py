"""Wrapper: the base class of layers that wrap another layer."""
from kerasish.layers.layer import Layer
from kerasish.utils import registry


class Wrapper(Layer):
    """Abstract wrapper around another layer (`self.layer`); subclasses define `call`.

    Args:
        layer: the wrapped Layer instance.

    Example:
        >>> class Twice(keras.layers.Wrapper):
        ...     def call(self, x):
        ...         return 2 * self.layer(x)
        >>> Twice(keras.layers.Dense(3))(np.ones((2, 4))).shape
        (2, 3)
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer type. "
                             "Please ensure wrapped layer is a valid Keras layer.")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer._maybe_build(input_shape)

    def get_config(self):
        config = super().get_config()
        config["layer"] = registry.serialize_object_as_keras(self.layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["layer"] = registry.deserialize_object_as_keras(config.pop("layer"),
                                                                 custom_objects=custom_objects)
        return cls(**config)
