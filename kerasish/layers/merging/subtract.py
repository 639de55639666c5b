"""Subtract: the difference of exactly two tensors."""
from kerasish import ops
from kerasish.layers.merging.base_merge import Merge


class Subtract(Merge):
    """Subtracts the second input from the first (exactly two inputs).

    Example:
        >>> keras.layers.Subtract()([np.ones(3), np.ones(3)])   # [0., 0., 0.]
    """

    def build(self, input_shape):
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(
                f"A `Subtract` layer should be called on exactly 2 inputs. Received: "
                f"input_shape={input_shape}"
            )

    def _merge(self, a, b):
        return ops.subtract(a, b)


def subtract(inputs, **kwargs):
    """Functional interface to `Subtract`: Subtracts (two) a list of inputs.

    Example:
        >>> keras.layers.subtract([keras.Input((3,)), keras.Input((3,))]).shape
        (None, 3)
    """
    return Subtract(**kwargs)(inputs)
