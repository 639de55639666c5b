"""Cropping1D: crops steps off both ends of sequences."""
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.reshaping.border_widths import int_pair


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
        self.cropping = int_pair(cropping, "cropping")
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        self._cropped_shape(inputs.shape, "inputs.shape")
        start, end = self.cropping
        return inputs[:, start:inputs.shape[1] - end, :]

    def compute_output_shape(self, input_shape):
        return self._cropped_shape(input_shape, "input_shape")

    def _cropped_shape(self, shape, shown):
        """The output shape; Keras's error (`shown`: how it names the shape) if empty."""
        steps = shape[1]
        if steps is not None:
            if sum(self.cropping) >= steps:
                raise ValueError("`cropping` parameter of `Cropping1D` layer must be smaller "
                                 f"than the input length. Received: {shown}={shape}, "
                                 f"cropping={self.cropping}")
            steps -= sum(self.cropping)
        return (shape[0], steps) + tuple(shape[2:])

    def get_config(self):
        config = super().get_config()
        config["cropping"] = self.cropping
        return config
