"""Maximum: merges a list of tensors elementwise."""
from kerasish import ops
from kerasish.layers.merging.base_merge import Merge


class Maximum(Merge):
    """Takes the elementwise maximum of a list of inputs elementwise (same shapes, broadcasting allowed).

    Example:
        >>> keras.layers.Maximum()([np.ones((2, 3)), np.ones((2, 3))]).shape
        (2, 3)
    """

    def _merge(self, a, b):
        return ops.maximum(a, b)
