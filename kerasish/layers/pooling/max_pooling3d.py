"""MaxPooling3D: 3-D max pooling."""
from kerasish.layers.pooling.base_pooling import BasePooling


class MaxPooling3D(BasePooling):
    """Max pooling over three spatial axes: the max value over each window.

    The gradient flows to the first maximum of each window.

    Args:
        pool_size: int or tuple of 3 ints (default (2, 2, 2)).
        strides: int, tuple of 3 ints, or None (= pool_size).
        padding: "valid" (drop incomplete windows) or "same" (output = ceil(input / stride)).
        data_format: "channels_last" (batch, dim1, dim2, dim3, channels) (default) or
            "channels_first".

    Example:
        >>> keras.layers.MaxPooling3D()(np.zeros((2, 4, 4, 4, 3), "float32")).shape
        (2, 2, 2, 2, 3)
    """

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=3, pool_mode="max",
                         padding=padding, data_format=data_format, name=name, **kwargs)
