"""ELU layer."""
from kerasish import ops
from kerasish.layers.layer import Layer


class ELU(Layer):
    """Exponential linear unit: `x` if x > 0 else `alpha * (exp(x) - 1)`.

    Args:
        alpha: scale for the negative part (default 1.0).

    Example:
        >>> keras.layers.ELU()(np.array([-1.0, 1.0]))
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return ops.elu(inputs, alpha=self.alpha)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        # Keras 3.15.1's key order: name, alpha, trainable, dtype (its auto-captured
        # constructor arguments come right after the name).
        base = super().get_config()
        return {"name": base.pop("name"), "alpha": self.alpha, **base}
