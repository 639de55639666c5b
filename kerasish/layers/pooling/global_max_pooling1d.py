"""GlobalMaxPooling1D: max over all steps."""
from kerasish import ops
from kerasish.layers.pooling.base_global_pooling import BaseGlobalPooling


class GlobalMaxPooling1D(BaseGlobalPooling):
    """Global max pooling: the max over all steps of each channel.

    Args:
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the pooled axes with length 1 (default False).

    Example:
        >>> keras.layers.GlobalMaxPooling1D()(np.zeros((2, 10, 16), "float32")).shape
        (2, 16)
    """

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=1, data_format=data_format, keepdims=keepdims,
                         **kwargs)

    def call(self, inputs):
        return ops.max(inputs, axis=self._spatial_axes(), keepdims=self.keepdims)
