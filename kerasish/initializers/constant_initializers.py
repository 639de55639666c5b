"""Deterministic initializers: Zeros, Ones, Constant, Identity."""
import numpy as np

from kerasish import ops
from kerasish.backend import config
from kerasish.initializers.initializer import Initializer
from kerasish.utils.registry import serialize_object_as_keras


class Zeros(Initializer):
    """Fills with 0 (any numeric or bool dtype).

    Example:
        >>> keras.initializers.Zeros()((2, 2), dtype="int32")
    """

    def __call__(self, shape, dtype=None):
        return ops.zeros(shape, dtype=config.standardize_dtype(dtype))


class Ones(Initializer):
    """Fills with 1 (any numeric or bool dtype).

    Example:
        >>> keras.initializers.Ones()((3,))
    """

    def __call__(self, shape, dtype=None):
        return ops.ones(shape, dtype=config.standardize_dtype(dtype))


class Constant(Initializer):
    """Fills with a constant scalar `value`, cast to the requested dtype.

    Args:
        value: Python or numpy scalar (0.0 by default).

    Example:
        >>> keras.initializers.Constant(10.0)((2, 2))
    """

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        dtype = config.standardize_dtype(dtype)
        filled = ops.multiply(ops.cast(self.value, dtype), ops.ones(shape, dtype=dtype))
        return ops.cast(filled, dtype)

    def get_config(self):
        # As Keras: Python and numpy scalars stay plain, arrays and tensors become
        # `__numpy__` / `__tensor__` entries
        return {"value": serialize_object_as_keras(self.value)}

    @classmethod
    def from_config(cls, config):
        return cls(deserialize_value(config["value"]))


def deserialize_value(value):
    """A `Constant` value from its config: `__numpy__` entries become arrays,
    `__tensor__` entries tensors, anything else stays as it is."""
    if isinstance(value, dict) and value.get("class_name") in ("__numpy__", "__tensor__"):
        inner = value["config"]
        array = np.array(inner["value"], dtype=inner.get("dtype"))
        return array if value["class_name"] == "__numpy__" else ops.convert_to_tensor(array)
    return value


class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only; rectangular allowed).

    Args:
        gain: multiplicative factor (1.0 by default).

    Example:
        >>> keras.initializers.Identity(gain=2.0)((2, 3))
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        if len(shape) != 2:
            raise ValueError(
                "Identity initializer: `shape` must be 2-D (a matrix). "
                f"Received: shape={shape} of rank {len(shape)}."
            )
        dtype = config.standardize_dtype(dtype)
        return ops.cast(ops.multiply(ops.eye(shape[0], shape[1], dtype=dtype), self.gain), dtype)

    def get_config(self):
        # Keras 3.15.1's Identity has no get_config of its own: its config is {}
        # (a rebuilt one has gain 1.0).
        return {}


IdentityInitializer = Identity
