"""Reshape: reshapes the non-batch axes."""
import math

from kerasish import ops
from kerasish.layers.layer import Layer


class Reshape(Layer):
    """Reshapes inputs to `target_shape` (without the batch axis; one -1 allowed).

    Args:
        target_shape: tuple of ints (each >= 0, or -1 for one unknown axis).

    Raises:
        ValueError: in Keras's words, at construction for a bad `target_shape`
            and, on a call (symbolic too), when the sizes do not match.

    Example:
        >>> keras.layers.Reshape((3, 4))(np.zeros((2, 12))).shape
        (2, 3, 4)
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        _validate_target_shape(self.target_shape)
        self._build_at_init()

    def call(self, inputs):
        shape = self.compute_output_shape(tuple(inputs.shape))
        return ops.reshape(inputs, (inputs.shape[0],) + tuple(
            -1 if d is None else d for d in shape[1:]))

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + _reshaped(tuple(input_shape[1:]), self.target_shape)

    def get_config(self):
        config = super().get_config()
        config["target_shape"] = tuple(self.target_shape)
        return config


def _validate_target_shape(target_shape):
    for dim in target_shape:
        if dim < -1:
            raise ValueError(
                "Each dimension in `target_shape` must be a non-negative integer, or `-1` "
                f"for a single unknown dimension. Received: target_shape={target_shape}.")
    if target_shape.count(-1) > 1:
        raise ValueError("There must be at most one unknown dimension (-1) in `target_shape`. "
                         f"Received: target_shape={target_shape}.")


def _reshaped(input_shape, target_shape):
    """The non-batch output shape (Keras's rule and messages); None where unknown."""
    if None in input_shape:
        return tuple(None if d == -1 else d for d in target_shape)
    size = math.prod(input_shape)
    if -1 not in target_shape:
        if size != math.prod(target_shape):
            raise ValueError("The total size of the tensor must be unchanged. Received: "
                             f"input_shape={input_shape}, target_shape={target_shape}")
        return target_shape
    known = math.prod(d for d in target_shape if d != -1)
    if known == 0 or size % known:
        raise ValueError(
            "The total size of the tensor must be unchanged, however, the input size cannot "
            "by divided by the specified dimensions in target_shape. Received: "
            f"input_shape={input_shape}, target_shape={target_shape}")
    return tuple(size // known if d == -1 else d for d in target_shape)
