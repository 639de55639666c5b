"""UpSampling2D: enlarges images by integer factors (nearest or bilinear)."""
import numpy as np

from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops.conv import standardize_data_format, standardize_tuple

_KERAS_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area", "lanczos3", "lanczos5")


def bilinear_matrix(in_size, out_size):
    """(out_size, in_size) linear-interpolation weights with half-pixel centres.

    Output pixel `i` samples `(i + 0.5) * in / out - 0.5`, clamped to the
    input, as `tf.image.resize(..., "bilinear")` does.
    """
    src = (np.arange(out_size) + 0.5) * (in_size / out_size) - 0.5
    low = np.floor(src)
    frac = src - low
    low = low.astype(np.int64)
    matrix = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    np.add.at(matrix, (rows, np.clip(low, 0, in_size - 1)), 1.0 - frac)
    np.add.at(matrix, (rows, np.clip(low + 1, 0, in_size - 1)), frac)
    return matrix


class UpSampling2D(Layer):
    """Upsamples images by repeating rows and columns (or bilinear interpolation).

    Args:
        size: int or tuple of 2 ints, the factors for rows and columns (default 2).
        data_format: "channels_last" (default) or "channels_first".
        interpolation: "nearest" (repeat) or "bilinear" (half-pixel centres, as
            TensorFlow's resize); Keras's "bicubic", "area", "lanczos3" and
            "lanczos5" are not implemented.

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
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"{label}: interpolation={interpolation!r} is not "
                                      "implemented in kerasish; use 'nearest' or 'bilinear'.")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        rows_axis = 1 if self.data_format == "channels_last" else 2
        if self.interpolation == "nearest":
            outputs = ops.repeat(inputs, self.size[0], axis=rows_axis)
            return ops.repeat(outputs, self.size[1], axis=rows_axis + 1)
        rows, cols = inputs.shape[rows_axis], inputs.shape[rows_axis + 1]
        dtype = inputs.dtype if inputs.dtype.startswith("float") else "float32"
        along_rows = ops.convert_to_tensor(
            bilinear_matrix(rows, rows * self.size[0]).astype(dtype))
        along_cols = ops.convert_to_tensor(
            bilinear_matrix(cols, cols * self.size[1]).astype(dtype))
        spec = "nhwc" if self.data_format == "channels_last" else "nchw"
        out_spec = spec.replace("h", "p")
        outputs = ops.einsum(f"ph,{spec}->{out_spec}", along_rows, ops.cast(inputs, dtype))
        return ops.einsum(f"qw,{out_spec}->{out_spec.replace('w', 'q')}", along_cols, outputs)

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
