"""Weight regularizers (`keras.regularizers`) and their get/serialize/deserialize.

    keras.layers.Dense(8, kernel_regularizer="l2")          # L2(0.01)
    keras.layers.Dense(8, kernel_regularizer=keras.regularizers.L1L2(l1=1e-5, l2=1e-4))
"""
from kerasish.regularizers.regularizers import (L1, L1L2, L2,
                                                OrthogonalRegularizer,
                                                Regularizer,
                                                validate_float_arg)
from kerasish.utils import registry

# snake_case aliases, as exported by Keras 3 (each is the class itself)
l1 = L1
l2 = L2
l1_l2 = L1L2
orthogonal_regularizer = OrthogonalRegularizer

ALL_OBJECTS_DICT = {
    "Regularizer": Regularizer, "regularizer": Regularizer,
    "L1": L1, "l1": L1, "L2": L2, "l2": L2,
    "L1L2": L1L2, "l1l2": L1L2,
    "OrthogonalRegularizer": OrthogonalRegularizer,
    "orthogonal_regularizer": OrthogonalRegularizer,
}

_CATALOG = registry.InstanceCatalog("regularizer", ALL_OBJECTS_DICT)
registry.REGISTRY.add_namespace("regularizers", globals(), _CATALOG)


def serialize(regularizer):
    """Returns the Keras 3 config dict of a regularizer.

    Args:
        regularizer: a Regularizer (None passes through; functions give their name).

    Returns:
        dict, str or None.

    Example:
        >>> keras.regularizers.serialize(keras.regularizers.L2(0.1))["config"]
        {'l2': 0.1}
    """
    return _CATALOG.serialize(regularizer)


def deserialize(config, custom_objects=None):
    """Rebuilds a regularizer from `serialize`'s output.

    Args:
        config: config dict or name.
        custom_objects: optional dict name -> class/function.

    Returns:
        A Regularizer instance (a class when `config` is a bare name).

    Example:
        >>> keras.regularizers.deserialize({"class_name": "L1", "config": {"l1": 0.1}})
    """
    return _CATALOG.deserialize(config, custom_objects)


def get(identifier):
    """Returns a regularizer for `identifier`.

    Args:
        identifier: None, a name ("l1", "l2", "l1l2", ... with default factors;
            as in Keras 3, "l1_l2" is not a name), a config dict, a class, an
            instance or a callable `weight -> scalar`.

    Returns:
        A callable regularizer, or None for None.

    Raises:
        ValueError: unknown name or a non-callable identifier.

    Example:
        >>> keras.regularizers.get("l2").l2
        0.01
    """
    return _CATALOG.get(identifier)


__all__ = ["L1", "L1L2", "L2", "OrthogonalRegularizer", "Regularizer", "deserialize",
           "get", "l1", "l1_l2", "l2", "orthogonal_regularizer", "serialize",
           "validate_float_arg"]
