"""AveragePooling1D: 1-D average pooling."""
from kerasish.layers.pooling.base_pooling import BasePooling


class AveragePooling1D(BasePooling):
    """Average pooling over steps: downsamples by taking the mean over a window of steps.

    With padding="same", windows are divided by their number of real
    (unpadded) elements, as in TensorFlow.

    Args:
        pool_size: int or tuple of 1 ints (required, as in Keras).
        strides: int, tuple of 1 ints, or None (= pool_size).
        padding: "valid" (drop incomplete windows) or "same" (output = ceil(input / stride)).
        data_format: "channels_last" (batch, steps, features) (default) or "channels_first".

    Example:
        >>> keras.layers.AveragePooling1D(2)(np.zeros((2, 10, 4), "float32")).shape
        (2, 5, 4)
    """

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=1, pool_mode="average",
                         padding=padding, data_format=data_format, name=name, **kwargs)
