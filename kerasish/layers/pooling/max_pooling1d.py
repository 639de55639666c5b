"""MaxPooling1D: 1-D max pooling."""
from kerasish.layers.pooling.base_pooling import BasePooling


class MaxPooling1D(BasePooling):
    """Max pooling over steps: downsamples by taking the max value over a window of steps.

    The gradient flows to the first maximum of each window.

    Args:
        pool_size: int or tuple of 1 ints (default 2).
        strides: int, tuple of 1 ints, or None (= pool_size).
        padding: "valid" (drop incomplete windows) or "same" (output = ceil(input / stride)).
        data_format: "channels_last" (batch, steps, features) (default) or "channels_first".

    Example:
        >>> keras.layers.MaxPooling1D()(np.zeros((2, 10, 4), "float32")).shape
        (2, 5, 4)
    """

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=1, pool_mode="max",
                         padding=padding, data_format=data_format, name=name, **kwargs)
