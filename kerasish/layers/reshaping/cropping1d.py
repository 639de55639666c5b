"""Cropping1D: crops steps off both ends of sequences."""
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer


class Cropping1D(Layer):
    """Crops a sequence along the steps axis (axis 1).

    Args:
        cropping: int (both ends) or tuple (start, end).

    Example:
        >>> keras.layers.Cropping1D((1, 2))(np.ones((2, 6, 4))).shape
        (2, 3, 4)
    """

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        value = (cropping, cropping) if isinstance(cropping, int) else cropping
        if not (isinstance(value, (list, tuple)) and len(value) == 2 and
                all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)):
            raise ValueError(f"Cropping1D layer '{self.name}': `cropping` should be a "
                             f"non-negative int or a tuple of 2 ints. Received: "
                             f"cropping={cropping!r}")
        self.cropping = tuple(value)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        self.compute_output_shape(inputs.shape)
        start, end = self.cropping
        return inputs[:, start:inputs.shape[1] - end, :]

    def compute_output_shape(self, input_shape):
        steps = input_shape[1]
        if steps is not None:
            if sum(self.cropping) >= steps:
                raise ValueError(
                    f"Cropping1D layer '{self.name}': `cropping` must be smaller than the "
                    f"input shape. Received: inputs.shape={tuple(input_shape)}, and "
                    f"cropping={self.cropping}")
            steps -= sum(self.cropping)
        return (input_shape[0], steps) + tuple(input_shape[2:])

    def get_config(self):
        config = super().get_config()
        config["cropping"] = self.cropping
        return config
