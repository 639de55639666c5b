"""AdaptiveAveragePooling1D: averages over adaptive windows to a fixed 1-D output size."""
from kerasish.layers.pooling.base_adaptive_pooling import BaseAdaptivePooling


class AdaptiveAveragePooling1D(BaseAdaptivePooling):
    """Adaptive average pooling of 1-D inputs to `output_size` (Keras 3.15's windows).

    Args:
        output_size: int or 1 ints, the spatial output size.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> keras.layers.AdaptiveAveragePooling1D(4)(np.ones((2, 10, 3))).shape
        (2, 4, 3)
    """

    rank = 1
    mode = "average"
