"""Minimum: merges a list of tensors elementwise."""
from kerasish import ops
from kerasish.layers.merging.base_merge import Merge, merge_or_masks


class Minimum(Merge):
    """Takes the elementwise minimum of a list of inputs elementwise (same shapes, broadcasting allowed).

    Example:
        >>> keras.layers.Minimum()([np.ones((2, 3)), np.ones((2, 3))]).shape
        (2, 3)
    """

    def call(self, inputs):
        # as Keras: a masked step takes the other inputs' values
        return merge_or_masks(ops.minimum, inputs)

    def _merge(self, a, b):
        return ops.minimum(a, b)


def minimum(inputs, **kwargs):
    """Functional interface to `Minimum`: Elementwise minimum of a list of inputs.

    Example:
        >>> keras.layers.minimum([keras.Input((3,)), keras.Input((3,))]).shape
        (None, 3)
    """
    return Minimum(**kwargs)(inputs)
