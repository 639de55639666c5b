"""SpatialDropout1D: drops entire channels of 1-D feature maps."""
from kerasish.layers.regularization.base_spatial_dropout import BaseSpatialDropout


class SpatialDropout1D(BaseSpatialDropout):
    """Spatial 1-D dropout: one keep flag per sample and channel, training only.

    Input shape: (batch, steps, channels) (channels_last).

    Args:
        rate: drop probability in [0, 1].
        seed: int seed.

    Example:
        >>> keras.layers.SpatialDropout1D(0.5, seed=1)(np.ones((2, 5, 3)), training=True).shape
        (2, 5, 3)
    """

    rank = 1

    def __init__(self, rate, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
