"""`keras.layers.serialize` / `keras.layers.deserialize`."""
from kerasish.utils import registry


def serialize(layer):
    """The layer's configuration as a Keras-format dict.

    Args:
        layer: a Layer.

    Returns:
        dict with "module", "class_name", "config", ...

    Example:
        >>> keras.layers.serialize(keras.layers.Dense(3))["class_name"]
        'Dense'
    """
    return registry.serialize_keras_object(layer)


def deserialize(config, custom_objects=None):
    """A layer from a dict written by `serialize` (or by real Keras).

    Args:
        config: the serialized layer.
        custom_objects: optional dict of names to custom classes.

    Returns:
        Layer.

    Example:
        >>> keras.layers.deserialize(keras.layers.serialize(keras.layers.Dense(3))).units
        3
    """
    return registry.deserialize_keras_object(config, custom_objects=custom_objects)
