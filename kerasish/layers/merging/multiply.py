"""Multiply: merges a list of tensors elementwise."""
from kerasish import ops
from kerasish.layers.merging.base_merge import Merge


class Multiply(Merge):
    """Multiplies a list of inputs elementwise (same shapes, broadcasting allowed).

    Example:
        >>> keras.layers.Multiply()([np.ones((2, 3)), np.ones((2, 3))]).shape
        (2, 3)
    """

    def _merge(self, a, b):
        return ops.multiply(a, b)


def multiply(inputs, **kwargs):
    """Functional interface to `Multiply`: Multiplies a list of inputs.

    Example:
        >>> keras.layers.multiply([keras.Input((3,)), keras.Input((3,))]).shape
        (None, 3)
    """
    return Multiply(**kwargs)(inputs)
