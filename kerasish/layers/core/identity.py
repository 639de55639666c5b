"""Identity: returns its input unchanged."""
from kerasish.layers.layer import Layer


class Identity(Layer):
    """A placeholder layer that returns its input (masks pass through).

    Example:
        >>> keras.layers.Identity()(x) is x
        True
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape
