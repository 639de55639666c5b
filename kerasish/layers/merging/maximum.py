"""Maximum: merges a list of tensors elementwise."""
from kerasish import ops
from kerasish.layers.merging.base_merge import Merge, merge_or_masks


class Maximum(Merge):
    """Takes the elementwise maximum of a list of inputs elementwise (same shapes, broadcasting allowed).

    Example:
        >>> keras.layers.Maximum()([np.ones((2, 3)), np.ones((2, 3))]).shape
        (2, 3)
    """

    def call(self, inputs):
        # as Keras: a masked step takes the other inputs' values
        return merge_or_masks(ops.maximum, inputs)

    def _merge(self, a, b):
        return ops.maximum(a, b)


def maximum(inputs, **kwargs):
    """Functional interface to `Maximum`: Elementwise maximum of a list of inputs.

    Example:
        >>> keras.layers.maximum([keras.Input((3,)), keras.Input((3,))]).shape
        (None, 3)
    """
    return Maximum(**kwargs)(inputs)
