"""GlobalAveragePooling1D: average over all steps (mask-aware)."""
from kerasish import ops
from kerasish.layers.pooling.base_global_pooling import BaseGlobalPooling


class GlobalAveragePooling1D(BaseGlobalPooling):
    """Global average pooling over steps; with a mask, only unmasked steps count.

    Args:
        data_format: "channels_last" (batch, steps, features) (default) or
            "channels_first".
        keepdims: keep the steps axis with length 1 (default False).

    Call arguments:
        inputs: a 3D tensor.
        mask: optional (batch, steps) boolean mask (e.g. from `Embedding(mask_zero=True)`).

    Example:
        >>> keras.layers.GlobalAveragePooling1D()(np.ones((2, 10, 16), "float32")).shape
        (2, 16)
    """

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=1, data_format=data_format, keepdims=keepdims,
                         **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        axis = 1 if self.data_format == "channels_last" else 2
        if mask is None:
            return ops.mean(inputs, axis=axis, keepdims=self.keepdims)
        weights = ops.expand_dims(ops.cast(mask, inputs.dtype),
                                  2 if self.data_format == "channels_last" else 1)
        total = ops.sum(ops.multiply(inputs, weights), axis=axis, keepdims=self.keepdims)
        count = ops.sum(weights, axis=axis, keepdims=self.keepdims)
        # As Keras on TensorFlow: an all-masked row averages to 0/0 = NaN, yet its
        # gradient is zero; dividing by a count of 1 there keeps NaN out of the backward.
        some = ops.greater(count, 0)
        mean = ops.divide(total, ops.where(some, count, ops.ones_like(count)))
        return ops.where(some, mean, ops.full_like(mean, float("nan")))

    def compute_mask(self, inputs, mask=None):
        return None
