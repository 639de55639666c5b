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
        keep = ops.expand_dims(ops.cast(mask, "bool"),
                               2 if self.data_format == "channels_last" else 1)
        weights = ops.cast(keep, inputs.dtype)
        # `where`, not a product: masked steps get an exact zero gradient even in an
        # all-masked row, whose output is 0/0 = NaN (both as in Keras on TensorFlow).
        masked = ops.where(keep, inputs, ops.zeros_like(inputs))
        total = ops.sum(masked, axis=axis, keepdims=self.keepdims)
        return ops.divide(total, ops.sum(weights, axis=axis, keepdims=self.keepdims))

    def compute_mask(self, inputs, mask=None):
        return None
