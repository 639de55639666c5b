"""SpatialDropout3D: drops entire channels of 3-D feature maps."""
from kerasish.layers.regularization.base_spatial_dropout import BaseSpatialDropout


class SpatialDropout3D(BaseSpatialDropout):
    """Spatial 3-D dropout: one keep flag per sample and channel, training only.

    Input shape: (batch, d1, d2, d3, channels) (channels_last).

    Args:
        rate: drop probability in [0, 1].
        data_format: "channels_last" (default) or "channels_first".
        seed: int seed.

    Example:
        >>> keras.layers.SpatialDropout3D(0.5, seed=1)(np.ones((2, 3, 3, 3, 2)), training=True).shape
        (2, 3, 3, 3, 2)
    """

    rank = 3

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(rate, data_format=data_format, seed=seed, name=name, dtype=dtype)
