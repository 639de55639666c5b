"""Activation: applies an activation function to its input."""
from kerasish import activations
from kerasish.layers.layer import Layer


class Activation(Layer):
    """Applies an activation function to an output.

    Args:
        activation: an activation function or its name, e.g. "relu".

    Example:
        >>> keras.layers.Activation("relu")(np.array([-1.0, 2.0]))   # [0., 2.]
    """

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)
        self._build_at_init()

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["activation"] = activations.serialize(self.activation)
        return config
