"""ZeroPadding2D: pads images with zero rows and columns."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.reshaping.border_widths import spatial_pairs
from kerasish.ops.conv import standardize_data_format


class ZeroPadding2D(Layer):
    """Adds rows and columns of zeros around an image.

    Args:
        padding: int (same on all sides), tuple of 2 ints (symmetric height,
            width padding) or ((top, bottom), (left, right)).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> keras.layers.ZeroPadding2D(1)(np.ones((1, 2, 2, 1))).shape
        (1, 4, 4, 1)
    """

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        label = f"ZeroPadding2D layer '{self.name}'"
        self.padding = spatial_pairs(padding, 2, "padding")
        self.data_format = standardize_data_format(data_format, label)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        if self.data_format == "channels_last":
            width = ((0, 0),) + self.padding + ((0, 0),)
        else:
            width = ((0, 0), (0, 0)) + self.padding
        return ops.pad(inputs, width)

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        first = 1 if self.data_format == "channels_last" else 2
        for i, (lo, hi) in enumerate(self.padding):
            if out[first + i] is not None:
                out[first + i] += lo + hi
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config
