"""UpSampling3D: enlarges volumes by repeating along each spatial axis."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops.conv import standardize_data_format, standardize_tuple


class UpSampling3D(Layer):
    """Repeats each of the three spatial axes `size` times (nearest neighbour).

    Args:
        size: int or 3 ints (default 2).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> keras.layers.UpSampling3D(2)(np.ones((1, 2, 2, 2, 3))).shape
        (1, 4, 4, 4, 3)
    """

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        label = f"UpSampling3D layer '{self.name}'"
        self.size = standardize_tuple(size, 3, "size", label)
        self.data_format = standardize_data_format(data_format, label)
        self.input_spec = InputSpec(ndim=5)
        # built at the first call, as in Keras (which records the input shape then)

    def call(self, inputs):
        first = 1 if self.data_format == "channels_last" else 2
        for i, factor in enumerate(self.size):
            inputs = ops.repeat(inputs, factor, axis=first + i)
        return inputs

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        first = 1 if self.data_format == "channels_last" else 2
        for i, factor in enumerate(self.size):
            if out[first + i] is not None:
                out[first + i] *= factor
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"size": self.size, "data_format": self.data_format})
        return config
