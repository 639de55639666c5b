"""LeakyReLU layer."""
from kerasish import ops
from kerasish.layers.layer import Layer


class LeakyReLU(Layer):
    """`x` for x >= 0, `negative_slope * x` otherwise (default slope 0.3, as Keras).

    Args:
        negative_slope: slope below zero.

    Example:
        >>> keras.layers.LeakyReLU()(np.array([-1.0, 2.0]))   # [-0.3, 2.]
    """

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                "The negative_slope value of a Leaky ReLU layer cannot be None or negative. "
                f"Received: negative_slope={negative_slope}"
            )
        self.negative_slope = negative_slope
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return ops.leaky_relu(inputs, negative_slope=self.negative_slope)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["negative_slope"] = self.negative_slope
        return config
