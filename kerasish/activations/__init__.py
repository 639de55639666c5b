"""Activation functions (`keras.activations`) and their get/serialize/deserialize.

    act = keras.activations.get("relu")      # the function itself
    keras.activations.serialize(act)         # "relu"

`get(None)` is `linear`; names are exact (case-sensitive) as in Keras 3.
"""
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
from kerasish.utils import registry

ALL_OBJECTS = (relu, leaky_relu, relu6, softmax, celu, elu, selu, softplus, softsign,
               squareplus, soft_shrink, sparse_plus, silu, gelu, glu, tanh, tanh_shrink,
               threshold, sigmoid, sparse_sigmoid, exponential, hard_sigmoid, hard_silu,
               hard_tanh, hard_shrink, linear, mish, log_softmax, log_sigmoid, sparsemax,
               crelu)
ALL_OBJECTS_DICT = {fn.__name__: fn for fn in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({"swish": silu, "hard_swish": hard_silu})

_CATALOG = registry.FunctionCatalog("activation function", ALL_OBJECTS_DICT, default=linear,
                                    short_kind="activation")
registry.REGISTRY.add_namespace("activations", globals(), _CATALOG)


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
    return _CATALOG.serialize(activation)


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
    return _CATALOG.deserialize(config, custom_objects)


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
    return _CATALOG.get(identifier)


__all__ = [
    "celu", "crelu", "deserialize", "elu", "exponential", "gelu", "get", "glu",
    "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu",
    "linear", "log_sigmoid", "log_softmax", "mish", "relu", "relu6", "selu", "serialize",
    "sigmoid", "silu", "soft_shrink", "softmax", "softplus", "softsign", "sparse_plus",
    "sparse_sigmoid", "sparsemax", "squareplus", "swish", "tanh", "tanh_shrink",
    "threshold",
]
