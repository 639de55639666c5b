"""ActivityRegularization: identity that adds an L1/L2 penalty on its input to the losses."""
from kerasish import regularizers
from kerasish.layers.layer import Layer


class ActivityRegularization(Layer):
    """Passes inputs through and adds `l1 * sum|x| + l2 * sum x^2` (over the batch size) to losses.

    Args:
        l1: L1 factor.
        l2: L2 factor.

    Example:
        >>> layer = keras.layers.ActivityRegularization(l1=0.1)
        >>> _ = layer(np.ones((2, 3)))
        >>> float(layer.losses[0])   # 0.1 * 6 / 2
        0.3...
    """

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        kwargs.pop("activity_regularizer", None)
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2
        self.built = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        config.update({"l1": self.l1, "l2": self.l2})
        return config
