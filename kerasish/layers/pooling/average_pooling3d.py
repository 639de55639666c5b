"""AveragePooling3D: 3-D average pooling."""
from kerasish.layers.pooling.base_pooling import BasePooling


class AveragePooling3D(BasePooling):
    """Average pooling over three spatial axes: the mean over each window.

    With padding="same", windows are divided by their number of real
    (unpadded) elements, as in TensorFlow. As in Keras, `pool_size` has no
    default here.

    Args:
        pool_size: int or tuple of 3 ints.
        strides: int, tuple of 3 ints, or None (= pool_size).
        padding: "valid" (drop incomplete windows) or "same" (output = ceil(input / stride)).
        data_format: "channels_last" (batch, dim1, dim2, dim3, channels) (default) or
            "channels_first".

    Example:
        >>> keras.layers.AveragePooling3D(2)(np.zeros((2, 4, 4, 4, 3), "float32")).shape
        (2, 2, 2, 2, 3)
    """

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None,
                 **kwargs):
        super().__init__(pool_size, strides, pool_dimensions=3, pool_mode="average",
                         padding=padding, data_format=data_format, name=name, **kwargs)
