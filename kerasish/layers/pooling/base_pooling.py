"""BasePooling: shared code of the max/average pooling layers."""
from kerasish import ops
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.ops.conv import standardize_data_format, standardize_padding, standardize_tuple


class BasePooling(Layer):
    """Abstract N-D pooling layer (max or average).

    Args:
        pool_size: int or tuple of `pool_dimensions` ints.
        strides: int, tuple, or None (= pool_size).
        pool_dimensions: number of spatial axes.
        pool_mode: "max" or "average".
        padding: "valid" or "same".
        data_format: "channels_last" (default) or "channels_first".
    """

    def __init__(self, pool_size, strides, pool_dimensions, pool_mode="max", padding="valid",
                 data_format=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        label = f"{type(self).__name__} layer '{self.name}'"
        self.pool_size = standardize_tuple(pool_size, pool_dimensions, "pool_size", label)
        strides = pool_size if strides is None else strides
        self.strides = standardize_tuple(strides, pool_dimensions, "strides", label)
        self.pool_mode = pool_mode
        self.padding = standardize_padding(padding, label)
        self.data_format = standardize_data_format(data_format, label)
        self.pool_dimensions = pool_dimensions
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)
        self._build_at_init()

    def call(self, inputs):
        self.compute_output_shape(inputs.shape)
        pool = ops.max_pool if self.pool_mode == "max" else ops.average_pool
        return pool(inputs, pool_size=self.pool_size, strides=self.strides,
                    padding=self.padding, data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        channels_last = self.data_format == "channels_last"
        spatial = input_shape[1:-1] if channels_last else input_shape[2:]
        out = []
        for size, k, s in zip(spatial, self.pool_size, self.strides):
            if size is None:
                out.append(None)
            elif self.padding == "same":
                out.append(-(-size // s))
            elif size < k:
                raise ValueError(
                    f"{type(self).__name__} layer '{self.name}': the pool size "
                    f"{self.pool_size} is larger than the input (spatial size "
                    f"{tuple(spatial)}) with padding='valid'; the output would be empty. "
                    f"Full input shape received: {input_shape}.")
            else:
                out.append((size - k) // s + 1)
        if channels_last:
            return (input_shape[0],) + tuple(out) + (input_shape[-1],)
        return input_shape[:2] + tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        })
        return config
