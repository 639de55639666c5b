"""AveragePooling2D: 2-D average pooling."""
from kerasish.layers.pooling.base_pooling import BasePooling


class AveragePooling2D(BasePooling):
    """Average pooling over rows and columns: downsamples by taking the mean over each window.

    With padding="same", windows are divided by their number of real
    (unpadded) elements, as in TensorFlow.

    Args:
        pool_size: int or tuple of 2 ints (required, as in Keras).
        strides: int, tuple of 2 ints, or None (= pool_size).
        padding: "valid" (drop incomplete windows) or "same" (output = ceil(input / stride)).
        data_format: "channels_last" (batch, rows, cols, channels) (default) or "channels_first".

    Example:
        >>> keras.layers.AveragePooling2D(2)(np.zeros((2, 28, 28, 3), "float32")).shape
        (2, 14, 14, 3)
    """

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=2, pool_mode="average",
                         padding=padding, data_format=data_format, name=name, **kwargs)
