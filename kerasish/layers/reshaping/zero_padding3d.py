"""ZeroPadding3D: pads volumes with zeros along their three spatial axes."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.reshaping.border_widths import spatial_pairs
from kerasish.ops.conv import standardize_data_format


class ZeroPadding3D(Layer):
    """Adds zeros around a volume (batch, d1, d2, d3, channels).

    Args:
        padding: int, 3 ints (symmetric) or 3 (before, after) pairs.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> keras.layers.ZeroPadding3D(1)(np.ones((1, 2, 2, 2, 1))).shape
        (1, 4, 4, 4, 1)
    """

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        label = f"ZeroPadding3D layer '{self.name}'"
        self.padding = spatial_pairs(padding, 3, "padding")
        self.data_format = standardize_data_format(data_format, label)
        self.input_spec = InputSpec(ndim=5)
        # built at the first call, as in Keras (which records the input shape then)

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
