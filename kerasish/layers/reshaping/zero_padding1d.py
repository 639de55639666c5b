"""ZeroPadding1D: pads sequences with zero steps."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.reshaping.border_widths import int_pair
from kerasish.ops.conv import standardize_data_format


class ZeroPadding1D(Layer):
    """Adds zero steps at the start and end of a sequence.

    Args:
        padding: int (both ends) or tuple (left, right).
        data_format: "channels_last" (batch, steps, features) (default) or "channels_first".

    Example:
        >>> keras.layers.ZeroPadding1D((1, 2))(np.ones((2, 3, 4))).shape
        (2, 6, 4)
    """

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        label = f"ZeroPadding1D layer '{self.name}'"
        self.padding = int_pair(padding, "padding")
        self.data_format = standardize_data_format(data_format, label)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        width = ((0, 0), self.padding, (0, 0)) if self.data_format == "channels_last" \
            else ((0, 0), (0, 0), self.padding)
        return ops.pad(inputs, width)

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        axis = 1 if self.data_format == "channels_last" else 2
        if out[axis] is not None:
            out[axis] += sum(self.padding)
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config
