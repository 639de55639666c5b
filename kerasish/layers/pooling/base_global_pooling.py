"""BaseGlobalPooling: shared code of the global pooling layers."""
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops.conv import standardize_data_format


class BaseGlobalPooling(Layer):
    """Abstract global pooling over all spatial axes.

    Args:
        pool_dimensions: number of spatial axes.
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the spatial axes with length 1.
    """

    def __init__(self, pool_dimensions, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        label = f"{type(self).__name__} layer '{self.name}'"
        self.data_format = standardize_data_format(data_format, label)
        self.keepdims = keepdims
        self.pool_dimensions = pool_dimensions
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)
        self._build_at_init()

    def _spatial_axes(self):
        first = 1 if self.data_format == "channels_last" else 2
        return tuple(range(first, first + self.pool_dimensions))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        axes = self._spatial_axes()
        if self.keepdims:
            return tuple(1 if i in axes else n for i, n in enumerate(input_shape))
        return tuple(n for i, n in enumerate(input_shape) if i not in axes)

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config
