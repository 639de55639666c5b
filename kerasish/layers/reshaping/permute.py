"""Permute: permutes the non-batch axes."""
from kerasish import ops
from kerasish.layers.layer import Layer


class Permute(Layer):
    """Permutes the dimensions of the input (1-indexed, batch axis excluded).

    Args:
        dims: tuple, e.g. (2, 1) swaps the first and second non-batch axes.

    Example:
        >>> keras.layers.Permute((2, 1))(np.zeros((4, 10, 64))).shape
        (4, 64, 10)
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of indices in "
                f"`dims` must be consecutive and start from 1. Received dims={dims}"
            )

    def call(self, inputs):
        return ops.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self):
        config = super().get_config()
        config["dims"] = tuple(self.dims)
        return config
