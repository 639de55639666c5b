"""GlobalMaxPooling3D: max over all three spatial axes."""
from kerasish import ops
from kerasish.layers.pooling.base_global_pooling import BaseGlobalPooling


class GlobalMaxPooling3D(BaseGlobalPooling):
    """Global max pooling: the max over the three spatial axes of each channel.

    Args:
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the pooled axes with length 1 (default False).

    Example:
        >>> keras.layers.GlobalMaxPooling3D()(np.zeros((2, 3, 4, 5, 16), "float32")).shape
        (2, 16)
    """

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(pool_dimensions=3, data_format=data_format, keepdims=keepdims,
                         **kwargs)

    def call(self, inputs):
        return ops.max(inputs, axis=self._spatial_axes(), keepdims=self.keepdims)
