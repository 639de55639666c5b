"""ReLU layer: rectified linear unit with optional cap, slope and threshold."""
from kerasish import activations
from kerasish.layers.layer import Layer


class ReLU(Layer):
    """`max_value`-capped ReLU with a `negative_slope` below `threshold`.

    Args:
        max_value: optional upper bound.
        negative_slope: slope for values below the threshold (default 0).
        threshold: values below it are scaled by `negative_slope`.

    Example:
        >>> keras.layers.ReLU(max_value=6.0)(np.array([-1.0, 3.0, 9.0]))   # [0., 3., 6.]
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0:
            raise ValueError("max_value of a ReLU layer cannot be a negative value. "
                             f"Received: max_value={max_value}")
        if negative_slope is None or negative_slope < 0:
            raise ValueError("negative_slope of a ReLU layer cannot be None or a negative "
                             f"value. Received: negative_slope={negative_slope}")
        if threshold is None or threshold < 0:
            raise ValueError("threshold of a ReLU layer cannot be None or a negative value. "
                             f"Received: threshold={threshold}")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope,
                                max_value=self.max_value, threshold=self.threshold)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                       "threshold": self.threshold})
        return config
