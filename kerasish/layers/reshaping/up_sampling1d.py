"""UpSampling1D: repeats each step `size` times."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer


class UpSampling1D(Layer):
    """Upsamples a sequence by repeating each step `size` times along axis 1.

    Args:
        size: positive int, the upsampling factor (default 2).

    Example:
        >>> keras.layers.UpSampling1D(2)(np.ones((2, 3, 4))).shape
        (2, 6, 4)
    """

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
            raise ValueError(f"UpSampling1D layer '{self.name}': `size` must be a positive "
                             f"int. Received: size={size!r}")
        self.size = size
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        return ops.repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape):
        steps = None if input_shape[1] is None else input_shape[1] * self.size
        return (input_shape[0], steps) + tuple(input_shape[2:])

    def get_config(self):
        config = super().get_config()
        config["size"] = self.size
        return config
