"""Cropping2D: crops rows and columns off the borders of images."""
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.reshaping.border_widths import spatial_pairs
from kerasish.ops.conv import standardize_data_format


class Cropping2D(Layer):
    """Crops an image along height and width.

    Args:
        cropping: int (same on all sides), tuple of 2 ints (symmetric height,
            width cropping) or ((top, bottom), (left, right)).
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> keras.layers.Cropping2D(((2, 2), (4, 4)))(np.ones((2, 28, 28, 3))).shape
        (2, 24, 20, 3)
    """

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        label = f"Cropping2D layer '{self.name}'"
        self.cropping = spatial_pairs(cropping, 2, "cropping")
        self.data_format = standardize_data_format(data_format, label)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        self._cropped_shape(inputs.shape, "inputs.shape")
        (top, bottom), (left, right) = self.cropping
        rows, cols = (inputs.shape[1], inputs.shape[2]) if self.data_format == "channels_last" \
            else (inputs.shape[2], inputs.shape[3])
        keep = (slice(top, rows - bottom), slice(left, cols - right))
        if self.data_format == "channels_last":
            return inputs[(slice(None),) + keep + (slice(None),)]
        return inputs[(slice(None), slice(None)) + keep]

    def compute_output_shape(self, input_shape):
        return self._cropped_shape(input_shape, "input_shape")

    def _cropped_shape(self, shape, shown):
        """The output shape; Keras's error (`shown`: how it names the shape) if empty."""
        out = list(shape)
        first = 1 if self.data_format == "channels_last" else 2
        for i, (lo, hi) in enumerate(self.cropping):
            size = out[first + i]
            if size is None:
                continue
            if lo + hi >= size:
                raise ValueError("Values in `cropping` argument should be smaller than the "
                                 "corresponding spatial dimension of the input. Received: "
                                 f"{shown}={shape}, cropping={self.cropping}")
            out[first + i] = size - lo - hi
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"cropping": self.cropping, "data_format": self.data_format})
        return config
