"""Reshape: reshapes the non-batch axes."""
import math

from kerasish import ops
from kerasish.layers.layer import Layer


class Reshape(Layer):
    """Reshapes inputs to `target_shape` (without the batch axis; one -1 allowed).

    Args:
        target_shape: tuple of ints.

    Example:
        >>> keras.layers.Reshape((3, 4))(np.zeros((2, 12))).shape
        (2, 3, 4)
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        self._build_at_init()

    def call(self, inputs):
        try:
            return ops.reshape(inputs, (inputs.shape[0],) + self.target_shape)
        except ValueError:
            raise ValueError(
                f"Layer '{self.name}': cannot reshape input of shape {inputs.shape} to "
                f"target_shape {self.target_shape} (sizes must match)."
            ) from None

    def compute_output_shape(self, input_shape):
        if -1 not in self.target_shape:
            return (input_shape[0],) + self.target_shape
        known = math.prod(d for d in self.target_shape if d != -1)
        rest = input_shape[1:]
        missing = None if any(d is None for d in rest) else math.prod(rest) // known
        return (input_shape[0],) + tuple(missing if d == -1 else d for d in self.target_shape)

    def get_config(self):
        config = super().get_config()
        config["target_shape"] = tuple(self.target_shape)
        return config
