"""Optimizers (`keras.optimizers`): Keras 3 update rules on fused kernels.

Example:
    >>> opt = keras.optimizers.get("adam")
    >>> opt.apply_gradients(zip(grads, model.trainable_variables))
"""
from kerasish.optimizers import legacy, schedules
from kerasish.optimizers.adadelta import Adadelta
from kerasish.optimizers.adafactor import Adafactor
from kerasish.optimizers.adagrad import Adagrad
from kerasish.optimizers.adam import Adam
from kerasish.optimizers.adamax import Adamax
from kerasish.optimizers.adamw import AdamW
from kerasish.optimizers.base_optimizer import BaseOptimizer
from kerasish.optimizers.lamb import Lamb
from kerasish.optimizers.lion import Lion
from kerasish.optimizers.multi_optimizer import MultiOptimizer, OptimizerMap
from kerasish.optimizers.muon import Muon
from kerasish.optimizers.nadam import Nadam
from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rmsprop import RMSprop
from kerasish.optimizers.schedule_free_adamw import ScheduleFreeAdamW
from kerasish.optimizers.sgd import SGD

ALL_OBJECTS = (Adadelta, Adafactor, Adagrad, Adam, Adamax, AdamW, Lamb, Lion, Muon, Nadam,
               RMSprop, SGD, ScheduleFreeAdamW)
ALL_OBJECTS_DICT = {cls.__name__.lower(): cls for cls in ALL_OBJECTS}


def serialize(optimizer):
    """Returns an optimizer's Keras-format config dict.

    Args:
        optimizer: an `Optimizer` instance.

    Returns:
        dict: `{"module", "class_name", "config", "registered_name"}`.

    Example:
        >>> keras.optimizers.serialize(keras.optimizers.SGD())["class_name"]
        'SGD'
    """
    if not isinstance(optimizer, BaseOptimizer):
        raise ValueError(f"`serialize` expects an Optimizer instance. Received: {optimizer!r}")
    cls = type(optimizer)
    builtin = cls in ALL_OBJECTS
    return {
        "module": "keras.optimizers" if builtin else cls.__module__,
        "class_name": cls.__name__,
        "config": optimizer.get_config(),
        "registered_name": None if builtin else cls.__name__,
    }


def deserialize(config, custom_objects=None):
    """Re-creates an optimizer from `serialize`'s output.

    Built-in class names match case-insensitively ("adam", "Adam", "ADAM").

    Args:
        config: a dict with "class_name" and "config".
        custom_objects: optional dict mapping names to custom optimizer classes.

    Returns:
        Optimizer: the new optimizer (fresh state).

    Example:
        >>> keras.optimizers.deserialize({"class_name": "sgd", "config": {}}).name
        'sgd'
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(
            "Could not interpret optimizer config: expected a dict with 'class_name' "
            f"and 'config'. Received: {config!r}"
        )
    custom = dict(custom_objects or {})
    names = [config.get("registered_name"), config["class_name"]]
    cls = next((custom[n] for n in names if n in custom), None)
    if cls is None:
        cls = ALL_OBJECTS_DICT.get(str(config["class_name"]).lower())
    if cls is None:
        raise ValueError(
            f"Could not interpret optimizer identifier: {config['class_name']!r}. "
            f"Valid names: {sorted(ALL_OBJECTS_DICT)}. Pass custom optimizers with "
            "`custom_objects`."
        )
    settings = dict(config.get("config") or {})
    if custom_objects:
        return cls.from_config(settings, custom_objects=custom_objects)
    return cls.from_config(settings)


def get(identifier):
    """Returns an optimizer from a name, a config dict or an instance.

    Args:
        identifier: an `Optimizer` (returned as is), a class name
            (case-insensitive: "adam", "sgd", "rmsprop", ...), a dict from
            `serialize`, or None.

    Returns:
        Optimizer or None.

    Example:
        >>> type(keras.optimizers.get("RMSprop")).__name__
        'RMSprop'
    """
    if identifier is None or isinstance(identifier, BaseOptimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return deserialize({"class_name": identifier, "config": {}})
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


__all__ = [
    "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "BaseOptimizer", "Lamb",
    "Lion", "Muon", "MultiOptimizer", "OptimizerMap",
    "Nadam", "Optimizer", "RMSprop", "SGD", "ScheduleFreeAdamW", "deserialize", "get", "schedules",
    "serialize",
]
