"""Masking: marks time steps whose features all equal `mask_value` as padding."""
from kerasish import ops
from kerasish.layers.layer import Layer


class Masking(Layer):
    """Masks time steps where every feature equals `mask_value`.

    The output is the input with masked steps zeroed, and it carries a
    mask `(batch, time)` that RNN layers use to skip those steps.

    Args:
        mask_value: the padding value (default 0.0).

    Example:
        >>> keras.layers.Masking()(np.array([[[1.0], [0.0]]]))._keras_mask   # [[True, False]]
    """

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        self._build_at_init()

    def compute_mask(self, inputs, previous_mask=None):
        return ops.any(ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = ops.any(ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return ops.multiply(inputs, ops.cast(keep, inputs.dtype))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["mask_value"] = self.mask_value
        return config
