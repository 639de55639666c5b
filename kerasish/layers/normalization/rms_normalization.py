"""RMSNormalization: x / sqrt(mean(x^2) + epsilon) * scale over axes."""
from kerasish import ops
from kerasish.layers.layer import Layer


class RMSNormalization(Layer):
    """Root-mean-square normalization (Zhang & Sennrich, 2019) with a learned `scale`.

    Args:
        axis: int or list of ints, the axes to normalize over (default -1);
            `scale` has their sizes.
        epsilon: added to the mean square (default 1e-6).

    Example:
        >>> keras.layers.RMSNormalization()(np.array([[1.0, 3.0]])).shape
        (1, 2)
    """

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon

    def build(self, input_shape):
        if isinstance(self.axis, (list, tuple)):
            self.axis = sorted(self.axis)
            shape = tuple(input_shape[dim] for dim in self.axis)
        else:
            shape = (input_shape[self.axis],)
            self.axis = [self.axis]
        self.scale = self.add_weight(name="scale", shape=shape, initializer="ones")

    def call(self, x):
        return ops.rms_normalization(x, scale=self.scale, axis=self.axis, epsilon=self.epsilon)

    def compute_output_shape(self, input_shape):
        axes = [self.axis] if isinstance(self.axis, int) else self.axis
        for axis in axes:
            if axis >= len(input_shape) or axis < -len(input_shape):
                raise ValueError(f"RMSNormalization: axis {axis} is out of bounds for input "
                                 f"shape {input_shape}. Received: axis={self.axis}")
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "epsilon": self.epsilon})
        return config
