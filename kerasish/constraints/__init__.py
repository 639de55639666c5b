"""Weight constraints (`keras.constraints`) and their get/serialize/deserialize.

    keras.layers.Dense(8, kernel_constraint="max_norm")     # MaxNorm(2, axis=0)
    keras.layers.Dense(8, kernel_constraint=keras.constraints.NonNeg())
"""
from kerasish.constraints.constraints import (Constraint, MaxNorm, MinMaxNorm,
                                              NonNeg, UnitNorm)
from kerasish.utils import registry

# snake_case aliases, as exported by Keras 3 (each is the class itself)
max_norm = MaxNorm
min_max_norm = MinMaxNorm
non_neg = NonNeg
unit_norm = UnitNorm

ALL_OBJECTS_DICT = {
    "Constraint": Constraint, "constraint": Constraint,
    "MaxNorm": MaxNorm, "max_norm": MaxNorm,
    "MinMaxNorm": MinMaxNorm, "min_max_norm": MinMaxNorm,
    "NonNeg": NonNeg, "non_neg": NonNeg,
    "UnitNorm": UnitNorm, "unit_norm": UnitNorm,
}

_CATALOG = registry.InstanceCatalog("constraint", ALL_OBJECTS_DICT)
registry.REGISTRY.add_namespace("constraints", globals(), _CATALOG)


def serialize(constraint):
    """Returns the Keras 3 config dict of a constraint.

    Args:
        constraint: a Constraint (None passes through; functions give their name).

    Returns:
        dict, str or None.

    Example:
        >>> keras.constraints.serialize(keras.constraints.NonNeg())["class_name"]
        'NonNeg'
    """
    return _CATALOG.serialize(constraint)


def deserialize(config, custom_objects=None):
    """Rebuilds a constraint from `serialize`'s output.

    Args:
        config: config dict or name.
        custom_objects: optional dict name -> class/function.

    Returns:
        A Constraint instance (a class when `config` is a bare name).

    Example:
        >>> keras.constraints.deserialize({"class_name": "UnitNorm", "config": {"axis": 0}})
    """
    return _CATALOG.deserialize(config, custom_objects)


def get(identifier):
    """Returns a constraint for `identifier`.

    Args:
        identifier: None, a name ("max_norm", "NonNeg", ...; default arguments),
            a config dict, a class, an instance or a callable `w -> w'`.

    Returns:
        A callable constraint, or None for None.

    Raises:
        ValueError: unknown name or a non-callable identifier.

    Example:
        >>> keras.constraints.get("non_neg")
        NonNeg()
    """
    return _CATALOG.get(identifier)


__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize",
           "get", "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm"]
