"""RepeatVector: repeats a (batch, features) input n times along a new axis."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer


class RepeatVector(Layer):
    """Repeats the input `n` times: (batch, f) -> (batch, n, f).

    Args:
        n: the repetition factor.

    Example:
        >>> keras.layers.RepeatVector(3)(np.zeros((2, 32))).shape
        (2, 3, 32)
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, int):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return ops.repeat(ops.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self):
        config = super().get_config()
        config["n"] = self.n
        return config
