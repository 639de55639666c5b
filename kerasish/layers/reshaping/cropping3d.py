"""Cropping3D: crops volumes along their three spatial axes."""
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.reshaping.border_widths import spatial_pairs
from kerasish.ops.conv import standardize_data_format


class Cropping3D(Layer):
    """Crops (batch, d1, d2, d3, channels) volumes.

    Args:
        cropping: int, 3 ints (symmetric) or 3 (before, after) pairs.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> keras.layers.Cropping3D(((1, 1), (2, 2), (0, 1)))(np.ones((1, 4, 6, 3, 2))).shape
        (1, 2, 2, 2, 2)
    """

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        label = f"Cropping3D layer '{self.name}'"
        self.cropping = spatial_pairs(cropping, 3, "cropping")
        self.data_format = standardize_data_format(data_format, label)
        self.input_spec = InputSpec(ndim=5)
        # built at the first call, as in Keras (which records the input shape then)

    def call(self, inputs):
        self._cropped_shape(inputs.shape, "inputs.shape")
        first = 1 if self.data_format == "channels_last" else 2
        keep = tuple(slice(lo, inputs.shape[first + i] - hi)
                     for i, (lo, hi) in enumerate(self.cropping))
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
