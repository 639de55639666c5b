"""Add: merges a list of tensors elementwise."""
from kerasish import ops
from kerasish.layers.merging.base_merge import Merge


class Add(Merge):
    """Adds a list of inputs elementwise (same shapes, broadcasting allowed).

    Example:
        >>> keras.layers.Add()([np.ones((2, 3)), np.ones((2, 3))]).shape
        (2, 3)
    """

    def _merge(self, a, b):
        return ops.add(a, b)


def add(inputs, **kwargs):
    """Functional interface to `Add`: Adds a list of inputs.

    Example:
        >>> keras.layers.add([keras.Input((3,)), keras.Input((3,))]).shape
        (None, 3)
    """
    return Add(**kwargs)(inputs)
