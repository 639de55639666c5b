"""Flatten: collapses all non-batch axes into one."""
import math

from kerasish import ops
from kerasish.backend import config
from kerasish.layers.layer import Layer


class Flatten(Layer):
    """Flattens the input, keeping the batch axis: (N, 3, 4) -> (N, 12).

    Args:
        data_format: "channels_last" (default) or "channels_first"; with
            channels_first the input is moved to channels_last order first,
            as Keras does, so weights stay compatible.

    Example:
        >>> keras.layers.Flatten()(np.zeros((2, 3, 4))).shape
        (2, 12)
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = (data_format or config.image_data_format()).lower()
        if self.data_format not in ("channels_first", "channels_last"):
            raise ValueError(f"Flatten: unknown data_format {data_format!r}.")

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.ndim > 2:
            inputs = ops.moveaxis(inputs, 1, -1)
        # as Keras: the static size of the flattened axis when known, so a traced call
        # with an unknown batch (e.g. inside TimeDistributed) keeps it
        size = self.compute_output_shape(tuple(inputs.shape))[1]
        return ops.reshape(inputs, (inputs.shape[0], -1 if size is None else size))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        size = None if any(d is None for d in rest) else math.prod(rest)
        return (input_shape[0], size)

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config
