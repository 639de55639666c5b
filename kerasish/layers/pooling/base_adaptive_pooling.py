"""Adaptive pooling: pools to a fixed output size, with Keras 3.15's (TensorFlow) windows."""
from kerasish import config, ops
from kerasish.layers.layer import Layer


class BaseAdaptivePooling(Layer):
    """Pools each spatial axis to `output_size` (average or max); subclasses set `rank`, `mode`."""

    rank = None
    mode = None

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        if isinstance(output_size, int):
            output_size = (output_size,) * self.rank
        output_size = tuple(output_size)
        if len(output_size) != self.rank or not all(
                isinstance(n, int) and n > 0 for n in output_size):
            raise ValueError(f"{name}: `output_size` must be a positive int or a tuple of "
                             f"{self.rank} positive ints. Received: output_size={output_size}")
        self.output_size = output_size
        self.data_format = data_format or config.image_data_format()
        if self.data_format not in {"channels_first", "channels_last"}:
            raise ValueError(f"{name}: invalid data_format: {self.data_format}. Expected "
                             "'channels_first' or 'channels_last'.")
        # built at the first call, as in Keras (which records the input shape then)

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        if x.ndim != self.rank + 2:
            raise ValueError(f"{type(self).__name__} expects {self.rank + 2}-D inputs; received "
                             f"shape {x.shape}.")
        pool = ops.adaptive_average_pool if self.mode == "average" else ops.adaptive_max_pool
        return pool(x, self.output_size, data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        if self.data_format == "channels_last":
            return (input_shape[0], *self.output_size, input_shape[-1])
        return (input_shape[0], input_shape[1], *self.output_size)

    def get_config(self):
        config_dict = super().get_config()
        config_dict.update({"output_size": self.output_size, "data_format": self.data_format})
        return config_dict
