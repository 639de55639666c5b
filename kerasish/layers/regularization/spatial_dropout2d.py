"""SpatialDropout2D: drops entire channels of 2-D feature maps."""
from kerasish.layers.regularization.base_spatial_dropout import BaseSpatialDropout


class SpatialDropout2D(BaseSpatialDropout):
    """Spatial 2-D dropout: one keep flag per sample and channel, training only.

    Input shape: (batch, rows, cols, channels) (channels_last).

    Args:
        rate: drop probability in [0, 1].
        data_format: "channels_last" (default) or "channels_first".
        seed: int seed.

    Example:
        >>> keras.layers.SpatialDropout2D(0.5, seed=1)(np.ones((2, 4, 4, 3)), training=True).shape
        (2, 4, 4, 3)
    """

    rank = 2

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(rate, data_format=data_format, seed=seed, name=name, dtype=dtype)
