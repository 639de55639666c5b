"""BaseSpatialDropout: dropout of whole feature maps (one keep flag per sample and channel)."""
from kerasish import random
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.regularization.dropout import Dropout
from kerasish.ops.conv import standardize_data_format


class BaseSpatialDropout(Dropout):
    """Dropout whose mask is shared over the spatial (or time) axes.

    Subclasses set `rank` (spatial axes: 1, 2 or 3).
    """

    rank = None

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = "channels_last" if self.rank == 1 else \
            standardize_data_format(data_format, type(self).__name__)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _noise_shape(self, shape):
        if self.data_format == "channels_first":
            return (shape[0], shape[1]) + (1,) * self.rank
        return (shape[0],) + (1,) * self.rank + (shape[-1],)

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            return random.dropout(inputs, self.rate, noise_shape=self._noise_shape(inputs.shape),
                                  seed=self.seed_generator)
        return inputs

    def get_config(self):
        config = {"rate": self.rate, "seed": self.seed, "name": self.name, "dtype": self.dtype}
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config
