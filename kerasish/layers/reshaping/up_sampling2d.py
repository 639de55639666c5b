"""UpSampling2D: enlarges images by integer factors (repeat or `ops.image.resize`)."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops import image as image_ops
from kerasish.ops.conv import standardize_data_format, standardize_tuple

_KERAS_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area", "lanczos3", "lanczos5")


class UpSampling2D(Layer):
    """Upsamples images by repeating rows and columns (or by resizing them).

    Args:
        size: int or tuple of 2 ints, the factors for rows and columns (default 2).
        data_format: "channels_last" (default) or "channels_first".
        interpolation: "nearest" (repeat), or "bilinear", "bicubic", "area",
            "lanczos3", "lanczos5": `ops.image.resize` to the enlarged size
            (TensorFlow's half-pixel kernels, no antialiasing), as Keras.

    Example:
        >>> keras.layers.UpSampling2D(2)(np.ones((1, 3, 3, 2))).shape
        (1, 6, 6, 2)
    """

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        label = f"UpSampling2D layer '{self.name}'"
        self.size = standardize_tuple(size, 2, "size", label)
        self.data_format = standardize_data_format(data_format, label)
        interpolation = str(interpolation).lower()
        if interpolation not in _KERAS_INTERPOLATIONS:
            raise ValueError(f"{label}: `interpolation` must be one of "
                             f"{_KERAS_INTERPOLATIONS}. Received: interpolation={interpolation!r}")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        rows_axis = 1 if self.data_format == "channels_last" else 2
        if self.interpolation == "nearest":
            outputs = ops.repeat(inputs, self.size[0], axis=rows_axis)
            return ops.repeat(outputs, self.size[1], axis=rows_axis + 1)
        rows, cols = inputs.shape[rows_axis], inputs.shape[rows_axis + 1]
        return image_ops.resize(inputs, (rows * self.size[0], cols * self.size[1]),
                                interpolation=self.interpolation,
                                data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        first = 1 if self.data_format == "channels_last" else 2
        for i, factor in enumerate(self.size):
            if out[first + i] is not None:
                out[first + i] *= factor
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"size": self.size, "data_format": self.data_format,
                       "interpolation": self.interpolation})
        return config
