"""UnitNormalization: scales inputs to unit L2 norm along axes."""
from kerasish import ops
from kerasish.layers.layer import Layer


class UnitNormalization(Layer):
    """x / sqrt(max(sum(x ** 2, axis), 1e-12)): unit L2 norm along `axis`.

    Args:
        axis: int or list of ints, the axes to normalize over (default -1).

    Example:
        >>> keras.layers.UnitNormalization()(np.array([[3.0, 4.0]]))   # [[0.6, 0.8]]
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError("Invalid value for `axis` argument: expected an "
                            f"int or a list/tuple of ints. Received: axis={axis}")
        self.supports_masking = True
        self.built = True

    def call(self, inputs):
        # Keras's ops.normalize: x * min(rsqrt(sum of squares), 1e12)
        axis = tuple(self.axis) if isinstance(self.axis, list) else self.axis
        return ops.normalize(inputs, axis=axis, order=2, epsilon=1e-12)

    def compute_output_shape(self, input_shape):
        axes = [self.axis] if isinstance(self.axis, int) else self.axis
        for axis in axes:
            if axis >= len(input_shape) or axis < -len(input_shape):
                raise ValueError(f"UnitNormalization: axis {self.axis} is out of bounds for "
                                 f"input shape {input_shape}.")
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config
