"""ZeroPadding2D: pads images with zero rows and columns."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops.conv import standardize_data_format


def pairs_2d(value, name, label):
    """An int, 2 ints or 2 pairs of ints as ((top, bottom), (left, right))."""
    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    if is_int(value):
        return ((value, value), (value, value))
    if isinstance(value, (list, tuple)) and len(value) == 2:
        if all(is_int(v) for v in value):
            return ((value[0], value[0]), (value[1], value[1]))
        if all(isinstance(v, (list, tuple)) and len(v) == 2 and all(is_int(u) for u in v)
               for v in value):
            return (tuple(value[0]), tuple(value[1]))
    raise ValueError(f"{label}: `{name}` should be a non-negative int, a tuple of 2 ints or a "
                     f"tuple of 2 tuples of 2 ints. Received: {name}={value!r}")


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
        self.padding = pairs_2d(padding, "padding", label)
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
