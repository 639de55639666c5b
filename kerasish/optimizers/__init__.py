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
from kerasish.optimizers.ftrl import Ftrl
from kerasish.optimizers.lamb import Lamb
from kerasish.optimizers.lion import Lion
from kerasish.optimizers.multi_optimizer import MultiOptimizer, OptimizerMap
from kerasish.optimizers.muon import Muon
from kerasish.optimizers.nadam import Nadam
from kerasish.optimizers.optimizer import Optimizer
from kerasish.optimizers.rmsprop import RMSprop
from kerasish.optimizers.schedule_free_adamw import ScheduleFreeAdamW
from kerasish.optimizers.sgd import SGD
from kerasish.utils import registry

ALL_OBJECTS = (Adadelta, Adafactor, Adagrad, Adam, Adamax, AdamW, Ftrl, Lamb, Lion, Muon,
               Nadam, RMSprop, SGD, ScheduleFreeAdamW)
ALL_OBJECTS_DICT = {cls.__name__.lower(): cls for cls in ALL_OBJECTS}
from kerasish.optimizers.loss_scale_optimizer import LossScaleOptimizer  # noqa: E402
ALL_OBJECTS += (LossScaleOptimizer,)
ALL_OBJECTS_DICT["lossscaleoptimizer"] = LossScaleOptimizer

_CATALOG = registry.OptimizerCatalog("optimizer", ALL_OBJECTS_DICT, base=BaseOptimizer,
                                     module="keras.optimizers", label="an Optimizer")
registry.REGISTRY.add_namespace("optimizers", globals(), _CATALOG)


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
    return _CATALOG.serialize(optimizer)


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
    return _CATALOG.deserialize(config, custom_objects)


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
    name = identifier.get("class_name") if isinstance(identifier, dict) else identifier
    if isinstance(name, str) and name.lower() == "lamb":
        # Keras 3.15.1's `get` does not know Lamb (missing from its ALL_OBJECTS), by name
        # or config; `deserialize` and loading a saved model still find it.
        raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
    return _CATALOG.get(identifier)


__all__ = [
    "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "BaseOptimizer", "Ftrl",
    "Lamb", "Lion", "LossScaleOptimizer", "Muon", "MultiOptimizer", "OptimizerMap", "Nadam",
    "Optimizer", "RMSprop", "SGD", "ScheduleFreeAdamW", "deserialize", "get", "schedules",
    "serialize",
]
