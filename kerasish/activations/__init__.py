"""Activation functions (`keras.activations`) and their get/serialize/deserialize.

    act = keras.activations.get("relu")      # the function itself
    keras.activations.serialize(act)         # "relu"

`get(None)` is `linear`; names are exact (case-sensitive) as in Keras 3.
"""
import types

from kerasish.activations.activations import (celu, crelu, elu, exponential,
                                              gelu, glu, hard_shrink,
                                              hard_sigmoid, hard_silu,
                                              hard_swish, hard_tanh,
                                              leaky_relu, linear, log_sigmoid,
                                              log_softmax, mish, relu, relu6,
                                              selu, sigmoid, silu, soft_shrink,
                                              softmax, softplus, softsign,
                                              sparse_plus, sparse_sigmoid,
                                              sparsemax, squareplus, swish,
                                              tanh, tanh_shrink, threshold)
from kerasish.saving import serialization

ALL_OBJECTS = (relu, leaky_relu, relu6, softmax, celu, elu, selu, softplus, softsign,
               squareplus, soft_shrink, sparse_plus, silu, gelu, glu, tanh, tanh_shrink,
               threshold, sigmoid, sparse_sigmoid, exponential, hard_sigmoid, hard_silu,
               hard_tanh, hard_shrink, linear, mish, log_softmax, log_sigmoid, sparsemax,
               crelu)
ALL_OBJECTS_DICT = {fn.__name__: fn for fn in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({"swish": silu, "hard_swish": hard_silu})


def serialize(activation):
    """Returns the saved form of an activation.

    Built-in functions give their name ("relu"); objects with `get_config`
    (e.g. a layer used as activation) give Keras 3's config dict; other
    functions give their registered name (or `__name__`), to be resolved
    through the registry or `custom_objects` on load.

    Args:
        activation: a function or callable object.

    Returns:
        str or dict.

    Example:
        >>> keras.activations.serialize(keras.activations.relu)
        'relu'
    """
    name = getattr(activation, "__name__", None)
    if ALL_OBJECTS_DICT.get(name) is activation:
        return name
    if isinstance(activation, (types.FunctionType, types.BuiltinFunctionType)):
        return serialization._NAMES.get(activation, activation.__name__)
    if hasattr(activation, "get_config"):
        return serialization.serialize_keras_object(activation)
    raise ValueError(
        "Cannot serialize activation: expected a function or an object with get_config(). "
        f"Received: activation={activation!r} ({type(activation).__name__})"
    )


def deserialize(config, custom_objects=None):
    """Returns the activation described by `serialize`'s output.

    Args:
        config: a name, a Keras 3 config dict, or Keras's
            `{"class_name": "function", "config": name}` form.
        custom_objects: optional dict name -> function/class.

    Returns:
        The activation function (or object).

    Example:
        >>> keras.activations.deserialize("gelu") is keras.activations.gelu
        True
    """
    if isinstance(config, dict) and config.get("class_name") == "function":
        config = config["config"]
    if isinstance(config, str):
        return _lookup(config, custom_objects)
    return serialization.deserialize_keras_object(
        config, module_objects=ALL_OBJECTS_DICT, custom_objects=custom_objects)


def _lookup(name, custom_objects=None):
    found = serialization.get_registered_object(name, custom_objects, ALL_OBJECTS_DICT)
    if found is None:
        raise ValueError(
            f"Unknown activation function identifier: '{name}'. Valid names: "
            f"{sorted(ALL_OBJECTS_DICT)} (or a registered custom activation)."
        )
    return found


def get(identifier):
    """Returns the activation function for `identifier`.

    Args:
        identifier: None (-> `linear`), a name ("relu"), a config dict, or a callable.

    Returns:
        A callable.

    Raises:
        ValueError: unknown name or a non-callable identifier.

    Example:
        >>> keras.activations.get("softmax") is keras.activations.softmax
        True
    """
    if identifier is None:
        return linear
    if isinstance(identifier, (str, dict)):
        obj = deserialize(identifier)
    else:
        obj = identifier
    if callable(obj):
        return obj
    raise ValueError(
        "Could not interpret activation function identifier: expected None, a name, a "
        f"config dict or a callable. Received: identifier={identifier!r} ({type(identifier).__name__})"
    )


__all__ = [
    "celu", "crelu", "deserialize", "elu", "exponential", "gelu", "get", "glu",
    "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu",
    "linear", "log_sigmoid", "log_softmax", "mish", "relu", "relu6", "selu", "serialize",
    "sigmoid", "silu", "soft_shrink", "softmax", "softplus", "softsign", "sparse_plus",
    "sparse_sigmoid", "sparsemax", "squareplus", "swish", "tanh", "tanh_shrink",
    "threshold",
]
