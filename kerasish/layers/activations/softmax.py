"""Softmax layer, with optional mask."""
from kerasish import ops
from kerasish.layers.layer import Layer


class Softmax(Layer):
    """Softmax over `axis`; masked positions (mask False) get probability 0.

    Args:
        axis: int or tuple of ints, the normalisation axis (default -1).

    Example:
        >>> keras.layers.Softmax()(np.array([1.0, 1.0]))   # [0.5, 0.5]
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs, mask=None):
        if mask is not None:
            inputs = ops.where(ops.cast(mask, "bool"), inputs, -1e9)
        if isinstance(self.axis, (tuple, list)):
            return ops.exp(inputs - ops.logsumexp(inputs, axis=self.axis, keepdims=True))
        return ops.softmax(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config
